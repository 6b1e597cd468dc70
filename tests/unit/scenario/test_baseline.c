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
				      "    \"format_version\": 1,\n"
				      "    \"kernel\": \"6.1.0-netlab\",\n"
				      "    \"kernel_cache_key\": \"4bb081187adb7294\",\n"
				      "    \"kernel_config_sha256\": \"c0ffee\",\n"
				      "    \"kernel_source\": \"debian-linux-source-6.1-6.1.192-2\",\n"
				      "    \"kernel_version\": \"6.1.192 (netlab@host) #1\",\n"
				      "    \"netlab_commit\": \"0123456789ab\",\n"
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
				      .kernel_version = "6.1.192 (netlab@host) #1",
				      .kernel_cache_key = "4bb081187adb7294",
				      .kernel_source = "debian-linux-source-6.1-6.1.192-2",
				      .kernel_config_sha256 = "c0ffee",
				      .netlab_version = "0.3",
				      .netlab_commit = "0123456789ab",
				      .date = "2026-01-02T03:04:05Z",
				      .repeat = 3 };
	char *err = NULL, *text;
	double v;

	put(t->path, "{\"zz.kept\": 5, \"rr.tps\": 1, \"_meta\": {\"kernel\": \"old\"}, "
		     "\"aa.kept\": 1.25}");
	metrics_set(m, "rr.latency_us.p99_9", 41.5);
	metrics_set(m, "rr.tps", 1000);
	metrics_set(m, "rr.transactions", 5000); /* no baseline check: not written */
	assert_int_equal(baseline_update(t->path, s, m, NULL, 0, &meta, &err), 0);
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
	assert_int_equal(baseline_update(t->path, s, m, NULL, 0, NULL, NULL), 0);
	text = slurp(t->path);
	assert_string_equal(text, "{\n  \"udp.latency_us.p99\": 0.1\n}\n");
	free(text);
	put(t->path, "{\"_meta\": {\"kernel\": \"k1\"}}");
	assert_int_equal(baseline_update(t->path, s, m, NULL, 0, NULL, NULL), 0);
	text = slurp(t->path);
	assert_non_null(strstr(text, "\"kernel\": \"k1\""));
	free(text);
	/* No date given: now, in UTC. */
	assert_int_equal(
		baseline_update(t->path, s, m, NULL, 0, &(struct baseline_meta){ .kernel = "k2" }, NULL), 0);
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
	assert_int_equal(baseline_update(t->path, s, m, NULL, 0, NULL, &err), -EINVAL);
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
	assert_int_equal(baseline_update(t->path, s, m, NULL, 0, NULL, &err), -EINVAL);
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
	assert_int_equal(baseline_update(t->path, s, m, NULL, 0, NULL, NULL), 0);
	assert_int_equal(baseline_update(t->path, s, m, NULL, 0, NULL, NULL), 0);
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

/* Three runs of good-rr.scn, as a matrix case: their medians are p99_9 41.5, tps 1000. */
static struct metrics **three_runs(void)
{
	static const double p99[] = { 44, 39.5, 41.5 }, tps[] = { 900, 1000, 1250 };
	struct metrics **runs = xzalloc(3 * sizeof(*runs));

	for (int i = 0; i < 3; i++) {
		runs[i] = metrics_new();
		metrics_set(runs[i], "rr.latency_us.p99_9", p99[i]);
		/* rr.tps missing in the third run: n counts the runs that have it */
		if (i < 2)
			metrics_set(runs[i], "rr.tps", tps[i]);
	}
	return runs;
}

static const char spread_want[] =
	"{\n"
	"  \"_spread\": {\n"
	"    \"rr.latency_us.p99_9[nic.B=e1000]\": {\n"
	"      \"max\": 44,\n"
	"      \"min\": 39.5,\n"
	"      \"n\": 3\n"
	"    },\n"
	"    \"rr.tps[nic.B=e1000]\": {\n"
	"      \"max\": 1000,\n"
	"      \"min\": 900,\n"
	"      \"n\": 2\n"
	"    },\n"
	"    \"rr.tps[nic.B=virtio]\": {\n"
	"      \"max\": 2,\n"
	"      \"min\": 1,\n"
	"      \"n\": 4\n"
	"    }\n"
	"  },\n"
	"  \"_stages\": {\n"
	"    \"latency.rx.drv_ip.p50_us[nic.B=e1000]\": 30.1,\n"
	"    \"latency.rx.irq_poll.p90_us[nic.B=e1000]\": 7,\n"
	"    \"latency.rx.udp_app.p50_us[nic.B=virtio]\": 9,\n"
	"    \"latency.tx.xmit_drv.p50_us[nic.B=e1000]\": 12\n"
	"  },\n"
	"  \"rr.latency_us.p99_9[nic.B=e1000]\": 41.5,\n"
	"  \"rr.tps[nic.B=e1000]\": 1000,\n"
	"  \"rr.tps[nic.B=virtio]\": 1.5\n"
	"}\n";

/*
 * An update records each subject's spread across the runs, and the case's
 * stage latencies (any stage name, p50 and p90 only), under the case's
 * keys; the other case's entries stay, this case's old stages go.
 */
static void test_baseline__update_records_spread_and_stages_of_a_case(void **state)
{
	struct tmp *t = *state;
	struct scenario *s = scenario("good-rr.scn");
	struct metrics **runs = three_runs(), *m = metrics_new();
	char *err = NULL, *text;

	s->case_id = xstrdup("nic.B=e1000");
	put(t->path, "{ \"rr.tps[nic.B=virtio]\": 1.5,\n"
		     "  \"_spread\": { \"rr.tps[nic.B=virtio]\": { \"min\": 1, \"max\": 2, \"n\": 4 } },\n"
		     "  \"_stages\": { \"latency.rx.udp_app.p50_us[nic.B=virtio]\": 9,\n"
		     "               \"latency.rx.gone.p50_us[nic.B=e1000]\": 3 } }\n");
	metrics_set(m, "rr.latency_us.p99_9", 41.5);
	metrics_set(m, "rr.tps", 1000);
	metrics_set(m, "latency.rx.drv_ip.p50_us", 30.1);
	metrics_set(m, "latency.rx.drv_ip.p99_us", 80);	/* not a p50 or p90: not kept */
	metrics_set(m, "latency.rx.irq_poll.p90_us", 7);
	metrics_set(m, "latency.tx.xmit_drv.p50_us", 12.0004); /* 12, to the ns */
	metrics_set(m, "latency.rx.packets", 100);
	assert_int_equal(baseline_update(t->path, s, m, runs, 3, NULL, &err), 0);
	assert_null(err);
	text = slurp(t->path);
	assert_string_equal(text, spread_want);
	free(text);
	for (int i = 0; i < 3; i++)
		metrics_free(runs[i]);
	free(runs);
	metrics_free(m);
	scn_free(s);
}

static void test_baseline__extra_is_read_by_case(void **state)
{
	struct tmp *t = *state;
	struct scenario *s = scenario("good-rr.scn");
	struct baseline_extra x;
	struct baseline_spread sp = { 0 };
	struct metrics *st, *values = NULL;
	double v = 0;

	put(t->path, spread_want);
	assert_int_equal(baseline_load(t->path, &values, NULL), 0);
	assert_int_equal(metrics_count(values), 3);	/* "_spread", "_stages" are no metrics */
	metrics_free(values);
	assert_int_equal(baseline_load_extra(t->path, &x, NULL), 0);
	/* Without the case: nothing recorded for it. */
	assert_false(baseline_spread(&x, s, s->checks[0].expr, &sp));
	assert_null(baseline_stages(&x, s));
	s->case_id = xstrdup("nic.B=e1000");
	assert_true(baseline_spread(&x, s, s->checks[0].expr, &sp));
	assert_true(sp.min == 39.5 && sp.max == 44 && sp.n == 3);
	st = baseline_stages(&x, s);
	assert_non_null(st);
	assert_int_equal(metrics_count(st), 3);
	assert_true(metrics_get(st, "latency.tx.xmit_drv.p50_us", &v) && v == 12);
	assert_true(metrics_get(st, "latency.rx.irq_poll.p90_us", &v) && v == 7);
	metrics_free(st);
	baseline_extra_release(&x);
	scn_free(s);
}

/* A file written before "_spread" and "_stages" existed loads as before. */
static void test_baseline__file_without_spread_or_stages(void **state)
{
	struct tmp *t = *state;
	struct scenario *s = scenario("good-rr.scn");
	struct baseline_extra x;
	struct baseline_spread sp;
	struct metrics *m = NULL;

	put(t->path, "{ \"_meta\": { \"repeat\": 3 }, \"rr.tps\": 1000 }\n");
	assert_int_equal(baseline_load(t->path, &m, NULL), 0);
	assert_int_equal(metrics_count(m), 1);
	assert_int_equal(baseline_load_extra(t->path, &x, NULL), 0);
	assert_null(x.stages);
	assert_int_equal(x.n_spread, 0);
	assert_false(baseline_spread(&x, s, s->checks[1].expr, &sp));
	assert_null(baseline_stages(&x, s));
	baseline_extra_release(&x);
	/* A missing file: no extras either. */
	unlink(t->path);
	assert_int_equal(baseline_load_extra(t->path, &x, NULL), 0);
	assert_int_equal(x.n_spread, 0);
	baseline_extra_release(&x);
	metrics_free(m);
	scn_free(s);
}

static void test_baseline__corrupt_spread_or_stages_names_file_and_key(void **state)
{
	struct tmp *t = *state;
	struct scenario *s = scenario("good-udp.scn");
	struct baseline_extra x;
	struct metrics *m = metrics_new();
	char *err = NULL, *want, *text;

	expect_load_error(t->path, "{ \"_spread\": { \"rr.tps\": 3 } }",
			  "%s: _spread: the entry of 'rr.tps' is not { \"min\": NUMBER, \"max\": NUMBER, \"n\": RUNS }");
	expect_load_error(t->path, "{ \"_spread\": { \"rr.tps\": { \"min\": 1, \"max\": 2 } } }",
			  "%s: _spread: the entry of 'rr.tps' is not {");
	expect_load_error(t->path, "{ \"_spread\": { \"rr.tps\": { \"min\": 1, \"max\": \"2\", \"n\": 3 } } }",
			  "%s: _spread: the entry of 'rr.tps' is not {");
	expect_load_error(t->path, "{ \"_spread\": { \"rr.tps\": { \"min\": 3, \"max\": 2, \"n\": 3 } } }",
			  "%s: _spread: the entry of 'rr.tps' has no finite min <= max");
	expect_load_error(t->path, "{ \"_spread\": { \"rr.tps\": { \"min\": NaN, \"max\": 2, \"n\": 3 } } }",
			  "%s: _spread: the entry of 'rr.tps' has no finite min <= max");
	expect_load_error(t->path, "{ \"_spread\": { \"a[k=v]\": { \"min\": 1, \"max\": 2, \"n\": 0 } } }",
			  "%s: _spread: the entry of 'a[k=v]' has n 0, not a count of runs");
	expect_load_error(t->path, "{ \"_spread\": [] }",
			  "%s: '_spread' is not an object of per-subject spreads");
	expect_load_error(t->path, "{ \"_stages\": 1 }",
			  "%s: '_stages' is not an object of stage latencies");
	expect_load_error(t->path, "{ \"_stages\": { \"latency.rx.x.p50_us\": \"slow\" } }",
			  "%s: _stages: the value of 'latency.rx.x.p50_us' is not a number");
	expect_load_error(t->path, "{ \"_stages\": { \"latency.rx.x.p50_us\": Infinity } }",
			  "%s: _stages: the value of 'latency.rx.x.p50_us' is not a finite number");
	/* The extras' reader says the same, and leaves nothing to free. */
	assert_int_equal(baseline_load_extra(t->path, &x, &err), -EINVAL);
	assert_null(x.stages);
	assert_non_null(strstr(err, "'latency.rx.x.p50_us'"));
	free(err);
	err = NULL;
	/* An update refuses to rewrite it. */
	want = xasprintf("%s: _spread: the entry of 'z' is not {", t->path);
	put(t->path, "{ \"_spread\": { \"z\": null } }");
	metrics_set(m, "udp.latency_us.p99", 3);
	assert_int_equal(baseline_update(t->path, s, m, &m, 1, NULL, &err), -EINVAL);
	assert_true(!strncmp(err, want, strlen(want)));
	text = slurp(t->path);
	assert_string_equal(text, "{ \"_spread\": { \"z\": null } }");
	free(text);
	free(want);
	free(err);
	metrics_free(m);
	scn_free(s);
}

static const char per_nic_want[] = "{\n"
				   "  \"_stages\": {\n"
				   "    \"latency.tx.dev.ethA.p50_us\": 10,\n"
				   "    \"latency.tx.dev.ethA.p90_us\": 12.5,\n"
				   "    \"latency.tx.dev.ethB.p50_us\": 40,\n"
				   "    \"latency.tx.dev.ethB.p90_us\": 60,\n"
				   "    \"latency.tx.dev.p50_us\": 30,\n"
				   "    \"latency.tx.dev.p90_us\": 58\n"
				   "  },\n"
				   "  \"latency.tx.dev.ethA.p90_us\": 12.5\n"
				   "}\n";

/*
 * A check on one NIC's stage (pktpath's latency.DIR.STAGE.IFNAME.*): the
 * scenario parses, an update records its subject and, in "_stages", the
 * NICs' p50 and p90 beside the direction's; the file loads back to them,
 * and the check compares against the recorded value.
 */
static void test_baseline__per_nic_stage_metric_round_trips(void **state)
{
	static const char scn[] = "[traffic]\ngenerator = rr\n[checks]\n"
				  "tx_e1000e = latency.tx.dev.ethA.p90_us <= baseline * 1.25 + 5\n";
	struct tmp *t = *state;
	char *path = xasprintf("%s/nic.scn", t->dir), *err = NULL, *text;
	struct metrics *m = metrics_new(), *back = NULL, *st;
	struct scenario *s = NULL;
	struct baseline_extra x;
	struct check_result r;
	double v = 0;

	put(path, scn);
	if (scn_parse(path, &s, &err))
		fail_msg("%s", err);
	assert_string_equal(check_subject(s->checks[0].expr), "latency.tx.dev.ethA.p90_us");
	metrics_set(m, "latency.tx.dev.ethA.p50_us", 10);
	metrics_set(m, "latency.tx.dev.ethA.p90_us", 12.5);
	metrics_set(m, "latency.tx.dev.ethA.p99_us", 20); /* not a p50 or p90: not kept */
	metrics_set(m, "latency.tx.dev.ethA.count", 206);
	metrics_set(m, "latency.tx.dev.ethB.p50_us", 40);
	metrics_set(m, "latency.tx.dev.ethB.p90_us", 60);
	metrics_set(m, "latency.tx.dev.p50_us", 30);
	metrics_set(m, "latency.tx.dev.p90_us", 58);
	assert_int_equal(baseline_update(t->path, s, m, NULL, 0, NULL, &err), 0);
	assert_null(err);
	text = slurp(t->path);
	assert_string_equal(text, per_nic_want);
	free(text);

	assert_int_equal(baseline_load(t->path, &back, NULL), 0);
	assert_int_equal(metrics_count(back), 1);
	assert_true(baseline_value(back, s, s->checks[0].expr) == 12.5);
	/* 42 us measured against 12.5 * 1.25 + 5 */
	metrics_set(m, "latency.tx.dev.ethA.p90_us", 42);
	check_eval(s->checks[0].expr, m, baseline_value(back, s, s->checks[0].expr), &r);
	assert_int_equal(r.status, CHECK_FAIL);
	assert_true(r.bound == 12.5 * 1.25 + 5);
	check_result_release(&r);
	assert_int_equal(baseline_load_extra(t->path, &x, NULL), 0);
	st = baseline_stages(&x, s);
	assert_non_null(st);
	assert_int_equal(metrics_count(st), 6);
	assert_true(metrics_get(st, "latency.tx.dev.ethB.p90_us", &v) && v == 60);
	assert_true(baseline_is_stage_metric("latency.rx.poll_handoff.ethB.p50_us"));
	metrics_free(st);
	baseline_extra_release(&x);
	metrics_free(back);
	metrics_free(m);
	scn_free(s);
	free(path);
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
		cmocka_unit_test_setup_teardown(
			test_baseline__update_records_spread_and_stages_of_a_case, setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline__extra_is_read_by_case, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_baseline__file_without_spread_or_stages,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_baseline__corrupt_spread_or_stages_names_file_and_key, setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline__per_nic_stage_metric_round_trips,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
