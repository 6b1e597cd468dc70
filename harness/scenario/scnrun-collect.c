// SPDX-License-Identifier: GPL-2.0
/*
 * Run directory -> metrics: what a scenario's run left, collected (see
 * scnrun.c for the guest script that wrote it).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/jsonout.h"
#include "generators.h"
#include "run/counters.h"
#include "run/run.h"
#include "scenario/scnrun.h"
#include "scenario/scnrun-int.h"
#include "trace/analysis.h"
#include "trace/drvring.h"
#include "trace/netrx.h"
#include "trace/pktpath.h"
#include "trace/tracedrops.h"
#include "trace/traceset.h"
#include "trace/txpath.h"
#include "vm/backend.h"

/* ---- collection ------------------------------------------------------- */


/* The files of the VM of the sender (role 0) or of the receiver (role 1). */
static const char *files_of(const struct collect *c, unsigned int role)
{
	unsigned int nic = role ? scn_rx_nic(c->s) : scn_tx_nic(c->s);

	return c->files[c->cfg->nics[nic].vm];
}

/* The files of the VM that holds NIC index `nic`. */
static const char *files_of_nic(const struct collect *c, unsigned int nic)
{
	return c->files[c->cfg->nics[nic].vm];
}

/* A generator result: the sender's files are with NIC A, the receiver's with B. */
static int read_json(struct collect *c, const char *name, struct json_object **out)
{
	bool rx = !strcmp(name, "recv.json") || !strcmp(name, "server.json");
	char *path = xasprintf("%s/%s", files_of(c, rx), name);

	char *why = NULL;

	if (json_file_read(path, out, &why))
		err_set(c->err, "%s", why);
	free(why);
	free(path);
	return *out ? 0 : -EINVAL;
}

static double jnum(struct json_object *o, const char *dotted)
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
		set_if(m, dst, jnum(o, src));
	}
}

static int collect_udp(struct collect *c)
{
	static const char *const rx_keys[] = { "received", "unique", "reordered", "duplicated",
					       "late", "bytes" };
	struct json_object *tx, *rx;
	char name[64];

	if (read_json(c, "send.json", &tx) || read_json(c, "recv.json", &rx))
		return -EINVAL;
	set_if(c->m, "udp.sent", jnum(tx, "sent"));
	set_if(c->m, "udp.send_errors", jnum(tx, "send_errors_total"));
	set_if(c->m, "udp.pps", jnum(tx, "achieved_pps"));
	set_if(c->m, "udp.bps", jnum(tx, "achieved_bps"));
	for (size_t i = 0; i < ARRAY_SIZE(rx_keys); i++) {
		snprintf(name, sizeof(name), "udp.%s", rx_keys[i]);
		set_if(c->m, name, jnum(rx, rx_keys[i]));
	}
	/* Lost against what the sender says it sent, not the END message,
	 * which itself may be lost. */
	metrics_set(c->m, "udp.lost", jnum(tx, "sent") - jnum(rx, "unique"));
	/* One-way latency needs both ends on one clock: not across two VMs. */
	if (c->cfg->nics[0].vm == c->cfg->nics[1].vm)
		copy_latency(c->m, "udp", rx);
	set_if(c->m, "loss.app_send_errors", jnum(tx, "send_errors.ENOBUFS"));
	set_if(c->m, "loss.end_copies_received", jnum(rx, "end_copies_received"));
	set_if(c->m, "loss.end_copies_sent", jnum(tx, "end_copies_sent"));
	json_object_put(tx);
	json_object_put(rx);
	return 0;
}

/* An end's "failure" (TTOOL_EXIT_PATH: the path failed its flow), or NULL. */
static struct json_object *failure_of(struct json_object *end)
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
 * and for tcp-stream's sender METRIC.stall_unacked_bytes. The sender's
 * failure comes first: the receiver's follows from it.
 */
static void collect_stall(struct collect *c, const char *metric, struct json_object *tx,
			  struct json_object *rx)
{
	struct json_object *f = failure_of(tx) ? failure_of(tx) : failure_of(rx);
	char name[64];

	snprintf(name, sizeof(name), "%s.stalled", metric);
	metrics_set(c->m, name, f ? 1 : 0);
	if (!f)
		return;
	snprintf(name, sizeof(name), "%s.stall_s", metric);
	set_if(c->m, name, jnum(f, "idle_s"));
	snprintf(name, sizeof(name), "%s.stall_unacked_bytes", metric);
	set_if(c->m, name, jnum(f, "unacked_bytes"));
}

static int collect_tcp(struct collect *c)
{
	struct json_object *tx, *rx;

	if (read_json(c, "send.json", &tx) || read_json(c, "recv.json", &rx))
		return -EINVAL;
	collect_stall(c, "tcp", tx, rx);
	/* A receiver the path never reached got nothing: that is measured, as 0. */
	if (failure_of(rx) && !json_object_object_get_ex(rx, "rx", NULL)) {
		metrics_set(c->m, "tcp.goodput_bps", 0);
		metrics_set(c->m, "tcp.bytes", 0);
	}
	/* Goodput as the receiver measured it; the rest from the sender's TCP_INFO. */
	set_if(c->m, "tcp.goodput_bps", jnum(rx, "rx.goodput_bps"));
	set_if(c->m, "tcp.bytes", jnum(rx, "rx.bytes"));
	set_if(c->m, "tcp.retransmits", jnum(tx, "tx.tcp_info.total_retrans"));
	set_if(c->m, "tcp.cwnd", jnum(tx, "tx.tcp_info.snd_cwnd"));
	set_if(c->m, "tcp.cwnd_min", jnum(tx, "tx.tcp_info.cwnd_min"));
	set_if(c->m, "tcp.cwnd_max", jnum(tx, "tx.tcp_info.cwnd_max"));
	set_if(c->m, "tcp.rtt_us", jnum(tx, "tx.tcp_info.rtt_us"));
	set_if(c->m, "tcp.rtt_min_us", jnum(tx, "tx.tcp_info.rtt_min_us"));
	set_if(c->m, "tcp.rtt_max_us", jnum(tx, "tx.tcp_info.rtt_max_us"));
	json_object_put(tx);
	json_object_put(rx);
	return 0;
}

static int collect_rr(struct collect *c)
{
	struct json_object *cl, *sv = NULL;

	if (read_json(c, "client.json", &cl))
		return -EINVAL;
	/* The server's result only says how it ended: the client's is the measurement. */
	if (read_json(c, "server.json", &sv)) {
		free(*c->err);
		*c->err = NULL;
	}
	collect_stall(c, "rr", cl, sv);
	json_object_put(sv);
	set_if(c->m, "rr.transactions", jnum(cl, "transactions"));
	set_if(c->m, "rr.tps", jnum(cl, "transactions_per_s"));
	set_if(c->m, "rr.lost", jnum(cl, "lost"));
	copy_latency(c->m, "rr", cl);
	json_object_put(cl);
	return 0;
}

/* Parse one snapshot (before/ or after/) of every VM into `m`. */
static int read_snap(struct collect *c, const char *which, struct metrics *m)
{
	/* softnet_stat: the receiving VM's. */
	char *path = xasprintf("%s/%s/softnet_stat", files_of(c, 1), which), *text;
	int ret = 0;

	if (file_read(path, &text, NULL) == 0) {
		ret = counters_parse_softnet(text, metrics_emit, m, c->err);
		free(text);
	} else {
		err_set(c->err, "counter snapshot '%s' is missing", path);
		ret = -EINVAL;
	}
	free(path);
	for (unsigned int i = 0; !ret && i < c->cfg->n_nics; i++) {
		char l = c->cfg->nics[i].label;

		for (size_t k = 0; !ret && k < scnrun_n_snap_sources; k++) {
			const struct snap_source *src = &scnrun_snap_sources[k];
			char prefix[32];

			path = xasprintf("%s/%s/%s-%c", files_of_nic(c, i), which, src->file, l);
			if (file_read(path, &text, NULL)) {
				free(path);
				continue;
			}
			snprintf(prefix, sizeof(prefix), src->prefix, l);
			ret = src->parse(text, prefix, metrics_emit, m, src->must_parse ? c->err : NULL);
			if (!src->must_parse)
				ret = 0;
			else if (ret)
				err_set(c->err, "'%s': parse error", path);
			free(text);
			free(path);
		}
	}
	return ret;
}

/* Counters as deltas over the traffic; ring sizes and offloads as they were after. */
static int collect_counters(struct collect *c)
{
	struct metrics *before = metrics_new(), *after = metrics_new();
	int ret = read_snap(c, "before", before);

	if (!ret)
		ret = read_snap(c, "after", after);
	for (size_t i = 0; !ret && i < metrics_count(after); i++) {
		const char *name;
		double a, b;

		metrics_at(after, i, &name, &a);
		if (!strncmp(name, "ring.", 5) || !strncmp(name, "offload.", 8))
			metrics_set(c->m, name, a);
		else if (metrics_get(before, name, &b))
			metrics_set(c->m, name, a - b);
	}
	metrics_free(before);
	metrics_free(after);
	return ret;
}

/*
 * acpi.* and irq.* from RUN_DIR/acpi.json, written by netlab run when the
 * scenario gives ACPI tables: how many the kernel took, whether the routing
 * the tables expect held, and each interrupt line's handlers as
 * irq.<handler>.line (the IRQ number) and irq.<handler>.shared (how many
 * other handlers share it).
 */
static void collect_acpi(struct collect *c, const char *rundir)
{
	char *path = xasprintf("%s/acpi.json", rundir);
	struct json_object *j = access(path, R_OK) ? NULL : json_file_get(path), *v, *a;

	free(path);
	if (!j)
		return;
	if (json_object_object_get_ex(j, "given", &v))
		metrics_set(c->m, "acpi.given", json_object_get_double(v));
	if (json_object_object_get_ex(j, "taken", &v))
		metrics_set(c->m, "acpi.taken", json_object_get_double(v));
	if (json_object_object_get_ex(j, "expect", &v) && json_object_is_type(v, json_type_array)) {
		bool ok = true;

		for (size_t i = 0; i < json_object_array_length(v); i++)
			if (!json_object_object_get_ex(json_object_array_get_idx(v, i), "ok", &a) ||
			    !json_object_get_boolean(a))
				ok = false;
		metrics_set(c->m, "acpi.expect_ok", ok);
	}
	if (json_object_object_get_ex(j, "interrupts", &v) && json_object_is_type(v, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			struct json_object *line = json_object_array_get_idx(v, i), *irq, *acts;
			size_t n;

			if (!json_object_object_get_ex(line, "irq", &irq) ||
			    !json_object_object_get_ex(line, "actions", &acts) ||
			    !json_object_is_type(acts, json_type_array))
				continue;
			n = json_object_array_length(acts);
			for (size_t k = 0; k < n; k++) {
				const char *h = json_object_get_string(json_object_array_get_idx(acts, k));
				char name[96];

				/* Handler names become one metric name component. */
				if (!h || !*h || strpbrk(h, ". \t"))
					continue;
				snprintf(name, sizeof(name), "irq.%s.line", h);
				metrics_set(c->m, name, json_object_get_double(irq));
				snprintf(name, sizeof(name), "irq.%s.shared", h);
				metrics_set(c->m, name, (double)(n - 1));
			}
		}
	}
	json_object_put(j);
}

/* trace-cmd record in VM @vm finished cleanly (its file is complete): its note says 0. */
static int trace_recorded(struct collect *c, unsigned int vm)
{
	char *status = scnrun_status_text(c->files[vm]), *bad = NULL;
	long st = 0;
	int ret = 0, r;

	r = vm_status_note_int(status, "trace-cmd.status", 0, 255, &st, &bad);
	if (r == -ERANGE || (!r && st)) {
		char *log = xasprintf("%s/trace-cmd.log", c->files[vm]), num[24];

		snprintf(num, sizeof(num), "%ld", st);
		err_set(c->err,
			"%s: trace-cmd record ended with status %.40s in the guest (see %s): the trace is incomplete\n"
			"hint: a long or busy trace can fill the guest's memory, where it is written first: raise [scenario] mem, shorten the duration, or trace fewer events",
			c->s->path, bad ? "(not a number)" : num, log);
		free(log);
		ret = -EIO;
	}
	free(bad);
	free(status);
	return ret;
}

/*
 * VM @vm's trace.dat through every analysis, in ONE pass (trace/analysis.h),
 * the first time it is asked for; the drops and the path metrics then read
 * the same results. The timeline is the one the run page shows (--worst 1):
 * its metrics do not depend on which trees are kept.
 */
static struct trace_analyses *vm_trace(struct collect *c, unsigned int vm)
{
	struct trace_analyses *ta = &c->trace[vm];

	if (!c->decoded[vm]) {
		static const struct netrx_opts page_timeline = NETRX_OPTS_PAGE;

		c->ring_opts = (struct drvring_opts){ .counters = c->m };
		c->trace_path[vm] = xasprintf("%s/trace.dat", c->files[vm]);
		memset(ta, 0, sizeof(*ta));
		ta->path = c->trace_path[vm];
		for (int id = 0; id < TA_N; id++)
			ta->a[id].want = true;
		ta->a[TA_TIMELINE].opts = &page_timeline;
		ta->a[TA_RING].opts = &c->ring_opts;
		trace_analyses_run(ta);
		c->decoded[vm] = true;
	}
	return ta;
}

/* An analysis's rc, its error copied into *c->err (the results stay for the page). */
static int vm_rc(struct collect *c, struct trace_analyses *ta, enum trace_analysis_id id)
{
	struct trace_analysis *a = &ta->a[id];

	if (a->rc && a->err)
		err_set(c->err, "%s", a->err);
	return a->rc;
}

/* drops.* from each VM's trace.dat, summed over the VMs. */
static int collect_drops(struct collect *c)
{
	for (unsigned int vm = 0; vm < c->cfg->topo->n_vms; vm++) {
		struct trace_analyses *ta;
		int ret;

		if (trace_recorded(c, vm))
			return -EIO;
		ta = vm_trace(c, vm);
		ret = vm_rc(c, ta, TA_DROPS);
		if (ret == -ENODATA) {
			/* A scenario that dropped skb:kfree_skb from its set. */
			free(*c->err);
			*c->err = NULL;
			return 0;
		}
		if (ret)
			return ret;
		trace_analysis_table[TA_DROPS].metrics(ta->a[TA_DROPS].result, c->m);
	}
	return 0;
}

/*
 * Merge one VM's trace metrics into the run's: counts add up over the VMs;
 * for a latency percentile, the worse VM's value stands (in a pair, each
 * direction's stages come from one VM anyway).
 */
static void merge_vm_metrics(struct metrics *into, const struct metrics *vm)
{
	for (size_t i = 0; i < metrics_count(vm); i++) {
		const char *name, *last;
		double v, old;

		metrics_at(vm, i, &name, &v);
		if (!metrics_get(into, name, &old)) {
			metrics_set(into, name, v);
			continue;
		}
		last = strrchr(name, '.');
		last = last ? last + 1 : name;
		if (!strncmp(last, "p", 1) && strstr(last, "_us"))
			metrics_set(into, name, v > old ? v : old);
		else if (!strcmp(last, "max_us"))
			metrics_set(into, name, v > old ? v : old);
		else if (strstr(last, "mean") || strstr(last, "pct"))
			metrics_set(into, name, (v + old) / 2);
		else
			metrics_set(into, name, v + old);
	}
}

/*
 * One VM's trace metrics: the packet path, then the timeline, then the
 * rings, then the transmit side, as their one pass left them; each only
 * when those before it gave a result, the timeline and the rings only when
 * the ones they followed attached (as separate passes one after the other
 * did). An attach error of the timeline or the rings comes after the
 * results before it; the rings without their events, and the transmit side
 * without its, are no error.
 */
static int trace_path_vm(struct collect *c, struct trace_analyses *ta, struct metrics *m)
{
	static const enum trace_analysis_id after[] = { TA_TIMELINE, TA_RING, TA_TX };
	const struct trace_analysis *a = ta->a;
	char *late_err = NULL;
	int ret, late = 0;

	if (!a[TA_PATH].attached)
		return vm_rc(c, ta, TA_PATH);
	ret = vm_rc(c, ta, TA_PATH);
	if (!ret)
		pktpath_metrics(a[TA_PATH].result, m);
	for (size_t i = 0; i < ARRAY_SIZE(after); i++) {
		enum trace_analysis_id id = after[i];

		if (id == TA_RING && !a[TA_TIMELINE].attached)
			continue;	/* the rings followed the timeline */
		if (!a[id].attached) {
			if (id != TA_TX) {
				late = a[id].rc;
				free(late_err);
				late_err = a[id].err ? xstrdup(a[id].err) : NULL;
			}
			continue;
		}
		if (ret || (id == TA_RING && a[id].rc == -ENODATA))
			continue;
		ret = vm_rc(c, ta, id);
		if (!ret)
			trace_analysis_table[id].metrics(a[id].result, m);
	}
	if (!ret && late) {
		ret = late;
		free(*c->err);
		*c->err = late_err;
		late_err = NULL;
	}
	free(late_err);
	return ret;
}

/* latency.*, flows.* (pktpath) and netrx.*, tx.* (netrx) from each VM's trace. */
static int collect_trace_path(struct collect *c)
{
	for (unsigned int vm = 0; vm < c->cfg->topo->n_vms; vm++) {
		struct metrics *m = metrics_new();
		int ret = trace_path_vm(c, vm_trace(c, vm), m);

		if (ret == -ENODATA) {
			/* The scenario's set does not follow packets: no such metrics. */
			free(*c->err);
			*c->err = NULL;
			ret = 0;
		}
		if (!ret)
			merge_vm_metrics(c->m, m);
		metrics_free(m);
		if (ret)
			return ret;
	}
	return 0;
}

/* What an end was doing when the path failed it, for people. */
static const char *phase_words(const char *phase)
{
	static const char *const words[][2] = {
		{ "ack", "waiting for the last acknowledgements" },
		{ "send", "sending" },
		{ "receive", "receiving" },
		{ "connect", "connecting" },
		{ "accept", "waiting for the connection" },
		{ "hello", "exchanging the hello" },
		{ "transaction", "in a transaction" },
	};

	for (size_t i = 0; phase && i < ARRAY_SIZE(words); i++)
		if (!strcmp(phase, words[i][0]))
			return words[i][1];
	return phase ? phase : "?";
}

static const char *jstr(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* The line of one end's failure; the generator's message is guest text: sanitised. */
static char *failure_line(const struct tgen *g, bool tx_end, struct json_object *f)
{
	const char *kind = jstr(f, "kind"), *msg = jstr(f, "message");
	double unacked = jnum(f, "unacked_bytes"), idle = jnum(f, "idle_s");
	char *who = xasprintf("%s %s, %s", g->name, tx_end ? g->tx_flag : g->rx_flag,
			      phase_words(jstr(f, "phase")));
	char *first = msg ? xasprintf("%.*s", (int)strcspn(msg, "\n"), msg) : xstrdup("");
	char *out;

	if (!kind || strspn(kind, "abcdefghijklmnopqrstuvwxyz") != strlen(kind))
		kind = "failed";
	for (char *p = first; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
	if (!strcmp(kind, "stalled") && unacked > 0)
		out = xasprintf("stalled: %.0f bytes unacknowledged for %.1f s (%s)", unacked, idle,
				who);
	else if (!strcmp(kind, "stalled") && !isnan(idle))
		out = xasprintf("stalled: no progress for %.1f s (%s): %s", idle, who, first);
	else
		out = xasprintf("%s: %s (%s)", kind, first, who);
	free(who);
	free(first);
	return out;
}

char *scnrun_stall_reason(const struct scenario *s, const struct vm_config *cfg,
			  const char *rundir)
{
	const struct tgen *g = s->generator ? tgen_find(s->generator) : NULL;
	struct collect c = { .s = s, .cfg = cfg };
	char *out = NULL, *err = NULL;

	if (!g || !g->can_stall)
		return NULL;
	c.err = &err;
	for (unsigned int i = 0; i < VM_MAX_VMS; i++)
		c.files[i] = cfg->topo->n_vms > 1 ? xasprintf("%s/%s/files", rundir, run_vm_name(i))
						  : xasprintf("%s/files", rundir);
	for (int end = 0; end < 2 && !out; end++) {
		struct json_object *j = NULL, *f;

		if (read_json(&c, end ? g->rx_out : g->tx_out, &j) == 0 && (f = failure_of(j)))
			out = failure_line(g, !end, f);
		json_object_put(j);
		free(err);
		err = NULL;
	}
	for (unsigned int i = 0; i < VM_MAX_VMS; i++)
		free(c.files[i]);
	return out;
}

int scnrun_collect(const struct scenario *s, const struct vm_config *cfg, const char *rundir,
		   struct metrics *m, char **err)
{
	return scnrun_collect_keep(s, cfg, rundir, m, NULL, err);
}

int scnrun_collect_keep(const struct scenario *s, const struct vm_config *cfg, const char *rundir,
			struct metrics *m, struct scnrun_trace *keep, char **err)
{
	struct collect c = { .s = s, .cfg = cfg, .m = m, .err = err };
	int ret;

	for (unsigned int i = 0; i < VM_MAX_VMS; i++)
		c.files[i] = cfg->topo->n_vms > 1 ? xasprintf("%s/%s/files", rundir, run_vm_name(i))
						  : xasprintf("%s/files", rundir);

	if (!s->generator)
		ret = 0;	/* [exec] alone */
	else if (!strcmp(s->generator, "udp-stream"))
		ret = collect_udp(&c);
	else if (!strcmp(s->generator, "tcp-stream"))
		ret = collect_tcp(&c);
	else
		ret = collect_rr(&c);
	if (!ret && s->exec)
		ret = scnrun_exec_metrics(s, c.files[scnrun_exec_vm(s, cfg)], rundir, m, err);
	if (!ret)
		ret = collect_counters(&c);
	if (!ret)
		ret = scnrun_collect_pcaps(&c, rundir);
	if (!ret)
		collect_acpi(&c, rundir);
	if (!ret && s->trace)
		ret = collect_drops(&c);
	if (!ret && s->trace)
		ret = collect_trace_path(&c);
	if (!ret && s->trace)
		scnrun_collect_nic_tx(&c);
	if (!ret && s->generator && !strcmp(s->generator, "udp-stream") && cfg->n_nics >= 2)
		scnrun_udp_loss(&c);
	if (!ret && s->gdb)
		ret = scnrun_gdb_metrics(s, rundir, m, err);
	for (unsigned int i = 0; i < VM_MAX_VMS; i++) {
		/* One VM's results, once all went well: the run page's (scnrun.h). */
		if (!ret && keep && i == 0 && cfg->topo->n_vms == 1 && c.decoded[i]) {
			keep->ta = c.trace[i];
			keep->path = c.trace_path[i];
			keep->ta.path = keep->path;
			c.trace_path[i] = NULL;
		} else if (c.decoded[i]) {
			trace_analyses_release(&c.trace[i]);
		}
		free(c.trace_path[i]);
		free(c.files[i]);
	}
	return ret;
}

void scnrun_trace_release(struct scnrun_trace *t)
{
	trace_analyses_release(&t->ta);
	free(t->path);
	memset(t, 0, sizeof(*t));
}
