// SPDX-License-Identifier: GPL-2.0
/*
 * The rings of instrumented NICs from netlab_drv lines (see drvring.h).
 *
 * State per queue: the fill and in-flight levels with the time they were
 * set (each change closes an interval: its length goes to the level's
 * counter and to the time series), the last refill, the open poll, the
 * pending descriptor and, per CPU, the first interrupt not yet served by a
 * poll. Nothing per line is kept.
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
#include "lib/util.h"
#include "nicmodel.h"


/* ---- lines ------------------------------------------------------------------------ */

static const char *const event_names[DRVRING_EVENTS] = {
	"irq",	     "poll_start", "poll_end", "rx_desc",  "rx_handoff",
	"rx_refill", "xmit",	   "tx_done",  "tx_clean",
};

static const char *const key_names[DRVRING_KEYS] = {
	"q",	"skb",	  "len",  "ring",   "ntu",    "ntc",  "idx",	 "fill", "alloc", "fail",
	"want", "budget", "work", "repoll", "status", "free", "cleaned", "pkts", "dir",
	"data_len", "proto",
};

#define K(k) (1u << DRVRING_K_##k)
/* Keys each event needs. */
static const uint32_t needs[DRVRING_EVENTS] = {
	[DRVRING_IRQ] = 0,
	[DRVRING_POLL_START] = K(Q) | K(BUDGET),
	[DRVRING_POLL_END] = K(Q) | K(WORK) | K(BUDGET),
	[DRVRING_RX_DESC] = K(Q) | K(SKB),
	[DRVRING_RX_HANDOFF] = K(Q) | K(SKB),
	[DRVRING_RX_REFILL] = K(Q) | K(RING) | K(FILL),
	[DRVRING_XMIT] = K(Q) | K(SKB),
	[DRVRING_TX_DONE] = K(Q) | K(SKB),
	[DRVRING_TX_CLEAN] = K(Q),
};

const char *drvring_event_name(enum drvring_event e)
{
	return e < DRVRING_EVENTS ? event_names[e] : "?";
}

static int word(const char **s, char *out, size_t size)
{
	size_t n = 0;

	while (**s == ' ')
		(*s)++;
	while (**s && **s != ' ' && **s != '\n') {
		if (n + 1 >= size)
			return -EINVAL;
		out[n++] = *(*s)++;
	}
	out[n] = '\0';
	return n ? 0 : -EINVAL;
}

static int number(const char *v, size_t n, bool pointer, uint64_t *out)
{
	int base = 10;
	uint64_t x = 0;

	if (n > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
		v += 2;
		n -= 2;
		base = 16;
		if (pointer && n > 1 && v[n - 1] == 'x')
			n--; /* libtraceevent's %px: "0x<hex>x" */
	} else if (pointer) {
		base = 16;
	}
	if (!n || n > (base == 16 ? 16 : 20))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		int c = v[i], d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -EINVAL;
		if (x > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return -EINVAL;
		x = x * (uint64_t)base + (uint64_t)d;
	}
	*out = x;
	return 0;
}

static int key_value(struct drvring_line *o, const char *key, size_t klen, const char *val,
		     size_t vlen)
{
	int k;

	for (k = 0; k < DRVRING_KEYS; k++)
		if (strlen(key_names[k]) == klen && !memcmp(key_names[k], key, klen))
			break;
	if (k == DRVRING_KEYS)
		return 0;
	if (k == DRVRING_K_DIR) {
		if (vlen != 2 || (memcmp(val, "rx", 2) && memcmp(val, "tx", 2)))
			return -EINVAL;
		o->v[k] = val[0] == 't';
	} else if (number(val, vlen, k == DRVRING_K_SKB, &o->v[k]) ||
		   (k == DRVRING_K_SKB && !o->v[k])) {
		return -EINVAL;
	}
	o->has |= 1u << k;
	return 0;
}

int drvring_line_parse(const char *text, struct drvring_line *out)
{
	static const char prefix[] = "netlab_drv: ";
	const char *s = strstr(text, prefix);
	char ev[24];
	int e;

	memset(out, 0, sizeof(*out));
	if (!s || (s != text && s[-1] != ' '))
		return -ENOENT;
	s += sizeof(prefix) - 1;
	if (word(&s, out->driver, sizeof(out->driver)) ||
	    word(&s, out->ifname, sizeof(out->ifname)) || word(&s, ev, sizeof(ev)) ||
	    strchr(ev, '='))
		return -EINVAL;
	for (e = 0; e < DRVRING_EVENTS && strcmp(ev, event_names[e]); e++)
		;
	out->event = (enum drvring_event)e;
	for (;;) {
		const char *key, *val;
		size_t klen, vlen;

		while (*s == ' ' || *s == '\n')
			s++;
		if (!*s)
			break;
		key = s;
		klen = strcspn(key, "= \n");
		if (key[klen] != '=' || !klen)
			return -EINVAL;
		val = key + klen + 1;
		vlen = strcspn(val, " \n");
		s = val + vlen;
		if (!vlen || key_value(out, key, klen, val, vlen))
			return -EINVAL;
	}
	if (e < DRVRING_EVENTS && (out->has & needs[e]) != needs[e])
		return -EINVAL;
	return 0;
}

/* ---- levels and series ------------------------------------------------------------- */
static void series_merge(struct drvring_series *s)
{
	for (size_t i = 0; i < DRVRING_SERIES / 2; i++) {
		struct drvring_bucket *a = &s->b[2 * i], *b = &s->b[2 * i + 1], m;

		m.ns = a->ns + b->ns;
		m.min = a->min < b->min ? a->min : b->min;
		m.max = a->max > b->max ? a->max : b->max;
		m.mean = m.ns ? (a->mean * (double)a->ns + b->mean * (double)b->ns) / (double)m.ns
			      : 0;
		s->b[i] = m;
	}
	for (size_t i = DRVRING_SERIES / 2; i < DRVRING_SERIES; i++)
		s->b[i] = (struct drvring_bucket){ .min = ~0u };
	s->n = (s->n + 1) / 2;
	s->width_ns *= 2;
}

/* The bucket of @ts, merging until it fits; NULL before t0. */
static struct drvring_bucket *series_at(struct drvring_series *s, uint64_t ts)
{
	size_t i;

	if (ts < s->t0)
		return NULL;
	while ((ts - s->t0) / s->width_ns >= DRVRING_SERIES)
		series_merge(s);
	i = (size_t)((ts - s->t0) / s->width_ns);
	if (i + 1 > s->n)
		s->n = i + 1;
	return &s->b[i];
}

/* The NAPI work bucket of @ts, merging pairs until it fits; NULL before t0. */
static struct drvring_napi_bucket *napi_at(struct drvring_napi_series *s, uint64_t ts)
{
	size_t i;

	if (ts < s->t0)
		return NULL;
	while ((ts - s->t0) / s->width_ns >= DRVRING_SERIES) {
		for (i = 0; i < DRVRING_SERIES / 2; i++) {
			const struct drvring_napi_bucket *a = &s->b[2 * i], *b = &s->b[2 * i + 1];

			s->b[i] = (struct drvring_napi_bucket){ .polls = a->polls + b->polls,
								.work = a->work + b->work,
								.max = a->max > b->max ? a->max : b->max };
		}
		memset(&s->b[DRVRING_SERIES / 2], 0, sizeof(s->b) / 2);
		s->n = (s->n + 1) / 2;
		s->width_ns *= 2;
	}
	i = (size_t)((ts - s->t0) / s->width_ns);
	if (i + 1 > s->n)
		s->n = i + 1;
	return &s->b[i];
}

static void bucket_level(struct drvring_bucket *b, unsigned int v, uint64_t ns)
{
	if (v < b->min)
		b->min = v;
	if (v > b->max)
		b->max = v;
	if (ns) {
		b->mean = (b->mean * (double)b->ns + (double)v * (double)ns) / (double)(b->ns + ns);
		b->ns += ns;
	}
}

/* Account [l->since, ts) at the current level. */
void drvring_lev_close(struct lev *l, uint64_t ts)
{
	uint64_t from = l->since;

	if (!l->known || ts <= from)
		return;
	l->ns[l->cur < DRVRING_LEVELS ? l->cur : DRVRING_LEVELS] += ts - from;
	series_at(l->series, ts - 1); /* merge first: bucket bounds below stay valid */
	while (from < ts) {
		struct drvring_bucket *b = series_at(l->series, from);
		uint64_t end = l->series->t0 + ((from - l->series->t0) / l->series->width_ns + 1) *
						       l->series->width_ns;

		if (!b)
			break;
		if (end > ts)
			end = ts;
		bucket_level(b, l->cur, end - from);
		from = end;
	}
	l->since = ts;
}

static void lev_set(struct lev *l, uint64_t ts, unsigned int v)
{
	struct drvring_bucket *b;

	drvring_lev_close(l, ts);
	if (!l->known || v < l->min)
		l->min = v;
	if (!l->known || v > l->max)
		l->max = v;
	if (!l->known || v != l->cur)
		l->changes++;
	l->known = true;
	l->cur = v;
	l->since = ts;
	b = series_at(l->series, ts);
	if (b)
		bucket_level(b, v, 0);
}

static void lev_forget(struct lev *l, uint64_t ts)
{
	drvring_lev_close(l, ts);
	l->known = false;
}

/* ---- queues --------------------------------------------------------------------- */


/* ---- the kprobe fallback --------------------------------------------------------- */

/* The fallback probes' drivers: guest/nicmodel.c, indexed as nic_models[]. */

int drvring_acc_init(struct acc *a)
{
	for (int h = 0; h < H_N; h++)
		if (!(a->h[h] = hist_new()))
			return -ENOMEM;
	a->fill_ns = xcalloc(DRVRING_LEVELS + 1, sizeof(*a->fill_ns));
	a->infl_ns = xcalloc(DRVRING_LEVELS + 1, sizeof(*a->infl_ns));
	return 0;
}

void drvring_acc_release(struct acc *a)
{
	for (int h = 0; h < H_N; h++)
		hist_free(a->h[h]);
	free(a->fill_ns);
	free(a->infl_ns);
	memset(a, 0, sizeof(*a));
}

static void hist_add(struct hist *to, const struct hist *from)
{
	if (!from->count)
		return;
	if (!to->count || from->min < to->min)
		to->min = from->min;
	if (from->max > to->max)
		to->max = from->max;
	to->count += from->count;
	to->sum += from->sum;
	for (size_t i = 0; i < HIST_BUCKETS; i++)
		to->buckets[i] += from->buckets[i];
}

static void minmax_add(bool *seen, unsigned int *mn, unsigned int *mx, bool fseen, unsigned int fmn,
		       unsigned int fmx)
{
	if (!fseen)
		return;
	if (!*seen || fmn < *mn)
		*mn = fmn;
	if (!*seen || fmx > *mx)
		*mx = fmx;
	*seen = true;
}

/* Widen [*mn, *mx] (unset unless @seen) to [lo, hi]. */
static void span_add(uint64_t *mn, uint64_t *mx, bool seen, uint64_t lo, uint64_t hi)
{
	if (!seen || lo < *mn)
		*mn = lo;
	if (!seen || hi > *mx)
		*mx = hi;
}

static void vtab_add(struct vtab *t, uint64_t v, uint64_t count)
{
	size_t i;

	span_add(&t->min, &t->max, t->count, v, v);
	t->count += count;
	for (i = 0; i < t->n && t->e[i].v != v; i++)
		;
	if (i < t->n)
		t->e[i].count += count;
	else if (t->n < DRVRING_NOHO_TRACK)
		t->e[t->n++] = (struct drvring_value){ .v = v, .count = count };
	else
		t->other += count;
}

/* Counts add up by value (other fills only once the table is full: from->n > 0). */
static void vtab_merge(struct vtab *to, const struct vtab *from)
{
	if (!from->count)
		return;
	for (size_t i = 0; i < from->n; i++)
		vtab_add(to, from->e[i].v, from->e[i].count);
	to->other += from->other;
	to->count += from->other;
	span_add(&to->min, &to->max, true, from->min, from->max);
}

void drvring_range_add(struct drvring_range *to, const struct drvring_range *from)
{
	if (!from->count)
		return;
	span_add(&to->min, &to->max, to->count, from->min, from->max);
	to->count += from->count;
}

void drvring_acc_add(struct acc *to, const struct acc *from)
{
	for (int h = 0; h < H_N; h++)
		hist_add(to->h[h], from->h[h]);
	vtab_merge(&to->noho_len, &from->noho_len);
	vtab_merge(&to->noho_status, &from->noho_status);
	for (size_t i = 0; i <= DRVRING_LEVELS; i++) {
		to->fill_ns[i] += from->fill_ns[i];
		to->infl_ns[i] += from->infl_ns[i];
	}
	minmax_add(&to->fill_seen, &to->fill_min, &to->fill_max, from->fill_seen, from->fill_min,
		   from->fill_max);
	minmax_add(&to->infl_seen, &to->infl_min, &to->infl_max, from->infl_seen, from->infl_min,
		   from->infl_max);
	to->fill_changes += from->fill_changes;
	to->infl_changes += from->infl_changes;
}

static struct queue *queue_get(struct drvring *d, const struct drvring_line *l)
{
	struct state *st = d->priv;
	int q = (int)l->v[DRVRING_K_Q]; /* 0 when absent (irq of a one-queue NIC) */
	struct drvring_queue *p;
	struct queue *x;

	for (size_t i = 0; i < d->n_queues; i++) {
		p = &d->queues[i];
		if (p->q == q && !strcmp(p->ifname, l->ifname) && !strcmp(p->driver, l->driver))
			return &st->q[i];
	}
	if (d->n_queues == DRVRING_MAX_QUEUES)
		return NULL;
	p = &d->queues[d->n_queues];
	x = &st->q[d->n_queues];
	memset(p, 0, sizeof(*p));
	snprintf(p->driver, sizeof(p->driver), "%s", l->driver);
	snprintf(p->ifname, sizeof(p->ifname), "%s", l->ifname);
	p->q = q;
	p->first = xcalloc(d->episodes, sizeof(*p->first));
	p->worst = xcalloc(d->episodes, sizeof(*p->worst));
	if (drvring_acc_init(&x->a)) {
		free(p->first);
		free(p->worst);
		drvring_acc_release(&x->a);
		return NULL;
	}
	for (struct drvring_series *s = &p->fill; s <= &p->inflight; s++) {
		s->t0 = d->t0;
		s->width_ns = st->o.bucket_ns;
		for (size_t i = 0; i < DRVRING_SERIES; i++)
			s->b[i].min = ~0u;
	}
	p->napi.t0 = d->t0;
	p->napi.width_ns = st->o.bucket_ns;
	x->pub = p;
	x->fill = (struct lev){ .ns = x->a.fill_ns, .series = &p->fill };
	x->infl = (struct lev){ .ns = x->a.infl_ns, .series = &p->inflight };
	d->n_queues++;
	return x;
}

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
	lev_set(&x->fill, ts, v);
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
		x->noho_n++;
		for (unsigned int p = 2; p <= DRVRING_PERIOD_MAX; p++)
			x->noho_res[p][x->desc_pos % p]++;
		if (x->desc_has & K(LEN))
			vtab_add(&x->a.noho_len, x->desc_len, 1);
		if (x->desc_has & K(STATUS))
			vtab_add(&x->a.noho_status, x->desc_status, 1);
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
	struct drvring_napi_bucket *nb;

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
	nb = napi_at(&x->pub->napi, ts);
	if (nb) {
		nb->polls++;
		nb->work += l->v[DRVRING_K_WORK];
		if (l->v[DRVRING_K_WORK] > nb->max)
			nb->max = l->v[DRVRING_K_WORK];
	}
	x->pub->napi.budget = l->v[DRVRING_K_BUDGET];
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
		if (l->v[DRVRING_K_STATUS] >> 24)
			s->rx_desc_errors++;
		drvring_desc_unhanded(x);
		x->desc_pos = s->rx_desc++;
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
		lev_set(&x->infl, ts, (unsigned int)x->skbs);
	else if (idx)
		lev_set(&x->infl, ts, ring_dist(l->v[DRVRING_K_NTU], l->v[DRVRING_K_NTC], ring));
	else if (fr)
		lev_set(&x->infl, ts,
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
	x = queue_get(d, l);
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
	for (*drv = 0; *drv < (int)nic_models_n; (*drv)++) {
		size_t n = strlen(nic_models[*drv].driver);

		if (!strncmp(event + 4, nic_models[*drv].driver, n) && event[4 + n] == '_')
			break;
	}
	if (*drv == (int)nic_models_n)
		return -1;
	r = event + 5 + strlen(nic_models[*drv].driver);
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

enum drvring_probe_at drvring_probe_at(const char *event, int *drv)
{
	enum prole role;

	if (drvring_probe_parse(event, drv, &role))
		return DRVRING_AT_NONE;
	switch (role) {
	case P_IRQ: return DRVRING_AT_IRQ;
	case P_POLL: return DRVRING_AT_POLL;
	case P_POLL_RET: return DRVRING_AT_POLL_RET;
	default: return DRVRING_AT_NONE;
	}
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
	snprintf(l.driver, sizeof(l.driver), "%s", nic_models[drv].driver);
	snprintf(l.ifname, sizeof(l.ifname), "%s", nic_models[drv].driver);
	x = queue_get(d, &l);
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
		lev_forget(&x->fill, ts);
		lev_forget(&x->infl, ts);
		x->ntu_known = x->in_poll = x->desc_pending = false;
		x->refill_seen = x->irq_seen = false;
		x->skbs = 0;
		memset(x->irq_pending, 0, sizeof(x->irq_pending));
	}
	memset(st->ppoll, 0, sizeof(st->ppoll));
}


/*
 * The smallest period the descriptors without a hand-off keep: all at one
 * position modulo it, and (within one) every descriptor at that position.
 */
void drvring_period_of(struct queue *x)
{
	uint64_t n = x->pub->s.rx_desc;

	if (x->noho_n < 4)
		return;
	for (unsigned int p = 2; p <= DRVRING_PERIOD_MAX; p++)
		for (unsigned int r = 0; r < p; r++) {
			uint64_t at_r = n / p + (r < n % p);

			if (x->noho_res[p][r] != x->noho_n || at_r > x->noho_n + 1)
				continue;
			x->pub->s.noho_period = p;
			x->pub->s.noho_phase = r;
			return;
		}
}
