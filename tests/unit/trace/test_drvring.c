// SPDX-License-Identifier: GPL-2.0
/*
 * The driver rings (drvring) on the e1000e receive runs recorded with the
 * driver-patched kernel (fixtures/runs/drv-e1000e-rx-{default,80}): golden
 * JSON, and facts counted by hand with
 *	trace-cmd report -i FILE | grep 'netlab_drv: e1000e ethB ...'
 * then the literal lines of fixtures/drvlines for the three drivers, lines
 * made up to drive the ring low, and bad input.
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

#include "trace/drvring.h"
#include "lib/metrics.h"
#include "golden.h"
#include "lib/util.h"

#ifndef FIXTURES
#define FIXTURES "tests/unit/fixtures"
#endif
#define RUNS FIXTURES "/runs/"
#define MS 1000000ull

/* The run's metrics.json, as the report passes it. */
static struct metrics *run_metrics(const char *run)
{
	char *path = xasprintf(RUNS "%s/metrics.json", run);
	struct json_object *o = json_object_from_file(path);
	struct metrics *m = metrics_new();

	assert_non_null(o);
	assert_true(metrics_add_json(m, NULL, o) > 0);
	json_object_put(o);
	free(path);
	return m;
}

static struct drvring *read_run(const char *run, const struct metrics *counters)
{
	struct drvring_opts o = { .counters = counters };
	struct drvring *d = NULL;
	char *path = xasprintf(RUNS "%s/files/trace.dat", run), *err = NULL;
	int ret = drvring_read(path, &o, &d, &err);

	if (ret)
		print_error("%s: %d %s\n", path, ret, err ? err : "");
	assert_int_equal(ret, 0);
	assert_non_null(d);
	assert_null(err);
	free(path);
	return d;
}

static const struct drvring_queue *queue(const struct drvring *d, const char *ifname, int q)
{
	for (size_t i = 0; i < d->n_queues; i++)
		if (!strcmp(d->queues[i].ifname, ifname) && d->queues[i].q == q)
			return &d->queues[i];
	fail_msg("no queue %s q%d", ifname, q);
	return NULL;
}

static const struct drvring_nic *nic(const struct drvring *d, const char *ifname)
{
	for (size_t i = 0; i < d->n_nics; i++)
		if (!strcmp(d->nics[i].ifname, ifname))
			return &d->nics[i];
	fail_msg("no NIC %s", ifname);
	return NULL;
}

/* ---- golden ---------------------------------------------------------------------- */

static void golden(const char *run)
{
	struct metrics *m = run_metrics(run);
	struct drvring *d = read_run(run, m);
	char *exp_path = xasprintf(RUNS "%s/drvring.expected.json", run);

	golden_check(drvring_to_json(d), run, exp_path);
	free(exp_path);
	drvring_free(d);
	metrics_free(m);
}

static void test_drvring__rx_default_matches_golden_json(void **state)
{
	golden("drv-e1000e-rx-default");
}

static void test_drvring__rx_80_matches_golden_json(void **state)
{
	golden("drv-e1000e-rx-80");
}

/* ---- facts counted by hand ----------------------------------------------------------- */

struct facts {
	const char *run;
	unsigned int ring;
	uint64_t lines, poll_starts, budget_hits, irqs_rx, irqs_tx, rx_desc, refills;
};

/*
 * grep -c netlab_drv; 'ethB poll_start'; poll_end with work=64 budget=64;
 * 'ethB irq.*dir=rx' and dir=tx; 'ethB rx_desc'; 'ethB rx_refill' (all ring=N).
 * At most 16 rx_desc lines between two refills (e1000e refills every 16 in
 * its clean loop), and each refill leaves fill=ring-1: fill stays in
 * [ring-17, ring-1].
 */
static const struct facts runs[] = {
	{ "drv-e1000e-rx-80", 80, 9725, 532, 1, 531, 3, 1657, 528 },
	{ "drv-e1000e-rx-default", 256, 9756, 476, 2, 474, 1, 1738, 469 },
};

static void test_drvring__counts_match_trace_cmd_report(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(runs); i++) {
		const struct facts *f = &runs[i];
		struct drvring *d = read_run(f->run, NULL);
		const struct drvring_queue *q = queue(d, "ethB", 0);

		assert_int_equal(d->lines, f->lines);
		assert_int_equal(d->bad_lines, 0);
		assert_int_equal(d->unknown_events, 0);
		assert_string_equal(q->driver, "e1000e");
		assert_int_equal(q->s.polls, f->poll_starts);
		assert_int_equal(q->s.poll_ends, f->poll_starts);
		assert_int_equal(q->s.budget_exhausted, f->budget_hits);
		assert_int_equal(q->s.irqs, f->irqs_rx);
		assert_int_equal(q->s.irqs_tx, f->irqs_tx);
		assert_int_equal(q->s.rx_desc, f->rx_desc);
		assert_int_equal(q->s.rx_handoffs, f->rx_desc);
		assert_int_equal(q->s.rx_desc_no_handoff, 0);
		assert_int_equal(q->s.refills, f->refills);
		assert_int_equal(q->s.refill_failures, 0);
		/* the ring= key, and the fill bounds */
		assert_int_equal(q->s.rx_ring, f->ring);
		assert_int_equal(q->s.fill.ring, f->ring);
		assert_true(q->s.fill.max < f->ring);
		assert_int_equal(q->s.fill.max, f->ring - 1);
		assert_int_equal(q->s.fill.min, f->ring - 17);
		for (size_t b = 0; b < q->fill.n; b++)
			assert_true(q->fill.b[b].min > q->fill.b[b].max ||
				    q->fill.b[b].max < f->ring);
		/* nothing ran low: QEMU holds frames while the ring is full of work */
		assert_int_equal(q->s.low_episodes, 0);
		assert_int_equal(q->s.refills_low, 0);
		/* copybreak copies only the few small frames (ARP, IPv6) */
		assert_true(q->s.desc_stack_copied < 10);
		assert_int_equal(q->s.desc_stack_ns.count, f->rx_desc);
		/* virtio_net A sent every frame B received, and completed them */
		assert_int_equal(queue(d, "ethA", 0)->s.xmits, f->rx_desc);
		assert_int_equal(queue(d, "ethA", 0)->s.tx_done, f->rx_desc);
		assert_false(queue(d, "ethA", 0)->s.inflight_skbs);
		drvring_free(d);
	}
}

/*
 * The same receive path on a kernel whose lines are tracepoints (system
 * netlab_drv; fixtures/runs/drv-tp-e1000e-rx, UDP 1000 B at 1000 pps into
 * e1000e B), read as the trace_printk lines are. Counted with
 * trace-cmd report -i FILE: grep -c 'netlab_drv: ' 13108; 'e1000e ethB
 * poll_start' 2014 and poll_end 2014, none with work=64; 'ethB irq.*dir=rx'
 * 2014, dir=tx 8; 'ethB rx_desc', rx_handoff and rx_refill 1006 each, every
 * refill ring=256 fill=255; 'virtio_net ethA xmit' and tx_done 1006 each.
 */
static void test_drvring__tracepoint_lines_read_as_printk_lines(void **state)
{
	struct drvring *d = read_run("drv-tp-e1000e-rx", NULL);
	const struct drvring_queue *q = queue(d, "ethB", 0);

	assert_int_equal(d->lines, 13108);
	assert_int_equal(d->bad_lines, 0);
	assert_int_equal(d->unknown_events, 0);
	assert_int_equal(d->probe_events, 0);
	assert_string_equal(q->driver, "e1000e");
	assert_int_equal(q->s.polls, 2014);
	assert_int_equal(q->s.poll_ends, 2014);
	assert_int_equal(q->s.budget_exhausted, 0);
	assert_int_equal(q->s.irqs, 2014);
	assert_int_equal(q->s.irqs_tx, 8);
	assert_int_equal(q->s.rx_desc, 1006);
	assert_int_equal(q->s.rx_handoffs, 1006);
	assert_int_equal(q->s.rx_desc_no_handoff, 0);
	assert_int_equal(q->s.refills, 1006);
	assert_int_equal(q->s.rx_ring, 256);
	/* one descriptor per poll: rx_desc takes fill to 254, the refill back to 255 */
	assert_int_equal(q->s.fill.max, 255);
	assert_int_equal(q->s.fill.min, 254);
	assert_string_equal(queue(d, "ethA", 0)->driver, "virtio_net");
	assert_int_equal(queue(d, "ethA", 0)->s.xmits, 1006);
	assert_int_equal(queue(d, "ethA", 0)->s.tx_done, 1006);
	drvring_free(d);
}

/*
 * Ring 80 against 256, same traffic (UDP 1000 B at 2000 pps): the smaller
 * ring is fuller in relative terms only at its top (fill is ring-1 after
 * each refill in both), it spends less time in its top eighth (85% vs 100%),
 * and NAPI polls more often per packet with less work per poll. Neither
 * ring ran low.
 */
static void test_drvring__ring_80_against_256(void **state)
{
	struct drvring *a = read_run("drv-e1000e-rx-80", NULL);
	struct drvring *b = read_run("drv-e1000e-rx-default", NULL);
	const struct drvring_stats *s80 = &nic(a, "ethB")->s, *s256 = &nic(b, "ethB")->s;
	double top80 = (double)s80->fill.bin_ns[DRVRING_OCC_BINS - 1] / (double)s80->fill.ns;
	double top256 = (double)s256->fill.bin_ns[DRVRING_OCC_BINS - 1] / (double)s256->fill.ns;

	assert_true(s80->fill.mean < s256->fill.mean);
	assert_true(s80->fill.mean / 80 < s256->fill.mean / 256);
	assert_true(top80 < 0.9 && top80 > 0.8);
	assert_true(top256 > 0.999);
	assert_true((double)s80->polls / (double)s80->rx_handoffs >
		    (double)s256->polls / (double)s256->rx_handoffs);
	assert_true(s80->work.mean < s256->work.mean);
	assert_int_equal(s80->low_episodes, 0);
	assert_int_equal(s256->low_episodes, 0);
	drvring_free(a);
	drvring_free(b);
}

/* The run's ethtool counters land on NIC B (ethB); metrics under drv.ethB. */
static void test_drvring__counters_and_metrics(void **state)
{
	struct metrics *m = run_metrics("drv-e1000e-rx-80"), *out = metrics_new();
	struct drvring *d = read_run("drv-e1000e-rx-80", m);
	const struct drvring_nic *n = nic(d, "ethB");
	double v;

	assert_true(n->counters);
	assert_string_equal(n->label, "B");
	assert_true(n->rx_no_buffer_count == 0);
	assert_true(n->rx_missed_errors == 0);
	assert_true(n->alloc_rx_buff_failed == 0);
	assert_true(n->ethtool_rx_ring == 80);
	drvring_metrics(d, out);
	assert_true(metrics_get(out, "drv.lines", &v) && v == 9725);
	assert_true(metrics_get(out, "drv.ethB.rx.fill.min", &v) && v == 63);
	assert_true(metrics_get(out, "drv.ethB.rx.fill.max", &v) && v == 79);
	assert_true(metrics_get(out, "drv.ethB.rx.ring", &v) && v == 80);
	assert_true(metrics_get(out, "drv.ethB.rx.low_episodes", &v) && v == 0);
	assert_true(metrics_get(out, "drv.ethB.rx.refill_failures", &v) && v == 0);
	assert_true(metrics_get(out, "drv.ethB.napi.polls", &v) && v == 532);
	assert_true(metrics_get(out, "drv.ethB.napi.budget_exhausted", &v) && v == 1);
	assert_true(metrics_get(out, "drv.ethB.napi.irq_poll.p99_us", &v) && v > 0);
	assert_true(metrics_get(out, "drv.ethB.napi.desc_stack.p50_us", &v) && v > 0);
	assert_true(metrics_get(out, "drv.ethA.tx.inflight.max", &v) && v > 0);
	/* ethtool's ring.<LABEL>.* family stays the caller's */
	for (size_t i = 0; i < metrics_count(out); i++) {
		const char *name;

		metrics_at(out, i, &name, &v);
		assert_int_equal(strncmp(name, "drv.", 4), 0);
	}
	drvring_free(d);
	metrics_free(m);
	metrics_free(out);
}

/* ---- literal lines of each driver (fixtures/drvlines) ---------------------------------- */

/* Feed a text trace ("task-pid [cpu] flags ts: func: netlab_drv: ..."). */
static struct drvring *feed_file(const char *name, size_t *n_drv)
{
	char *path = xasprintf(FIXTURES "/drvlines/%s", name), *data = NULL, *save = NULL;
	struct drvring *d = drvring_new(NULL);

	assert_non_null(d);
	assert_int_equal(file_read(path, &data, NULL), 0);
	*n_drv = 0;
	for (char *line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *cpu = strchr(line, '['), *p = strchr(line, ']'), *tok, *s2 = NULL;
		double ts = -1;
		int ret;

		if (!cpu || !p)
			continue;
		for (tok = strtok_r(p + 1, " ", &s2); tok && ts < 0; tok = strtok_r(NULL, " ", &s2))
			if (tok[strlen(tok) - 1] == ':' && tok[0] >= '0' && tok[0] <= '9')
				ts = strtod(tok, NULL);
		assert_true(ts > 0);
		ret = drvring_feed(d, (uint64_t)(ts * 1e9 + 0.5), atoi(cpu + 1), s2);
		if (ret != -ENOENT) {
			assert_int_equal(ret, 0);
			(*n_drv)++;
		}
	}
	assert_int_equal(drvring_finish(d), 0);
	free(data);
	free(path);
	return d;
}

static void test_drvring__drvlines_of_three_drivers_parse(void **state)
{
	size_t n;
	struct drvring *d = feed_file("e1000e.txt", &n);
	const struct drvring_queue *q = queue(d, "ethA", 0);

	/* grep -c 'netlab_drv:' */
	assert_int_equal(n, 35);
	assert_int_equal(d->lines, 35);
	assert_int_equal(d->bad_lines, 0);
	assert_string_equal(q->driver, "e1000e");
	assert_int_equal(q->s.rx_desc, 6);
	assert_int_equal(q->s.rx_handoffs, 5);
	assert_int_equal(q->s.refills, 3);
	assert_int_equal(q->s.rx_ring, 256);
	assert_true(q->s.desc_stack_copied > 0); /* ping under copybreak */
	assert_false(q->fill_estimated);
	assert_int_equal(q->s.xmits, 3);
	assert_int_equal(q->s.tx_ring, 256);
	assert_false(q->s.inflight_skbs);
	drvring_free(d);

	d = feed_file("e1000.txt", &n);
	q = queue(d, "ethA", 0);
	assert_int_equal(n, 37);
	assert_int_equal(d->bad_lines, 0);
	assert_string_equal(q->driver, "e1000");
	assert_int_equal(q->s.irqs, 5); /* kind=legacy, no dir: receive */
	assert_int_equal(q->s.polls, 5);
	assert_int_equal(q->s.rx_desc, 4);
	assert_int_equal(q->s.refills, 3);
	assert_int_equal(q->s.xmits, 5);
	assert_int_equal(q->s.tx_done, 3);
	assert_true(q->s.fill.changes > 0);
	drvring_free(d);

	d = feed_file("virtio_net.txt", &n);
	q = queue(d, "ethB", 0);
	assert_int_equal(n, 26);
	assert_int_equal(d->bad_lines, 0);
	assert_string_equal(q->driver, "virtio_net");
	assert_int_equal(q->s.rx_desc, 0);
	assert_int_equal(q->s.rx_handoffs, 3);
	assert_true(q->fill_estimated);
	assert_int_equal(q->s.refills, 1);
	assert_int_equal(q->s.rx_ring, 256);
	assert_int_equal(q->s.irqs, 3); /* dir=rx */
	assert_int_equal(q->s.irqs_tx, 3);
	assert_int_equal(q->s.xmits, 3);
	assert_false(q->s.inflight_skbs); /* ring - free */
	assert_int_equal(q->s.inflight.max, 1);
	drvring_free(d);
}

static void test_drvring__line_parse_keys(void **state)
{
	struct drvring_line l;

	assert_int_equal(
		drvring_line_parse(
			"netlab_rx_refill: netlab_drv: e1000e ethB rx_refill q=0 alloc=1 fail=0 ntu=2 ntc=3 ring=80 fill=79 want=1",
			&l),
		0);
	assert_string_equal(l.driver, "e1000e");
	assert_string_equal(l.ifname, "ethB");
	assert_int_equal(l.event, DRVRING_RX_REFILL);
	assert_int_equal(l.v[DRVRING_K_FILL], 79);
	assert_int_equal(l.v[DRVRING_K_RING], 80);
	assert_int_equal(l.v[DRVRING_K_NTU], 2);
	assert_true(l.has & (1u << DRVRING_K_WANT));
	assert_false(l.has & (1u << DRVRING_K_FREE));
	/* libtraceevent's %px, status in hex, an unknown key */
	assert_int_equal(
		drvring_line_parse(
			"netlab_drv: e1000e ethB rx_desc q=0 idx=2 status=0x20073 len=1042 skb=0xffff8880024e6c00x new=1",
			&l),
		0);
	assert_int_equal(l.v[DRVRING_K_SKB], 0xffff8880024e6c00ull);
	assert_int_equal(l.v[DRVRING_K_STATUS], 0x20073);
	assert_int_equal(drvring_line_parse(
				 "netlab_drv: virtio_net ethB irq kind=vring vec=1 q=0 dir=tx", &l),
			 0);
	assert_int_equal(l.event, DRVRING_IRQ);
	assert_int_equal(l.v[DRVRING_K_DIR], 1);
	/* a newer event parses, as unknown */
	assert_int_equal(drvring_line_parse("netlab_drv: e1000e ethB rx_frob q=0 x=y", &l), 0);
	assert_int_equal(l.event, DRVRING_UNKNOWN);
	/* not ours */
	assert_int_equal(drvring_line_parse("e1000e: link up", &l), -ENOENT);
	assert_int_equal(drvring_line_parse("xnetlab_drv: e1000e ethB irq", &l), -ENOENT);
	/* malformed */
	assert_int_equal(drvring_line_parse("netlab_drv: e1000e ethB", &l), -EINVAL);
	assert_int_equal(drvring_line_parse("netlab_drv: e1000e ethB rx_refill q=0 ring=80", &l),
			 -EINVAL);
	assert_int_equal(
		drvring_line_parse("netlab_drv: e1000e ethB poll_end q=0 work=x budget=64", &l),
		-EINVAL);
	assert_int_equal(drvring_line_parse("netlab_drv: e1000e ethB poll_start q=0 budget", &l),
			 -EINVAL);
	assert_int_equal(drvring_line_parse("netlab_drv: e1000e ethB irq dir=up", &l), -EINVAL);
	assert_int_equal(
		drvring_line_parse("netlab_drv: e1000e ethB rx_handoff q=0 skb=ffff8880024e6c00x",
				   &l),
		-EINVAL);
}

/* ---- made-up lines: a ring that runs low ---------------------------------------------- */

#include "drvring-feed.h"

/*
 * Ring 32 (low mark 4), refilled to 31, then descriptors cleaned one per
 * 10 us in a poll: fill reaches 3 at the 28th. A refill that fails leaves
 * it at 1; a good one lifts it. A second, deeper episode follows.
 */
static void drain(struct drvring *d, uint64_t *t, unsigned int *idx, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		*t += 10000;
		feed(d, *t, E "rx_desc q=0 idx=%u status=0x3 len=64 skb=ffff888000001000",
		     *idx % 32);
		*t += 1000;
		feed(d, *t, E "rx_handoff q=0 skb=ffff888000001000 len=50");
		(*idx)++;
	}
}

static void test_drvring__low_episodes_record_the_ring_before(void **state)
{
	struct drvring_opts o = { .empty_fill = 1, .episodes = 1 };
	struct drvring *d = drvring_new(&o);
	const struct drvring_queue *q;
	const struct drvring_episode *e;
	uint64_t t = 1000 * MS;
	unsigned int idx = 0;

	assert_non_null(d);
	feed(d, t, E "rx_refill q=0 alloc=31 fail=0 ntu=31 ntc=0 ring=32 fill=31 want=31");
	t += 500000;
	feed(d, t, E "irq kind=msix vec=0 irqn=29 dir=rx");
	t += 100000;
	feed(d, t, E "poll_start q=0 budget=64");
	drain(d, &t, &idx, 30); /* fill 31 -> 1 */
	t += 5000;
	/* ntu 31, ntc 30: the refill got nothing */
	feed(d, t, E "rx_refill q=0 alloc=0 fail=1 ntu=31 ntc=30 ring=32 fill=1 want=30");
	feed(d, t + 1000, E "poll_end q=0 work=30 budget=64 repoll=0");
	t += 2 * MS;
	feed(d, t, E "rx_refill q=0 alloc=30 fail=0 ntu=29 ntc=30 ring=32 fill=31 want=30");
	/* the second episode goes to 0 */
	t += MS;
	feed(d, t, E "poll_start q=0 budget=64");
	idx = 30;
	drain(d, &t, &idx, 31);
	feed(d, t + 1000, E "poll_end q=0 work=31 budget=64 repoll=0");
	assert_int_equal(drvring_finish(d), 0);

	q = queue(d, "ethX", 0);
	assert_int_equal(q->s.refills, 3);
	assert_int_equal(q->s.refill_failures, 1);
	assert_int_equal(q->s.refills_low, 1);
	assert_int_equal(q->s.low_episodes, 2);
	assert_int_equal(q->s.empty_episodes, 2);
	assert_int_equal(q->s.fill.min, 0);
	assert_int_equal(q->s.fill.max, 31);
	assert_int_equal(q->s.polls, 2);
	assert_int_equal(q->s.irq_poll_ns.count, 1);
	assert_int_equal(q->s.irq_poll_ns.p50, 100000);
	assert_int_equal(q->s.desc_stack_ns.count, 61);
	assert_int_equal(q->s.desc_stack_ns.max, 1000);

	/* the first: began at the 28th descriptor, 28 * 11 us after the refill */
	assert_int_equal(q->n_first, 1);
	e = &q->first[0];
	assert_int_equal(e->ring, 32);
	assert_int_equal(e->low_mark, 4);
	assert_int_equal(e->fill_before, 4);
	assert_int_equal(e->min_fill, 1);
	assert_true(e->empty);
	assert_false(e->by_refill);
	assert_true(e->refill_seen);
	assert_false(e->refill_failed);
	assert_int_equal(e->descs_since_refill, 28);
	assert_int_equal(e->since_refill_ns, 600000 + 27 * 11000 + 10000);
	assert_true(e->in_poll);
	assert_true(e->irq_seen);
	assert_int_equal(e->since_irq_ns, 100000 + 27 * 11000 + 10000);
	assert_true(e->end_ts > e->ts);
	/* the worst reached 0 */
	assert_int_equal(q->n_worst, 1);
	assert_int_equal(q->worst[0].min_fill, 0);
	assert_true(q->worst[0].ts > e->ts);
	assert_int_equal(q->worst[0].end_ts, 0); /* still empty at the end */
	drvring_free(d);
}

/* A 5 s trace in 100 buckets: the 10 ms width doubles to 80 ms; levels stay within. */
static void test_drvring__series_stays_bounded(void **state)
{
	struct drvring *d = drvring_new(NULL);
	const struct drvring_queue *q;
	uint64_t t0 = 2000 * MS;

	assert_non_null(d);
	for (unsigned int i = 0; i <= 500; i++)
		feed(d, t0 + i * 10 * MS,
		     E "rx_refill q=0 alloc=1 fail=0 ntu=%u ntc=%u ring=64 fill=%u want=1", i % 64,
		     (i + 1) % 64, i == 250 ? 5u : 63u);
	assert_int_equal(drvring_finish(d), 0);
	q = queue(d, "ethX", 0);
	assert_int_equal(q->fill.width_ns, 80 * MS);
	assert_true(q->fill.n <= DRVRING_SERIES);
	assert_int_equal(q->fill.n, 5000 / 80 + 1);
	/* 2500 ms falls in bucket 31 */
	assert_int_equal(q->fill.b[31].min, 5);
	assert_int_equal(q->fill.b[30].min, 63);
	assert_int_equal(q->fill.b[31].max, 63);
	assert_int_equal(q->s.low_episodes, 1);
	assert_int_equal(q->s.low_ns, 10 * MS);
	drvring_free(d);
}

/* Lines are counted, malformed ones too, and never stop the analysis; lost events reset. */
static void test_drvring__malformed_lines_and_lost_events(void **state)
{
	struct drvring *d = drvring_new(NULL);
	const struct drvring_queue *q;

	assert_non_null(d);
	assert_int_equal(drvring_feed(d, 1000, 0, "not ours"), -ENOENT);
	assert_int_equal(drvring_feed(d, 2000, 0, E "rx_refill q=0 ring=32"), -EINVAL);
	assert_int_equal(drvring_feed(d, 3000, 0, E "rx_frob q=0"), 0);
	feed(d, 4000, E "rx_refill q=0 alloc=31 fail=0 ntu=31 ntc=0 ring=32 fill=31 want=31");
	drvring_lost(d, 5000);
	/* unknown until the next refill: this descriptor changes nothing */
	feed(d, 6000, E "rx_desc q=0 idx=0 status=0x3 len=64 skb=ffff888000001000");
	feed(d, 9000, E "rx_refill q=0 alloc=1 fail=0 ntu=0 ntc=1 ring=32 fill=31 want=1");
	feed(d, 10000, E "poll_start q=0 budget=64");
	assert_int_equal(drvring_finish(d), 0);
	assert_int_equal(d->lines, 6);
	assert_int_equal(d->bad_lines, 1);
	assert_non_null(strstr(d->bad_example, "rx_refill q=0 ring=32"));
	assert_int_equal(d->unknown_events, 1);
	q = queue(d, "ethX", 0);
	assert_int_equal(q->s.fill.min, 31);
	assert_int_equal(q->s.fill.ns, 1000 + 1000); /* 4000-5000 and 9000-10000 */
	assert_int_equal(q->s.refills, 2);
	drvring_free(d);
}

/* ---- descriptors without a hand-off -------------------------------------------------- */

#define EB "netlab_drv: e1000e ethB "
#define EC "netlab_drv: e1000 ethC "
#define SKB "skb=ffff888000002000"

/* @n rx_desc lines on @drv's queue @q, each handed off when @handed. */
static void descs(struct drvring *d, uint64_t *t, const char *drv, int q, unsigned int n,
		  unsigned int len, unsigned int status, bool handed)
{
	for (unsigned int i = 0; i < n; i++) {
		*t += 1000;
		feed(d, *t, "%srx_desc q=%d idx=%u status=0x%x len=%u " SKB, drv, q, i, status,
		     len);
		if (handed)
			feed(d, *t + 100, "%srx_handoff q=%d " SKB " len=%u", drv, q, len - 14);
	}
}

/*
 * e1000e ethB, two queues: q0 hands up 3 of 60 B and not 5 of 1514 B
 * (status 0x7; the last closed by its poll's end); q1 hands up 4 of 74 B
 * and not 2 of 1000 B (0x3) and 3 of 1514 B (the last closed by the trace's
 * end). e1000 ethC: 4 of 1514 B not handed up, 60 and 74 B were.
 */
static struct drvring *noho_trace(void)
{
	struct drvring *d = drvring_new(NULL);
	uint64_t t = 1000 * MS;

	assert_non_null(d);
	feed(d, t, EB "poll_start q=0 budget=64");
	descs(d, &t, EB, 0, 3, 60, 0x3, true);
	descs(d, &t, EB, 0, 5, 1514, 0x7, false);
	feed(d, t += 1000, EB "poll_end q=0 work=3 budget=64 repoll=0");
	descs(d, &t, EC, 0, 1, 60, 0x3, true);
	descs(d, &t, EC, 0, 4, 1514, 0x7, false);
	descs(d, &t, EC, 0, 1, 74, 0x3, true);
	descs(d, &t, EB, 1, 4, 74, 0x3, true);
	descs(d, &t, EB, 1, 2, 1000, 0x3, false);
	descs(d, &t, EB, 1, 3, 1514, 0x7, false);
	assert_int_equal(drvring_finish(d), 0);
	return d;
}

static void assert_value(const struct drvring_value *v, uint64_t value, uint64_t count)
{
	assert_int_equal(v->v, value);
	assert_int_equal(v->count, count);
}

/* Per queue, and per NIC with the queues' tables merged by value. */
static void test_drvring__no_handoff_by_length_and_status(void **state)
{
	struct drvring *d = noho_trace();
	const struct drvring_stats *q0 = &queue(d, "ethB", 0)->s, *q1 = &queue(d, "ethB", 1)->s;
	const struct drvring_stats *b = &nic(d, "ethB")->s;

	assert_int_equal(q0->rx_desc_no_handoff, 5);
	assert_int_equal(q0->noho_len.n, 1);
	assert_value(&q0->noho_len.top[0], 1514, 5);
	assert_value(&q0->noho_status.top[0], 0x7, 5);
	assert_int_equal(q0->handoff_len.count, 3);
	assert_int_equal(q0->handoff_len.min, 60);
	assert_int_equal(q0->handoff_len.max, 60);
	assert_int_equal(q1->rx_desc_no_handoff, 5);
	assert_value(&q1->noho_len.top[0], 1514, 3);
	assert_value(&q1->noho_len.top[1], 1000, 2);
	/* the NIC: 1514 once, with both queues' counts */
	assert_int_equal(b->rx_desc_no_handoff, 10);
	assert_int_equal(b->noho_len.count, 10);
	assert_int_equal(b->noho_len.n, 2);
	assert_value(&b->noho_len.top[0], 1514, 8);
	assert_value(&b->noho_len.top[1], 1000, 2);
	assert_int_equal(b->noho_len.other, 0);
	assert_int_equal(b->noho_len.min, 1000);
	assert_int_equal(b->noho_len.max, 1514);
	assert_int_equal(b->noho_status.n, 2);
	assert_value(&b->noho_status.top[0], 0x7, 8);
	assert_value(&b->noho_status.top[1], 0x3, 2);
	assert_int_equal(b->handoff_len.count, 7);
	assert_int_equal(b->handoff_len.min, 60);
	assert_int_equal(b->handoff_len.max, 74);
	assert_int_equal(nic(d, "ethC")->s.rx_desc_no_handoff, 4);
	drvring_free(d);
}

/* Each queue's own metrics where the trace saw several (ethB), the sums kept; none for one (ethC). */
static void test_drvring__per_queue_metrics_of_a_multi_queue_nic(void **state)
{
	struct drvring *d = noho_trace();
	struct metrics *m = metrics_new();

	drvring_metrics(d, m);
	assert_true(metrics_value(m, "drv.ethB.q0.rx.descs", -1) == 8);
	assert_true(metrics_value(m, "drv.ethB.q0.rx.handoffs", -1) == 3);
	assert_true(metrics_value(m, "drv.ethB.q1.rx.descs", -1) == 9);
	assert_true(metrics_value(m, "drv.ethB.q1.rx.handoffs", -1) == 4);
	assert_true(metrics_value(m, "drv.ethB.q0.napi.polls", -1) == 1);
	assert_true(metrics_value(m, "drv.ethB.rx.descs", -1) == 17);
	assert_false(metrics_get(m, "drv.ethC.q0.rx.descs", NULL));
	metrics_free(m);
	drvring_free(d);
}

/*
 * A queue that hands up every descriptor but every 8th (positions 7, 15,
 * ...): the period, in the stats, the sentence and the metrics; one that
 * misses one more is no period.
 */
static void test_drvring__no_handoff_every_8th_is_a_period(void **state)
{
	struct drvring *d = drvring_new(NULL);
	struct metrics *m = metrics_new();
	uint64_t t = 1000 * MS;
	char *ev;

	assert_non_null(d);
	for (int i = 0; i < 64; i++)
		descs(d, &t, EB, 0, 1, 100 + i, 0x3, i % 8 != 7);
	for (int i = 0; i < 40; i++)
		descs(d, &t, EC, 0, 1, 100 + i, 0x3, i % 8 != 7 && i != 3);
	assert_int_equal(drvring_finish(d), 0);
	assert_int_equal(queue(d, "ethB", 0)->s.rx_desc_no_handoff, 8);
	assert_int_equal(nic(d, "ethB")->s.noho_period, 8);
	assert_int_equal(nic(d, "ethB")->s.noho_phase, 7);
	assert_int_equal(nic(d, "ethC")->s.noho_period, 0);
	ev = drvring_nic_evidence(nic(d, "ethB"));
	assert_non_null(strstr(ev, "; every 8th descriptor (positions 7 mod 8), no other"));
	free(ev);
	drvring_metrics(d, m);
	assert_true(metrics_value(m, "drv.ethB.rx.no_handoff_period", 0) == 8);
	assert_true(metrics_value(m, "drv.ethB.rx.no_handoff_phase", -1) == 7);
	assert_false(metrics_get(m, "drv.ethC.rx.no_handoff_period", NULL));
	metrics_free(m);
	drvring_free(d);
}

static struct json_object *jget(struct json_object *o, const char *path)
{
	char *p = xstrdup(path), *save = NULL;

	for (char *k = strtok_r(p, ".", &save); k; k = strtok_r(NULL, ".", &save)) {
		if (*k >= '0' && *k <= '9')
			o = json_object_array_get_idx(o, (size_t)atoi(k));
		else if (!json_object_object_get_ex(o, k, &o))
			fail_msg("no %s in %s", k, path);
	}
	free(p);
	return o;
}

static int64_t jint(struct json_object *o, const char *path)
{
	struct json_object *x = jget(o, path);

	assert_non_null(x);
	return json_object_get_int64(x);
}

static void test_drvring__no_handoff_json_text_and_metrics(void **state)
{
	struct drvring *d = noho_trace();
	struct json_object *j = drvring_to_json(d), *n = jget(j, "nics.0.rx");
	struct metrics *m = metrics_new();
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	double v;

	assert_string_equal(json_object_get_string(jget(j, "nics.0.ifname")), "ethB");
	assert_int_equal(jint(n, "no_handoff.count"), 10);
	assert_int_equal(jint(n, "no_handoff.len.min"), 1000);
	assert_int_equal(jint(n, "no_handoff.len.max"), 1514);
	assert_int_equal(jint(n, "no_handoff.len.values.0.len"), 1514);
	assert_int_equal(jint(n, "no_handoff.len.values.0.count"), 8);
	assert_int_equal(jint(n, "no_handoff.len.values.1.len"), 1000);
	assert_int_equal(json_object_array_length(jget(n, "no_handoff.len.values")), 2);
	assert_int_equal(jint(n, "no_handoff.len.other"), 0);
	assert_false(json_object_object_get_ex(jget(n, "no_handoff.len"), "missing", NULL));
	assert_string_equal(json_object_get_string(jget(n, "no_handoff.status.values.0.status")),
			    "0x7");
	assert_int_equal(jint(n, "no_handoff.status.values.0.count"), 8);
	assert_string_equal(json_object_get_string(jget(n, "no_handoff.status.values.1.status")),
			    "0x3");
	assert_int_equal(jint(n, "handoff_len.count"), 7);
	assert_int_equal(jint(n, "handoff_len.min"), 60);
	assert_int_equal(jint(n, "handoff_len.max"), 74);
	/* per queue: ethB q0 first */
	assert_int_equal(jint(j, "queues.0.rx.no_handoff.len.values.0.count"), 5);
	assert_int_equal(jint(j, "queues.0.rx.handoff_len.max"), 60);
	json_object_put(j);

	drvring_print(d, f);
	fclose(f);
	assert_non_null(strstr(
		text,
		"\n    no hand-off: 5 descriptors, len 1514 (5); status 0x7 (5); handed off: 3, len 60..60\n"));
	assert_non_null(strstr(
		text,
		"\n    no hand-off: 5 descriptors, len 1514 (3), 1000 (2); status 0x7 (3), 0x3 (2); handed off: 4, len 74..74\n"));
	free(text);

	drvring_metrics(d, m);
	assert_true(metrics_get(m, "drv.ethB.rx.no_handoff", &v) && v == 10);
	assert_true(metrics_get(m, "drv.ethB.rx.no_handoff_len_min", &v) && v == 1000);
	assert_true(metrics_get(m, "drv.ethB.rx.no_handoff_len_max", &v) && v == 1514);
	assert_true(metrics_get(m, "drv.ethB.rx.no_handoff_len.1514", &v) && v == 8);
	assert_true(metrics_get(m, "drv.ethB.rx.no_handoff_len.1000", &v) && v == 2);
	assert_true(metrics_get(m, "drv.ethB.rx.no_handoff_status.0x7", &v) && v == 8);
	assert_true(metrics_get(m, "drv.ethB.rx.no_handoff_status.0x3", &v) && v == 2);
	assert_true(metrics_get(m, "drv.ethB.rx.handoff_len_min", &v) && v == 60);
	assert_true(metrics_get(m, "drv.ethB.rx.handoff_len_max", &v) && v == 74);
	assert_true(metrics_get(m, "drv.ethC.rx.no_handoff_len.1514", &v) && v == 4);
	metrics_free(m);
	drvring_free(d);
}

static void test_drvring__no_handoff_evidence_sentence(void **state)
{
	struct drvring *d = noho_trace();
	char *b = drvring_nic_evidence(nic(d, "ethB")), *c = drvring_nic_evidence(nic(d, "ethC"));

	assert_non_null(b);
	assert_string_equal(
		b,
		"10 descriptors completed without a hand-off by e1000e ethB: len 1514 (8), 1000 (2); status 0x7 (8), 0x3 (2); the 7 handed up were 60..74 B");
	assert_non_null(c);
	assert_string_equal(
		c,
		"4 descriptors completed without a hand-off by e1000 ethC: all 1514 B (status 0x7); the 2 handed up were 60..74 B");
	free(b);
	free(c);
	drvring_free(d);
}

/*
 * q0: 10 lengths, 100 + i seen i + 1 times: the 8 most frequent stay, the
 * other 3 descriptors in other; text and metrics take the 4 most frequent.
 * q1: DRVRING_NOHO_TRACK lengths once, then 1514 100 times: past the table,
 * in other (min and max still see it).
 */
static void test_drvring__no_handoff_values_beyond_the_table(void **state)
{
	struct drvring *d = drvring_new(NULL);
	const struct drvring_values *l;
	struct metrics *m = metrics_new();
	uint64_t t = MS;
	char *e;

	assert_non_null(d);
	for (unsigned int i = 0; i < 10; i++)
		descs(d, &t, EB, 0, i + 1, 100 + i, 0x7, false);
	for (unsigned int i = 0; i < DRVRING_NOHO_TRACK; i++)
		descs(d, &t, EB, 1, 1, 200 + i, 0x7, false);
	descs(d, &t, EB, 1, 100, 1514, 0x7, false);
	assert_int_equal(drvring_finish(d), 0);
	l = &queue(d, "ethB", 0)->s.noho_len;
	assert_int_equal(l->count, 55);
	assert_int_equal(l->n, DRVRING_NOHO_VALUES);
	assert_value(&l->top[0], 109, 10);
	assert_value(&l->top[7], 102, 3);
	assert_int_equal(l->other, 3);
	assert_int_equal(l->min, 100);
	assert_int_equal(l->max, 109);
	/* q1: its table was full when 1514 came */
	l = &queue(d, "ethB", 1)->s.noho_len;
	assert_int_equal(l->count, DRVRING_NOHO_TRACK + 100);
	assert_int_equal(l->n, DRVRING_NOHO_VALUES);
	assert_int_equal(l->other, DRVRING_NOHO_TRACK + 100 - DRVRING_NOHO_VALUES);
	assert_int_equal(l->min, 200);
	assert_int_equal(l->max, 1514);
	/* the NIC: q0's 10 and q1's first 54 fill its table */
	l = &nic(d, "ethB")->s.noho_len;
	assert_int_equal(l->count, 55 + DRVRING_NOHO_TRACK + 100);
	assert_value(&l->top[0], 109, 10);
	assert_value(&l->top[7], 102, 3);
	assert_int_equal(l->other, l->count - (10 + 9 + 8 + 7 + 6 + 5 + 4 + 3));
	assert_int_equal(l->min, 100);
	assert_int_equal(l->max, 1514);
	e = drvring_nic_evidence(nic(d, "ethB"));
	assert_string_equal(
		e,
		"219 descriptors completed without a hand-off by e1000e ethB: len 109 (10), 108 (9), 107 (8), 106 (7), others (185) (status 0x7); none was handed up");
	free(e);
	drvring_metrics(d, m);
	assert_true(metrics_get(m, "drv.ethB.rx.no_handoff_len.106", NULL));
	assert_false(metrics_get(m, "drv.ethB.rx.no_handoff_len.105", NULL));
	assert_false(metrics_get(m, "drv.ethB.rx.no_handoff_len.1514", NULL));
	metrics_free(m);
	drvring_free(d);
}

/* A clean run: nothing without a hand-off, no evidence; virtio_net counts nothing. */
static void test_drvring__clean_trace_has_no_handoff_zero(void **state)
{
	struct drvring *d = read_run("drv-e1000e-rx-80", NULL);
	const struct drvring_nic *b = nic(d, "ethB");
	struct json_object *j = drvring_to_json(d);
	struct metrics *m = metrics_new();
	double v;

	assert_int_equal(b->s.rx_desc_no_handoff, 0);
	assert_int_equal(b->s.noho_len.n, 0);
	assert_int_equal(b->s.noho_status.count, 0);
	assert_null(drvring_nic_evidence(b));
	assert_null(drvring_nic_evidence(nic(d, "ethA")));
	assert_int_equal(b->s.handoff_len.count, 1657);
	assert_int_equal(jint(j, "nics.0.rx.no_handoff.count"), 0);
	assert_null(jget(j, "nics.0.rx.no_handoff.len.min"));
	assert_string_equal(json_object_get_string(jget(j, "nics.1.ifname")), "ethA");
	assert_null(jget(j, "nics.1.rx.no_handoff"));
	json_object_put(j);
	drvring_metrics(d, m);
	assert_true(metrics_get(m, "drv.ethB.rx.no_handoff", &v) && v == 0);
	assert_false(metrics_get(m, "drv.ethB.rx.no_handoff_len_min", NULL));
	assert_true(metrics_get(m, "drv.ethB.rx.handoff_len_min", &v) && v == 60);
	assert_true(metrics_get(m, "drv.ethB.rx.handoff_len_max", &v) && v == 1042);
	assert_false(metrics_get(m, "drv.ethA.rx.no_handoff", NULL));
	metrics_free(m);
	drvring_free(d);
}

/* ---- bad input ------------------------------------------------------------------- */

static char *tmp_file(const void *data, size_t len)
{
	return tmp_data_file(data, len, "drvring");
}

static void read_fails(const char *path, int want, const char *needle)
{
	struct drvring *d = (struct drvring *)1;
	char *err = NULL;
	int ret = drvring_read(path, NULL, &d, &err);

	expect_read_error(ret, want, d != NULL, err, path, needle);
}

static void test_drvring__bad_files_give_errors(void **state)
{
	char *data = NULL, *tmp;
	size_t len;

	read_fails(RUNS "drv-e1000e-rx-80/files/none.dat", -ENOENT, NULL);
	read_fails(RUNS "drv-e1000e-rx-80/files", -EISDIR, NULL);
	read_fails(RUNS "drv-e1000e-rx-80/scenario.scn", -EINVAL, "not a trace.dat");
	tmp = tmp_file("", 0);
	read_fails(tmp, -EINVAL, "empty");
	unlink(tmp);
	free(tmp);
	assert_int_equal(file_read(RUNS "drv-e1000e-rx-80/files/trace.dat", &data, &len), 0);
	tmp = tmp_file(data, len / 2);
	read_fails(tmp, -EINVAL, "truncated");
	unlink(tmp);
	free(tmp);
	free(data);
}

/* Recorded on the unpatched kernel: no netlab_drv lines. */
static void test_drvring__trace_without_driver_lines_is_enodata(void **state)
{
	read_fails(
		RUNS "udp-path/files/trace.dat", -ENODATA,
		"the kernel has no driver patches (make kernel builds them by default) or the trace did not record the netlab_drv events");
}

/* ---- the kprobe fallback (fixtures/runs/drvprobe-e1000e-rx) ------------------------------ */

/*
 * Recorded on the kernel without driver patches, with netlab:drvprobe. Counted with
 *	trace-cmd report -i FILE | grep -c ' drv_e1000e_poll:'   (and so on)
 * poll 912, poll_ret 912 (6 with work=64, work summing to 1756), irq_msix 889,
 * irq_tx_msix 1, rx 1756, refill 920 (want summing to 1756), xmit 1; virtio_net
 * A: xmit 1858, irq_tx 861, poll/poll_ret/irq/rx 1 each; 8114 in all, and no
 * netlab_drv line.
 */
static void test_drvring__fallback_counts_match_trace_cmd_report(void **state)
{
	struct drvring *d = read_run("drvprobe-e1000e-rx", NULL);
	const struct drvring_queue *q = queue(d, "e1000e", 0), *v = queue(d, "virtio_net", 0);

	assert_int_equal(d->lines, 0);
	assert_int_equal(d->probe_events, 8114);
	assert_int_equal(d->probe_events_unused, 0);
	assert_int_equal(d->n_queues, 2);
	assert_true(q->from_probes);
	assert_string_equal(q->driver, "e1000e");
	assert_int_equal(q->s.polls, 912);
	assert_int_equal(q->s.poll_ends, 912);
	assert_int_equal(q->s.budget_exhausted, 6);
	assert_int_equal(q->s.repolls, 6);
	assert_int_equal(q->s.work.count, 912);
	assert_int_equal(q->s.work.max, 64);
	assert_true(q->s.work.mean * 912 > 1755.5 && q->s.work.mean * 912 < 1756.5);
	assert_int_equal(q->s.irqs, 889);
	assert_int_equal(q->s.irqs_tx, 1);
	assert_int_equal(q->s.irq_poll_ns.count, 889); /* one CPU: each irq's poll follows */
	assert_int_equal(q->s.poll_ns.count, 912);
	assert_int_equal(q->s.rx_handoffs, 1756);
	assert_int_equal(q->s.refills, 920);
	assert_int_equal(q->s.refill_want, 1756);
	assert_int_equal(q->s.xmits, 1);
	/* what the probes cannot know */
	assert_int_equal(q->s.fill.changes, 0);
	assert_int_equal(q->s.inflight.changes, 0);
	assert_int_equal(q->s.desc_stack_ns.count, 0);
	assert_false(q->fill_estimated);
	assert_true(v->from_probes);
	assert_int_equal(v->s.xmits, 1858);
	assert_int_equal(v->s.irqs_tx, 861);
	assert_int_equal(v->s.polls, 1);
	assert_true(nic(d, "e1000e")->from_probes);
	drvring_free(d);
}

static void test_drvring__fallback_matches_golden_json(void **state)
{
	golden("drvprobe-e1000e-rx");
}

/* Text, JSON and metrics say where the figures come from and leave out the ring. */
static void test_drvring__fallback_output_and_metrics(void **state)
{
	struct drvring *d = read_run("drvprobe-e1000e-rx", NULL);
	struct metrics *m = metrics_new();
	struct json_object *j = drvring_to_json(d), *n, *x;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	double v;

	drvring_print(d, f);
	fclose(f);
	assert_non_null(strstr(text, "8114 fallback probe events"));
	assert_non_null(strstr(text, "e1000e: from kprobe fallback: no ring fill"));
	free(text);
	n = json_object_array_get_idx(json_object_object_get(j, "nics"), 0);
	assert_string_equal(json_object_get_string(json_object_object_get(n, "source")),
			    "from kprobe fallback: no ring fill");
	x = json_object_object_get(n, "rx");
	assert_true(json_object_object_get_ex(x, "fill", NULL));
	assert_null(json_object_object_get(x, "fill"));
	assert_null(json_object_object_get(x, "low_episodes"));
	assert_true(json_object_object_get_ex(x, "no_handoff", NULL));
	assert_null(json_object_object_get(x, "no_handoff"));
	assert_null(drvring_nic_evidence(nic(d, "e1000e")));
	assert_int_equal(json_object_get_int(json_object_object_get(x, "handoffs")), 1756);
	json_object_put(j);
	drvring_metrics(d, m);
	assert_true(metrics_get(m, "drv.lines", &v) && v == 0);
	assert_true(metrics_get(m, "drv.probe_events", &v) && v == 8114);
	assert_true(metrics_get(m, "drv.e1000e.fallback", &v) && v == 1);
	assert_true(metrics_get(m, "drv.e1000e.napi.polls", &v) && v == 912);
	assert_true(metrics_get(m, "drv.e1000e.napi.budget_exhausted", &v) && v == 6);
	assert_true(metrics_get(m, "drv.e1000e.napi.work_mean", &v) && v > 1.9 && v < 1.93);
	assert_true(metrics_get(m, "drv.e1000e.napi.irq_poll.p50_us", &v) && v > 0);
	assert_true(metrics_get(m, "drv.e1000e.napi.poll.p99_us", &v) && v > 0);
	assert_true(metrics_get(m, "drv.e1000e.rx.handoffs", &v) && v == 1756);
	assert_true(metrics_get(m, "drv.e1000e.rx.refills", &v) && v == 920);
	assert_true(metrics_get(m, "drv.virtio_net.tx.xmits", &v) && v == 1858);
	assert_false(metrics_get(m, "drv.e1000e.rx.fill.min", &v));
	assert_false(metrics_get(m, "drv.e1000e.rx.low_episodes", &v));
	assert_false(metrics_get(m, "drv.e1000e.napi.desc_stack.p50_us", &v));
	assert_false(metrics_get(m, "drv.e1000e.tx.done", &v));
	assert_false(metrics_get(m, "drv.e1000e.rx.no_handoff", &v));
	metrics_free(m);
	drvring_free(d);
}

/*
 * Probe events fed one by one: irq -> poll on the same CPU, the budget from
 * the entry, a return without its entry skipped; a driver that also prints
 * lines is read from the lines.
 */
static void test_drvring__fallback_events_fed(void **state)
{
	struct drvring *d = drvring_new(NULL);
	const struct drvring_queue *q;

	assert_non_null(d);
	assert_int_equal(drvring_feed_probe(d, 1000, 0, "drv_e1000_poll_ret", 3), 0); /* no entry */
	assert_int_equal(drvring_feed_probe(d, 2000, 0, "drv_e1000_irq", 0), 0);
	assert_int_equal(drvring_feed_probe(d, 9000, 0, "drv_e1000_poll", 64), 0);
	assert_int_equal(drvring_feed_probe(d, 9500, 1, "drv_e1000_poll_ret", 64),
			 0); /* other CPU */
	assert_int_equal(drvring_feed_probe(d, 12000, 0, "drv_e1000_poll_ret", 64), 0);
	assert_int_equal(drvring_feed_probe(d, 13000, 0, "drv_e1000_poll", 64), 0);
	assert_int_equal(drvring_feed_probe(d, 14000, 0, "drv_e1000_poll_ret", 5), 0);
	assert_int_equal(drvring_feed_probe(d, 15000, 0, "drv_e1000_refill", 5), 0);
	assert_int_equal(drvring_feed_probe(d, 16000, 0, "drv_e1000_xmit", 42), 0);
	assert_int_equal(drvring_feed_probe(d, 16000, 0, "drv_ixgbe_poll", 64), -ENOENT);
	assert_int_equal(drvring_feed_probe(d, 16000, 0, "drv_e1000_nothing", 64), -ENOENT);
	/* virtio_net prints lines too: its probe events are not used */
	assert_int_equal(drvring_feed_probe(d, 17000, 0, "drv_virtio_net_irq", 0), 0);
	assert_int_equal(
		drvring_feed(d, 17500, 0,
			     "netlab_drv: virtio_net ethB irq kind=vring vec=0 q=0 dir=rx"),
		0);
	assert_int_equal(drvring_finish(d), 0);
	assert_int_equal(d->probe_events, 10);
	assert_int_equal(d->probe_events_unused, 1);
	assert_int_equal(d->n_queues, 2);
	q = queue(d, "e1000", 0);
	assert_true(q->from_probes);
	assert_int_equal(q->s.polls, 2);
	assert_int_equal(q->s.poll_ends, 2);
	assert_int_equal(q->s.budget_exhausted, 1);
	assert_int_equal(q->s.work.max, 64);
	assert_int_equal(q->s.irqs, 1);
	assert_int_equal(q->s.irq_poll_ns.count, 1);
	assert_int_equal(q->s.irq_poll_ns.max, 7000);
	assert_int_equal(q->s.poll_ns.count, 2);
	assert_int_equal(q->s.poll_ns.max, 3000);
	assert_int_equal(q->s.refills, 1);
	assert_int_equal(q->s.refill_want, 5);
	assert_int_equal(q->s.xmits, 1);
	assert_false(queue(d, "ethB", 0)->from_probes);
	assert_int_equal(queue(d, "ethB", 0)->s.irqs, 1);
	assert_int_equal(d->n_nics, 2);
	drvring_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drvring__rx_default_matches_golden_json),
		cmocka_unit_test(test_drvring__rx_80_matches_golden_json),
		cmocka_unit_test(test_drvring__counts_match_trace_cmd_report),
		cmocka_unit_test(test_drvring__tracepoint_lines_read_as_printk_lines),
		cmocka_unit_test(test_drvring__ring_80_against_256),
		cmocka_unit_test(test_drvring__counters_and_metrics),
		cmocka_unit_test(test_drvring__drvlines_of_three_drivers_parse),
		cmocka_unit_test(test_drvring__line_parse_keys),
		cmocka_unit_test(test_drvring__low_episodes_record_the_ring_before),
		cmocka_unit_test(test_drvring__series_stays_bounded),
		cmocka_unit_test(test_drvring__malformed_lines_and_lost_events),
		cmocka_unit_test(test_drvring__no_handoff_by_length_and_status),
		cmocka_unit_test(test_drvring__per_queue_metrics_of_a_multi_queue_nic),
		cmocka_unit_test(test_drvring__no_handoff_every_8th_is_a_period),
		cmocka_unit_test(test_drvring__no_handoff_json_text_and_metrics),
		cmocka_unit_test(test_drvring__no_handoff_evidence_sentence),
		cmocka_unit_test(test_drvring__no_handoff_values_beyond_the_table),
		cmocka_unit_test(test_drvring__clean_trace_has_no_handoff_zero),
		cmocka_unit_test(test_drvring__bad_files_give_errors),
		cmocka_unit_test(test_drvring__trace_without_driver_lines_is_enodata),
		cmocka_unit_test(test_drvring__fallback_counts_match_trace_cmd_report),
		cmocka_unit_test(test_drvring__fallback_matches_golden_json),
		cmocka_unit_test(test_drvring__fallback_output_and_metrics),
		cmocka_unit_test(test_drvring__fallback_events_fed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
