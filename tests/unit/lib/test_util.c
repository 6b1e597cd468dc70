// SPDX-License-Identifier: GPL-2.0
/*
 * file_write() is all or nothing: a write that fails part-way (a full disk,
 * here a file-size limit) leaves the old file as it was and no temporary
 * file behind, so result.json, summary.json and junit.xml are never left
 * truncated or empty.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/util.h"
#include "tmpdir.h"

TMPDIR_FIXTURE("util")

static size_t entries(const char *d)
{
	DIR *dh = opendir(d);
	struct dirent *e;
	size_t n = 0;

	while (dh && (e = readdir(dh)))
		n += e->d_name[0] != '.';
	if (dh)
		closedir(dh);
	return n;
}

static void test_util__file_write_failing_midway_keeps_the_old_file(void **state)
{
	char *path = xasprintf("%s/result.json", dir), *text = NULL;
	pid_t pid;
	int status;

	assert_int_equal(file_write(path, "{\"old\": 1}\n", 11), 0);
	pid = fork();
	if (pid == 0) {
		/* Writes past 4 bytes fail with EFBIG, as a full disk fails with ENOSPC. */
		struct rlimit rl = { .rlim_cur = 4, .rlim_max = 4 };

		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
		_exit(file_write(path, "{\"new\": 1234567890}\n", 20) == -EFBIG ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(file_read(path, &text, NULL), 0);
	assert_string_equal(text, "{\"old\": 1}\n");
	assert_int_equal(entries(dir), 1);	/* no temporary file left */
	free(text);
	/* And a write that succeeds replaces it whole. */
	assert_int_equal(file_write(path, "{\"new\": 2}\n", 11), 0);
	assert_int_equal(file_read(path, &text, NULL), 0);
	assert_string_equal(text, "{\"new\": 2}\n");
	assert_int_equal(entries(dir), 1);
	free(text);
	free(path);
}

/*
 * disk_space() answers for a path that does not exist yet (a run directory
 * about to be made) from its nearest parent, and names the mount; a demand
 * larger than the free space gives the "no space left" text with both
 * figures, a small one nothing.
 */
/* What a tool said last: the last non-blank line, or the last with a prefix. */
static void test_util__file_last_line(void **state)
{
	char *path = xasprintf("%s/log", dir), *line;
	const char *log = "a: one\nb: two\na: three \r\n\n  \n", *bad = "bad \xff byte\n";

	assert_int_equal(file_write(path, log, strlen(log)), 0);
	line = file_last_line(path, "");
	assert_string_equal(line, "a: three");
	free(line);
	line = file_last_line(path, "b:");
	assert_string_equal(line, "b: two");
	free(line);
	assert_null(file_last_line(path, "c:"));
	assert_int_equal(file_write(path, bad, strlen(bad)), 0);
	line = file_last_line(path, "");
	assert_string_equal(line, "bad \xff byte");
	free(line);
	assert_null(file_last_line("/nonexistent/log", ""));
	free(path);
}

/* A peer gone while we write: EPIPE, and the process lives on. */
static void test_util__sigpipe_ignored_is_a_write_error(void **state)
{
	int fd[2];

	assert_int_equal(pipe(fd), 0);
	close(fd[0]);
	sigpipe_ignore();
	assert_int_equal(write(fd[1], "x", 1), -1);
	assert_int_equal(errno, EPIPE);
	close(fd[1]);
	signal(SIGPIPE, SIG_DFL);
}

static void test_util__disk_space_and_shortage(void **state)
{
	char *future = xasprintf("%s/suite/run-1/vm", dir), *text;
	struct disk_space here, there;

	assert_int_equal(disk_space(dir, &here), 0);
	assert_int_equal(disk_space(future, &there), 0);
	assert_string_equal(here.mnt, there.mnt);
	assert_string_equal(here.dev, there.dev);
	assert_string_not_equal(here.mnt, "?");
	assert_true(here.avail > 0);
	assert_int_equal(disk_space("relative-and-absent/x", &there), 0);
	assert_int_equal(disk_avail(future, &there.avail), 0);
	assert_true(there.avail > 0);

	assert_null(disk_short(future, DISK_FLOOR));
	text = disk_short(future, here.avail + (1ULL << 40));
	assert_non_null(text);
	assert_non_null(strstr(text, "no space left on "));
	assert_non_null(strstr(text, here.mnt));
	assert_non_null(strstr(text, " MB free, needed about "));
	free(text);
	free(future);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_util__file_write_failing_midway_keeps_the_old_file),
		cmocka_unit_test(test_util__file_last_line),
		cmocka_unit_test(test_util__sigpipe_ignored_is_a_write_error),
		cmocka_unit_test(test_util__disk_space_and_shortage),
	};

	return cmocka_run_group_tests(tests, dir_setup, dir_teardown);
}
