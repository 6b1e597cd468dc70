// SPDX-License-Identifier: GPL-2.0
/*
 * The rings' results, and reading them from a trace.dat: netlab_drv lines
 * or the kprobe fallback events, fed to the state of drvring.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <event-parse.h>
#include <trace-seq.h>
#include <trace-cmd.h>

#include "trace/drvring.h"
#include "trace/drvring-int.h"
#include "hist.h"
#include "lib/metrics.h"
#include "trace/tracefile.h"
#include "trace/tracepass.h"
#include "lib/util.h"

#define NO_DRV_LINES                                                                               \
	"the kernel has no driver patches (make kernel builds them by default) or the trace did not record the netlab_drv events (or, with older patches, the top-level buffer); without patches, add netlab:drvprobe to the set ([trace] add)"
#define RECORD_AGAIN "record it again with trace-cmd record -e netlab_drv (older patches: the top-level buffer)"
/* The field each role's value comes from (NULL: none). */
static const char *const role_field[P_ROLES] = {
	"budget", "work", NULL, NULL, "len", "want", "len"
};
/* ---- results ----------------------------------------------------------------------- */

/* The lowest level at or below which the ring spent @p percent of the time. */
static unsigned int level_pct(const uint64_t *ns, uint64_t total, double p)
{
	uint64_t want = (uint64_t)((double)total * p / 100.0), sum = 0;

	for (unsigned int i = 0; i <= DRVRING_LEVELS; i++) {
		sum += ns[i];
		if (sum > want || (sum == total && sum))
			return i;
	}
	return DRVRING_LEVELS;
}

static void level_of(struct drvring_level *o, const uint64_t *ns, bool seen, unsigned int mn,
		     unsigned int mx, uint64_t changes, unsigned int ring)
{
	double sum = 0;

	memset(o, 0, sizeof(*o));
	if (!seen)
		return;
	o->min = mn;
	o->max = mx;
	o->changes = changes;
	o->ring = ring;
	for (unsigned int i = 0; i <= DRVRING_LEVELS; i++) {
		o->ns += ns[i];
		sum += (double)i * (double)ns[i];
		if (ring && ns[i]) {
			unsigned int b = (unsigned int)((uint64_t)i * DRVRING_OCC_BINS / ring);

			o->bin_ns[b < DRVRING_OCC_BINS ? b : DRVRING_OCC_BINS - 1] += ns[i];
		}
	}
	if (!o->ns) {
		o->p1 = o->p50 = mn;
		o->mean = mn;
		return;
	}
	o->p1 = level_pct(ns, o->ns, 1);
	o->p50 = level_pct(ns, o->ns, 50);
	o->mean = sum / (double)o->ns;
}

/* Highest count first, then lowest value. */
static int cmp_value(const void *a, const void *b)
{
	const struct drvring_value *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return (x->v > y->v) - (x->v < y->v);
}

static void values_of(struct drvring_values *o, const struct vtab *t)
{
	struct drvring_value e[DRVRING_NOHO_TRACK];

	memset(o, 0, sizeof(*o));
	o->count = o->other = t->count;
	o->min = t->min;
	o->max = t->max;
	memcpy(e, t->e, t->n * sizeof(*e));
	if (t->n > 1)	/* qsort(NULL, 0) is undefined */
		qsort(e, t->n, sizeof(*e), cmp_value);
	o->n = t->n < DRVRING_NOHO_VALUES ? t->n : DRVRING_NOHO_VALUES;
	for (size_t i = 0; i < o->n; i++) {
		o->top[i] = e[i];
		o->other -= e[i].count;
	}
}

static void stats_of(struct drvring_stats *s, const struct acc *a)
{
	values_of(&s->noho_len, &a->noho_len);
	values_of(&s->noho_status, &a->noho_status);
	hist_summarize(a->h[H_WORK], &s->work);
	hist_summarize(a->h[H_POLL], &s->poll_ns);
	hist_summarize(a->h[H_IRQ_POLL], &s->irq_poll_ns);
	hist_summarize(a->h[H_DESC_STACK], &s->desc_stack_ns);
	hist_summarize(a->h[H_REFILL_AGE], &s->refill_age_low);
	level_of(&s->fill, a->fill_ns, a->fill_seen, a->fill_min, a->fill_max, a->fill_changes,
		 s->rx_ring);
	level_of(&s->inflight, a->infl_ns, a->infl_seen, a->infl_min, a->infl_max, a->infl_changes,
		 s->inflight_skbs ? 0 : s->tx_ring);
}

static void stats_add(struct drvring_stats *t, const struct drvring_stats *s)
{
	if (s->rx_ring > t->rx_ring)
		t->rx_ring = s->rx_ring;
	if (s->tx_ring > t->tx_ring)
		t->tx_ring = s->tx_ring;
	t->inflight_skbs |= s->inflight_skbs;
	t->rx_desc += s->rx_desc;
	t->rx_desc_errors += s->rx_desc_errors;
	t->rx_desc_no_handoff += s->rx_desc_no_handoff;
	t->rx_handoffs += s->rx_handoffs;
	drvring_range_add(&t->handoff_len, &s->handoff_len);
	t->refills += s->refills;
	t->refill_alloc += s->refill_alloc;
	t->refill_want += s->refill_want;
	t->refill_failures += s->refill_failures;
	t->refills_low += s->refills_low;
	t->low_episodes += s->low_episodes;
	t->empty_episodes += s->empty_episodes;
	t->low_ns += s->low_ns;
	if (!t->noho_period) {
		t->noho_period = s->noho_period;
		t->noho_phase = s->noho_phase;
	}
	t->irqs += s->irqs;
	t->irqs_tx += s->irqs_tx;
	t->polls += s->polls;
	t->poll_ends += s->poll_ends;
	t->budget_exhausted += s->budget_exhausted;
	t->repolls += s->repolls;
	t->desc_stack_copied += s->desc_stack_copied;
	t->xmits += s->xmits;
	t->tx_done += s->tx_done;
	t->tx_cleans += s->tx_cleans;
	t->tx_cleaned += s->tx_cleaned;
}

static double counter(const struct metrics *m, const char *fmt, const char *label, bool *any)
{
	char name[96];
	double v;

	snprintf(name, sizeof(name), fmt, label);
	if (!m || !metrics_get(m, name, &v))
		return -1;
	*any = true;
	return v;
}

static void nic_counters(struct drvring_nic *n, const struct metrics *m)
{
	const char *l = n->ifname + 3;

	n->rx_no_buffer_count = n->rx_missed_errors = n->alloc_rx_buff_failed = -1;
	n->ethtool_rx_ring = -1;
	if (strncmp(n->ifname, "eth", 3) || !*l || strlen(l) >= sizeof(n->label))
		return;
	for (const char *c = l; *c; c++)
		if (!((*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')))
			return;
	snprintf(n->label, sizeof(n->label), "%s", l);
	n->rx_no_buffer_count = counter(m, "nic.%s.rx_no_buffer_count", l, &n->counters);
	n->rx_missed_errors = counter(m, "nic.%s.rx_missed_errors", l, &n->counters);
	n->alloc_rx_buff_failed = counter(m, "nic.%s.alloc_rx_buff_failed", l, &n->counters);
	n->ethtool_rx_ring = counter(m, "ring.%s.rx", l, &n->counters);
}

static void queue_acc_final(struct queue *x)
{
	x->a.fill_seen = x->fill.changes > 0;
	x->a.fill_min = x->fill.min;
	x->a.fill_max = x->fill.max;
	x->a.fill_changes = x->fill.changes;
	x->a.infl_seen = x->infl.changes > 0;
	x->a.infl_min = x->infl.min;
	x->a.infl_max = x->infl.max;
	x->a.infl_changes = x->infl.changes;
}

static int cmp_worst(const void *a, const void *b, void *end)
{
	const struct drvring_episode *x = a, *y = b;

	if (drvring_worse(x, y, *(uint64_t *)end))
		return -1;
	return drvring_worse(y, x, *(uint64_t *)end);
}

/* Drop the fallback queues of drivers that have lines: the lines say more. */
static void probe_queues_unused(struct drvring *d)
{
	struct state *st = d->priv;

	for (size_t i = 0; i < d->n_queues;) {
		bool lines = false;

		for (size_t j = 0; j < d->n_queues && d->queues[i].from_probes; j++)
			lines |= !d->queues[j].from_probes &&
				 !strcmp(d->queues[j].driver, d->queues[i].driver);
		if (!lines) {
			i++;
			continue;
		}
		d->probe_events_unused += st->q_probe_events[i];
		free(d->queues[i].first);
		free(d->queues[i].worst);
		drvring_acc_release(&st->q[i].a);
		d->n_queues--;
		memmove(&d->queues[i], &d->queues[i + 1], (d->n_queues - i) * sizeof(*d->queues));
		memmove(&st->q[i], &st->q[i + 1], (d->n_queues - i) * sizeof(*st->q));
		memmove(&st->q_probe_events[i], &st->q_probe_events[i + 1],
			(d->n_queues - i) * sizeof(*st->q_probe_events));
		memset(&st->q[d->n_queues], 0, sizeof(*st->q));
		for (size_t j = 0; j < d->n_queues; j++) {
			st->q[j].pub = &d->queues[j];
			st->q[j].fill.series = &d->queues[j].fill;
			st->q[j].infl.series = &d->queues[j].inflight;
		}
	}
}

int drvring_finish(struct drvring *d)
{
	struct state *st = d->priv;
	struct acc nacc;
	int ret = 0;

	probe_queues_unused(d);
	d->nics = xcalloc(d->n_queues + 1, sizeof(*d->nics));
	for (size_t i = 0; i < d->n_queues; i++) {
		struct queue *x = &st->q[i];

		if (x->low)
			drvring_episode_keep(d, x, d->last_ts);
		x->low = false;
		drvring_lev_close(&x->fill, d->last_ts);
		drvring_lev_close(&x->infl, d->last_ts);
		drvring_desc_unhanded(x);
		drvring_period_of(x);
		queue_acc_final(x);
		stats_of(&x->pub->s, &x->a);
		qsort_r(x->pub->worst, x->pub->n_worst, sizeof(*x->pub->worst), cmp_worst,
			&d->last_ts);
	}
	for (size_t i = 0; i < d->n_queues && !ret; i++) {
		const struct drvring_queue *q = &d->queues[i];
		struct drvring_nic *n;
		bool seen = false;

		for (size_t j = 0; j < i; j++)
			seen |= !strcmp(d->queues[j].ifname, q->ifname) &&
				!strcmp(d->queues[j].driver, q->driver);
		if (seen)
			continue;
		n = &d->nics[d->n_nics++];
		memcpy(n->driver, q->driver, sizeof(n->driver));
		memcpy(n->ifname, q->ifname, sizeof(n->ifname));
		n->from_probes = q->from_probes;
		memset(&nacc, 0, sizeof(nacc));
		ret = drvring_acc_init(&nacc);
		for (size_t j = i; j < d->n_queues && !ret; j++) {
			if (strcmp(d->queues[j].ifname, q->ifname) ||
			    strcmp(d->queues[j].driver, q->driver))
				continue;
			n->queues++;
			stats_add(&n->s, &d->queues[j].s);
			drvring_acc_add(&nacc, &st->q[j].a);
		}
		if (!ret)
			stats_of(&n->s, &nacc);
		if (n->queues > 1)
			n->s.noho_period = n->s.noho_phase = 0;
		drvring_acc_release(&nacc);
		nic_counters(n, st->o.counters);
	}
	return ret;
}

/* ---- reading a trace.dat ------------------------------------------------------------ */

static void state_release(struct state *st)
{
	for (size_t i = 0; i < DRVRING_MAX_QUEUES; i++)
		drvring_acc_release(&st->q[i].a);
	trace_seq_destroy(&st->seq);
	free(st->tp);
	st->tp = NULL;
}

struct drvring *drvring_new(const struct drvring_opts *o)
{
	struct drvring *d = xzalloc(sizeof(*d));
	struct state *st = xzalloc(sizeof(*st));

	d->queues = xcalloc(DRVRING_MAX_QUEUES, sizeof(*d->queues));
	if (o)
		st->o = *o;
	if (!st->o.bucket_ns)
		st->o.bucket_ns = DRVRING_BUCKET_NS;
	d->low_div = st->o.low_div ? st->o.low_div : 8;
	d->empty_fill = st->o.empty_fill ? st->o.empty_fill : 4;
	d->episodes = st->o.episodes ? st->o.episodes : 5;
	trace_seq_init(&st->seq);
	st->tp_max = -1;
	d->priv = st;
	return d;
}

static bool tp_event(const struct state *st, int type)
{
	return type >= 0 && type <= st->tp_max && st->tp[type];
}

/* Is this bprint format a netlab_drv line? Formatted once per pointer. */
static int cached_fmt(struct state *st, uint64_t fmt, size_t *slot)
{
	for (size_t i = 0; i < st->n_fmts; i++)
		if (st->fmts[i].fmt == fmt)
			return st->fmts[i].ours;
	*slot = st->n_fmts;
	return -1;
}

static int on_record(struct tep_record *rec, int cpu, void *data)
{
	struct drvring *d = data;
	struct state *st = d->priv;
	size_t slot = FMT_CACHE;
	uint64_t fmt = 0;
	int type, ours = -1, ret;

	drvring_clock_at(d, rec->ts);
	d->events++;
	if (rec->missed_events) {
		d->lost_gaps++;
		if (rec->missed_events > 0)
			d->lost += rec->missed_events;
		drvring_lost(d, rec->ts);
	}
	if (rec->size < 2)
		return 0;
	type = tep_data_type(st->tep, rec);
	for (size_t i = 0; i < st->n_pev && type >= 0; i++)
		if (st->pev[i].id == type)
			return drvring_probe_feed(
				       d, rec->ts, rec->cpu, st->pev[i].drv, st->pev[i].role,
				       st->pev[i].f ? tracefile_u64(st->tf, rec, st->pev[i].f)
						    : 0) == -ENOMEM
				       ? -ENOMEM
				       : 0;
	if (type < 0 || (type != st->bprint_id && type != st->print_id && !tp_event(st, type)))
		return 0;
	if (type == st->bprint_id && st->fmt) {
		fmt = tracefile_u64(st->tf, rec, st->fmt);
		ours = cached_fmt(st, fmt, &slot);
		if (!ours)
			return 0;
	}
	trace_seq_reset(&st->seq);
	tep_print_event(st->tep, &st->seq, rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&st->seq);
	if (!st->seq.buffer)
		return -ENOMEM;
	ret = drvring_feed(d, rec->ts, rec->cpu, st->seq.buffer);
	if (slot < FMT_CACHE) {
		st->fmts[slot].fmt = fmt;
		st->fmts[slot].ours = ret != -ENOENT;
		st->n_fmts++;
	}
	return ret == -ENOMEM ? ret : 0;
}

static int event_id(struct tracefile *tf, const char *name)
{
	struct tep_event *ev = tracefile_event(tf, "ftrace", name);

	return ev ? ev->id : -1;
}

/* The lines' tracepoints, by id (DRVRING_TP_SYSTEM); -ENOMEM. */
static int tp_events_find(struct state *st)
{
	struct tep_event **evs = tep_list_events(st->tep, TEP_EVENT_SORT_ID);

	st->tp_max = -1;
	for (size_t i = 0; evs && evs[i]; i++)
		if (evs[i]->system && !strcmp(evs[i]->system, DRVRING_TP_SYSTEM) &&
		    evs[i]->id > st->tp_max)
			st->tp_max = evs[i]->id;
	if (st->tp_max < 0)
		return 0;
	st->tp = xcalloc((size_t)st->tp_max + 1, 1);
	for (size_t i = 0; evs[i]; i++)
		if (evs[i]->system && !strcmp(evs[i]->system, DRVRING_TP_SYSTEM))
			st->tp[evs[i]->id] = 1;
	return 0;
}

/* The fallback probe events the trace defines (netlab:drv_DRIVER_ROLE). */
static void probe_events_find(struct state *st)
{
	struct tep_event **evs = tep_list_events(st->tep, TEP_EVENT_SORT_ID);

	for (size_t i = 0; evs && evs[i] && st->n_pev < PROBE_EVENTS; i++) {
		struct pev *p = &st->pev[st->n_pev];

		if (!evs[i]->system || strcmp(evs[i]->system, "netlab") ||
		    drvring_probe_parse(evs[i]->name, &p->drv, &p->role))
			continue;
		p->id = evs[i]->id;
		p->f = role_field[p->role] ? tep_find_field(evs[i], role_field[p->role]) : NULL;
		st->n_pev++;
	}
}

struct drvring_pass {
	struct tracepass_slot slot;
	struct drvring *d;
	const char *path;
};

int drvring_attach(struct tracepass *tp, const struct drvring_opts *o, struct drvring_pass **out,
		   char **err)
{
	struct drvring_pass *s;
	struct drvring *d;
	struct state *st;
	int ret;

	*out = NULL;
	d = drvring_new(o);
	ret = tracepass_open(tp, RECORD_AGAIN, err);
	if (ret) {
		drvring_free(d);
		return ret;
	}
	st = d->priv;
	st->tf = &tp->tf;
	d->path = xstrdup(tp->path);
	d->cpus = tp->tf.cpus;
	d->buffers = tp->tf.n;
	st->tep = tp->tf.tep;
	st->bprint_id = event_id(st->tf, "bprint");
	st->print_id = event_id(st->tf, "print");
	if (st->bprint_id >= 0)
		st->fmt = tep_find_field(tracefile_event(st->tf, "ftrace", "bprint"), "fmt");
	probe_events_find(st);
	if (tp_events_find(st)) {
		err_set(err, "cannot read trace '%s': %s", tp->path, strerror(ENOMEM));
		drvring_free(d);
		return -ENOMEM;
	}
	s = xzalloc(sizeof(*s));
	s->d = d;
	s->path = tp->path;
	s->slot.cb = on_record;
	s->slot.ctx = d;
	tracepass_add(tp, &s->slot);
	*out = s;
	return 0;
}

int drvring_collect(struct drvring_pass *s, struct drvring **out, char **err)
{
	struct drvring *d = s->d;
	struct state *st = d->priv;
	int ret = tracepass_result(&s->slot, err);

	*out = NULL;
	if (!ret)
		ret = drvring_finish(d);
	if (!ret && !d->lines && !d->probe_events) {
		err_set(err,
			"cannot read trace '%s': it holds no netlab_drv lines and no fallback probe events (netlab:drv_*)\nhint: " NO_DRV_LINES,
			s->path);
		ret = -ENODATA;
	}
	if (ret) {
		if (ret == -ENOMEM)
			err_set(err, "cannot read trace '%s': %s", s->path, strerror(ENOMEM));
		drvring_free(d);
		free(s);
		return ret;
	}
	state_release(st);
	free(st);
	d->priv = NULL;
	free(s);
	*out = d;
	return 0;
}

void drvring_free(struct drvring *d)
{
	if (!d)
		return;
	if (d->priv) {
		state_release(d->priv);
		free(d->priv);
	}
	for (size_t i = 0; i < d->n_queues; i++) {
		free(d->queues[i].first);
		free(d->queues[i].worst);
	}
	free(d->queues);
	free(d->nics);
	free(d->path);
	free(d);
}