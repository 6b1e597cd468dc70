// SPDX-License-Identifier: GPL-2.0
/*
 * --share / --add specs: defaults, modes, guest paths the agent needs,
 * clashes, and how they reach QEMU, libvirt's XML and the guest job.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "lib/util.h"
#include "tmpdir.h"
#include "vm/share.h"
#include "vm/vmcfg.h"

TMPDIR_FIXTURE("share")

static void test_share__defaults_and_rw(void **state)
{
	struct vm_share s;
	char *spec = xasprintf("%s:/mnt/data:rw", dir), *err = NULL;
	struct sbuf b;

	(void)state;
	assert_int_equal(share_parse(dir, NULL, &s, &err), 0);
	assert_string_equal(s.host, dir);
	assert_string_equal(s.guest + strlen(SHARE_GUEST_DIR "/"), strrchr(dir, '/') + 1);
	assert_false(s.rw);
	share_release(&s);
	assert_int_equal(share_parse(spec, NULL, &s, &err), 0);
	assert_string_equal(s.guest, "/mnt/data");
	assert_true(s.rw);
	assert_int_equal(share_list_check(&s, 1, NULL, 0, &err), 0);
	sbuf_init(&b);
	share_job_line(&s, &b);
	assert_string_equal(b.s, "share.netlab0=rw /mnt/data\n");
	sbuf_release(&b);
	share_release(&s);
	free(spec);
}

static void test_share__relative_to_base(void **state)
{
	struct vm_share s;
	char *sub = xasprintf("%s/sub", dir), *err = NULL;

	(void)state;
	char *cmd = xasprintf("mkdir -p '%s'", sub);

	assert_int_equal(system(cmd), 0);
	free(cmd);
	assert_int_equal(share_parse("sub:ro", dir, &s, &err), 0);
	assert_string_equal(s.host, sub);
	assert_string_equal(s.guest, SHARE_GUEST_DIR "/sub");
	share_release(&s);
	free(sub);
}

static void expect_bad(const char *spec, bool add, const char *needle)
{
	struct vm_share s;
	char *err = NULL;

	assert_int_equal(add ? add_parse(spec, NULL, &s, &err) : share_parse(spec, NULL, &s, &err),
			 -EINVAL);
	assert_non_null(err);
	if (!strstr(err, needle))
		fail_msg("'%s': error '%s' lacks '%s'", spec, err, needle);
	assert_non_null(strstr(err, "hint:"));
	free(err);
}

static void test_share__rejects_bad_input(void **state)
{
	char *p;

	(void)state;
	expect_bad("/nonexistent/netlab", false, "no directory");
	p = xasprintf("%s:relative", dir);
	expect_bad(p, false, "not absolute");
	free(p);
	for (const char *const *g = (const char *const[]){ "/proc", "/sys/x", "/dev", "/run/a",
							     "/tmp", "/netlab/out", NULL }; *g; g++) {
		p = xasprintf("%s:%s", dir, *g);
		expect_bad(p, false, "which the guest agent uses");
		free(p);
	}
	p = xasprintf("%s:/", dir);
	expect_bad(p, false, "root file system");
	free(p);
	p = xasprintf("%s:/mnt/../etc", dir);
	expect_bad(p, false, "'..'");
	free(p);
	expect_bad(dir, true, "not a regular file");
	p = xasprintf("%s:/usr/x", dir);
	expect_bad(p, false, "which the guest agent uses");
	free(p);
}

/* A ':' in the host path: the error names that path, not the part before the ':'. */
static void test_share__colon_in_host_path_named(void **state)
{
	char *d = xasprintf("%s/with:colon", dir), *f = xasprintf("%s/fi:le", dir);
	char *need = xasprintf("host path '%s' holds a ':'", d), *p;

	(void)state;
	assert_int_equal(mkdir(d, 0755), 0);
	assert_int_equal(file_write(f, "x", 1), 0);
	expect_bad(d, false, need);
	p = xasprintf("%s:rw", d);
	expect_bad(p, false, need);
	free(p);
	p = xasprintf("%s:/mnt/share/x:ro", d);
	expect_bad(p, false, need);
	free(p);
	free(need);
	need = xasprintf("host path '%s' holds a ':'", f);
	expect_bad(f, true, need);
	p = xasprintf("%s:/etc/x", f);
	expect_bad(p, true, need);
	free(p);
	/* The ':'s of the spec alone are no host path's. */
	p = xasprintf("%s:/mnt/share/x:rw", dir);
	{
		struct vm_share s;
		char *err = NULL;

		assert_int_equal(share_parse(p, NULL, &s, &err), 0);
		share_release(&s);
	}
	free(p);
	free(need);
	free(f);
	free(d);
}

static void test_share__added_file_may_go_to_etc_not_proc(void **state)
{
	char *f = xasprintf("%s/f.txt", dir), *spec, *err = NULL;
	struct vm_share s;

	(void)state;
	assert_int_equal(file_writef(f, "x\n"), 0);
	spec = xasprintf("%s:/etc/netlab-test.conf", f);
	assert_int_equal(add_parse(spec, NULL, &s, &err), 0);
	assert_string_equal(s.guest, "/etc/netlab-test.conf");
	share_release(&s);
	free(spec);
	spec = xasprintf("%s:/proc/x", f);
	expect_bad(spec, true, "which the guest agent uses");
	free(spec);
	free(f);
}

static void test_share__clash_and_qemu_args(void **state)
{
	struct vm_share s[2];
	char *a = xasprintf("%s:/mnt/x", dir), *b2 = xasprintf("%s:/mnt/x/y:rw", dir), *err = NULL;
	struct vm_config cfg = { 0 };
	struct argv av;

	(void)state;
	assert_int_equal(share_parse(a, NULL, &s[0], &err), 0);
	assert_int_equal(share_parse(b2, NULL, &s[1], &err), 0);
	assert_int_equal(share_list_check(s, 2, NULL, 0, &err), -EINVAL);
	assert_non_null(strstr(err, "clashes"));
	free(err);
	free(s[1].guest);
	s[1].guest = xstrdup("/mnt/z");
	assert_int_equal(share_list_check(s, 2, NULL, 0, &err), 0);
	cfg.shares = s;
	cfg.n_shares = 2;
	argv_init(&av);
	qemu_share_args(&cfg, &av);
	assert_int_equal(av.n, 8);
	assert_non_null(strstr(av.v[1], ",security_model=none,readonly=on"));
	assert_null(strstr(av.v[5], "readonly"));
	/* a rw share: the guest's modes in xattrs, never setuid files or device nodes on the host */
	assert_non_null(strstr(av.v[5], ",security_model=mapped-xattr"));
	assert_string_equal(share_security_model(&s[0]), "none");
	assert_string_equal(share_security_model(&s[1]), "mapped-xattr");
	assert_string_equal(av.v[7], "virtio-9p-pci,fsdev=fs1,mount_tag=netlab1");
	argv_release(&av);
	share_release(&s[0]);
	share_release(&s[1]);
	free(a);
	free(b2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_share__defaults_and_rw),
		cmocka_unit_test(test_share__relative_to_base),
		cmocka_unit_test(test_share__rejects_bad_input),
		cmocka_unit_test(test_share__colon_in_host_path_named),
		cmocka_unit_test(test_share__added_file_may_go_to_etc_not_proc),
		cmocka_unit_test(test_share__clash_and_qemu_args),
	};

	return cmocka_run_group_tests(tests, dir_setup, dir_teardown);
}
