/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The packet path of a trace.dat recorded with netlab's default tracing set
 * (traceset.h): per-stage latency (driver -> IP -> L4 -> application on
 * receive, application -> IP -> qdisc -> device -> completion on transmit),
 * a per-flow table, a per-segment snoop listing and the drops with their
 * flows, in one streaming pass (tracefile.h).
 *
 * Following a packet. The join key is the skb address. A packet is "an skb
 * address from the event where it first appeared": it advances while the
 * same address shows up at later stages of the same direction, and it is
 * closed by its copy to the application (receive), its free (skb:consume_skb
 * or skb:kfree_skb), or the next first appearance of the address at an
 * earlier or equal stage (the address was reused: GRO merges, TCP frees and
 * the NAPI skb cache do so without a free event). Open packets live in a hash
 * table keyed by skb address and are dropped from it when they close, so
 * memory follows what is in flight, not the length of the trace.
 *
 *   receive: hand-off -> net:netif_receive_skb -> netlab:ip_local_deliver
 *	      -> netlab:tcp_v4_rcv | netlab:udp_rcv -> copy
 *	The hand-off is the driver's "netlab_drv: ... rx_handoff"
 *	line when the packet has one (driver-patches/), else
 *	net:napi_gro_receive_entry. The copy is skb:skb_copy_datagram_iovec,
 *	netlab:udp_recv_skb or netlab:skb_copy_csum, whichever comes first.
 *	Before the hand-off, inside a patched driver: the device's latest
 *	interrupt (when the poll was the first since it), poll_start and
 *	rx_desc lines before the hand-off line are the packet's.
 *   transmit: netlab:tcp_sendmsg | netlab:udp_sendmsg -> netlab:ip_output
 *	-> net:net_dev_queue -> net:net_dev_start_xmit -> net:net_dev_xmit
 *	-> the free at completion. TCP's skb at ip_output is the clone that
 *	goes to the device, so transmit packets start there (at
 *	net_dev_start_xmit, IPv4 by its protocol field, in a trace without
 *	ip_output and net_dev_queue); the sendmsg is
 *	joined by task and 4-tuple (the task's latest sendmsg on that tuple,
 *	not older than its latest recvmsg), and only in process context.
 *	A patched driver's xmit and tx_done lines for the skb stamp it too.
 *
 * Flows. A flow is one direction of a conversation: the IPv4 5-tuple of its
 * packets as they travel (source -> destination), so a TCP connection is two
 * flows, its data and its return direction. For each, what left this host's
 * IP layer (tx, at ip_output) and what arrived at it (rx, at
 * ip_local_deliver), the tasks that sent it (sendmsg) and that received it
 * (the copy), drops and TCP retransmissions. In netlab's loop topology both
 * ends are on the traced host, so a flow has both tx and rx counts.
 * IP fragments after the first carry no ports: they are counted under the
 * flow of the same addresses and protocol whose ports were last seen
 * (pktpath_flow.guessed). Ports read at ip_local_deliver are only trusted
 * when the L4 header was in the skb's linear data there (a first fragment
 * whose napi_gro_receive_entry showed a non-linear skb is read past the
 * linear part: the probe sees stale bytes).
 *
 * IPv4 only (family = 6 traffic is not followed: its packets show as not
 * followed at napi_gro_receive_entry's or net_dev_start_xmit's protocol,
 * and its flows are not listed). Following IPv6 needs: kprobes reading the
 * IPv6 header at ip6_input_finish (receive; ipv6_list_rcv reaches it too)
 * and ip6_output / ip6_finish_output2 (transmit) beside traceset.c's IPHDR
 * ones (payload_len, nexthdr, both addresses as four u32 each); udpv6_rcv
 * and tcp_v6_rcv, udpv6_sendmsg and tcp_sendmsg's v6 sockets for the L4
 * stages; pktpath_tuple widened to 16-byte addresses with a family (its
 * hash, order, pktpath_addr_str and the JSON "saddr"/"daddr"); the F_V4
 * tests of pktpath-ev.c and pktpath-drv.c (ETH_P_IP) taking ETH_P_IPV6;
 * and fragments found through the fragment header (nexthdr 44: offset and
 * M flag at +2, the L4 header 8 bytes further), not iph->frag_off.
 *
 * Counting. A stage's histogram holds every packet that passed both of its
 * ends, whatever its outcome; "total" only the packets followed end to end,
 * so total.count == followed. Receive packets are the IPv4 ones (by
 * napi_gro_receive_entry's protocol, or seen at ip_local_deliver); transmit
 * packets start at ip_output. Every other outcome is a reason a packet was
 * not followed (enum pktpath_outcome). Two are heuristics the probes force:
 * no_payload (TCP's data offset is not probed: a segment without PSH and at
 * most 60 bytes of TCP is taken as a control segment) and the sendmsg join
 * (a sendmsg stops matching once its task has called recvmsg since).
 * Loopback traffic, where one skb goes from ip_output to netif_receive_skb,
 * is not followed across the turn.
 *
 * Devices. A packet is also counted under the network device it passed
 * (pktpath.devs), so that one NIC's stages are not hidden among another's:
 * the device named by its first event of its direction that names one.
 * Transmit: net:net_dev_queue, net_dev_start_xmit or net_dev_xmit (their
 * "name" field), or, in a trace without them, the driver's xmit / tx_done
 * line. Receive: the driver's rx_handoff line, else
 * net:napi_gro_receive_entry or net:netif_receive_skb. The first
 * PKTPATH_MAX_DEVS names get a table each; packets of further devices, and
 * those no event names a device of, are counted per direction only.
 *
 * Time stamps are the trace clock in ns; latencies are reported in us.
 */
#ifndef NETLAB_PKTPATH_H
#define NETLAB_PKTPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct hist;
struct pktpath_lat;
struct json_object;
struct metrics;

enum pktpath_dir { PKTPATH_RX, PKTPATH_TX, PKTPATH_DIRS };

/* Receive stages: indexes of pktpath_stats.stage for PKTPATH_RX. */
enum {
	PKTPATH_RX_IRQ_POLL, /* interrupt -> NAPI poll start (driver lines) */
	PKTPATH_RX_POLL_HANDOFF, /* poll start -> hand-off (driver lines) */
	PKTPATH_RX_DESC_HANDOFF, /* descriptor seen -> hand-off (driver lines) */
	PKTPATH_RX_DRV_IP, /* hand-off -> ip_local_deliver */
	PKTPATH_RX_DRV_NET, /* hand-off -> netif_receive_skb */
	PKTPATH_RX_NET_IP, /* netif_receive_skb -> ip_local_deliver */
	PKTPATH_RX_IP_TCP, /* ip_local_deliver -> tcp_v4_rcv */
	PKTPATH_RX_IP_UDP, /* ip_local_deliver -> udp_rcv */
	PKTPATH_RX_TCP_APP, /* tcp_v4_rcv -> copy */
	PKTPATH_RX_UDP_APP, /* udp_rcv -> copy */
	PKTPATH_RX_TOTAL, /* hand-off -> copy */
	PKTPATH_RX_STAGES
};

/* Transmit stages: indexes of pktpath_stats.stage for PKTPATH_TX. */
enum {
	PKTPATH_TX_APP_IP, /* sendmsg -> ip_output */
	PKTPATH_TX_IP_QDISC, /* ip_output -> net_dev_queue */
	PKTPATH_TX_QDISC, /* net_dev_queue -> net_dev_start_xmit */
	PKTPATH_TX_DEV, /* net_dev_start_xmit -> net_dev_xmit */
	PKTPATH_TX_DONE, /* net_dev_xmit -> free (completion) */
	PKTPATH_TX_DRV_XMIT, /* net_dev_start_xmit -> the driver's xmit line */
	PKTPATH_TX_DRV_DONE, /* the driver's xmit -> its tx_done (sent, reclaimed) */
	PKTPATH_TX_TOTAL, /* sendmsg -> free */
	PKTPATH_TX_STAGES
};

#define PKTPATH_MAX_STAGES PKTPATH_RX_STAGES

/* "drv_ip", "app_ip", ...; NULL past the last stage of @dir. */
const char *pktpath_stage_name(enum pktpath_dir dir, int stage);
int pktpath_stages(enum pktpath_dir dir);

/* How a packet ended. */
enum pktpath_outcome {
	PKTPATH_FOLLOWED, /* every stage, end to end */
	PKTPATH_GRO_MERGED, /* rx: merged by GRO into another skb (never reached netif_receive_skb)
			     */
	PKTPATH_REASSEMBLED, /* rx: an IP fragment absorbed by reassembly */
	PKTPATH_DROPPED, /* skb:kfree_skb before the copy (rx) or before net_dev_xmit (tx) */
	PKTPATH_NO_COPY, /* rx: freed (consume_skb) after L4 without a copy */
	PKTPATH_NO_PAYLOAD, /* rx: a TCP control segment (ACK, SYN, FIN) TCP consumed, see below */
	PKTPATH_OTHER_PROTO, /* rx: neither TCP nor UDP (ICMP, ...): no L4 stage traced */
	PKTPATH_NO_APP, /* tx: sent from softirq or without a sendmsg (ACKs, retransmits) */
	PKTPATH_NOT_SENT, /* tx: consume_skb before net_dev_xmit (e.g. software GSO) */
	/*
	 * rx: reached the copy, but the event of a stage in between is
	 * missing though the trace records that event: a kprobe that hit
	 * while another kprobe's handler ran (a softirq on its interrupt
	 * exit) is not reported, only counted in kprobe_profile's misses.
	 */
	PKTPATH_MISSED_PROBE,
	PKTPATH_ADDRESS_REUSED, /* the address reappeared before the packet closed */
	PKTPATH_TRACE_ENDED, /* still open at the end of the trace */
	PKTPATH_OUTCOMES
};

/* "followed", "gro_merged", ... */
const char *pktpath_outcome_name(enum pktpath_outcome o);

/*
 * An IPv4 5-tuple. Addresses as the probes read them: the __be32 as a
 * little-endian u32, so the first octet is the low byte (pktpath_addr_str()).
 * Ports in host order; 0 with ports == false when unknown.
 */
struct pktpath_tuple {
	uint32_t saddr, daddr;
	uint16_t sport, dport;
	uint8_t proto; /* 6 TCP, 17 UDP, ... */
	bool ports;
};

/* "198.18.0.1" into @buf (at least 16 bytes); returns @buf. */
char *pktpath_addr_str(uint32_t addr, char *buf);

/* A task: pid and the comm trace-cmd stored for it. */
struct pktpath_task {
	int pid;
	char *comm;
};

/* One closed packet, as given to pktpath_opts.on_packet and on_snoop. */
struct pktpath_packet {
	enum pktpath_dir dir;
	enum pktpath_outcome outcome;
	uint64_t skbaddr;
	uint64_t ts; /* at ip_local_deliver / ip_output (else its first event), ns */
	uint64_t rel; /* ts - pktpath.t0 */
	bool has_ip; /* seen at the IP stage: tuple, ip_len, frag, tcpflags valid */
	struct pktpath_tuple tuple;
	bool tuple_guessed; /* ports from the flow of the same addresses (fragment) */
	unsigned int ip_len; /* IPv4 total length */
	unsigned int frag; /* IPv4 frag_off, host order: 0x4000 DF, 0x2000 MF, 0x1fff offset */
	int tcpflags; /* the TCP flags byte, -1 when not read (not TCP, fragment, non-linear) */
	const struct pktpath_task *task; /* rx: the task that copied it; tx: the sender; or NULL */
	bool handoff_drv; /* rx: the hand-off is the driver's rx_handoff line */
	const char *dev; /* the device it passed (see "Devices" above), or NULL when unknown */
	int64_t stage_ns[PKTPATH_MAX_STAGES]; /* per stage of @dir, -1 when not measured */
};

/* One skb:kfree_skb, as given to pktpath_opts.on_drop (in time order). */
struct pktpath_drop {
	uint64_t ts, rel;
	uint64_t skbaddr;
	unsigned int protocol; /* ethertype, host order */
	uint64_t location;
	const char *location_name; /* "symbol+0xoff" or "0x..." */
	long long reason; /* -1 when the event has no reason field */
	const char *reason_name; /* as the event's print fmt decodes it (libtraceevent), or "-" */
	int pid;
	const struct pktpath_tuple *flow; /* the flow of the skb when known, else NULL */
	enum pktpath_dir dir; /* of the skb, when flow != NULL */
	bool reassembly; /* an IP fragment freed with its reassembled packet: not a drop */
	/*
	 * An IPv4 receive packet dropped by its transport or socket (the
	 * reason says so: SOCKET_*, TCP_*, UDP_*, NO_SOCKET, PROTO_MEM) that
	 * was never seen at netlab:ip_local_deliver, though the trace records
	 * it: the kernel skipped that kprobe (another kprobe's handler was
	 * running on the CPU, e.g. a softirq on the exit of an interrupt that
	 * came during a process-context probe). Its flow is unknown.
	 */
	bool missed_probe;
};

/* A driver line (driver-patches/README.md). */
struct pktpath_drv_line {
	char driver[16]; /* "e1000e" */
	char ifname[16]; /* "ethA" */
	char event[24]; /* "rx_handoff" */
	int q; /* -1 when absent */
	int dir; /* an irq's dir=: 0 rx, 1 tx, -1 when absent (shared) */
	uint64_t skb; /* 0 when absent */
	long long len; /* -1 when absent */
	long long data_len; /* rx_handoff's skb->data_len; -1 when absent (older patches) */
	int proto; /* rx_handoff's skb->protocol (0x0800: IPv4); -1 when absent */
};

/**
 * pktpath_drv_line_parse() - parse "netlab_drv: <driver> <ifname> <event> k=v ..."
 * @text: the printed text of a driver line; the prefix may follow the
 *	  event's name or the caller's symbol ("e1000e_poll: netlab_drv: ...")
 * @out: the fields; unknown keys are ignored, key order does not matter
 *
 * Return: 0; -ENOENT when @text has no "netlab_drv: " prefix; -EINVAL when
 * it has one but the rest is malformed (missing words, a key without '=', a
 * bad number for q/skb/len).
 */
int pktpath_drv_line_parse(const char *text, struct pktpath_drv_line *out);

/* Latency histograms (ns) of one direction, with counts. */
struct pktpath_stats {
	uint64_t packets; /* packets of that direction (IPv4) */
	uint64_t followed;
	uint64_t outcome[PKTPATH_OUTCOMES];
	struct hist *stage[PKTPATH_MAX_STAGES]; /* NULL when no sample */
};

/* At most this many devices get their own stage tables (pktpath.devs). */
#define PKTPATH_MAX_DEVS 16

/*
 * Per network device: the packets that passed it. The name is as the trace
 * gives it (from the guest: escape it to print it anywhere but a terminal).
 */
struct pktpath_dev {
	char *name; /* "ethA" */
	struct pktpath_stats dir[PKTPATH_DIRS];
};

/* Per process: rx attributed at the copy, tx at the sendmsg. */
struct pktpath_proc {
	struct pktpath_task task;
	struct pktpath_stats dir[PKTPATH_DIRS];
};

struct pktpath_flow {
	struct pktpath_tuple t;
	uint64_t tx_packets, tx_bytes; /* at ip_output (IP length) */
	uint64_t rx_packets, rx_bytes; /* at ip_local_deliver (IP length) */
	uint64_t guessed; /* of those, fragments attributed by addresses only */
	uint64_t drops; /* kfree_skb of its packets, not counting reassembly */
	uint64_t retransmits; /* tcp:tcp_retransmit_skb */
	struct pktpath_task *senders; /* pids: the tasks of the matched sendmsg calls */
	size_t n_senders;
	struct pktpath_task *receivers; /* the tasks that copied its packets */
	size_t n_receivers;
	/*
	 * CPUs, a bit each (CPU 63 and above share bit 63): where its packets
	 * met the IP layer (tx ip_output; rx ip_local_deliver, the CPU RPS
	 * steered them to) and where the receiver copied them.
	 */
	uint64_t ip_cpus[PKTPATH_DIRS];
	uint64_t copy_cpus;
	/* End-to-end latency of its followed packets per direction (the "total" stage), or NULL. */
	struct pktpath_lat *lat[PKTPATH_DIRS];
};

/*
 * A flow's latency: hist.h's buckets taken sixteen at a time, so that a
 * flow costs 2 KiB rather than 58 (a trace of short connections has
 * thousands): a percentile is within 1/16 of the value, clamped to min..max.
 */
struct pktpath_lat_summary {
	uint64_t count;
	uint64_t min, p50, p99, max; /* ns */
};

/* @l may be NULL (no packets): all zero. */
void pktpath_lat_summarize(const struct pktpath_lat *l, struct pktpath_lat_summary *s);

/* "0,1" for a CPU mask, "-" for none, into @buf of @n bytes; returns @buf. */
char *pktpath_cpus_str(uint64_t mask, char *buf, size_t n);

struct pktpath {
	char *path;
	int cpus;
	int buffers;
	uint64_t t0, last_ts; /* first and last event, ns */
	uint64_t events;
	uint64_t lost, lost_gaps, lost_unknown; /* as in tracedrops */

	char **present; /* packet-path events the trace holds, "net:netif_receive_skb" */
	size_t n_present;
	char **missing; /* and those it does not */
	size_t n_missing;

	const char *handoff; /* "netlab_drv rx_handoff", "net:napi_gro_receive_entry", or "mixed" */
	uint64_t handoff_drv, handoff_napi; /* receive packets with each hand-off */
	uint64_t drv_lines; /* "netlab_drv: " lines of any event */
	uint64_t drv_bad_lines; /* of those, malformed */

	struct pktpath_stats dir[PKTPATH_DIRS];
	struct pktpath_dev *devs; /* by name; only devices with packets */
	size_t n_devs;
	/*
	 * Per queue of a device, named "ethB_q1": the queue the driver's
	 * lines (driver-patches/, q=) gave its packets (rx: the hand-off line;
	 * tx: the xmit line). Only devices whose lines named two queues or
	 * more; by name.
	 */
	struct pktpath_dev *queues;
	size_t n_queues;
	struct pktpath_proc *procs; /* by pid */
	size_t n_procs;
	struct pktpath_flow *flows; /* by bytes (tx + rx), descending */
	size_t n_flows;

	uint64_t drops; /* skb:kfree_skb records */
	uint64_t drops_in_flows; /* of those, of a packet of a known flow, not reassembly */
	uint64_t reassembly_frees; /* kfree_skb of fragments after reassembly */
	uint64_t drops_missed_probe; /* drops of packets whose IP-stage probe was skipped (pktpath_drop) */
	uint64_t retransmits; /* tcp:tcp_retransmit_skb records */
};

struct pktpath_opts {
	/*
	 * Callbacks, NULL for none; ctx is given back. A nonzero return stops
	 * the read and pktpath_read() returns it. Packets are given when they
	 * close, in the order they close (trace time of the closing event).
	 * on_packet: every counted packet (format with pktpath_packet_line()).
	 * on_snoop: every packet that was seen at the IP stage
	 * (pktpath_snoop_line()). on_drop: every skb:kfree_skb, in time order.
	 */
	int (*on_packet)(void *ctx, const struct pktpath_packet *p);
	int (*on_snoop)(void *ctx, const struct pktpath_packet *p);
	int (*on_drop)(void *ctx, const struct pktpath_drop *d);
	void *ctx;
};

/**
 * pktpath_read() - follow the packets of a trace.dat
 * @path: the trace.dat file
 * @o: options, or NULL for none
 * @out: on success, the result; free it with pktpath_free()
 * @err: on failure, a message naming @path with a "\nhint: ..." line; the
 *	 caller frees it
 *
 * Events the trace lacks leave their stages unreported (pktpath.missing).
 *
 * Return: 0; -ENOENT (and other errno values from open) for a file that cannot
 * be opened; -EINVAL for a file that is not a trace.dat, or is truncated or
 * corrupted; -ENODATA for a trace that holds none of the packet-path events
 * (only skb:kfree_skb, say); -ENOMEM; or the nonzero value a callback returned.
 */
int pktpath_read(const char *path, const struct pktpath_opts *o, struct pktpath **out, char **err);

/*
 * The same in a shared pass (trace/tracepass.h): pktpath_attach() opens the
 * file if no analysis did yet and resolves the events (errors as
 * pktpath_read(), nothing attached; @o is copied); after tracepass_run(),
 * pktpath_collect() gives the result or error pktpath_read() would have, and
 * frees @s.
 */
struct tracepass;
struct pktpath_pass;
int pktpath_attach(struct tracepass *tp, const struct pktpath_opts *o, struct pktpath_pass **s,
		   char **err);
int pktpath_collect(struct pktpath_pass *s, struct pktpath **out, char **err);

void pktpath_free(struct pktpath *p);

/*
 * The seed script's line for a packet, into @buf (@n bytes, 256 is plenty):
 * "|I| drv-ip: 23 us, ip-udp: 34 us, udp-app: 189 us | Proc udp-stream, PID 150"
 * "|O| app-ip: 12 us, ip-qdisc: 3 us, qdisc: 1 us, dev: 9 us, done: 40 us | Proc rr, PID 126"
 * Stages not measured are left out; a packet not followed end to end ends
 * in " | <outcome>"; an unknown task prints "Proc ?, PID ?".
 * Return: what snprintf returns.
 */
int pktpath_packet_line(const struct pktpath_packet *p, char *buf, size_t n);

/*
 * A tcpsnoop-style line: "TIME(s) DIR PID COMM SADDR:SPORT DADDR:DPORT PROTO
 * LEN FLAGS", e.g. "   0.104230 RX    99 rr  198.18.0.1:43872 -> 198.18.0.2:5202 tcp  152 .AP..."
 * (flags: F S R P A U, '.' when clear, "-" when unknown).
 */
int pktpath_snoop_line(const struct pktpath_packet *p, char *buf, size_t n);

/* "FSRPAU" decoded into @buf (7 bytes): letters set, '.' clear; "-" when flags < 0. */
char *pktpath_tcpflags_str(int flags, char *buf);

/* A stage's percentile in us (p in 0..100), or -1 when it has no sample. */
double pktpath_stage_us(const struct pktpath_stats *s, int stage, double p);

/* Orders of the flow table: the top N by ... */
enum pktpath_flow_order {
	PKTPATH_BY_BYTES, /* tx + rx bytes (pktpath.flows' own order) */
	PKTPATH_BY_DROPS, /* drops, then retransmits */
	PKTPATH_BY_LATENCY, /* the worst p99 of either direction */
	PKTPATH_FLOW_ORDERS
};

/* "bytes", "drops", "latency"; pktpath_flow_order_parse() gives -1 for an unknown name. */
const char *pktpath_flow_order_name(enum pktpath_flow_order o);
int pktpath_flow_order_parse(const char *name);

/*
 * The indexes of pktpath.flows in @order, into @idx (p->n_flows entries);
 * stable: equal flows keep pktpath.flows' order.
 */
void pktpath_flows_sorted(const struct pktpath *p, enum pktpath_flow_order order, size_t *idx);

struct pktpath_print_opts {
	bool processes; /* the per-process tables */
	bool flows; /* the flow table */
	size_t max_flows; /* 0: all */
	enum pktpath_flow_order flow_order; /* the flow table's order */
};

/*
 * The text report: stage tables per direction, each with its stages per
 * device below it, not-followed counts, processes, flows.
 */
void pktpath_print(const struct pktpath *p, FILE *f, const struct pktpath_print_opts *o);

/**
 * pktpath_to_json() - the result as one JSON object
 *
 * Keys: "trace" (file, cpus, events, first/last timestamps, lost events),
 * "events" (present, missing), "handoff", "rx" and "tx" (packets, followed,
 * not_followed by reason, stages: name -> count, p50_us, p90_us, p99_us,
 * max_us, and by_dev: device name -> packets, stages, the same per device),
 * "processes", "flows", "drops", "retransmits".
 * Return: a new object (json_object_put() it), or NULL on ENOMEM.
 */
struct json_object *pktpath_to_json(const struct pktpath *p);

/**
 * pktpath_metrics() - the result as metrics for scenario checks
 * @p: the result of pktpath_read()
 * @m: the map to add to
 *
 * latency.{rx,tx}.<stage>.{p50_us,p90_us,p99_us,max_us,count} for stages
 * with samples; the same per device, latency.{rx,tx}.<stage>.<ifname>.*
 * (latency.tx.dev.ethA.p90_us), for devices whose name is one metric-name
 * component (pktpath_dev_metric_name()); latency.{rx,tx}.packets,
 * .followed, .not_followed.<outcome> (every outcome, 0 included);
 * flows.count, flows.drops, flows.retransmits.
 */
void pktpath_metrics(const struct pktpath *p, struct metrics *m);

/*
 * May device name @name be a component of a metric name: not empty, and
 * only printable ASCII other than '.' and blanks ("eth0.100" may not)?
 */
bool pktpath_dev_metric_name(const char *name);

#endif /* NETLAB_PKTPATH_H */
