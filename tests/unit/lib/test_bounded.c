// SPDX-License-Identifier: GPL-2.0
/*
 * What netlab reads and where it writes, bounded: a JSON file larger than
 * JSON_FILE_MAX is refused before it is read (by its size, so a sparse
 * 1 GB file costs nothing), a file that is not JSON is named, and an output
 * directory has one writer at a time (outlock: a second taker gets -EBUSY
 * naming the directory and the holder's pid).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/jsonout.h"
#include "lib/outlock.h"
#include "lib/util.h"
#include "tmpdir.h"

TMPDIR_FIXTURE("bounded")

static char *sparse(const char *name, off_t size)
{
	char *p = xasprintf("%s/%s", dir, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, size), 0);
	close(fd);
	return p;
}

static void test_bounded__json_file_over_the_limit_is_refused_unread(void **state)
{
	char *p = sparse("result.json", (off_t)1 << 30), *why = NULL, *want;
	struct json_object *o = (void *)1;

	assert_int_equal(json_file_read(p, &o, &why), -EFBIG);
	assert_null(o);
	want = xasprintf("'%s': 1073741824 bytes, more than the 64 MiB a netlab JSON file holds", p);
	assert_string_equal(why, want);
	assert_null(json_file_get(p));
	free(want);
	free(why);
	free(p);
}

static void test_bounded__json_file_at_the_limit_is_read(void **state)
{
	char *p = xasprintf("%s/ok.json", dir), *why = NULL, *data;
	struct json_object *o = NULL;
	size_t n = JSON_FILE_MAX;

	/* A string value filling the file to exactly JSON_FILE_MAX bytes. */
	data = xzalloc(n + 1);
	memset(data, 'a', n);
	data[0] = '"';
	data[n - 2] = '"';
	data[n - 1] = '\n';
	assert_int_equal(file_write(p, data, n), 0);
	assert_int_equal(json_file_read(p, &o, &why), 0);
	assert_true(json_object_is_type(o, json_type_string));
	assert_int_equal(json_object_get_string_len(o), (int)n - 3);
	json_object_put(o);
	free(data);
	free(p);
}

static void test_bounded__json_file_not_json_is_named(void **state)
{
	char *p = xasprintf("%s/bad.json", dir), *why = NULL;
	struct json_object *o = NULL;

	assert_int_equal(file_writef(p, "{\"verdict\": \"ok\"} trailing"), 0);
	assert_int_equal(json_file_read(p, &o, &why), -EINVAL);
	assert_null(o);
	assert_non_null(strstr(why, "not JSON"));
	assert_non_null(strstr(why, p));
	free(why);
	why = NULL;
	assert_int_equal(file_writef(p, "{\"verdict\": "), 0);
	assert_int_equal(json_file_read(p, &o, &why), -EINVAL);
	assert_non_null(strstr(why, "it ends early"));
	free(why);
	why = NULL;
	assert_int_equal(file_writef(p, "{\"verdict\": \"ok\"}\n\n"), 0);
	assert_int_equal(json_file_read(p, &o, &why), 0);
	json_object_put(o);
	free(p);
	p = xasprintf("%s/absent.json", dir);
	assert_int_equal(json_file_read(p, &o, &why), -ENOENT);
	free(why);
	free(p);
}

static void test_bounded__file_read_max_stops_a_stream_past_the_limit(void **state)
{
	char *data = NULL;
	size_t len = 0;
	int fds[2];
	char *path;

	/* Not a regular file: refused once max + 1 bytes came, not at its end. */
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(write(fds[1], "0123456789", 10), 10);
	close(fds[1]);
	path = xasprintf("/proc/self/fd/%d", fds[0]);
	assert_int_equal(file_read_max(path, 4, &data, &len), -EFBIG);
	assert_null(data);
	close(fds[0]);
	free(path);
}

static void test_bounded__outlock_one_writer_per_directory(void **state)
{
	char *out = xasprintf("%s/suite", dir), *err = NULL, *want;
	int fd = outlock_take(out, &err), fd2;
	pid_t pid;
	int status;

	assert_true(fd >= 0);
	/* Another process: -EBUSY naming the directory and our pid. */
	pid = fork();
	if (pid == 0) {
		char *e = NULL;
		int r = outlock_take(out, &e);

		want = xasprintf("'%s' is in use by another netlab command (pid %ld)", out,
				 (long)getppid());
		_exit(r == -EBUSY && e && !strncmp(e, want, strlen(want)) ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* Held in this process too: a second open is another writer. */
	fd2 = outlock_take(out, &err);
	assert_int_equal(fd2, -EBUSY);
	free(err);
	err = NULL;
	outlock_release(fd);
	fd = outlock_take(out, &err);
	assert_true(fd >= 0);
	outlock_release(fd);
	free(out);
}

static void test_bounded__outlock_on_a_file_is_an_error(void **state)
{
	char *f = xasprintf("%s/plain", dir), *err = NULL;

	assert_int_equal(file_writef(f, "x\n"), 0);
	assert_true(outlock_take(f, &err) < 0);
	assert_non_null(strstr(err, f));
	free(err);
	free(f);
}

static void test_bounded__disk_reserve_allocates(void **state)
{
	char *p = xasprintf("%s/reserve", dir);
	struct stat st;

	assert_int_equal(disk_reserve(p, 256 << 10), 0);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_size, 256 << 10);
	assert_true((unsigned long long)st.st_blocks * 512 >= 256 << 10);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bounded__json_file_over_the_limit_is_refused_unread),
		cmocka_unit_test(test_bounded__json_file_at_the_limit_is_read),
		cmocka_unit_test(test_bounded__json_file_not_json_is_named),
		cmocka_unit_test(test_bounded__file_read_max_stops_a_stream_past_the_limit),
		cmocka_unit_test(test_bounded__outlock_one_writer_per_directory),
		cmocka_unit_test(test_bounded__outlock_on_a_file_is_an_error),
		cmocka_unit_test(test_bounded__disk_reserve_allocates),
	};

	return cmocka_run_group_tests(tests, dir_setup, dir_teardown);
}
