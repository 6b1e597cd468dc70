// SPDX-License-Identifier: GPL-2.0
/*
 * The trace analyses' table (trace/analysis.h): every row is complete and
 * named as its JSON key; trace_analyses_run() decodes the file once
 * (NETLAB_DEBUG_DECODES counts one pass) and each result equals what the
 * analysis gives alone; an analysis not wanted is not run; an attach error
 * hook that stops leaves the later analyses unattached.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "lib/util.h"
#include "lib/metrics.h"
#include "trace/analysis.h"
#include "trace/netrx.h"
#include "trace/pktpath.h"
#include "trace/tracedrops.h"
#include "trace/txpath.h"
#include "tmpdir.h"

#ifndef FIXTURES
#define FIXTURES "tests/unit/fixtures"
#endif
#define RUNS FIXTURES "/runs/"

TMPDIR_FIXTURE("analysis")

static char *json_str(struct json_object *j)
{
	char *s;

	assert_non_null(j);
	s = xstrdup(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
	json_object_put(j);
	return s;
}

/* The lines of the decode counter's file, then the file removed. */
static int decodes(const char *file)
{
	char *text = NULL;
	int n = 0;

	if (file_read(file, &text, NULL))
		return 0;
	for (char *p = text; (p = strstr(p, "decode ")); p++)
		n++;
	free(text);
	unlink(file);
	return n;
}

static void test_analysis__table_is_complete(void **state)
{
	static const char *const names[TA_N] = { "path", "drops", "timeline", "ring", "tx" };

	for (int id = 0; id < TA_N; id++) {
		const struct trace_analysis_ops *o = &trace_analysis_table[id];

		assert_string_equal(o->name, names[id]);
		assert_non_null(o->attach);
		assert_non_null(o->collect);
		assert_non_null(o->to_json);
		assert_non_null(o->metrics);
		assert_non_null(o->free);
	}
}

static void test_analysis__one_decode_and_each_result_as_alone(void **state)
{
	char *path = xasprintf(RUNS "%s/files/trace.dat", "tcp-rr");
	char *count = xasprintf("%s/decodes", dir), *err = NULL;
	struct trace_analyses ta = { .path = path };
	struct pktpath *p;
	struct tracedrops *td;
	struct netrx *nr;
	struct txpath *tx;
	struct metrics *m = metrics_new();
	char *a, *b;

	for (int id = 0; id < TA_N; id++)
		ta.a[id].want = true;
	setenv("NETLAB_DEBUG_DECODES", count, 1);
	trace_analyses_run(&ta);
	assert_int_equal(decodes(count), 1);

	assert_int_equal(pktpath_read(path, NULL, &p, &err), 0);
	assert_int_equal(tracedrops_read(path, NULL, &td, &err), 0);
	assert_int_equal(netrx_read(path, NULL, &nr, &err), 0);
	assert_int_equal(txpath_read(path, &tx, &err), 0);
	assert_int_equal(decodes(count), 4);	/* and each read alone is one */
	unsetenv("NETLAB_DEBUG_DECODES");

	assert_non_null(trace_analyses_result(&ta, TA_PATH));
	a = json_str(pktpath_to_json(p));
	b = json_str(trace_analysis_table[TA_PATH].to_json(trace_analyses_result(&ta, TA_PATH)));
	assert_string_equal(a, b);
	free(a), free(b);
	a = json_str(tracedrops_to_json(td));
	b = json_str(trace_analysis_table[TA_DROPS].to_json(trace_analyses_result(&ta, TA_DROPS)));
	assert_string_equal(a, b);
	free(a), free(b);
	a = json_str(netrx_to_json(nr));
	b = json_str(trace_analysis_table[TA_TIMELINE].to_json(ta.a[TA_TIMELINE].result));
	assert_string_equal(a, b);
	free(a), free(b);
	a = json_str(txpath_to_json(tx));
	b = json_str(trace_analysis_table[TA_TX].to_json(ta.a[TA_TX].result));
	assert_string_equal(a, b);
	free(a), free(b);
	/* drops' metrics: the total, added to what is there */
	metrics_set(m, "drops.total", 1);
	trace_analysis_table[TA_DROPS].metrics(ta.a[TA_DROPS].result, m);
	assert_true(metrics_value(m, "drops.total", -1) == 1 + (double)td->total);
	pktpath_free(p);
	tracedrops_free(td);
	netrx_free(nr);
	txpath_free(tx);
	metrics_free(m);
	trace_analyses_release(&ta);
	for (int id = 0; id < TA_N; id++)
		assert_null(ta.a[id].result);
	free(path);
	free(count);
}

static void test_analysis__unwanted_is_not_run(void **state)
{
	char *path = xasprintf(RUNS "%s/files/trace.dat", "tcp-rr");
	struct trace_analyses ta = { .path = path };

	ta.a[TA_DROPS].want = true;
	trace_analyses_run(&ta);
	assert_true(ta.a[TA_DROPS].attached);
	assert_non_null(trace_analyses_result(&ta, TA_DROPS));
	for (int id = 0; id < TA_N; id++)
		if (id != TA_DROPS) {
			assert_false(ta.a[id].attached);
			assert_null(ta.a[id].result);
		}
	trace_analyses_release(&ta);
	free(path);
}

static int stop_hook(struct trace_analyses *ta, enum trace_analysis_id id, void *ctx)
{
	*(int *)ctx = id;
	return 1;
}

/* rcvbuf.dat has only the drops' events: the path fails to attach first. */
static void test_analysis__attach_error_hook_stops_attaching(void **state)
{
	struct trace_analyses ta = { .path = FIXTURES "/traces/rcvbuf.dat" };
	int seen = -1;
	char *err = NULL;

	for (int id = 0; id < TA_N; id++)
		ta.a[id].want = true;
	ta.on_attach_error = stop_hook;
	ta.ctx = &seen;
	trace_analyses_run(&ta);
	assert_int_equal(seen, TA_PATH);
	assert_false(ta.a[TA_PATH].attached);
	assert_int_equal(trace_analyses_take_err(&ta, TA_PATH, &err), -ENODATA);
	assert_non_null(err);
	free(err);
	for (int id = TA_DROPS; id < TA_N; id++)
		assert_false(ta.a[id].attached);
	trace_analyses_release(&ta);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_analysis__table_is_complete),
		cmocka_unit_test(test_analysis__one_decode_and_each_result_as_alone),
		cmocka_unit_test(test_analysis__unwanted_is_not_run),
		cmocka_unit_test(test_analysis__attach_error_hook_stops_attaching),
	};

	return cmocka_run_group_tests(tests, dir_setup, dir_teardown);
}
