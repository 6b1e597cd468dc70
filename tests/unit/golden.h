/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Golden JSON files for the report's analyses: the JSON of a result, with
 * its trace.file set to a stable name, compared with a committed file.
 * NETLAB_UPDATE_GOLDEN=1 rewrites the file (review the diff).
 * Include after cmocka.h; takes ownership of @o.
 */
#ifndef NETLAB_TEST_GOLDEN_H
#define NETLAB_TEST_GOLDEN_H

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "util.h"

static void golden_check(struct json_object *o, const char *file_name, const char *exp_path)
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

/*
 * A temporary file holding the first @len bytes of @src, or, with @src NULL,
 * @len bytes of junk: the damaged inputs of the bad-file tests. The caller
 * unlinks and frees it.
 */
static char *bad_trace_file(const char *src, size_t len, const char *tag)
{
	char *path = xasprintf("%s/netlab-test-%s-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
			       tag);
	char *data = NULL;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	if (src) {
		size_t n = 0;

		assert_int_equal(file_read(src, &data, &n), 0);
		assert_true(len < n);
	} else {
		data = xzalloc(len + 1);
		for (size_t i = 0; i < len; i++)
			data[i] = (char)(i * 7919 + 13);
	}
	assert_int_equal(file_write(path, data, len), 0);
	free(data);
	return path;
}

#endif /* NETLAB_TEST_GOLDEN_H */
