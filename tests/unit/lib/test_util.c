// SPDX-License-Identifier: GPL-2.0
/*
 * file_write() is all or nothing: a write that fails part-way (a full disk,
 * here a file-size limit) leaves the old file as it was and no temporary
 * file behind, so result.json, summary.json and junit.xml are never left
 * truncated or empty.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
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

/* xgrow_array(): the one way an array grows; from 8 slots, doubling, contents kept. */
static void test_util__xgrow_array_doubles_from_eight_and_keeps_contents(void **state)
{
	size_t cap = 0, n = 0;
	int *v = NULL, *before;

	xgrow_array(&v, &cap, 1, sizeof(*v));
	assert_non_null(v);
	assert_int_equal(cap, 8);
	for (n = 0; n < 1000; n++) {
		xgrow_array(&v, &cap, n + 1, sizeof(*v));
		assert_true(cap >= n + 1);
		v[n] = (int)n * 7;
	}
	assert_int_equal(cap, 1024);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(v[i], (int)i * 7);
	/* Room enough: nothing moves. */
	before = v;
	xgrow_array(&v, &cap, 1024, sizeof(*v));
	assert_ptr_equal(v, before);
	assert_int_equal(cap, 1024);
	/* A jump past the next doubling. */
	xgrow_array(&v, &cap, 5000, sizeof(*v));
	assert_int_equal(cap, 8192);
	assert_int_equal(v[999], 999 * 7);
	v[4999] = 1;
	free(v);
}

/*
 * The growth that cannot be given never returns: the process dies with
 * "netlab: out of memory" (abort; an ASan build reports and exits), so no
 * caller writes past the old array, as gdb.c's four unchecked grow_array()
 * calls did on -ENOMEM. One child asks for a size that overflows size_t,
 * one for 2^61 bytes that no allocator gives.
 */
static void test_util__xgrow_array_out_of_memory_never_returns(void **state)
{
	static const size_t needs[] = { SIZE_MAX / 16 + 1, SIZE_MAX / 16 / 8 };

	for (size_t i = 0; i < ARRAY_SIZE(needs); i++) {
		int status, fd;
		pid_t pid = fork();

		assert_true(pid >= 0);
		if (pid == 0) {
			char (*v)[16] = NULL;
			size_t cap = 0;

			fd = open("/dev/null", O_WRONLY);
			dup2(fd, 2);
			xgrow_array(&v, &cap, 4, sizeof(*v));
			xgrow_array(&v, &cap, needs[i], sizeof(*v));
			v[needs[i] - 1][0] = 1;	/* what a caller does next */
			_exit(0);
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		if (WIFSIGNALED(status))
			assert_int_equal(WTERMSIG(status), SIGABRT);
		else
			assert_true(WIFEXITED(status) && WEXITSTATUS(status) != 0);
	}
}

static void test_util__xcalloc_zeroes_and_xstrndup_cuts(void **state)
{
	long *z = xcalloc(100, sizeof(*z));
	char *s = xstrndup("netlab", 3), *t = xstrndup("ab", 10), *e = xstrndup("", 0);

	for (int i = 0; i < 100; i++)
		assert_int_equal(z[i], 0);
	assert_string_equal(s, "net");
	assert_string_equal(t, "ab");
	assert_string_equal(e, "");
	free(z);
	free(s);
	free(t);
	free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_util__file_write_failing_midway_keeps_the_old_file),
		cmocka_unit_test(test_util__file_last_line),
		cmocka_unit_test(test_util__sigpipe_ignored_is_a_write_error),
		cmocka_unit_test(test_util__disk_space_and_shortage),
		cmocka_unit_test(test_util__xgrow_array_doubles_from_eight_and_keeps_contents),
		cmocka_unit_test(test_util__xgrow_array_out_of_memory_never_returns),
		cmocka_unit_test(test_util__xcalloc_zeroes_and_xstrndup_cuts),
	};

	return cmocka_run_group_tests(tests, dir_setup, dir_teardown);
}
