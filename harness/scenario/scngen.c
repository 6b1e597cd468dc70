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
	NULL,
};
static const char *const tcps_families[] = {
	"tcp.{goodput_bps,bytes,retransmits,cwnd,cwnd_min,cwnd_max}",
	"tcp.{rtt_us,rtt_min_us,rtt_max_us}",
	/* The path stopped the flow (collect_stall): 1 in any run. */
	"tcp.{stalled,stall_s,stall_unacked_bytes}",
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
	NULL,
};

/* In tgen_all[]'s order: the messages list the generators' families in it. */
const struct scn_gen scn_gens[] = {
	{ .name = "udp-stream", .collect = collect_udp, .families = udps_families,
	  .cov = SCN_GEN_COV_DATAGRAMS, .loss_identity = true, .size_range = true,
	  .rx_idle_timeout_s = 20 },
	{ .name = "tcp-stream", .collect = collect_tcp, .families = tcps_families,
	  .cov = SCN_GEN_COV_STREAM },
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
