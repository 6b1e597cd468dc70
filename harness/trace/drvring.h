/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ring-level view of each instrumented NIC, from the driver lines
 * (driver-patches/README.md: "netlab_drv: <driver> <ifname> <event> k=v ...")
 * of a trace.dat, in one streaming pass.
 *
 * A queue is (driver, ifname, q). For each:
 *
 * RX fill: descriptors posted to the NIC and not yet cleaned. Exact at every
 *	rx_refill (its fill=); between refills, e1000/e1000e lower it at each
 *	rx_desc ((ntu of the last refill - idx - 1) mod ring, the same formula),
 *	virtio_net, which has no rx_desc, by one per rx_handoff (an estimate:
 *	one buffer per packet; drvring_queue.fill_estimated). Unknown until
 *	the first refill and after lost events until the next one.
 * TX in flight: descriptors queued and not yet cleaned, (ntu - ntc) mod ring
 *	(e1000/e1000e xmit and tx_clean) or ring - free (virtio_net); for lines
 *	without those keys, skbs: xmit count - tx_done count.
 *	Levels are time-weighted: p50 is the level the ring was at or below
 *	half of the time; min and max are the extremes reached, even for an
 *	instant. Time series: DRVRING_SERIES buckets from the trace's first
 *	event, each DRVRING_BUCKET_NS wide until the trace outgrows them, then
 *	neighbours merge and the width doubles (memory stays flat).
 * Refill: refills, buffers allocated and wanted, failures (fail != 0),
 *	refills that left fill below the low mark.
 * Low episodes: fill fell below the low mark (ring / low_div) until a refill
 *	lifted it again; "empty" ones reached fill <= empty_fill. Each keeps what
 *	the ring looked like just before it began: fill, time since the last
 *	refill and whether that refill failed, descriptors cleaned since, whether
 *	a NAPI poll was running, time since the last interrupt. The first and the
 *	worst (lowest fill, then longest) are kept, opts.episodes of each.
 * NAPI: polls (poll_start), work per poll (poll_end), budget exhausted (work
 *	== budget), repolls, poll duration (poll_start -> poll_end on the same
 *	CPU), interrupt -> poll (the first irq line not of dir=tx since the
 *	queue's last poll -> the next poll_start, when that runs on the CPU of
 *	the interrupt; a poll on another CPU serves it unmeasured), descriptor -> stack
 *	(rx_desc -> the next rx_handoff of the queue: the same skb, or its copy
 *	under copybreak, counted in desc_stack_copied; a descriptor with no
 *	hand-off before the next one or the poll's end counts in
 *	rx_desc_no_handoff).
 * No hand-off: the descriptors of rx_desc_no_handoff by len= and status=
 *	(drvring_values: the most frequent values with exact counts, the rest
 *	in other), and, to compare, the len= range of the descriptors that were
 *	handed off (handoff_len). A driver that completes descriptors and
 *	recycles their buffers without handing the frames to the stack (a
 *	silent loss) shows there: drvring_nic_evidence() says it in a sentence.
 *
 * Kprobe fallback (issue 5): a driver that prints no netlab_drv lines (not
 * patched in this kernel) may have the fallback probes of traceset.h,
 * netlab:drv_DRIVER_{poll,poll_ret,irq*,xmit,refill,rx}. From them, one
 * queue per driver, named by the driver (its ifname is the driver name: the
 * probes see no net_device name; q 0; all NICs of the driver together):
 * polls (poll), work per poll and budget exhausted (poll_ret's return value
 * against the budget of the poll entry on the same CPU; a poll that returns
 * its budget stays scheduled, so repolls == budget_exhausted), poll
 * duration (entry -> return), interrupt -> poll (irq probe -> the next poll
 * entry on that CPU), irqs (irq_tx*: irqs_tx), xmits, refills and the
 * buffers they were asked for (refill_want), packets received (rx: e1000e
 * e1000_receive_skb, virtio_net receive_buf, as rx_handoffs). There is no
 * ring fill, no descriptor, no completion: such a queue is from_probes and
 * its unknowns are left out of the output. A driver that has lines in the
 * trace is read from them; its probe events are counted in
 * probe_events_unused.
 *
 * A NIC (driver, ifname) sums its queues. Its NIC counters (ethtool -S
 * deltas) come from the caller's metrics (drvring_opts.counters): for ifname
 * "eth<LABEL>" (netlab's names), nic.<LABEL>.{rx_no_buffer_count,
 * rx_missed_errors,alloc_rx_buff_failed} and ring.<LABEL>.rx.
 *
 * Reading: only the netlab_drv tracepoints (today's patches), ftrace:bprint
 * and ftrace:print records (the trace_printk lines of older patches) are
 * looked at; a bprint format pointer is formatted once to learn whether it
 * is a netlab_drv line, so other trace_printk lines cost one lookup each. Memory
 * is fixed per queue (histograms, level counters, series, episodes) and
 * queues are capped at DRVRING_MAX_QUEUES.
 */
#ifndef NETLAB_DRVRING_H
#define NETLAB_DRVRING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hist.h"
#include "nicmodel.h"

struct json_object;
struct metrics;

#define DRVRING_MAX_QUEUES 32 /* queues followed; lines of others are counted */
#define DRVRING_MAX_CPUS 64 /* interrupt -> poll is measured on CPUs below this */
#define DRVRING_LEVELS 4096 /* levels counted exactly (e1000e's largest ring); more: clamped */
#define DRVRING_SERIES 100 /* buckets of a time series */
#define DRVRING_BUCKET_NS 10000000ull /* their first width: 10 ms */
#define DRVRING_OCC_BINS 8 /* the occupancy distribution, in eighths of the ring */
#define DRVRING_NOHO_VALUES 8 /* values of the descriptors without a hand-off kept, per key */
#define DRVRING_NOHO_TRACK 64 /* distinct values counted per key and queue; later ones: other */
#define DRVRING_PERIOD_MAX 16 /* periods 2..16 of the descriptors without a hand-off are looked for */

/* ---- one line ------------------------------------------------------------------- */

enum drvring_event {
	DRVRING_IRQ,
	DRVRING_POLL_START,
	DRVRING_POLL_END,
	DRVRING_RX_DESC,
	DRVRING_RX_HANDOFF,
	DRVRING_RX_REFILL,
	DRVRING_XMIT,
	DRVRING_TX_DONE,
	DRVRING_TX_CLEAN,
	DRVRING_EVENTS,
	DRVRING_UNKNOWN = DRVRING_EVENTS, /* a newer event: ignored */
};

/* The keys drvring reads; others are ignored. */
enum drvring_key {
	DRVRING_K_Q,
	DRVRING_K_SKB,
	DRVRING_K_LEN,
	DRVRING_K_RING,
	DRVRING_K_NTU,
	DRVRING_K_NTC,
	DRVRING_K_IDX,
	DRVRING_K_FILL,
	DRVRING_K_ALLOC,
	DRVRING_K_FAIL,
	DRVRING_K_WANT,
	DRVRING_K_BUDGET,
	DRVRING_K_WORK,
	DRVRING_K_REPOLL,
	DRVRING_K_STATUS,
	DRVRING_K_FREE,
	DRVRING_K_CLEANED,
	DRVRING_K_PKTS,
	DRVRING_K_DIR, /* 0 rx, 1 tx */
	DRVRING_K_DATA_LEN, /* rx_handoff: skb->data_len (bytes outside the linear part) */
	DRVRING_K_PROTO, /* rx_handoff: skb->protocol, host order */
	DRVRING_KEYS
};

struct drvring_line {
	char driver[16];
	char ifname[16];
	enum drvring_event event;
	uint32_t has; /* 1u << enum drvring_key for each key present */
	uint64_t v[DRVRING_KEYS];
};

/* "irq", "poll_start", ...; "?" past the last. */
const char *drvring_event_name(enum drvring_event e);

/**
 * drvring_line_parse() - the keys of one netlab_drv line
 * @text: the line's text; "netlab_drv: " may follow other text ("e1000e_poll: ")
 * @out: the result
 *
 * Numbers are decimal, or hexadecimal after 0x; skb is hexadecimal with or
 * without 0x, and libtraceevent's "0x<hex>x" for %px. Unknown keys are
 * ignored, key order does not matter.
 *
 * Return: 0; -ENOENT when @text has no "netlab_drv: " prefix; -EINVAL when
 * malformed: missing words, a key without '=', a bad number for a key
 * drvring reads, or a key an event needs missing (q for all but irq; skb for
 * rx_desc, rx_handoff, xmit, tx_done; budget for poll_start; work and budget
 * for poll_end; ring and fill for rx_refill).
 */
int drvring_line_parse(const char *text, struct drvring_line *out);

/* ---- the result ----------------------------------------------------------------- */

struct drvring_opts {
	unsigned int low_div; /* low mark: fill < ring / low_div (at least 1); 0: 8 */
	unsigned int empty_fill; /* an episode is "empty" at fill <= this; 0: 4 */
	unsigned int episodes; /* first and worst episodes kept per queue; 0: 5 */
	uint64_t bucket_ns; /* the series' first bucket width; 0: DRVRING_BUCKET_NS */
	/* The run's metrics (metrics.json), or NULL; read only while reading. */
	const struct metrics *counters;
};

/* A distribution from a log-linear histogram (within 1/256); ns or a count. */
/* A ring's level over time, in descriptors (or skbs). */
struct drvring_level {
	uint64_t ns; /* time the level was known */
	uint64_t changes;
	unsigned int min, max; /* extremes, instants included */
	unsigned int p1, p50; /* time-weighted */
	double mean; /* time-weighted */
	unsigned int ring; /* bins[] divide 0..ring; 0 when unknown */
	uint64_t
		bin_ns[DRVRING_OCC_BINS]; /* bin i: [i*ring/8, (i+1)*ring/8), the last up to ring */
};

struct drvring_bucket {
	uint64_t ns; /* time in the bucket with a known level */
	unsigned int min, max; /* min > max: no level in the bucket */
	double mean; /* time-weighted */
};

struct drvring_series {
	uint64_t t0, width_ns;
	size_t n; /* buckets up to the last with a level */
	struct drvring_bucket b[DRVRING_SERIES];
};

/*
 * Packets handled per NAPI poll over time: each poll_end's work= counted in
 * the bucket of its time, buckets as a drvring_series' (DRVRING_SERIES of
 * them, merged in pairs as the trace outgrows them).
 */
struct drvring_napi_bucket {
	uint64_t polls; /* poll_end lines in the bucket */
	uint64_t work; /* their work= summed */
	uint64_t max; /* the largest work= */
};

struct drvring_napi_series {
	uint64_t t0, width_ns;
	size_t n; /* buckets up to the last with a poll */
	uint64_t budget; /* budget= of the latest poll_end; 0 before one */
	struct drvring_napi_bucket b[DRVRING_SERIES];
};

struct drvring_episode {
	uint64_t ts; /* when fill fell below the low mark */
	uint64_t end_ts; /* the refill that lifted it, 0 when still low at the end */
	int cpu;
	unsigned int ring, low_mark, min_fill;
	bool empty; /* min_fill <= empty_fill */
	bool by_refill; /* began at a refill that left the ring low, else at an rx_desc */
	/* just before */
	unsigned int fill_before;
	bool refill_seen, refill_failed; /* the last refill, and whether it failed */
	uint64_t since_refill_ns;
	unsigned int descs_since_refill;
	bool in_poll; /* a poll of the queue was running */
	bool irq_seen;
	uint64_t since_irq_ns;
};

/* One value of a key and how many descriptors had it. */
struct drvring_value {
	uint64_t v, count;
};

/*
 * The values of one key (len=, status=) of the descriptors without a
 * hand-off. Of the first DRVRING_NOHO_TRACK distinct values a queue saw
 * (a NIC: its queues' merged by value), the DRVRING_NOHO_VALUES most
 * frequent, with exact counts; the rest in other.
 */
struct drvring_values {
	uint64_t count; /* descriptors with the key; rx_desc_no_handoff - count lacked it */
	uint64_t min, max; /* of all count values, other included; 0 when !count */
	size_t n;
	struct drvring_value top[DRVRING_NOHO_VALUES]; /* highest count first, then lowest value */
	uint64_t other; /* count - the counts in top[] */
};

/* A range of values, and how many there were (min and max 0 when none). */
struct drvring_range {
	uint64_t count, min, max;
};

struct drvring_stats {
	/* receive */
	unsigned int rx_ring; /* ring= of the latest refill; 0 unknown */
	uint64_t rx_desc, rx_desc_errors, rx_desc_no_handoff, rx_handoffs;
	struct drvring_values noho_len, noho_status; /* of the rx_desc_no_handoff descriptors */
	/*
	 * Every noho_period-th descriptor of the queue had no hand-off, at
	 * positions noho_phase modulo it, and no other (0: no period, fewer
	 * than 4, or a NIC of several queues).
	 */
	unsigned int noho_period, noho_phase;
	struct drvring_range handoff_len; /* len= of the rx_desc lines that were handed off */
	uint64_t refills, refill_alloc, refill_want, refill_failures, refills_low;
	struct drvring_level fill;
	uint64_t low_episodes, empty_episodes, low_ns;
	struct hist_summary refill_age_low; /* time since the last refill as an episode began */
	/* NAPI */
	uint64_t irqs, irqs_tx, polls, poll_ends, budget_exhausted, repolls;
	struct hist_summary work; /* packets per poll */
	struct hist_summary poll_ns, irq_poll_ns, desc_stack_ns;
	uint64_t desc_stack_copied;
	/* transmit */
	unsigned int tx_ring;
	uint64_t xmits, tx_done, tx_cleans, tx_cleaned;
	bool inflight_skbs; /* in flight counted in skbs, not descriptors */
	struct drvring_level inflight;
};

struct drvring_queue {
	char driver[16], ifname[16];
	int q;
	bool fill_estimated; /* virtio_net: lowered per hand-off */
	bool from_probes; /* the kprobe fallback: no ring fill */
	struct drvring_stats s;
	struct drvring_series fill, inflight;
	struct drvring_napi_series napi; /* work per poll over time */
	struct drvring_episode *first, *worst; /* worst: lowest fill first */
	size_t n_first, n_worst;
};

/* How the output marks a NIC or queue of the kprobe fallback. */
#define DRVRING_FALLBACK "from kprobe fallback: no ring fill"

struct drvring_nic {
	char driver[16], ifname[16];
	unsigned int queues;
	bool from_probes; /* the kprobe fallback: no ring fill */
	struct drvring_stats s; /* all its queues together */
	char label[16]; /* "B" for ethB; "" when the name is not netlab's */
	bool counters; /* any of the values below; each -1 when absent */
	double rx_no_buffer_count, rx_missed_errors, alloc_rx_buff_failed, ethtool_rx_ring;
};

struct drvring {
	char *path; /* NULL for drvring_new() */
	int cpus, buffers;
	uint64_t events, t0, last_ts;
	uint64_t lost, lost_gaps;
	uint64_t lines; /* netlab_drv lines */
	uint64_t bad_lines; /* of those, malformed (not counted elsewhere) */
	uint64_t unknown_events; /* of a newer event */
	uint64_t untracked_lines; /* of queues past DRVRING_MAX_QUEUES */
	char bad_example[192]; /* the first malformed line */
	uint64_t probe_events; /* of the kprobe fallback */
	uint64_t probe_events_unused; /* of those, of drivers that have lines */
	unsigned int low_div, empty_fill, episodes;
	struct drvring_queue *queues; /* in order of appearance */
	size_t n_queues;
	struct drvring_nic *nics; /* in order of appearance; after finishing */
	size_t n_nics;
	void *priv; /* streaming state */
};

/**
 * drvring_read() - the rings of the NICs in a trace.dat
 * @path: the trace.dat file
 * @o: options, or NULL for the defaults
 * @out: on success the result; free it with drvring_free()
 * @err: on failure, a message naming @path with a "\nhint: ..." line; the
 *	 caller frees it
 *
 * Return: 0; -errno from opening the file; -EINVAL for a file that is not a
 * trace.dat or is truncated or corrupted; -ENODATA for a trace with neither
 * netlab_drv lines nor fallback probe events; -ENOMEM.
 */
int drvring_read(const char *path, const struct drvring_opts *o, struct drvring **out, char **err);

/*
 * The same analysis fed line by line (tests, text traces): drvring_new(),
 * drvring_feed() per line in time order, drvring_lost() where events were
 * lost, drvring_finish() once; then the result is read as drvring_read()'s.
 * drvring_feed returns 0, -ENOENT for a line that is not a netlab_drv line
 * (ignored), -EINVAL for a malformed one (counted); drvring_finish -ENOMEM
 * when out of memory.
 */
struct drvring *drvring_new(const struct drvring_opts *o);
int drvring_feed(struct drvring *d, uint64_t ts, int cpu, const char *text);
void drvring_lost(struct drvring *d, uint64_t ts);

/*
 * A fallback probe event @event ("drv_e1000e_poll", its name in the netlab
 * group) with @value: the budget of poll, the work of poll_ret, the want of
 * refill, the len of xmit and rx, nothing for irq. Returns 0, or -ENOENT
 * when @event is no fallback probe (ignored).
 */
int drvring_feed_probe(struct drvring *d, uint64_t ts, int cpu, const char *event, uint64_t value);
int drvring_finish(struct drvring *d);

/*
 * Where a fallback probe event (netlab:drv_DRIVER_ROLE) sits on the receive
 * path, for readers that follow packets (pktpath): a receive (or shared)
 * interrupt, a NAPI poll's entry or its return; DRVRING_AT_NONE for the
 * others and for events that are no fallback probe. *@drv: the driver's
 * index (0..DRVRING_PROBE_DRIVERS-1).
 */
#define DRVRING_PROBE_DRIVERS NIC_MODELS_MAX /* indexed as nic_models[] */
/*
 * The driver lines as tracepoints (today's driver patches): every event of
 * this system prints one line, read as the trace_printk lines of older
 * patches are.
 */
#define DRVRING_TP_SYSTEM "netlab_drv"

enum drvring_probe_at { DRVRING_AT_NONE, DRVRING_AT_IRQ, DRVRING_AT_POLL, DRVRING_AT_POLL_RET };
enum drvring_probe_at drvring_probe_at(const char *event, int *drv);

/*
 * The same in a shared pass (trace/tracepass.h): drvring_attach() opens the
 * file if no analysis did yet and finds the events (@o is copied; its
 * counters must stay until drvring_collect()); after tracepass_run(),
 * drvring_collect() gives the result or error drvring_read() would have,
 * and frees @s.
 */
struct tracepass;
struct drvring_pass;
int drvring_attach(struct tracepass *tp, const struct drvring_opts *o, struct drvring_pass **s,
		   char **err);
int drvring_collect(struct drvring_pass *s, struct drvring **out, char **err);

void drvring_free(struct drvring *d);

/*
 * Tables per NIC (receive ring, refill, NAPI, transmit), occupancy, series,
 * episodes. Under a queue's receive row with descriptors without a hand-off,
 * their 4 most frequent lengths and statuses.
 */
void drvring_print(const struct drvring *d, FILE *f);

/**
 * drvring_nic_evidence() - the descriptors a NIC completed without a hand-off, in a sentence
 * @n: a NIC of a finished drvring
 *
 * For the loss story: "8293 descriptors completed without a hand-off by
 * e1000e ethB: all 1514 B (status 0x7); the 7 handed up were 60..74 B".
 * Several lengths or statuses are listed as "len 1514 (8000), 1000 (293)",
 * the 4 most frequent, then "others (N)".
 *
 * Return: a new string that the caller frees; NULL when @n has no such
 * descriptor (rx_desc_no_handoff == 0, always so for the kprobe fallback
 * and virtio_net, which have no rx_desc lines).
 */
char *drvring_nic_evidence(const struct drvring_nic *n);

/**
 * drvring_to_json() - the result as one JSON object
 *
 * Keys: "trace", "lines" (+ "probe_events", "probe_events_unused" when the
 * trace has fallback probe events), "options", "nics" (per NIC: rx, napi, tx
 * as in drvring_stats, latencies in us, and "counters"; under "rx",
 * "no_handoff": {"count", "len": {"min", "max", "values": [{"len", "count"}],
 * "other"}, "status": {"values": [{"status": "0x7", "count"}], "other"}},
 * min and max null without values, "missing": N in len or status only when
 * N descriptors lacked the key; null where nothing is counted, as for the
 * metric below; and "handoff_len": {"count", "min", "max"}, null when no
 * descriptor was handed off), "queues" (the same
 * per queue, with "series" {t0, width_ms, rx_fill and tx_inflight: {min,
 * mean, max} arrays, null for buckets without a level} and "episodes"
 * {first, worst}), "napi_series" {t0, width_ms, budget (null before a
 * poll ended), polls, work_mean (null for buckets without a poll) and
 * work_max arrays: packets handled per poll in each bucket}). A NIC or
 * queue of the kprobe fallback has
 * "source": DRVRING_FALLBACK and null for what the probes
 * cannot know (fill, descriptors, refill results, completions, in flight).
 * Return: a new object (json_object_put() it), or NULL on ENOMEM.
 */
struct json_object *drvring_to_json(const struct drvring *d);

/*
 * Metrics per NIC, IFNAME as the driver names it ("ethB"); absent when not
 * measured:
 *   drv.lines, drv.bad_lines
 *   drv.IFNAME.rx.fill.{min,p1,p50,mean,max}
 *   drv.IFNAME.rx.{ring,descs,handoffs,refills,refill_allocs,refill_failures,
 *	refills_low,low_episodes,empty_episodes,low_ms}
 *   drv.IFNAME.rx.no_handoff, also 0, when counted: the NIC had rx_desc lines,
 *	or refills and nothing received (not virtio_net, which has no rx_desc)
 *   drv.IFNAME.rx.{no_handoff_len_min,no_handoff_len_max} when no_handoff > 0
 *   drv.IFNAME.rx.no_handoff_len.LEN, drv.IFNAME.rx.no_handoff_status.0xHEX:
 *	descriptors of that len= or status= without a hand-off, the 4 most
 *	frequent of each ("drv.ethB.rx.no_handoff_len.1514", "...status.0x7")
 *   drv.IFNAME.rx.{handoff_len_min,handoff_len_max} when a descriptor was handed off
 *   drv.IFNAME.napi.{polls,budget_exhausted,budget_exhausted_pct,work_mean}
 *   drv.IFNAME.napi.{irq_poll,desc_stack,poll}.{p50_us,p99_us}
 *   drv.IFNAME.tx.{ring,xmits,done}, drv.IFNAME.tx.inflight.{max,mean}
 * From the kprobe fallback, IFNAME is the driver ("drv.e1000e.napi.polls"),
 * and only: drv.probe_events, drv.DRIVER.napi.{polls,budget_exhausted,
 * budget_exhausted_pct,work_mean}, drv.DRIVER.napi.{irq_poll,poll}.{p50_us,
 * p99_us}, drv.DRIVER.rx.{handoffs,refills}, drv.DRIVER.tx.xmits,
 * drv.DRIVER.fallback (1).
 * (ring.<LABEL>.* is ethtool's ring size, metrics.c; drv.* never collides.)
 */
void drvring_metrics(const struct drvring *d, struct metrics *m);

#endif /* NETLAB_DRVRING_H */
