// SPDX-License-Identifier: GPL-2.0
/*
 * run_unpack_files(): the guest's files.tar is unpacked with tar from an
 * argv, so a run directory whose name holds quotes and shell syntax (an
 * artifact named after a branch, say) is only a name: nothing runs.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "run/run.h"
#include "lib/util.h"
#include "tmpdir.h"

TMPDIR_FIXTURE("unpack")

static void test_run_unpack__hostile_directory_name_runs_nothing(void **state)
{
	char *run = xasprintf("%s/it's $(touch %s/pwned) `touch %s/pwned2`; touch %s/pwned3 '", dir,
			      dir, dir, dir);
	char *src = xasprintf("%s/src", dir), *tar = xasprintf("%s/files.tar", run);
	char *file = xasprintf("%s/files/hello.txt", run), *p, *text = NULL;
	pid_t pid;
	int status;

	assert_int_equal(mkdir_p(run, 0755), 0);
	assert_int_equal(mkdir_p(src, 0755), 0);
	p = xasprintf("%s/hello.txt", src);
	assert_int_equal(file_writef(p, "from the guest\n"), 0);
	free(p);
	pid = fork();
	if (pid == 0) {
		execlp("tar", "tar", "-cf", tar, "-C", src, "hello.txt", (char *)NULL);
		_exit(127);
	}
	assert_true(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status));

	assert_int_equal(run_unpack_files(run), 0);
	assert_int_equal(file_read(file, &text, NULL), 0);
	assert_string_equal(text, "from the guest\n");
	for (int i = 0; i < 3; i++) {
		p = i ? xasprintf("%s/pwned%d", dir, i + 1) : xasprintf("%s/pwned", dir);
		assert_int_equal(access(p, F_OK), -1);
		free(p);
	}
	free(text);
	free(file);
	free(tar);
	free(src);
	free(run);
}

static void test_run_unpack__no_files_tar_is_enoent(void **state)
{
	char *run = xasprintf("%s/empty", dir);

	assert_int_equal(mkdir_p(run, 0755), 0);
	assert_int_equal(run_unpack_files(run), -ENOENT);
	free(run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_unpack__hostile_directory_name_runs_nothing),
		cmocka_unit_test(test_run_unpack__no_files_tar_is_enoent),
	};

	return cmocka_run_group_tests(tests, dir_setup, dir_teardown);
}
