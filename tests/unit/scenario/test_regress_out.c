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
	rs.checks = xzalloc(sizeof(*rs.checks));
	rs.checks[0].check = &rs.scn->checks[0];
	rs.checks[0].res = (struct check_result){ .status = CHECK_FAIL, .value = 180,
						   .op = CHECK_LE, .bound = 100 };
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regress_out__junit_is_well_formed_with_markup_and_control_characters),
		cmocka_unit_test(test_regress_out__stage_story_names_the_stages_that_rose_most),
		cmocka_unit_test(test_regress_out__stage_story_without_stages),
		cmocka_unit_test(test_regress_out__latency_subjects),
		cmocka_unit_test(test_regress_out__table_and_json_name_the_stage_that_moved),
	};

	return cmocka_run_group_tests(tests, dir_setup, dir_teardown);
}
