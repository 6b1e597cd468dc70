// SPDX-License-Identifier: GPL-2.0
/*
 * The NET_RX timeline (perf netdev-times) on run directories recorded in
 * netlab's own guest with the default tracing set (fixtures/runs, see README
 * there): golden JSON, and facts counted by hand with trace-cmd report.
 * NETLAB_UPDATE_GOLDEN=1 rewrites the expected JSON.
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

#include "lib/metrics.h"
#include "trace/netrx.h"
#include "golden.h"
#include "lib/util.h"

#ifndef FIXTURES
#define FIXTURES "tests/unit/fixtures"
#endif
#define RUNS FIXTURES "/runs/"
#define ALL 100000 /* more trees than any fixture has */

static struct netrx *read_ok(const char *run, enum netrx_select sel, unsigned int n)
{
	struct netrx_opts o = { .select = sel, .n = n };
	struct netrx *nr = NULL;
	char *path = xasprintf(RUNS "%s/files/trace.dat", run), *err = NULL;
	int ret = netrx_read(path, &o, &nr, &err);

	if (ret)
		print_error("%s: %d %s\n", path, ret, err ? err : "");
	assert_int_equal(ret, 0);
	assert_non_null(nr);
	assert_null(err);
	free(path);
	return nr;
}

static const struct netrx_dev *dev(const struct netrx *nr, const char *name)
{
	for (size_t i = 0; i < nr->n_devs; i++)
		if (!strcmp(nr->devs[i].name, name))
			return &nr->devs[i];
	fail_msg("no device %s", name);
	return NULL;
}

/* The JSON of a run's trace, the file named by the run, against its netrx.expected.json. */
static void golden(const char *run)
{
	struct netrx *nr = read_ok(run, NETRX_FIRST, 0);
	char *exp_path = xasprintf(RUNS "%s/netrx.expected.json", run);

	golden_check(netrx_to_json(nr), run, exp_path);
	free(exp_path);
	netrx_free(nr);
}

static void test_netrx__udp_path_matches_golden_json(void **state)
{
	golden("udp-path");
}

static void test_netrx__tcp_rr_matches_golden_json(void **state)
{
	golden("tcp-rr");
}

static void test_netrx__tcp_stream_matches_golden_json(void **state)
{
	golden("tcp-stream");
}

/*
 * The default set of issue 19: no napi_gro_receive_entry, UDP copied at
 * netlab:udp_consume, no irq_handler_exit or softirq_exit (the softirqs end
 * by context). trace-cmd report -i FILE: 320 netif_receive_skb; following
 * each address to its next udp_consume, consume_skb or kfree_skb: 205
 * copied, 114 freed (fragments reassembled into others, 2 ARP); one
 * address came in again before any of those.
 */
/*
 * The default set records no irq_handler_exit or softirq_exit: the same
 * traces read with and without them (udp-path, tcp-rr, tcp-stream have
 * both) give the same timeline counts, and the same interrupt -> softirq
 * and copy latencies.
 */
static void test_netrx__exits_are_not_needed(void **state)
{
	static const char *const runs[] = { "udp-path", "tcp-rr", "tcp-stream" };

	for (size_t i = 0; i < ARRAY_SIZE(runs); i++) {
		struct netrx_opts o = { .select = NETRX_FIRST }, x = o;
		struct netrx *a = NULL, *b = NULL;
		char *path = xasprintf(RUNS "%s/files/trace.dat", runs[i]), *err = NULL;

		x.without_exits = true;
		assert_int_equal(netrx_read(path, &o, &a, &err), 0);
		assert_int_equal(netrx_read(path, &x, &b, &err), 0);
		assert_true(a->softirqs > 100);
		assert_int_equal(a->softirqs, b->softirqs);
		assert_int_equal(a->softirqs_irq, b->softirqs_irq);
		assert_int_equal(a->receive_trees, b->receive_trees);
		assert_int_equal(a->raises_other, b->raises_other);
		assert_int_equal(a->rx_outside_softirq, b->rx_outside_softirq);
		assert_int_equal(a->polls, b->polls);
		assert_int_equal(a->frames, b->frames);
		assert_int_equal(a->rx_copied, b->rx_copied);
		assert_int_equal(a->rx_consumed, b->rx_consumed);
		assert_int_equal(a->irq_softirq.count, b->irq_softirq.count);
		assert_true(a->irq_softirq.p50 == b->irq_softirq.p50);
		assert_true(a->rx_copy.p50 == b->rx_copy.p50);
		netrx_free(a);
		netrx_free(b);
		free(path);
	}
}

static void test_netrx__lean_udp_matches_golden_json(void **state)
{
	struct netrx *nr = read_ok("lean-udp", NETRX_FIRST, 0);

	assert_true(nr->has_copy);
	assert_int_equal(nr->rx_copied, 205);
	assert_int_equal(nr->rx_consumed, 114);
	assert_int_equal(nr->rx_dropped, 0);
	assert_int_equal(nr->rx_skbs, 320);
	netrx_free(nr);
	golden("lean-udp");
}

/*
 * Every netif_receive_skb lands in a NET_RX tree: udp-path has 206
 * "netif_receive_skb: dev=ethB" lines in trace-cmd report (and 1 on ethA),
 * all inside NET_RX softirqs.
 */
static void test_netrx__every_receive_is_in_a_tree(void **state)
{
	struct netrx *nr = read_ok("udp-path", NETRX_FIRST, ALL);
	size_t on_b = 0, on_a = 0;

	for (size_t i = 0; i < nr->n_trees; i++) {
		const struct netrx_tree *t = nr->trees[i];

		assert_int_equal(t->ev_dropped, 0);
		for (size_t j = 0; j < t->n_ev; j++) {
			const char *d = nr->devs[t->ev[j].dev].name;

			if (t->ev[j].type != NETRX_EV_RX)
				continue;
			on_b += !strcmp(d, "ethB");
			on_a += !strcmp(d, "ethA");
		}
	}
	assert_int_equal(on_b, 206);
	assert_int_equal(on_a, 1);
	assert_int_equal(dev(nr, "ethB")->rx_skbs, 206);
	assert_int_equal(nr->rx_outside_softirq, 0);
	assert_int_equal(nr->n_trees, nr->receive_trees);
	netrx_free(nr);
}

/* Polls = napi:napi_poll records; budget exhaustion = records with work == budget. */
static void test_netrx__polls_and_budget_exhaustion_match_the_records(void **state)
{
	static const struct {
		const char *run;
		uint64_t polls, exhausted, softirqs;
	} want[] = {
		/* grep -c ' napi_poll:', awk '$(NF-2) == $NF', grep -c 'softirq_entry: *vec=3' */
		{ "udp-path", 210, 0, 208 },
		{ "tcp-rr", 619, 0, 610 },
		{ "tcp-stream", 267, 96, 126 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		struct netrx *nr = read_ok(want[i].run, NETRX_FIRST, 0);
		uint64_t polls = 0, exhausted = 0;

		assert_int_equal(nr->polls, want[i].polls);
		assert_int_equal(nr->budget_exhausted, want[i].exhausted);
		assert_int_equal(nr->softirqs, want[i].softirqs);
		assert_int_equal(nr->softirqs_irq + nr->softirqs_repoll + nr->softirqs_other +
					 nr->softirqs_unraised,
				 nr->softirqs);
		for (size_t d = 0; d < nr->n_devs; d++) {
			polls += nr->devs[d].polls;
			exhausted += nr->devs[d].budget_exhausted;
		}
		assert_int_equal(polls, nr->polls);
		assert_int_equal(exhausted, nr->budget_exhausted);
		assert_int_equal(nr->poll.count, nr->polls - nr->polls_other);
		netrx_free(nr);
	}
}

/* Interrupts, softirq entry and events in time order; copies and frees after their receive. */
static void check_monotonic(const struct netrx_tree *t)
{
	uint64_t last = t->base_ts;

	for (size_t i = 0; i < t->n_irqs; i++) {
		assert_true(t->irqs[i].entry_ts >= last);
		last = t->irqs[i].entry_ts;
	}
	assert_true(t->softirq_ts >= last);
	last = t->softirq_ts;
	for (size_t i = 0; i < t->n_ev; i++) {
		const struct netrx_ev *e = &t->ev[i];

		assert_true(e->ts >= last);
		last = e->ts;
		if (e->copy_ts)
			assert_true(e->copy_ts >= e->ts);
		if (e->free)
			assert_true(e->free_ts >= e->ts && e->free_ts >= e->copy_ts);
	}
	if (t->exit_ts)
		assert_true(t->exit_ts >= last);
}

static void test_netrx__tree_offsets_are_monotonic(void **state)
{
	const char *runs[] = { "udp-path", "tcp-rr", "tcp-stream" };

	for (size_t r = 0; r < ARRAY_SIZE(runs); r++) {
		struct netrx *nr = read_ok(runs[r], NETRX_FIRST, ALL);

		assert_true(nr->n_trees > 0);
		for (size_t i = 0; i < nr->n_trees; i++) {
			check_monotonic(nr->trees[i]);
			if (i)
				assert_true(nr->trees[i]->base_ts >= nr->trees[i - 1]->base_ts);
		}
		netrx_free(nr);
	}
}

/*
 * The first receive tree of udp-path, checked against trace-cmd report: irq 27
 * at 18.780566, softirq_entry vec=3 at 18.780621, netif_receive_skb (an ARP
 * reply, 28 B) at 18.780643, consume_skb of it at 18.780827, napi_poll at
 * 18.780839.
 */
static void test_netrx__first_tree_prints_like_netdev_times(void **state)
{
	static const char want[] =
		"18.780566sec cpu=0\n"
		"  irq_entry(+0.000msec irq=27:virtio1-input.0)\n"
		"         |\n"
		"  softirq_entry(+0.055msec udp-stream)\n"
		"         |\n"
		"         |---netif_receive_skb(+0.077msec skb=ffff88800425a480 len=28 dev=ethB)\n"
		"         |            |\n"
		"         |      consume_skb(+0.261msec)\n"
		"         |\n"
		"  napi_poll_exit(+0.273msec ethB work=1/64)\n"
		"\n";
	struct netrx *nr = read_ok("udp-path", NETRX_FIRST, 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(nr->n_trees, 5);
	netrx_print_tree(nr, nr->trees[0], f);
	fclose(f);
	assert_string_equal(buf, want);
	free(buf);
	netrx_free(nr);
}

/* A copy to user space is shown with the receiving task (udp_recv_skb for UDP). */
static void test_netrx__copy_names_the_receiving_task(void **state)
{
	struct netrx *nr = read_ok("udp-path", NETRX_FIRST, 0);
	const struct netrx_ev *e = &nr->trees[2]->ev[0];

	/* 18.781149 netif_receive_skb ...c680, 18.781349 udp_recv_skb by udp-stream-99 */
	assert_int_equal(e->type, NETRX_EV_RX);
	assert_int_equal(e->skb, 0xffff88800424c680ull);
	assert_string_equal(e->copy_event, "udp_recv_skb");
	assert_int_equal(e->pid, 99);
	assert_string_equal(e->comm, "udp-stream");
	assert_in_range(e->copy_ts - e->ts, 199000, 201000);
	/* ... in ksoftirqd: interrupt 27 at 18.780954, softirq at 18.781121 */
	assert_string_equal(nr->trees[2]->context, "ksoftirqd/0");
	assert_in_range(nr->trees[2]->irq_softirq_ns, 166000, 168000);
	netrx_free(nr);
}

/* The worst-M selection is the top M of all trees by its key. */
static void check_worst(const char *run, enum netrx_select sel)
{
	struct netrx *all = read_ok(run, NETRX_FIRST, ALL), *worst = read_ok(run, sel, 3);
	uint64_t lowest = UINT64_MAX;
	size_t above = 0;

	assert_int_equal(worst->n_trees, 3);
	assert_int_equal(worst->receive_trees, all->receive_trees);
	for (size_t i = 0; i < 3; i++) {
		const struct netrx_tree *t = worst->trees[i];
		uint64_t k = sel == NETRX_WORST_COPY ? t->last_copy_ns : t->irq_softirq_ns;

		lowest = k < lowest ? k : lowest;
	}
	assert_true(lowest > 0);
	for (size_t i = 0; i < all->n_trees; i++) {
		const struct netrx_tree *t = all->trees[i];
		uint64_t k = sel == NETRX_WORST_COPY ? t->last_copy_ns : t->irq_softirq_ns;

		above += k > lowest;
	}
	assert_true(above < 3);
	netrx_free(all);
	netrx_free(worst);
}

static void test_netrx__around_worst_keeps_the_worst_trees(void **state)
{
	check_worst("udp-path", NETRX_WORST_COPY);
	check_worst("udp-path", NETRX_WORST_SOFTIRQ);
	check_worst("tcp-rr", NETRX_WORST_COPY);
	check_worst("tcp-stream", NETRX_WORST_SOFTIRQ);
}

/* TX: every net_dev_xmit (208 in udp-path, 206 on ethA) with qdisc, device and free times. */
static void test_netrx__tx_table_follows_each_transmit(void **state)
{
	struct netrx *nr = read_ok("udp-path", NETRX_FIRST, 0);
	const struct netrx_dev *a = dev(nr, "ethA");

	assert_int_equal(nr->tx_packets, 208);
	assert_int_equal(a->tx_packets, 206);
	assert_int_equal(nr->tx_qdisc.count, 208);
	assert_int_equal(nr->tx_free.count, 208);
	assert_int_equal(nr->n_tx, 5);
	/* 17.981046 net_dev_queue ethB, 17.981054 start_xmit, 17.981088 xmit, 17.981925 consume */
	assert_string_equal(nr->devs[nr->tx[0].dev].name, "ethB");
	assert_int_equal(nr->tx[0].len, 70);
	assert_true(nr->tx[0].freed);
	assert_in_range(nr->tx[0].qdisc_ns, 7000, 9000);
	assert_in_range(nr->tx[0].dev_ns, 33000, 35000);
	assert_in_range(nr->tx[0].free_ns, 836000, 838000);
	netrx_free(nr);
}

static void test_netrx__dev_filter_keeps_matching_trees(void **state)
{
	struct netrx_opts o = { .n = ALL, .dev = "ethA" };
	struct netrx *nr = NULL;
	char *err = NULL;

	assert_int_equal(netrx_read(RUNS "udp-path/files/trace.dat", &o, &nr, &err), 0);
	/* The one softirq that received on ethA (and polled ethB in it). */
	assert_int_equal(nr->n_trees, 1);
	assert_int_equal(nr->polls, 210);
	netrx_free(nr);
}

static void test_netrx__metrics_carry_the_aggregates(void **state)
{
	struct netrx *nr = read_ok("tcp-stream", NETRX_FIRST, 0);
	struct metrics *m = metrics_new();
	double v;

	netrx_metrics(nr, m);
	assert_true(metrics_get(m, "netrx.polls", &v) && v == 267);
	assert_true(metrics_get(m, "netrx.budget_exhausted", &v) && v == 96);
	assert_true(metrics_get(m, "netrx.dev.ethB.budget_exhausted", &v) && v == 96);
	assert_true(metrics_get(m, "netrx.dev.ethA.polls", &v) && v == 76);
	assert_true(metrics_get(m, "netrx.frames_per_poll.mean", &v) && v > 25 && v < 26);
	assert_true(metrics_get(m, "netrx.irq_softirq.p99_us", &v) &&
		    v == nr->irq_softirq.p99 / 1e3);
	assert_true(metrics_get(m, "netrx.poll.p99_us", NULL));
	assert_true(metrics_get(m, "netrx.rx_copy.p99_us", NULL));
	assert_true(metrics_get(m, "tx.qdisc.p99_us", NULL));
	assert_true(metrics_get(m, "tx.dev.p99_us", NULL));
	assert_true(metrics_get(m, "tx.free.p99_us", NULL));
	metrics_free(m);
	netrx_free(nr);
}

/* The text report holds the trees and the aggregate tables. */
static void test_netrx__print_shows_trees_and_tables(void **state)
{
	struct netrx *nr = read_ok("tcp-stream", NETRX_WORST_SOFTIRQ, 2);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	netrx_print(nr, f);
	fclose(f);
	assert_non_null(strstr(buf, "the worst irq -> softirq entry 2 of 124 receive softirqs"));
	assert_non_null(strstr(buf, "96 used the whole budget (36.0%)"));
	assert_non_null(strstr(buf, "irq -> softirq entry"));
	assert_non_null(strstr(buf, "RX per device"));
	assert_non_null(strstr(buf, "TX per device"));
	free(buf);
	netrx_free(nr);
}

/* A copy of a run's trace cut to `len` bytes, or `len` bytes of junk, in a temp file. */
static char *bad_file(const char *run, size_t len)
{
	char *src = run ? xasprintf(RUNS "%s/files/trace.dat", run) : NULL;
	char *path = bad_trace_file(src, len, "netrx");

	free(src);
	return path;
}

static void expect_bad(char *path, int want, const char *needle, bool tmp)
{
	struct netrx *nr = (struct netrx *)1;
	char *err = NULL;

	assert_int_equal(netrx_read(path, NULL, &nr, &err), want);
	assert_null(nr);
	assert_non_null(err);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "\nhint: "));
	if (!strstr(err, needle))
		print_error("'%s' not in: %s\n", needle, err);
	assert_non_null(strstr(err, needle));
	free(err);
	if (tmp)
		unlink(path);
	free(path);
}

static void test_netrx__bad_input_is_named_with_a_hint(void **state)
{
	expect_bad(xstrdup("/nonexistent/trace.dat"), -ENOENT, "No such file", false);
	expect_bad(bad_file(NULL, 0), -EINVAL, "empty", true);
	expect_bad(bad_file(NULL, 4096), -EINVAL, "not a trace.dat", true);
	/* Cut in the headers, in the kallsyms section, in the event data. */
	expect_bad(bad_file("udp-path", 100), -EINVAL, "truncated or corrupted", true);
	expect_bad(bad_file("udp-path", 200000), -EINVAL, "truncated or corrupted", true);
	expect_bad(bad_file("udp-path", 480000), -EINVAL, "truncated or corrupted", true);
}

/* rcvbuf.dat recorded only skb:kfree_skb and skb:consume_skb. */
static void test_netrx__trace_without_net_events_is_enodata(void **state)
{
	expect_bad(xstrdup(FIXTURES "/traces/rcvbuf.dat"), -ENODATA, "[trace] set", false);
}

/*
 * NET_RX per CPU: every softirq and every receive tree counted on its CPU;
 * time in them no longer than the trace, and with softirq_exit (tcp-rr) at
 * least the sum of the selected trees' entry -> exit.
 */
static void test_netrx__per_cpu_adds_up(void **state)
{
	const char *const runs[] = { "tcp-rr", "lean-udp" };

	for (size_t k = 0; k < ARRAY_SIZE(runs); k++) {
		struct netrx *nr = read_ok(runs[k], NETRX_FIRST, ALL);
		uint64_t softirqs = 0, receive = 0, time = 0, trees = 0;

		assert_non_null(nr->per_cpu);
		for (int c = 0; c < nr->cpus; c++) {
			softirqs += nr->per_cpu[c].softirqs;
			receive += nr->per_cpu[c].receive;
			time += nr->per_cpu[c].time_ns;
		}
		assert_int_equal(softirqs, nr->softirqs);
		assert_int_equal(receive, nr->receive_trees);
		assert_true(time > 0 && time <= nr->last_ts - nr->t0);
		assert_int_equal(nr->time_exact, k == 0);
		for (size_t i = 0; i < nr->n_trees; i++)
			if (nr->trees[i]->exit_ts)
				trees += nr->trees[i]->exit_ts - nr->trees[i]->softirq_ts;
		assert_true(trees <= time);
		netrx_free(nr);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_netrx__udp_path_matches_golden_json),
		cmocka_unit_test(test_netrx__tcp_rr_matches_golden_json),
		cmocka_unit_test(test_netrx__per_cpu_adds_up),
		cmocka_unit_test(test_netrx__tcp_stream_matches_golden_json),
		cmocka_unit_test(test_netrx__lean_udp_matches_golden_json),
		cmocka_unit_test(test_netrx__exits_are_not_needed),
		cmocka_unit_test(test_netrx__every_receive_is_in_a_tree),
		cmocka_unit_test(test_netrx__polls_and_budget_exhaustion_match_the_records),
		cmocka_unit_test(test_netrx__tree_offsets_are_monotonic),
		cmocka_unit_test(test_netrx__first_tree_prints_like_netdev_times),
		cmocka_unit_test(test_netrx__copy_names_the_receiving_task),
		cmocka_unit_test(test_netrx__around_worst_keeps_the_worst_trees),
		cmocka_unit_test(test_netrx__tx_table_follows_each_transmit),
		cmocka_unit_test(test_netrx__dev_filter_keeps_matching_trees),
		cmocka_unit_test(test_netrx__metrics_carry_the_aggregates),
		cmocka_unit_test(test_netrx__print_shows_trees_and_tables),
		cmocka_unit_test(test_netrx__bad_input_is_named_with_a_hint),
		cmocka_unit_test(test_netrx__trace_without_net_events_is_enodata),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
