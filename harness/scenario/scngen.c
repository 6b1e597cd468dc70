// SPDX-License-Identifier: GPL-2.0
/*
 * The traffic generators as the harness sees them (scngen.h): each one's
 * collect function, metric families, coverage shape and loss identity.
 * A new generator is one more entry in scn_gens[] (and its tgen_all[] one).
 */
#include "scenario/scngen.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/jsonout.h"
#include "lib/util.h"
#include "scenario/scnrun-int.h"

/* ---- helpers of the collect functions ----------------------------------- */

int scn_gen_read_end(struct collect *c, bool rx, const char *name, struct json_object **out)
{
	char *path = xasprintf("%s/%s", c->files[c->end_vm[rx]], name);
	char *why = NULL;

	if (json_file_read(path, out, &why))
		err_set(c->err, "%s", why);
	free(why);
	free(path);
	return *out ? 0 : -EINVAL;
}

/* Both ends' result files: 0, or -EINVAL with *c->err and nothing held. */
static int read_ends(struct collect *c, const struct tgen *g, struct json_object **tx,
		     struct json_object **rx)
{
	if (scn_gen_read_end(c, false, g->tx_out, tx))
		return -EINVAL;
	if (scn_gen_read_end(c, true, g->rx_out, rx)) {
		json_object_put(*tx);
		return -EINVAL;
	}
	return 0;
}

double scn_gen_jnum(struct json_object *o, const char *dotted)
{
	char *copy = xstrdup(dotted), *save = NULL;
	struct json_object *v = o;

	for (char *k = strtok_r(copy, ".", &save); k && v; k = strtok_r(NULL, ".", &save))
		if (!json_object_object_get_ex(v, k, &v))
			v = NULL;
	free(copy);
	if (!v || !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
		return NAN;
	return json_object_get_double(v);
}

static void set_if(struct metrics *m, const char *name, double v)
{
	if (!isnan(v))
		metrics_set(m, name, v);
}

static void copy_latency(struct metrics *m, const char *prefix, struct json_object *o)
{
	static const char *const q[] = { "p50", "p90", "p99", "p99_9", "max", "min", "mean" };

	for (size_t i = 0; i < ARRAY_SIZE(q); i++) {
		char src[64], dst[64];

		snprintf(src, sizeof(src), "latency_us.%s", q[i]);
		snprintf(dst, sizeof(dst), "%s.latency_us.%s", prefix, q[i]);
		set_if(m, dst, scn_gen_jnum(o, src));
	}
}

struct json_object *scn_gen_failure(struct json_object *end)
{
	struct json_object *f;

	if (!end || !json_object_object_get_ex(end, "failure", &f) ||
	    !json_object_is_type(f, json_type_object))
		return NULL;
	return f;
}

/*
 * METRIC.stalled: 1 when an end of a flow that can stall ended because the
 * path failed it (stalled, reset, refused, unreachable: its result has a
 * "failure"), else 0; then METRIC.stall_s, the idle time it gave up after,
 * and for a TCP stream's sender METRIC.stall_unacked_bytes. The sender's
 * failure comes first: the receiver's follows from it.
 */
static void collect_stall(struct collect *c, const char *metric, struct json_object *tx,
			  struct json_object *rx)
{
	struct json_object *f = scn_gen_failure(tx) ? scn_gen_failure(tx) : scn_gen_failure(rx);
	char name[64];

	snprintf(name, sizeof(name), "%s.stalled", metric);
	metrics_set(c->m, name, f ? 1 : 0);
	if (!f)
		return;
	snprintf(name, sizeof(name), "%s.stall_s", metric);
	set_if(c->m, name, scn_gen_jnum(f, "idle_s"));
	snprintf(name, sizeof(name), "%s.stall_unacked_bytes", metric);
	set_if(c->m, name, scn_gen_jnum(f, "unacked_bytes"));
}

/* ---- flows: per-flow metrics and the fairness among them ---------------- */

/* The i-th object of array `key` of o, or NULL. */
static struct json_object *jarray_at(struct json_object *o, const char *key, size_t i)
{
	struct json_object *a;

	if (!o || !json_object_object_get_ex(o, key, &a) || !json_object_is_type(a, json_type_array) ||
	    i >= json_object_array_length(a))
		return NULL;
	return json_object_array_get_idx(a, i);
}

static size_t jarray_len(struct json_object *o, const char *key)
{
	struct json_object *a;

	if (!o || !json_object_object_get_ex(o, key, &a) || !json_object_is_type(a, json_type_array))
		return 0;
	return json_object_array_length(a);
}

/* The element of array `key` whose member `field` equals v, or NULL. */
static struct json_object *jarray_find(struct json_object *o, const char *key, const char *field,
				       double v)
{
	for (size_t i = 0, n = jarray_len(o, key); i < n; i++) {
		struct json_object *e = jarray_at(o, key, i);

		if (scn_gen_jnum(e, field) == v)
			return e;
	}
	return NULL;
}

static void set_flow(struct metrics *m, const char *metric, size_t k, const char *what, double v)
{
	char name[96];

	snprintf(name, sizeof(name), "%s.flow.%zu.%s", metric, k, what);
	set_if(m, name, v);
}

/*
 * Fairness among n flows' shares x: Jain's index (sum x)^2 / (n * sum x^2),
 * 1 when all are equal, 1/n when one flow has it all; and min/max. Both 1
 * for one flow; NAN when nothing was delivered.
 */
void scn_gen_fairness(const double *x, size_t n, double *jain, double *min_max)
{
	double sum = 0, sq = 0, lo = INFINITY, hi = 0;

	for (size_t i = 0; i < n; i++) {
		sum += x[i];
		sq += x[i] * x[i];
		lo = x[i] < lo ? x[i] : lo;
		hi = x[i] > hi ? x[i] : hi;
	}
	*jain = n && sq > 0 ? sum * sum / ((double)n * sq) : NAN;
	*min_max = n && hi > 0 ? lo / hi : NAN;
}

static void set_fairness(struct metrics *m, const char *metric, const double *x, size_t n)
{
	char name[64];
	double jain, min_max;

	scn_gen_fairness(x, n, &jain, &min_max);
	snprintf(name, sizeof(name), "%s.fairness_jain", metric);
	set_if(m, name, jain);
	snprintf(name, sizeof(name), "%s.flow_share_min", metric);
	set_if(m, name, min_max);
}

/*
 * udp-stream's flows, in the sender's order (udp.flow.K.*): what each sent,
 * and what the receiver made of it, matched by flow id. A flow the
 * receiver never saw lost all it sent; a datagram delivered to another
 * flow's socket (misdelivered) is a loss of its flow.
 */
static void collect_udp_flows(struct collect *c, struct json_object *tx, struct json_object *rx)
{
	size_t n = jarray_len(tx, "flows"), lossy = 0, used = 0;
	double *share = xcalloc(n ? n : 1, sizeof(*share)), lost_max = 0;
	bool one_clock = c->cfg->nics[0].vm == c->cfg->nics[1].vm;

	metrics_set(c->m, "udp.flows", (double)(n ? n : 1));
	set_if(c->m, "udp.misdelivered", scn_gen_jnum(rx, "misdelivered"));
	for (size_t k = 0; k < n; k++) {
		struct json_object *f = jarray_at(tx, "flows", k);
		double id = scn_gen_jnum(f, "id"), sent = scn_gen_jnum(f, "sent");
		struct json_object *r = jarray_find(rx, "flows", "id", id);
		double unique = r ? scn_gen_jnum(r, "unique") : 0;
		double mis = r ? scn_gen_jnum(r, "misdelivered") : 0;

		set_flow(c->m, "udp", k, "id", id);
		set_flow(c->m, "udp", k, "sport", scn_gen_jnum(f, "sport"));
		set_flow(c->m, "udp", k, "sent", sent);
		set_flow(c->m, "udp", k, "unique", unique);
		set_flow(c->m, "udp", k, "lost", sent - unique);
		set_flow(c->m, "udp", k, "misdelivered", isnan(mis) ? 0 : mis);
		if (r) {
			set_flow(c->m, "udp", k, "reordered", scn_gen_jnum(r, "reordered"));
			set_flow(c->m, "udp", k, "duplicated", scn_gen_jnum(r, "duplicated"));
			set_flow(c->m, "udp", k, "socket", scn_gen_jnum(r, "socket"));
			set_flow(c->m, "udp", k, "rx_cpu", scn_gen_jnum(r, "cpu"));
			if (one_clock) {
				set_flow(c->m, "udp", k, "latency_us.p50", scn_gen_jnum(r, "latency_us.p50"));
				set_flow(c->m, "udp", k, "latency_us.p99", scn_gen_jnum(r, "latency_us.p99"));
				set_flow(c->m, "udp", k, "latency_us.max", scn_gen_jnum(r, "latency_us.max"));
			}
		}
		set_flow(c->m, "udp", k, "tx_cpu",
			 isnan(scn_gen_jnum(f, "cpu")) ? scn_gen_jnum(tx, "cpu") : scn_gen_jnum(f, "cpu"));
		share[k] = isnan(unique) ? 0 : unique;
		lossy += sent - unique > 0;
		lost_max = sent - unique > lost_max ? sent - unique : lost_max;
	}
	if (n) {
		metrics_set(c->m, "udp.flows_lossy", (double)lossy);
		metrics_set(c->m, "udp.flow_lost_max", lost_max);
		set_fairness(c->m, "udp", share, n);
	}
	for (size_t i = 0, ns = jarray_len(rx, "sockets"); i < ns; i++)
		used += scn_gen_jnum(jarray_at(rx, "sockets", i), "received") > 0;
	if (jarray_len(rx, "sockets")) {
		metrics_set(c->m, "udp.sockets", (double)jarray_len(rx, "sockets"));
		metrics_set(c->m, "udp.sockets_used", (double)used);
	}
	free(share);
}

/*
 * tcp-stream's connections (tcp.flow.K.*), in the sender's order, matched
 * with the receiver's by the sender's port: bytes and goodput as the
 * receiver counted them, retransmits from the sender's TCP_INFO.
 */
static void collect_tcp_flows(struct collect *c, struct json_object *tx, struct json_object *rx)
{
	size_t n = jarray_len(tx, "flows");
	double *share = xcalloc(n ? n : 1, sizeof(*share)), lo = INFINITY;

	metrics_set(c->m, "tcp.flows", (double)(n ? n : 1));
	for (size_t k = 0; k < n; k++) {
		struct json_object *f = jarray_at(tx, "flows", k);
		double sport = scn_gen_jnum(f, "sport");
		struct json_object *r = jarray_find(rx, "flows", "sport", sport);
		double bps = r ? scn_gen_jnum(r, "goodput_bps") : 0;

		set_flow(c->m, "tcp", k, "sport", sport);
		set_flow(c->m, "tcp", k, "bytes", r ? scn_gen_jnum(r, "bytes") : 0);
		set_flow(c->m, "tcp", k, "goodput_bps", bps);
		set_flow(c->m, "tcp", k, "retransmits", scn_gen_jnum(f, "tcp_info.total_retrans"));
		set_flow(c->m, "tcp", k, "rtt_us", scn_gen_jnum(f, "tcp_info.rtt_us"));
		set_flow(c->m, "tcp", k, "tx_cpu", scn_gen_jnum(f, "cpu"));
		if (r)
			set_flow(c->m, "tcp", k, "rx_cpu", scn_gen_jnum(r, "cpu"));
		share[k] = isnan(bps) ? 0 : bps;
		lo = share[k] < lo ? share[k] : lo;
	}
	if (n) {
		metrics_set(c->m, "tcp.flow_goodput_min_bps", lo);
		set_fairness(c->m, "tcp", share, n);
	}
	free(share);
}

/* ---- the generators ----------------------------------------------------- */

static int collect_udp(struct collect *c, const struct tgen *g)
{
	static const char *const rx_keys[] = { "received", "unique", "reordered", "duplicated",
					       "late", "bytes" };
	struct json_object *tx, *rx;
	char name[64];

	if (read_ends(c, g, &tx, &rx))
		return -EINVAL;
	set_if(c->m, "udp.sent", scn_gen_jnum(tx, "sent"));
	set_if(c->m, "udp.send_errors", scn_gen_jnum(tx, "send_errors_total"));
	set_if(c->m, "udp.pps", scn_gen_jnum(tx, "achieved_pps"));
	set_if(c->m, "udp.bps", scn_gen_jnum(tx, "achieved_bps"));
	for (size_t i = 0; i < ARRAY_SIZE(rx_keys); i++) {
		snprintf(name, sizeof(name), "udp.%s", rx_keys[i]);
		set_if(c->m, name, scn_gen_jnum(rx, rx_keys[i]));
	}
	/* Lost against what the sender says it sent, not the END message,
	 * which itself may be lost. */
	metrics_set(c->m, "udp.lost", scn_gen_jnum(tx, "sent") - scn_gen_jnum(rx, "unique"));
	/* One-way latency needs both ends on one clock: not across two VMs. */
	if (c->cfg->nics[0].vm == c->cfg->nics[1].vm)
		copy_latency(c->m, "udp", rx);
	set_if(c->m, "loss.app_send_errors", scn_gen_jnum(tx, "send_errors.ENOBUFS"));
	set_if(c->m, "loss.end_copies_received", scn_gen_jnum(rx, "end_copies_received"));
	set_if(c->m, "loss.end_copies_sent", scn_gen_jnum(tx, "end_copies_sent"));
	collect_udp_flows(c, tx, rx);
	json_object_put(tx);
	json_object_put(rx);
	return 0;
}

static int collect_tcp(struct collect *c, const struct tgen *g)
{
	struct json_object *tx, *rx;

	if (read_ends(c, g, &tx, &rx))
		return -EINVAL;
	collect_stall(c, "tcp", tx, rx);
	/* A receiver the path never reached got nothing: that is measured, as 0. */
	if (scn_gen_failure(rx) && !json_object_object_get_ex(rx, "rx", NULL)) {
		metrics_set(c->m, "tcp.goodput_bps", 0);
		metrics_set(c->m, "tcp.bytes", 0);
	}
	/* Goodput as the receiver measured it; the rest from the sender's TCP_INFO. */
	set_if(c->m, "tcp.goodput_bps", scn_gen_jnum(rx, "rx.goodput_bps"));
	set_if(c->m, "tcp.bytes", scn_gen_jnum(rx, "rx.bytes"));
	set_if(c->m, "tcp.retransmits", scn_gen_jnum(tx, "tx.tcp_info.total_retrans"));
	set_if(c->m, "tcp.cwnd", scn_gen_jnum(tx, "tx.tcp_info.snd_cwnd"));
	set_if(c->m, "tcp.cwnd_min", scn_gen_jnum(tx, "tx.tcp_info.cwnd_min"));
	set_if(c->m, "tcp.cwnd_max", scn_gen_jnum(tx, "tx.tcp_info.cwnd_max"));
	set_if(c->m, "tcp.rtt_us", scn_gen_jnum(tx, "tx.tcp_info.rtt_us"));
	set_if(c->m, "tcp.rtt_min_us", scn_gen_jnum(tx, "tx.tcp_info.rtt_min_us"));
	set_if(c->m, "tcp.rtt_max_us", scn_gen_jnum(tx, "tx.tcp_info.rtt_max_us"));
	collect_tcp_flows(c, tx, rx);
	json_object_put(tx);
	json_object_put(rx);
	return 0;
}

static int collect_rr(struct collect *c, const struct tgen *g)
{
	struct json_object *cl, *sv = NULL;

	if (scn_gen_read_end(c, false, g->tx_out, &cl))
		return -EINVAL;
	/* The server's result only says how it ended: the client's is the measurement. */
	if (scn_gen_read_end(c, true, g->rx_out, &sv)) {
		free(*c->err);
		*c->err = NULL;
	}
	collect_stall(c, "rr", cl, sv);
	json_object_put(sv);
	set_if(c->m, "rr.transactions", scn_gen_jnum(cl, "transactions"));
	set_if(c->m, "rr.tps", scn_gen_jnum(cl, "transactions_per_s"));
	set_if(c->m, "rr.lost", scn_gen_jnum(cl, "lost"));
	copy_latency(c->m, "rr", cl);
	json_object_put(cl);
	return 0;
}

/* Metric families (patterns as in metrics.c). */
static const char *const udps_families[] = {
	"udp.{sent,received,unique,lost,reordered,duplicated,late,bytes,send_errors,pps,bps}",
	"udp.latency_us.{p50,p90,p99,p99_9,max,min,mean}",
	/* Flows and sockets (collect_udp_flows): K is the sender's flow index. */
	"udp.{flows,flows_lossy,flow_lost_max,misdelivered,fairness_jain,flow_share_min,sockets,"
	"sockets_used}",
	"udp.flow.*.{id,sport,sent,unique,lost,misdelivered,reordered,duplicated,socket,rx_cpu,"
	"tx_cpu,wire_tx,wire_rx}",
	"udp.flow.*.latency_us.{p50,p99,max}",
	NULL,
};
static const char *const tcps_families[] = {
	"tcp.{goodput_bps,bytes,retransmits,cwnd,cwnd_min,cwnd_max}",
	"tcp.{rtt_us,rtt_min_us,rtt_max_us}",
	/* The path stopped the flow (collect_stall): 1 in any run. */
	"tcp.{stalled,stall_s,stall_unacked_bytes}",
	/* Connections (collect_tcp_flows): K is the sender's connection index. */
	"tcp.{flows,fairness_jain,flow_share_min,flow_goodput_min_bps}",
	"tcp.flow.*.{sport,bytes,goodput_bps,retransmits,rtt_us,rx_cpu,tx_cpu}",
	NULL,
};
static const char *const rr_families[] = {
	"rr.{transactions,tps,lost}",
	"rr.{stalled,stall_s}",
	"rr.latency_us.{p50,p90,p99,p99_9,max,min,mean}",
	NULL,
};
/* Per-layer accounting of the UDP data datagrams (scnrun-loss.c): loss_identity's. */
static const char *const loss_identity_families[] = {
	"loss.{app_sent,app_send_errors,tx_stack_drops,wire_tx,wire_rx,rx_stack_drops,"
	"app_received}",
	"loss.{lost_before_wire,lost_on_wire,driver_drops,stack_in,lost_in_stack,unaccounted}",
	"loss.{tx_driver_drops,lost_in_tx_stack}",
	/* Delivered by the stack to a socket other than its flow's (socket demux). */
	"loss.misdelivered",
	NULL,
};

/* In tgen_all[]'s order: the messages list the generators' families in it. */
const struct scn_gen scn_gens[] = {
	{ .name = "udp-stream", .collect = collect_udp, .families = udps_families,
	  .cov = SCN_GEN_COV_DATAGRAMS, .loss_identity = true, .size_range = true,
	  .rx_idle_timeout_s = 20 },
	{ .name = "tcp-stream", .collect = collect_tcp, .families = tcps_families,
	  .cov = SCN_GEN_COV_STREAM, .hop_segments = true },
	{ .name = "rr", .collect = collect_rr, .families = rr_families, .cov = SCN_GEN_COV_RR,
	  .rx_idle_timeout_s = 20 },
	{ .name = NULL },
};

const struct scn_gen *scn_gen_find(const char *name)
{
	for (const struct scn_gen *d = scn_gens; name && d->name; d++)
		if (!strcmp(d->name, name))
			return d;
	return NULL;
}

bool scn_gen_metrics(size_t i, struct metrics_gen *g)
{
	for (size_t k = 0; k < i; k++)
		if (!scn_gens[k].name)
			return false;
	if (!scn_gens[i].name)
		return false;
	g->name = scn_gens[i].name;
	g->own = scn_gens[i].families;
	g->late = scn_gens[i].loss_identity ? loss_identity_families : NULL;
	return true;
}

const char *scn_gen_size_range_list(void)
{
	static char list[128];

	if (!list[0])
		for (const struct scn_gen *d = scn_gens; d->name; d++)
			if (d->size_range)
				snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
					 list[0] ? ", " : "", d->name);
	return list;
}
