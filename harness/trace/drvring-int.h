/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the ring reader's two parts share: drvring.c (lines, levels, queues,
 * episodes and feeding them) and drvring-read.c (results, and reading a
 * trace.dat), which calls into it. Internal to them; drvring.h is the
 * interface.
 */
#ifndef NETLAB_DRVRING_INT_H
#define NETLAB_DRVRING_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "hist.h"
#include "trace/drvring.h"
#include "trace/tracefile.h"

#define FMT_CACHE 256

/* A level's accumulators: time per level, the series, the current level. */
struct lev {
	uint64_t *ns; /* [DRVRING_LEVELS + 1] */
	bool known;
	unsigned int cur;
	uint64_t since;
	uint64_t changes;
	unsigned int min, max;
	struct drvring_series *series;
};

/* Accumulators that NICs sum from their queues. */
enum { H_WORK, H_POLL, H_IRQ_POLL, H_DESC_STACK, H_REFILL_AGE, H_N };

/* The first DRVRING_NOHO_TRACK distinct values with their counts; later ones in other. */
struct vtab {
	size_t n;
	struct drvring_value e[DRVRING_NOHO_TRACK];
	uint64_t count, other, min, max;
};

struct acc {
	struct hist *h[H_N];
	struct vtab noho_len, noho_status; /* descriptors without a hand-off */
	uint64_t *fill_ns, *infl_ns;
	bool fill_seen, infl_seen;
	unsigned int fill_min, fill_max, infl_min, infl_max;
	uint64_t fill_changes, infl_changes;
};

struct queue {
	struct drvring_queue *pub;
	struct acc a;
	struct lev fill, infl;
	/* receive */
	bool ntu_known, has_rx_desc;
	unsigned int ntu;
	bool refill_seen, refill_failed;
	uint64_t refill_ts;
	unsigned int descs_since_refill;
	bool low;
	struct drvring_episode ep;
	bool desc_pending;
	uint64_t desc_ts, desc_skb, desc_len, desc_status;
	/*
	 * The period of the descriptors without a hand-off: each one's
	 * position among the queue's rx_desc lines, by residue modulo
	 * 2..DRVRING_PERIOD_MAX (drvring_period_of()).
	 */
	uint64_t desc_pos, noho_n;
	uint32_t noho_res[DRVRING_PERIOD_MAX + 1][DRVRING_PERIOD_MAX];
	uint32_t desc_has; /* K(LEN), K(STATUS) when the rx_desc line had them */
	/* NAPI */
	bool in_poll;
	int poll_cpu;
	uint64_t poll_ts;
	uint64_t irq_pending[DRVRING_MAX_CPUS];
	bool irq_seen;
	uint64_t irq_ts;
	/* transmit */
	int64_t skbs;
};
enum prole { P_POLL, P_POLL_RET, P_IRQ, P_IRQ_TX, P_XMIT, P_REFILL, P_RX, P_ROLES };

#define PROBE_DRIVERS DRVRING_PROBE_DRIVERS
#define PROBE_EVENTS 48
struct pev {
	int id, drv;
	enum prole role;
	struct tep_format_field *f;
};

/* The poll entry on a CPU that its return is waiting for. */
struct ppoll {
	bool open;
	uint64_t budget;
};

struct state {
	struct drvring_opts o;
	struct queue q[DRVRING_MAX_QUEUES];
	uint64_t q_probe_events[DRVRING_MAX_QUEUES];
	struct ppoll ppoll[PROBE_DRIVERS][DRVRING_MAX_CPUS];
	struct pev pev[PROBE_EVENTS];
	size_t n_pev;
	bool started;
	/* drvring_read */
	struct tracefile *tf;
	struct tep_handle *tep;
	int bprint_id, print_id;
	uint8_t *tp;	/* by event id: 1 for DRVRING_TP_SYSTEM's events */
	int tp_max;	/* the highest id tp holds, -1 when none */
	struct tep_format_field *fmt;
	struct {
		uint64_t fmt;
		bool ours;
	} fmts[FMT_CACHE];
	size_t n_fmts;
	struct trace_seq seq;
};

/* drvring.c, for drvring-read.c */
int drvring_acc_init(struct acc *a);
void drvring_acc_release(struct acc *a);
void drvring_acc_add(struct acc *to, const struct acc *from);
void drvring_range_add(struct drvring_range *to, const struct drvring_range *from);
void drvring_lev_close(struct lev *l, uint64_t ts);
bool drvring_worse(const struct drvring_episode *a, const struct drvring_episode *b, uint64_t end);
void drvring_episode_keep(struct drvring *d, struct queue *x, uint64_t end);
void drvring_desc_unhanded(struct queue *x);
void drvring_period_of(struct queue *x);
void drvring_clock_at(struct drvring *d, uint64_t ts);
int drvring_probe_parse(const char *event, int *drv, enum prole *role);
int drvring_probe_feed(struct drvring *d, uint64_t ts, int cpu, int drv, enum prole role,
		       uint64_t v);

#endif
