/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Golden JSON files for the report's analyses: the JSON of a result, with
 * its trace.file set to a stable name, compared with a committed file.
 * NETLAB_UPDATE_GOLDEN=1 rewrites the file (review the diff).
 * Include after cmocka.h; takes ownership of @o.
 */
#ifndef NETLAB_TEST_GOLDEN_H
#define NETLAB_TEST_GOLDEN_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/util.h"

static __attribute__((unused)) void golden_check(struct json_object *o, const char *file_name, const char *exp_path)
{
	struct json_object *trace;
	char *got, *want = NULL;

	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "trace", &trace));
	json_object_object_add(trace, "file", json_object_new_string(file_name));
	got = xasprintf("%s\n", json_object_to_json_string_ext(
					o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
						   JSON_C_TO_STRING_NOSLASHESCAPE));
	if (getenv("NETLAB_UPDATE_GOLDEN"))
		assert_int_equal(file_write(exp_path, got, strlen(got)), 0);
	assert_int_equal(file_read(exp_path, &want, NULL), 0);
	if (strcmp(got, want))
		print_error("%s differs; got:\n%s", exp_path, got);
	assert_string_equal(got, want);
	free(got);
	free(want);
	json_object_put(o);
}

/* A temporary file holding @len bytes of @data; the caller unlinks and frees it. */
static __attribute__((unused)) char *tmp_data_file(const void *data, size_t len, const char *tag)
{
	char *path = xasprintf("%s/netlab-test-%s-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
			       tag);
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(file_write(path, data, len), 0);
	return path;
}

/*
 * A temporary file holding the first @len bytes of @src, or, with @src NULL,
 * @len bytes of junk: the damaged inputs of the bad-file tests. The caller
 * unlinks and frees it.
 */
static __attribute__((unused)) char *bad_trace_file(const char *src, size_t len, const char *tag)
{
	char *data = NULL, *path;

	if (src) {
		size_t n = 0;

		assert_int_equal(file_read(src, &data, &n), 0);
		assert_true(len < n);
	} else {
		data = xzalloc(len + 1);
		for (size_t i = 0; i < len; i++)
			data[i] = (char)(i * 7919 + 13);
	}
	path = tmp_data_file(data, len, tag);
	free(data);
	return path;
}

/*
 * A reader's failure on @path: the return @got is @want, no result was
 * given (@out_set false), and @err names the file, has a hint and, when
 * @needle is given, says it. Frees @err.
 */
static __attribute__((unused)) void expect_read_error(int got, int want, bool out_set, char *err, const char *path,
			      const char *needle)
{
	assert_int_equal(got, want);
	assert_false(out_set);
	assert_non_null(err);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "\nhint: "));
	if (needle && !strstr(err, needle))
		print_error("no '%s' in: %s\n", needle, err);
	assert_true(!needle || strstr(err, needle));
	free(err);
}

#endif /* NETLAB_TEST_GOLDEN_H */
