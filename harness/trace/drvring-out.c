// SPDX-License-Identifier: GPL-2.0
/*
 * drvring output: the per-NIC tables, the same content as JSON, and the
 * metrics (see drvring.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "trace/drvring.h"
#include "lib/jsonout.h"
#include "trace/hist-json.h"
#include "hist.h"
#include "lib/metrics.h"
#include "lib/util.h"

/* ---- text ---------------------------------------------------------------------------- */

static double us(uint64_t ns)
{
	return (double)ns / 1e3;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

static const char *name_q(char *buf, size_t n, const char *ifname, int q)
{
	snprintf(buf, n, "%s q%d", ifname, q);
	return buf;
}

/* "p50 / p99" in us, or "-" */
static const char *lat(char *buf, size_t n, const struct hist_summary *x)
{
	if (!x->count)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.1f / %.1f", us(x->p50), us(x->p99));
	return buf;
}

#define NOHO_SHOWN 4 /* values of the descriptors without a hand-off in text and metrics */

/*
 * "1514 (8000), 1000 (293), others (5)": the NOHO_SHOWN most frequent values
 * of @v, the rest of its count, and "unknown (N)" for those of @total
 * without the key.
 */
static void values_list(struct sbuf *b, const struct drvring_values *v, uint64_t total, bool hex)
{
	uint64_t shown = 0;
	size_t i;

	for (i = 0; i < v->n && i < NOHO_SHOWN; i++) {
		sbuf_addf(b, hex ? "%s0x%llx (%llu)" : "%s%llu (%llu)", i ? ", " : "",
			  (unsigned long long)v->top[i].v, (unsigned long long)v->top[i].count);
		shown += v->top[i].count;
	}
	if (v->count > shown)
		sbuf_addf(b, "%sothers (%llu)", i ? ", " : "",
			  (unsigned long long)(v->count - shown));
	if (total > v->count)
		sbuf_addf(b, "%sunknown (%llu)", v->count ? ", " : "",
			  (unsigned long long)(total - v->count));
}

/*
 * Are there descriptors without a hand-off to count (0 included)? With
 * rx_desc lines, or on a receive ring that received nothing; not from
 * hand-offs without rx_desc lines (virtio_net, the kprobe fallback) nor
 * where nothing was received.
 */
static bool noho_counted(const struct drvring_stats *s)
{
	return s->rx_desc || (s->refills && !s->rx_handoffs);
}

/* Under a receive row: the descriptors without a hand-off, and those handed off. */
static void print_noho(const struct drvring_stats *s, FILE *f)
{
	struct sbuf b;

	sbuf_init(&b);
	sbuf_addf(&b, "%llu descriptors, len ", (unsigned long long)s->rx_desc_no_handoff);
	values_list(&b, &s->noho_len, s->rx_desc_no_handoff, false);
	sbuf_adds(&b, "; status ");
	values_list(&b, &s->noho_status, s->rx_desc_no_handoff, true);
	if (s->handoff_len.count)
		sbuf_addf(&b, "; handed off: %llu, len %llu..%llu",
			  (unsigned long long)s->handoff_len.count,
			  (unsigned long long)s->handoff_len.min,
			  (unsigned long long)s->handoff_len.max);
	fprintf(f, "    no hand-off: %s\n", b.s);
	sbuf_release(&b);
}

static void print_rx(const struct drvring *d, FILE *f)
{
	char n[40];

	fprintf(f,
		"\nReceive rings: fill = descriptors posted to the NIC and not yet cleaned (time-weighted)\n");
	fprintf(f, "  %-10s %-10s %5s %5s %5s %5s %7s %5s %8s %8s %8s\n", "QUEUE", "DRIVER", "RING",
		"MIN", "P1", "P50", "MEAN", "MAX", "DESCS", "HANDOFFS", "NO_HANDOFF");
	for (size_t i = 0; i < d->n_queues; i++) {
		const struct drvring_queue *q = &d->queues[i];
		const struct drvring_level *l = &q->s.fill;

		if (!q->s.refills && !q->s.rx_handoffs && !q->s.rx_desc)
			continue;
		name_q(n, sizeof(n), q->ifname, q->q);
		if (q->from_probes) {
			fprintf(f, "  %-10s %-10s %5s %5s %5s %5s %7s %5s %8s %8llu %8s  (%s)\n", n,
				q->driver, "-", "-", "-", "-", "-", "-", "-",
				(unsigned long long)q->s.rx_handoffs, "-", DRVRING_FALLBACK);
			continue;
		}
		if (!l->changes)
			fprintf(f, "  %-10s %-10s %5s %5s %5s %5s %7s %5s", n, q->driver, "-", "-",
				"-", "-", "-", "-");
		else
			fprintf(f, "  %-10s %-10s %5u %5u %5u %5u %7.1f %5u", n, q->driver,
				q->s.rx_ring, l->min, l->p1, l->p50, l->mean, l->max);
		fprintf(f, " %8llu %8llu %8llu%s\n", (unsigned long long)q->s.rx_desc,
			(unsigned long long)q->s.rx_handoffs,
			(unsigned long long)q->s.rx_desc_no_handoff,
			q->fill_estimated ? "  (fill estimated: no rx_desc lines)" : "");
		if (q->s.rx_desc_no_handoff)
			print_noho(&q->s, f);
	}
	fprintf(f, "\nRefill (low: fill < ring/%u; empty: fill <= %u)\n", d->low_div,
		d->empty_fill);
	fprintf(f, "  %-10s %8s %8s %8s %6s %9s %9s %6s %11s\n", "QUEUE", "REFILLS", "ALLOC",
		"WANT", "FAILED", "LEFT_LOW", "EPISODES", "EMPTY", "LOW_TIME_MS");
	for (size_t i = 0; i < d->n_queues; i++) {
		const struct drvring_stats *s = &d->queues[i].s;

		if (!s->refills && !s->rx_handoffs)
			continue;
		if (d->queues[i].from_probes) {
			fprintf(f, "  %-10s %8llu %8s %8llu %6s %9s %9s %6s %11s\n",
				name_q(n, sizeof(n), d->queues[i].ifname, d->queues[i].q),
				(unsigned long long)s->refills, "-",
				(unsigned long long)s->refill_want, "-", "-", "-", "-", "-");
			continue;
		}
		fprintf(f, "  %-10s %8llu %8llu %8llu %6llu %9llu %9llu %6llu %11.3f\n",
			name_q(n, sizeof(n), d->queues[i].ifname, d->queues[i].q),
			(unsigned long long)s->refills, (unsigned long long)s->refill_alloc,
			(unsigned long long)s->refill_want, (unsigned long long)s->refill_failures,
			(unsigned long long)s->refills_low, (unsigned long long)s->low_episodes,
			(unsigned long long)s->empty_episodes, (double)s->low_ns / 1e6);
	}
}

static void print_napi(const struct drvring *d, FILE *f)
{
	char n[40], a[40], b[40], c[40];

	fprintf(f, "\nNAPI (latencies in us, p50 / p99)\n");
	fprintf(f, "  %-10s %6s %6s %9s %14s %6s %16s %16s %16s\n", "QUEUE", "IRQS", "POLLS",
		"WORK/POLL", "BUDGET_HIT", "REPOLL", "IRQ->POLL", "DESC->STACK", "POLL");
	for (size_t i = 0; i < d->n_queues; i++) {
		const struct drvring_stats *s = &d->queues[i].s;
		char bh[32];

		if (!s->polls && !s->irqs)
			continue;
		snprintf(bh, sizeof(bh), "%llu (%.1f%%)", (unsigned long long)s->budget_exhausted,
			 pct(s->budget_exhausted, s->poll_ends));
		fprintf(f, "  %-10s %6llu %6llu %9.2f %14s %6llu %16s %16s %16s%s\n",
			name_q(n, sizeof(n), d->queues[i].ifname, d->queues[i].q),
			(unsigned long long)s->irqs, (unsigned long long)s->polls, s->work.mean, bh,
			(unsigned long long)s->repolls, lat(a, sizeof(a), &s->irq_poll_ns),
			lat(b, sizeof(b), &s->desc_stack_ns), lat(c, sizeof(c), &s->poll_ns),
			d->queues[i].from_probes ? "  (kprobe fallback)" : "");
	}
}

static void print_tx(const struct drvring *d, FILE *f)
{
	char n[40];

	fprintf(f,
		"\nTransmit rings: in flight = descriptors queued and not yet cleaned (time-weighted)\n");
	fprintf(f, "  %-10s %-10s %5s %5s %7s %8s %8s %8s\n", "QUEUE", "DRIVER", "RING", "MAX",
		"MEAN", "XMIT", "DONE", "CLEANS");
	for (size_t i = 0; i < d->n_queues; i++) {
		const struct drvring_queue *q = &d->queues[i];

		if (!q->s.xmits && !q->s.tx_done)
			continue;
		if (q->from_probes) {
			fprintf(f, "  %-10s %-10s %5s %5s %7s %8llu %8s %8s  (kprobe fallback)\n",
				name_q(n, sizeof(n), q->ifname, q->q), q->driver, "-", "-", "-",
				(unsigned long long)q->s.xmits, "-", "-");
			continue;
		}
		fprintf(f, "  %-10s %-10s %5u %5u %7.2f %8llu %8llu %8llu%s\n",
			name_q(n, sizeof(n), q->ifname, q->q), q->driver, q->s.tx_ring,
			q->s.inflight.max, q->s.inflight.mean, (unsigned long long)q->s.xmits,
			(unsigned long long)q->s.tx_done, (unsigned long long)q->s.tx_cleans,
			q->s.inflight_skbs ? "  (in skbs)" : "");
	}
}

/* Share of time per eighth of the ring, and the minimum per bucket as a digit. */
static void print_occupancy(const struct drvring *d, FILE *f)
{
	char n[40];

	for (size_t i = 0; i < d->n_queues; i++) {
		const struct drvring_queue *q = &d->queues[i];
		const struct drvring_level *l = &q->s.fill;
		const struct drvring_series *s = &q->fill;

		if (!l->ns || !l->ring)
			continue;
		fprintf(f, "\nRX fill of %s, share of time per eighth of the ring (%u):\n ",
			name_q(n, sizeof(n), q->ifname, q->q), l->ring);
		for (int b = 0; b < DRVRING_OCC_BINS; b++)
			fprintf(f, " %u-%u: %.1f%%", b * l->ring / DRVRING_OCC_BINS,
				(b + 1) * l->ring / DRVRING_OCC_BINS - (b + 1 < DRVRING_OCC_BINS),
				pct(l->bin_ns[b], l->ns));
		fprintf(f,
			"\n  lowest fill per %.0f ms from %.3f s (digit = tenths of the ring, . no data):\n  ",
			(double)s->width_ns / 1e6, (double)s->t0 / 1e9);
		for (size_t b = 0; b < s->n; b++) {
			unsigned int m = s->b[b].min;

			fputc(m > s->b[b].max
				      ? '.'
				      : '0' + (int)(m * 10 / l->ring > 9 ? 9 : m * 10 / l->ring),
			      f);
		}
		fputc('\n', f);
	}
}

static void print_episode(const struct drvring *d, const struct drvring_episode *e, FILE *f)
{
	char lasted[24], since[24], irq[24];

	if (e->end_ts)
		snprintf(lasted, sizeof(lasted), "%.3f", (double)(e->end_ts - e->ts) / 1e6);
	else
		snprintf(lasted, sizeof(lasted), ">%.3f", (double)(d->last_ts - e->ts) / 1e6);
	snprintf(since, sizeof(since), e->refill_seen ? "%.1f%s" : "-", us(e->since_refill_ns),
		 e->refill_failed ? " failed" : "");
	snprintf(irq, sizeof(irq), e->irq_seen ? "%.1f" : "-", us(e->since_irq_ns));
	fprintf(f, "    %12.6f %10s %4u %6u %17s %7u %7s %12s %3d %s\n", (double)e->ts / 1e9,
		lasted, e->min_fill, e->fill_before, since, e->descs_since_refill,
		e->in_poll ? "yes" : "no", irq, e->cpu, e->by_refill ? "refill" : "rx_desc");
}

static void print_episodes(const struct drvring *d, FILE *f)
{
	char n[40];

	for (size_t i = 0; i < d->n_queues; i++) {
		const struct drvring_queue *q = &d->queues[i];

		if (!q->s.low_episodes)
			continue;
		fprintf(f, "\nLow-fill episodes of %s: %llu (%llu empty), %.3f ms in all\n",
			name_q(n, sizeof(n), q->ifname, q->q),
			(unsigned long long)q->s.low_episodes,
			(unsigned long long)q->s.empty_episodes, (double)q->s.low_ns / 1e6);
		for (int w = 0; w < 2; w++) {
			const struct drvring_episode *e = w ? q->worst : q->first;
			size_t ne = w ? q->n_worst : q->n_first;

			fprintf(f,
				"  %s %zu; and just before it: fill, time since the last refill, descriptors cleaned since, poll running, time since the last irq\n",
				w ? "worst" : "first", ne);
			fprintf(f, "    %12s %10s %4s %6s %17s %7s %7s %12s %3s %s\n", "AT_S",
				"LASTED_MS", "MIN", "BEFORE", "SINCE_REFILL_US", "CLEANED",
				"IN_POLL", "SINCE_IRQ_US", "CPU", "BEGAN_AT");
			for (size_t k = 0; k < ne; k++)
				print_episode(d, &e[k], f);
		}
	}
}

/* A counter the driver may not have (virtio_net): "-" when absent (< 0). */
static void print_counter(FILE *f, const char *name, double v, const char *sep)
{
	if (v < 0)
		fprintf(f, "%s -%s", name, sep);
	else
		fprintf(f, "%s %.0f%s", name, v, sep);
}

static void print_counters(const struct drvring *d, FILE *f)
{
	bool any = false;

	for (size_t i = 0; i < d->n_nics; i++) {
		const struct drvring_nic *n = &d->nics[i];
		double lost;

		if (!n->counters)
			continue;
		if (!any)
			fprintf(f, "\nNIC counters of the run (ethtool -S deltas)\n");
		any = true;
		fprintf(f, "  %s (NIC %s):", n->ifname, n->label);
		print_counter(f, " rx_no_buffer_count", n->rx_no_buffer_count, ",");
		print_counter(f, " rx_missed_errors", n->rx_missed_errors, ",");
		print_counter(f, " alloc_rx_buff_failed", n->alloc_rx_buff_failed, ";");
		print_counter(f, " ethtool RX ring", n->ethtool_rx_ring, "");
		if (n->s.rx_ring && n->ethtool_rx_ring >= 0 && n->ethtool_rx_ring != n->s.rx_ring)
			fprintf(f, " (the driver says %u)", n->s.rx_ring);
		fputc('\n', f);
		lost = (n->rx_no_buffer_count > 0 ? n->rx_no_buffer_count : 0) +
		       (n->rx_missed_errors > 0 ? n->rx_missed_errors : 0);
		if (lost > 0 || n->s.low_episodes)
			fprintf(f,
				"  %s: the NIC counted %.0f frames without a buffer or missed; the trace saw %llu low-fill episodes (%llu empty), %llu failed refills\n",
				n->ifname, lost, (unsigned long long)n->s.low_episodes,
				(unsigned long long)n->s.empty_episodes,
				(unsigned long long)n->s.refill_failures);
	}
}

void drvring_print(const struct drvring *d, FILE *f)
{
	fprintf(f, "Driver rings: %s (", d->path ? d->path : "lines fed");
	if (d->cpus)
		fprintf(f, "%d CPU%s, ", d->cpus, d->cpus == 1 ? "" : "s");
	fprintf(f, "%llu netlab_drv lines, %llu malformed, ", (unsigned long long)d->lines,
		(unsigned long long)d->bad_lines);
	if (d->probe_events)
		fprintf(f, "%llu fallback probe events, ", (unsigned long long)d->probe_events);
	fprintf(f, "%llu lost events)\n", (unsigned long long)d->lost);
	if (d->bad_lines)
		fprintf(f, "  first malformed line: %s\n", d->bad_example);
	for (size_t i = 0; i < d->n_nics; i++)
		if (d->nics[i].from_probes)
			fprintf(f,
				"  %s: %s (the driver printed no netlab_drv lines): NAPI polls, work, irq->poll and poll time, irqs, xmits, refills asked for and packets received only\n",
				d->nics[i].driver, DRVRING_FALLBACK);
	if (d->probe_events_unused)
		fprintf(f, "  %llu fallback probe events of drivers that print lines (not used)\n",
			(unsigned long long)d->probe_events_unused);
	if (d->unknown_events || d->untracked_lines)
		fprintf(f,
			"  %llu lines of unknown events, %llu of queues past the first %d (ignored)\n",
			(unsigned long long)d->unknown_events,
			(unsigned long long)d->untracked_lines, DRVRING_MAX_QUEUES);
	print_rx(d, f);
	print_napi(d, f);
	print_tx(d, f);
	print_occupancy(d, f);
	print_episodes(d, f);
	print_counters(d, f);
}

/* ---- JSON ---------------------------------------------------------------------------- */

static void add(struct json_object *o, const char *k, struct json_object *v)
{
	json_object_object_add(o, k, v);
}

static void add_u(struct json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, json_object_new_uint64(v));
}

static struct json_object *json_level(const struct drvring_level *l)
{
	struct json_object *o, *bins;

	if (!l->changes)
		return NULL;
	o = json_object_new_object();
	bins = json_object_new_array();
	add_u(o, "min", l->min);
	add_u(o, "p1", l->p1);
	add_u(o, "p50", l->p50);
	add(o, "mean", json_real(l->mean, "%.3f"));
	add_u(o, "max", l->max);
	add_u(o, "changes", l->changes);
	add(o, "known_ms", json_real((double)l->ns / 1e6, "%.6f"));
	for (int b = 0; l->ring && b < DRVRING_OCC_BINS; b++)
		json_object_array_add(bins, json_real(pct(l->bin_ns[b], l->ns), "%.3f"));
	add(o, "pct_time_per_eighth", bins);
	return o;
}

/* The fallback's NIC or queue: what it is, and what it cannot know (set null). */
static void json_fallback(struct json_object *o)
{
	static const char *const rx[] = {
		"ring",		  "descs",	     "desc_errors",	     "descs_no_handoff",
		"refill_allocs",  "refill_failures", "refills_low",	     "low_episodes",
		"empty_episodes", "low_ms",	     "refill_age_at_low_us", "no_handoff",
		"handoff_len"
	};
	static const char *const tx[] = { "ring", "done", "cleans", "cleaned", "inflight_unit" };
	struct json_object *x;

	add(o, "source", json_object_new_string(DRVRING_FALLBACK));
	if (json_object_object_get_ex(o, "rx", &x))
		for (size_t i = 0; i < ARRAY_SIZE(rx); i++)
			add(x, rx[i], NULL);
	if (json_object_object_get_ex(o, "napi", &x)) {
		add(x, "desc_stack_us", NULL);
		add(x, "desc_stack_copied", NULL);
	}
	if (json_object_object_get_ex(o, "tx", &x))
		for (size_t i = 0; i < ARRAY_SIZE(tx); i++)
			add(x, tx[i], NULL);
}

static struct json_object *json_u_or_null(bool known, uint64_t v)
{
	return known ? json_object_new_uint64(v) : NULL;
}

/* {"min", "max" (when !hex), "values": [{@key, "count"}], "other" (, "missing")} */
static struct json_object *json_values(const struct drvring_values *v, uint64_t total,
				       const char *key, bool hex)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();

	if (!hex) {
		add(o, "min", json_u_or_null(v->count, v->min));
		add(o, "max", json_u_or_null(v->count, v->max));
	}
	for (size_t i = 0; i < v->n; i++) {
		struct json_object *e = json_object_new_object();
		char x[24];

		snprintf(x, sizeof(x), "0x%llx", (unsigned long long)v->top[i].v);
		add(e, key, hex ? json_object_new_string(x) : json_object_new_uint64(v->top[i].v));
		add_u(e, "count", v->top[i].count);
		json_object_array_add(a, e);
	}
	add(o, "values", a);
	add_u(o, "other", v->other);
	if (total > v->count)
		add_u(o, "missing", total - v->count);
	return o;
}

static struct json_object *json_noho(const struct drvring_stats *s)
{
	struct json_object *o;

	if (!noho_counted(s))
		return NULL;
	o = json_object_new_object();
	add_u(o, "count", s->rx_desc_no_handoff);
	add(o, "len", json_values(&s->noho_len, s->rx_desc_no_handoff, "len", false));
	add(o, "status", json_values(&s->noho_status, s->rx_desc_no_handoff, "status", true));
	return o;
}

static struct json_object *json_range(const struct drvring_range *r)
{
	struct json_object *o;

	if (!r->count)
		return NULL;
	o = json_object_new_object();
	add_u(o, "count", r->count);
	add_u(o, "min", r->min);
	add_u(o, "max", r->max);
	return o;
}

/* The stats into @o, after its identity keys. */
static struct json_object *json_stats(struct json_object *o, const struct drvring_stats *s)
{
	struct json_object *rx = json_object_new_object(), *napi = json_object_new_object(),
			   *tx = json_object_new_object();

	add_u(rx, "ring", s->rx_ring);
	add(rx, "fill", json_level(&s->fill));
	add_u(rx, "descs", s->rx_desc);
	add_u(rx, "desc_errors", s->rx_desc_errors);
	add_u(rx, "descs_no_handoff", s->rx_desc_no_handoff);
	add(rx, "no_handoff", json_noho(s));
	add(rx, "handoff_len", json_range(&s->handoff_len));
	add_u(rx, "handoffs", s->rx_handoffs);
	add_u(rx, "refills", s->refills);
	add_u(rx, "refill_allocs", s->refill_alloc);
	add_u(rx, "refill_wanted", s->refill_want);
	add_u(rx, "refill_failures", s->refill_failures);
	add_u(rx, "refills_low", s->refills_low);
	add_u(rx, "low_episodes", s->low_episodes);
	add_u(rx, "empty_episodes", s->empty_episodes);
	add(rx, "low_ms", json_real((double)s->low_ns / 1e6, "%.6f"));
	add(rx, "refill_age_at_low_us", json_hist_summary(&s->refill_age_low, true));
	add(o, "rx", rx);
	add_u(napi, "irqs", s->irqs);
	add_u(napi, "irqs_tx", s->irqs_tx);
	add_u(napi, "polls", s->polls);
	add_u(napi, "poll_ends", s->poll_ends);
	add_u(napi, "budget_exhausted", s->budget_exhausted);
	add(napi, "budget_exhausted_pct", json_real(pct(s->budget_exhausted, s->poll_ends), "%.3f"));
	add_u(napi, "repolls", s->repolls);
	add(napi, "work", json_hist_summary(&s->work, false));
	add(napi, "irq_poll_us", json_hist_summary(&s->irq_poll_ns, true));
	add(napi, "desc_stack_us", json_hist_summary(&s->desc_stack_ns, true));
	add_u(napi, "desc_stack_copied", s->desc_stack_copied);
	add(napi, "poll_us", json_hist_summary(&s->poll_ns, true));
	add(o, "napi", napi);
	add_u(tx, "ring", s->tx_ring);
	add(tx, "inflight", json_level(&s->inflight));
	add(tx, "inflight_unit", json_object_new_string(s->inflight_skbs ? "skbs" : "descriptors"));
	add_u(tx, "xmits", s->xmits);
	add_u(tx, "done", s->tx_done);
	add_u(tx, "cleans", s->tx_cleans);
	add_u(tx, "cleaned", s->tx_cleaned);
	add(o, "tx", tx);
	return o;
}

static struct json_object *json_series(const struct drvring_series *s)
{
	struct json_object *o = json_object_new_object(), *a[3];
	static const char *const names[3] = { "min", "mean", "max" };

	for (int k = 0; k < 3; k++) {
		a[k] = json_object_new_array();
		for (size_t i = 0; i < s->n; i++) {
			const struct drvring_bucket *b = &s->b[i];

			if (b->min > b->max)
				json_object_array_add(a[k], NULL);
			else if (k == 1)
				json_object_array_add(a[k], json_real(b->ns ? b->mean : b->min, "%.2f"));
			else
				json_object_array_add(a[k],
						      json_object_new_uint64(k ? b->max : b->min));
		}
		add(o, names[k], a[k]);
	}
	return o;
}

static struct json_object *json_napi_series(const struct drvring_napi_series *s)
{
	struct json_object *o = json_object_new_object(), *polls = json_object_new_array(),
			   *mean = json_object_new_array(), *max = json_object_new_array();

	add(o, "t0", json_real((double)s->t0 / 1e9, "%.9f"));
	add(o, "width_ms", json_real((double)s->width_ns / 1e6, "%.3f"));
	add(o, "budget", s->budget ? json_object_new_uint64(s->budget) : NULL);
	for (size_t i = 0; i < s->n; i++) {
		const struct drvring_napi_bucket *b = &s->b[i];

		json_object_array_add(polls, json_object_new_uint64(b->polls));
		json_object_array_add(mean, b->polls ? json_real((double)b->work / (double)b->polls,
								  "%.2f") : NULL);
		json_object_array_add(max, b->polls ? json_object_new_uint64(b->max) : NULL);
	}
	add(o, "polls", polls);
	add(o, "work_mean", mean);
	add(o, "work_max", max);
	return o;
}

static struct json_object *json_episode(const struct drvring_episode *e)
{
	struct json_object *o = json_object_new_object();

	add(o, "ts", json_real((double)e->ts / 1e9, "%.9f"));
	add(o, "lasted_ms", e->end_ts ? json_real((double)(e->end_ts - e->ts) / 1e6, "%.6f") : NULL);
	add_u(o, "cpu", (uint64_t)e->cpu);
	add_u(o, "ring", e->ring);
	add_u(o, "low_mark", e->low_mark);
	add_u(o, "min_fill", e->min_fill);
	add(o, "empty", json_object_new_boolean(e->empty));
	add(o, "began_at", json_object_new_string(e->by_refill ? "rx_refill" : "rx_desc"));
	add_u(o, "fill_before", e->fill_before);
	add(o, "since_refill_us", e->refill_seen ? json_us(e->since_refill_ns) : NULL);
	add(o, "last_refill_failed", json_object_new_boolean(e->refill_failed));
	add_u(o, "descs_since_refill", e->descs_since_refill);
	add(o, "in_poll", json_object_new_boolean(e->in_poll));
	add(o, "since_irq_us", e->irq_seen ? json_us(e->since_irq_ns) : NULL);
	return o;
}

static struct json_object *json_queue(const struct drvring *d, const struct drvring_queue *q)
{
	struct json_object *o = json_object_new_object(), *ser = json_object_new_object(),
			   *ep = json_object_new_object(), *first = json_object_new_array(),
			   *worst = json_object_new_array();

	add(o, "driver", json_object_new_string(q->driver));
	add(o, "ifname", json_object_new_string(q->ifname));
	add(o, "q", json_object_new_int(q->q));
	add(o, "fill_estimated", json_object_new_boolean(q->fill_estimated));
	json_stats(o, &q->s);
	if (q->from_probes)
		json_fallback(o);
	add(ser, "t0", json_real((double)q->fill.t0 / 1e9, "%.9f"));
	add(ser, "width_ms", json_real((double)q->fill.width_ns / 1e6, "%.3f"));
	add(ser, "rx_fill", json_series(&q->fill));
	add(ser, "tx_inflight", json_series(&q->inflight));
	add(o, "series", ser);
	add(o, "napi_series", json_napi_series(&q->napi));
	for (size_t i = 0; i < q->n_first; i++)
		json_object_array_add(first, json_episode(&q->first[i]));
	for (size_t i = 0; i < q->n_worst; i++)
		json_object_array_add(worst, json_episode(&q->worst[i]));
	add(ep, "first", first);
	add(ep, "worst", worst);
	add(o, "episodes", ep);
	return o;
}

static struct json_object *json_counter(double v)
{
	return v < 0 ? NULL : json_real(v, "%.0f");
}

static struct json_object *json_nic(const struct drvring_nic *n)
{
	struct json_object *o = json_object_new_object(), *c = json_object_new_object();

	add(o, "driver", json_object_new_string(n->driver));
	add(o, "ifname", json_object_new_string(n->ifname));
	add_u(o, "queues", n->queues);
	add(o, "label", *n->label ? json_object_new_string(n->label) : NULL);
	json_stats(o, &n->s);
	if (n->from_probes)
		json_fallback(o);
	if (n->counters) {
		add(c, "rx_no_buffer_count", json_counter(n->rx_no_buffer_count));
		add(c, "rx_missed_errors", json_counter(n->rx_missed_errors));
		add(c, "alloc_rx_buff_failed", json_counter(n->alloc_rx_buff_failed));
		add(c, "ethtool_rx_ring", json_counter(n->ethtool_rx_ring));
		add(o, "counters", c);
	} else {
		json_object_put(c);
		add(o, "counters", NULL);
	}
	return o;
}

struct json_object *drvring_to_json(const struct drvring *d)
{
	struct json_object *o = json_object_new_object(), *t = json_object_new_object(),
			   *l = json_object_new_object(), *op = json_object_new_object(),
			   *nics = json_object_new_array(), *qs = json_object_new_array();

	if (!o || !t || !l || !op || !nics || !qs) {
		json_object_put(o);
		json_object_put(t);
		json_object_put(l);
		json_object_put(op);
		json_object_put(nics);
		json_object_put(qs);
		return NULL;
	}
	add(t, "file", d->path ? json_object_new_string(d->path) : NULL);
	add(t, "cpus", json_object_new_int(d->cpus));
	add(t, "buffers", json_object_new_int(d->buffers));
	add_u(t, "events", d->events);
	add(t, "first_ts", json_real((double)d->t0 / 1e9, "%.9f"));
	add(t, "last_ts", json_real((double)d->last_ts / 1e9, "%.9f"));
	add_u(t, "lost_events", d->lost);
	add_u(t, "lost_gaps", d->lost_gaps);
	add(o, "trace", t);
	add_u(l, "total", d->lines);
	add_u(l, "malformed", d->bad_lines);
	add(l, "first_malformed", d->bad_lines ? json_object_new_string(d->bad_example) : NULL);
	add_u(l, "unknown_events", d->unknown_events);
	add_u(l, "untracked", d->untracked_lines);
	if (d->probe_events) {
		add_u(l, "probe_events", d->probe_events);
		add_u(l, "probe_events_unused", d->probe_events_unused);
	}
	add(o, "lines", l);
	add_u(op, "low_div", d->low_div);
	add_u(op, "empty_fill", d->empty_fill);
	add_u(op, "episodes", d->episodes);
	add(o, "options", op);
	for (size_t i = 0; i < d->n_nics; i++)
		json_object_array_add(nics, json_nic(&d->nics[i]));
	add(o, "nics", nics);
	for (size_t i = 0; i < d->n_queues; i++)
		json_object_array_add(qs, json_queue(d, &d->queues[i]));
	add(o, "queues", qs);
	return o;
}

/* ---- metrics ------------------------------------------------------------------------- */

static void mset(struct metrics *m, const char *ifname, const char *what, double v)
{
	char name[128];

	snprintf(name, sizeof(name), "drv.%s.%s", ifname, what);
	metrics_set(m, name, v);
}

static void mdist(struct metrics *m, const char *ifname, const char *what,
		  const struct hist_summary *x)
{
	char name[64];

	if (!x->count)
		return;
	snprintf(name, sizeof(name), "%s.p50_us", what);
	mset(m, ifname, name, us(x->p50));
	snprintf(name, sizeof(name), "%s.p99_us", what);
	mset(m, ifname, name, us(x->p99));
}

static void napi_metrics(struct metrics *m, const char *ifn, const struct drvring_stats *s)
{
	if (s->polls || s->poll_ends) {
		mset(m, ifn, "napi.polls", (double)s->polls);
		mset(m, ifn, "napi.budget_exhausted", (double)s->budget_exhausted);
		mset(m, ifn, "napi.budget_exhausted_pct", pct(s->budget_exhausted, s->poll_ends));
		if (s->work.count)
			mset(m, ifn, "napi.work_mean", s->work.mean);
	}
	mdist(m, ifn, "napi.irq_poll", &s->irq_poll_ns);
	mdist(m, ifn, "napi.desc_stack", &s->desc_stack_ns);
	mdist(m, ifn, "napi.poll", &s->poll_ns);
}

/* The descriptors without a hand-off, also 0, where they are counted; the lengths handed off. */
static void noho_metrics(struct metrics *m, const char *ifn, const struct drvring_stats *s)
{
	const struct drvring_values *l = &s->noho_len, *st = &s->noho_status;
	char what[64];

	if (s->handoff_len.count) {
		mset(m, ifn, "rx.handoff_len_min", (double)s->handoff_len.min);
		mset(m, ifn, "rx.handoff_len_max", (double)s->handoff_len.max);
	}
	if (!noho_counted(s))
		return;
	mset(m, ifn, "rx.no_handoff", (double)s->rx_desc_no_handoff);
	if (s->noho_period) {
		mset(m, ifn, "rx.no_handoff_period", (double)s->noho_period);
		mset(m, ifn, "rx.no_handoff_phase", (double)s->noho_phase);
	}
	if (l->count) {
		mset(m, ifn, "rx.no_handoff_len_min", (double)l->min);
		mset(m, ifn, "rx.no_handoff_len_max", (double)l->max);
	}
	for (size_t i = 0; i < l->n && i < NOHO_SHOWN; i++) {
		snprintf(what, sizeof(what), "rx.no_handoff_len.%llu",
			 (unsigned long long)l->top[i].v);
		mset(m, ifn, what, (double)l->top[i].count);
	}
	for (size_t i = 0; i < st->n && i < NOHO_SHOWN; i++) {
		snprintf(what, sizeof(what), "rx.no_handoff_status.0x%llx",
			 (unsigned long long)st->top[i].v);
		mset(m, ifn, what, (double)st->top[i].count);
	}
}

/* The kprobe fallback's NIC (named by its driver): what the probes know. */
static void fallback_metrics(struct metrics *m, const struct drvring_nic *n)
{
	const struct drvring_stats *s = &n->s;

	mset(m, n->ifname, "fallback", 1);
	napi_metrics(m, n->ifname, s);
	if (s->rx_handoffs)
		mset(m, n->ifname, "rx.handoffs", (double)s->rx_handoffs);
	if (s->refills)
		mset(m, n->ifname, "rx.refills", (double)s->refills);
	if (s->xmits)
		mset(m, n->ifname, "tx.xmits", (double)s->xmits);
}

/*
 * drv.IFNAME.qN.{rx.descs,rx.handoffs,napi.polls}: each queue of a NIC the
 * trace saw more than one queue of (the NIC's metrics above sum them).
 */
static void queue_metrics(const struct drvring *d, struct metrics *m)
{
	for (size_t i = 0; i < d->n_queues; i++) {
		const struct drvring_queue *q = &d->queues[i];
		char what[64];
		bool several = false;

		for (size_t k = 0; k < d->n_nics; k++)
			if (!strcmp(d->nics[k].ifname, q->ifname))
				several = d->nics[k].queues > 1 && !d->nics[k].from_probes;
		if (!several || q->q < 0)
			continue;
		snprintf(what, sizeof(what), "q%d.rx.descs", q->q);
		mset(m, q->ifname, what, (double)q->s.rx_desc);
		snprintf(what, sizeof(what), "q%d.rx.handoffs", q->q);
		mset(m, q->ifname, what, (double)q->s.rx_handoffs);
		snprintf(what, sizeof(what), "q%d.napi.polls", q->q);
		mset(m, q->ifname, what, (double)q->s.polls);
	}
}

void drvring_metrics(const struct drvring *d, struct metrics *m)
{
	metrics_set(m, "drv.lines", (double)d->lines);
	metrics_set(m, "drv.bad_lines", (double)d->bad_lines);
	if (d->probe_events)
		metrics_set(m, "drv.probe_events", (double)d->probe_events);
	for (size_t i = 0; i < d->n_nics; i++) {
		const struct drvring_nic *n = &d->nics[i];
		const struct drvring_stats *s = &n->s;
		const char *ifn = n->ifname;

		if (n->from_probes) {
			fallback_metrics(m, n);
			continue;
		}

		if (s->fill.changes) {
			mset(m, ifn, "rx.fill.min", s->fill.min);
			mset(m, ifn, "rx.fill.p1", s->fill.p1);
			mset(m, ifn, "rx.fill.p50", s->fill.p50);
			mset(m, ifn, "rx.fill.mean", s->fill.mean);
			mset(m, ifn, "rx.fill.max", s->fill.max);
		}
		if (s->refills || s->rx_handoffs) {
			if (s->rx_ring)
				mset(m, ifn, "rx.ring", s->rx_ring);
			mset(m, ifn, "rx.descs", (double)s->rx_desc);
			mset(m, ifn, "rx.handoffs", (double)s->rx_handoffs);
			mset(m, ifn, "rx.refills", (double)s->refills);
			mset(m, ifn, "rx.refill_allocs", (double)s->refill_alloc);
			mset(m, ifn, "rx.refill_failures", (double)s->refill_failures);
			mset(m, ifn, "rx.refills_low", (double)s->refills_low);
			mset(m, ifn, "rx.low_episodes", (double)s->low_episodes);
			mset(m, ifn, "rx.empty_episodes", (double)s->empty_episodes);
			mset(m, ifn, "rx.low_ms", (double)s->low_ns / 1e6);
		}
		noho_metrics(m, ifn, s);
		napi_metrics(m, ifn, s);
		if (s->xmits || s->tx_done) {
			if (s->tx_ring)
				mset(m, ifn, "tx.ring", s->tx_ring);
			mset(m, ifn, "tx.xmits", (double)s->xmits);
			mset(m, ifn, "tx.done", (double)s->tx_done);
		}
		if (s->inflight.changes) {
			mset(m, ifn, "tx.inflight.max", s->inflight.max);
			mset(m, ifn, "tx.inflight.mean", s->inflight.mean);
		}
	}
	queue_metrics(d, m);
}

/* ---- evidence ------------------------------------------------------------------------ */

/* "; the 7 handed up were 60..74 B", or nothing to compare with. */
static void evidence_handed(struct sbuf *b, const struct drvring_stats *s)
{
	const struct drvring_range *r = &s->handoff_len;

	if (r->count == 1)
		sbuf_addf(b, "; the 1 handed up was %llu B", (unsigned long long)r->min);
	else if (r->count && r->min == r->max)
		sbuf_addf(b, "; the %llu handed up were all %llu B", (unsigned long long)r->count,
			  (unsigned long long)r->min);
	else if (r->count)
		sbuf_addf(b, "; the %llu handed up were %llu..%llu B", (unsigned long long)r->count,
			  (unsigned long long)r->min, (unsigned long long)r->max);
	else if (!s->rx_handoffs)
		sbuf_adds(b, "; none was handed up");
}

/* Does every one of the @total descriptors have the one value of @v? */
static bool one_value(const struct drvring_values *v, uint64_t total)
{
	return v->n == 1 && v->count == total;
}

char *drvring_nic_evidence(const struct drvring_nic *n)
{
	const struct drvring_stats *s = &n->s;
	const struct drvring_values *l = &s->noho_len, *st = &s->noho_status;
	uint64_t total = s->rx_desc_no_handoff;
	struct sbuf b;

	if (!total)
		return NULL;
	sbuf_init(&b);
	sbuf_addf(&b, "%llu descriptor%s completed without a hand-off by %s %s: ",
		  (unsigned long long)total, total == 1 ? "" : "s", n->driver, n->ifname);
	if (one_value(l, total))
		sbuf_addf(&b, "%s%llu B", total > 1 ? "all " : "", (unsigned long long)l->top[0].v);
	else {
		sbuf_adds(&b, "len ");
		values_list(&b, l, total, false);
	}
	if (one_value(st, total))
		sbuf_addf(&b, " (status 0x%llx)", (unsigned long long)st->top[0].v);
	else {
		sbuf_adds(&b, "; status ");
		values_list(&b, st, total, true);
	}
	evidence_handed(&b, s);
	if (s->noho_period)
		sbuf_addf(&b, "; every %u%s descriptor (positions %u mod %u), no other",
			  s->noho_period, s->noho_period == 2 ? "nd" : s->noho_period == 3 ? "rd" : "th",
			  s->noho_phase, s->noho_period);
	return sbuf_detach(&b);
}
