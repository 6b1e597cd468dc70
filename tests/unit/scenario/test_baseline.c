// SPDX-License-Identifier: GPL-2.0
/*
 * Baselines files: load, lookup, update round-trip, and the errors. The
 * scenarios come from tests/unit/fixtures/scenarios (see test_scenario.c for
 * how the directory is found); files are written to a temporary directory.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "scenario/baseline.h"
#include "lib/util.h"

static char *fixture(const char *name)
{
#ifdef FIXTURES
	return xasprintf("%s/scenarios/%s", FIXTURES, name);
#else
	const char *slash = strrchr(__FILE__, '/');
	int dirlen = slash ? (int)(slash - __FILE__) : 1;

	return xasprintf("%.*s/fixtures/scenarios/%s", dirlen, slash ? __FILE__ : ".", name);
#endif
}

struct tmp {
	char dir[64];
	char *path; /* dir/t.baseline.json */
};

static int setup(void **state)
{
	struct tmp *t = xzalloc(sizeof(*t));

	snprintf(t->dir, sizeof(t->dir), "/tmp/netlab-test-baseline.XXXXXX");
	if (!mkdtemp(t->dir))
		return -1;
	t->path = xasprintf("%s/t.baseline.json", t->dir);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tmp *t = *state;
	struct dirent *de;
	DIR *d = opendir(t->dir);

	while (d && (de = readdir(d))) {
		char *p;

		if (de->d_name[0] == '.')
			continue;
		p = xasprintf("%s/%s", t->dir, de->d_name);
		unlink(p);
		free(p);
	}
	if (d)
		closedir(d);
	rmdir(t->dir);
	free(t->path);
	free(t);
	return 0;
}

static void put(const char *path, const char *text)
{
	assert_int_equal(file_write(path, text, strlen(text)), 0);
}

static char *slurp(const char *path)
{
	char *text = NULL;

	assert_int_equal(file_read(path, &text, NULL), 0);
	return text;
}

static struct scenario *scenario(const char *name)
{
	char *path = fixture(name), *err = NULL;
	struct scenario *s = NULL;

	if (scn_parse(path, &s, &err))
		fail_msg("%s", err);
	free(path);
	return s;
}

static void expect_load_error(const char *path, const char *text, const char *want_fmt)
{
	struct metrics *m = NULL;
	char *err = NULL, *want = xasprintf(want_fmt, path);

	put(path, text);
	assert_int_equal(baseline_load(path, &m, &err), -EINVAL);
	assert_null(m);
	assert_non_null(err);
	if (strncmp(err, want, strlen(want)))
		fail_msg("got \"%s\", want it to start with \"%s\"", err, want);
	free(want);
	free(err);
}

static void test_baseline__path_sits_next_to_scenario(void **state)
{
	char *p = baseline_path("tests/regress/udp-basic.scn");

	assert_string_equal(p, "tests/regress/udp-basic.baseline.json");
	free(p);
}

static void test_baseline__missing_file_loads_empty(void **state)
{
	struct tmp *t = *state;
	struct metrics *m = NULL;
	char *err = NULL;

	assert_int_equal(baseline_load(t->path, &m, &err), 0);
	assert_null(err);
	assert_non_null(m);
	assert_int_equal(metrics_count(m), 0);
	metrics_free(m);
}

static void test_baseline__load_reads_numbers_and_skips_meta(void **state)
{
	struct tmp *t = *state;
	struct metrics *m = NULL;
	double v = 0;

	put(t->path, "{ \"_meta\": { \"kernel\": \"6.1.0\", \"repeat\": 3 },\n"
		     "  \"rr.latency_us.p99\": 41.5, \"rr.tps\": 1000 }\n");
	assert_int_equal(baseline_load(t->path, &m, NULL), 0);
	assert_int_equal(metrics_count(m), 2);
	assert_true(metrics_get(m, "rr.latency_us.p99", &v) && v == 41.5);
	assert_true(metrics_get(m, "rr.tps", &v) && v == 1000);
	assert_false(metrics_get(m, "_meta.repeat", NULL));
	metrics_free(m);
}

static void test_baseline__corrupt_json_names_file_and_line(void **state)
{
	struct tmp *t = *state;

	expect_load_error(t->path, "{\n  \"rr.tps\": 1000,\n  \"rr.lost\": ]\n}\n",
			  "%s:3: invalid JSON: ");
	expect_load_error(t->path, "{\n  \"rr.tps\": 1000\n",
			  "%s:3: invalid JSON: unexpected end of file");
	expect_load_error(t->path, "", "%s:1: invalid JSON: unexpected end of file");
	expect_load_error(t->path, "{ \"a\": 1 }\n{ \"b\": 2 }\n",
			  "%s:2: invalid JSON: unexpected text after the object");
}

static void test_baseline__rejects_non_numbers_and_non_objects(void **state)
{
	struct tmp *t = *state;

	expect_load_error(t->path, "{ \"rr.tps\": \"fast\" }",
			  "%s: the value of 'rr.tps' is not a number");
	expect_load_error(t->path, "{ \"rr\": { \"tps\": 1 } }",
			  "%s: the value of 'rr' is not a number");
	expect_load_error(t->path, "[1, 2]", "%s: expected a JSON object of metric values");
}

/* What JSON extensions and quirks would let through, refused by name or line. */
static void test_baseline__rejects_nan_infinity_overflow_duplicates_and_null(void **state)
{
	struct tmp *t = *state;

	expect_load_error(t->path, "{ \"rr.tps\": NaN }",
			  "%s: the value of 'rr.tps' is not a finite number");
	expect_load_error(t->path, "{ \"rr.tps\": Infinity }",
			  "%s: the value of 'rr.tps' is not a finite number");
	expect_load_error(t->path, "{ \"rr.tps\": -Infinity }",
			  "%s: the value of 'rr.tps' is not a finite number");
	expect_load_error(t->path, "{ \"rr.tps\": 1e400 }",
			  "%s: the value of 'rr.tps' is not a finite number");
	expect_load_error(t->path, "{\n  \"rr.tps\": 1,\n  \"_meta\": { \"rr.tps\": 2 },\n  \"rr.tps\": 3\n}\n",
			  "%s:4: key 'rr.tps' appears twice");
	expect_load_error(t->path, "null", "%s: expected a JSON object of metric values, not null");
}

/* Found by the fuzzer: a quote in a comment (json-c reads comments) made the
 * duplicate-key scan read past the end (ASan). Comments hide no keys. */
static void test_baseline__comments_are_skipped_by_the_duplicate_scan(void **state)
{
	struct tmp *t = *state;
	struct metrics *m = NULL;
	double v = 0;

	put(t->path, "{\"a\": 1 // \"\n}\n\n\n");
	assert_int_equal(baseline_load(t->path, &m, NULL), 0);
	assert_true(metrics_get(m, "a", &v) && v == 1);
	metrics_free(m);
	put(t->path, "{ /* \"a\": 2, */ \"a\": 1, \"b\": 2 // \"b\": 3\n}\n");
	assert_int_equal(baseline_load(t->path, &m, NULL), 0);
	assert_int_equal(metrics_count(m), 2);
	metrics_free(m);
	expect_load_error(t->path, "{ \"a\": 1, /* x */ \"a\": 2 }", "%s:1: key 'a' appears twice");
}

/* Found by the fuzzer: a comment running to the end of the file, without a
 * newline, made the check for text after the object read one byte past the
 * end (ASan); json-c's parse end counted the NUL. */
static void test_baseline__comment_at_end_of_file_without_newline(void **state)
{
	struct tmp *t = *state;
	struct metrics *m = NULL;
	double v = 0;

	put(t->path, "{ \"a\": 1 } // measured on 6.1");
	assert_int_equal(baseline_load(t->path, &m, NULL), 0);
	assert_true(metrics_get(m, "a", &v) && v == 1);
	metrics_free(m);
	m = NULL;
	put(t->path, "{ \"a\": 2 }/*");
	assert_int_equal(baseline_load(t->path, &m, NULL), 0);
	assert_true(metrics_get(m, "a", &v) && v == 2);
	metrics_free(m);
	expect_load_error(t->path, "{ \"a\": 1 } // c\n{", "%s:2: invalid JSON: unexpected text after the object");
}

static void test_baseline__value_is_looked_up_by_subject(void **state)
{
	struct metrics *b = metrics_new();
	struct check_expr *e = NULL, *other = NULL;

	assert_int_equal(check_parse("baseline * 0.8 <= tcp.goodput_bps", &e, NULL), 0);
	assert_int_equal(check_parse("tcp.retransmits <= baseline", &other, NULL), 0);
	metrics_set(b, "tcp.goodput_bps", 9e8);
	assert_true(baseline_value(b, NULL, e) == 9e8);
	assert_true(isnan(baseline_value(b, NULL, other)));
	assert_true(isnan(baseline_value(NULL, NULL, e)));
	check_expr_free(e);
	check_expr_free(other);
	metrics_free(b);
}

static const char round_trip_want[] = "{\n"
				      "  \"_meta\": {\n"
				      "    \"date\": \"2026-01-02T03:04:05Z\",\n"
				      "    \"kernel\": \"6.1.0-netlab\",\n"
				      "    \"netlab_version\": \"0.3\",\n"
				      "    \"repeat\": 3\n"
				      "  },\n"
				      "  \"aa.kept\": 1.25,\n"
				      "  \"rr.latency_us.p99_9\": 41.5,\n"
				      "  \"rr.tps\": 1000,\n"
				      "  \"zz.kept\": 5\n"
				      "}\n";

static void test_baseline__update_round_trip_sorted_and_keeps_others(void **state)
{
	struct tmp *t = *state;
	struct scenario *s = scenario("good-rr.scn"); /* baseline checks: p99_9, tps */
	struct metrics *m = metrics_new(), *back = NULL;
	struct baseline_meta meta = { .kernel = "6.1.0-netlab",
				      .netlab_version = "0.3",
				      .date = "2026-01-02T03:04:05Z",
				      .repeat = 3 };
	char *err = NULL, *text;
	double v;

	put(t->path, "{\"zz.kept\": 5, \"rr.tps\": 1, \"_meta\": {\"kernel\": \"old\"}, "
		     "\"aa.kept\": 1.25}");
	metrics_set(m, "rr.latency_us.p99_9", 41.5);
	metrics_set(m, "rr.tps", 1000);
	metrics_set(m, "rr.transactions", 5000); /* no baseline check: not written */
	assert_int_equal(baseline_update(t->path, s, m, &meta, &err), 0);
	assert_null(err);
	text = slurp(t->path);
	assert_string_equal(text, round_trip_want);
	free(text);
	assert_int_equal(baseline_load(t->path, &back, NULL), 0);
	assert_int_equal(metrics_count(back), 4);
	assert_true(metrics_get(back, "rr.latency_us.p99_9", &v) && v == 41.5);
	assert_true(metrics_get(back, "zz.kept", &v) && v == 5);
	metrics_free(back);
	metrics_free(m);
	scn_free(s);
}

static void test_baseline__update_creates_file_and_writes_or_keeps_meta(void **state)
{
	struct tmp *t = *state;
	struct scenario *s = scenario("good-udp.scn"); /* baseline check: udp.latency_us.p99 */
	struct metrics *m = metrics_new();
	char *text;

	metrics_set(m, "udp.latency_us.p99", 0.1);
	assert_int_equal(baseline_update(t->path, s, m, NULL, NULL), 0);
	text = slurp(t->path);
	assert_string_equal(text, "{\n  \"udp.latency_us.p99\": 0.1\n}\n");
	free(text);
	put(t->path, "{\"_meta\": {\"kernel\": \"k1\"}}");
	assert_int_equal(baseline_update(t->path, s, m, NULL, NULL), 0);
	text = slurp(t->path);
	assert_non_null(strstr(text, "\"kernel\": \"k1\""));
	free(text);
	/* No date given: now, in UTC. */
	assert_int_equal(
		baseline_update(t->path, s, m, &(struct baseline_meta){ .kernel = "k2" }, NULL), 0);
	text = slurp(t->path);
	assert_null(strstr(text, "k1"));
	assert_non_null(strstr(text, "\"date\": \"20"));
	assert_non_null(strstr(text, "Z\",\n"));
	free(text);
	metrics_free(m);
	scn_free(s);
}

static void test_baseline__update_refuses_unmeasured_subject(void **state)
{
	struct tmp *t = *state;
	struct scenario *s = scenario("good-rr.scn");
	struct metrics *m = metrics_new();
	const char *before = "{\"rr.tps\": 1}";
	char *err = NULL, *text, *want;

	put(t->path, before);
	metrics_set(m, "rr.latency_us.p99_9", 41.5); /* rr.tps missing */
	assert_int_equal(baseline_update(t->path, s, m, NULL, &err), -EINVAL);
	want = xasprintf("%s: cannot update the baseline of check 'tps': 'rr.tps' was not measured",
			 s->path);
	assert_string_equal(err, want);
	text = slurp(t->path);
	assert_string_equal(text, before);
	free(text);
	free(want);
	free(err);
	metrics_free(m);
	scn_free(s);
}

static void test_baseline__update_refuses_to_overwrite_corrupt_file(void **state)
{
	struct tmp *t = *state;
	struct scenario *s = scenario("good-udp.scn");
	struct metrics *m = metrics_new();
	char *err = NULL, *text, *want = xasprintf("%s:1: invalid JSON", t->path);

	put(t->path, "{ oops");
	metrics_set(m, "udp.latency_us.p99", 3);
	assert_int_equal(baseline_update(t->path, s, m, NULL, &err), -EINVAL);
	assert_true(!strncmp(err, want, strlen(want)));
	text = slurp(t->path);
	assert_string_equal(text, "{ oops");
	free(text);
	free(want);
	free(err);
	metrics_free(m);
	scn_free(s);
}

static void test_baseline__update_leaves_no_temporary_file(void **state)
{
	struct tmp *t = *state;
	struct scenario *s = scenario("good-udp.scn");
	struct metrics *m = metrics_new();
	struct dirent *de;
	int files = 0;
	DIR *d;

	metrics_set(m, "udp.latency_us.p99", 3);
	assert_int_equal(baseline_update(t->path, s, m, NULL, NULL), 0);
	assert_int_equal(baseline_update(t->path, s, m, NULL, NULL), 0);
	d = opendir(t->dir);
	assert_non_null(d);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		assert_string_equal(de->d_name, "t.baseline.json");
		files++;
	}
	closedir(d);
	assert_int_equal(files, 1);
	metrics_free(m);
	scn_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_baseline__path_sits_next_to_scenario),
		cmocka_unit_test_setup_teardown(test_baseline__missing_file_loads_empty, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_baseline__load_reads_numbers_and_skips_meta,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline__corrupt_json_names_file_and_line,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline__rejects_non_numbers_and_non_objects,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline__rejects_nan_infinity_overflow_duplicates_and_null,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline__comments_are_skipped_by_the_duplicate_scan,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline__comment_at_end_of_file_without_newline,
						setup, teardown),
		cmocka_unit_test(test_baseline__value_is_looked_up_by_subject),
		cmocka_unit_test_setup_teardown(
			test_baseline__update_round_trip_sorted_and_keeps_others, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_baseline__update_creates_file_and_writes_or_keeps_meta, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_baseline__update_refuses_unmeasured_subject,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_baseline__update_refuses_to_overwrite_corrupt_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline__update_leaves_no_temporary_file,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
