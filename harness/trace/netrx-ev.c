// SPDX-License-Identifier: GPL-2.0
/*
 * netdev-times per event, and reading a trace.dat from setup to results (see
 * netrx.c for the state kept, netrx.h for the model).
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
#include "trace/tracepass.h"
#include "lib/util.h"

/* The events read and, per event, the fields used (all required). */
static const struct {
	const char *sys, *name, *fields[4];
} evdefs[E_N] = {
	[E_IRQ_ENTRY] = { "irq", "irq_handler_entry", { "irq", "name" } },
	[E_IRQ_EXIT] = { "irq", "irq_handler_exit", { "irq" } },
	[E_RAISE] = { "irq", "softirq_raise", { "vec" } },
	[E_SIRQ_ENTRY] = { "irq", "softirq_entry", { "vec" } },
	[E_SIRQ_EXIT] = { "irq", "softirq_exit", { "vec" } },
	[E_NAPI] = { "napi", "napi_poll", { "dev_name", "work", "budget" } },
	[E_GRO] = { "net", "napi_gro_receive_entry", { "skbaddr", "len", "name" } },
	[E_RECV] = { "net", "netif_receive_skb", { "skbaddr", "len", "name" } },
	[E_COPY_IOV] = { "skb", "skb_copy_datagram_iovec", { "skbaddr" } },
	[E_COPY_UDP] = { "netlab", "udp_recv_skb", { "skb" } },
	[E_CONSUME_UDP] = { "netlab", "udp_consume", { "skb" } },
	[E_COPY_CSUM] = { "netlab", "skb_copy_csum", { "skb" } },
	[E_CONSUME] = { "skb", "consume_skb", { "skbaddr" } },
	[E_KFREE] = { "skb", "kfree_skb", { "skbaddr", "location" } },
	[E_QUEUE] = { "net", "net_dev_queue", { "skbaddr", "len", "name" } },
	[E_START] = { "net", "net_dev_start_xmit", { "skbaddr", "len", "name" } },
	[E_DEQUEUE] = { "qdisc", "qdisc_dequeue", { "skbaddr" } },
	[E_XMIT] = { "net", "net_dev_xmit", { "skbaddr", "len", "name", "rc" } },
};

/* ---- events -------------------------------------------------------------------- */

static void on_irq_entry(struct reader *r, struct cpu *c, struct tep_record *rec)
{
	size_t n, i;
	const char *name = netrx_fstr(r, rec, E_IRQ_ENTRY, 1, &n);

	i = netrx_irq_get(r, (int)(int32_t)netrx_fu(r, rec, E_IRQ_ENTRY, 0), name, n);
	/* Without exit events (or after a lost one) nesting is unknown. */
	if (!r->has[E_IRQ_EXIT] || c->depth == IRQ_DEPTH)
		c->depth = 0;
	c->stack[c->depth].irq = i;
	c->stack[c->depth].ts = rec->ts;
	c->stack[c->depth++].raised = false;
}

static void on_raise(struct reader *r, struct cpu *c, struct tep_record *rec)
{
	/* Without exit events, a handler is known to run only by the record's context. */
	if (!r->has[E_IRQ_EXIT] && !(tep_data_flags(r->tep, rec) & TRACE_FLAG_HARDIRQ))
		c->depth = 0;
	if (c->depth) {
		typeof(c->stack[0]) *top = &c->stack[c->depth - 1];

		if (top->raised || c->n_pend == PENDING_MAX)
			return;
		top->raised = true;
		r->irqs[top->irq].raised++;
		c->pend[c->n_pend++] = (struct netrx_tree_irq){
			.irq = (int)top->irq, .entry_ts = top->ts, /* name set at softirq entry */
		};
		return;
	}
	r->nr->raises_other++;
	if (c->cur)
		c->repoll = true;
	else
		c->other = true;
}

static void on_softirq_entry(struct reader *r, struct cpu *c, struct tep_record *rec)
{
	struct netrx *nr = r->nr;
	struct tree *t;

	if (c->cur)
		netrx_softirq_close(r, c, 0);
	t = xzalloc(sizeof(*t));
	t->t.cpu = rec->cpu;
	t->t.softirq_ts = t->t.base_ts = c->last_sirq_ts = rec->ts;
	snprintf(t->t.context, sizeof(t->t.context), "%s",
		 tep_data_comm_from_pid(r->tep, tep_data_pid(r->tep, rec)));
	nr->softirqs++;
	if (c->n_pend) {
		t->t.irqs = xzalloc(c->n_pend * sizeof(*t->t.irqs));
		for (int i = 0; i < c->n_pend; i++) {
			struct irqent *ie = &r->irqs[c->pend[i].irq];
			uint64_t d = rec->ts - c->pend[i].entry_ts;

			t->t.irqs[i] = c->pend[i];
			t->t.irqs[i].irq = ie->irq;
			t->t.irqs[i].name = ie->name;
			if (!ie->h)
				ie->h = hist_new();
			if (ie->h)
				hist_record(ie->h, d);
			netrx_record(r, -1, H_IRQ, d);
		}
		t->t.n_irqs = c->n_pend;
		t->t.base_ts = c->pend[0].entry_ts;
		t->t.irq_softirq_ns = rec->ts - t->t.base_ts;
		nr->softirqs_irq++;
	} else if (c->repoll) {
		nr->softirqs_repoll++;
	} else if (c->other) {
		nr->softirqs_other++;
	} else {
		nr->softirqs_unraised++;
	}
	c->n_pend = 0;
	c->repoll = c->other = false;
	/* Softirqs run after the handlers returned. */
	c->depth = 0;
	c->cur = t;
	c->last_poll_ts = rec->ts;
}

static struct netrx_ev *tree_add(struct tree *t, enum netrx_ev_type type, uint64_t ts, int dev)
{
	struct netrx_ev *e;

	if (t->t.n_ev == NETRX_TREE_MAX_EVENTS) {
		t->t.ev_dropped++;
		return NULL;
	}
	if (!(t->t.n_ev & (t->t.n_ev - 1)) || !t->t.n_ev) {
		size_t cap = t->t.n_ev ? t->t.n_ev * 2 : 4;

		t->t.ev = xrealloc_array(t->t.ev, cap, sizeof(*t->t.ev));
	}
	e = &t->t.ev[t->t.n_ev++];
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->ts = ts;
	e->dev = dev;
	return e;
}

static void on_napi_poll(struct reader *r, struct cpu *c, struct tep_record *rec)
{
	struct netrx *nr = r->nr;
	size_t n;
	const char *name = netrx_fstr(r, rec, E_NAPI, 0, &n);
	int dev = netrx_dev_get(r, name, n);
	int work = (int32_t)netrx_fu(r, rec, E_NAPI, 1),
	    budget = (int32_t)netrx_fu(r, rec, E_NAPI, 2);
	struct netrx_dev *d = &nr->devs[dev];
	struct netrx_ev *e;

	nr->polls++;
	d->polls++;
	if (work > 0) {
		nr->frames += work;
		d->frames += work;
	}
	netrx_record(r, dev, H_WORK, work > 0 ? (uint64_t)work : 0);
	if (budget > 0 && work >= budget) {
		nr->budget_exhausted++;
		d->budget_exhausted++;
	}
	if (!c->cur) {
		if (r->has[E_SIRQ_ENTRY]) {
			nr->polls_other++;
			d->polls_other++;
		}
		return;
	}
	netrx_record(r, dev, H_POLL, rec->ts - c->last_poll_ts);
	c->last_poll_ts = rec->ts;
	c->cur->frames += work > 0 ? work : 0;
	e = tree_add(c->cur, NETRX_EV_POLL, rec->ts, dev);
	if (e) {
		e->work = work;
		e->budget = budget;
	}
}

static void on_rx(struct reader *r, struct cpu *c, struct tep_record *rec, int k)
{
	struct netrx *nr = r->nr;
	uint64_t addr = netrx_fu(r, rec, k, 0);
	struct skb *s = netrx_skb_find(r, addr);
	bool primary = k == E_RECV || !r->has[E_RECV];
	struct netrx_ev *e;
	size_t n;
	const char *name;
	int dev;

	if (!addr)
		return;
	if (k == E_RECV && s && s->rx == RX_RECV && !s->copied && c->cur && s->tree == c->cur)
		return; /* the same skb again (an upper device), in the same softirq */
	if (!(k == E_RECV && s && s->rx == RX_GRO)) {
		if (s)
			netrx_skb_close(r, s, true, true);
		else
			s = netrx_skb_add(r, addr);
	}
	name = netrx_fstr(r, rec, k, 2, &n);
	dev = netrx_dev_get(r, name, n);
	if (s) {
		s->rx = primary ? RX_RECV : RX_GRO;
		s->rx_ts = rec->ts;
		s->rx_dev = (int16_t)dev;
	}
	if (!primary)
		return;
	nr->rx_skbs++;
	nr->devs[dev].rx_skbs++;
	if (!c->cur) {
		nr->rx_outside_softirq++;
		return;
	}
	c->cur->frames++;
	e = tree_add(c->cur, NETRX_EV_RX, rec->ts, dev);
	if (!e)
		return;
	e->skb = addr;
	e->len = (unsigned int)netrx_fu(r, rec, k, 1);
	if (s) {
		s->tree = c->cur;
		s->ev = (uint32_t)(c->cur->t.n_ev - 1);
		c->cur->unresolved++;
	}
}

static void on_copy(struct reader *r, struct tep_record *rec, int k)
{
	struct skb *s = netrx_skb_find(r, netrx_fu(r, rec, k, 0));
	struct tree *t;
	struct netrx_ev *e;
	int pid;

	if (!s || s->rx != RX_RECV || s->copied)
		return;
	s->copied = true;
	r->nr->rx_copied++;
	r->nr->devs[s->rx_dev].rx_copied++;
	netrx_record(r, s->rx_dev, H_RX_COPY, rec->ts - s->rx_ts);
	t = s->tree;
	if (!t)
		return;
	e = &t->t.ev[s->ev];
	pid = tep_data_pid(r->tep, rec);
	e->copy_ts = rec->ts;
	e->copy_event = evdefs[k].name;
	e->pid = pid;
	snprintf(e->comm, sizeof(e->comm), "%s", tep_data_comm_from_pid(r->tep, pid));
	if (rec->ts - t->t.base_ts > t->t.last_copy_ns)
		t->t.last_copy_ns = rec->ts - t->t.base_ts;
	if (!s->resolved) {
		s->resolved = true;
		netrx_tree_resolved(r, t);
	}
}

static char *location_name(struct reader *r, uint64_t addr)
{
	const char *fn = tep_find_function(r->tep, addr);

	if (!fn)
		return xasprintf("0x%llx", (unsigned long long)addr);
	return xasprintf("%s+0x%llx", fn,
			 (unsigned long long)(addr - tep_find_function_address(r->tep, addr)));
}

static void on_free(struct reader *r, struct tep_record *rec, int k)
{
	struct netrx *nr = r->nr;
	struct skb *s = netrx_skb_find(r, netrx_fu(r, rec, k, 0));
	struct tree *t;

	if (!s)
		return;
	if (s->tx == TX_SENT) {
		netrx_record(r, s->tx_dev, H_TX_FREE, rec->ts - s->xmit_ts);
		netrx_tx_offer(r, s, true, rec->ts);
	} else if (s->tx == TX_QUEUED) {
		nr->tx_dropped++;
		nr->devs[s->tx_dev].tx_dropped++;
	}
	if (s->rx == RX_RECV && !s->copied) {
		if (k == E_KFREE) {
			nr->rx_dropped++;
			nr->devs[s->rx_dev].rx_dropped++;
		} else {
			nr->rx_consumed++;
			nr->devs[s->rx_dev].rx_consumed++;
		}
	}
	t = s->tree;
	s->tree = NULL;
	if (t) {
		struct netrx_ev *e = &t->t.ev[s->ev];

		e->free = k == E_KFREE ? NETRX_FREE_KFREE : NETRX_FREE_CONSUME;
		e->free_ts = rec->ts;
		if (k == E_KFREE)
			e->location = location_name(r, netrx_fu(r, rec, k, 1));
		if (!s->resolved)
			netrx_tree_resolved(r, t);
	}
	netrx_skb_del(r, s);
}

static void on_tx(struct reader *r, struct tep_record *rec, int k)
{
	struct netrx *nr = r->nr;
	uint64_t addr = netrx_fu(r, rec, k, 0);
	struct skb *s = netrx_skb_find(r, addr);
	size_t n;
	const char *name;

	if (k != E_QUEUE) {
		if (!s || s->tx != TX_QUEUED)
			return;
		if (k == E_START || (k == E_DEQUEUE && !r->has[E_START]))
			s->start_ts = rec->ts;
		if (k != E_XMIT)
			return;
		if ((int32_t)netrx_fu(r, rec, k, 3)) {
			nr->tx_busy++;
			nr->devs[s->tx_dev].tx_busy++;
			return;
		}
		s->tx = TX_SENT;
		s->xmit_ts = rec->ts;
		nr->tx_packets++;
		nr->devs[s->tx_dev].tx_packets++;
		if (s->start_ts) {
			netrx_record(r, s->tx_dev, H_TX_QDISC, s->start_ts - s->q_ts);
			netrx_record(r, s->tx_dev, H_TX_DEV, rec->ts - s->start_ts);
		}
		return;
	}
	if (s) /* forwarding keeps a receive that is neither copied nor freed */
		netrx_skb_close(r, s, s->rx != RX_RECV || s->copied, true);
	else
		s = netrx_skb_add(r, addr);
	if (!s)
		return;
	name = netrx_fstr(r, rec, k, 2, &n);
	s->tx = TX_QUEUED;
	s->q_ts = rec->ts;
	s->tx_dev = (int16_t)netrx_dev_get(r, name, n);
	s->len = (uint32_t)netrx_fu(r, rec, k, 1);
}

static int on_record(struct tep_record *rec, int cpu, void *data)
{
	struct reader *r = data;
	struct netrx *nr = r->nr;
	struct cpu *c;
	int type, k;

	if (!r->started) {
		nr->t0 = rec->ts;
		r->started = true;
	}
	if (rec->ts > nr->last_ts)
		nr->last_ts = rec->ts;
	nr->events++;
	if (rec->cpu < 0 || rec->cpu >= nr->cpus)
		return 0;
	c = &r->cpus[rec->cpu];
	if (rec->missed_events) {
		nr->lost_gaps++;
		if (rec->missed_events > 0)
			nr->lost += rec->missed_events;
		c->depth = 0; /* handlers may have returned unseen */
	}
	if (rec->size < 2)
		return 0;
	type = tep_data_type(r->tep, rec);
	k = type < 0 || type > r->max_id ? -1 : r->kind[type];
	/*
	 * Without softirq_exit, a NET_RX softirq ends at its last record: the
	 * next record of that CPU outside softirq context, or the next softirq
	 * entry (softirqs do not nest on a CPU), closes it.
	 */
	if (!r->has[E_SIRQ_EXIT] && c->cur) {
		if (k == E_SIRQ_ENTRY || !(tep_data_flags(r->tep, rec) & TRACE_FLAG_SOFTIRQ))
			netrx_softirq_close(r, c, c->last_sirq_ts);
		else
			c->last_sirq_ts = rec->ts;
	}
	if (k < 0)
		return 0;
	switch (k) {
	case E_IRQ_ENTRY:
		on_irq_entry(r, c, rec);
		break;
	case E_IRQ_EXIT:
		if (c->depth)
			c->depth--;
		break;
	case E_RAISE:
	case E_SIRQ_ENTRY:
	case E_SIRQ_EXIT:
		if (netrx_fu(r, rec, k, 0) != VEC_NET_RX)
			break;
		if (k == E_RAISE)
			on_raise(r, c, rec);
		else if (k == E_SIRQ_ENTRY)
			on_softirq_entry(r, c, rec);
		else
			netrx_softirq_close(r, c, rec->ts);
		break;
	case E_NAPI:
		on_napi_poll(r, c, rec);
		break;
	case E_GRO:
	case E_RECV:
		on_rx(r, c, rec, k);
		break;
	case E_COPY_IOV:
	case E_COPY_UDP:
	case E_CONSUME_UDP:
	case E_COPY_CSUM:
		on_copy(r, rec, k);
		break;
	case E_CONSUME:
	case E_KFREE:
		on_free(r, rec, k);
		break;
	default:
		on_tx(r, rec, k);
		break;
	}
	return 0;
}

/* ---- setup and results ------------------------------------------------------- */

static int find_events(struct reader *r, const char *path, char **err)
{
	struct netrx *nr = r->nr;
	struct tep_event *ev[E_N];

	r->max_id = -1;
	for (int k = 0; k < E_N; k++) {
		ev[k] = tracefile_event(r->tf, evdefs[k].sys, evdefs[k].name);
		for (int i = 0; ev[k] && i < 4 && evdefs[k].fields[i]; i++) {
			r->f[k][i] = tep_find_field(ev[k], evdefs[k].fields[i]);
			if (!r->f[k][i])
				ev[k] = NULL; /* another kernel's format: not usable */
		}
		if (r->o->without_exits && (k == E_IRQ_EXIT || k == E_SIRQ_EXIT))
			ev[k] = NULL;
		r->has[k] = ev[k] != NULL;
		if (ev[k] && ev[k]->id > r->max_id)
			r->max_id = ev[k]->id;
	}
	nr->has_irq = r->has[E_IRQ_ENTRY] && r->has[E_RAISE];
	nr->has_softirq = r->has[E_SIRQ_ENTRY];
	nr->time_exact = r->has[E_SIRQ_EXIT];
	nr->has_napi = r->has[E_NAPI];
	nr->has_rx = r->has[E_RECV] || r->has[E_GRO];
	nr->has_copy = r->has[E_COPY_IOV] || r->has[E_COPY_UDP] || r->has[E_CONSUME_UDP] ||
		       r->has[E_COPY_CSUM];
	nr->has_free = r->has[E_CONSUME] || r->has[E_KFREE];
	nr->has_tx = r->has[E_QUEUE] && r->has[E_XMIT];
	if (!nr->has_irq && !nr->has_softirq && !nr->has_napi && !nr->has_rx && !nr->has_tx) {
		err_set(err,
			"cannot read trace '%s': it recorded none of the irq, softirq, napi and net events the NET_RX timeline needs\nhint: " RECORD_AGAIN,
			path);
		return -ENODATA;
	}
	r->kind = xrealloc_array(NULL, (size_t)r->max_id + 1, sizeof(*r->kind));
	for (int i = 0; i <= r->max_id; i++)
		r->kind[i] = -1;
	for (int k = 0; k < E_N; k++)
		if (ev[k])
			r->kind[ev[k]->id] = (int16_t)k;
	return 0;
}

static int cmp_tree(const void *a, const void *b)
{
	const struct netrx_tree *x = *(struct netrx_tree *const *)a,
				*y = *(struct netrx_tree *const *)b;

	if (x->base_ts != y->base_ts)
		return x->base_ts < y->base_ts ? -1 : 1;
	return x->cpu - y->cpu;
}

static int cmp_tx(const void *a, const void *b)
{
	const struct netrx_tx *x = a, *y = b;

	if (x->queue_ts != y->queue_ts)
		return x->queue_ts < y->queue_ts ? -1 : 1;
	return x->skb < y->skb ? -1 : x->skb > y->skb;
}

static int cmp_irq(const void *a, const void *b)
{
	const struct netrx_irq *x = a, *y = b;

	return x->irq != y->irq ? x->irq - y->irq : strcmp(x->name, y->name);
}

/* End of trace: close what is open, then turn heaps and histograms into results. */
static void finish(struct reader *r)
{
	struct netrx *nr = r->nr;
	static const int map[H_DEV_N] = {
		H_POLL, H_WORK, H_RX_COPY, H_TX_QDISC, H_TX_DEV, H_TX_FREE
	};
	struct hist_summary *gd[H_DEV_N + 1] = { &nr->poll,	&nr->work,   &nr->rx_copy,
					       &nr->tx_qdisc,	&nr->tx_dev, &nr->tx_free,
					       &nr->irq_softirq };

	for (int i = 0; i < nr->cpus; i++)
		netrx_softirq_close(r, &r->cpus[i], 0);
	for (size_t i = 0; i < r->skb_cap; i++)
		if (r->skbs[i].addr && r->skbs[i].tx == TX_SENT)
			netrx_tx_offer(r, &r->skbs[i], false, 0);
	while (r->open_head)
		netrx_tree_offer(r, r->open_head);
	nr->trees = xzalloc((r->trees.n + 1) * sizeof(*nr->trees));
	for (size_t i = 0; i < r->trees.n; i++)
		nr->trees[nr->n_trees++] = &((struct tree *)r->trees.v[i])->t;
	r->trees.n = 0;
	if (nr->n_trees > 1)	/* qsort(NULL, 0) is undefined */
		qsort(nr->trees, nr->n_trees, sizeof(*nr->trees), cmp_tree);
	nr->tx = xzalloc((r->tx.n + 1) * sizeof(*nr->tx));
	for (size_t i = 0; i < r->tx.n; i++)
		nr->tx[nr->n_tx++] = *(struct netrx_tx *)r->tx.v[i];
	if (nr->n_tx > 1)	/* qsort(NULL, 0) is undefined */
		qsort(nr->tx, nr->n_tx, sizeof(*nr->tx), cmp_tx);

	for (int h = 0; h <= H_DEV_N; h++)
		hist_summarize(r->gh[h], gd[h]);
	for (size_t i = 0; i < nr->n_devs; i++) {
		struct netrx_dev *d = &nr->devs[i];
		struct hist_summary *dd[H_DEV_N] = { &d->poll,	 &d->work,   &d->rx_copy,
						   &d->tx_qdisc, &d->tx_dev, &d->tx_free };

		for (int h = 0; h < H_DEV_N; h++)
			hist_summarize(r->dh[i][h], dd[map[h]]);
	}
	nr->irqs = xzalloc((r->n_irqs + 1) * sizeof(*nr->irqs));
	for (size_t i = 0; i < r->n_irqs; i++) {
		struct irqent *ie = &r->irqs[i];
		struct netrx_irq *q;

		if (!ie->raised)
			continue;
		q = &nr->irqs[nr->n_irqs++];
		q->irq = ie->irq;
		q->name = ie->name; /* the trees point at it */
		ie->name = NULL;
		q->raised = ie->raised;
		q->dev = -1;
		for (size_t d = 0; d < nr->n_devs && q->dev < 0; d++)
			if (strstr(q->name, nr->devs[d].name))
				q->dev = (int)d;
		hist_summarize(ie->h, &q->irq_softirq);
	}
	if (nr->n_irqs > 1)	/* qsort(NULL, 0) is undefined */
		qsort(nr->irqs, nr->n_irqs, sizeof(*nr->irqs), cmp_irq);
}

static int reader_init(struct reader *r)
{
	struct netrx *nr = r->nr;
	unsigned int n = r->o->n ? r->o->n : DEFAULT_N;

	nr->select = r->o->select;
	nr->n = n;
	r->cpus = xcalloc(nr->cpus > 0 ? nr->cpus : 1, sizeof(*r->cpus));
	nr->per_cpu = xcalloc(nr->cpus > 0 ? nr->cpus : 1, sizeof(*nr->per_cpu));
	r->trees = (struct heap){ .v = xcalloc(n, sizeof(void *)),
				  .cap = n,
				  .less = netrx_tree_less,
				  .sel = r->o->select };
	r->tx = (struct heap){
		.v = xcalloc(n, sizeof(void *)), .cap = n, .less = netrx_tx_less, .sel = r->o->select
	};
	for (int h = 0; h <= H_DEV_N; h++)
		if (!(r->gh[h] = hist_new()))
			return -ENOMEM;
	return 0;
}

static void reader_release(struct reader *r)
{
	for (int i = 0; r->cpus && i < r->nr->cpus; i++)
		if (r->cpus[i].cur)
			netrx_tree_release(&r->cpus[i].cur->t);
	while (r->open_head) {
		struct tree *t = r->open_head;

		netrx_open_unlink(r, t);
		netrx_tree_release(&t->t);
	}
	for (size_t i = 0; i < r->trees.n; i++)
		netrx_tree_release(r->trees.v[i]);
	for (size_t i = 0; i < r->tx.n; i++)
		free(r->tx.v[i]);
	free(r->trees.v);
	free(r->tx.v);
	for (size_t i = 0; i < r->n_irqs; i++) {
		free(r->irqs[i].name);
		hist_free(r->irqs[i].h);
	}
	free(r->irqs);
	for (size_t i = 0; i < DEVS_MAX; i++)
		for (int h = 0; h < H_DEV_N; h++)
			hist_free(r->dh[i][h]);
	for (int h = 0; h <= H_DEV_N; h++)
		hist_free(r->gh[h]);
	free(r->skbs);
	free(r->cpus);
	free(r->kind);
}

struct netrx_pass {
	struct tracepass_slot slot;
	struct reader r;
	struct netrx_opts o;
	const char *path;
};

/* Free @s; its result too unless @keep. */
static void pass_free(struct netrx_pass *s, bool keep)
{
	reader_release(&s->r);
	if (!keep)
		netrx_free(s->r.nr);
	free(s);
}

int netrx_attach(struct tracepass *tp, const struct netrx_opts *o, struct netrx_pass **out,
		 char **err)
{
	struct netrx_pass *s;
	struct netrx *nr;
	int ret;

	*out = NULL;
	ret = tracepass_open(tp, RECORD_AGAIN, err);
	if (ret)
		return ret;
	s = xzalloc(sizeof(*s));
	if (o)
		s->o = *o;
	s->path = tp->path;
	s->r.o = &s->o;
	nr = xzalloc(sizeof(*nr));
	nr->path = xstrdup(tp->path);
	nr->cpus = tp->tf.cpus;
	nr->buffers = tp->tf.n;
	s->r.nr = nr;
	s->r.tf = &tp->tf;
	s->r.tep = tp->tf.tep;
	ret = find_events(&s->r, tp->path, err);
	if (!ret)
		ret = reader_init(&s->r);
	if (ret) {
		if (ret == -ENOMEM)
			err_set(err, "cannot read trace '%s': %s", tp->path, strerror(ENOMEM));
		pass_free(s, false);
		return ret;
	}
	s->slot.cb = on_record;
	s->slot.ctx = &s->r;
	tracepass_add(tp, &s->slot);
	*out = s;
	return 0;
}

int netrx_collect(struct netrx_pass *s, struct netrx **out, char **err)
{
	int ret = tracepass_result(&s->slot, err);

	*out = NULL;
	if (ret) {
		if (ret == -ENOMEM)
			err_set(err, "cannot read trace '%s': %s", s->path, strerror(ENOMEM));
		pass_free(s, false);
		return ret;
	}
	finish(&s->r);
	*out = s->r.nr;
	pass_free(s, true);
	return 0;
}

void netrx_free(struct netrx *nr)
{
	if (!nr)
		return;
	for (size_t i = 0; i < nr->n_trees; i++)
		netrx_tree_release(nr->trees[i]);
	for (size_t i = 0; i < nr->n_devs; i++)
		free(nr->devs[i].name);
	for (size_t i = 0; i < nr->n_irqs; i++)
		free(nr->irqs[i].name);
	free(nr->trees);
	free(nr->tx);
	free(nr->devs);
	free(nr->per_cpu);
	free(nr->irqs);
	free(nr->path);
	free(nr);
}
