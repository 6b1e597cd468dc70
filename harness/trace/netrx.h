/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The NET_RX timeline of perf's netdev-times, and its TX table, from a
 * trace.dat (trace-cmd's format) recorded with netlab's default [trace] set,
 * in one streaming pass.
 *
 * Per CPU, a hardware interrupt that raises NET_RX (irq:softirq_raise vec 3
 * inside irq:irq_handler_entry/exit) is linked to the next NET_RX softirq on
 * that CPU, however late it runs (after the handler, or in ksoftirqd). The
 * softirq's napi:napi_poll records (one at the END of each poll) and the
 * net:netif_receive_skb records inside it form a tree; each received skb is
 * then followed by its address to the copy to user space
 * (skb:skb_copy_datagram_iovec, or netlab:udp_recv_skb / netlab:skb_copy_csum
 * for UDP, which copies without that tracepoint) and to its free
 * (skb:consume_skb, skb:kfree_skb). Transmitted skbs are followed from
 * net:net_dev_queue to net:net_dev_start_xmit (or qdisc:qdisc_dequeue when
 * start_xmit was not recorded), net:net_dev_xmit and their free.
 *
 * A trace without irq:irq_handler_exit or irq:softirq_exit (the default set
 * leaves them out: they cost an event each and say only when a handler
 * ended) is read by context: a raise is inside a handler when its record is
 * in hard-interrupt context, and a NET_RX softirq ends at its last record,
 * closed by the next record of its CPU outside softirq context or the next
 * softirq entry (softirq_exit_ms is then that last record's time).
 *
 * Memory does not grow with the trace: aggregates are fixed-size histograms
 * (per device and per interrupt), the selected trees and TX rows are kept in
 * bounded heaps, and skbs in flight live in a table capped at
 * NETRX_MAX_SKBS entries.
 */
#ifndef NETLAB_NETRX_H
#define NETLAB_NETRX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hist.h"

struct json_object;
struct metrics;

/* Skbs followed at once (received awaiting copy/free, or queued for transmit). */
#define NETRX_MAX_SKBS 65536
/* Events (polls and received skbs) shown per tree; the rest are counted. */
#define NETRX_TREE_MAX_EVENTS 512

enum netrx_select {
	NETRX_FIRST, /* the first n receive trees, in time order */
	NETRX_WORST_COPY, /* the n worst by irq entry -> last copy to user space */
	NETRX_WORST_SOFTIRQ, /* the n worst by irq entry -> softirq entry */
};

/* The timeline the run page shows (netlab report --worst 1): the metrics read the same. */
#define NETRX_OPTS_PAGE { .select = NETRX_WORST_COPY, .n = 1 }

struct netrx_opts {
	enum netrx_select select;
	unsigned int n; /* trees (and TX rows) to keep; 0: 5 */
	/* Only trees with an interrupt, poll or skb of this device (substring, as perf's dev=). */
	const char *dev;
	/*
	 * Read as if the trace had no irq_handler_exit and softirq_exit records
	 * (as the default set records): the two readings of one trace compared.
	 */
	bool without_exits;
};

/* A distribution, from a log-linear histogram (values within 1/256). */
/* A hardware interrupt that raised NET_RX at least once. */
struct netrx_irq {
	int irq;
	char *name; /* the handler's name: "ethA-rx-0", "virtio1-input.0" */
	int dev; /* index into netrx.devs when the name contains a device's name, or -1 */
	uint64_t raised; /* handler runs that raised NET_RX */
	struct hist_summary irq_softirq; /* handler entry -> NET_RX softirq entry */
};

struct netrx_dev {
	char *name;
	/* receive */
	uint64_t polls; /* napi:napi_poll in a NET_RX softirq */
	uint64_t polls_other; /* napi:napi_poll outside one: busy polling, netpoll */
	uint64_t budget_exhausted; /* polls with work == budget */
	uint64_t frames; /* sum of work over all polls */
	uint64_t rx_skbs; /* netif_receive_skb (napi_gro_receive_entry if not recorded) */
	uint64_t rx_copied; /* of those, copied to user space */
	uint64_t rx_consumed; /* consumed without a copy (e.g. forwarded, ARP, ACKs) */
	uint64_t rx_dropped; /* kfree_skb without a copy */
	struct hist_summary poll; /* poll duration: softirq entry or previous poll end -> poll end */
	struct hist_summary work; /* frames per poll */
	struct hist_summary rx_copy; /* netif_receive_skb -> first copy to user space */
	/* transmit */
	uint64_t tx_packets; /* net_dev_xmit with rc 0 after a net_dev_queue */
	uint64_t tx_busy; /* net_dev_xmit with rc != 0 (requeued) */
	uint64_t tx_dropped; /* freed after net_dev_queue, before a good net_dev_xmit */
	struct hist_summary tx_qdisc; /* net_dev_queue -> net_dev_start_xmit (or qdisc_dequeue) */
	struct hist_summary tx_dev; /* net_dev_start_xmit -> net_dev_xmit */
	struct hist_summary tx_free; /* net_dev_xmit -> consume_skb / kfree_skb */
};

enum netrx_ev_type { NETRX_EV_RX, NETRX_EV_POLL };

enum netrx_free { NETRX_FREE_NONE, NETRX_FREE_CONSUME, NETRX_FREE_KFREE };

/* One line of a tree: a received skb or the end of a poll. */
struct netrx_ev {
	enum netrx_ev_type type;
	uint64_t ts;
	int dev; /* index into netrx.devs */
	/* NETRX_EV_POLL */
	int work, budget;
	/* NETRX_EV_RX */
	uint64_t skb;
	unsigned int len;
	uint64_t copy_ts; /* first copy to user space, 0 if none seen */
	const char *copy_event; /* "skb_copy_datagram_iovec", "udp_recv_skb", ... (static) */
	int pid; /* the copying task */
	char comm[17];
	enum netrx_free free;
	uint64_t free_ts;
	char *location; /* kfree_skb: "symbol+0xoff" from the trace's kallsyms */
};

/* A hardware interrupt of a tree. */
struct netrx_tree_irq {
	int irq;
	const char *name; /* owned by netrx.irqs */
	uint64_t entry_ts;
};

/* One NET_RX softirq with the interrupts that raised it: perf's receive hunk. */
struct netrx_tree {
	int cpu;
	uint64_t base_ts; /* first interrupt's entry, or the softirq entry without one */
	uint64_t softirq_ts, exit_ts; /* exit_ts 0: the trace ended inside it */
	char context[17]; /* the task the softirq ran on (ksoftirqd/N or the interrupted one) */
	struct netrx_tree_irq *irqs;
	size_t n_irqs;
	struct netrx_ev *ev;
	size_t n_ev;
	size_t ev_dropped; /* beyond NETRX_TREE_MAX_EVENTS */
	uint64_t irq_softirq_ns; /* base -> softirq entry (0 without an interrupt) */
	uint64_t last_copy_ns; /* base -> latest first copy of its skbs, 0 if none */
};

/* One transmitted skb: perf's TX table row. */
struct netrx_tx {
	uint64_t skb;
	uint64_t queue_ts;
	int dev;
	unsigned int len;
	uint64_t qdisc_ns, dev_ns;
	bool freed;
	uint64_t free_ns; /* net_dev_xmit -> free, when freed */
};

/*
 * One CPU's NET_RX softirqs: how many, how long they ran (entry -> exit, or
 * -> their last record in a trace without irq:softirq_exit, so a lower
 * bound), and the frames they received (skbs plus poll work).
 */
struct netrx_cpu {
	uint64_t softirqs;
	uint64_t receive; /* of them, softirqs that received frames */
	uint64_t time_ns;
	uint64_t frames;
};

struct netrx {
	char *path;
	int cpus;
	int buffers;
	uint64_t events, t0, last_ts;
	uint64_t lost, lost_gaps;
	/* which inputs the trace recorded */
	bool has_irq, has_softirq, has_napi, has_rx, has_copy, has_free, has_tx;

	enum netrx_select select;
	unsigned int n;

	/* NET_RX softirqs, by what raised them */
	uint64_t softirqs;
	uint64_t softirqs_irq; /* after a hardware interrupt */
	uint64_t softirqs_repoll; /* re-raised by NET_RX itself (budget or time used up) */
	uint64_t softirqs_other; /* raised from process context (netif_rx, napi_schedule) */
	uint64_t softirqs_unraised; /* no NET_RX raise recorded since the previous one */
	uint64_t raises_other; /* NET_RX raises outside a hardware interrupt */
	uint64_t receive_trees; /* softirqs that received frames (the selectable trees) */
	uint64_t rx_outside_softirq; /* netif_receive_skb outside a NET_RX softirq */
	uint64_t skbs_untracked; /* skbs not followed: the table was full */

	/* over all devices */
	uint64_t polls, polls_other, budget_exhausted, frames, rx_skbs;
	uint64_t rx_copied, rx_consumed, rx_dropped;
	uint64_t tx_packets, tx_busy, tx_dropped;
	struct hist_summary irq_softirq, poll, work, rx_copy, tx_qdisc, tx_dev, tx_free;

	struct netrx_irq *irqs; /* by irq number */
	size_t n_irqs;
	struct netrx_dev *devs; /* in order of appearance */
	size_t n_devs;
	struct netrx_tree **trees; /* the selected trees, in time order */
	size_t n_trees;
	struct netrx_tx *tx; /* the selected TX rows, in time order */
	size_t n_tx;
	struct netrx_cpu *per_cpu; /* [cpus] */
	bool time_exact; /* softirq_exit recorded: per_cpu time is entry -> exit */
};

/**
 * netrx_read() - the NET_RX trees and RX/TX aggregates of a trace.dat
 * @path: the trace.dat file
 * @o: options, or NULL for the first 5 trees
 * @out: on success the result; free it with netrx_free()
 * @err: on failure, a message naming @path with a "\nhint: ..." line; the
 *	 caller frees it
 *
 * Reads the file once, streaming. Missing events degrade the result: without
 * irq events trees start at the softirq; without copy or free events skbs end
 * unseen; without napi_poll there are no poll statistics.
 *
 * Return: 0; -errno from opening the file; -EINVAL for a file that is not a
 * trace.dat or is truncated or corrupted; -ENODATA for a trace with none of
 * the irq, softirq, napi and net events this needs; -ENOMEM.
 */
int netrx_read(const char *path, const struct netrx_opts *o, struct netrx **out, char **err);

/*
 * The same in a shared pass (trace/tracepass.h): netrx_attach() opens the
 * file if no analysis did yet and resolves the events (errors as
 * netrx_read(), nothing attached; @o is copied); after tracepass_run(),
 * netrx_collect() gives the result or error netrx_read() would have, and
 * frees @s.
 */
struct tracepass;
struct netrx_pass;
int netrx_attach(struct tracepass *tp, const struct netrx_opts *o, struct netrx_pass **s,
		 char **err);
int netrx_collect(struct netrx_pass *s, struct netrx **out, char **err);

void netrx_free(struct netrx *nr);

/* The trees (perf netdev-times style, +msec from the first interrupt), then the tables. */
void netrx_print(const struct netrx *nr, FILE *f);

/* One tree as netrx_print() prints it. */
void netrx_print_tree(const struct netrx *nr, const struct netrx_tree *t, FILE *f);

/**
 * netrx_to_json() - the result as one JSON object
 *
 * Keys: "trace", "recorded", "selection", "rx" (totals and distributions in
 * microseconds), "irqs", "devices", "tx" (totals, distributions, rows) and
 * "trees".
 *
 * Return: a new object (json_object_put() it), or NULL on ENOMEM.
 */
struct json_object *netrx_to_json(const struct netrx *nr);

/*
 * Metrics: netrx.polls, netrx.budget_exhausted, netrx.budget_exhausted_pct,
 * netrx.softirqs, netrx.softirqs_without_irq, netrx.frames_per_poll.mean,
 * netrx.{irq_softirq,poll,rx_copy}.{p50,p99}_us,
 * tx.packets, tx.dropped, tx.{qdisc,dev,free}.{p50,p99}_us and, per device,
 * netrx.dev.IFNAME.{polls,budget_exhausted,frames}. Latencies are set only
 * when measured.
 */
void netrx_metrics(const struct netrx *nr, struct metrics *m);

#endif /* NETLAB_NETRX_H */
