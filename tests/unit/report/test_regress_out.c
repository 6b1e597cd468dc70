// SPDX-License-Identifier: GPL-2.0
/*
 * The suite's JUnit file stays well-formed XML (read back with libxml2)
 * whatever the names, bounds and reasons hold: markup characters in a
 * scenario or matrix case name, a '<=' bound, control characters in a
 * reason.
 */
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
#include <json-c/json.h>
#include <libxml/parser.h>

#include "lib/provenance.h"
#include "scenario/regress.h"
#include "lib/util.h"
#include "tmpdir.h"

TMPDIR_FIXTURE("regress-out")

static const char text[] = "[scenario]\nduration = 2\n"
			   "[traffic]\ngenerator = udp-stream\n"
			   "[checks]\n"
			   "no_loss = udp.lost <= 0\n"
			   "driver = loss.lost_in_driver == 0\n"
			   "[matrix]\ndirection = A>B\n";

/* One scenario (a matrix case) whose first check failed, second could not be evaluated. */
static void one_failing(struct regress *r, struct regress_scn *rs, const char *path)
{
	struct scenario **cases = NULL;
	size_t n = 0;
	char *err = NULL;

	if (scn_parse_cases(path, &cases, &n, &err))
		fail_msg("%s", err);
	assert_int_equal(n, 1);
	memset(r, 0, sizeof(*r));
	memset(rs, 0, sizeof(*rs));
	rs->scn = cases[0];
	free(cases);
	rs->median = metrics_new();
	rs->outcome = RO_FAIL;
	rs->reason = xstrdup("run 1: \x01\x1b[31mbad\x7f & <worse>\n\"quoted\"");
	rs->checks = xzalloc(2 * sizeof(*rs->checks));
	rs->checks[0].check = &rs->scn->checks[0];
	rs->checks[0].res = (struct check_result){ .status = CHECK_FAIL, .value = 719,
						    .op = CHECK_LE, .bound = 0 };
	rs->checks[1].check = &rs->scn->checks[1];
	rs->checks[1].res = (struct check_result){ .status = CHECK_ERROR, .value = NAN,
						    .err = xstrdup("division by zero: \x02<&>") };
	r->s = rs;
	r->n = 1;
	r->dir = dir;
}

static void test_regress_out__junit_is_well_formed_with_markup_and_control_characters(void **state)
{
	char *path = xasprintf("%s/a&b\"<c>'.scn", dir), *junit = xasprintf("%s/junit.xml", dir);
	char *err = NULL, *xml = NULL;
	struct regress r;
	struct regress_scn rs;
	xmlDocPtr doc;

	assert_int_equal(file_write(path, text, strlen(text)), 0);
	one_failing(&r, &rs, path);
	assert_int_equal(regress_write_junit(&r, junit, &err), 0);
	doc = xmlReadFile(junit, NULL, XML_PARSE_NONET);
	assert_non_null(doc);
	xmlFreeDoc(doc);
	assert_int_equal(file_read(junit, &xml, NULL), 0);
	/* The name and the bound as XML carries them. */
	assert_non_null(strstr(xml, "name=\"a&amp;b&quot;&lt;c&gt;'[direction=A&gt;B]\""));
	assert_non_null(strstr(xml, "bound &lt;= 0"));
	assert_null(strchr(xml, '\x01'));
	assert_null(strchr(xml, '\x7f'));
	free(xml);
	check_result_release(&rs.checks[1].res);
	free(rs.checks);
	free(rs.reason);
	metrics_free(rs.median);
	scn_free(rs.scn);
	free(path);
	free(junit);
}

static struct metrics *stages(const char *const *names, const double *v, size_t n)
{
	struct metrics *m = metrics_new();

	for (size_t i = 0; i < n; i++)
		metrics_set(m, names[i], v[i]);
	return m;
}

static const char *const stage_names[] = {
	"latency.rx.drv_ip.p50_us", "latency.rx.drv_ip.p90_us", "latency.rx.irq_poll.p50_us",
	"latency.rx.udp_app.p50_us", "latency.tx.app_ip.p50_us", "latency.tx.xmit_drv.p50_us",
};

/* The largest increases first, at most three, only increases, any stage name. */
static void test_regress_out__stage_story_names_the_stages_that_rose_most(void **state)
{
	static const double before[] = { 30.1, 40, 5, 20, 8, 12 };
	static const double after[] = { 35, 400, 6, 19, 9.5, 162.4 };
	struct metrics *b = stages(stage_names, before, 6), *a = stages(stage_names, after, 6);
	struct regress_stage_move mv[5];
	char *story;
	size_t n;

	metrics_set(a, "rr.latency_us.p50", 200);	/* not a stage */
	n = regress_stages_moved(b, a, mv, 5);
	assert_int_equal(n, 4);	/* udp_app fell; the p90 is not compared */
	assert_string_equal(mv[0].stage, "tx.xmit_drv");
	assert_string_equal(mv[1].stage, "rx.drv_ip");
	assert_string_equal(mv[2].stage, "tx.app_ip");
	assert_string_equal(mv[3].stage, "rx.irq_poll");
	assert_true(mv[0].base_us == 12 && mv[0].now_us == 162.4);
	for (size_t i = 0; i < n; i++)
		free(mv[i].stage);
	/* Room for one: the largest. */
	assert_int_equal(regress_stages_moved(b, a, mv, 1), 1);
	assert_string_equal(mv[0].stage, "tx.xmit_drv");
	free(mv[0].stage);
	story = regress_stage_story(b, a);
	assert_string_equal(story, "stage moved: tx.xmit_drv p50 12.0 -> 162.4 us (+150.4 us, x13.5); "
				   "rx.drv_ip p50 30.1 -> 35.0 us (+4.9 us); "
				   "tx.app_ip p50 8.0 -> 9.5 us (+1.5 us)");
	free(story);
	metrics_free(a);
	metrics_free(b);
}

/*
 * pktpath's stages per NIC (latency.DIR.STAGE.IFNAME.p50_us) are stages of
 * their own, named with the NIC; the direction's p50 of a stage whose NICs'
 * p50s both sides hold is left out (a mix of them), not that of a stage the
 * baseline has only per direction.
 */
static void test_regress_out__stage_story_names_the_nic(void **state)
{
	static const char *const names[] = {
		"latency.tx.dev.ethA.p50_us", "latency.tx.dev.ethB.p50_us",
		"latency.tx.dev.p50_us",      "latency.tx.done.p50_us",
		"latency.rx.drv_ip.p50_us",   "latency.rx.drv_ip.ethB.p50_us",
	};
	static const double before[] = { 10, 40, 30, 20, 30, 25 };
	static const double after[] = { 40, 40, 40, 36, 45, 25 };
	struct metrics *b = stages(names, before, 5), *a = stages(names, after, 6);
	struct regress_stage_move mv[5];
	char *story;
	size_t n;

	/* the baseline has rx.drv_ip per direction only: that one is compared */
	n = regress_stages_moved(b, a, mv, 5);
	assert_int_equal(n, 3);
	assert_string_equal(mv[0].stage, "tx.dev.ethA");
	assert_string_equal(mv[1].stage, "tx.done");
	assert_string_equal(mv[2].stage, "rx.drv_ip");
	for (size_t i = 0; i < n; i++)
		free(mv[i].stage);
	story = regress_stage_story(b, a);
	assert_string_equal(story, "stage moved: tx.dev.ethA p50 10.0 -> 40.0 us (+30.0 us, x4.0); "
				   "tx.done p50 20.0 -> 36.0 us (+16.0 us, x1.8); "
				   "rx.drv_ip p50 30.0 -> 45.0 us (+15.0 us, x1.5)");
	free(story);
	/* a baseline from before the NICs had their own: the direction's, as before */
	metrics_free(b);
	b = stages(names + 2, before + 2, 3);
	n = regress_stages_moved(b, a, mv, 5);
	assert_int_equal(n, 3);
	assert_string_equal(mv[0].stage, "tx.done");
	assert_string_equal(mv[1].stage, "rx.drv_ip");
	assert_string_equal(mv[2].stage, "tx.dev");
	for (size_t i = 0; i < n; i++)
		free(mv[i].stage);
	metrics_free(a);
	metrics_free(b);
}

static void test_regress_out__stage_story_without_stages(void **state)
{
	static const double v[] = { 30, 40, 5, 20, 8, 12 };
	struct metrics *b = stages(stage_names, v, 6), *a = stages(stage_names, v, 6);
	struct metrics *untraced = metrics_new(), *other = metrics_new();
	struct regress_stage_move mv[3];
	char *story;

	/* This run was not traced: nothing to say. */
	metrics_set(untraced, "rr.latency_us.p50", 90);
	metrics_set(untraced, "latency.rx.packets", 10);
	assert_null(regress_stage_story(b, untraced));
	assert_null(regress_stage_story(NULL, NULL));
	/* A baseline from before "_stages". */
	story = regress_stage_story(NULL, a);
	assert_string_equal(story, "stages: baseline has no per-stage latencies "
				   "(netlab regress --update-baselines records them)");
	free(story);
	assert_int_equal(regress_stages_moved(NULL, a, mv, 3), 0);
	/* Nothing rose. */
	story = regress_stage_story(b, a);
	assert_string_equal(story, "stages: no stage's p50 rose above the baseline's");
	free(story);
	/* The baseline's stages are others (renamed since). */
	metrics_set(other, "latency.rx.old_stage.p50_us", 1);
	story = regress_stage_story(other, a);
	assert_string_equal(story, "stages: the baseline's per-stage latencies name none of this run's stages");
	free(story);
	metrics_free(other);
	metrics_free(untraced);
	metrics_free(a);
	metrics_free(b);
}

static void test_regress_out__latency_subjects(void **state)
{
	assert_true(regress_latency_subject("rr.latency_us.p50"));
	assert_true(regress_latency_subject("rr.tps"));
	assert_true(regress_latency_subject("latency.rx.drv_ip.p50_us"));
	assert_true(regress_latency_subject("udp.latency_us.p99"));
	assert_false(regress_latency_subject("udp.lost"));
	assert_false(regress_latency_subject("tcp.goodput_bps"));
	assert_false(regress_latency_subject(NULL));
}

/* The table and summary.json say which stage moved under a failed latency check. */
static void test_regress_out__table_and_json_name_the_stage_that_moved(void **state)
{
	static const char rr[] = "[traffic]\ngenerator = rr\n[checks]\np50 = rr.latency_us.p50 <= 100\n";
	char *path = xasprintf("%s/rr.scn", dir), *json = xasprintf("%s/summary.json", dir);
	char *out = NULL, *err = NULL;
	struct json_object *j, *v, *sc;
	struct scenario **cases = NULL;
	struct regress_scn rs = { 0 };
	struct regress r = { 0 };
	size_t n = 0, len = 0;
	FILE *f;

	assert_int_equal(file_write(path, rr, strlen(rr)), 0);
	if (scn_parse_cases(path, &cases, &n, &err))
		fail_msg("%s", err);
	rs.scn = cases[0];
	free(cases);
	rs.outcome = RO_FAIL;
	rs.median = metrics_new();
	metrics_set(rs.median, "rr.latency_us.p50", 180);
	metrics_set(rs.median, "latency.tx.xmit_drv.p50_us", 162.4);
	rs.base_stages = metrics_new();
	metrics_set(rs.base_stages, "latency.tx.xmit_drv.p50_us", 12);
	/* p50, and netlab's no_stall (rr.stalled == 0), which passed */
	assert_int_equal(rs.scn->n_checks, 2);
	rs.checks = xzalloc(rs.scn->n_checks * sizeof(*rs.checks));
	rs.checks[0].check = &rs.scn->checks[0];
	rs.checks[0].res = (struct check_result){ .status = CHECK_FAIL, .value = 180,
						   .op = CHECK_LE, .bound = 100 };
	rs.checks[1].check = &rs.scn->checks[1];
	rs.checks[1].res = (struct check_result){ .status = CHECK_PASS, .op = CHECK_EQ };
	r.s = &rs;
	r.n = 1;
	r.dir = dir;
	f = open_memstream(&out, &len);
	regress_print_table(&r, f);
	fclose(f);
	assert_non_null(strstr(out, "\n  stage moved: tx.xmit_drv p50 12.0 -> 162.4 us (+150.4 us, x13.5)\n"));
	assert_int_equal(regress_write_json(&r, json, &err), 0);
	j = json_object_from_file(json);
	assert_non_null(j);
	assert_true(json_object_object_get_ex(j, "scenarios", &v));
	sc = json_object_array_get_idx(v, 0);
	assert_true(json_object_object_get_ex(sc, "stages", &v));
	assert_string_equal(json_object_get_string(v), "stage moved: tx.xmit_drv p50 12.0 -> 162.4 us (+150.4 us, x13.5)");
	assert_true(json_object_object_get_ex(sc, "stages_moved", &v));
	assert_int_equal(json_object_array_length(v), 1);
	v = json_object_array_get_idx(v, 0);
	assert_string_equal(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN),
			    "{\"stage\":\"tx.xmit_drv\",\"baseline_p50_us\":12,\"p50_us\":162.4}");
	json_object_put(j);
	free(out);
	/* A passing latency check: nothing to say. */
	rs.checks[0].res.status = CHECK_PASS;
	rs.outcome = RO_PASS;
	f = open_memstream(&out, &len);
	regress_print_table(&r, f);
	fclose(f);
	assert_null(strstr(out, "stage"));
	free(out);
	free(rs.checks);
	metrics_free(rs.median);
	metrics_free(rs.base_stages);
	scn_free(rs.scn);
	free(path);
	free(json);
}

/* A case of `text` (checks no_loss, driver) with outcome o; median and statuses when st. */
static void one_scn(struct regress_scn *rs, const char *path, enum regress_outcome o,
		    const enum check_status *st, const char *reason)
{
	struct scenario **cases = NULL;
	size_t n = 0;
	char *err = NULL;

	if (scn_parse_cases(path, &cases, &n, &err))
		fail_msg("%s", err);
	memset(rs, 0, sizeof(*rs));
	rs->scn = cases[0];
	free(cases);
	rs->outcome = o;
	rs->reason = reason ? xstrdup(reason) : NULL;
	rs->median = st ? metrics_new() : NULL;
	if (st)
		metrics_set(rs->median, "loss.app_sent", 10);
	rs->checks = xzalloc(2 * sizeof(*rs->checks));
	for (size_t c = 0; c < 2; c++) {
		rs->checks[c].check = &rs->scn->checks[c];
		rs->checks[c].res = (struct check_result){ .status = st ? st[c] : CHECK_NOT_MEASURED,
							    .value = 3, .op = CHECK_LE, .bound = 0 };
		rs->checks[c].min = rs->checks[c].max = NAN;
		if (st && st[c] == CHECK_ERROR)
			rs->checks[c].res.err = xstrdup("division by zero");
	}
}

static void free_scn(struct regress_scn *rs)
{
	for (size_t c = 0; c < 2; c++)
		check_result_release(&rs->checks[c].res);
	free(rs->checks);
	free(rs->reason);
	metrics_free(rs->median);
	scn_free(rs->scn);
}

static long xml_count(xmlNodePtr n, const char *attr)
{
	xmlChar *v = xmlGetProp(n, (const xmlChar *)attr);
	long x;

	assert_non_null(v);
	x = strtol((const char *)v, NULL, 10);
	xmlFree(v);
	return x;
}

static long json_count(struct json_object *j, const char *key)
{
	struct json_object *c, *v;

	assert_true(json_object_object_get_ex(j, "counts", &c));
	assert_true(json_object_object_get_ex(c, key, &v));
	return json_object_get_int64(v);
}

/*
 * KTAP, JUnit and summary.json count the same: a pass, a failed check and
 * a check in error, an infra error (skipped, with its reason), and a panic
 * on one run while the others passed every check ("runs" fails).
 */
static void test_regress_out__ci_outputs_count_the_same(void **state)
{
	static const enum check_status all_pass[] = { CHECK_PASS, CHECK_PASS };
	static const enum check_status fail_err[] = { CHECK_FAIL, CHECK_ERROR };
	char *path = xasprintf("%s/ci.scn", dir), *junit = xasprintf("%s/junit.xml", dir);
	char *json = xasprintf("%s/summary.json", dir), *ktap = xasprintf("%s/results.ktap", dir);
	char *got = NULL, *err = NULL;
	struct regress_scn rs[4];
	struct regress r = { .s = rs, .n = 4, .wall_s = 12.5 };
	struct regress_counts c;
	struct json_object *j, *v;
	xmlDocPtr doc;
	xmlNodePtr root;

	r.dir = dir;
	assert_int_equal(file_write(path, text, strlen(text)), 0);
	one_scn(&rs[0], path, RO_PASS, all_pass, NULL);
	one_scn(&rs[1], path, RO_BAD, fail_err, "check 'driver': division by zero");
	one_scn(&rs[2], path, RO_INFRA, NULL, "run 1: boot-failure: did not boot\nin time # soon");
	one_scn(&rs[3], path, RO_FAIL, all_pass, "run 2: panic: Kernel panic - not syncing: x");
	regress_count(&r, &c);
	assert_int_equal(c.total, 9);	/* 2 + 2 + 2 + 2 and "runs" */
	assert_int_equal(c.passed, 4);
	assert_int_equal(c.failed, 2);
	assert_int_equal(c.errors, 1);
	assert_int_equal(c.skipped, 2);
	assert_int_equal(regress_n_items(&rs[3]), 3);
	assert_string_equal(regress_item_name(&rs[3], 2), "runs");

	assert_int_equal(regress_write_ktap(&r, ktap, &err), 0);
	assert_int_equal(file_read(ktap, &got, NULL), 0);
	assert_non_null(strstr(got, "KTAP version 1\n1..4\n"));
	assert_non_null(strstr(got, "    # Subtest: ci[direction=A>B]\n    1..2\n    ok 1 no_loss # 3 <= 0\n"));
	assert_non_null(strstr(got, "    # udp.lost <= 0: value 3, bound <= 0\n    not ok 1 no_loss # 3 <= 0\n"));
	assert_non_null(strstr(got, "    not ok 2 driver # error\n"));
	/* The reason on one line; '#' only starts the directive. */
	assert_non_null(strstr(got, "    ok 1 no_loss # SKIP infra-error: run 1: boot-failure: did not boot in time # soon\n"));
	assert_non_null(strstr(got, "ok 3 ci[direction=A>B] # SKIP infra-error: run 1: boot-failure"));
	assert_non_null(strstr(got, "    # fail: run 2: panic: Kernel panic - not syncing: x\n    # loss: sent 10 -> "));
	assert_non_null(strstr(got, "\n    not ok 3 runs # fail\n"));
	assert_non_null(strstr(got, "\nnot ok 4 ci[direction=A>B]\n"));
	free(got);

	assert_int_equal(regress_write_junit(&r, junit, &err), 0);
	doc = xmlReadFile(junit, NULL, XML_PARSE_NONET);
	assert_non_null(doc);
	root = xmlDocGetRootElement(doc);
	assert_int_equal(xml_count(root, "tests"), 9);
	assert_int_equal(xml_count(root, "failures"), 2);
	assert_int_equal(xml_count(root, "errors"), 1);
	assert_int_equal(xml_count(root, "skipped"), 2);
	xmlFreeDoc(doc);
	assert_int_equal(file_read(junit, &got, NULL), 0);
	assert_non_null(strstr(got, "<testsuite name=\"ci[direction=A&gt;B]\" id=\"3\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"0\" time=\"0.000\""));
	assert_non_null(strstr(got, "<skipped message=\"run 1: boot-failure: did not boot&#10;in time # soon\"/>"));
	assert_non_null(strstr(got, "<system-out>bad-scenario: check &apos;driver&apos;") ||
			strstr(got, "<system-out>bad-scenario: check 'driver'"));
	assert_non_null(strstr(got, "loss: sent 10 -&gt; sender stack"));
	free(got);

	assert_int_equal(regress_write_json(&r, json, &err), 0);
	j = json_object_from_file(json);
	assert_non_null(j);
	assert_int_equal(json_count(j, "total"), 9);
	assert_int_equal(json_count(j, "passed"), 4);
	assert_int_equal(json_count(j, "failed"), 2);
	assert_int_equal(json_count(j, "errors"), 1);
	assert_int_equal(json_count(j, "skipped"), 2);
	assert_true(json_object_object_get_ex(j, "format_version", &v));
	assert_int_equal(json_object_get_int(v), NETLAB_FORMAT_VERSION);
	assert_true(json_object_object_get_ex(j, "netlab", &v));
	assert_true(json_object_object_get_ex(v, "commit", NULL));
	assert_true(json_object_object_get_ex(j, "generated_at", &v));
	assert_non_null(strchr(json_object_get_string(v), 'T'));
	assert_true(json_object_object_get_ex(j, "kernel", &v) && !v);	/* none given */
	json_object_put(j);

	for (size_t i = 0; i < 4; i++)
		free_scn(&rs[i]);
	free(path);
	free(junit);
	free(json);
	free(ktap);
}

/* Where to look: the report, the trace and each capture the failing run has, quoted for a shell. */
static void test_regress_out__look_commands_name_what_the_run_has(void **state)
{
	char *path = xasprintf("%s/ci.scn", dir), *run = xasprintf("%s/a run", dir);
	char *p, *look;
	struct regress_run runs[2] = { { .dir = xasprintf("%s/ok", dir) }, { .dir = run, .checks_failed = 1 } };
	struct regress_scn rs;

	assert_int_equal(file_write(path, text, strlen(text)), 0);
	one_scn(&rs, path, RO_FAIL, NULL, NULL);
	rs.runs = runs;
	rs.n_runs = 2;
	p = xasprintf("%s/files", run);
	assert_int_equal(mkdir_p(p, 0755), 0);
	free(p);
	p = xasprintf("%s/files/trace.dat", run);
	assert_int_equal(file_write(p, "x", 1), 0);
	free(p);
	p = xasprintf("%s/nic-B.pcap", run);
	assert_int_equal(file_write(p, "x", 1), 0);
	free(p);
	look = regress_look_commands(&rs);
	p = xasprintf("netlab report '%s'\nnetlab report --html '%s'\nkernelshark '%s/files/trace.dat'\n"
		      "wireshark '%s/nic-B.pcap'", run, run, run, run);
	assert_string_equal(look, p);
	free(p);
	free(look);
	/* The replay hint of a recorded run, its directory quoted too. */
	p = xasprintf("%s/replay.argv", run);
	assert_int_equal(file_write(p, "x", 1), 0);
	free(p);
	{
		struct regress r = { .s = &rs, .n = 1, .dir = dir };
		char *out = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);

		regress_print_table(&r, f);
		fclose(f);
		p = xasprintf("\n  replay: netlab gdb --replay '%s' --until first-drop ", run);
		assert_non_null(strstr(out, p));
		free(p);
		free(out);
	}
	rs.n_runs = 0;
	assert_null(regress_look_commands(&rs));
	free_scn(&rs);
	free(runs[0].dir);
	free(run);
	free(path);
}

/* A scenario the suite never started (interrupted): not-run everywhere, no "ok: " reason. */
static void test_regress_out__not_run_is_its_own_status(void **state)
{
	static const char udp[] = "[traffic]\ngenerator = udp-stream\n[checks]\nno_loss = udp.lost == 0\n";
	char *path = xasprintf("%s/nr.scn", dir), *out = NULL, *err = NULL;
	struct scenario **cases = NULL;
	struct regress_run run = { .dir = "nr/run-1", .not_run = true, .exit_status = -1 };
	struct regress_scn rs = { 0 };
	struct regress r = { 0 };
	struct sbuf junit;
	size_t n = 0, len = 0;
	FILE *f;

	assert_int_equal(file_write(path, udp, strlen(udp)), 0);
	if (scn_parse_cases(path, &cases, &n, &err))
		fail_msg("%s", err);
	rs.scn = cases[0];
	free(cases);
	rs.outcome = RO_NOT_RUN;
	rs.reason = xstrdup("not run: interrupted");
	rs.runs = &run;
	rs.n_runs = 1;
	rs.checks = xzalloc(rs.scn->n_checks * sizeof(*rs.checks));
	for (size_t c = 0; c < rs.scn->n_checks; c++) {
		rs.checks[c].check = &rs.scn->checks[c];
		rs.checks[c].res.status = CHECK_NOT_MEASURED;
	}
	r.s = &rs;
	r.n = 1;
	r.dir = dir;
	r.interrupted = true;
	assert_string_equal(regress_outcome_name(RO_NOT_RUN), "not-run");
	assert_int_equal(regress_item_class(&rs, 0), RIC_SKIPPED);
	assert_int_equal(regress_exit_code(&r), NL_EXIT_INTERRUPTED);
	f = open_memstream(&out, &len);
	regress_print_ktap(&r, f);
	fclose(f);
	assert_non_null(strstr(out, "\n    ok 1 no_loss # SKIP not run: interrupted\n"));
	assert_non_null(strstr(out, "\nok 1 nr # SKIP not run: interrupted\n"));
	free(out);
	f = open_memstream(&out, &len);
	regress_print_table(&r, f);
	fclose(f);
	assert_non_null(strstr(out, " not-run\n"));
	assert_non_null(strstr(out, "\n  not run: interrupted\n"));
	assert_null(strstr(out, "ok: "));
	free(out);
	sbuf_init(&junit);
	out = xasprintf("%s/junit.xml", dir);
	assert_int_equal(regress_write_junit(&r, out, &err), 0);
	free(out);
	out = NULL;
	{
		char *jp = xasprintf("%s/junit.xml", dir);

		assert_int_equal(file_read(jp, &out, &len), 0);
		free(jp);
	}
	assert_non_null(strstr(out, "<skipped message=\"not run: interrupted\"/>"));
	free(out);
	out = xasprintf("%s/summary.json", dir);
	assert_int_equal(regress_write_json(&r, out, &err), 0);
	{
		struct json_object *j = json_object_from_file(out), *v, *sc;

		assert_true(json_object_object_get_ex(j, "scenarios", &v));
		sc = json_object_array_get_idx(v, 0);
		assert_true(json_object_object_get_ex(sc, "outcome", &v));
		assert_string_equal(json_object_get_string(v), "not-run");
		assert_true(json_object_object_get_ex(sc, "runs", &v));
		v = json_object_array_get_idx(v, 0);
		assert_true(json_object_object_get_ex(v, "verdict", &v));
		assert_string_equal(json_object_get_string(v), "not-run");
		json_object_put(j);
	}
	free(out);
	sbuf_release(&junit);
	for (size_t c = 0; c < rs.scn->n_checks; c++)
		check_result_release(&rs.checks[c].res);
	free(rs.checks);
	free(rs.reason);
	scn_free(rs.scn);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regress_out__junit_is_well_formed_with_markup_and_control_characters),
		cmocka_unit_test(test_regress_out__stage_story_names_the_stages_that_rose_most),
		cmocka_unit_test(test_regress_out__stage_story_names_the_nic),
		cmocka_unit_test(test_regress_out__stage_story_without_stages),
		cmocka_unit_test(test_regress_out__latency_subjects),
		cmocka_unit_test(test_regress_out__table_and_json_name_the_stage_that_moved),
		cmocka_unit_test(test_regress_out__ci_outputs_count_the_same),
		cmocka_unit_test(test_regress_out__not_run_is_its_own_status),
		cmocka_unit_test(test_regress_out__look_commands_name_what_the_run_has),
	};

	return cmocka_run_group_tests(tests, dir_setup, dir_teardown);
}
