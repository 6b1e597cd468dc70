// SPDX-License-Identifier: GPL-2.0
/*
 * Feeding the ring state (see drvring.c): low-fill episodes, and what each
 * netlab_drv line or kprobe fallback event does to its queue.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/drvring.h"
#include "trace/drvring-int.h"
#include "hist.h"
#include "scenario/metrics.h"
#include "lib/util.h"

static const char *const probe_drivers[PROBE_DRIVERS] = { "e1000e", "e1000", "virtio_net" };
/* ---- episodes -------------------------------------------------------------------- */

static unsigned int low_mark(const struct drvring *d, unsigned int ring)
{
	unsigned int m = ring / d->low_div;

	return m ? m : 1;
}

/* Is @a worse than @b: lower fill, then longer (open ones run to @end). */
bool drvring_worse(const struct drvring_episode *a, const struct drvring_episode *b, uint64_t end)
{
	uint64_t da = (a->end_ts ? a->end_ts : end) - a->ts,
		 db = (b->end_ts ? b->end_ts : end) - b->ts;

	if (a->min_fill != b->min_fill)
		return a->min_fill < b->min_fill;
	return da > db;
}

void drvring_episode_keep(struct drvring *d, struct queue *x, uint64_t end)
{
	struct drvring_queue *p = x->pub;
	const struct drvring_episode *e = &x->ep;
	size_t best = 0;

	x->pub->s.low_episodes++;
	if (e->empty)
		x->pub->s.empty_episodes++;
	x->pub->s.low_ns += (e->end_ts ? e->end_ts : end) - e->ts;
	if (p->n_first < d->episodes)
		p->first[p->n_first++] = *e;
	if (p->n_worst < d->episodes) {
		p->worst[p->n_worst++] = *e;
		return;
	}
	for (size_t i = 1; i < p->n_worst; i++)
		if (drvring_worse(&p->worst[best], &p->worst[i], end))
			best = i;
	if (d->episodes && drvring_worse(e, &p->worst[best], end))
		p->worst[best] = *e;
}

/* The fill changes to @v at @ts: start, extend or end a low episode. */
static void fill_set(struct drvring *d, struct queue *x, uint64_t ts, int cpu, unsigned int v,
		     bool by_refill)
{
	unsigned int ring = x->pub->s.rx_ring, mark = low_mark(d, ring);
	struct drvring_episode *e = &x->ep;

	if (!x->low && ring && v < mark) {
		*e = (struct drvring_episode){
			.ts = ts,
			.cpu = cpu,
			.ring = ring,
			.low_mark = mark,
			.min_fill = v,
			.by_refill = by_refill,
			.fill_before = x->fill.known ? x->fill.cur : v,
			.refill_seen = x->refill_seen,
			.refill_failed = x->refill_failed,
			.since_refill_ns = x->refill_seen ? ts - x->refill_ts : 0,
			.descs_since_refill = x->descs_since_refill,
			.in_poll = x->in_poll,
			.irq_seen = x->irq_seen,
			.since_irq_ns = x->irq_seen ? ts - x->irq_ts : 0,
		};
		if (x->refill_seen)
			hist_record(x->a.h[H_REFILL_AGE], ts - x->refill_ts);
		x->low = true;
	} else if (x->low && v >= mark) {
		e->end_ts = ts;
		drvring_episode_keep(d, x, ts);
		x->low = false;
	}
	if (x->low && v < e->min_fill)
		e->min_fill = v;
	if (x->low && v <= d->empty_fill)
		e->empty = true;
	drvring_lev_set(&x->fill, ts, v);
}

/* Descriptors from index @from up to @to on a ring of @ring. */
static unsigned int ring_dist(uint64_t to, uint64_t from, uint64_t ring)
{
	return (unsigned int)((to % ring + ring - from % ring) % ring);
}

/* ---- events ------------------------------------------------------------------------ */

static void on_irq(struct queue *x, const struct drvring_line *l, uint64_t ts, int cpu)
{
	if ((l->has & K(DIR)) && l->v[DRVRING_K_DIR] == 1) {
		x->pub->s.irqs_tx++;
		return;
	}
	x->pub->s.irqs++;
	x->irq_seen = true;
	x->irq_ts = ts;
	if (cpu >= 0 && cpu < DRVRING_MAX_CPUS && !x->irq_pending[cpu])
		x->irq_pending[cpu] = ts;
}

void drvring_desc_unhanded(struct queue *x)
{
	if (x->desc_pending) {
		x->pub->s.rx_desc_no_handoff++;
		if (x->desc_has & K(LEN))
			drvring_vtab_add(&x->a.noho_len, x->desc_len, 1);
		if (x->desc_has & K(STATUS))
			drvring_vtab_add(&x->a.noho_status, x->desc_status, 1);
	}
	x->desc_pending = false;
}

/* The pending descriptor was handed off. */
static void desc_handed(struct queue *x, const struct drvring_line *l, uint64_t ts)
{
	struct drvring_stats *s = &x->pub->s;

	hist_record(x->a.h[H_DESC_STACK], ts - x->desc_ts);
	if (x->desc_skb != l->v[DRVRING_K_SKB])
		s->desc_stack_copied++;
	if (x->desc_has & K(LEN))
		drvring_range_add(&s->handoff_len,
				  &(struct drvring_range){ 1, x->desc_len, x->desc_len });
	x->desc_pending = false;
}

static void on_poll(struct queue *x, const struct drvring_line *l, uint64_t ts, int cpu)
{
	struct drvring_stats *s = &x->pub->s;

	if (l->event == DRVRING_POLL_START) {
		s->polls++;
		if (cpu >= 0 && cpu < DRVRING_MAX_CPUS && x->irq_pending[cpu])
			hist_record(x->a.h[H_IRQ_POLL], ts - x->irq_pending[cpu]);
		/* One NAPI instance: this poll serves the interrupts of other CPUs too. */
		memset(x->irq_pending, 0, sizeof(x->irq_pending));
		x->in_poll = true;
		x->poll_cpu = cpu;
		x->poll_ts = ts;
		return;
	}
	s->poll_ends++;
	hist_record(x->a.h[H_WORK], l->v[DRVRING_K_WORK]);
	if (l->v[DRVRING_K_WORK] == l->v[DRVRING_K_BUDGET])
		s->budget_exhausted++;
	if (l->v[DRVRING_K_REPOLL])
		s->repolls++;
	if (x->in_poll && x->poll_cpu == cpu)
		hist_record(x->a.h[H_POLL], ts - x->poll_ts);
	x->in_poll = false;
	drvring_desc_unhanded(x);
}

static void on_rx(struct drvring *d, struct queue *x, const struct drvring_line *l, uint64_t ts,
		  int cpu)
{
	struct drvring_stats *s = &x->pub->s;
	unsigned int ring = s->rx_ring;

	if (l->event == DRVRING_RX_DESC) {
		s->rx_desc++;
		if (l->v[DRVRING_K_STATUS] >> 24)
			s->rx_desc_errors++;
		drvring_desc_unhanded(x);
		x->desc_pending = true;
		x->desc_ts = ts;
		x->desc_skb = l->v[DRVRING_K_SKB];
		x->desc_len = l->v[DRVRING_K_LEN];
		x->desc_status = l->v[DRVRING_K_STATUS];
		x->desc_has = l->has & (K(LEN) | K(STATUS));
		x->has_rx_desc = true;
		x->descs_since_refill++;
		if (x->ntu_known && ring && (l->has & K(IDX)))
			fill_set(d, x, ts, cpu, ring_dist(x->ntu, l->v[DRVRING_K_IDX] + 1, ring),
				 false);
		else if (x->fill.known && x->fill.cur)
			fill_set(d, x, ts, cpu, x->fill.cur - 1, false);
		return;
	}
	/* rx_handoff */
	s->rx_handoffs++;
	if (x->pub->from_probes)
		return;
	if (x->desc_pending)
		desc_handed(x, l, ts);
	if (!x->has_rx_desc) {
		x->pub->fill_estimated = true;
		x->descs_since_refill++;
		if (x->fill.known && x->fill.cur)
			fill_set(d, x, ts, cpu, x->fill.cur - 1, false);
	}
}

static void on_refill(struct drvring *d, struct queue *x, const struct drvring_line *l, uint64_t ts,
		      int cpu)
{
	struct drvring_stats *s = &x->pub->s;
	unsigned int fill = (unsigned int)l->v[DRVRING_K_FILL];

	s->refills++;
	s->refill_alloc += l->v[DRVRING_K_ALLOC];
	s->refill_want += l->v[DRVRING_K_WANT];
	if (l->v[DRVRING_K_FAIL])
		s->refill_failures++;
	s->rx_ring = (unsigned int)l->v[DRVRING_K_RING];
	x->ntu_known = (l->has & K(NTU)) && s->rx_ring;
	x->ntu = x->ntu_known ? (unsigned int)(l->v[DRVRING_K_NTU] % s->rx_ring) : 0;
	if (fill < low_mark(d, s->rx_ring))
		s->refills_low++;
	fill_set(d, x, ts, cpu, fill, true);
	x->refill_seen = true;
	x->refill_failed = l->v[DRVRING_K_FAIL] != 0;
	x->refill_ts = ts;
	x->descs_since_refill = 0;
}

static void on_tx(struct queue *x, const struct drvring_line *l, uint64_t ts)
{
	struct drvring_stats *s = &x->pub->s;
	uint64_t ring = l->v[DRVRING_K_RING];
	bool idx = (l->has & (K(NTU) | K(NTC) | K(RING))) == (K(NTU) | K(NTC) | K(RING)) && ring;
	bool fr = (l->has & (K(FREE) | K(RING))) == (K(FREE) | K(RING));

	if (x->pub->from_probes) {
		s->xmits++; /* no completions: nothing in flight to follow */
		return;
	}
	if (l->event == DRVRING_XMIT) {
		s->xmits++;
		if (!idx && !fr)
			s->inflight_skbs = true;
		x->skbs++;
	} else if (l->event == DRVRING_TX_DONE) {
		s->tx_done++;
		if (x->skbs > 0)
			x->skbs--;
	} else {
		s->tx_cleans++;
		s->tx_cleaned += l->v[DRVRING_K_CLEANED];
	}
	if (ring)
		s->tx_ring = (unsigned int)ring;
	if (s->inflight_skbs)
		drvring_lev_set(&x->infl, ts, (unsigned int)x->skbs);
	else if (idx)
		drvring_lev_set(&x->infl, ts,
				ring_dist(l->v[DRVRING_K_NTU], l->v[DRVRING_K_NTC], ring));
	else if (fr)
		drvring_lev_set(&x->infl, ts,
			ring > l->v[DRVRING_K_FREE] ? (unsigned int)(ring - l->v[DRVRING_K_FREE])
						    : 0);
}

void drvring_clock_at(struct drvring *d, uint64_t ts)
{
	struct state *st = d->priv;

	if (!st->started) {
		d->t0 = ts;
		st->started = true;
	}
	if (ts > d->last_ts)
		d->last_ts = ts;
}

static int feed_line(struct drvring *d, uint64_t ts, int cpu, const struct drvring_line *l)
{
	struct queue *x;

	if (l->event == DRVRING_UNKNOWN) {
		d->unknown_events++;
		return 0;
	}
	x = drvring_queue_get(d, l);
	if (!x) {
		d->untracked_lines++;
		return d->n_queues < DRVRING_MAX_QUEUES ? -ENOMEM : 0;
	}
	switch (l->event) {
	case DRVRING_IRQ:
		on_irq(x, l, ts, cpu);
		break;
	case DRVRING_POLL_START:
	case DRVRING_POLL_END:
		on_poll(x, l, ts, cpu);
		break;
	case DRVRING_RX_DESC:
	case DRVRING_RX_HANDOFF:
		on_rx(d, x, l, ts, cpu);
		break;
	case DRVRING_RX_REFILL:
		on_refill(d, x, l, ts, cpu);
		break;
	default:
		on_tx(x, l, ts);
		break;
	}
	return 0;
}

int drvring_feed(struct drvring *d, uint64_t ts, int cpu, const char *text)
{
	struct drvring_line l;
	int ret = drvring_line_parse(text, &l);

	drvring_clock_at(d, ts);
	if (ret == -ENOENT)
		return ret;
	d->lines++;
	if (ret) {
		if (!d->bad_lines++)
			snprintf(d->bad_example, sizeof(d->bad_example), "%.*s",
				 (int)strcspn(text, "\n"), text);
		return ret;
	}
	return feed_line(d, ts, cpu, &l);
}

/* "drv_e1000e_poll_ret" -> driver 0, P_POLL_RET; -1 when not a fallback probe. */
int drvring_probe_parse(const char *event, int *drv, enum prole *role)
{
	static const char *const roles[] = { "poll", "poll_ret", "irq", "irq_tx",
					     "xmit", "refill",	 "rx" };
	const char *r;

	if (strncmp(event, "drv_", 4))
		return -1;
	for (*drv = 0; *drv < PROBE_DRIVERS; (*drv)++) {
		size_t n = strlen(probe_drivers[*drv]);

		if (!strncmp(event + 4, probe_drivers[*drv], n) && event[4 + n] == '_')
			break;
	}
	if (*drv == PROBE_DRIVERS)
		return -1;
	r = event + 5 + strlen(probe_drivers[*drv]);
	/* irq, irq_msi, irq_msix: receive interrupts; irq_tx, irq_tx_msix: transmit */
	if (!strncmp(r, "irq_tx", 6) && (!r[6] || r[6] == '_'))
		*role = P_IRQ_TX;
	else if (!strncmp(r, "irq", 3) && (!r[3] || r[3] == '_'))
		*role = P_IRQ;
	else {
		for (size_t i = 0; i < ARRAY_SIZE(roles); i++)
			if (!strcmp(r, roles[i])) {
				*role = (enum prole)i;
				return 0;
			}
		return -1;
	}
	return 0;
}

int drvring_probe_feed(struct drvring *d, uint64_t ts, int cpu, int drv, enum prole role,
		       uint64_t v)
{
	struct state *st = d->priv;
	struct drvring_line l = { .event = DRVRING_UNKNOWN };
	struct ppoll *pp = cpu >= 0 && cpu < DRVRING_MAX_CPUS ? &st->ppoll[drv][cpu] : NULL;
	struct queue *x;

	drvring_clock_at(d, ts);
	d->probe_events++;
	snprintf(l.driver, sizeof(l.driver), "%s", probe_drivers[drv]);
	snprintf(l.ifname, sizeof(l.ifname), "%s", probe_drivers[drv]);
	x = drvring_queue_get(d, &l);
	if (!x) {
		d->untracked_lines++;
		return d->n_queues < DRVRING_MAX_QUEUES ? -ENOMEM : 0;
	}
	x->pub->from_probes = true;
	st->q_probe_events[x - st->q]++;
	switch (role) {
	case P_POLL:
		l.event = DRVRING_POLL_START;
		l.v[DRVRING_K_BUDGET] = v;
		if (pp)
			*pp = (struct ppoll){ .open = true, .budget = v };
		break;
	case P_POLL_RET:
		/* A return without its entry (the trace began inside the poll): skipped. */
		if (!pp || !pp->open)
			return 0;
		l.event = DRVRING_POLL_END;
		l.v[DRVRING_K_WORK] = v;
		l.v[DRVRING_K_BUDGET] = pp->budget;
		l.v[DRVRING_K_REPOLL] = v >= pp->budget;
		if (v > pp->budget)
			l.v[DRVRING_K_WORK] = pp->budget;
		pp->open = false;
		break;
	case P_IRQ:
	case P_IRQ_TX:
		l.event = DRVRING_IRQ;
		l.has = K(DIR);
		l.v[DRVRING_K_DIR] = role == P_IRQ_TX;
		break;
	case P_XMIT:
		l.event = DRVRING_XMIT;
		l.v[DRVRING_K_LEN] = v;
		break;
	case P_RX:
		l.event = DRVRING_RX_HANDOFF;
		l.v[DRVRING_K_LEN] = v;
		break;
	default: /* P_REFILL: how many buffers it was asked for; not what it did */
		x->pub->s.refills++;
		x->pub->s.refill_want += v;
		return 0;
	}
	return feed_line(d, ts, cpu, &l);
}

int drvring_feed_probe(struct drvring *d, uint64_t ts, int cpu, const char *event, uint64_t value)
{
	enum prole role;
	int drv;

	if (drvring_probe_parse(event, &drv, &role))
		return -ENOENT;
	return drvring_probe_feed(d, ts, cpu, drv, role, value);
}

void drvring_lost(struct drvring *d, uint64_t ts)
{
	struct state *st = d->priv;

	drvring_clock_at(d, ts);
	for (size_t i = 0; i < d->n_queues; i++) {
		struct queue *x = &st->q[i];

		if (x->low) {
			x->ep.end_ts = ts;
			drvring_episode_keep(d, x, ts);
			x->low = false;
		}
		drvring_lev_forget(&x->fill, ts);
		drvring_lev_forget(&x->infl, ts);
		x->ntu_known = x->in_poll = x->desc_pending = false;
		x->refill_seen = x->irq_seen = false;
		x->skbs = 0;
		memset(x->irq_pending, 0, sizeof(x->irq_pending));
	}
	memset(st->ppoll, 0, sizeof(st->ppoll));
}
