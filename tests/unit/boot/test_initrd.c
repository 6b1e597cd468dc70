// SPDX-License-Identifier: GPL-2.0
/* Per-run initrd: newc cpio writer and job + base concatenation. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "boot/initrd.h"

static char tmpdir[] = "/tmp/netlab-initrd-XXXXXX";

static int setup(void **state)
{
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", tmpdir);
	int r = system(cmd);

	free(cmd);
	return r;
}

static void test_cpio__entries_are_4_byte_aligned_newc(void **state)
{
	struct cpio c;

	cpio_init(&c);
	cpio_add_dir(&c, "d", 0755);
	assert_int_equal(c.buf.len % 4, 0);
	cpio_add_file(&c, "d/f", 0644, "abc", 3);
	assert_int_equal(c.buf.len % 4, 0);
	cpio_finish(&c);
	assert_int_equal(c.buf.len % 4, 0);
	assert_memory_equal(c.buf.s, "070701", 6);
	assert_non_null(memmem(c.buf.s, c.buf.len, "TRAILER!!!", 10));
	cpio_release(&c);
}

/* GNU cpio must read back exactly what was written, after the base archive. */
static void test_initrd__job_readable_by_cpio_and_base_appended(void **state)
{
	char *base = xasprintf("%s/base", tmpdir);
	char *out = xasprintf("%s/initrd.img", tmpdir);
	char *cmd, *data = NULL, *err = NULL;
	size_t len;

	assert_int_equal(file_write(base, "BASEBYTES", 9), 0);
	assert_int_equal(initrd_assemble(out, "version=1\n", "echo hi\n", base, &err), 0);
	assert_int_equal(file_read(out, &data, &len), 0);
	assert_true(len > 9);
	assert_memory_equal(data + len - 9, "BASEBYTES", 9);
	free(data);

	cmd = xasprintf("cd '%s' && mkdir x && cd x && cpio -id --quiet < ../initrd.img 2>/dev/null; "
			"test -d netlab/out && test -x netlab/exec.sh", tmpdir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	cmd = xasprintf("%s/x/netlab/exec.sh", tmpdir);
	assert_int_equal(file_read(cmd, &data, NULL), 0);
	assert_string_equal(data, "echo hi\n");
	free(data);
	free(cmd);
	cmd = xasprintf("%s/x/netlab/job", tmpdir);
	assert_int_equal(file_read(cmd, &data, NULL), 0);
	assert_string_equal(data, "version=1\n");
	free(data);
	free(cmd);
	free(base);
	free(out);
}

static void test_initrd__missing_base_names_it(void **state)
{
	char *out = xasprintf("%s/initrd2.img", tmpdir);
	char *err = NULL;

	assert_int_not_equal(initrd_assemble(out, "", "", "/nonexistent/base.cpio.gz", &err), 0);
	assert_non_null(strstr(err, "/nonexistent/base.cpio.gz"));
	free(err);
	free(out);
}

/* @name in tmpdir holding @len bytes of @data; the path, caller frees. */
static char *put(const char *name, const void *data, size_t len)
{
	char *p = xasprintf("%s/%s", tmpdir, name);

	assert_int_equal(file_write(p, data, len), 0);
	return p;
}

static void expect_refused(const char *path, const char *needle)
{
	char *err = NULL;

	assert_int_equal(initrd_check(path, &err), -EINVAL);
	assert_non_null(err);
	if (!strstr(err, needle))
		fail_msg("'%s' not in '%s'", needle, err);
	free(err);
}

static void test_initrd_check__cpio_as_is_or_gzipped_passes(void **state)
{
	struct cpio c;
	char *plain, *gz, *cmd, *err = NULL;

	cpio_init(&c);
	cpio_add_file(&c, "init", 0755, "#!/bin/sh\n", 10);
	cpio_finish(&c);
	plain = put("plain.cpio", c.buf.s, c.buf.len);
	gz = xasprintf("%s/plain.cpio.gz", tmpdir);
	cmd = xasprintf("gzip -c '%s' > '%s'", plain, gz);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(initrd_check(plain, &err), 0);
	assert_int_equal(initrd_check(gz, &err), 0);
	assert_null(err);
	cpio_release(&c);
	free(cmd);
	free(gz);
	free(plain);
}

static void test_initrd_check__empty_garbage_or_not_cpio_refused(void **state)
{
	char *p, *cmd;

	p = put("empty", "", 0);
	expect_refused(p, "it is empty");
	free(p);
	p = put("garbage", "hello, world\n", 13);
	expect_refused(p, "not an initramfs: neither a cpio archive (newc, 070701)");
	free(p);
	/* gzip's magic, then nothing gzip can unpack */
	p = put("cut.gz", "\x1f\x8b\x08\x00garbage", 11);
	expect_refused(p, "gzip data that does not unpack to a cpio archive");
	free(p);
	p = xasprintf("%s/text.gz", tmpdir);
	cmd = xasprintf("echo not a cpio | gzip -c > '%s'", p);
	assert_int_equal(system(cmd), 0);
	expect_refused(p, "gzip data that does not unpack to a cpio archive");
	free(cmd);
	free(p);
}

static void test_initrd_check__missing_file_is_errno(void **state)
{
	char *err = NULL;

	assert_int_equal(initrd_check("/nonexistent/initrd", &err), -ENOENT);
	assert_non_null(strstr(err, "cannot read it"));
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpio__entries_are_4_byte_aligned_newc),
		cmocka_unit_test(test_initrd__job_readable_by_cpio_and_base_appended),
		cmocka_unit_test(test_initrd__missing_base_names_it),
		cmocka_unit_test(test_initrd_check__cpio_as_is_or_gzipped_passes),
		cmocka_unit_test(test_initrd_check__empty_garbage_or_not_cpio_refused),
		cmocka_unit_test(test_initrd_check__missing_file_is_errno),
	};

	return cmocka_run_group_tests_name("initrd", tests, setup, teardown);
}
