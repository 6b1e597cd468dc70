/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The generators' own view of each flow, from a run's metrics
 * (udp.flow.K.*, tcp.flow.K.*, and traffic.NAME.* of a scenario with named
 * traffic sections): what the sender sent, what the receiver got, lost,
 * misdelivered, its latency, and the CPUs the two ends ran on. The trace's
 * flow table (trace/pktpath.h) says what the kernel saw of the same flows.
 */
#ifndef NETLAB_GENFLOWS_H
#define NETLAB_GENFLOWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct metrics;

/* Every field is NAN when the generator does not report it. */
struct genflow {
	char prefix[64]; /* "udp.flow.3." or "traffic.dgram.udp.flow.3.": the metric names' start */
	char section[32]; /* the traffic section, "" for a plain [traffic] */
	bool tcp;
	unsigned int k; /* the flow's index */
	double sport;
	double sent, unique, lost, misdelivered, reordered; /* UDP datagrams */
	double p50_us, p99_us; /* UDP one-way latency */
	double bytes, goodput_bps, retransmits, rtt_us; /* TCP */
	double socket, tx_cpu, rx_cpu;
	double key[2]; /* its sort keys in the order it was collected in, descending */
};

enum genflow_order { GENFLOW_BY_LOSS, GENFLOW_BY_BYTES, GENFLOW_BY_LATENCY };

/*
 * The flows in @m, in @order (loss: lost + misdelivered, then retransmits;
 * bytes: TCP bytes or UDP datagrams; latency: UDP p99 or TCP RTT), into
 * *@out (free() it). The unprefixed names repeat a scenario's first section
 * of each kind: they are read only when no traffic.NAME.* flow exists.
 * Returns the count.
 */
size_t genflows_collect(const struct metrics *m, enum genflow_order order, struct genflow **out);

/* The text table of the first @max (0: all) of @n flows, collected in @order. */
void genflows_print(FILE *f, const struct genflow *g, size_t n, size_t max,
		    enum genflow_order order);

#endif /* NETLAB_GENFLOWS_H */
