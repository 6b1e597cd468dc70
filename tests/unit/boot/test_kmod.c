// SPDX-License-Identifier: GPL-2.0
/*
 * --modules: .modinfo read from ELF64 module files, and the wanted modules
 * of a tree collected with their dependencies first, from module files made
 * here (an ELF header, a section name table and a .modinfo section).
 */
#include <elf.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "boot/kmod.h"
#include "lib/util.h"

static char tmpdir[] = "/tmp/netlab-kmod-XXXXXX";

static int setup(void **state)
{
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	return rm_rf(tmpdir);
}

/* A module file: ELF64 with .shstrtab and .modinfo holding @info ("k=v\0k=v\0"). */
static char *elf_module(const char *info, size_t info_len, size_t *len)
{
	static const char names[] = "\0.shstrtab\0.modinfo";
	size_t off_names = sizeof(Elf64_Ehdr), off_info = off_names + sizeof(names);
	size_t off_sh = (off_info + info_len + 7) & ~(size_t)7;
	size_t n = off_sh + 3 * sizeof(Elf64_Shdr);
	char *buf = calloc(1, n);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	Elf64_Shdr *sh = (Elf64_Shdr *)(buf + off_sh);

	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_type = ET_REL;
	eh->e_shoff = off_sh;
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = 3;
	eh->e_shstrndx = 1;
	memcpy(buf + off_names, names, sizeof(names));
	memcpy(buf + off_info, info, info_len);
	sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_STRTAB, .sh_offset = off_names,
			      .sh_size = sizeof(names) };
	sh[2] = (Elf64_Shdr){ .sh_name = 11, .sh_type = SHT_PROGBITS, .sh_offset = off_info,
			      .sh_size = info_len };
	*len = n;
	return buf;
}

static void put_module(const char *rel, const char *deps)
{
	char info[256], *path, *dir, *buf;
	size_t n, len;

	n = (size_t)snprintf(info, sizeof(info), "license=GPL%cvermagic=6.1.0-99-amd64 SMP mod_unload%cdepends=%s",
			     0, 0, deps) + 1;
	buf = elf_module(info, n, &len);
	path = xasprintf("%s/%s", tmpdir, rel);
	dir = xstrdup(path);
	*strrchr(dir, '/') = '\0';
	assert_int_equal(mkdir_p(dir, 0755), 0);
	assert_int_equal(file_write(path, buf, len), 0);
	free(buf);
	free(path);
	free(dir);
}

static void test_kmod__modinfo_fields(void **state)
{
	static const char info[] = "name=e1000e\0depends=\0vermagic=6.1.0-56-amd64 SMP\0";
	size_t len;
	char *buf = elf_module(info, sizeof(info), &len);

	assert_string_equal(kmod_modinfo(buf, len, "vermagic"), "6.1.0-56-amd64 SMP");
	assert_string_equal(kmod_modinfo(buf, len, "depends"), "");
	assert_string_equal(kmod_modinfo(buf, len, "name"), "e1000e");
	assert_null(kmod_modinfo(buf, len, "author"));
	assert_null(kmod_modinfo(buf, len, "vermagi"));
	/* truncated files and non-ELF data: no field, no read past the end */
	for (size_t n = 0; n < len; n += 7)
		kmod_modinfo(buf, n, "vermagic");
	assert_null(kmod_modinfo("not an elf file", 15, "vermagic"));
	free(buf);
}

static void test_kmod__wanted_modules_dependencies_first(void **state)
{
	const char *lib = "lib/modules/6.1.0-99-amd64/kernel";
	struct kmod_list l;
	char *err = NULL, *root = xasprintf("%s/pkg", tmpdir), rel[256];

	(void)state;
#define MOD(path, deps) snprintf(rel, sizeof(rel), "pkg/%s/%s", lib, path), put_module(rel, deps)
	MOD("drivers/net/virtio_net.ko", "net_failover,virtio");
	MOD("drivers/net/net_failover.ko", "failover");
	MOD("net/core/failover.ko", "");
	MOD("drivers/virtio/virtio.ko", "virtio_ring");
	MOD("drivers/virtio/virtio_ring.ko", "");
	MOD("drivers/net/ethernet/intel/e1000e/e1000e.ko", "");
	MOD("drivers/net/ethernet/intel/igb/igb.ko", "");
	MOD("drivers/net/ethernet/intel/ixgbe/ixgbe.ko", ""); /* no model: not wanted */
#undef MOD
	assert_int_equal(kmod_collect(root, &l, &err), 0);
	assert_non_null(strstr(l.dir, "lib/modules/6.1.0-99-amd64"));
	assert_string_equal(l.vermagic, "6.1.0-99-amd64 SMP mod_unload");
	assert_int_equal(l.n, 7);
	/* every module after its dependencies; every model's (igb: nicmodel.c); ixgbe not taken */
	for (size_t i = 0; i < l.n; i++) {
		assert_string_not_equal(l.v[i].name, "ixgbe");
		if (!strcmp(l.v[i].name, "virtio_net"))
			for (size_t j = i; j < l.n; j++)
				assert_true(strcmp(l.v[j].name, "virtio") && strcmp(l.v[j].name, "net_failover") &&
					    strcmp(l.v[j].name, "failover") && strcmp(l.v[j].name, "virtio_ring"));
	}
	kmod_list_release(&l);
	free(root);
}

static void test_kmod__bad_trees_say_what_to_do(void **state)
{
	struct kmod_list l;
	char *err = NULL, *dir = xasprintf("%s/nothing", tmpdir), rel[256];

	(void)state;
	assert_int_equal(mkdir_p(dir, 0755), 0);
	assert_int_equal(kmod_collect(dir, &l, &err), -ENOENT);
	assert_non_null(strstr(err, "no module tree"));
	assert_non_null(strstr(err, "hint: "));
	free(err);
	err = NULL;
	/* a dependency the tree lacks */
	snprintf(rel, sizeof(rel), "lacks/kernel/drivers/net/e1000.ko");
	put_module(rel, "e1000_helper");
	free(dir);
	dir = xasprintf("%s/lacks", tmpdir);
	assert_int_equal(kmod_collect(dir, &l, &err), -EINVAL);
	assert_non_null(strstr(err, "'e1000' depends on 'e1000_helper', which the tree lacks"));
	free(err);
	err = NULL;
	/* compressed modules */
	{
		char *p = xasprintf("%s/lacks/kernel/drivers/net/e1000e.ko.xz", tmpdir);

		assert_int_equal(file_write(p, "xz", 2), 0);
		free(p);
	}
	assert_int_equal(kmod_collect(dir, &l, &err), -EINVAL);
	assert_non_null(strstr(err, "is compressed"));
	free(err);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kmod__modinfo_fields),
		cmocka_unit_test(test_kmod__wanted_modules_dependencies_first),
		cmocka_unit_test(test_kmod__bad_trees_say_what_to_do),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
