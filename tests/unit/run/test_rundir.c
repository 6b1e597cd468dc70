// SPDX-License-Identifier: GPL-2.0
/* run_dir_check(): what every command's --out must be before anything boots. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "run/run.h"
#include "tmpdir.h"

TMPDIR_FIXTURE("rundir")

static void expect_refused(const char *path, const char *below, const char *needle)
{
	char *err = NULL;

	assert_int_equal(run_dir_check("--out", path, below, &err), -EINVAL);
	assert_non_null(err);
	if (!strstr(err, needle))
		fail_msg("'%s': error '%s' lacks '%s'", path, err, needle);
	assert_non_null(strstr(err, "--out '"));
	assert_non_null(strstr(err, "\nhint: "));
	free(err);
}

static void test_rundir__qemu_option_syntax_refused(void **state)
{
	expect_refused("runs/a,b", NULL, "holds a ','");
	expect_refused("runs/a=b", NULL, "holds a '='");
}

static void test_rundir__a_file_is_no_directory(void **state)
{
	char *f = xasprintf("%s/file", dir), *sub = xasprintf("%s/file/sub", dir);

	assert_int_equal(file_write(f, "keep", 4), 0);
	expect_refused(f, NULL, "it exists and is not a directory");
	expect_refused(sub, NULL, "a component of it is a file");
	free(sub);
	free(f);
}

/* The longest socket path: DIR BELOW /qmp.sock, under 108 bytes with its NUL. */
static void test_rundir__socket_path_limit_counts_what_goes_below(void **state)
{
	char fit[108 - sizeof(RUN_SOCK_TAIL) + 1], *err = NULL;

	memset(fit, 'x', sizeof(fit) - 1);
	fit[0] = '/';
	fit[sizeof(fit) - 1] = '\0';
	assert_int_equal(strlen(fit) + strlen(RUN_SOCK_TAIL), 107);
	assert_int_equal(run_dir_check("--out", fit, NULL, &err), 0);
	assert_null(err);
	expect_refused(fit, "/s", "shorter than 108 bytes (sun_path)");
	fit[sizeof(fit) - 3] = '\0';
	assert_int_equal(run_dir_check("--out", fit, "/s", &err), 0);
	expect_refused(fit, "/scenario/run-1", "/scenario/run-1/qmp.sock");
	expect_refused(fit, "/scenario/run-1" RUN_SOCK_BELOW_VMS, "/scenario/run-1/vm-b/qmp.sock");
	assert_string_equal(run_sock_below("pair"), RUN_SOCK_BELOW_VMS);
	assert_string_equal(run_sock_below(NULL), "");
}

static void test_rundir__new_empty_or_existing_directory_passes(void **state)
{
	char *err = NULL, *p = xasprintf("%s/new/deeper", dir);

	assert_int_equal(run_dir_check("--out", dir, NULL, &err), 0);
	assert_int_equal(run_dir_check("--out", p, "/udp-clean/run-1", &err), 0);
	assert_null(err);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rundir__qemu_option_syntax_refused),
		cmocka_unit_test(test_rundir__a_file_is_no_directory),
		cmocka_unit_test(test_rundir__socket_path_limit_counts_what_goes_below),
		cmocka_unit_test(test_rundir__new_empty_or_existing_directory_passes),
	};

	return cmocka_run_group_tests_name("rundir", tests, dir_setup, dir_teardown);
}
