// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of traffic/tjson.c: the latency summary's keys and units, errno
 * counts by name, the --text rendering.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "hist.h"
#include "tjson.h"

static const char *get(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("no key '%s'", key);
	return json_object_to_json_string(v);
}

static void test_tjson__latency_in_us_with_stable_keys(void **state)
{
	struct hist *h = hist_new();
	struct json_object *o;
	int i;

	(void)state;
	o = tjson_latency_us(h);
	assert_string_equal(get(o, "count"), "0");
	assert_string_equal(get(o, "p99_9"), "null");
	assert_string_equal(get(o, "mean"), "null");
	json_object_put(o);
	for (i = 0; i < 100; i++)
		hist_record(h, 12345); /* ns */
	o = tjson_latency_us(h);
	assert_string_equal(get(o, "count"), "100");
	assert_string_equal(get(o, "min"), "12.345");
	assert_string_equal(get(o, "p50"), "12.345");
	assert_string_equal(get(o, "p90"), "12.345");
	assert_string_equal(get(o, "p99"), "12.345");
	assert_string_equal(get(o, "p99_9"), "12.345");
	assert_string_equal(get(o, "max"), "12.345");
	assert_string_equal(get(o, "mean"), "12.345");
	json_object_put(o);
	hist_free(h);
}

static void test_tjson__errno_counts_by_name(void **state)
{
	uint64_t counts[TJSON_ERRNO_SLOTS] = { 0 };
	struct json_object *o;

	(void)state;
	tjson_count_errno(counts, ENOBUFS);
	tjson_count_errno(counts, ENOBUFS);
	tjson_count_errno(counts, ECONNREFUSED);
	tjson_count_errno(counts, 100000);
	o = tjson_errnos(counts);
	assert_string_equal(get(o, "ENOBUFS"), "2");
	assert_string_equal(get(o, "ECONNREFUSED"), "1");
	assert_int_equal(json_object_object_length(o), 3);
	assert_int_equal(tjson_errno_total(counts), 4);
	json_object_put(o);
}

static void test_tjson__text_lines(void **state)
{
	struct json_object *o = json_object_new_object(), *sub = json_object_new_object();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	tjson_str(o, "tool", "rr");
	tjson_u64(sub, "p99", 7);
	json_object_object_add(o, "latency_us", sub);
	tjson_null(o, "lost");
	tjson_print_text(f, o, "");
	fclose(f);
	assert_string_equal(buf, "tool = rr\nlatency_us.p99 = 7\nlost = null\n");
	free(buf);
	json_object_put(o);
}

static void test_tjson__doubles_keep_a_point(void **state)
{
	struct json_object *o;

	(void)state;
	o = tjson_new_double(10);
	assert_string_equal(json_object_to_json_string(o), "10.0");
	json_object_put(o);
	o = tjson_new_double(0.2);
	assert_string_equal(json_object_to_json_string(o), "0.2");
	json_object_put(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tjson__latency_in_us_with_stable_keys),
		cmocka_unit_test(test_tjson__errno_counts_by_name),
		cmocka_unit_test(test_tjson__text_lines),
		cmocka_unit_test(test_tjson__doubles_keep_a_point),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
