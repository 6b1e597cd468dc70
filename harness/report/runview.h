/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The wire and the stack of a run, side by side: per link, the frames the
 * host-side pcap saw leave and reach the NIC (libpcap, by the NIC's MAC),
 * next to what the guest's counters say the NIC, IP and the sockets did
 * (the deltas `netlab regress` stored in RUN_DIR/metrics.json), so that
 * loss on the wire and loss in the stack are told apart. Plus every nonzero
 * counter delta, grouped by source.
 */
#ifndef NETLAB_RUNVIEW_H
#define NETLAB_RUNVIEW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json_object;
struct metrics;

struct runview_link {
	char label;
	char *ifname, *model, *mac, *pcap;	/* pcap: file name in the run directory */
	bool have_pcap;
	uint64_t wire_frames;	/* every frame in the pcap */
	uint64_t wire_tx;	/* frames the NIC sent (ether src = its MAC) */
	uint64_t wire_rx;	/* frames it was sent (unicast to it, broadcast, multicast) */
	/* From metrics.json; NAN when not measured. */
	double nic_tx, nic_rx, nic_drops;	/* NIC counters (ethtool -S) */
	double ip_in, ip_out;		/* Ip.InReceives, Ip.OutRequests */
	double delivered;		/* Udp.InDatagrams + Tcp.InSegs */
	double stack_errors;		/* Ip discards, Udp/Tcp errors, no ports, ... */
};

struct runview {
	char *dir;
	struct metrics *m;		/* NULL when the run has no metrics.json */
	struct runview_link *links;
	size_t n_links;
	char *note;			/* why something is missing, or NULL */
};

/*
 * runview_read() - read RUN_DIR's result.json, metrics.json and pcaps
 *
 * Return: 0; -ENOENT when @dir has no result.json (not a run directory);
 * -EINVAL for a result.json or metrics.json that does not parse, or a pcap
 * that is not a capture (@err names the file).
 */
int runview_read(const char *dir, struct runview **out, char **err);
void runview_free(struct runview *v);

/* @all: every nonzero counter delta, not only the per-link summary. */
void runview_print(const struct runview *v, FILE *f, bool all);
struct json_object *runview_to_json(const struct runview *v);

#endif /* NETLAB_RUNVIEW_H */
