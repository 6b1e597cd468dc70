// SPDX-License-Identifier: GPL-2.0
/*
 * Drop aggregation on trace.dat files recorded in netlab's own guest
 * (fixtures/traces, see README there): golden JSON, and the properties the
 * golden files rely on. NETLAB_UPDATE_GOLDEN=1 rewrites the expected JSON.
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

#include "trace/tracedrops.h"
#include "golden.h"
#include "lib/util.h"

#ifndef FIXTURES
#define FIXTURES "tests/unit/fixtures"
#endif
#define TRACES FIXTURES "/traces/"

static struct tracedrops *read_ok(const char *name, uint64_t interval_ns)
{
	struct tracedrops_opts o = { .interval_ns = interval_ns };
	struct tracedrops *td = NULL;
	char *path = xasprintf(TRACES "%s", name), *err = NULL;
	int ret = tracedrops_read(path, &o, &td, &err);

	if (ret)
		print_error("%s: %d %s\n", path, ret, err ? err : "");
	assert_int_equal(ret, 0);
	assert_non_null(td);
	assert_null(err);
	free(path);
	return td;
}

static uint64_t reason_count(const struct tracedrops *td, const char *name, long long *value)
{
	for (size_t i = 0; i < td->n_by_reason; i++)
		if (!strcmp(td->by_reason[i].name, name)) {
			if (value)
				*value = td->by_reason[i].value;
			return td->by_reason[i].count;
		}
	return 0;
}

/* The JSON of a fixture, with the file named by its base name, against NAME.expected.json. */
static void golden(const char *name)
{
	struct tracedrops *td = read_ok(name, 0);
	char *exp_path =
		xasprintf(TRACES "%.*s.expected.json", (int)(strrchr(name, '.') - name), name);

	golden_check(tracedrops_to_json(td), name, exp_path);
	free(exp_path);
	tracedrops_free(td);
}

static void test_tracedrops__rcvbuf_matches_golden_json(void **state)
{
	golden("rcvbuf.dat");
}

static void test_tracedrops__noport_matches_golden_json(void **state)
{
	golden("noport.dat");
}

static void test_tracedrops__lost_matches_golden_json(void **state)
{
	golden("lost.dat");
}

/* Reason names and values come from the event's own __print_symbolic table. */
static void test_tracedrops__reason_decoded_from_event_format(void **state)
{
	struct tracedrops *td = read_ok("rcvbuf.dat", 0);
	long long v = 0;

	assert_true(td->has_reason);
	assert_int_equal(td->n_by_reason, 1);
	assert_int_equal(reason_count(td, "SOCKET_RCVBUFF", &v), td->total);
	assert_int_equal(v, 15); /* { 15, "SOCKET_RCVBUFF" } in 6.1's print fmt */
	tracedrops_free(td);

	td = read_ok("noport.dat", 0);
	assert_int_equal(reason_count(td, "NO_SOCKET", &v), td->total);
	assert_int_equal(v, 2);
	tracedrops_free(td);
}

/* Locations resolve with the kallsyms stored in the trace, to symbol+0xoff. */
static void test_tracedrops__location_symbolised_from_trace_kallsyms(void **state)
{
	struct tracedrops *td = read_ok("noport.dat", 0);

	assert_int_equal(td->unresolved, 0);
	assert_int_equal(td->n_sites, 1);
	/* 0xffffffff81348af1 = __udp4_lib_rcv (0xffffffff813484bc) + 0x635 in System.map */
	assert_int_equal(td->sites[0].addr, 0xffffffff81348af1ull);
	assert_string_equal(td->sites[0].location, "__udp4_lib_rcv+0x635");
	tracedrops_free(td);

	td = read_ok("rcvbuf.dat", 0);
	assert_int_equal(td->n_by_location, 1);
	assert_string_equal(td->by_location[0].name, "udp_queue_rcv_one_skb+0x247");
	tracedrops_free(td);
}

/* Only skb:kfree_skb counts: rcvbuf.dat also holds consume_skb records. */
static void test_tracedrops__counts_kfree_skb_only(void **state)
{
	struct tracedrops *td = read_ok("rcvbuf.dat", 0);

	assert_int_equal(td->total, 175); /* = "lost" in the receiver's own JSON */
	assert_int_equal(td->events, 2023);
	tracedrops_free(td);
}

static void check_intervals(const char *name, uint64_t interval_ns)
{
	struct tracedrops *td = read_ok(name, interval_ns);
	uint64_t sum = 0, slot_sum;

	assert_int_equal(td->interval_ns, interval_ns);
	for (size_t i = 0; i < td->n_intervals; i++) {
		const struct tracedrops_interval *iv = &td->intervals[i];

		if (i)
			assert_true(iv->index > td->intervals[i - 1].index);
		slot_sum = 0;
		for (size_t j = 0; j < iv->n_slots; j++) {
			assert_true(iv->slots[j].site < td->n_sites);
			slot_sum += iv->slots[j].count;
		}
		assert_int_equal(slot_sum, iv->total);
		sum += iv->total;
	}
	assert_int_equal(sum, td->total);
	/* The trace spans ~1.5-2.6 s: at least that many intervals of the given width. */
	assert_true(td->n_intervals >= (td->last_ts - td->t0) / interval_ns / 2);
	tracedrops_free(td);
}

static void test_tracedrops__intervals_add_up_to_total(void **state)
{
	check_intervals("rcvbuf.dat", 1000000000ull);
	check_intervals("rcvbuf.dat", 100000000ull);
	check_intervals("noport.dat", 250000000ull);
}

struct seen {
	uint64_t n, last_ts;
	bool ordered, sites_ok;
	int stop_at;
};

static int seen_drop(void *ctx, const struct tracedrops_drop *d)
{
	struct seen *s = ctx;

	if (d->ts < s->last_ts)
		s->ordered = false;
	s->last_ts = d->ts;
	if (!d->site || strcmp(d->site->reason, "NO_SOCKET") || d->protocol != 0x0800 ||
	    (d->skbaddr >> 40) != 0xffff88ull)
		s->sites_ok = false;
	return ++s->n == (uint64_t)s->stop_at ? 42 : 0;
}

/* The per-drop callback sees every drop, in time order, with raw skb addresses. */
static void test_tracedrops__on_drop_sees_each_drop_in_order(void **state)
{
	struct seen s = { .ordered = true, .sites_ok = true };
	struct tracedrops_opts o = { .on_drop = seen_drop, .ctx = &s };
	struct tracedrops *td = NULL;
	char *err = NULL;

	assert_int_equal(tracedrops_read(TRACES "noport.dat", &o, &td, &err), 0);
	assert_int_equal(s.n, td->total);
	assert_true(s.ordered);
	assert_true(s.sites_ok);
	tracedrops_free(td);
}

static void test_tracedrops__on_drop_can_stop_the_read(void **state)
{
	struct seen s = { .ordered = true, .sites_ok = true, .stop_at = 3 };
	struct tracedrops_opts o = { .on_drop = seen_drop, .ctx = &s };
	struct tracedrops *td = NULL;
	char *err = NULL;

	assert_int_equal(tracedrops_read(TRACES "noport.dat", &o, &td, &err), 42);
	assert_null(td);
	assert_int_equal(s.n, 3);
	free(err);
}

/* lost.dat: extracted after the 4 KB buffer wrapped (1783 events overwritten). */
static void test_tracedrops__lost_events_are_counted(void **state)
{
	struct tracedrops *td = read_ok("lost.dat", 0);
	uint64_t lost = 0;

	assert_int_equal(td->lost, 1783); /* "overrun: 1783" in the guest's per_cpu stats */
	assert_int_equal(td->lost_gaps, 1);
	assert_int_equal(td->lost_unknown, 0);
	for (size_t i = 0; i < td->n_intervals; i++)
		lost += td->intervals[i].lost;
	assert_int_equal(lost, td->lost);
	tracedrops_free(td);

	td = read_ok("rcvbuf.dat", 0);
	assert_int_equal(td->lost + td->lost_gaps, 0);
	tracedrops_free(td);
}

/* A copy of a fixture cut to `len` bytes, or `len` bytes of junk, in a temp file. */
static char *bad_file(const char *fixture, size_t len)
{
	char *src = fixture ? xasprintf(TRACES "%s", fixture) : NULL;
	char *path = bad_trace_file(src, len, "tracedrops");

	free(src);
	return path;
}

static void expect_bad(char *path, int want, const char *needle)
{
	struct tracedrops *td = (struct tracedrops *)1;
	char *err = NULL;

	assert_int_equal(tracedrops_read(path, NULL, &td, &err), want);
	assert_null(td);
	assert_non_null(err);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "\nhint: "));
	if (!strstr(err, needle))
		print_error("'%s' not in: %s\n", needle, err);
	assert_non_null(strstr(err, needle));
	free(err);
	unlink(path);
	free(path);
}

static void test_tracedrops__bad_input_is_named_with_a_hint(void **state)
{
	expect_bad(xstrdup("/nonexistent/trace.dat"), -ENOENT, "No such file");
	expect_bad(bad_file(NULL, 0), -EINVAL, "empty");
	expect_bad(bad_file(NULL, 4096), -EINVAL, "not a trace.dat");
	expect_bad(bad_file("rcvbuf.dat", 5), -EINVAL, "not a trace.dat");
	/* Cut in the headers, in the kallsyms section, in the event data. */
	expect_bad(bad_file("rcvbuf.dat", 100), -EINVAL, "truncated or corrupted");
	expect_bad(bad_file("rcvbuf.dat", 200000), -EINVAL, "truncated or corrupted");
	expect_bad(bad_file("rcvbuf.dat", 490000), -EINVAL, "truncated or corrupted");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tracedrops__rcvbuf_matches_golden_json),
		cmocka_unit_test(test_tracedrops__noport_matches_golden_json),
		cmocka_unit_test(test_tracedrops__lost_matches_golden_json),
		cmocka_unit_test(test_tracedrops__reason_decoded_from_event_format),
		cmocka_unit_test(test_tracedrops__location_symbolised_from_trace_kallsyms),
		cmocka_unit_test(test_tracedrops__counts_kfree_skb_only),
		cmocka_unit_test(test_tracedrops__intervals_add_up_to_total),
		cmocka_unit_test(test_tracedrops__on_drop_sees_each_drop_in_order),
		cmocka_unit_test(test_tracedrops__on_drop_can_stop_the_read),
		cmocka_unit_test(test_tracedrops__lost_events_are_counted),
		cmocka_unit_test(test_tracedrops__bad_input_is_named_with_a_hint),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
