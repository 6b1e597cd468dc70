// SPDX-License-Identifier: GPL-2.0
/* netlab gdb options: --modules, --share, --add land in the struct; bad input names the option. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cmd/cmd.h"
#include "lib/util.h"
#include "vm/share.h"

static int parse(struct gdb_cmd *gc, char **err, ...)
{
	char *argv[32] = { "gdb" };
	int argc = 1;
	va_list ap;

	va_start(ap, err);
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	return gdb_cmd_parse(argc, argv, gc, err);
}

static void test_gdb_cmd__modules_share_add(void **state)
{
	char tmp[] = "/tmp/netlab-test-gdb-opts-XXXXXX", *file, *spec;
	struct gdb_cmd gc;
	char *err = NULL;

	assert_non_null(mkdtemp(tmp));
	file = xasprintf("%s/repro.sh", tmp);
	assert_int_equal(file_write(file, "true\n", 5), 0);
	spec = xasprintf("%s:/opt/t:rw", tmp);
	assert_int_equal(parse(&gc, &err, "--modules", tmp, "--share", spec, "--add", file,
			       "--kernel", "/k/bzImage", "--initrd", "/i", "s.scn", NULL), 0);
	assert_null(err);
	assert_string_equal(gc.o.modules, tmp);
	assert_string_equal(gc.o.target, "s.scn");
	assert_int_equal(gc.shares.n_shares, 1);
	assert_string_equal(gc.shares.shares[0].guest, "/opt/t");
	assert_true(gc.shares.shares[0].rw);
	assert_int_equal(gc.shares.n_adds, 1);
	assert_string_equal(gc.shares.adds[0].guest, "/mnt/add/repro.sh");
	gdb_cmd_release(&gc);

	/* without --modules: none */
	assert_int_equal(parse(&gc, &err, "--kernel", "/k/bzImage", "--initrd", "/i", "s.scn",
			       NULL), 0);
	assert_null(gc.o.modules);
	gdb_cmd_release(&gc);
	free(spec);
	free(file);
	rm_rf(tmp);
}

static void test_gdb_cmd__bad_modules_names_the_option(void **state)
{
	struct gdb_cmd gc;
	char *err = NULL;

	assert_int_equal(parse(&gc, &err, "--modules", "/no/such/dir", "s.scn", NULL), -EINVAL);
	assert_non_null(strstr(err, "--modules '/no/such/dir': not a directory"));
	assert_non_null(strstr(err, "\nhint: "));
	gdb_cmd_release(&gc);
	free(err);
	err = NULL;
	/* a file is not a module tree either */
	assert_int_equal(parse(&gc, &err, "--modules", "/proc/version", "s.scn", NULL), -EINVAL);
	assert_non_null(strstr(err, "--modules '/proc/version'"));
	gdb_cmd_release(&gc);
	free(err);
	err = NULL;
	assert_int_equal(parse(&gc, &err, "--share", "/no/such/dir", "s.scn", NULL), -EINVAL);
	assert_non_null(strstr(err, "--share '/no/such/dir'"));
	gdb_cmd_release(&gc);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gdb_cmd__modules_share_add),
		cmocka_unit_test(test_gdb_cmd__bad_modules_names_the_option),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
