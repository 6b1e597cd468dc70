// SPDX-License-Identifier: GPL-2.0
/*
 * netrx output: the trees as perf netdev-times prints them, the aggregate
 * tables, the same content as JSON, and the metrics (see netrx.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/jsonout.h"
#include "trace/hist-json.h"
#include "lib/metrics.h"
#include "trace/netrx.h"
#include "lib/util.h"

#define NS_PER_S 1000000000ull
#define NS_PER_US 1000ull

/* ---- text ------------------------------------------------------------------------ */

static double ms(uint64_t from, uint64_t to)
{
	return to >= from ? (double)(to - from) / 1e6 : -(double)(from - to) / 1e6;
}

static double us(uint64_t ns)
{
	return (double)ns / 1e3;
}

#define JOINT "         |\n"

static void print_rx(const struct netrx *nr, const struct netrx_tree *t, const struct netrx_ev *e,
		     FILE *f)
{
	fprintf(f, "         |---netif_receive_skb(+%.3fmsec skb=%llx len=%u dev=%s)\n",
		ms(t->base_ts, e->ts), (unsigned long long)e->skb, e->len, nr->devs[e->dev].name);
	if (e->copy_ts)
		fprintf(f, "         |            |\n         |      %s(+%.3fmsec %d:%s)\n",
			e->copy_event, ms(t->base_ts, e->copy_ts), e->pid, e->comm);
	else if (e->free == NETRX_FREE_KFREE)
		fprintf(f,
			"         |            |\n         |      kfree_skb(+%.3fmsec location=%s)\n",
			ms(t->base_ts, e->free_ts), e->location);
	else if (e->free == NETRX_FREE_CONSUME)
		fprintf(f, "         |            |\n         |      consume_skb(+%.3fmsec)\n",
			ms(t->base_ts, e->free_ts));
}

void netrx_print_tree(const struct netrx *nr, const struct netrx_tree *t, FILE *f)
{
	fprintf(f, "%llu.%06llusec cpu=%d\n", (unsigned long long)(t->base_ts / NS_PER_S),
		(unsigned long long)(t->base_ts % NS_PER_S / NS_PER_US), t->cpu);
	for (size_t i = 0; i < t->n_irqs; i++)
		fprintf(f, "  irq_entry(+%.3fmsec irq=%d:%s)\n" JOINT,
			ms(t->base_ts, t->irqs[i].entry_ts), t->irqs[i].irq, t->irqs[i].name);
	fprintf(f, "  softirq_entry(+%.3fmsec %s)\n" JOINT, ms(t->base_ts, t->softirq_ts),
		t->context);
	for (size_t i = 0; i < t->n_ev; i++) {
		const struct netrx_ev *e = &t->ev[i];

		if (e->type == NETRX_EV_RX)
			print_rx(nr, t, e, f);
		else
			fprintf(f, "  napi_poll_exit(+%.3fmsec %s work=%d/%d)\n",
				ms(t->base_ts, e->ts), nr->devs[e->dev].name, e->work, e->budget);
		if (i + 1 < t->n_ev)
			fputs(JOINT, f);
	}
	if (t->ev_dropped)
		fprintf(f, JOINT "  (%zu more events)\n", t->ev_dropped);
	fputc('\n', f);
}

static void print_dist(FILE *f, const char *name, const struct hist_summary *d)
{
	if (!d->count) {
		fprintf(f, "  %-28s %8s\n", name, "-");
		return;
	}
	fprintf(f, "  %-28s %8llu %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f\n", name,
		(unsigned long long)d->count, us(d->min), us(d->p50), us(d->p90), us(d->p99),
		us(d->max), d->mean / 1e3);
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

static void print_devs(const struct netrx *nr, FILE *f)
{
	fprintf(f,
		"\nRX per device            polls  budget%%  frames  frames/poll  poll p50/p99 us   skbs  copied consumed dropped  copy p50/p99 us\n");
	for (size_t i = 0; i < nr->n_devs; i++) {
		const struct netrx_dev *d = &nr->devs[i];

		if (!d->polls && !d->rx_skbs)
			continue;
		fprintf(f,
			"  %-20s %8llu %7.1f%% %7llu %12.2f %8.1f/%-8.1f %6llu %7llu %8llu %7llu %8.1f/%.1f\n",
			d->name, (unsigned long long)d->polls, pct(d->budget_exhausted, d->polls),
			(unsigned long long)d->frames, d->work.mean, us(d->poll.p50),
			us(d->poll.p99), (unsigned long long)d->rx_skbs,
			(unsigned long long)d->rx_copied, (unsigned long long)d->rx_consumed,
			(unsigned long long)d->rx_dropped, us(d->rx_copy.p50), us(d->rx_copy.p99));
	}
	fprintf(f,
		"\nTX per device          packets  busy dropped  qdisc p50/p99 us  netdev p50/p99 us  free p50/p99 us\n");
	for (size_t i = 0; i < nr->n_devs; i++) {
		const struct netrx_dev *d = &nr->devs[i];

		if (!d->tx_packets && !d->tx_dropped)
			continue;
		fprintf(f, "  %-20s %8llu %5llu %7llu %8.1f/%-8.1f %8.1f/%-8.1f %8.1f/%.1f\n",
			d->name, (unsigned long long)d->tx_packets, (unsigned long long)d->tx_busy,
			(unsigned long long)d->tx_dropped, us(d->tx_qdisc.p50), us(d->tx_qdisc.p99),
			us(d->tx_dev.p50), us(d->tx_dev.p99), us(d->tx_free.p50),
			us(d->tx_free.p99));
	}
}

static const char *select_name(enum netrx_select s)
{
	return s == NETRX_WORST_COPY	  ? "worst irq -> last copy"
	       : s == NETRX_WORST_SOFTIRQ ? "worst irq -> softirq entry"
					  : "first";
}

static double span_ms(const struct netrx *nr)
{
	return nr->last_ts > nr->t0 ? (double)(nr->last_ts - nr->t0) / 1e6 : 0;
}

/* NET_RX per CPU: softirqs, time in them and its share of the trace, frames. */
static void print_per_cpu(const struct netrx *nr, FILE *f)
{
	double span = span_ms(nr);

	if (!nr->has_softirq || !nr->per_cpu)
		return;
	fprintf(f, "NET_RX per CPU (time: softirq entry -> %s; share of the trace's %.1f ms):\n",
		nr->time_exact ? "exit" : "its last record, a lower bound", span);
	for (int c = 0; c < nr->cpus; c++) {
		const struct netrx_cpu *pc = &nr->per_cpu[c];
		double ms = (double)pc->time_ns / 1e6;

		fprintf(f, "  cpu%d: %llu softirqs (%llu received), %.3f ms (%.1f%%), %llu frames\n", c,
			(unsigned long long)pc->softirqs, (unsigned long long)pc->receive, ms,
			span > 0 ? 100 * ms / span : 0, (unsigned long long)pc->frames);
	}
}

void netrx_print(const struct netrx *nr, FILE *f)
{
	fprintf(f, "NET_RX trees: the %s %zu of %llu receive softirqs in '%s'\n\n",
		select_name(nr->select), nr->n_trees, (unsigned long long)nr->receive_trees,
		nr->path);
	for (size_t i = 0; i < nr->n_trees; i++)
		netrx_print_tree(nr, nr->trees[i], f);
	if (nr->n_tx) {
		fprintf(f,
			"   dev    len           queued        qdisc    netdevice         free\n");
		for (size_t i = 0; i < nr->n_tx; i++) {
			const struct netrx_tx *x = &nr->tx[i];

			fprintf(f, "%6s %6u %9llu.%06llusec %8.3fmsec %8.3fmsec ",
				nr->devs[x->dev].name, x->len,
				(unsigned long long)(x->queue_ts / NS_PER_S),
				(unsigned long long)(x->queue_ts % NS_PER_S / NS_PER_US),
				(double)x->qdisc_ns / 1e6, (double)x->dev_ns / 1e6);
			if (x->freed)
				fprintf(f, "%8.3fmsec\n", (double)x->free_ns / 1e6);
			else
				fprintf(f, "%12s\n", "-");
		}
		fputc('\n', f);
	}
	fprintf(f,
		"NET_RX softirqs: %llu (%llu after an interrupt, %llu re-raised by NET_RX, %llu from process context, %llu with no raise recorded)\n",
		(unsigned long long)nr->softirqs, (unsigned long long)nr->softirqs_irq,
		(unsigned long long)nr->softirqs_repoll, (unsigned long long)nr->softirqs_other,
		(unsigned long long)nr->softirqs_unraised);
	fprintf(f,
		"napi polls: %llu (%llu outside a softirq), %llu used the whole budget (%.1f%%), %llu frames, %.2f per poll\n",
		(unsigned long long)nr->polls, (unsigned long long)nr->polls_other,
		(unsigned long long)nr->budget_exhausted, pct(nr->budget_exhausted, nr->polls),
		(unsigned long long)nr->frames, nr->work.mean);
	fprintf(f,
		"received skbs: %llu (%llu outside a softirq): %llu copied, %llu consumed, %llu dropped\n",
		(unsigned long long)nr->rx_skbs, (unsigned long long)nr->rx_outside_softirq,
		(unsigned long long)nr->rx_copied, (unsigned long long)nr->rx_consumed,
		(unsigned long long)nr->rx_dropped);
	fprintf(f, "sent skbs: %llu (%llu requeued, %llu freed before net_dev_xmit)\n",
		(unsigned long long)nr->tx_packets, (unsigned long long)nr->tx_busy,
		(unsigned long long)nr->tx_dropped);
	print_per_cpu(nr, f);
	if (nr->lost_gaps || nr->skbs_untracked)
		fprintf(f, "warning: %llu events lost in %llu gaps; %llu skbs not followed\n",
			(unsigned long long)nr->lost, (unsigned long long)nr->lost_gaps,
			(unsigned long long)nr->skbs_untracked);
	fprintf(f, "\n  %-28s %8s %9s %9s %9s %9s %9s %9s\n", "latency (usec)", "count", "min",
		"p50", "p90", "p99", "max", "mean");
	print_dist(f, "irq -> softirq entry", &nr->irq_softirq);
	print_dist(f, "poll (entry/prev poll -> end)", &nr->poll);
	print_dist(f, "netif_receive_skb -> copy", &nr->rx_copy);
	print_dist(f, "tx qdisc (queue -> start)", &nr->tx_qdisc);
	print_dist(f, "tx netdevice (start -> xmit)", &nr->tx_dev);
	print_dist(f, "tx free (xmit -> free)", &nr->tx_free);
	if (nr->n_irqs)
		fprintf(f,
			"\nInterrupts raising NET_RX   irq   raised  softirq after p50/p99/max us\n");
	for (size_t i = 0; i < nr->n_irqs; i++) {
		const struct netrx_irq *q = &nr->irqs[i];

		fprintf(f, "  %-24s %5d %8llu  %8.1f/%.1f/%.1f\n", q->name, q->irq,
			(unsigned long long)q->raised, us(q->irq_softirq.p50),
			us(q->irq_softirq.p99), us(q->irq_softirq.max));
	}
	print_devs(nr, f);
}

/* ---- JSON ------------------------------------------------------------------------ */

static struct json_object *json_ms(uint64_t from, uint64_t to)
{
	char buf[40];

	snprintf(buf, sizeof(buf), "%.6f", ms(from, to));
	return json_object_new_double_s(ms(from, to), buf);
}

static void add(struct json_object *o, const char *k, struct json_object *v)
{
	json_object_object_add(o, k, v);
}

static void add_u(struct json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, json_object_new_uint64(v));
}

static struct json_object *json_hex(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
	return json_object_new_string(buf);
}

static struct json_object *json_trace(const struct netrx *nr)
{
	struct json_object *o = json_object_new_object(), *rec = json_object_new_object();

	if (!o || !rec) {
		json_object_put(o);
		json_object_put(rec);
		return NULL;
	}
	add(o, "file", json_object_new_string(nr->path));
	add(o, "cpus", json_object_new_int(nr->cpus));
	add(o, "buffers", json_object_new_int(nr->buffers));
	add_u(o, "events", nr->events);
	add(o, "first_ts", json_fixed(nr->t0, NS_PER_S, 9));
	add(o, "last_ts", json_fixed(nr->last_ts, NS_PER_S, 9));
	add_u(o, "lost_events", nr->lost);
	add_u(o, "lost_gaps", nr->lost_gaps);
	add(rec, "irq", json_object_new_boolean(nr->has_irq));
	add(rec, "softirq", json_object_new_boolean(nr->has_softirq));
	add(rec, "napi_poll", json_object_new_boolean(nr->has_napi));
	add(rec, "receive", json_object_new_boolean(nr->has_rx));
	add(rec, "copy", json_object_new_boolean(nr->has_copy));
	add(rec, "free", json_object_new_boolean(nr->has_free));
	add(rec, "transmit", json_object_new_boolean(nr->has_tx));
	add(o, "recorded", rec);
	return o;
}

static struct json_object *json_rx(const struct netrx *nr)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	add_u(o, "softirqs", nr->softirqs);
	add_u(o, "softirqs_after_irq", nr->softirqs_irq);
	add_u(o, "softirqs_repoll", nr->softirqs_repoll);
	add_u(o, "softirqs_other", nr->softirqs_other);
	add_u(o, "softirqs_unraised", nr->softirqs_unraised);
	add_u(o, "raises_outside_irq", nr->raises_other);
	add_u(o, "receive_softirqs", nr->receive_trees);
	add_u(o, "polls", nr->polls);
	add_u(o, "polls_outside_softirq", nr->polls_other);
	add_u(o, "budget_exhausted", nr->budget_exhausted);
	add(o, "budget_exhausted_pct", json_real(pct(nr->budget_exhausted, nr->polls), "%.2f"));
	add_u(o, "frames", nr->frames);
	add_u(o, "skbs", nr->rx_skbs);
	add_u(o, "skbs_outside_softirq", nr->rx_outside_softirq);
	add_u(o, "copied", nr->rx_copied);
	add_u(o, "consumed", nr->rx_consumed);
	add_u(o, "dropped", nr->rx_dropped);
	add_u(o, "skbs_not_followed", nr->skbs_untracked);
	add(o, "irq_softirq_us", json_hist_summary(&nr->irq_softirq, true));
	add(o, "poll_us", json_hist_summary(&nr->poll, true));
	add(o, "frames_per_poll", json_hist_summary(&nr->work, false));
	add(o, "rx_copy_us", json_hist_summary(&nr->rx_copy, true));
	return o;
}

static struct json_object *json_dev(const struct netrx_dev *d)
{
	struct json_object *o = json_object_new_object(), *rx = json_object_new_object();
	struct json_object *tx = json_object_new_object();

	if (!o || !rx || !tx) {
		json_object_put(o);
		json_object_put(rx);
		json_object_put(tx);
		return NULL;
	}
	add(o, "name", json_object_new_string(d->name));
	add_u(rx, "polls", d->polls);
	add_u(rx, "polls_outside_softirq", d->polls_other);
	add_u(rx, "budget_exhausted", d->budget_exhausted);
	add_u(rx, "frames", d->frames);
	add_u(rx, "skbs", d->rx_skbs);
	add_u(rx, "copied", d->rx_copied);
	add_u(rx, "consumed", d->rx_consumed);
	add_u(rx, "dropped", d->rx_dropped);
	add(rx, "poll_us", json_hist_summary(&d->poll, true));
	add(rx, "frames_per_poll", json_hist_summary(&d->work, false));
	add(rx, "rx_copy_us", json_hist_summary(&d->rx_copy, true));
	add_u(tx, "packets", d->tx_packets);
	add_u(tx, "requeued", d->tx_busy);
	add_u(tx, "dropped", d->tx_dropped);
	add(tx, "qdisc_us", json_hist_summary(&d->tx_qdisc, true));
	add(tx, "dev_us", json_hist_summary(&d->tx_dev, true));
	add(tx, "free_us", json_hist_summary(&d->tx_free, true));
	add(o, "rx", rx);
	add(o, "tx", tx);
	return o;
}

static struct json_object *json_tx(const struct netrx *nr)
{
	struct json_object *o = json_object_new_object(), *rows = json_object_new_array();

	if (!o || !rows) {
		json_object_put(o);
		json_object_put(rows);
		return NULL;
	}
	add_u(o, "packets", nr->tx_packets);
	add_u(o, "requeued", nr->tx_busy);
	add_u(o, "dropped", nr->tx_dropped);
	add(o, "qdisc_us", json_hist_summary(&nr->tx_qdisc, true));
	add(o, "dev_us", json_hist_summary(&nr->tx_dev, true));
	add(o, "free_us", json_hist_summary(&nr->tx_free, true));
	for (size_t i = 0; i < nr->n_tx; i++) {
		const struct netrx_tx *x = &nr->tx[i];
		struct json_object *r = json_object_new_object();

		if (!r)
			break;
		add(r, "dev", json_object_new_string(nr->devs[x->dev].name));
		add(r, "skb", json_hex(x->skb));
		add_u(r, "len", x->len);
		add(r, "queue_ts", json_fixed(x->queue_ts, NS_PER_S, 9));
		add(r, "qdisc_us", json_us(x->qdisc_ns));
		add(r, "dev_us", json_us(x->dev_ns));
		add(r, "free_us", x->freed ? json_us(x->free_ns) : NULL);
		json_object_array_add(rows, r);
	}
	add(o, "rows", rows);
	return o;
}

static struct json_object *json_ev(const struct netrx *nr, const struct netrx_tree *t,
				   const struct netrx_ev *e)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	add(o, "event",
	    json_object_new_string(e->type == NETRX_EV_RX ? "netif_receive_skb" : "napi_poll"));
	add(o, "offset_ms", json_ms(t->base_ts, e->ts));
	add(o, "dev", json_object_new_string(nr->devs[e->dev].name));
	if (e->type == NETRX_EV_POLL) {
		add(o, "work", json_object_new_int(e->work));
		add(o, "budget", json_object_new_int(e->budget));
		return o;
	}
	add(o, "skb", json_hex(e->skb));
	add_u(o, "len", e->len);
	if (e->copy_ts) {
		struct json_object *c = json_object_new_object();

		if (c) {
			add(c, "event", json_object_new_string(e->copy_event));
			add(c, "offset_ms", json_ms(t->base_ts, e->copy_ts));
			add(c, "pid", json_object_new_int(e->pid));
			add(c, "comm", json_object_new_string(e->comm));
		}
		add(o, "copy", c);
	}
	if (e->free != NETRX_FREE_NONE) {
		struct json_object *c = json_object_new_object();

		if (c) {
			add(c, "event",
			    json_object_new_string(e->free == NETRX_FREE_KFREE ? "kfree_skb"
									       : "consume_skb"));
			add(c, "offset_ms", json_ms(t->base_ts, e->free_ts));
			if (e->location)
				add(c, "location", json_object_new_string(e->location));
		}
		add(o, "free", c);
	}
	return o;
}

static struct json_object *json_tree(const struct netrx *nr, const struct netrx_tree *t)
{
	struct json_object *o = json_object_new_object(), *irqs = json_object_new_array();
	struct json_object *ev = json_object_new_array();

	if (!o || !irqs || !ev) {
		json_object_put(o);
		json_object_put(irqs);
		json_object_put(ev);
		return NULL;
	}
	add(o, "ts", json_fixed(t->base_ts, NS_PER_S, 9));
	add(o, "cpu", json_object_new_int(t->cpu));
	for (size_t i = 0; i < t->n_irqs; i++) {
		struct json_object *q = json_object_new_object();

		if (!q)
			break;
		add(q, "irq", json_object_new_int(t->irqs[i].irq));
		add(q, "name", json_object_new_string(t->irqs[i].name));
		add(q, "offset_ms", json_ms(t->base_ts, t->irqs[i].entry_ts));
		json_object_array_add(irqs, q);
	}
	add(o, "irqs", irqs);
	add(o, "softirq_offset_ms", json_ms(t->base_ts, t->softirq_ts));
	add(o, "softirq_exit_ms", t->exit_ts ? json_ms(t->base_ts, t->exit_ts) : NULL);
	add(o, "context", json_object_new_string(t->context));
	add(o, "irq_softirq_us", json_us(t->irq_softirq_ns));
	add(o, "last_copy_us", t->last_copy_ns ? json_us(t->last_copy_ns) : NULL);
	for (size_t i = 0; i < t->n_ev; i++)
		json_object_array_add(ev, json_ev(nr, t, &t->ev[i]));
	add(o, "events", ev);
	add_u(o, "events_not_shown", t->ev_dropped);
	return o;
}

/* [{"cpu", "softirqs", "receive", "time_us", "frames"}], time_exact beside it; NULL without softirqs */
static struct json_object *json_per_cpu(const struct netrx *nr)
{
	struct json_object *a;

	if (!nr->has_softirq || !nr->per_cpu || !(a = json_object_new_array()))
		return NULL;
	for (int c = 0; c < nr->cpus; c++) {
		const struct netrx_cpu *pc = &nr->per_cpu[c];
		struct json_object *x = json_object_new_object();
		char us[32];

		if (!x)
			break;
		snprintf(us, sizeof(us), "%.3f", (double)pc->time_ns / 1e3);
		add(x, "cpu", json_object_new_int(c));
		add_u(x, "softirqs", pc->softirqs);
		add_u(x, "receive", pc->receive);
		add(x, "time_us", json_object_new_double_s((double)pc->time_ns / 1e3, us));
		add(x, "time_exact", json_object_new_boolean(nr->time_exact));
		add_u(x, "frames", pc->frames);
		json_object_array_add(a, x);
	}
	return a;
}

struct json_object *netrx_to_json(const struct netrx *nr)
{
	struct json_object *o = json_object_new_object(), *sel = json_object_new_object();
	struct json_object *irqs = json_object_new_array(), *devs = json_object_new_array();
	struct json_object *trees = json_object_new_array();

	if (!o || !sel || !irqs || !devs || !trees) {
		json_object_put(o);
		json_object_put(sel);
		json_object_put(irqs);
		json_object_put(devs);
		json_object_put(trees);
		return NULL;
	}
	add(o, "trace", json_trace(nr));
	add(sel, "by",
	    json_object_new_string(nr->select == NETRX_WORST_COPY      ? "worst_copy"
				   : nr->select == NETRX_WORST_SOFTIRQ ? "worst_softirq"
								       : "first"));
	add(sel, "n", json_object_new_int((int)nr->n));
	add_u(sel, "of", nr->receive_trees);
	add(o, "selection", sel);
	add(o, "rx", json_rx(nr));
	add(o, "per_cpu", json_per_cpu(nr));
	for (size_t i = 0; i < nr->n_irqs; i++) {
		struct json_object *q = json_object_new_object();

		if (!q)
			break;
		add(q, "irq", json_object_new_int(nr->irqs[i].irq));
		add(q, "name", json_object_new_string(nr->irqs[i].name));
		add(q, "dev",
		    nr->irqs[i].dev >= 0 ? json_object_new_string(nr->devs[nr->irqs[i].dev].name)
					 : NULL);
		add_u(q, "raised", nr->irqs[i].raised);
		add(q, "irq_softirq_us", json_hist_summary(&nr->irqs[i].irq_softirq, true));
		json_object_array_add(irqs, q);
	}
	add(o, "irqs", irqs);
	for (size_t i = 0; i < nr->n_devs; i++)
		json_object_array_add(devs, json_dev(&nr->devs[i]));
	add(o, "devices", devs);
	add(o, "tx", json_tx(nr));
	for (size_t i = 0; i < nr->n_trees; i++)
		json_object_array_add(trees, json_tree(nr, nr->trees[i]));
	add(o, "trees", trees);
	return o;
}

/* ---- metrics ---------------------------------------------------------------------- */

static void metric_dist(struct metrics *m, const char *prefix, const struct hist_summary *d)
{
	char name[128];

	if (!d->count)
		return;
	snprintf(name, sizeof(name), "%s.p50_us", prefix);
	metrics_set(m, name, us(d->p50));
	snprintf(name, sizeof(name), "%s.p99_us", prefix);
	metrics_set(m, name, us(d->p99));
}

void netrx_metrics(const struct netrx *nr, struct metrics *m)
{
	char name[128];

	metrics_set(m, "netrx.softirqs", (double)nr->softirqs);
	for (int c = 0; nr->has_softirq && nr->per_cpu && c < nr->cpus; c++) {
		const struct netrx_cpu *pc = &nr->per_cpu[c];

		snprintf(name, sizeof(name), "netrx.cpu%d.softirqs", c);
		metrics_set(m, name, (double)pc->softirqs);
		snprintf(name, sizeof(name), "netrx.cpu%d.time_us", c);
		metrics_set(m, name, (double)pc->time_ns / 1e3);
		snprintf(name, sizeof(name), "netrx.cpu%d.frames", c);
		metrics_set(m, name, (double)pc->frames);
	}
	metrics_set(m, "netrx.softirqs_without_irq", (double)(nr->softirqs - nr->softirqs_irq));
	metrics_set(m, "netrx.polls", (double)nr->polls);
	metrics_set(m, "netrx.budget_exhausted", (double)nr->budget_exhausted);
	metrics_set(m, "netrx.budget_exhausted_pct", pct(nr->budget_exhausted, nr->polls));
	if (nr->work.count)
		metrics_set(m, "netrx.frames_per_poll.mean", nr->work.mean);
	metric_dist(m, "netrx.irq_softirq", &nr->irq_softirq);
	metric_dist(m, "netrx.poll", &nr->poll);
	metric_dist(m, "netrx.rx_copy", &nr->rx_copy);
	metrics_set(m, "tx.packets", (double)nr->tx_packets);
	metrics_set(m, "tx.dropped", (double)nr->tx_dropped);
	metric_dist(m, "tx.qdisc", &nr->tx_qdisc);
	metric_dist(m, "tx.dev", &nr->tx_dev);
	metric_dist(m, "tx.free", &nr->tx_free);
	for (size_t i = 0; i < nr->n_devs; i++) {
		const struct netrx_dev *d = &nr->devs[i];

		if (!d->polls)
			continue;
		snprintf(name, sizeof(name), "netrx.dev.%s.polls", d->name);
		metrics_set(m, name, (double)d->polls);
		snprintf(name, sizeof(name), "netrx.dev.%s.budget_exhausted", d->name);
		metrics_set(m, name, (double)d->budget_exhausted);
		snprintf(name, sizeof(name), "netrx.dev.%s.frames", d->name);
		metrics_set(m, name, (double)d->frames);
	}
}
