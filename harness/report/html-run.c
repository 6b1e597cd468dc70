// SPDX-License-Identifier: GPL-2.0
/*
 * The run page's sections (html-int.h): each draws from the analyses'
 * results and prints its numbers from the JSON report, and says so when the
 * run lacks what it needs.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "report/html-int.h"
#include "report/svg.h"
#include "lib/metrics.h"
#include "scenario/regress.h"
#include "trace/drvring.h"
#include "trace/netrx.h"
#include "trace/pktpath.h"
#include "trace/tracedrops.h"

#define PLOT_W 1200
#define PLOT_H 340
#define NETRX_MAX_ROWS 40	/* skbs drawn in the NET_RX tree; the rest are counted */

/* ---- header ----------------------------------------------------------------------- */


static void header(struct sbuf *b, const struct html_run *r)
{
	sbuf_adds(b, "<h1>netlab run <code>");
	esc_html(b, r->target);
	sbuf_adds(b, "</code></h1>\n");
	for (size_t i = 0; i < r->n_errors; i++) {
		sbuf_adds(b, "<p class=\"error\" data-error>error: ");
		esc_html(b, r->errors[i]);
		sbuf_adds(b, "</p>\n");
	}
	sbuf_adds(b, "<table class=\"run\">\n");
	if (r->result) {
		sbuf_adds(b, "<tr><th class=\"l\">verdict</th><td class=\"l\" data-verdict>");
		html_str(b, r->result, "verdict", "-");
		sbuf_adds(b, "</td></tr>\n<tr><th class=\"l\">reason</th><td class=\"l\">");
		html_str(b, r->result, "reason", "-");
		sbuf_adds(b, "</td></tr>\n<tr><th class=\"l\">kernel</th><td class=\"l\">");
		html_str(b, r->result, "kernel.version", "-");
		sbuf_adds(b, "</td></tr>\n<tr><th class=\"l\">accelerator</th><td class=\"l\">");
		html_str(b, r->result, "accel", "-");
		sbuf_adds(b, "</td></tr>\n");
	}
	if (html_json_at(r->rep, "trace")) {
		sbuf_adds(b, "<tr><th class=\"l\">trace</th><td class=\"l\">");
		html_num(b, r->rep, NULL, "trace.events");
		sbuf_adds(b, " events on ");
		html_num(b, r->rep, NULL, "trace.cpus");
		sbuf_adds(b, " CPUs, ");
		html_num(b, r->rep, NULL, "trace.lost_events");
		sbuf_adds(b, " lost</td></tr>\n");
	}
	sbuf_adds(b, "</table>\n");
	if (!r->result && r->dir)
		html_missing(b, "no result.json in the run directory");
}

/* ---- loss story ------------------------------------------------------------------- */

static void loss_bar(struct svg_plot *p, int cat, double lo, double hi, const char *what)
{
	char t[96];

	snprintf(t, sizeof(t), "%s: %.0f", what, hi - lo);
	svg_rect(p, cat + 0.15, lo, cat + 0.85, hi, "bar", t);
}

static void sec_loss(struct sbuf *b, const struct html_run *r)
{
	static const char *const cats[] = { "sent",	  "sender stack", "wire A",	 "wire B",
					    "NIC/driver", "receiver stack", "delivered" };
	static const char *const keys[] = { "loss.app_sent",	    "loss.lost_before_wire",
					    "loss.tx_stack_drops",  "loss.wire_tx",
					    "loss.lost_on_wire",    "loss.wire_rx",
					    "loss.driver_drops",    "loss.lost_in_stack",
					    "loss.rx_stack_drops",  "loss.app_received",
					    "loss.unaccounted" };
	const struct metrics *m = r->m;
	double sent, before, wtx, wrx, drv, stack, recv, top;
	struct svg_plot p;
	char *story;

	html_section_begin(b, "loss", "Loss story: where the datagrams went, layer by layer");
	sent = m ? metrics_value(m, "loss.app_sent", NAN) : NAN;
	if (isnan(sent)) {
		html_missing(b, r->m ? "metrics.json has no loss.* metrics (they come from a scenario whose traffic counts what it sent and received, under netlab regress)"
				: "no metrics.json: the loss story comes from netlab regress's per-run metrics");
		html_section_end(b);
		return;
	}
	before = metrics_value(m, "loss.lost_before_wire", 0);
	wtx = metrics_value(m, "loss.wire_tx", 0);
	wrx = metrics_value(m, "loss.wire_rx", 0);
	drv = metrics_value(m, "loss.driver_drops", 0);
	stack = metrics_value(m, "loss.lost_in_stack", 0);
	recv = metrics_value(m, "loss.app_received", 0);
	top = fmax(fmax(sent, wtx), wrx) * 1.05;
	svg_begin(&p, b, "loss", "sent -> delivered (bars: packets carried; red: lost at that layer)",
		  PLOT_W, PLOT_H, 0, ARRAY_SIZE(cats), 0, top, false);
	p.xcats = cats;
	p.n_xcats = ARRAY_SIZE(cats);
	svg_axes(&p, "layer", "datagrams");
	svg_series_begin(&p, "carried");
	loss_bar(&p, 0, 0, sent, "sent");
	loss_bar(&p, 2, 0, wtx, "on wire A");
	loss_bar(&p, 3, 0, wrx, "on wire B");
	loss_bar(&p, 6, 0, recv, "delivered");
	svg_series_end(&p);
	svg_series_begin(&p, "lost");
	loss_bar(&p, 1, sent - before, sent, "lost in the sender's stack");
	if (wtx > wrx)
		loss_bar(&p, 3, wrx, wtx, "lost between the NICs");
	loss_bar(&p, 4, wrx - drv, wrx, "lost in the NIC/driver");
	loss_bar(&p, 5, wrx - drv - stack, wrx - drv, "lost in the receiver's stack");
	svg_series_end(&p);
	svg_end(&p);
	sbuf_adds(b, "<table class=\"loss\"><tr>");
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		sbuf_adds(b, "<th>");
		esc_html(b, keys[i] + 5);
		sbuf_adds(b, "</th>");
	}
	sbuf_adds(b, "</tr>\n<tr>");
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		sbuf_adds(b, "<td>");
		html_num(b, r->mj, "metrics", keys[i]);
		sbuf_adds(b, "</td>");
	}
	sbuf_adds(b, "</tr></table>\n");
	story = regress_loss_story(m);
	if (story) {
		sbuf_adds(b, "<pre class=\"story\">loss: ");
		esc_html(b, story);
		sbuf_adds(b, "</pre>\n");
	}
	free(story);
	html_section_end(b);
}

/* ---- drops over time --------------------------------------------------------------- */

static size_t reason_index(const struct tracedrops *td, const char *reason)
{
	for (size_t i = 0; i < td->n_by_reason; i++)
		if (!strcmp(td->by_reason[i].name, reason))
			return i;
	return td->n_by_reason;
}

static void drops_plot(struct sbuf *b, const struct tracedrops *td)
{
	size_t nr = td->n_by_reason, ni = td->n_intervals;
	uint64_t *cnt = xzalloc((nr + 1) * (ni + 1) * sizeof(*cnt)), ymax = 0;
	double w = (double)td->interval_ns / 1e9, span = (double)(td->last_ts - td->t0) / 1e9;
	struct svg_plot p;
	double *base = xzalloc((ni + 1) * sizeof(*base));
	char t[160];

	for (size_t i = 0; i < ni; i++) {
		const struct tracedrops_interval *iv = &td->intervals[i];

		for (size_t j = 0; j < iv->n_slots; j++)
			cnt[i * (nr + 1) + reason_index(td, td->sites[iv->slots[j].site].reason)] +=
				iv->slots[j].count;
		ymax = iv->total > ymax ? iv->total : ymax;
		span = fmax(span, tracedrops_interval_start(td, iv) + w);
	}
	svg_begin(&p, b, "drops", "drops per interval, stacked by reason", PLOT_W, PLOT_H, 0, span, 0,
		  (double)ymax * 1.1, false);
	svg_axes(&p, "time since the trace's first event (s)", "drops per interval");
	for (size_t k = 0; k < nr; k++) {
		svg_series_begin(&p, td->by_reason[k].name);
		for (size_t i = 0; i < ni; i++) {
			double x = tracedrops_interval_start(td, &td->intervals[i]);
			uint64_t c = cnt[i * (nr + 1) + k];

			if (!c)
				continue;
			snprintf(t, sizeof(t), "%.3f-%.3f s: %llu %s", x, x + w, (unsigned long long)c,
				 td->by_reason[k].name);
			svg_rect(&p, x, base[i], x + w, base[i] + (double)c, "bar", t);
			base[i] += (double)c;
		}
		svg_series_end(&p);
	}
	svg_end(&p);
	free(cnt);
	free(base);
}

static void sec_drops(struct sbuf *b, const struct html_run *r)
{
	const struct tracedrops *td = r->td;

	html_section_begin(b, "drops", "Drops over time by reason (dropwatch)");
	if (!td) {
		html_missing(b, r->trace ? "the trace has no skb:kfree_skb events (or could not be read)"
				    : "no trace: drops come from the run's trace.dat");
		html_section_end(b);
		return;
	}
	sbuf_adds(b, "<p>");
	html_num(b, r->rep, NULL, "drops.total");
	sbuf_adds(b, " drops (skb:kfree_skb) in intervals of ");
	html_num(b, r->rep, NULL, "drops.interval_s");
	sbuf_adds(b, " s; events lost by the ring buffer: ");
	html_num(b, r->rep, NULL, "trace.lost_events");
	sbuf_adds(b, "</p>\n");
	if (!td->total) {
		html_missing(b, "nothing was dropped: no skb:kfree_skb record in the trace");
		html_section_end(b);
		return;
	}
	drops_plot(b, td);
	sbuf_adds(b, "<table class=\"reasons\"><tr><th class=\"l\">reason</th><th>drops</th></tr>\n");
	for (size_t k = 0; k < td->n_by_reason; k++) {
		sbuf_adds(b, "<tr><td class=\"l\">");
		esc_html(b, td->by_reason[k].name);
		sbuf_adds(b, "</td><td>");
		html_numf(b, r->rep, NULL, "drops.by_reason.%s", td->by_reason[k].name);
		sbuf_adds(b, "</td></tr>\n");
	}
	sbuf_adds(b, "</table>\n");
	html_section_end(b);
}

/* ---- stage latency ------------------------------------------------------------------ */

static void cdf_series(struct svg_plot *p, struct json_object *stage, const struct hist *h,
		       const char *name)
{
	static const struct {
		const char *key, *label;
		double y;
	} marks[] = { { "p50_us", "p50", 0.5 }, { "p99_us", "p99", 0.99 }, { "max_us", "max", 1 } };
	double *xs = xrealloc_array(NULL, 2, sizeof(double)), *ys = xrealloc_array(NULL, 2, sizeof(double));
	size_t n = 0, cap = 2;
	uint64_t cum = 0;
	char t[128];

	xs[n] = (double)h->min / 1e3;
	ys[n++] = 0;
	for (unsigned int i = 0; i < HIST_BUCKETS && cum < h->count; i++) {
		if (!h->buckets[i])
			continue;
		cum += h->buckets[i];
		if (n == cap) {
			cap *= 2;
			xs = xrealloc_array(xs, cap, sizeof(double));
			ys = xrealloc_array(ys, cap, sizeof(double));
		}
		xs[n] = fmin(fmax((double)hist_bucket_value(i), (double)h->min), (double)h->max) / 1e3;
		ys[n++] = (double)cum / (double)h->count;
	}
	svg_series_begin(p, name);
	svg_line(p, xs, ys, n, true);
	for (size_t k = 0; k < ARRAY_SIZE(marks); k++) {
		double v = html_json_num(stage, marks[k].key, NAN);

		if (isnan(v))
			continue;
		snprintf(t, sizeof(t), "%s %s: %g us", name, marks[k].label, v);
		svg_mark(p, v, marks[k].y, marks[k].label, t);
	}
	svg_series_end(p);
	free(xs);
	free(ys);
}

/*
 * The stages of direction @d per NIC: a row per NIC and stage, numbers from
 * the report's by_dev. A NIC whose name cannot be one component of a JSON
 * path (pktpath_dev_metric_name()) is left out; the names come from the
 * guest, so they are escaped like the rest.
 */
static void latency_by(struct sbuf *b, const struct html_run *r, enum pktpath_dir d,
		       const struct pktpath_dev *devs, size_t n, const char *key, const char *col)
{
	static const char *const cols[] = { "count", "p50_us", "p90_us", "p99_us", "max_us" };
	const char *dn = d == PKTPATH_RX ? "rx" : "tx";
	bool head = false;

	for (size_t i = 0; i < n; i++) {
		const struct pktpath_stats *s = &devs[i].dir[d];
		const char *dev = devs[i].name;

		if (!s->packets || !pktpath_dev_metric_name(dev))
			continue;
		if (!head)
			sbuf_addf(b, "<table class=\"stages\" data-%s><tr><th class=\"l\">%s</th><th class=\"l\">stage</th><th>count</th><th>p50 us</th><th>p90 us</th><th>p99 us</th><th>max us</th></tr>\n",
				  !strcmp(key, "by_dev") ? "by-dev" : "by-queue", col);
		head = true;
		for (int k = 0; k < pktpath_stages(d); k++) {
			const char *name = pktpath_stage_name(d, k);

			if (!s->stage[k] || !s->stage[k]->count)
				continue;
			sbuf_adds(b, "<tr><td class=\"l\">");
			esc_html(b, dev);
			sbuf_adds(b, "</td><td class=\"l\">");
			esc_html(b, name);
			sbuf_adds(b, "</td>");
			for (size_t c = 0; c < ARRAY_SIZE(cols); c++) {
				sbuf_adds(b, "<td>");
				html_numf(b, r->rep, NULL, "path.%s.%s.%s.stages.%s.%s", dn,
					  key, dev, name, cols[c]);
				sbuf_adds(b, "</td>");
			}
			sbuf_adds(b, "</tr>\n");
		}
	}
	if (head)
		sbuf_adds(b, "</table>\n");
}

/* Per NIC, then per queue of a multi-queue NIC ("ethB_q1"): by_dev and by_queue. */
static void latency_devs(struct sbuf *b, const struct html_run *r, enum pktpath_dir d)
{
	latency_by(b, r, d, r->pp->devs, r->pp->n_devs, "by_dev", "NIC");
	latency_by(b, r, d, r->pp->queues, r->pp->n_queues, "by_queue", "queue");
}

static void latency_dir(struct sbuf *b, const struct html_run *r, enum pktpath_dir d)
{
	const struct pktpath_stats *s = &r->pp->dir[d];
	const char *dn = d == PKTPATH_RX ? "rx" : "tx";
	double lo = INFINITY, hi = 0;
	struct svg_plot p;
	char *id, *title;

	sbuf_addf(b, "<h3>%s</h3>\n<p>", d == PKTPATH_RX ? "receive" : "transmit");
	html_numf(b, r->rep, NULL, "path.%s.packets", dn);
	sbuf_adds(b, " packets, ");
	html_numf(b, r->rep, NULL, "path.%s.followed", dn);
	sbuf_adds(b, " followed end to end</p>\n");
	for (int k = 0; k < pktpath_stages(d); k++)
		if (s->stage[k] && s->stage[k]->count) {
			lo = fmin(lo, (double)s->stage[k]->min / 1e3);
			hi = fmax(hi, (double)s->stage[k]->max / 1e3);
		}
	if (!(hi > 0)) {
		html_missing(b, "no stage of this direction has a sample");
		return;
	}
	id = xasprintf("latency-%s", dn);
	title = xasprintf("%s stage latency: CDF per stage (p50, p99, max marked)",
			  d == PKTPATH_RX ? "receive" : "transmit");
	svg_begin(&p, b, id, title, PLOT_W, 380, lo, hi, 0, 1, true);
	svg_axes(&p, "latency (us, log scale)", "fraction of packets");
	for (int k = 0; k < pktpath_stages(d); k++) {
		const char *name = pktpath_stage_name(d, k);
		char *path = xasprintf("path.%s.stages.%s", dn, name);

		if (s->stage[k] && s->stage[k]->count)
			cdf_series(&p, html_json_at(r->rep, path), s->stage[k], name);
		free(path);
	}
	svg_end(&p);
	free(id);
	free(title);
	sbuf_adds(b, "<table class=\"stages\"><tr><th class=\"l\">stage</th><th>count</th><th>p50 us</th><th>p90 us</th><th>p99 us</th><th>max us</th></tr>\n");
	for (int k = 0; k < pktpath_stages(d); k++) {
		static const char *const cols[] = { "count", "p50_us", "p90_us", "p99_us", "max_us" };
		const char *name = pktpath_stage_name(d, k);

		if (!s->stage[k] || !s->stage[k]->count)
			continue;
		sbuf_adds(b, "<tr><td class=\"l\">");
		esc_html(b, name);
		sbuf_adds(b, "</td>");
		for (size_t c = 0; c < ARRAY_SIZE(cols); c++) {
			sbuf_adds(b, "<td>");
			html_numf(b, r->rep, NULL, "path.%s.stages.%s.%s", dn, name, cols[c]);
			sbuf_adds(b, "</td>");
		}
		sbuf_adds(b, "</tr>\n");
	}
	sbuf_adds(b, "</table>\n");
	latency_devs(b, r, d);
}

static void sec_latency(struct sbuf *b, const struct html_run *r)
{
	html_section_begin(b, "latency", "Per-stage latency (packet path)");
	if (!r->pp)
		html_missing(b, r->trace ? "the trace holds none of the packet-path events (or could not be read)"
				    : "no trace: stage latency comes from the run's trace.dat");
	else
		for (int d = 0; d < PKTPATH_DIRS; d++)
			latency_dir(b, r, d);
	html_section_end(b);
}

/* ---- driver rings ------------------------------------------------------------------- */

static void series_line(struct svg_plot *p, const struct drvring_series *s, uint64_t t0,
			bool use_min, const char *name)
{
	double *xs = xzalloc((s->n + 1) * sizeof(double)), *ys = xzalloc((s->n + 1) * sizeof(double));
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++) {
		if (s->b[i].min > s->b[i].max)
			continue;
		xs[n] = ((double)(s->t0 - t0) + (double)i * (double)s->width_ns) / 1e9;
		ys[n++] = use_min ? s->b[i].min : s->b[i].mean;
	}
	svg_series_begin(p, name);
	svg_line(p, xs, ys, n, false);
	svg_series_end(p);
	free(xs);
	free(ys);
}

static void episode_band(struct svg_plot *p, const struct drvring *d,
			 const struct drvring_episode *e)
{
	char t[160];

	snprintf(t, sizeof(t), "low ring: fill %u (mark %u) from %.6f s%s", e->min_fill,
		 e->low_mark, (double)(e->ts - d->t0) / 1e9, e->empty ? ", empty" : "");
	svg_band(p, (double)(e->ts - d->t0) / 1e9,
		 (double)((e->end_ts ? e->end_ts : d->last_ts) - d->t0) / 1e9, "episode", t);
}

static void ring_queue(struct sbuf *b, const struct drvring *d, const struct drvring_queue *q)
{
	bool fill = q->fill.n > 0, infl = q->inflight.n > 0;
	double span = (double)(d->last_ts - d->t0) / 1e9;
	unsigned int ymax = q->s.rx_ring > q->s.tx_ring ? q->s.rx_ring : q->s.tx_ring;
	struct svg_plot p;
	char *id, *title;

	if (q->from_probes || (!fill && !infl)) {
		char *what = xasprintf("%s %s q%d: %s", q->driver, q->ifname, q->q,
				       q->from_probes ? DRVRING_FALLBACK : "no ring level over time");

		sbuf_adds(b, "<p class=\"missing\">");
		esc_html(b, what);
		free(what);
		sbuf_adds(b, "</p>\n");
		return;
	}
	ymax = ymax > q->s.fill.max ? ymax : q->s.fill.max;
	ymax = ymax > q->s.inflight.max ? ymax : q->s.inflight.max;
	id = xasprintf("ring-%s-%d", q->ifname, q->q);
	title = xasprintf("%s %s queue %d: ring levels per %.0f ms (shaded: low-ring episodes)",
			  q->driver, q->ifname, q->q, (double)q->fill.width_ns / 1e6);
	svg_begin(&p, b, id, title, PLOT_W, PLOT_H, 0, span, 0, ymax ? ymax : 1, false);
	svg_axes(&p, "time since the trace's first event (s)", "descriptors");
	if (fill) {
		series_line(&p, &q->fill, d->t0, false, "rx fill (mean)");
		series_line(&p, &q->fill, d->t0, true, "rx fill (min)");
		svg_series_begin(&p, "low-ring episodes");
		for (size_t i = 0; i < q->n_first; i++)
			episode_band(&p, d, &q->first[i]);
		for (size_t i = 0; i < q->n_worst; i++) {
			bool dup = false;

			for (size_t k = 0; k < q->n_first; k++)
				dup |= q->first[k].ts == q->worst[i].ts;
			if (!dup)
				episode_band(&p, d, &q->worst[i]);
		}
		svg_series_end(&p);
	}
	if (infl)
		series_line(&p, &q->inflight, d->t0, false,
			    q->s.inflight_skbs ? "tx in flight (mean, skbs)" : "tx in flight (mean)");
	svg_end(&p);
	free(id);
	free(title);
}

/* The NAPI bucket of queue @qi with the largest max work per poll (the first of equals), or -1. */
static long napi_busiest(const struct drvring_napi_series *s)
{
	long best = -1;

	for (size_t i = 0; i < s->n; i++)
		if (s->b[i].polls && (best < 0 || s->b[i].max > s->b[best].max))
			best = (long)i;
	return best;
}

/* Packets handled per NAPI poll over time, mean and max per interval, against the budget. */
static void napi_queue(struct sbuf *b, const struct html_run *r, size_t qi)
{
	const struct drvring *d = r->dr;
	const struct drvring_queue *q = &d->queues[qi];
	const struct drvring_napi_series *s = &q->napi;
	double *xs = xzalloc((s->n + 2) * sizeof(double)), *mean = xzalloc((s->n + 2) * sizeof(double));
	double *max = xzalloc((s->n + 2) * sizeof(double)), ymax = (double)s->budget;
	double span = (double)(d->last_ts - d->t0) / 1e9;
	long best = napi_busiest(s);
	size_t n = 0;
	struct svg_plot p;
	char *id, *title;

	for (size_t i = 0; i < s->n; i++) {
		if (!s->b[i].polls)
			continue;
		xs[n] = ((double)(s->t0 - d->t0) + (double)i * (double)s->width_ns) / 1e9;
		mean[n] = (double)s->b[i].work / (double)s->b[i].polls;
		max[n] = (double)s->b[i].max;
		ymax = fmax(ymax, max[n++]);
	}
	id = xasprintf("napi-%s-%d", q->ifname, q->q);
	title = xasprintf("%s %s queue %d: packets handled per NAPI poll, per %.0f ms", q->driver,
			  q->ifname, q->q, (double)s->width_ns / 1e6);
	svg_begin(&p, b, id, title, PLOT_W, 260, 0, span, 0, ymax * 1.05, false);
	svg_axes(&p, "time since the trace's first event (s)", "packets per poll");
	svg_series_begin(&p, "work/poll (mean)");
	svg_line(&p, xs, mean, n, false);
	svg_series_end(&p);
	svg_series_begin(&p, "work/poll (max)");
	svg_line(&p, xs, max, n, false);
	svg_series_end(&p);
	if (s->budget) {
		xs[0] = 0;
		xs[1] = span;
		mean[0] = mean[1] = (double)s->budget;
		svg_series_begin(&p, "budget");
		svg_line(&p, xs, mean, 2, false);
		svg_series_end(&p);
	}
	svg_end(&p);
	sbuf_adds(b, "<p class=\"napi\">budget ");
	html_numf(b, r->rep, NULL, "ring.queues.%zu.napi_series.budget", qi);
	if (best >= 0) {
		sbuf_addf(b, "; the busiest interval, from %.3f s: ",
			  ((double)(s->t0 - d->t0) + (double)best * (double)s->width_ns) / 1e9);
		html_numf(b, r->rep, NULL, "ring.queues.%zu.napi_series.polls.%ld", qi, best);
		sbuf_adds(b, " polls, ");
		html_numf(b, r->rep, NULL, "ring.queues.%zu.napi_series.work_mean.%ld", qi, best);
		sbuf_adds(b, " packets per poll on average, at most ");
		html_numf(b, r->rep, NULL, "ring.queues.%zu.napi_series.work_max.%ld", qi, best);
	}
	sbuf_adds(b, "</p>\n");
	free(id);
	free(title);
	free(xs);
	free(mean);
	free(max);
}

static void sec_ring(struct sbuf *b, const struct html_run *r)
{
	static const char *const cols[][2] = {
		{ "rx.ring", "rx ring" },
		{ "rx.fill.min", "fill min" },
		{ "rx.fill.p50", "fill p50" },
		{ "rx.low_episodes", "low episodes" },
		{ "rx.refill_failures", "refill failures" },
		{ "napi.polls", "polls" },
		{ "napi.budget_exhausted", "budget exhausted" },
		{ "napi.work.p50", "work/poll p50" },
		{ "napi.work.p99", "work/poll p99" },
		{ "napi.work.max", "work/poll max" },
		{ "napi.work.mean", "work/poll mean" },
		{ "napi.irq_poll_us.p50", "irq->poll p50 us" },
		{ "napi.irq_poll_us.p99", "irq->poll p99 us" },
		{ "tx.xmits", "xmits" },
	};
	const struct drvring *d = r->dr;

	html_section_begin(b, "ring", "Driver rings and NAPI");
	if (!d) {
		html_missing(b, r->trace ? "the trace has no netlab_drv driver lines nor fallback probes: the driver patches are not in this kernel"
				    : "no trace: the rings come from the run's trace.dat");
		html_section_end(b);
		return;
	}
	for (size_t i = 0; i < d->n_queues; i++)
		ring_queue(b, d, &d->queues[i]);
	for (size_t i = 0; i < d->n_queues; i++)
		if (d->queues[i].napi.n)
			napi_queue(b, r, i);
	sbuf_adds(b, "<table class=\"nics\"><tr><th class=\"l\">NIC</th>");
	for (size_t c = 0; c < ARRAY_SIZE(cols); c++)
		sbuf_addf(b, "<th>%s</th>", cols[c][1]);
	sbuf_adds(b, "</tr>\n");
	for (size_t i = 0; i < d->n_nics; i++) {
		sbuf_adds(b, "<tr><td class=\"l\">");
		esc_html(b, d->nics[i].driver);
		sbuf_adds(b, " ");
		esc_html(b, d->nics[i].ifname);
		sbuf_adds(b, "</td>");
		for (size_t c = 0; c < ARRAY_SIZE(cols); c++) {
			sbuf_adds(b, "<td>");
			html_numf(b, r->rep, NULL, "ring.nics.%zu.%s", i, cols[c][0]);
			sbuf_adds(b, "</td>");
		}
		sbuf_adds(b, "</tr>\n");
	}
	sbuf_adds(b, "</table>\n");
	html_section_end(b);
}

/* ---- NET_RX tree ------------------------------------------------------------------- */

static double ms(const struct netrx_tree *t, uint64_t ts)
{
	return ts > t->base_ts ? (double)(ts - t->base_ts) / 1e6 : 0;
}

static void netrx_plot(struct sbuf *b, const struct netrx *nr, const struct netrx_tree *t)
{
	size_t rows = 2, drawn = 0;
	double end = ms(t, t->exit_ts ? t->exit_ts : nr->last_ts);
	struct svg_plot p;
	char tt[192];

	for (size_t i = 0; i < t->n_ev; i++) {
		const struct netrx_ev *e = &t->ev[i];

		if (e->type == NETRX_EV_RX && rows < NETRX_MAX_ROWS + 2)
			rows++;
		end = fmax(end, ms(t, e->ts));
		if (e->copy_ts)
			end = fmax(end, ms(t, e->copy_ts));
		if (e->free_ts)
			end = fmax(end, ms(t, e->free_ts));
	}
	svg_begin(&p, b, "netrx", "the worst interrupt: irq -> NET_RX softirq -> polls -> skbs to their copy or free",
		  PLOT_W, 120 + 14 * (int)rows, 0, end * 1.02, 0, (double)rows, false);
	svg_axes(&p, "ms since the interrupt", "row (top: irq, softirq; then one per skb)");
	svg_series_begin(&p, "hard irq");
	for (size_t i = 0; i < t->n_irqs; i++) {
		snprintf(tt, sizeof(tt), "irq %d %s", t->irqs[i].irq, t->irqs[i].name ? t->irqs[i].name : "");
		svg_rect(&p, ms(t, t->irqs[i].entry_ts), rows - 0.8, ms(t, t->irqs[i].entry_ts), rows - 0.2,
			 "bar", tt);
	}
	svg_series_end(&p);
	svg_series_begin(&p, "NET_RX softirq");
	snprintf(tt, sizeof(tt), "NET_RX on CPU %d in %s", t->cpu, t->context);
	svg_rect(&p, ms(t, t->softirq_ts), rows - 1.8, ms(t, t->exit_ts ? t->exit_ts : nr->last_ts),
		 rows - 1.2, "bar", tt);
	svg_series_end(&p);
	svg_series_begin(&p, "napi_poll");
	for (size_t i = 0; i < t->n_ev; i++)
		if (t->ev[i].type == NETRX_EV_POLL) {
			snprintf(tt, sizeof(tt), "napi_poll work %d budget %d", t->ev[i].work, t->ev[i].budget);
			svg_mark(&p, ms(t, t->ev[i].ts), rows - 1.5, "poll", tt);
		}
	svg_series_end(&p);
	svg_series_begin(&p, "skb");
	for (size_t i = 0; i < t->n_ev && drawn < NETRX_MAX_ROWS; i++) {
		const struct netrx_ev *e = &t->ev[i];
		uint64_t to = e->copy_ts ? e->copy_ts : e->free_ts ? e->free_ts : e->ts;
		double y = rows - 2 - (double)drawn;

		if (e->type != NETRX_EV_RX)
			continue;
		snprintf(tt, sizeof(tt), "skb len %u -> %s %.3f ms%s%s", e->len,
			 e->copy_ts ? e->copy_event : e->free == NETRX_FREE_KFREE ? "kfree_skb" :
			 e->free ? "consume_skb" : "not seen", ms(t, to), e->pid ? ", comm " : "",
			 e->pid ? e->comm : "");
		svg_rect(&p, ms(t, e->ts), y - 0.8, ms(t, to), y - 0.2, "bar", tt);
		drawn++;
	}
	svg_series_end(&p);
	svg_end(&p);
}

/* NET_RX per CPU (timeline.per_cpu): softirqs, time in them, frames. */
static void netrx_cpu_table(struct sbuf *b, const struct html_run *r)
{
	static const char *const cols[] = { "softirqs", "receive", "time_us", "frames" };
	struct json_object *pc = html_json_at(r->rep, "timeline.per_cpu");
	size_t n = pc && json_object_is_type(pc, json_type_array) ? json_object_array_length(pc) : 0;

	if (!n)
		return;
	sbuf_addf(b, "<h3>NET_RX per CPU</h3>\n<p>time: softirq entry -&gt; %s</p>\n",
		  r->nr && r->nr->time_exact ?
			  "exit" :
			  "its last record (the trace has no softirq_exit): a lower bound");
	sbuf_adds(b, "<table class=\"netrx-cpu\"><tr><th>cpu</th>");
	for (size_t c = 0; c < ARRAY_SIZE(cols); c++)
		sbuf_addf(b, "<th>%s</th>", cols[c]);
	sbuf_adds(b, "</tr>\n");
	for (size_t i = 0; i < n; i++) {
		sbuf_addf(b, "<tr><td>%zu</td>", i);
		html_num_cells(b, r, "timeline.per_cpu", i, cols, ARRAY_SIZE(cols));
		sbuf_adds(b, "</tr>\n");
	}
	sbuf_adds(b, "</table>\n");
}

static void sec_netrx(struct sbuf *b, const struct html_run *r)
{
	const struct netrx *nr = r->nr;

	html_section_begin(b, "netrx", "NET_RX timeline of the worst interrupt (irq -> last copy)");
	if (!nr || !nr->n_trees) {
		html_missing(b, !r->trace ? "no trace: the timeline comes from the run's trace.dat" :
			   nr ? "no NET_RX softirq received a frame in this trace" :
				"the trace has none of the irq, softirq, napi and net events (or could not be read)");
		html_section_end(b);
		return;
	}
	sbuf_adds(b, "<p>irq -> softirq ");
	html_num(b, r->rep, NULL, "timeline.trees.0.irq_softirq_us");
	sbuf_adds(b, " us, irq -> last copy ");
	html_num(b, r->rep, NULL, "timeline.trees.0.last_copy_us");
	sbuf_adds(b, " us, softirq ended at ");
	html_num(b, r->rep, NULL, "timeline.trees.0.softirq_exit_ms");
	sbuf_adds(b, " ms; the worst of ");
	html_num(b, r->rep, NULL, "timeline.selection.of");
	sbuf_adds(b, " receive softirqs; ");
	html_num(b, r->rep, NULL, "timeline.rx.polls");
	sbuf_adds(b, " polls in the trace, ");
	html_num(b, r->rep, NULL, "timeline.rx.budget_exhausted");
	sbuf_adds(b, " with the budget used up. Context: <code>");
	esc_html(b, nr->trees[0]->context);
	sbuf_adds(b, "</code></p>\n");
	netrx_plot(b, nr, nr->trees[0]);
	netrx_cpu_table(b, r);
	html_section_end(b);
}

/* ---- wire ------------------------------------------------------------------------- */

static void sec_wire(struct sbuf *b, const struct html_run *r)
{
	static const char *const cols[] = { "wire_tx", "wire_rx", "nic_tx",   "nic_rx",
					    "nic_drops", "ip_in", "ip_out", "delivered" };
	struct json_object *links = html_json_at(r->rep, "wire.links");

	html_section_begin(b, "wire", "The wire beside the stack (pcaps and counters)");
	if (!links) {
		html_missing(b, "no wire view: it needs a run directory with result.json, metrics.json and pcaps");
		html_section_end(b);
		return;
	}
	sbuf_adds(b, "<table class=\"links\"><tr><th class=\"l\">link</th>");
	for (size_t c = 0; c < ARRAY_SIZE(cols); c++)
		sbuf_addf(b, "<th>%s</th>", cols[c]);
	sbuf_adds(b, "</tr>\n");
	for (size_t i = 0; i < json_object_array_length(links); i++) {
		struct json_object *l = json_object_array_get_idx(links, i);

		sbuf_adds(b, "<tr><td class=\"l\">");
		html_str(b, l, "label", "?");
		sbuf_adds(b, " ");
		html_str(b, l, "ifname", "");
		sbuf_adds(b, " (");
		html_str(b, l, "model", "");
		sbuf_adds(b, ")</td>");
		html_num_cells(b, r, "wire.links", i, cols, ARRAY_SIZE(cols));
		sbuf_adds(b, "</tr>\n");
	}
	sbuf_adds(b, "</table>\n");
	html_section_end(b);
}

/* One command line "CMD PATH[SUFFIX]" to paste, as HTML: PATH quoted for a shell, then escaped. */
static void command(struct sbuf *b, const char *cmd, const char *path, const char *suffix)
{
	char *p = xasprintf("%s%s", path, suffix ? suffix : "");
	struct sbuf line;

	sbuf_init(&line);
	sbuf_addf(&line, "%s ", cmd);
	esc_shell(&line, p);
	sbuf_adds(b, "<code class=\"cmd\">");
	esc_html(b, line.s);
	sbuf_adds(b, "</code>");
	sbuf_release(&line);
	free(p);
}

/* "open in ...": the commands with the run's absolute paths, and links relative to the page. */
static void sec_open(struct sbuf *b, const struct html_run *r)
{
	char abs[PATH_MAX];
	const char *base = r->dir && realpath(r->dir, abs) ? abs : r->dir;
	struct json_object *nics = html_json_at(r->result, "nics");

	html_section_begin(b, "open", "Look for yourself");
	sbuf_adds(b, "<ul>\n");
	if (r->dir && r->trace) {
		sbuf_adds(b, "<li>open in KernelShark: ");
		command(b, "kernelshark", base, "/files/trace.dat");
		sbuf_adds(b, " (<a href=\"files/trace.dat\">trace.dat</a>)</li>\n");
	} else if (r->trace) {
		char tabs[PATH_MAX];

		sbuf_adds(b, "<li>open in KernelShark: ");
		command(b, "kernelshark", realpath(r->trace, tabs) ? tabs : r->trace, NULL);
		sbuf_adds(b, "</li>\n");
	}
	for (size_t i = 0; r->dir && nics && i < json_object_array_length(nics); i++) {
		const char *pcap = json_object_get_string(html_json_at(json_object_array_get_idx(nics, i), "pcap"));
		char *rel;

		if (!pcap)
			continue;
		rel = xasprintf("/%s", pcap);
		sbuf_adds(b, "<li>open in Wireshark: ");
		command(b, "wireshark", base, rel);
		sbuf_adds(b, " (<a href=\"");
		esc_html_url(b, pcap);
		sbuf_adds(b, "\">");
		esc_html(b, pcap);
		sbuf_adds(b, "</a>)</li>\n");
		free(rel);
	}
	sbuf_adds(b, "<li>the same figures as JSON: ");
	command(b, "netlab report --json --worst 1", r->dir ? base : r->target, NULL);
	sbuf_adds(b, "</li>\n</ul>\n");
	html_section_end(b);
}

void html_run_render(struct sbuf *b, const struct html_run *r)
{
	char *title = xasprintf("netlab run %s", r->target);

	html_page_begin(b, title);
	free(title);
	header(b, r);
	sec_loss(b, r);
	html_sec_hops(b, r);
	sec_drops(b, r);
	sec_latency(b, r);
	sec_ring(b, r);
	sec_netrx(b, r);
	html_sec_flows(b, r);
	sec_wire(b, r);
	sec_open(b, r);
	html_page_end(b);
}
