// SPDX-License-Identifier: GPL-2.0
/*
 * perf netdev-times in one streaming pass over a trace.dat (see netrx.h).
 *
 * State, per CPU: the stack of running hardware interrupt handlers, the
 * handlers that raised NET_RX since the last NET_RX softirq began (they are
 * that softirq's interrupts, however late it runs), and the softirq in
 * progress (its tree). An interrupt that raises NET_RX while a NET_RX softirq
 * runs belongs to the next one: net_rx_action() took its poll list at entry.
 * A raise outside any handler is NET_RX re-raising itself (inside the
 * softirq: budget or time used up) or process context (netif_rx,
 * napi_schedule from a thread); a softirq without interrupts is counted by
 * that cause.
 *
 * Skbs: one open-addressing table keyed by address holds each skb in flight,
 * its receive part (seen in netif_receive_skb, waiting for a copy and a free)
 * and its transmit part (queued, sent, waiting for the free). A new first
 * appearance of an address (napi_gro_receive_entry, a netif_receive_skb in
 * another softirq, net_dev_queue of an skb that was not being forwarded)
 * closes what the table held: addresses are reused without a free event
 * (GRO merges, the NAPI skb cache, TCP coalescing).
 *
 * Trees are small and short-lived: a tree that is not selected is freed when
 * its softirq exits, or, when selecting by copy latency, once its skbs are
 * copied or freed (at most OPEN_MAX trees or OPEN_AGE_NS wait for that).
 * Selected trees live in a bounded heap whose root is the least wanted one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <event-parse.h>
#include <trace-cmd.h>

#include "hist.h"
#include "lib/metrics.h"
#include "trace/netrx.h"
#include "trace/netrx-int.h"
#include "trace/tracefile.h"
#include "lib/util.h"


/* ---- fields and names ------------------------------------------------------ */

uint64_t netrx_fu(struct reader *r, struct tep_record *rec, int e, int i)
{
	return tracefile_u64(r->tf, rec, r->f[e][i]);
}

/* A string field (__data_loc or a fixed array) of a record; *n its length. */
const char *netrx_fstr(struct reader *r, struct tep_record *rec, int e, int i, size_t *n)
{
	struct tep_format_field *f = r->f[e][i];
	unsigned int off = f->offset, max = f->size;

	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		uint64_t v = netrx_fu(r, rec, e, i);

		off = v & 0xffff;
		max = v >> 16;
	}
	if (off + max > (unsigned int)rec->size) {
		*n = 0;
		return "";
	}
	*n = strnlen((const char *)rec->data + off, max);
	return (const char *)rec->data + off;
}

int netrx_dev_get(struct reader *r, const char *s, size_t n)
{
	struct netrx *nr = r->nr;
	size_t i;

	for (i = 0; i < nr->n_devs; i++)
		if (!strncmp(nr->devs[i].name, s, n) && !nr->devs[i].name[n])
			return (int)i;
	if (nr->n_devs == DEVS_MAX)
		return DEVS_MAX - 1; /* the last one stands for the rest */
	xgrow_array(&nr->devs, &r->devs_cap, i + 1, sizeof(*nr->devs));
	memset(&nr->devs[i], 0, sizeof(nr->devs[i]));
	nr->devs[i].name = xstrndup(s, n);
	for (int k = 0; k < H_DEV_N; k++)
		r->dh[i][k] = hist_new();
	nr->n_devs++;
	return (int)i;
}

size_t netrx_irq_get(struct reader *r, int irq, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < r->n_irqs; i++)
		if (r->irqs[i].irq == irq && !strncmp(r->irqs[i].name, s, n) && !r->irqs[i].name[n])
			return i;
	xgrow_array(&r->irqs, &r->irqs_cap, i + 1, sizeof(*r->irqs));
	r->irqs[i] = (struct irqent){ .irq = irq, .name = xstrndup(s, n) };
	r->n_irqs++;
	return i;
}

void netrx_record(struct reader *r, int dev, int h, uint64_t v)
{
	if (r->gh[h])
		hist_record(r->gh[h], v);
	if (dev >= 0 && r->dh[dev][h])
		hist_record(r->dh[dev][h], v);
}

/* ---- the skb table ---------------------------------------------------------- */

static size_t skb_slot(const struct reader *r, uint64_t addr)
{
	return (size_t)(((addr >> 6) * 0x9e3779b97f4a7c15ull) >> 24) & (r->skb_cap - 1);
}

struct skb *netrx_skb_find(struct reader *r, uint64_t addr)
{
	if (!r->skb_cap || !addr)
		return NULL;
	for (size_t j = skb_slot(r, addr);; j = (j + 1) & (r->skb_cap - 1)) {
		if (r->skbs[j].addr == addr)
			return &r->skbs[j];
		if (!r->skbs[j].addr)
			return NULL;
	}
}

static void skb_place(struct reader *r, const struct skb *s)
{
	size_t j = skb_slot(r, s->addr);

	while (r->skbs[j].addr)
		j = (j + 1) & (r->skb_cap - 1);
	r->skbs[j] = *s;
}

/* A new, zeroed entry for @addr (not in the table); NULL when the table is full. */
struct skb *netrx_skb_add(struct reader *r, uint64_t addr)
{
	if (!addr)
		return NULL;
	if (r->n_skbs >= NETRX_MAX_SKBS) {
		r->nr->skbs_untracked++;
		return NULL;
	}
	if ((r->n_skbs + 1) * 2 > r->skb_cap) {
		struct skb *old = r->skbs;
		size_t old_cap = r->skb_cap;

		r->skb_cap = old_cap ? old_cap * 2 : 1024;
		r->skbs = xcalloc(r->skb_cap, sizeof(*r->skbs));
		for (size_t i = 0; i < old_cap; i++)
			if (old[i].addr)
				skb_place(r, &old[i]);
		free(old);
	}
	skb_place(r, &(struct skb){ .addr = addr, .rx_dev = -1, .tx_dev = -1 });
	r->n_skbs++;
	return netrx_skb_find(r, addr);
}

/* Remove an entry, shifting back the ones after it in its probe run. */
void netrx_skb_del(struct reader *r, struct skb *s)
{
	size_t mask = r->skb_cap - 1, i = (size_t)(s - r->skbs), j = i;

	r->skbs[i].addr = 0;
	for (;;) {
		size_t k;

		j = (j + 1) & mask;
		if (!r->skbs[j].addr)
			break;
		k = skb_slot(r, r->skbs[j].addr);
		if ((j > i && (k <= i || k > j)) || (j < i && k <= i && k > j)) {
			r->skbs[i] = r->skbs[j];
			r->skbs[j].addr = 0;
			i = j;
		}
	}
	r->n_skbs--;
}

/* ---- selection --------------------------------------------------------------- */

bool netrx_tree_less(const struct heap *h, const void *a, const void *b)
{
	const struct tree *x = a, *y = b;

	if (h->sel != NETRX_FIRST && x->score != y->score)
		return x->score < y->score;
	return x->t.base_ts > y->t.base_ts;
}

static uint64_t tx_key(const struct netrx_tx *t)
{
	return t->qdisc_ns + t->dev_ns;
}

bool netrx_tx_less(const struct heap *h, const void *a, const void *b)
{
	const struct netrx_tx *x = a, *y = b;

	if (h->sel != NETRX_FIRST && tx_key(x) != tx_key(y))
		return tx_key(x) < tx_key(y);
	return x->queue_ts > y->queue_ts;
}

static void heap_swap(struct heap *h, size_t i, size_t j)
{
	void *t = h->v[i];

	h->v[i] = h->v[j];
	h->v[j] = t;
}

static void heap_down(struct heap *h, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;

		if (l < h->n && h->less(h, h->v[l], h->v[m]))
			m = l;
		if (l + 1 < h->n && h->less(h, h->v[l + 1], h->v[m]))
			m = l + 1;
		if (m == i)
			return;
		heap_swap(h, i, m);
		i = m;
	}
}

/* Would @x be kept? */
static bool heap_wants(const struct heap *h, const void *x)
{
	return h->n < h->cap || h->less(h, h->v[0], x);
}

/* Add @x (heap_wants() was true); returns the element pushed out, or NULL. */
static void *heap_put(struct heap *h, void *x)
{
	void *out = NULL;
	size_t i;

	if (h->n == h->cap) {
		out = h->v[0];
		h->v[0] = x;
		heap_down(h, 0);
		return out;
	}
	i = h->n++;
	h->v[i] = x;
	while (i && h->less(h, h->v[i], h->v[(i - 1) / 2])) {
		heap_swap(h, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	return NULL;
}

void netrx_tree_release(struct netrx_tree *t)
{
	for (size_t i = 0; i < t->n_ev; i++)
		free(t->ev[i].location);
	free(t->ev);
	free(t->irqs);
	free(t);
}

void netrx_open_unlink(struct reader *r, struct tree *t)
{
	if (!t->open)
		return;
	*(t->prev ? &t->prev->next : &r->open_head) = t->next;
	*(t->next ? &t->next->prev : &r->open_tail) = t->prev;
	t->open = false;
	t->prev = t->next = NULL;
	r->n_open--;
}

/* Free a tree nobody keeps, detaching the skbs that still point at it. */
static void tree_discard(struct reader *r, struct tree *t)
{
	for (size_t i = 0; i < t->t.n_ev; i++) {
		struct skb *s;

		if (t->t.ev[i].type != NETRX_EV_RX)
			continue;
		s = netrx_skb_find(r, t->t.ev[i].skb);
		if (s && s->tree == t && s->ev == i)
			s->tree = NULL;
	}
	netrx_open_unlink(r, t);
	netrx_tree_release(&t->t);
}

static bool tree_matches(const struct reader *r, const struct tree *t)
{
	const char *d = r->o->dev;

	if (!d || !*d)
		return true;
	for (size_t i = 0; i < t->t.n_irqs; i++)
		if (strstr(t->t.irqs[i].name, d))
			return true;
	for (size_t i = 0; i < t->t.n_ev; i++)
		if (strstr(r->nr->devs[t->t.ev[i].dev].name, d))
			return true;
	return false;
}

void netrx_tree_offer(struct reader *r, struct tree *t)
{
	netrx_open_unlink(r, t);
	t->score = r->o->select == NETRX_WORST_SOFTIRQ ? t->t.irq_softirq_ns : t->t.last_copy_ns;
	if (!heap_wants(&r->trees, t)) {
		tree_discard(r, t);
		return;
	}
	t = heap_put(&r->trees, t);
	if (t)
		tree_discard(r, t);
}

/* One of a closed tree's skbs was copied or freed, or will never be. */
void netrx_tree_resolved(struct reader *r, struct tree *t)
{
	if (t->unresolved)
		t->unresolved--;
	if (t->open && !t->unresolved)
		netrx_tree_offer(r, t);
}

/* The softirq of @c ended (at @ts, 0 when the trace did): select or free its tree. */
void netrx_softirq_close(struct reader *r, struct cpu *c, uint64_t ts)
{
	struct tree *t = c->cur;

	c->cur = NULL;
	if (!t)
		return;
	t->t.exit_ts = ts;
	if (t->t.cpu >= 0 && t->t.cpu < r->nr->cpus) {
		struct netrx_cpu *pc = &r->nr->per_cpu[t->t.cpu];
		uint64_t end = ts ? ts : c->last_sirq_ts;

		pc->softirqs++;
		pc->receive += t->frames != 0;
		pc->frames += t->frames;
		if (end > t->t.softirq_ts)
			pc->time_ns += end - t->t.softirq_ts;
	}
	if (!t->frames || !tree_matches(r, t)) {
		tree_discard(r, t);
		return;
	}
	r->nr->receive_trees++;
	if (r->o->select != NETRX_WORST_COPY || !t->unresolved) {
		netrx_tree_offer(r, t);
		return;
	}
	t->open = true;
	t->prev = r->open_tail;
	*(r->open_tail ? &r->open_tail->next : &r->open_head) = t;
	r->open_tail = t;
	r->n_open++;
	while (r->open_head &&
	       (r->n_open > OPEN_MAX || (ts && r->open_head->t.exit_ts + OPEN_AGE_NS < ts)))
		netrx_tree_offer(r, r->open_head);
}

void netrx_tx_offer(struct reader *r, const struct skb *s, bool freed, uint64_t ts)
{
	struct netrx_tx x = {
		.skb = s->addr,
		.queue_ts = s->q_ts,
		.dev = s->tx_dev,
		.len = s->len,
		.freed = freed,
		.free_ns = freed ? ts - s->xmit_ts : 0,
	};
	struct netrx_tx *p;

	if (s->start_ts) {
		x.qdisc_ns = s->start_ts - s->q_ts;
		x.dev_ns = s->xmit_ts - s->start_ts;
	}
	if (r->o->dev && *r->o->dev && !strstr(r->nr->devs[s->tx_dev].name, r->o->dev))
		return;
	if (!heap_wants(&r->tx, &x))
		return;
	p = xzalloc(sizeof(*p));
	*p = x;
	free(heap_put(&r->tx, p));
}

/* An address appears anew: what the entry held ends unseen. */
void netrx_skb_close(struct reader *r, struct skb *s, bool rx, bool tx)
{
	if (tx) {
		if (s->tx == TX_SENT)
			netrx_tx_offer(r, s, false, 0);
		s->tx = TX_NONE;
		s->start_ts = 0;
	}
	if (rx) {
		struct tree *t = s->tree;

		s->tree = NULL;
		if (t && !s->resolved)
			netrx_tree_resolved(r, t);
		s->rx = RX_NONE;
		s->copied = s->resolved = false;
	}
}
