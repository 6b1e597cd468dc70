/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the two parts of the netdev-times reader share: netrx.c (fields and
 * names, the skb table, selection) and netrx-ev.c (the events, setup and
 * results). Internal to them; netrx.h is the interface.
 */
#ifndef NETLAB_NETRX_INT_H
#define NETLAB_NETRX_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <event-parse.h>
#include <trace-cmd.h>

#include "hist.h"
#include "trace/netrx.h"
#include "trace/tracefile.h"

#define NS_PER_S 1000000000ull
#define NS_PER_US 1000ull
#define DEFAULT_N 5
#define VEC_NET_RX 3
#define IRQ_DEPTH 8
#define PENDING_MAX 64
#define DEVS_MAX 64
#define OPEN_MAX 1024
#define OPEN_AGE_NS NS_PER_S

#define RECORD_AGAIN                                                                               \
	"record it with netlab's default [trace] set (irq, napi, net and skb events), or trace-cmd record -e irq -e napi -e net -e skb"

enum {
	E_IRQ_ENTRY,
	E_IRQ_EXIT,
	E_RAISE,
	E_SIRQ_ENTRY,
	E_SIRQ_EXIT,
	E_NAPI,
	E_GRO,
	E_RECV,
	E_COPY_IOV,
	E_COPY_UDP,
	E_CONSUME_UDP,
	E_COPY_CSUM,
	E_CONSUME,
	E_KFREE,
	E_QUEUE,
	E_START,
	E_DEQUEUE,
	E_XMIT,
	E_N
};

enum { H_POLL, H_WORK, H_RX_COPY, H_TX_QDISC, H_TX_DEV, H_TX_FREE, H_DEV_N };

struct tree {
	struct netrx_tree t; /* first: netrx.trees points here */
	uint64_t frames; /* received skbs plus poll work: 0 is not a receive tree */
	uint64_t score;
	size_t unresolved; /* skbs neither copied nor freed yet */
	bool open; /* closed, waiting for its skbs (NETRX_WORST_COPY) */
	struct tree *prev, *next;
};

struct irqent {
	int irq;
	char *name;
	uint64_t raised;
	struct hist *h;
};

struct cpu {
	struct {
		size_t irq; /* index into reader.irqs */
		uint64_t ts;
		bool raised;
	} stack[IRQ_DEPTH];
	int depth;
	struct netrx_tree_irq pend[PENDING_MAX];
	int n_pend;
	bool repoll, other; /* NET_RX raised outside a handler, in / out of the softirq */
	struct tree *cur; /* the NET_RX softirq running */
	uint64_t last_poll_ts;
	uint64_t last_sirq_ts; /* the latest record in softirq context (a trace without softirq_exit) */
};

enum { RX_NONE, RX_GRO, RX_RECV };
enum { TX_NONE, TX_QUEUED, TX_SENT };

struct skb {
	uint64_t addr; /* 0: empty slot */
	uint64_t rx_ts, q_ts, start_ts, xmit_ts;
	struct tree *tree; /* the tree showing its receive, or NULL */
	uint32_t ev, len;
	int16_t rx_dev, tx_dev;
	uint8_t rx, tx;
	bool copied, resolved;
};

/* A bounded heap whose root is the least wanted element. */
struct heap {
	void **v;
	size_t n, cap;
	bool (*less)(const struct heap *h, const void *a, const void *b); /* a less wanted */
	enum netrx_select sel;
};

struct reader {
	struct netrx *nr;
	const struct netrx_opts *o;
	struct tracefile *tf;
	struct tep_handle *tep;
	int16_t *kind; /* event id -> E_*, -1 */
	int max_id;
	struct tep_format_field *f[E_N][4];
	bool has[E_N];
	struct cpu *cpus;
	struct irqent *irqs;
	size_t n_irqs, irqs_cap;
	size_t devs_cap;
	struct hist *dh[DEVS_MAX][H_DEV_N];
	struct hist *gh[H_DEV_N + 1]; /* plus irq -> softirq */
	struct skb *skbs;
	size_t skb_cap, n_skbs;
	struct heap trees, tx;
	struct tree *open_head, *open_tail;
	size_t n_open;
	bool started;
};

#define H_IRQ H_DEV_N

/* netrx.c */
uint64_t netrx_fu(struct reader *r, struct tep_record *rec, int e, int i);
const char *netrx_fstr(struct reader *r, struct tep_record *rec, int e, int i, size_t *n);
int netrx_dev_get(struct reader *r, const char *s, size_t n);
size_t netrx_irq_get(struct reader *r, int irq, const char *s, size_t n);
void netrx_record(struct reader *r, int dev, int h, uint64_t v);
struct skb *netrx_skb_find(struct reader *r, uint64_t addr);
struct skb *netrx_skb_add(struct reader *r, uint64_t addr);
void netrx_skb_del(struct reader *r, struct skb *s);
bool netrx_tree_less(const struct heap *h, const void *a, const void *b);
bool netrx_tx_less(const struct heap *h, const void *a, const void *b);
void netrx_tree_release(struct netrx_tree *t);
void netrx_open_unlink(struct reader *r, struct tree *t);
void netrx_tree_offer(struct reader *r, struct tree *t);
void netrx_tree_resolved(struct reader *r, struct tree *t);
void netrx_softirq_close(struct reader *r, struct cpu *c, uint64_t ts);
void netrx_tx_offer(struct reader *r, const struct skb *s, bool freed, uint64_t ts);
void netrx_skb_close(struct reader *r, struct skb *s, bool rx, bool tx);

#endif
