// SPDX-License-Identifier: GPL-2.0
/*
 * One pass over a trace.dat for several analyses (tracepass): the results
 * of each analysis in a shared pass equal its own pass's; an analysis whose
 * events are absent says so and stays out; a failing slot takes the slots
 * after it out of the pass, not those before it; a file that cannot be
 * opened gets the first analysis's error.
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

#include "trace/drvring.h"
#include "trace/netrx.h"
#include "trace/pktpath.h"
#include "trace/tracedrops.h"
#include "trace/tracepass.h"
#include "lib/util.h"
#include "tmpdir.h"

#ifndef FIXTURES
#define FIXTURES "tests/unit/fixtures"
#endif
#define RUNS FIXTURES "/runs/"

TMPDIR_FIXTURE("tracepass")

/* @j as a string (and put): the results are compared as their JSON. */
static char *json_str(struct json_object *j)
{
	char *s;

	assert_non_null(j);
	s = xstrdup(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
	json_object_put(j);
	return s;
}

static void assert_same(char *alone, char *shared)
{
	assert_string_equal(alone, shared);
	free(alone);
	free(shared);
}

static void all_four_equal_each_alone(const char *run)
{
	char *path = xasprintf(RUNS "%s/files/trace.dat", run), *err = NULL;
	char *rerr = NULL, *rerr1 = NULL;	/* the ring's */
	struct pktpath_pass *ps;
	struct tracedrops_pass *ds;
	struct netrx_pass *ns;
	struct drvring_pass *rs;
	struct tracepass tp;
	struct pktpath *p, *p1;
	struct tracedrops *td, *td1;
	struct netrx *nr, *nr1;
	struct drvring *dr, *dr1;
	int ret;

	tracepass_init(&tp, path);
	assert_int_equal(pktpath_attach(&tp, NULL, &ps, &err), 0);
	assert_int_equal(tracedrops_attach(&tp, NULL, &ds, &err), 0);
	assert_int_equal(netrx_attach(&tp, NULL, &ns, &err), 0);
	assert_int_equal(drvring_attach(&tp, NULL, &rs, &err), 0);
	assert_int_equal(tp.n, 4);
	tracepass_run(&tp);
	assert_int_equal(pktpath_collect(ps, &p, &err), 0);
	assert_int_equal(tracedrops_collect(ds, &td, &err), 0);
	assert_int_equal(netrx_collect(ns, &nr, &err), 0);
	ret = drvring_collect(rs, &dr, &rerr);
	tracepass_close(&tp);

	assert_null(err);
	assert_int_equal(pktpath_read(path, NULL, &p1, &err), 0);
	assert_int_equal(tracedrops_read(path, NULL, &td1, &err), 0);
	assert_int_equal(netrx_read(path, NULL, &nr1, &err), 0);
	assert_null(err);
	assert_int_equal(drvring_read(path, NULL, &dr1, &rerr1), ret);
	if (ret) {	/* a run without the driver patches */
		assert_int_equal(ret, -ENODATA);
		assert_non_null(rerr);
		assert_same(rerr1, rerr);
	} else {
		assert_null(rerr);
		assert_same(json_str(drvring_to_json(dr1)), json_str(drvring_to_json(dr)));
	}
	assert_same(json_str(pktpath_to_json(p1)), json_str(pktpath_to_json(p)));
	assert_same(json_str(tracedrops_to_json(td1)), json_str(tracedrops_to_json(td)));
	assert_same(json_str(netrx_to_json(nr1)), json_str(netrx_to_json(nr)));
	pktpath_free(p);
	pktpath_free(p1);
	tracedrops_free(td);
	tracedrops_free(td1);
	netrx_free(nr);
	netrx_free(nr1);
	drvring_free(dr);
	drvring_free(dr1);
	free(path);
}

static void test_tracepass__shared_pass_equals_each_alone(void **state)
{
	all_four_equal_each_alone("tcp-rr");
	all_four_equal_each_alone("drv-e1000e-rx-80");
	all_four_equal_each_alone("drvprobe-e1000e-rx");
}

static void expect_note(char *err, int ret, const char *path, const char *needle)
{
	assert_int_equal(ret, -ENODATA);
	assert_non_null(err);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "\nhint: "));
	if (!strstr(err, needle))
		print_error("'%s' not in: %s\n", needle, err);
	assert_non_null(strstr(err, needle));
	free(err);
}

/* rcvbuf.dat recorded only skb:kfree_skb and skb:consume_skb. */
static void test_tracepass__absent_events_give_their_note(void **state)
{
	const char *path = FIXTURES "/traces/rcvbuf.dat";
	struct tracedrops_pass *ds;
	struct pktpath_pass *ps = (struct pktpath_pass *)1;
	struct netrx_pass *ns = (struct netrx_pass *)1;
	struct drvring_pass *rs;
	struct tracedrops *td, *td1;
	struct drvring *dr = (struct drvring *)1;
	struct tracepass tp;
	char *err = NULL;

	tracepass_init(&tp, path);
	expect_note(err, pktpath_attach(&tp, NULL, &ps, &err), path,
		    "none of the packet-path events");
	assert_null(ps);
	err = NULL;
	assert_int_equal(tracedrops_attach(&tp, NULL, &ds, &err), 0);
	expect_note(err, netrx_attach(&tp, NULL, &ns, &err), path, "[trace] set");
	assert_null(ns);
	err = NULL;
	assert_int_equal(drvring_attach(&tp, NULL, &rs, &err), 0);
	assert_int_equal(tp.n, 2);
	tracepass_run(&tp);
	assert_int_equal(tracedrops_collect(ds, &td, &err), 0);
	assert_null(err);
	expect_note(err, drvring_collect(rs, &dr, &err), path, "no netlab_drv lines");
	assert_null(dr);
	tracepass_close(&tp);

	err = NULL;
	assert_int_equal(tracedrops_read(path, NULL, &td1, &err), 0);
	assert_same(json_str(tracedrops_to_json(td1)), json_str(tracedrops_to_json(td)));
	tracedrops_free(td);
	tracedrops_free(td1);
}

struct counter {
	unsigned long n, fail_at;
};

static int count(struct tep_record *rec, int cpu, void *ctx)
{
	struct counter *c = ctx;

	return ++c->n == c->fail_at ? -42 : 0;
}

static void test_tracepass__failing_slot_takes_out_those_after_it(void **state)
{
	struct counter c[3] = { { 0, 0 }, { 0, 10 }, { 0, 0 } };
	struct tracepass_slot s[3];
	struct tracedrops *td;
	struct tracepass tp;
	char *err = NULL;

	tracepass_init(&tp, RUNS "udp-path/files/trace.dat");
	assert_int_equal(tracepass_open(&tp, "record it again", &err), 0);
	for (int i = 0; i < 3; i++) {
		s[i] = (struct tracepass_slot){ .cb = count, .ctx = &c[i] };
		tracepass_add(&tp, &s[i]);
	}
	tracepass_run(&tp);
	assert_int_equal(tracepass_result(&s[0], &err), 0);
	assert_int_equal(tracepass_result(&s[1], &err), -42);
	assert_int_equal(tracepass_result(&s[2], &err), -ECANCELED);
	assert_null(err);
	tracepass_close(&tp);
	/* The first saw every record, the third none after the second failed. */
	assert_int_equal(tracedrops_read(RUNS "udp-path/files/trace.dat", NULL, &td, &err), 0);
	assert_int_equal(c[0].n, td->events);
	assert_int_equal(c[1].n, 10);
	assert_int_equal(c[2].n, 9);
	tracedrops_free(td);
}

/* A file that cannot be opened: the first analysis attaching says so, with its hint. */
static void test_tracepass__open_error_comes_from_the_first_to_attach(void **state)
{
	char *path = xasprintf("%s/empty.dat", dir), *err = NULL, *err1 = NULL;
	struct tracedrops_pass *ds = (struct tracedrops_pass *)1;
	struct tracedrops *td = (struct tracedrops *)1;
	struct tracepass tp;

	assert_int_equal(file_write(path, "", 0), 0);
	tracepass_init(&tp, path);
	assert_int_equal(tracedrops_attach(&tp, NULL, &ds, &err), -EINVAL);
	assert_null(ds);
	assert_false(tp.open);
	assert_int_equal(tp.n, 0);
	tracepass_run(&tp);
	tracepass_close(&tp);
	assert_int_equal(tracedrops_read(path, NULL, &td, &err1), -EINVAL);
	assert_null(td);
	assert_non_null(strstr(err, "the file is empty\nhint: the recording did not finish; "));
	assert_string_equal(err, err1);
	free(err);
	free(err1);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tracepass__shared_pass_equals_each_alone),
		cmocka_unit_test(test_tracepass__absent_events_give_their_note),
		cmocka_unit_test(test_tracepass__failing_slot_takes_out_those_after_it),
		cmocka_unit_test(test_tracepass__open_error_comes_from_the_first_to_attach),
	};

	return cmocka_run_group_tests(tests, dir_setup, dir_teardown);
}
