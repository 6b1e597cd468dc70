// SPDX-License-Identifier: GPL-2.0
/*
 * netlab report's library (report.h): what a traced run's trace.dat says,
 * section by section, each from one streaming analysis: drops (tracedrops:
 * dropwatch), stage latency and flows (pktpath: the drv->ip->tcp->app
 * script, tcptop, tcpsnoop), the NET_RX timeline (netrx: perf
 * netdev-times), the rings (drvring), the transmit side (txpath), and for a
 * run directory the wire against the stack (runview: pcaps beside the
 * counter deltas). The trace's analyses share one pass over the file
 * (trace/analysis.h). Text and --json print the same structures; nothing is
 * computed twice.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "gdb/gdb.h"
#include "lib/jsonout.h"
#include "lib/proc.h"
#include "lib/provenance.h"
#include "lib/util.h"
#include "report/html.h"
#include "report/report.h"
#include "run/result.h"
#include "report/runview.h"
#include "lib/metrics.h"
#include "report/genflows.h"
#include "trace/analysis.h"
#include "trace/drvring.h"
#include "trace/netrx.h"
#include "trace/pktpath.h"
#include "trace/tracedrops.h"
#include "trace/tracefile.h"
#include "trace/txpath.h"

/* What the per-drop callback writes to: stdout (text) or a JSON array. */
struct report_list {
	bool json;
	bool header_done;
	struct json_object *arr;
};

bool report_is_dir(const char *target)
{
	struct stat st;

	return !stat(target, &st) && S_ISDIR(st.st_mode);
}

/* "12.345678": ns as seconds with microseconds, rounded like trace-cmd report. */
static void fmt_us(char *buf, size_t n, uint64_t ns)
{
	ns += 500;
	snprintf(buf, n, "%llu.%06llu", (unsigned long long)(ns / 1000000000ull),
		 (unsigned long long)(ns % 1000000000ull / 1000));
}

static int list_drop(void *ctx, const struct tracedrops_drop *d)
{
	struct report_list *l = ctx;
	const char *pname = tracedrops_proto_name(d->protocol);
	char t[32], ts[32], proto[16];

	if (l->json) {
		struct json_object *o = tracedrops_drop_to_json(d);

		if (!o || json_object_array_add(l->arr, o))
			return -ENOMEM;
		return 0;
	}
	if (!l->header_done) {
		printf("%12s %14s %4s %7s  %-18s  %-6s  %-40s %s\n", "time_s", "trace_ts", "cpu",
		       "pid", "skbaddr", "proto", "location", "reason");
		l->header_done = true;
	}
	fmt_us(t, sizeof(t), d->rel);
	fmt_us(ts, sizeof(ts), d->ts);
	if (!pname)
		snprintf(proto, sizeof(proto), "0x%04x", d->protocol);
	printf("%12s %14s %4d %7d  0x%016llx  %-6s  %-40s %s\n", t, ts, d->cpu, d->pid,
	       (unsigned long long)d->skbaddr, pname ? pname : proto, d->site->location,
	       d->site->reason);
	return 0;
}

static void print_header(const struct tracedrops *td)
{
	char t0[32], t1[32], iv[32];

	fmt_us(t0, sizeof(t0), td->t0);
	fmt_us(t1, sizeof(t1), td->last_ts);
	snprintf(iv, sizeof(iv), "%.9g", (double)td->interval_ns / 1e9);
	printf("trace %s: %d CPU%s, %llu events from %s to %s s (trace clock)\n", td->path,
	       td->cpus, td->cpus == 1 ? "" : "s", (unsigned long long)td->events, t0, t1);
	if (td->lost_gaps)
		printf("warning: the ring buffer lost %llu events in %llu place%s (%llu of unknown size): drop counts are a lower bound\n",
		       (unsigned long long)td->lost, (unsigned long long)td->lost_gaps,
		       td->lost_gaps == 1 ? "" : "s", (unsigned long long)td->lost_unknown);
	else
		printf("no events lost\n");
	printf("%llu drops (skb:kfree_skb); intervals of %s s from the first event\n",
	       (unsigned long long)td->total, iv);
	if (!td->has_reason)
		printf("note: this kernel's skb:kfree_skb has no reason field (before 5.17)\n");
	if (td->unresolved)
		printf("note: %zu locations are not in the trace's kallsyms and are shown as addresses\n",
		       td->unresolved);
}

static void print_intervals(const struct tracedrops *td)
{
	if (td->n_intervals)
		putchar('\n');
	for (size_t i = 0; i < td->n_intervals; i++) {
		const struct tracedrops_interval *iv = &td->intervals[i];
		double a = tracedrops_interval_start(td, iv), w = (double)td->interval_ns / 1e9;
		int prec = td->interval_ns % 1000000 ? 6 : 3;

		printf("%9.*f-%.*f s: %llu drops", prec, a, prec, a + w,
		       (unsigned long long)iv->total);
		for (size_t j = 0; j < iv->n_slots; j++) {
			const struct tracedrops_site *s = &td->sites[iv->slots[j].site];

			printf("%s %llu at %s (%s)", j ? "," : ":",
			       (unsigned long long)iv->slots[j].count, s->location, s->reason);
		}
		if (iv->lost || iv->lost_unknown)
			printf("; lost %llu events%s", (unsigned long long)iv->lost,
			       iv->lost_unknown ? " and more (unknown count)" : "");
		putchar('\n');
	}
}

static void print_totals(const char *title, const struct tracedrops_total *t, size_t n,
			 uint64_t total)
{
	if (!n)
		return;
	printf("\nby %s:\n", title);
	for (size_t i = 0; i < n; i++)
		printf("%10llu  %5.1f%%  %s\n", (unsigned long long)t[i].count,
		       total ? 100.0 * (double)t[i].count / (double)total : 0.0, t[i].name);
}

static void print_text(const struct tracedrops *td)
{
	print_header(td);
	print_intervals(td);
	print_totals("location", td->by_location, td->n_by_location, td->total);
	print_totals("reason", td->by_reason, td->n_by_reason, td->total);
}

/* ---- the sections -------------------------------------------------------------- */

struct report {
	const struct report_opts *ro;
	const char *trace;		/* NULL: the run recorded none */
	struct tracedrops *td;
	struct pktpath *pp;
	struct netrx *nr;
	struct runview *rv;
	struct drvring *dr;
	struct txpath *tx;
	unsigned int have;		/* sections computed */
	struct report_list list;	/* --list */
	struct json_object *packets;	/* --packets / --snoop lines, in JSON mode */
	struct json_object *snoop;
	bool packets_header, snoop_header;
	char *missing[7];		/* why a section the input lacks was left out, by bit */
	struct analyses *an;		/* while the analyses attach */
};

static int section_bit(unsigned int section)
{
	return __builtin_ctz(section);
}

static int list_drop_path(void *ctx, const struct pktpath_drop *d)
{
	struct report *r = ctx;
	const char *pname = tracedrops_proto_name(d->protocol);
	char t[32], flow[80] = "-", a[16], b[16];

	if (d->flow)
		snprintf(flow, sizeof(flow), "%s %s:%u -> %s:%u",
			 d->flow->proto == 6 ? "tcp" : d->flow->proto == 17 ? "udp" : "ip",
			 pktpath_addr_str(d->flow->saddr, a), d->flow->sport,
			 pktpath_addr_str(d->flow->daddr, b), d->flow->dport);
	if (r->ro->json) {
		struct json_object *o = json_object_new_object();
		char skb[24];

		snprintf(skb, sizeof(skb), "0x%llx", (unsigned long long)d->skbaddr);
		json_object_object_add(o, "time_s", json_object_new_double((double)d->rel / 1e9));
		json_object_object_add(o, "pid", json_object_new_int(d->pid));
		json_object_object_add(o, "skbaddr", json_object_new_string(skb));
		json_object_object_add(o, "protocol", json_object_new_int((int)d->protocol));
		json_object_object_add(o, "location", json_object_new_string(d->location_name));
		json_object_object_add(o, "reason", json_object_new_string(d->reason_name));
		json_object_object_add(o, "flow", d->flow ? json_object_new_string(flow) : NULL);
		json_object_object_add(o, "reassembly", json_object_new_boolean(d->reassembly));
		json_object_object_add(o, "missed_probe", json_object_new_boolean(d->missed_probe));
		return json_object_array_add(r->list.arr, o) ? -ENOMEM : 0;
	}
	if (!r->list.header_done) {
		printf("%12s %7s  %-18s  %-6s  %-36s %-16s %s\n", "time_s", "pid", "skbaddr", "proto",
		       "location", "reason", "flow");
		r->list.header_done = true;
	}
	fmt_us(t, sizeof(t), d->rel);
	printf("%12s %7d  0x%016llx  %-6s  %-36s %-16s %s%s\n", t, d->pid,
	       (unsigned long long)d->skbaddr, pname ? pname : "?", d->location_name, d->reason_name,
	       flow, d->reassembly ? " (fragment freed after reassembly: not a drop)" :
	       d->missed_probe ? " (flow unknown: its ip_local_deliver probe was skipped)" : "");
	return 0;
}

static int emit_line(struct report *r, struct json_object *arr, bool *header, const char *head,
		     const char *line)
{
	if (r->ro->json)
		return json_object_array_add(arr, json_object_new_string(line)) ? -ENOMEM : 0;
	if (!*header && head)
		puts(head);
	*header = true;
	puts(line);
	return 0;
}

static int on_packet(void *ctx, const struct pktpath_packet *p)
{
	struct report *r = ctx;
	char line[512];

	pktpath_packet_line(p, line, sizeof(line));
	return emit_line(r, r->packets, &r->packets_header, "per-packet stage latency (as packets close):",
			 line);
}

static int on_snoop(void *ctx, const struct pktpath_packet *p)
{
	struct report *r = ctx;
	char line[512];

	pktpath_snoop_line(p, line, sizeof(line));
	return emit_line(r, r->snoop, &r->snoop_header,
			 "    TIME(s) DIR    PID COMM                      SADDR:SPORT -> DADDR:DPORT             PROTO  LEN FLAGS",
			 line);
}

/*
 * Run one analysis: 0 when it gave a result, 1 when the input does not hold
 * what it needs and the section was not asked for (it is left out), or the
 * error.
 */
static int optional(struct report *r, unsigned int section, int ret, char **err)
{
	if (ret == -ENODATA && !(r->ro->sections & section)) {
		int b = section_bit(section);

		free(r->missing[b]);
		r->missing[b] = *err;
		*err = NULL;
		return 1;
	}
	return ret;
}

/*
 * The trace's analyses, in the order separate passes ran them: the packet
 * path first (the drop list takes its flows), then drops, timeline, ring.
 * They share one pass over the file (trace/tracepass.h).
 */
enum { A_PATH = TA_PATH, A_DROPS = TA_DROPS, A_TIMELINE = TA_TIMELINE, A_RING = TA_RING,
       A_TX = TA_TX, A_N = TA_N };

struct analyses {
	struct trace_analyses ta;
	struct pktpath_opts path;	/* each analysis's options */
	struct tracedrops_opts drops;
	struct netrx_opts timeline;
	struct drvring_opts ring;
	int fatal;			/* an attach error that ends the report, or 0 */
	char *fatal_err;
	/* The NIC counters of the run beside the ring: until it collects. */
	char *mpath;
	struct json_object *mj;
	struct metrics *m;
};

static unsigned int wanted(const struct report *r)
{
	const struct report_opts *ro = r->ro;

	return ro->sections ? ro->sections
			    : REPORT_DROPS | REPORT_LATENCY | REPORT_FLOWS | REPORT_TIMELINE | REPORT_RING | REPORT_TX | REPORT_WIRE;
}

/*
 * What an analysis gave (@ret, its error in *@err): 0 to go on (a result, or
 * a section left out with why), or the error that ends the report.
 */
static int take(struct report *r, int a, int ret, char **err)
{
	static const unsigned int section[A_N] = { 0, REPORT_DROPS, REPORT_TIMELINE, REPORT_RING, REPORT_TX };
	const struct report_opts *ro = r->ro;
	unsigned int want = wanted(r);

	if (a == A_PATH) {
		if (ret == -ENODATA && !(ro->sections & (REPORT_LATENCY | REPORT_FLOWS)) && !ro->packets &&
		    !ro->snoop) {
			/* Left out; say why only when the section was wanted by default. */
			if (want & (REPORT_LATENCY | REPORT_FLOWS))
				r->missing[section_bit(REPORT_LATENCY)] = *err;
			else
				free(*err);
			*err = NULL;
			return 0;
		}
		if (!ret)
			r->have |= want & (REPORT_LATENCY | REPORT_FLOWS);
		return ret;
	}
	ret = optional(r, section[a], ret, err);
	if (ret < 0)
		return ret;
	if (!ret)
		r->have |= section[a];
	return 0;
}

/* The run's metrics (metrics.json), for the NIC counters beside the ring. */
static void ring_counters(struct report *r, struct analyses *an)
{
	an->mpath = report_is_dir(r->ro->target) ? xasprintf("%s/metrics.json", r->ro->target) : NULL;
	an->mj = an->mpath && !access(an->mpath, R_OK) ? json_file_get(an->mpath) : NULL;
	if (an->mj) {
		an->m = metrics_new();
		metrics_add_json(an->m, NULL, an->mj);
		an->ring.counters = an->m;
	}
}

/* Without the packet path, the list comes from the drops alone (no flows). */
static void drops_list(struct report *r, struct analyses *an)
{
	if (r->ro->list) {
		an->drops.on_drop = list_drop;
		an->drops.ctx = &r->list;
	}
}

/*
 * An analysis that could not attach (trace/analysis.h): left out with why,
 * or the error that ends the report once those before it gave theirs; then
 * no more attach.
 */
static int attach_error(struct trace_analyses *ta, enum trace_analysis_id id, void *ctx)
{
	struct report *r = ctx;
	struct analyses *an = r->an;
	char *err = NULL;
	int ret = take(r, id, trace_analyses_take_err(ta, id, &err), &err);

	if (id == TA_PATH)
		drops_list(r, an);
	if (ret) {
		an->fatal = ret;
		an->fatal_err = err;
		return 1;
	}
	free(err);
	return 0;
}

static bool analysis_wanted(const struct report *r, int a)
{
	/* The sections that want each; the packet path also tells the drops that are not. */
	static const unsigned int sections[A_N] = {
		[A_PATH] = REPORT_DROPS | REPORT_LATENCY | REPORT_FLOWS, [A_DROPS] = REPORT_DROPS,
		[A_TIMELINE] = REPORT_TIMELINE, [A_RING] = REPORT_RING, [A_TX] = REPORT_TX,
	};

	return r->trace && ((wanted(r) & sections[a]) ||
			    (a == A_PATH && (r->ro->packets || r->ro->snoop)));
}

/* One pass over the trace for every analysis wanted; then their results in order. */
static int analyse(struct report *r, char **err)
{
	const struct report_opts *ro = r->ro;
	struct analyses an = { 0 };
	void **into[A_N] = { (void **)&r->pp, (void **)&r->td, (void **)&r->nr, (void **)&r->dr,
			     (void **)&r->tx };
	int ret = 0;

	an.path = (struct pktpath_opts){ .ctx = r, .on_packet = ro->packets ? on_packet : NULL,
					 .on_snoop = ro->snoop ? on_snoop : NULL,
					 .on_drop = ro->list ? list_drop_path : NULL };
	an.drops = (struct tracedrops_opts){ .interval_ns = ro->interval_ns };
	an.timeline = (struct netrx_opts){ .select = ro->worst ? NETRX_WORST_COPY : NETRX_FIRST,
					   .n = ro->worst ? ro->worst : ro->first,
					   .dev = ro->dev };
	an.ta = (struct trace_analyses){ .path = r->trace, .on_attach_error = attach_error, .ctx = r };
	an.ta.a[A_PATH].opts = &an.path;
	an.ta.a[A_DROPS].opts = &an.drops;
	an.ta.a[A_TIMELINE].opts = &an.timeline;
	an.ta.a[A_RING].opts = &an.ring;
	for (int a = 0; a < A_N; a++)
		an.ta.a[a].want = analysis_wanted(r, a);
	if (!an.ta.a[A_PATH].want)
		drops_list(r, &an);
	if (an.ta.a[A_RING].want)
		ring_counters(r, &an);
	r->an = &an;
	trace_analyses_run(&an.ta);
	r->an = NULL;
	for (int a = 0; a < A_N && !ret; a++) {
		char *e = NULL;

		if (!an.ta.a[a].attached)
			continue;
		/* The report ends at the first error: those after it are freed. */
		ret = take(r, a, trace_analyses_take_err(&an.ta, a, &e), &e);
		if (ret)
			*err = e;
		else
			free(e);
		if (!an.ta.a[a].rc) {
			*into[a] = an.ta.a[a].result;
			an.ta.a[a].result = NULL;
		}
	}
	if (!ret && an.fatal) {
		ret = an.fatal;
		*err = an.fatal_err;
	} else {
		free(an.fatal_err);
	}
	trace_analyses_release(&an.ta);
	json_object_put(an.mj);
	metrics_free(an.m);
	free(an.mpath);
	return ret;
}

static int compute(struct report *r, char **err)
{
	const struct report_opts *ro = r->ro;
	unsigned int want = wanted(r);
	int ret;

	if (!r->trace && (want & ~REPORT_WIRE) && ro->sections & ~REPORT_WIRE) {
		err_set(err, "cannot read trace '%s/files/trace.dat': %s\nhint: the run recorded no trace; run a scenario with [trace] on, or record with trace-cmd record -o /netlab/out/trace.dat",
			ro->target, strerror(ENOENT));
		return -ENOENT;
	}
	ret = analyse(r, err);
	if (ret)
		return ret;
	if (want & REPORT_WIRE && report_is_dir(ro->target)) {
		ret = runview_read(ro->target, &r->rv, err);
		if (ret == -ENOENT && !(ro->sections & REPORT_WIRE)) {
			free(*err);
			*err = NULL;
		} else if (ret) {
			return ret;
		} else {
			r->have |= REPORT_WIRE;
		}
	} else if (ro->sections & REPORT_WIRE) {
		err_set(err, "--wire needs a run directory (its result.json, pcaps and metrics.json), not '%s'\nhint: give the run directory the trace came from",
			ro->target);
		return -EINVAL;
	}
	if (!r->have && !ro->packets && !ro->snoop) {
		/* Nothing to report: say why the drops could not be (the oldest section). */
		for (size_t b = 0; b < ARRAY_SIZE(r->missing); b++)
			if (r->missing[b]) {
				*err = r->missing[b];
				r->missing[b] = NULL;
				return -ENODATA;
			}
		if (!r->trace)
			err_set(err, "cannot read trace '%s/files/trace.dat': %s\nhint: the run recorded no trace; run a scenario with [trace] on, or record with trace-cmd record -e skb:kfree_skb -o /netlab/out/trace.dat",
				ro->target, strerror(ENOENT));
		else
			err_set(err, "cannot read trace '%s': it recorded none of the events netlab reports on\nhint: record with the default [trace] set of a scenario",
				r->trace);
		return -ENODATA;
	}
	return 0;
}

/* The generators' flows of a run directory (its metrics.json), after the trace's. */
static void print_genflows(const struct report *r)
{
	static const enum genflow_order order[PKTPATH_FLOW_ORDERS] = {
		[PKTPATH_BY_BYTES] = GENFLOW_BY_BYTES,
		[PKTPATH_BY_DROPS] = GENFLOW_BY_LOSS,
		[PKTPATH_BY_LATENCY] = GENFLOW_BY_LATENCY,
	};
	enum genflow_order o = order[r->ro->flow_order];
	char *path = xasprintf("%s/metrics.json", r->ro->target);
	struct json_object *mj = access(path, R_OK) ? NULL : json_file_get(path);
	struct metrics *m = mj ? metrics_new() : NULL;
	struct genflow *g = NULL;
	size_t n;

	if (m)
		metrics_add_json(m, NULL, mj);
	n = genflows_collect(m, o, &g);
	if (n) {
		putchar('\n');
		genflows_print(stdout, g, n, r->ro->top, o);
	}
	free(g);
	metrics_free(m);
	json_object_put(mj);
	free(path);
}

static void print_report(const struct report *r)
{
	const struct report_opts *ro = r->ro;
	struct pktpath_print_opts po = { .processes = true,
					 .flows = !!(r->have & REPORT_FLOWS),
					 .max_flows = ro->top,
					 .flow_order = (enum pktpath_flow_order)ro->flow_order };
	bool sep = r->list.header_done || r->packets_header || r->snoop_header;

	if (r->have & REPORT_DROPS) {
		if (sep)
			putchar('\n');
		print_text(r->td);
		if (r->pp && r->pp->reassembly_frees)
			printf("note: %llu of these are IP fragments freed with their reassembled packet (6.1 frees a frag_list with NOT_SPECIFIED): not drops; see --list\n",
			       (unsigned long long)r->pp->reassembly_frees);
		sep = true;
	}
	for (size_t b = 0; b < ARRAY_SIZE(r->missing); b++)
		if (r->missing[b]) {
			/* The first line of the message: what the trace lacks. */
			printf("note: %.*s\n", (int)strcspn(r->missing[b], "\n"), r->missing[b]);
			sep = true;
		}
	if (r->have & (REPORT_LATENCY | REPORT_FLOWS)) {
		if (sep)
			putchar('\n');
		if (!(r->have & REPORT_LATENCY) || !(ro->sections & REPORT_LATENCY && !(ro->sections & REPORT_FLOWS)))
			po.flows = true;
		pktpath_print(r->pp, stdout, &po);
		if (po.flows && report_is_dir(ro->target))
			print_genflows(r);
		sep = true;
	}
	if (r->have & REPORT_TIMELINE) {
		if (sep)
			putchar('\n');
		netrx_print(r->nr, stdout);
		sep = true;
	}
	if (r->have & REPORT_RING) {
		if (sep)
			putchar('\n');
		drvring_print(r->dr, stdout);
		sep = true;
	}
	if (r->have & REPORT_TX) {
		if (sep)
			putchar('\n');
		txpath_print(r->tx, stdout);
		sep = true;
	}
	if (r->have & REPORT_WIRE) {
		if (sep)
			putchar('\n');
		runview_print(r->rv, stdout, ro->counters);
	}
}

static int print_report_json(const struct report *r)
{
	struct json_object *o = r->td ? tracedrops_to_json(r->td) : json_object_new_object(), *drops;
	char *text;

	if (!o)
		return -ENOMEM;
	if (r->list.arr) {
		if (!json_object_object_get_ex(o, "drops", &drops)) {
			drops = json_object_new_object();
			json_object_object_add(o, "drops", drops);
		}
		json_object_object_add(drops, "list", json_object_get(r->list.arr));
	}
	report_json_analyses(o, r->pp, r->nr, r->dr); /* report/html.h */
	if (r->tx) {
		struct json_object *tj = txpath_to_json(r->tx);

		json_object_object_del(tj, "trace");
		json_object_object_add(o, "tx", tj);
	}
	if (r->rv)
		json_object_object_add(o, "wire", runview_to_json(r->rv));
	if (r->ro->oops) {
		struct json_object *lines = json_object_new_array();
		char *copy = xstrdup(r->ro->oops), *save = NULL;

		for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
			json_object_array_add(lines, json_object_new_string(l));
		free(copy);
		json_object_object_add(o, "oops", lines);
	}
	if (r->packets)
		json_object_object_add(o, "packet_lines", json_object_get(r->packets));
	if (r->snoop)
		json_object_object_add(o, "snoop", json_object_get(r->snoop));
	/* What wrote it, and the kernel the run booted (null for a bare trace.dat). */
	provenance_add(o);
	json_object_object_add(o, "kernel", run_result_kernel_json(r->ro->target));
	text = json_text(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
				    JSON_C_TO_STRING_NOSLASHESCAPE);
	if (text)
		puts(text);
	free(text);
	json_object_put(o);
	return 0;
}

static int __cmd_report(const struct report_opts *ro, const char *trace, char **err)
{
	struct report r = { .ro = ro, .trace = trace, .list = { .json = ro->json } };
	int ret = 0;

	if (ro->json) {
		if (ro->list)
			r.list.arr = json_object_new_array();
		if (ro->packets)
			r.packets = json_object_new_array();
		if (ro->snoop)
			r.snoop = json_object_new_array();
	}
	ret = compute(&r, err);
	if (!ret)
		ret = ro->json ? print_report_json(&r) : (print_report(&r), 0);
	if (ret == -ENOMEM)
		err_set(err, "cannot read trace '%s': %s", trace ? trace : ro->target, strerror(ENOMEM));
	tracedrops_free(r.td);
	pktpath_free(r.pp);
	netrx_free(r.nr);
	runview_free(r.rv);
	drvring_free(r.dr);
	txpath_free(r.tx);
	json_object_put(r.list.arr);
	json_object_put(r.packets);
	json_object_put(r.snoop);
	for (size_t b = 0; b < ARRAY_SIZE(r.missing); b++)
		free(r.missing[b]);
	return ret;
}

/* 0, or 2 (bad input) once @on_err said why: the sandboxed child's exit status. */
static int report_exit(const struct report_opts *ro, const char *path, report_err_fn on_err)
{
	char *err = NULL;

	if (!__cmd_report(ro, path, &err))
		return 0;
	on_err(err);
	free(err);
	return 2;
}

/* Signals by which the child dies of the file, not of something done to it. */
static bool report_crashed(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL ||
	       sig == SIGABRT || sig == SIGXCPU || sig == SIGSYS;
}

int report_isolated(const struct report_opts *ro, char *path, report_err_fn on_err)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return report_exit(ro, path, on_err) ? -EINVAL : 0;
	if (!pid) {
		proc_decode_limits(path); /* lib/proc.h */
		status = report_exit(ro, path, on_err);
		free(path);
		fflush(NULL);
		_exit(status);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -EINVAL;
	if (WIFEXITED(status))
		return WEXITSTATUS(status) ? -EINVAL : 0;
	if (!report_crashed(WTERMSIG(status))) {
		/* Killed from outside (SIGPIPE from `| head`, SIGINT, ...): so are we. */
		signal(WTERMSIG(status), SIG_DFL);
		raise(WTERMSIG(status));
		return -EINTR;
	}
	fflush(stdout);
	{
		char *msg = xasprintf("cannot read trace '%s': decoding it failed (%s): the file is truncated or corrupted\nhint: trace-cmd report is likely to fail on it too; record it again",
				      path ? path : ro->target, strsignal(WTERMSIG(status)));

		on_err(msg);
		free(msg);
	}
	return -EINVAL;
}

/*
 * A run that ended in an oops or panic: its trace decoded to file:line
 * (gdb.h), printed first, or kept for the JSON object.
 */
void report_oops(struct report_opts *ro, report_err_fn on_err)
{
	char *err = NULL;
	struct sbuf out;

	sbuf_init(&out);
	if (oops_report(ro->target, &out, &err) > 0) {
		if (ro->json)
			ro->oops = xstrdup(out.s);
		else
			printf("%s\n", out.s);
	} else if (err) {
		char *msg = xasprintf("cannot decode the oops: %s", err);

		on_err(msg);
		free(msg);
	}
	fflush(stdout);
	sbuf_release(&out);
	free(err);
}

/* A directory with a file @name. */
static bool dir_has(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	bool ret = report_is_dir(dir) && !access(p, F_OK);

	free(p);
	return ret;
}

/* --html: a run's page, a suite directory's (summary.json) or a bisection's (bisect.json). */
int report_html(const struct report_opts *ro, report_err_fn on_err)
{
	char *err = NULL, *page, *trace;
	bool run = false;
	int ret;

	if (dir_has(ro->target, "summary.json"))
		ret = html_suite_write(ro->target, ro->out, false, &err);
	else if (dir_has(ro->target, "bisect.json"))
		ret = html_bisect_write(ro->target, ro->out, &err);
	else {
		ret = html_run_write(ro->target, ro->out, &err);
		run = true;
	}
	if (ret) {
		on_err(err);
		free(err);
		return -EINVAL;
	}
	page = ro->out ? xstrdup(ro->out) : xasprintf("%s/report.html", ro->target);
	/* A damaged trace is an error line in the page, and bad input all the same. */
	trace = run ? tracefile_find(ro->target) : NULL;
	ret = trace ? tracefile_check(trace, "record it again with trace-cmd record", &err) : 0;
	if (ret) {
		char *msg = xasprintf("%s was written, and says so too", page);

		on_err(err);
		on_err(msg);
		free(msg);
	} else {
		printf("%s\n", page);
	}
	free(err);
	free(trace);
	free(page);
	return ret ? -EINVAL : 0;
}
