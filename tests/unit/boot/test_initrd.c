// SPDX-License-Identifier: GPL-2.0
/* Per-run initrd: newc cpio writer and job + base concatenation. */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpio__entries_are_4_byte_aligned_newc),
		cmocka_unit_test(test_initrd__job_readable_by_cpio_and_base_appended),
		cmocka_unit_test(test_initrd__missing_base_names_it),
	};

	return cmocka_run_group_tests_name("initrd", tests, setup, teardown);
}
