// SPDX-License-Identifier: GPL-2.0
/*
 * The packet path of trace.dat files recorded in netlab's own guest with the
 * full default tracing set (fixtures/runs, see README there): golden JSON,
 * and facts checked by hand against the traffic generators' own JSON and
 * `trace-cmd report`. NETLAB_UPDATE_GOLDEN=1 rewrites the expected JSON.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "hist.h"
#include "lib/metrics.h"
#include "trace/pktpath.h"
#include "golden.h"
#include "lib/util.h"

#ifndef FIXTURES
#define FIXTURES "tests/unit/fixtures"
#endif
#define RUNS FIXTURES "/runs/"

#define A 0x010012c6u /* 198.18.0.1 as the probes read it: first octet low */
#define B 0x020012c6u /* 198.18.0.2 */

static char *trace_path(const char *run)
{
	return xasprintf(RUNS "%s/files/trace.dat", run);
}

static struct pktpath *read_ok(const char *run, const struct pktpath_opts *o)
{
	struct pktpath *p = NULL;
	char *path = trace_path(run), *err = NULL;
	int ret = pktpath_read(path, o, &p, &err);

	if (ret)
		print_error("%s: %d %s\n", path, ret, err ? err : "");
	assert_int_equal(ret, 0);
	assert_non_null(p);
	assert_null(err);
	free(path);
	return p;
}

/* A number from a run's files/NAME.json. */
static long long run_json(const char *run, const char *file, const char *key)
{
	char *path = xasprintf(RUNS "%s/files/%s", run, file);
	struct json_object *o = json_object_from_file(path), *v;
	long long n;

	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, key, &v));
	n = json_object_get_int64(v);
	json_object_put(o);
	free(path);
	return n;
}

/* A metric of the run's metrics.json (the kernel's counters, read by the guest). */
static double run_metric(const char *run, const char *key)
{
	char *path = xasprintf(RUNS "%s/metrics.json", run);
	struct json_object *o = json_object_from_file(path), *v;
	double d;

	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, key, &v));
	d = json_object_get_double(v);
	json_object_put(o);
	free(path);
	return d;
}

static const struct pktpath_flow *flow_find(const struct pktpath *p, uint8_t proto, uint32_t saddr,
					    uint32_t daddr, int sport, int dport)
{
	for (size_t i = 0; i < p->n_flows; i++) {
		const struct pktpath_tuple *t = &p->flows[i].t;

		if (t->proto == proto && t->saddr == saddr && t->daddr == daddr && t->ports &&
		    (sport < 0 || t->sport == sport) && (dport < 0 || t->dport == dport))
			return &p->flows[i];
	}
	return NULL;
}

/* ---- golden JSON ------------------------------------------------------------ */

static void golden(const char *run)
{
	struct pktpath *p = read_ok(run, NULL);
	char *exp_path = xasprintf(RUNS "%s/pktpath.expected.json", run);
	char *name = xasprintf("%s/files/trace.dat", run);

	golden_check(pktpath_to_json(p), name, exp_path);
	free(name);
	free(exp_path);
	pktpath_free(p);
}

static void test_pktpath__udp_path_matches_golden_json(void **state)
{
	golden("udp-path");
}

static void test_pktpath__tcp_rr_matches_golden_json(void **state)
{
	golden("tcp-rr");
}

static void test_pktpath__tcp_stream_matches_golden_json(void **state)
{
	golden("tcp-stream");
}

static void test_pktpath__lean_udp_matches_golden_json(void **state)
{
	golden("lean-udp");
}

static void test_pktpath__lean_tcp_rr_matches_golden_json(void **state)
{
	golden("lean-tcp-rr");
}

/* ---- udp-path --------------------------------------------------------------- */

struct seen {
	size_t rx_followed, tx_followed, rx_udp_followed;
	size_t bad_sum; /* followed packets whose stages do not add up */
	size_t reqs, resps; /* tcp-rr: copies of 100 B requests and 1000 B responses */
	size_t snoops, snoop_no_ip;
	size_t list_frees, list_frees_reassembly, drops_with_flow;
};

static int check_packet(void *ctx, const struct pktpath_packet *pk)
{
	struct seen *s = ctx;
	const int64_t *ns = pk->stage_ns;

	for (int i = 0; i < pktpath_stages(pk->dir); i++)
		if (ns[i] < -1)
			s->bad_sum++;
	if (pk->dir == PKTPATH_RX && pk->outcome != PKTPATH_MISSED_PROBE &&
	    pk->outcome != PKTPATH_FOLLOWED && ns[PKTPATH_RX_TOTAL] >= 0)
		s->bad_sum++; /* total only for followed packets */
	if (pk->outcome != PKTPATH_FOLLOWED)
		goto rr;
	if (pk->dir == PKTPATH_RX) {
		int l4 = pk->tuple.proto == 6 ? PKTPATH_RX_IP_TCP : PKTPATH_RX_IP_UDP;
		int app = pk->tuple.proto == 6 ? PKTPATH_RX_TCP_APP : PKTPATH_RX_UDP_APP;

		s->rx_followed++;
		s->rx_udp_followed += pk->tuple.proto == 17;
		if (ns[PKTPATH_RX_DRV_IP] < 0 || ns[l4] < 0 || ns[app] < 0 ||
		    ns[PKTPATH_RX_DRV_IP] + ns[l4] + ns[app] != ns[PKTPATH_RX_TOTAL] ||
		    ns[PKTPATH_RX_DRV_NET] + ns[PKTPATH_RX_NET_IP] != ns[PKTPATH_RX_DRV_IP] ||
		    !pk->task)
			s->bad_sum++;
	} else {
		int64_t sum = 0;

		s->tx_followed++;
		for (int i = PKTPATH_TX_APP_IP; i <= PKTPATH_TX_DONE; i++) {
			if (ns[i] < 0)
				s->bad_sum++;
			sum += ns[i];
		}
		if (sum != ns[PKTPATH_TX_TOTAL] || !pk->task)
			s->bad_sum++;
	}
rr:
	/* A copy reached: followed, or with a kprobe event missed on the way. */
	if (pk->dir == PKTPATH_RX &&
	    (pk->outcome == PKTPATH_FOLLOWED || pk->outcome == PKTPATH_MISSED_PROBE)) {
		if (pk->tuple.saddr == A && pk->tuple.dport == 5202 && pk->ip_len == 152)
			s->reqs++;
		/* a missed ip_local_deliver leaves no IP length: the flow is the reader's socket */
		if (pk->tuple.saddr == B && pk->tuple.sport == 5202 &&
		    (pk->ip_len == 1052 || (!pk->has_ip && pk->outcome == PKTPATH_MISSED_PROBE)))
			s->resps++;
	}
	return 0;
}

/*
 * The receiver counted 200 datagrams and 5 END copies; the trace follows
 * every one of them from the hand-off to udp_recvmsg, and the stages add up.
 */
static void test_pktpath__udp_path_follows_every_datagram_received(void **state)
{
	struct seen s = { 0 };
	struct pktpath_opts o = { .on_packet = check_packet, .ctx = &s };
	struct pktpath *p = read_ok("udp-path", &o);
	long long received = run_json("udp-path", "recv.json", "received") +
			     run_json("udp-path", "recv.json", "end_copies_received");
	long long sent = run_json("udp-path", "send.json", "sent") +
			 run_json("udp-path", "send.json", "end_copies_sent");

	assert_int_equal(received, 205);
	assert_int_equal(s.rx_udp_followed, received);
	assert_int_equal(p->dir[PKTPATH_RX].followed, received);
	assert_int_equal(p->dir[PKTPATH_TX].followed, sent);
	assert_int_equal(s.tx_followed, sent);
	assert_int_equal(s.bad_sum, 0);
	assert_string_equal(p->handoff, "net:napi_gro_receive_entry");
	assert_int_equal(p->dir[PKTPATH_RX].stage[PKTPATH_RX_UDP_APP]->count, received);
	assert_null(p->dir[PKTPATH_RX].stage[PKTPATH_RX_TCP_APP]);
	pktpath_free(p);
}

/* The flow 198.18.0.1 -> 198.18.0.2:5201: every datagram sent, one sending and one receiving
 * udp-stream. */
static void test_pktpath__udp_path_flow_has_sender_and_receiver(void **state)
{
	struct pktpath *p = read_ok("udp-path", NULL);
	long long sent = run_json("udp-path", "send.json", "sent") +
			 run_json("udp-path", "send.json", "end_copies_sent");
	const struct pktpath_flow *f = flow_find(p, 17, A, B, -1, 5201);

	assert_non_null(f);
	assert_int_equal(f->tx_packets, sent);
	assert_int_equal(f->rx_packets, sent);
	/* 200 B + UDP + IPv4 headers; the END copies carry 32 B (`trace-cmd report`: len=60) */
	assert_int_equal(f->tx_bytes, 200 * 228 + 5 * 60);
	assert_int_equal(f->n_senders, 1);
	assert_int_equal(f->n_receivers, 1);
	assert_string_equal(f->senders[0].comm, "udp-stream");
	assert_string_equal(f->receivers[0].comm, "udp-stream");
	assert_int_not_equal(f->senders[0].pid, f->receivers[0].pid);
	/* `trace-cmd report`: udp_sendmsg from udp-stream-128, udp_recv_skb in udp-stream-99 */
	assert_int_equal(f->senders[0].pid, 128);
	assert_int_equal(f->receivers[0].pid, 99);
	assert_int_equal(f->drops, 0);
	assert_int_equal(p->n_flows, 1);
	pktpath_free(p);
}

/* ---- tcp-rr ------------------------------------------------------------------ */

/* Both directions of the connection, each with the other rr as receiver; 200 transactions. */
static void test_pktpath__tcp_rr_flows_both_directions_with_rr_pids(void **state)
{
	struct seen s = { 0 };
	struct pktpath_opts o = { .on_packet = check_packet, .ctx = &s };
	struct pktpath *p = read_ok("tcp-rr", &o);
	long long n = run_json("tcp-rr", "client.json", "transactions");
	const struct pktpath_flow *req = flow_find(p, 6, A, B, -1, 5202);
	const struct pktpath_flow *resp = flow_find(p, 6, B, A, 5202, -1);

	assert_int_equal(n, 200);
	assert_non_null(req);
	assert_non_null(resp);
	assert_int_equal(req->t.sport, resp->t.dport);
	assert_int_equal(req->n_senders, 1);
	assert_int_equal(req->n_receivers, 1);
	assert_int_equal(resp->n_senders, 1);
	assert_int_equal(resp->n_receivers, 1);
	assert_string_equal(req->senders[0].comm, "rr");
	assert_string_equal(req->receivers[0].comm, "rr");
	/* the client sends requests and receives responses, the server the reverse */
	assert_int_equal(req->senders[0].pid, resp->receivers[0].pid);
	assert_int_equal(req->receivers[0].pid, resp->senders[0].pid);
	assert_int_not_equal(req->senders[0].pid, req->receivers[0].pid);
	assert_int_equal(s.reqs, n);
	assert_int_equal(s.resps, n);
	/* what left each side's IP layer = the kernel's own IpExt OutOctets */
	assert_int_equal(req->tx_bytes, run_metric("tcp-rr", "netstat.A.IpExt.OutOctets"));
	assert_int_equal(resp->tx_bytes, run_metric("tcp-rr", "netstat.B.IpExt.OutOctets"));
	assert_int_equal(req->rx_bytes, run_metric("tcp-rr", "netstat.B.IpExt.InOctets"));
	/* A received all of B's 210616 B; 9 ip_local_deliver events of 1052 B were missed */
	assert_int_equal(resp->rx_bytes + 9 * 1052,
			 run_metric("tcp-rr", "netstat.A.IpExt.InOctets"));
	assert_int_equal(s.bad_sum, 0);
	pktpath_free(p);
}

/*
 * Per flow: the end-to-end latency of its followed packets. In tcp-rr every
 * followed packet belongs to one of the two flows, so their counts add up to
 * the direction's "total" stage, with percentiles inside min..max. In
 * udp-path one flow is all the receive traffic: its p50 and p99 are within
 * 1/16 of the direction's (hist.h's buckets, sixteen at a time).
 */
static void test_pktpath__flow_latency_adds_up_to_the_direction(void **state)
{
	struct pktpath *p = read_ok("tcp-rr", NULL);
	const int total[PKTPATH_DIRS] = { PKTPATH_RX_TOTAL, PKTPATH_TX_TOTAL };

	for (int d = 0; d < PKTPATH_DIRS; d++) {
		const struct hist *h = p->dir[d].stage[total[d]];
		uint64_t sum = 0;

		assert_non_null(h);
		for (size_t i = 0; i < p->n_flows; i++) {
			struct pktpath_lat_summary s;

			pktpath_lat_summarize(p->flows[i].lat[d], &s);
			sum += s.count;
			if (!s.count)
				continue;
			assert_true(s.min <= s.p50 && s.p50 <= s.p99 && s.p99 <= s.max);
		}
		assert_int_equal(sum, h->count);
	}
	/* the request flow alone: its receive p50 against the direction's */
	{
		const struct pktpath_flow *req = flow_find(p, 6, A, B, -1, 5202);
		const struct pktpath_flow *resp = flow_find(p, 6, B, A, 5202, -1);
		struct pktpath_lat_summary a, b;
		const struct hist *h = p->dir[PKTPATH_RX].stage[PKTPATH_RX_TOTAL];

		pktpath_lat_summarize(req->lat[PKTPATH_RX], &a);
		pktpath_lat_summarize(resp->lat[PKTPATH_RX], &b);
		assert_int_equal(a.count + b.count, h->count);
		assert_true(a.min >= h->min && a.max <= h->max);
		assert_true(b.min >= h->min && b.max <= h->max);
	}
	pktpath_free(p);
	p = read_ok("udp-path", NULL);
	{
		const struct hist *h = p->dir[PKTPATH_RX].stage[PKTPATH_RX_TOTAL];
		const struct pktpath_flow *f = flow_find(p, 17, A, B, -1, -1);
		struct pktpath_lat_summary s;
		const double q[2] = { 50, 99 };

		assert_non_null(f);
		pktpath_lat_summarize(f->lat[PKTPATH_RX], &s);
		assert_int_equal(s.count, h->count);
		assert_int_equal(s.min, h->min);
		assert_int_equal(s.max, h->max);
		for (int i = 0; i < 2; i++) {
			uint64_t want = hist_percentile(h, q[i]), got = i ? s.p99 : s.p50;
			uint64_t diff = got > want ? got - want : want - got;

			assert_true(diff <= want / 16 + 1);
		}
	}
	pktpath_free(p);
}

/* CPUs per flow: one vCPU, so every flow that passed a stage did so on CPU 0. */
static void test_pktpath__flow_cpus(void **state)
{
	struct pktpath *p = read_ok("tcp-rr", NULL);
	const struct pktpath_flow *req = flow_find(p, 6, A, B, -1, 5202);
	char buf[32];

	assert_int_equal(req->ip_cpus[PKTPATH_TX], 1);
	assert_int_equal(req->ip_cpus[PKTPATH_RX], 1);
	assert_int_equal(req->copy_cpus, 1);
	assert_string_equal(pktpath_cpus_str(0, buf, sizeof(buf)), "-");
	assert_string_equal(pktpath_cpus_str(0x5, buf, sizeof(buf)), "0,2");
	assert_string_equal(pktpath_cpus_str(1ULL << 63 | 2, buf, sizeof(buf)), "1,63+");
	pktpath_free(p);
}

/* The flow table's orders: each descending in its key, stable, a permutation. */
static void test_pktpath__flow_orders(void **state)
{
	struct pktpath *p = read_ok("tcp-stream", NULL);
	size_t *idx = xcalloc(p->n_flows, sizeof(*idx));

	assert_true(p->n_flows >= 2);
	assert_int_equal(pktpath_flow_order_parse("bytes"), PKTPATH_BY_BYTES);
	assert_int_equal(pktpath_flow_order_parse("drops"), PKTPATH_BY_DROPS);
	assert_int_equal(pktpath_flow_order_parse("latency"), PKTPATH_BY_LATENCY);
	assert_int_equal(pktpath_flow_order_parse("size"), -1);
	/* bytes: pktpath.flows' own order */
	pktpath_flows_sorted(p, PKTPATH_BY_BYTES, idx);
	for (size_t i = 0; i < p->n_flows; i++)
		assert_int_equal(idx[i], i);
	pktpath_flows_sorted(p, PKTPATH_BY_LATENCY, idx);
	for (size_t i = 1; i < p->n_flows; i++) {
		struct pktpath_lat_summary a[2], b[2];

		for (int d = 0; d < PKTPATH_DIRS; d++) {
			pktpath_lat_summarize(p->flows[idx[i - 1]].lat[d], &a[d]);
			pktpath_lat_summarize(p->flows[idx[i]].lat[d], &b[d]);
		}
		assert_true((a[0].p99 > a[1].p99 ? a[0].p99 : a[1].p99) >=
			    (b[0].p99 > b[1].p99 ? b[0].p99 : b[1].p99));
	}
	pktpath_flows_sorted(p, PKTPATH_BY_DROPS, idx);
	for (size_t i = 1; i < p->n_flows; i++) {
		const struct pktpath_flow *x = &p->flows[idx[i - 1]], *y = &p->flows[idx[i]];

		assert_true(x->drops > y->drops ||
			    (x->drops == y->drops && (x->retransmits > y->retransmits ||
						      (x->retransmits == y->retransmits && idx[i - 1] < idx[i]))));
	}
	free(idx);
	pktpath_free(p);
}

/*
 * 9 responses reach the copy without their netlab:ip_local_deliver and
 * tcp_v4_rcv events (checked in `trace-cmd report`: the NET_RX softirq ran
 * on the interrupt exit right after a tcp_recvmsg kprobe hit): missed_probe,
 * not followed; the 9 pure ACKs TCP consumed are no_payload.
 */
static void test_pktpath__tcp_rr_missed_kprobes_and_acks_are_not_followed(void **state)
{
	struct pktpath *p = read_ok("tcp-rr", NULL);
	const struct pktpath_stats *rx = &p->dir[PKTPATH_RX], *tx = &p->dir[PKTPATH_TX];

	assert_int_equal(rx->outcome[PKTPATH_MISSED_PROBE], 9);
	assert_int_equal(rx->outcome[PKTPATH_NO_PAYLOAD], 9);
	assert_int_equal(rx->followed + 18, rx->packets);
	assert_int_equal(rx->stage[PKTPATH_RX_TOTAL]->count, rx->followed);
	/* SYN, handshake ACKs and delayed ACKs: no sendmsg behind them */
	assert_int_equal(tx->outcome[PKTPATH_NO_APP], tx->packets - tx->followed);
	assert_int_equal(tx->stage[PKTPATH_TX_APP_IP]->count, tx->followed);
	pktpath_free(p);
}

/* ---- tcp-stream ----------------------------------------------------------------- */

static int check_drop(void *ctx, const struct pktpath_drop *d)
{
	struct seen *s = ctx;

	if (!strncmp(d->location_name, "kfree_skb_list_reason+", 22)) {
		s->list_frees++;
		s->list_frees_reassembly += d->reassembly;
		assert_string_equal(d->reason_name, "NOT_SPECIFIED");
	} else {
		assert_false(d->reassembly);
	}
	s->drops_with_flow += d->flow != NULL;
	return 0;
}

/*
 * QEMU's e1000e IP-fragments the TSO super-segments; the receiver frees the
 * fragments with the reassembled packet through kfree_skb_list_reason: those
 * are reassembled, not drops of the flow.
 */
static void test_pktpath__tcp_stream_fragments_reassembled_not_dropped(void **state)
{
	struct seen s = { 0 };
	struct pktpath_opts o = { .on_drop = check_drop, .ctx = &s };
	struct pktpath *p = read_ok("tcp-stream", &o);
	const struct pktpath_flow *data = flow_find(p, 6, A, B, -1, 5201);
	const struct pktpath_stats *rx = &p->dir[PKTPATH_RX];

	assert_non_null(data);
	/* 3788 kfree_skb at kfree_skb_list_reason in `trace-cmd report` */
	assert_int_equal(s.list_frees, 3788);
	assert_int_equal(s.list_frees_reassembly, p->reassembly_frees);
	assert_true(p->reassembly_frees > 3000);
	assert_true(rx->outcome[PKTPATH_REASSEMBLED] >= p->reassembly_frees);
	/* the rest: 8 at inet_frag_rbtree_purge, 1 TCP_INVALID_SEQUENCE at tcp_validate_incoming */
	assert_int_equal(p->drops_in_flows, 9);
	assert_int_equal(data->drops, 9);
	assert_int_equal(rx->outcome[PKTPATH_DROPPED], 9);
	/* tcp:tcp_retransmit_skb, 9 records, all of the data direction */
	assert_int_equal(data->retransmits, 9);
	/* non-first fragments counted under the data flow by their addresses */
	assert_true(data->guessed > 6000);
	/* stale bytes where a non-linear first fragment's ports would be make no flows */
	assert_int_equal(p->n_flows, 2);
	assert_int_equal(data->n_receivers, 1);
	assert_string_equal(data->receivers[0].comm, "tcp-stream");
	pktpath_free(p);
}

/* Segments the sender's ACK clock sends from softirq have no sendmsg stage. */
static void test_pktpath__tcp_stream_softirq_sends_are_no_app(void **state)
{
	struct pktpath *p = read_ok("tcp-stream", NULL);
	const struct pktpath_stats *tx = &p->dir[PKTPATH_TX];

	/* `trace-cmd report -l`: 9 ip_output of the sender in process context, one of them the SYN
	 */
	assert_int_equal(tx->followed, 8);
	assert_int_equal(tx->outcome[PKTPATH_NO_APP], 250);
	pktpath_free(p);
}

/* ---- lines ------------------------------------------------------------------------ */

static void test_pktpath__packet_line_has_seed_format(void **state)
{
	struct pktpath_task t = { .pid = 150, .comm = "udp-stream" };
	struct pktpath_packet pk = { .dir = PKTPATH_RX, .outcome = PKTPATH_FOLLOWED, .task = &t };
	char buf[256];

	for (int i = 0; i < PKTPATH_MAX_STAGES; i++)
		pk.stage_ns[i] = -1;
	pk.stage_ns[PKTPATH_RX_DRV_IP] = 23400;
	pk.stage_ns[PKTPATH_RX_DRV_NET] = 10000;
	pk.stage_ns[PKTPATH_RX_IP_UDP] = 33600;
	pk.stage_ns[PKTPATH_RX_UDP_APP] = 189000;
	pk.stage_ns[PKTPATH_RX_TOTAL] = 246000;
	pktpath_packet_line(&pk, buf, sizeof(buf));
	assert_string_equal(
		buf,
		"|I| drv-ip: 23 us, ip-udp: 34 us, udp-app: 189 us | Proc udp-stream, PID 150");

	pk = (struct pktpath_packet){ .dir = PKTPATH_TX, .outcome = PKTPATH_NO_APP };
	for (int i = 0; i < PKTPATH_MAX_STAGES; i++)
		pk.stage_ns[i] = -1;
	pk.stage_ns[PKTPATH_TX_IP_QDISC] = 3000;
	pk.stage_ns[PKTPATH_TX_QDISC] = 1000;
	pk.stage_ns[PKTPATH_TX_DEV] = 9000;
	pk.stage_ns[PKTPATH_TX_DONE] = 40000;
	pktpath_packet_line(&pk, buf, sizeof(buf));
	assert_string_equal(
		buf,
		"|O| ip-qdisc: 3 us, qdisc: 1 us, dev: 9 us, done: 40 us | Proc ?, PID ? | no_app");
}

static void test_pktpath__snoop_line_decodes_tuple_and_flags(void **state)
{
	struct pktpath_task t = { .pid = 99, .comm = "rr" };
	struct pktpath_packet pk = {
		.dir = PKTPATH_RX,
		.rel = 104230000,
		.task = &t,
		.has_ip = true,
		.ip_len = 152,
		.tuple = { .saddr = A,
			   .daddr = B,
			   .sport = 43872,
			   .dport = 5202,
			   .proto = 6,
			   .ports = true },
		.tcpflags = 0x18,
		.frag = 0x4000,
	};
	char buf[256], fl[8];

	pktpath_snoop_line(&pk, buf, sizeof(buf));
	assert_string_equal(
		buf,
		"   0.104230 RX     99 rr                   198.18.0.1:43872 -> 198.18.0.2:5202       tcp    152 ...PA.");
	assert_string_equal(pktpath_tcpflags_str(0x3f, fl), "FSRPAU");
	assert_string_equal(pktpath_tcpflags_str(0x12, fl), ".S..A.");
	assert_string_equal(pktpath_tcpflags_str(-1, fl), "-");
}

/* Every snoop line is a packet seen at IP, in close order, each with a known direction. */
static int count_snoop(void *ctx, const struct pktpath_packet *pk)
{
	struct seen *s = ctx;

	s->snoops++;
	s->snoop_no_ip += !pk->has_ip;
	return 0;
}

static void test_pktpath__snoop_lists_every_ip_packet(void **state)
{
	struct seen s = { 0 };
	struct pktpath_opts o = { .on_snoop = count_snoop, .ctx = &s };
	struct pktpath *p = read_ok("udp-path", &o);

	/* 205 udp_sendmsg -> ip_output, 205 ip_local_deliver in `trace-cmd report` */
	assert_int_equal(s.snoops, 410);
	assert_int_equal(s.snoop_no_ip, 0);
	pktpath_free(p);
}

static int stop_at_first(void *ctx, const struct pktpath_packet *pk)
{
	return 42;
}

static void test_pktpath__callback_return_stops_the_read(void **state)
{
	struct pktpath_opts o = { .on_packet = stop_at_first };
	struct pktpath *p = (struct pktpath *)1;
	char *path = trace_path("udp-path"), *err = NULL;

	assert_int_equal(pktpath_read(path, &o, &p, &err), 42);
	assert_null(p);
	free(err);
	free(path);
}

/* ---- the driver's hand-off (drv-e1000e-rx-80, driver-patched kernel) ------------ */

struct drv_seen {
	size_t rx, rx_drv, rx_napi;
	int64_t probe_drv_ip, probe_drv_net; /* of the packet below, -2 when not seen */
	uint64_t probe; /* its skb; 0: PROBE_SKB */
};

/*
 * trace-cmd report -t: the 1000-byte datagram in skb ffff8880024e6c00 is
 * handed up by e1000e at 18.887888751 (rx_handoff), enters GRO at
 * 18.887893671, netif_receive_skb at 18.887944543, ip_local_deliver at
 * 18.887961047.
 */
#define PROBE_SKB 0xffff8880024e6c00ull

static int check_drv_packet(void *ctx, const struct pktpath_packet *pk)
{
	struct drv_seen *s = ctx;

	if (pk->dir != PKTPATH_RX)
		return 0;
	s->rx++;
	if (pk->handoff_drv)
		s->rx_drv++;
	else
		s->rx_napi++;
	if (pk->skbaddr == (s->probe ? s->probe : PROBE_SKB) && s->probe_drv_ip == -2) {
		s->probe_drv_ip = pk->stage_ns[PKTPATH_RX_DRV_IP];
		s->probe_drv_net = pk->stage_ns[PKTPATH_RX_DRV_NET];
	}
	return 0;
}

/*
 * Every IPv4 receive packet of @run is handed off by its driver's rx_handoff
 * line (@lines driver lines in all, @packets packets), and the packet in
 * @skb (0: PROBE_SKB) measures drv_ip and drv_net from that line.
 */
static void drv_handoff_check(const char *run, uint64_t skb, uint64_t lines, uint64_t packets,
			      int64_t drv_ip, int64_t drv_net)
{
	struct drv_seen s = { .probe_drv_ip = -2, .probe_drv_net = -2, .probe = skb };
	struct pktpath_opts o = { .on_packet = check_drv_packet, .ctx = &s };
	struct pktpath *p = read_ok(run, &o);

	assert_int_equal(p->drv_lines, lines);
	assert_int_equal(p->drv_bad_lines, 0);
	assert_string_equal(p->handoff, "netlab_drv rx_handoff");
	assert_int_equal(p->dir[PKTPATH_RX].packets, packets);
	assert_int_equal(p->handoff_drv, packets);
	assert_int_equal(p->handoff_napi, 0);
	assert_int_equal(s.rx_drv, s.rx);
	assert_int_equal(s.rx_napi, 0);
	assert_int_equal(s.probe_drv_ip, drv_ip);
	assert_int_equal(s.probe_drv_net, drv_net);
	pktpath_free(p);
}

/*
 * trace-cmd report | grep -c netlab_drv: 9725 (libtraceevent prints
 * skb=0x...x); every IPv4 receive packet is an e1000e one with its
 * rx_handoff line; drv_ip comes from the driver line, not from
 * napi_gro_receive_entry (67376 ns).
 */
static void test_pktpath__drv_handoff_lines_are_the_handoff(void **state)
{
	drv_handoff_check("drv-e1000e-rx-80", 0, 9725, 1655, 18887961047ll - 18887888751ll,
			  18887944543ll - 18887888751ll);
}

/*
 * The lines as tracepoints (drv-tp-e1000e-rx): trace-cmd report -t, the
 * first datagram in skb ffff888000b5c200 is handed up at 9.368821049
 * (e1000e_rx_handoff), netif_receive_skb at 9.368849217, ip_local_deliver
 * at 9.368865721; 1005 ip_local_deliver records, 13108 netlab_drv lines.
 */
static void test_pktpath__drv_tracepoint_lines_are_the_handoff(void **state)
{
	drv_handoff_check("drv-tp-e1000e-rx", 0xffff888000b5c200ull, 13108, 1005,
			  9368865721ll - 9368821049ll, 9368849217ll - 9368821049ll);
}

static void test_pktpath__unpatched_kernel_hands_off_at_napi(void **state)
{
	struct pktpath *p = read_ok("udp-path", NULL);

	assert_int_equal(p->drv_lines, 0);
	assert_string_equal(p->handoff, "net:napi_gro_receive_entry");
	assert_int_equal(p->handoff_drv, 0);
	assert_true(p->handoff_napi > 0);
	pktpath_free(p);
}

/* ---- the default set of issue 19 (fixtures/runs/lean-*) --------------------------- */

struct skipped {
	size_t rcvbuf, on_flow, missed, missed_with_flow;
};

static int count_skipped(void *ctx, const struct pktpath_drop *d)
{
	struct skipped *s = ctx;

	if (strcmp(d->reason_name, "SOCKET_RCVBUFF"))
		return 0;
	s->rcvbuf++;
	s->on_flow += d->flow != NULL;
	s->missed += d->missed_probe;
	s->missed_with_flow += d->missed_probe && d->flow;
	return 0;
}

/*
 * rcvbuf-missed-probe: 1076 SOCKET_RCVBUFF drops. Following each address in
 * trace-cmd report -i FILE from its netif_receive_skb on ethB: 13 of the
 * dropped packets have no ip_local_deliver before their kfree_skb (the
 * kernel skipped the kprobe), so their flow is unknown; the report says
 * why, instead of leaving them unexplained.
 */
static void test_pktpath__drops_with_a_skipped_probe_are_named(void **state)
{
	struct skipped s = { 0 };
	struct pktpath_opts o = { .on_drop = count_skipped, .ctx = &s };
	struct pktpath *p = read_ok("rcvbuf-missed-probe", &o);

	assert_int_equal(s.rcvbuf, 1076);
	assert_int_equal(s.missed, 13);
	assert_int_equal(s.missed_with_flow, 0);
	assert_int_equal(s.on_flow + s.missed, s.rcvbuf);
	assert_int_equal(p->drops_missed_probe, 13);
	assert_int_equal(p->drops_in_flows, s.on_flow);
	pktpath_free(p);
}

/* The (only) flow with this destination port. */
static const struct pktpath_flow *flow_to(const struct pktpath *p, unsigned int dport)
{
	for (size_t i = 0; i < p->n_flows; i++)
		if (p->flows[i].t.dport == dport)
			return &p->flows[i];
	fail_msg("no flow to port %u", dport);
	return NULL;
}

/*
 * lean-udp: the header fetched as words (ip0..ip32, skc0..skc16), UDP's
 * receive as netlab:udp_consume, no napi_gro_receive_entry (rx_handoff says
 * proto and data_len). Counted with trace-cmd report -i FILE: 318
 * ip_local_deliver (205 datagrams, 113 of them fragments reassembled), 205
 * udp_rcv, udp_consume, udp_sendmsg and ip_output; 320 rx_handoff lines,
 * 318 of them proto=0x0800 (2 ARP); 2521 netlab_drv lines. send.json: port
 * 5201. Nothing is reported missing: udp_consume stands in for udp_recvmsg
 * and udp_recv_skb, rx_handoff for napi_gro_receive_entry.
 */
static void test_pktpath__lean_set_follows_udp_without_gro(void **state)
{
	struct seen s = { 0 };
	struct pktpath_opts o = { .on_packet = check_packet, .ctx = &s };
	struct pktpath *p = read_ok("lean-udp", &o);
	const struct pktpath_flow *f = flow_to(p, 5201);
	char a[16], b[16];

	assert_int_equal(p->n_missing, 0);
	assert_string_equal(p->handoff, "netlab_drv rx_handoff");
	assert_int_equal(p->drv_lines, 2521);
	assert_int_equal(p->handoff_drv, 318);
	assert_int_equal(p->handoff_napi, 0);
	assert_int_equal(p->dir[PKTPATH_RX].packets, 318);
	assert_int_equal(p->dir[PKTPATH_RX].followed, 205);
	assert_int_equal(p->dir[PKTPATH_RX].outcome[PKTPATH_REASSEMBLED], 113);
	assert_int_equal(p->dir[PKTPATH_TX].packets, 205);
	assert_int_equal(p->dir[PKTPATH_TX].followed, 205);
	assert_int_equal(s.bad_sum, 0);
	assert_int_equal(p->n_flows, 1);
	assert_int_equal(f->t.proto, 17);
	assert_string_equal(pktpath_addr_str(f->t.saddr, a), "198.18.0.1");
	assert_string_equal(pktpath_addr_str(f->t.daddr, b), "198.18.0.2");
	assert_int_equal(f->tx_packets, 205);
	assert_int_equal(f->rx_packets, 318);
	assert_int_equal(f->n_senders, 1);
	assert_int_equal(f->n_receivers, 1);
	assert_string_equal(f->receivers[0].comm, "udp-stream");
	pktpath_free(p);
}

/*
 * lean-tcp-rr: ports and TCP flags from the header words. trace-cmd report
 * -i FILE: 410 rx_handoff lines with proto=0x0800, 379 ip_local_deliver and
 * tcp_v4_rcv (the 31 others' kprobes were missed: the packet reached the
 * copy without them), 185 of them len=152 (requests) and 184 len=1052, 410
 * ip_output, 401 tcp_sendmsg, 401 skb_copy_datagram_iovec; the rr server
 * listens on 5202. Both flows carry the 200 transactions and their
 * handshake.
 */
static void test_pktpath__lean_set_reads_tcp_ports_and_flags(void **state)
{
	struct seen s = { 0 };
	struct pktpath_opts o = { .on_packet = check_packet, .ctx = &s };
	struct pktpath *p = read_ok("lean-tcp-rr", &o);
	const struct pktpath_flow *req = flow_to(p, 5202);

	assert_int_equal(p->n_missing, 0);
	assert_int_equal(p->dir[PKTPATH_RX].packets, 410);
	assert_int_equal(p->dir[PKTPATH_RX].outcome[PKTPATH_MISSED_PROBE], 31);
	assert_int_equal(p->dir[PKTPATH_RX].outcome[PKTPATH_NO_PAYLOAD], 9);
	assert_int_equal(p->dir[PKTPATH_TX].packets, 410);
	assert_int_equal(p->dir[PKTPATH_TX].followed, 401);
	assert_int_equal(s.bad_sum, 0);
	/* ip_local_deliver len=152 (a request, ports and length from the header words) */
	assert_int_equal(s.reqs, 185);
	assert_int_equal(s.resps, 200);
	assert_int_equal(p->n_flows, 2);
	assert_int_equal(req->t.proto, 6);
	assert_int_equal(req->tx_packets + flow_to(p, req->t.sport)->tx_packets, 410);
	pktpath_free(p);
}

/* ---- per NIC --------------------------------------------------------------------- */

static const struct pktpath_dev *dev_find(const struct pktpath *p, const char *name)
{
	for (size_t i = 0; i < p->n_devs; i++)
		if (!strcmp(p->devs[i].name, name))
			return &p->devs[i];
	fail_msg("no device '%s'", name);
	return NULL;
}

static uint64_t stage_count(const struct pktpath_stats *s, int stage)
{
	return s->stage[stage] ? s->stage[stage]->count : 0;
}

/*
 * lean-tcp-rr, loop topology: e1000e ethA (root netns) and virtio-net ethB
 * (netns b) carry the requests and the responses in opposite directions.
 * Counted with trace-cmd report -i tests/unit/fixtures/runs/lean-tcp-rr/files/trace.dat:
 * `grep net_dev_xmit | grep -c dev=ethA` gives 208 and dev=ethB 206; of
 * each, one ARP (len=42) and one IPv6 (net_dev_start_xmit protocol=0x86dd)
 * are not IPv4 packets, so transmit stage dev counts 206 on ethA and 204
 * on ethB. `grep rx_handoff | grep proto=0x0800` gives 204 lines of
 * "e1000e ethA" and 206 of "virtio_net ethB": every receive packet,
 * hand-off by the driver line, on its device. virtio-net has no rx_desc
 * line: no desc_handoff on ethB.
 */
static void test_pktpath__lean_tcp_rr_stages_per_nic_match_trace_cmd(void **state)
{
	struct pktpath *p = read_ok("lean-tcp-rr", NULL);
	const struct pktpath_dev *a = dev_find(p, "ethA"), *b = dev_find(p, "ethB");

	assert_int_equal(p->n_devs, 2);
	assert_ptr_equal(a, &p->devs[0]); /* by name */
	assert_int_equal(a->dir[PKTPATH_TX].packets, 206);
	assert_int_equal(b->dir[PKTPATH_TX].packets, 204);
	assert_int_equal(stage_count(&a->dir[PKTPATH_TX], PKTPATH_TX_DEV), 206);
	assert_int_equal(stage_count(&b->dir[PKTPATH_TX], PKTPATH_TX_DEV), 204);
	assert_int_equal(a->dir[PKTPATH_RX].packets, 204);
	assert_int_equal(b->dir[PKTPATH_RX].packets, 206);
	assert_int_equal(stage_count(&a->dir[PKTPATH_RX], PKTPATH_RX_POLL_HANDOFF), 204);
	assert_int_equal(stage_count(&b->dir[PKTPATH_RX], PKTPATH_RX_POLL_HANDOFF), 206);
	assert_int_equal(stage_count(&a->dir[PKTPATH_RX], PKTPATH_RX_DESC_HANDOFF), 204);
	assert_null(b->dir[PKTPATH_RX].stage[PKTPATH_RX_DESC_HANDOFF]);
	/* the direction's own figures are both NICs' */
	assert_int_equal(stage_count(&p->dir[PKTPATH_TX], PKTPATH_TX_DEV), 410);
	pktpath_free(p);
}

struct dev_seen {
	size_t packets, without_dev;
};

static int count_dev(void *ctx, const struct pktpath_packet *pk)
{
	struct dev_seen *s = ctx;

	s->packets++;
	s->without_dev += !pk->dev;
	return 0;
}

/*
 * Every counted packet of @run has a device; then each stage's count, the
 * packets, the followed and each outcome of a direction are its devices'
 * sums.
 */
static void devs_add_up(const char *run, size_t n_devs)
{
	struct dev_seen seen = { 0 };
	struct pktpath_opts o = { .on_packet = count_dev, .ctx = &seen };
	struct pktpath *p = read_ok(run, &o);

	assert_true(seen.packets > 0);
	assert_int_equal(seen.without_dev, 0);
	assert_int_equal(p->n_devs, n_devs);
	for (int d = 0; d < PKTPATH_DIRS; d++) {
		const struct pktpath_stats *s = &p->dir[d];
		uint64_t packets = 0, followed = 0;

		for (size_t i = 0; i < p->n_devs; i++) {
			packets += p->devs[i].dir[d].packets;
			followed += p->devs[i].dir[d].followed;
		}
		assert_int_equal(packets, s->packets);
		assert_int_equal(followed, s->followed);
		for (int o = 0; o < PKTPATH_OUTCOMES; o++) {
			uint64_t n = 0;

			for (size_t i = 0; i < p->n_devs; i++)
				n += p->devs[i].dir[d].outcome[o];
			assert_int_equal(n, s->outcome[o]);
		}
		for (int k = 0; k < pktpath_stages((enum pktpath_dir)d); k++) {
			uint64_t n = 0;

			for (size_t i = 0; i < p->n_devs; i++)
				n += stage_count(&p->devs[i].dir[d], k);
			if (n != stage_count(s, k))
				fail_msg("%s: %s stage %s: %llu over the devices, %llu in all", run,
					 d == PKTPATH_RX ? "rx" : "tx",
					 pktpath_stage_name((enum pktpath_dir)d, k),
					 (unsigned long long)n,
					 (unsigned long long)stage_count(s, k));
		}
	}
	pktpath_free(p);
}

/* Hand-off by driver lines (lean-*), and by napi_gro_receive_entry (the others). */
static void test_pktpath__stage_counts_per_nic_add_up_to_the_direction(void **state)
{
	devs_add_up("lean-tcp-rr", 2);
	devs_add_up("lean-udp", 2);
	devs_add_up("tcp-rr", 2);
	devs_add_up("udp-path", 2);
	devs_add_up("tcp-stream", 2);
}

static void test_pktpath__metrics_per_nic(void **state)
{
	struct pktpath *p = read_ok("lean-tcp-rr", NULL);
	const struct pktpath_dev *a = dev_find(p, "ethA");
	struct metrics *m = metrics_new();
	double v;

	pktpath_metrics(p, m);
	assert_true(metrics_get(m, "latency.tx.dev.ethA.p90_us", &v));
	assert_true(v > 0 && v == pktpath_stage_us(&a->dir[PKTPATH_TX], PKTPATH_TX_DEV, 90));
	assert_true(metrics_value(m, "latency.tx.dev.ethA.count", 0) == 206);
	assert_true(metrics_value(m, "latency.tx.dev.ethB.count", 0) == 204);
	assert_true(metrics_get(m, "latency.rx.poll_handoff.ethB.p90_us", NULL));
	assert_true(metrics_get(m, "latency.rx.total.ethA.max_us", NULL));
	assert_true(metrics_get(m, "latency.rx.desc_handoff.ethA.p50_us", NULL));
	assert_false(metrics_get(m, "latency.rx.desc_handoff.ethB.p50_us", NULL));
	/* the direction's own, as before */
	assert_true(metrics_value(m, "latency.tx.dev.count", 0) == 410);
	metrics_free(m);

	/* A name that is not one component of a metric name: none of its metrics. */
	free(p->devs[0].name);
	p->devs[0].name = xstrdup("eth0.100");
	m = metrics_new();
	pktpath_metrics(p, m);
	for (size_t i = 0; i < metrics_count(m); i++) {
		const char *name;

		metrics_at(m, i, &name, &v);
		if (strstr(name, "eth0"))
			fail_msg("metric '%s' of a device named eth0.100", name);
	}
	assert_true(metrics_get(m, "latency.tx.dev.ethB.p90_us", NULL));
	metrics_free(m);
	pktpath_free(p);

	assert_true(pktpath_dev_metric_name("ethA"));
	assert_true(pktpath_dev_metric_name("veth-b_1"));
	assert_false(pktpath_dev_metric_name(""));
	assert_false(pktpath_dev_metric_name("eth0.100"));
	assert_false(pktpath_dev_metric_name("a b"));
	assert_false(pktpath_dev_metric_name("eth\t1"));
	assert_false(pktpath_dev_metric_name("eth\xc3\xa9"));
}

static char *print_to_string(const struct pktpath *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	pktpath_print(p, f, NULL);
	fclose(f);
	return text;
}

/* Under each direction's stage table, the NICs side by side; one line where one NIC has all. */
static void test_pktpath__report_prints_stages_per_nic(void **state)
{
	struct pktpath *p = read_ok("lean-tcp-rr", NULL);
	char *text = print_to_string(p), *tx = strstr(text, "\nTransmit: ");

	assert_non_null(tx);
	assert_non_null(strstr(
		tx,
		"\n  by NIC       ethA: 206 packets                    ethB: 204 packets\n"
		"  stage          count      p50      p90      p99     count      p50      p90      p99  (us)\n"));
	assert_non_null(strstr(tx, "\n  dev              206 "));
	/* desc_handoff: ethA's; virtio-net's ethB has no descriptor line */
	assert_non_null(strstr(
		text,
		"\n  desc_handoff     204      6.9      6.9      8.8         -        -        -        -\n"));
	free(text);
	pktpath_free(p);

	p = read_ok("udp-path", NULL);
	text = print_to_string(p);
	assert_non_null(strstr(text, "\n  by NIC: all on ethB\n"));
	assert_non_null(strstr(text, "\n  by NIC: all on ethA\n"));
	free(text);
	pktpath_free(p);
}

/* ---- the driver's trace_printk lines --------------------------------------------- */

static void test_pktpath__drv_line_parses_rx_handoff(void **state)
{
	struct pktpath_drv_line d;

	assert_int_equal(
		pktpath_drv_line_parse(
			"netlab_drv: e1000e ethA rx_handoff q=0 skb=ffff888004257300 len=1468\n",
			&d),
		0);
	assert_string_equal(d.driver, "e1000e");
	assert_string_equal(d.ifname, "ethA");
	assert_string_equal(d.event, "rx_handoff");
	assert_int_equal(d.q, 0);
	assert_int_equal(d.skb, 0xffff888004257300ull);
	assert_int_equal(d.len, 1468);

	/* after the caller's symbol, keys in another order, unknown keys, 0x */
	assert_int_equal(
		pktpath_drv_line_parse(
			"e1000e_poll: netlab_drv: virtio_net ethB rx_handoff len=28 new=x skb=0xffff88800425a480 q=1",
			&d),
		0);
	assert_string_equal(d.driver, "virtio_net");
	assert_int_equal(d.q, 1);
	assert_int_equal(d.skb, 0xffff88800425a480ull);
	assert_int_equal(d.len, 28);

	/* %px as libtraceevent prints it in a trace.dat's bprint records: 0x<hex>x */
	assert_int_equal(
		pktpath_drv_line_parse(
			"e1000_receive_skb: netlab_drv: e1000e ethB rx_handoff q=0 skb=0xffff8880024e6c00x len=1028",
			&d),
		0);
	assert_int_equal(d.skb, 0xffff8880024e6c00ull);
	assert_int_equal(d.len, 1028);

	/* another event, keys absent */
	assert_int_equal(
		pktpath_drv_line_parse("netlab_drv: e1000e ethA poll_start q=0 budget=64", &d), 0);
	assert_string_equal(d.event, "poll_start");
	assert_int_equal(d.skb, 0);
	assert_int_equal(d.len, -1);
}

static void test_pktpath__drv_line_ignores_other_prefixes(void **state)
{
	struct pktpath_drv_line d;

	assert_int_equal(pktpath_drv_line_parse("e1000e: link up", &d), -ENOENT);
	assert_int_equal(pktpath_drv_line_parse("netlab_drv e1000e ethA rx_handoff", &d), -ENOENT);
	assert_int_equal(pktpath_drv_line_parse("xnetlab_drv: e1000e ethA rx_handoff skb=1", &d),
			 -ENOENT);
	assert_int_equal(pktpath_drv_line_parse("", &d), -ENOENT);
}

static void test_pktpath__drv_line_rejects_malformed(void **state)
{
	struct pktpath_drv_line d;

	/* missing words */
	assert_int_equal(pktpath_drv_line_parse("netlab_drv: e1000e ethA", &d), -EINVAL);
	assert_int_equal(pktpath_drv_line_parse("netlab_drv: ", &d), -EINVAL);
	assert_int_equal(
		pktpath_drv_line_parse("netlab_drv: e1000e ethA q=0 skb=ffff888004257300", &d),
		-EINVAL);
	/* a word without '=' among the keys */
	assert_int_equal(pktpath_drv_line_parse("netlab_drv: e1000e ethA rx_handoff q=0 skb", &d),
			 -EINVAL);
	assert_int_equal(pktpath_drv_line_parse("netlab_drv: e1000e ethA rx_handoff =5 skb=1", &d),
			 -EINVAL);
	/* bad numbers */
	assert_int_equal(
		pktpath_drv_line_parse(
			"netlab_drv: e1000e ethA rx_handoff q=0 skb=ffff88800425730g len=1", &d),
		-EINVAL);
	assert_int_equal(
		pktpath_drv_line_parse(
			"netlab_drv: e1000e ethA rx_handoff q=0 skb=1ffff888004257300 len=1", &d),
		-EINVAL);
	/* the trailing x only after a 0x */
	assert_int_equal(
		pktpath_drv_line_parse(
			"netlab_drv: e1000e ethA rx_handoff q=0 skb=ffff888004257300x len=1", &d),
		-EINVAL);
	assert_int_equal(
		pktpath_drv_line_parse("netlab_drv: e1000e ethA rx_handoff q=0 skb=0xx len=1", &d),
		-EINVAL);
	assert_int_equal(pktpath_drv_line_parse(
				 "netlab_drv: e1000e ethA rx_handoff q=x skb=ffff888004257300", &d),
			 -EINVAL);
	assert_int_equal(
		pktpath_drv_line_parse(
			"netlab_drv: e1000e ethA rx_handoff q=0 skb=ffff888004257300 len=-1", &d),
		-EINVAL);
	assert_int_equal(
		pktpath_drv_line_parse("netlab_drv: e1000e ethA rx_handoff q=0 skb= len=1", &d),
		-EINVAL);
	/* a hand-off without its skb */
	assert_int_equal(
		pktpath_drv_line_parse("netlab_drv: e1000e ethA rx_handoff q=0 len=60", &d),
		-EINVAL);
	/* a driver name longer than any driver's */
	assert_int_equal(
		pktpath_drv_line_parse(
			"netlab_drv: e1000e_with_a_very_long_name ethA rx_handoff skb=1", &d),
		-EINVAL);
}

/* ---- metrics ------------------------------------------------------------------------ */

static void test_pktpath__metrics_names_and_values(void **state)
{
	struct pktpath *p = read_ok("udp-path", NULL);
	struct metrics *m = metrics_new();
	double v;

	pktpath_metrics(p, m);
	assert_true(metrics_get(m, "latency.rx.udp_app.p50_us", &v));
	assert_true(v > 0 && v == pktpath_stage_us(&p->dir[PKTPATH_RX], PKTPATH_RX_UDP_APP, 50));
	assert_true(metrics_get(m, "latency.rx.ip_udp.p99_us", NULL));
	assert_true(metrics_get(m, "latency.rx.total.max_us", &v));
	assert_true(v >= metrics_value(m, "latency.rx.total.p99_us", -1));
	assert_true(metrics_get(m, "latency.tx.qdisc.p99_us", NULL));
	assert_true(metrics_get(m, "latency.tx.done.p90_us", NULL));
	assert_true(metrics_value(m, "latency.rx.total.count", 0) == 205);
	assert_true(metrics_value(m, "latency.rx.packets", 0) == 205);
	assert_true(metrics_value(m, "latency.rx.followed", 0) == 205);
	assert_true(metrics_value(m, "latency.rx.not_followed.gro_merged", -1) == 0);
	assert_true(metrics_value(m, "latency.tx.not_followed.no_app", -1) == 0);
	assert_true(metrics_value(m, "flows.count", 0) == 1);
	/* no TCP in this run: its stages are not reported */
	assert_false(metrics_get(m, "latency.rx.ip_tcp.p50_us", NULL));
	metrics_free(m);
	pktpath_free(p);
}

/* ---- bad input -------------------------------------------------------------------- */

static char *tmp_file(const void *data, size_t len)
{
	return tmp_data_file(data, len, "pktpath");
}

static void read_fails(const char *path, int want, const char *needle)
{
	struct pktpath *p = (struct pktpath *)1;
	char *err = NULL;
	int ret = pktpath_read(path, NULL, &p, &err);

	expect_read_error(ret, want, p != NULL, err, path, needle);
}

static void test_pktpath__bad_files_give_errors(void **state)
{
	char *data = NULL, *path = trace_path("udp-path"), *tmp;
	size_t len;

	read_fails(RUNS "udp-path/files/none.dat", -ENOENT, NULL);
	read_fails(RUNS "udp-path/files", -EISDIR, NULL);
	read_fails(RUNS "udp-path/scenario.scn", -EINVAL, "not a trace.dat");
	tmp = tmp_file("", 0);
	read_fails(tmp, -EINVAL, "empty");
	unlink(tmp);
	free(tmp);
	/* a fixture cut in its middle */
	assert_int_equal(file_read(path, &data, &len), 0);
	tmp = tmp_file(data, len / 2);
	read_fails(tmp, -EINVAL, "truncated");
	unlink(tmp);
	free(tmp);
	free(data);
	free(path);
}

/* Only skb:kfree_skb and consume_skb: nothing to follow, -ENODATA with a hint to record the set. */
static void test_pktpath__trace_without_path_events_is_enodata(void **state)
{
	read_fails(FIXTURES "/traces/rcvbuf.dat", -ENODATA, "none of the packet-path events");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pktpath__udp_path_matches_golden_json),
		cmocka_unit_test(test_pktpath__tcp_rr_matches_golden_json),
		cmocka_unit_test(test_pktpath__tcp_stream_matches_golden_json),
		cmocka_unit_test(test_pktpath__lean_udp_matches_golden_json),
		cmocka_unit_test(test_pktpath__lean_tcp_rr_matches_golden_json),
		cmocka_unit_test(test_pktpath__lean_set_follows_udp_without_gro),
		cmocka_unit_test(test_pktpath__lean_set_reads_tcp_ports_and_flags),
		cmocka_unit_test(test_pktpath__drops_with_a_skipped_probe_are_named),
		cmocka_unit_test(test_pktpath__lean_tcp_rr_stages_per_nic_match_trace_cmd),
		cmocka_unit_test(test_pktpath__stage_counts_per_nic_add_up_to_the_direction),
		cmocka_unit_test(test_pktpath__metrics_per_nic),
		cmocka_unit_test(test_pktpath__report_prints_stages_per_nic),
		cmocka_unit_test(test_pktpath__udp_path_follows_every_datagram_received),
		cmocka_unit_test(test_pktpath__udp_path_flow_has_sender_and_receiver),
		cmocka_unit_test(test_pktpath__tcp_rr_flows_both_directions_with_rr_pids),
		cmocka_unit_test(test_pktpath__flow_latency_adds_up_to_the_direction),
		cmocka_unit_test(test_pktpath__flow_cpus),
		cmocka_unit_test(test_pktpath__flow_orders),
		cmocka_unit_test(test_pktpath__tcp_rr_missed_kprobes_and_acks_are_not_followed),
		cmocka_unit_test(test_pktpath__tcp_stream_fragments_reassembled_not_dropped),
		cmocka_unit_test(test_pktpath__tcp_stream_softirq_sends_are_no_app),
		cmocka_unit_test(test_pktpath__packet_line_has_seed_format),
		cmocka_unit_test(test_pktpath__snoop_line_decodes_tuple_and_flags),
		cmocka_unit_test(test_pktpath__snoop_lists_every_ip_packet),
		cmocka_unit_test(test_pktpath__callback_return_stops_the_read),
		cmocka_unit_test(test_pktpath__drv_handoff_lines_are_the_handoff),
		cmocka_unit_test(test_pktpath__drv_tracepoint_lines_are_the_handoff),
		cmocka_unit_test(test_pktpath__unpatched_kernel_hands_off_at_napi),
		cmocka_unit_test(test_pktpath__drv_line_parses_rx_handoff),
		cmocka_unit_test(test_pktpath__drv_line_ignores_other_prefixes),
		cmocka_unit_test(test_pktpath__drv_line_rejects_malformed),
		cmocka_unit_test(test_pktpath__metrics_names_and_values),
		cmocka_unit_test(test_pktpath__bad_files_give_errors),
		cmocka_unit_test(test_pktpath__trace_without_path_events_is_enodata),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
