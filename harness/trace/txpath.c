// SPDX-License-Identifier: GPL-2.0
/*
 * The transmit side of each NIC's driver layer (txpath.h): skbs followed
 * from net:net_dev_start_xmit to the driver's xmit line, net:net_dev_xmit
 * and their free.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "trace/tracefile.h"
#include "trace/tracepass.h"
#include "trace/txpath.h"
#include "lib/util.h"

#define RECORD_AGAIN "record it with netlab's default [trace] set (net:net_dev_start_xmit, net:net_dev_xmit, skb:consume_skb, skb:kfree_skb and the driver lines)"
#define DRV_SYSTEM "netlab_drv"
#define NETDEV_TX_OK_ 0
#define NETDEV_TX_BUSY_ 0x10
#define ETH_P_IP_ 0x0800
#define ETH_P_IPV6_ 0x86dd

enum ev { EV_START, EV_XMIT, EV_CONSUME, EV_KFREE, EV_N };

static const char *const ev_names[EV_N][2] = {
	[EV_START] = { "net", "net_dev_start_xmit" },
	[EV_XMIT] = { "net", "net_dev_xmit" },
	[EV_CONSUME] = { "skb", "consume_skb" },
	[EV_KFREE] = { "skb", "kfree_skb" },
};

/* A driver line event this reads: its xmit (descriptors written) or tx_done. */
struct drv_ev {
	int id;
	bool xmit;
	struct tep_format_field *name, *skb;
};

/* One open skb. */
struct skb {
	uint64_t addr;		/* 0: empty slot */
	uint32_t len;
	uint16_t segs;
	uint8_t dev;		/* index + 1 */
	uint8_t family;
	uint8_t traits;		/* T_* */
	bool desc;		/* its xmit line was seen */
	bool taken;		/* net_dev_xmit said NETDEV_TX_OK */
	bool freed;		/* freed before net_dev_xmit (without descriptors) */
	bool consumed;		/* ... by consume_skb */
};

enum { T_PARTIAL = 1, T_GSO = 2, T_NONLINEAR = 4 };
#define CHECKSUM_PARTIAL_ 3
#define PERIOD_MAX 16	/* periods 2..PERIOD_MAX are looked for */
#define LEN_SLOTS 65536

/*
 * Per device, for the pattern of its drops: every IP frame taken by length
 * (allocated at its first), and the dropped skbs' positions among the IP
 * skbs taken, by residue for each period.
 */
struct devacc {
	uint32_t *by_len;
	uint64_t ip_skbs;		/* IP skbs taken so far: the next one's position */
	uint64_t dropped;
	uint32_t residue[PERIOD_MAX + 1][PERIOD_MAX];	/* [period][position % period] */
};

/* Lengths counted for a struct txpath_lens. */
struct lentab {
	uint64_t count, min, max, other;
	size_t n;
	struct txpath_len e[TXPATH_LEN_TRACK];
};

struct state {
	struct tracefile *tf;
	struct tep_handle *tep;
	int id[EV_N];
	struct tep_format_field *skb[EV_N], *dev_name, *len, *proto, *segs, *gso_size, *rc,
		*location, *reason;
	struct drv_ev *drv;
	size_t n_drv;
	struct skb *tab;
	size_t cap, used;
	struct lentab no_desc[TXPATH_MAX_DEVS];
	struct devacc acc[TXPATH_MAX_DEVS];
	struct tep_format_field *ip_summed, *data_len;
	struct trace_seq seq;
};

struct txpath_pass {
	struct tracepass_slot slot;
	struct txpath *t;
	struct state st;
};

/* ---- the skb table -------------------------------------------------------------------- */

static size_t slot_of(const struct state *st, uint64_t addr)
{
	uint64_t h = addr * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 20) & (st->cap - 1);
}

static struct skb *skb_find(struct state *st, uint64_t addr)
{
	if (!st->cap || !addr)
		return NULL;
	for (size_t i = slot_of(st, addr);; i = (i + 1) & (st->cap - 1)) {
		if (st->tab[i].addr == addr)
			return &st->tab[i];
		if (!st->tab[i].addr)
			return NULL;
	}
}

static void skb_grow(struct state *st)
{
	size_t old = st->cap, cap = old ? old * 2 : 256;
	struct skb *tab = xcalloc(cap, sizeof(*tab)), *prev = st->tab;

	st->tab = tab;
	st->cap = cap;
	for (size_t i = 0; i < old; i++) {
		size_t j;

		if (!prev[i].addr)
			continue;
		for (j = slot_of(st, prev[i].addr); tab[j].addr; j = (j + 1) & (cap - 1))
			;
		tab[j] = prev[i];
	}
	free(prev);
}

/* A new entry for @addr (none open: the caller checked). */
static struct skb *skb_add(struct state *st, uint64_t addr)
{
	size_t i;

	if ((st->used + 1) * 2 > st->cap)
		skb_grow(st);
	for (i = slot_of(st, addr); st->tab[i].addr; i = (i + 1) & (st->cap - 1))
		;
	st->used++;
	memset(&st->tab[i], 0, sizeof(st->tab[i]));
	st->tab[i].addr = addr;
	return &st->tab[i];
}

/* Remove @k, moving later entries of its cluster back (linear probing). */
static void skb_del(struct state *st, struct skb *k)
{
	size_t i = (size_t)(k - st->tab), j = i;

	st->tab[i].addr = 0;
	st->used--;
	for (;;) {
		size_t home;

		j = (j + 1) & (st->cap - 1);
		if (!st->tab[j].addr)
			return;
		home = slot_of(st, st->tab[j].addr);
		/* j's entry may fill i when its home is not within (i, j] */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			st->tab[i] = st->tab[j];
			st->tab[j].addr = 0;
			i = j;
		}
	}
}

/* ---- lengths ---------------------------------------------------------------------------- */

static void len_add(struct lentab *t, uint64_t len, uint64_t n)
{
	if (!t->count || len < t->min)
		t->min = len;
	if (len > t->max)
		t->max = len;
	t->count += n;
	for (size_t i = 0; i < t->n; i++)
		if (t->e[i].len == len) {
			t->e[i].count += n;
			return;
		}
	if (t->n < TXPATH_LEN_TRACK)
		t->e[t->n++] = (struct txpath_len){ len, n };
	else
		t->other += n;
}

static int cmp_len(const void *a, const void *b)
{
	const struct txpath_len *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return (x->len > y->len) - (x->len < y->len);
}

static void lens_of(struct txpath_lens *o, struct lentab *t)
{
	memset(o, 0, sizeof(*o));
	o->count = t->count;
	o->min = t->min;
	o->max = t->max;
	o->other = t->count;
	if (t->n > 1)
		qsort(t->e, t->n, sizeof(*t->e), cmp_len);
	o->n = t->n < TXPATH_LEN_VALUES ? t->n : TXPATH_LEN_VALUES;
	for (size_t i = 0; i < o->n; i++) {
		o->top[i] = t->e[i];
		o->other -= t->e[i].count;
	}
}

/* ---- the records -------------------------------------------------------------------------- */

static uint64_t U(struct state *st, struct tep_record *rec, struct tep_format_field *f)
{
	return tracefile_u64(st->tf, rec, f);
}

/* A string field (fixed array or __data_loc) of @rec into @buf. */
static void str_field(struct tep_record *rec, const struct tep_format_field *f, char *buf, size_t n)
{
	unsigned int off, max;

	buf[0] = '\0';
	if (!f)
		return;
	off = f->offset;
	max = f->size;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		uint64_t v = 0;

		if (rec->size < 0 || (unsigned int)f->offset + 4 > (unsigned int)rec->size)
			return;
		memcpy(&v, (const char *)rec->data + f->offset, 4);
		off = v & 0xffff;
		max = (v >> 16) & 0xffff;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += f->offset + f->size;
	}
	if (rec->size < 0 || off + max > (unsigned int)rec->size)
		return;
	max = max < n - 1 ? max : (unsigned int)n - 1;
	memcpy(buf, (const char *)rec->data + off, max);
	buf[max] = '\0';
	buf[strnlen(buf, max)] = '\0';
}

/* Guest text kept for people: control bytes and non-ASCII become '?'. */
static void printable(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			*s = '?';
}

/* The device called @name: its index + 1, a new one if there is room; 0 when full. */
static uint8_t dev_of(struct txpath *t, const char *name)
{
	struct txpath_dev *d;

	if (!*name)
		return 0;
	for (size_t i = 0; i < t->n_devs; i++)
		if (!strcmp(t->devs[i].name, name))
			return (uint8_t)(i + 1);
	if (t->n_devs >= TXPATH_MAX_DEVS)
		return 0;
	d = &t->devs[t->n_devs++];
	snprintf(d->name, sizeof(d->name), "%s", name);
	printable(d->name);
	return (uint8_t)t->n_devs;
}

static bool is_ip(uint8_t family)
{
	return family == TXPATH_V4 || family == TXPATH_V6;
}

static void on_start(struct txpath *t, struct state *st, struct tep_record *rec)
{
	uint64_t addr = U(st, rec, st->skb[EV_START]), proto = U(st, rec, st->proto);
	uint64_t segs = U(st, rec, st->segs);
	char name[16];
	struct skb *k = skb_find(st, addr);
	uint8_t dev;

	str_field(rec, st->dev_name, name, sizeof(name));
	dev = dev_of(t, name);
	if (!dev) {
		t->other_devs++;
		return;
	}
	if (k)	/* requeued (NETDEV_TX_BUSY), or its free was not recorded: start again */
		skb_del(st, k);
	k = skb_add(st, addr);
	k->dev = dev;
	k->len = (uint32_t)U(st, rec, st->len);
	k->segs = (uint16_t)(U(st, rec, st->gso_size) && segs > 1 ? (segs > 65535 ? 65535 : segs) : 1);
	k->family = proto == ETH_P_IP_ ? TXPATH_V4 : proto == ETH_P_IPV6_ ? TXPATH_V6 : TXPATH_OTHER;
	k->traits = (U(st, rec, st->ip_summed) == CHECKSUM_PARTIAL_ ? T_PARTIAL : 0) |
		    (k->segs > 1 ? T_GSO : 0) | (U(st, rec, st->data_len) ? T_NONLINEAR : 0);
}

static void traits_add(struct txpath_traits *t, const struct skb *k)
{
	t->csum_partial += k->traits & T_PARTIAL ? k->segs : 0;
	t->gso += k->traits & T_GSO ? k->segs : 0;
	t->nonlinear += k->traits & T_NONLINEAR ? k->segs : 0;
}

/* An IP skb taken: its length, and its position for the period of the drops. */
static void taken_ip(struct state *st, struct txpath_dev *d, const struct skb *k, bool dropped)
{
	struct devacc *a = &st->acc[k->dev - 1];

	if (!a->by_len)
		a->by_len = xcalloc(LEN_SLOTS, sizeof(*a->by_len));
	a->by_len[k->len < LEN_SLOTS ? k->len : LEN_SLOTS - 1] += k->segs;
	traits_add(&d->handed_has, k);
	if (dropped) {
		traits_add(&d->no_desc_has, k);
		a->dropped++;
		for (unsigned int p = 2; p <= PERIOD_MAX; p++)
			a->residue[p][a->ip_skbs % p]++;
	}
	a->ip_skbs++;
}

/* The driver gave it back (busy), refused it, or took it. */
static void on_xmit(struct txpath *t, struct state *st, struct tep_record *rec)
{
	struct skb *k = skb_find(st, U(st, rec, st->skb[EV_XMIT]));
	uint64_t rc = U(st, rec, st->rc);
	struct txpath_dev *d;

	if (!k || k->taken)
		return;
	d = &t->devs[k->dev - 1];
	if (rc == NETDEV_TX_BUSY_) {
		d->busy++;
		return;
	}
	if (rc != NETDEV_TX_OK_) {
		d->refused++;
		skb_del(st, k);
		return;
	}
	k->taken = true;
	d->skbs++;
	d->gso_skbs += k->segs > 1;
	d->handed[k->family] += k->segs;
	if (!is_ip(k->family))
		goto done;
	taken_ip(st, d, k, !k->desc);
	if (!d->handed_len.count || k->len < d->handed_len.min)
		d->handed_len.min = k->len;
	if (k->len > d->handed_len.max)
		d->handed_len.max = k->len;
	d->handed_len.count += k->segs;
	if (k->desc) {
		d->desc += k->segs;
		/* completed before net_dev_xmit (e1000e cleans TX in its MSI-X interrupt) */
		if (k->freed)
			d->completed += k->segs;
	} else {
		/* taken without descriptors: dropped (only counted where the driver has lines) */
		d->no_desc += k->segs;
		if (k->freed && k->consumed)
			d->no_desc_consumed += k->segs;
		else if (k->freed)
			d->no_desc_freed += k->segs;
		len_add(&st->no_desc[k->dev - 1], k->len, k->segs);
		/* the driver has the skb no more: its free, if any, was before this */
		k->freed = true;
	}
done:
	if (k->freed)
		skb_del(st, k);
}

static void on_free(struct txpath *t, struct state *st, struct tep_record *rec, bool consume)
{
	struct skb *k = skb_find(st, U(st, rec, st->skb[consume ? EV_CONSUME : EV_KFREE]));
	struct txpath_dev *d;

	if (!k)
		return;
	d = &t->devs[k->dev - 1];
	if (!k->taken) {
		/* inside the driver's xmit, before net_dev_xmit: on_xmit() counts it */
		k->freed = true;
		k->consumed = consume;
		if (!consume && !k->desc && is_ip(k->family) && !d->freed_reason[0]) {
			const char *fn = tep_find_function(st->tep, U(st, rec, st->location));
			const char *s;

			trace_seq_reset(&st->seq);
			tep_print_event(st->tep, &st->seq, rec, "%s", TEP_PRINT_INFO);
			trace_seq_terminate(&st->seq);
			s = st->seq.buffer ? strstr(st->seq.buffer, "reason: ") : NULL;
			snprintf(d->freed_reason, sizeof(d->freed_reason), "%.*s",
				 s ? (int)strcspn(s + 8, " \n") : 1, s ? s + 8 : "-");
			printable(d->freed_reason);
			if (fn)
				snprintf(d->freed_at, sizeof(d->freed_at), "%s+0x%llx", fn,
					 (unsigned long long)(U(st, rec, st->location) -
							      tep_find_function_address(
								      st->tep, U(st, rec, st->location))));
		}
		return;
	}
	if (is_ip(k->family) && k->desc)
		d->completed += k->segs;
	skb_del(st, k);
}

/* A driver xmit or tx_done line: its skb on its device. */
static void on_drv(struct txpath *t, struct state *st, struct tep_record *rec,
		   const struct drv_ev *e)
{
	struct skb *k = skb_find(st, U(st, rec, e->skb));
	char name[16];
	uint8_t dev;

	t->lines++;
	if (!e->xmit)
		return;
	str_field(rec, e->name, name, sizeof(name));
	dev = dev_of(t, name);
	if (dev)
		t->devs[dev - 1].lines = true;
	if (k)
		k->desc = true;
}

static int on_record(struct tep_record *rec, int cpu, void *ctx)
{
	struct txpath_pass *s = ctx;
	struct txpath *t = s->t;
	struct state *st = &s->st;
	int type;

	t->events++;
	if (rec->missed_events)
		t->lost += rec->missed_events > 0 ? (uint64_t)rec->missed_events : 1;
	if (rec->size < 2)
		return 0;
	type = tep_data_type(st->tep, rec);
	if (type < 0)
		return 0;
	if (type == st->id[EV_START])
		on_start(t, st, rec);
	else if (type == st->id[EV_XMIT])
		on_xmit(t, st, rec);
	else if (type == st->id[EV_CONSUME])
		on_free(t, st, rec, true);
	else if (type == st->id[EV_KFREE])
		on_free(t, st, rec, false);
	else
		for (size_t i = 0; i < st->n_drv; i++)
			if (st->drv[i].id == type) {
				on_drv(t, st, rec, &st->drv[i]);
				break;
			}
	return 0;
}

/* ---- setup -------------------------------------------------------------------------------- */

/*
 * The field a driver line prints as "KEY=": its print format's conversions
 * in order, against its print arguments (driver-patches/: every value a
 * u64 field a..g, the interface the array "name").
 */
static struct tep_format_field *line_field(struct tep_event *ev, const char *key)
{
	const char *fmt = ev->print_fmt.format, *at = fmt ? strstr(fmt, key) : NULL;
	struct tep_print_arg *arg = ev->print_fmt.args;
	int n = 0;

	if (!at)
		return NULL;
	for (const char *p = fmt; p < at; p++)
		if (*p == '%' && p[1] != '%')
			n++;
		else if (*p == '%')
			p++;
	while (arg && n--)
		arg = arg->next;
	if (!arg || arg->type != TEP_PRINT_FIELD)
		return NULL;
	return tep_find_field(ev, arg->field.name);
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && !strcmp(s + n - m, tail);
}

static void drv_events_find(struct state *st)
{
	struct tep_event **evs = tep_list_events(st->tep, TEP_EVENT_SORT_ID);

	for (size_t i = 0; evs && evs[i]; i++) {
		struct tep_event *ev = evs[i];
		struct drv_ev e = { .id = ev->id };

		if (!ev->system || strcmp(ev->system, DRV_SYSTEM) ||
		    !(ends_with(ev->name, "_xmit") || ends_with(ev->name, "_tx_done")))
			continue;
		e.xmit = ends_with(ev->name, "_xmit");
		e.name = tep_find_field(ev, "name");
		e.skb = line_field(ev, " skb=");
		if (!e.skb)
			continue;
		st->drv = xrealloc_array(st->drv, st->n_drv + 1, sizeof(*st->drv));
		st->drv[st->n_drv++] = e;
	}
}

static int resolve(struct txpath *t, struct state *st)
{
	struct tep_event *ev[EV_N];

	for (int e = 0; e < EV_N; e++) {
		ev[e] = tracefile_event(st->tf, ev_names[e][0], ev_names[e][1]);
		st->id[e] = ev[e] ? ev[e]->id : -1;
		st->skb[e] = ev[e] ? tep_find_field(ev[e], "skbaddr") : NULL;
	}
	t->has_start = ev[EV_START] && st->skb[EV_START];
	t->has_xmit = ev[EV_XMIT] && st->skb[EV_XMIT];
	t->has_free = ev[EV_CONSUME] && ev[EV_KFREE];
	t->has_kfree = ev[EV_KFREE];
	if (!t->has_start || !t->has_xmit)
		return -ENODATA;
	st->dev_name = tep_find_field(ev[EV_START], "name");
	st->len = tep_find_field(ev[EV_START], "len");
	st->proto = tep_find_field(ev[EV_START], "protocol");
	st->segs = tep_find_field(ev[EV_START], "gso_segs");
	st->gso_size = tep_find_field(ev[EV_START], "gso_size");
	st->ip_summed = tep_find_field(ev[EV_START], "ip_summed");
	st->data_len = tep_find_field(ev[EV_START], "data_len");
	st->rc = tep_find_field(ev[EV_XMIT], "rc");
	if (ev[EV_KFREE]) {
		st->location = tep_find_field(ev[EV_KFREE], "location");
		st->reason = tep_find_field(ev[EV_KFREE], "reason");
	}
	drv_events_find(st);
	return 0;
}

int txpath_attach(struct tracepass *tp, struct txpath_pass **out, char **err)
{
	struct txpath_pass *s;
	int ret;

	*out = NULL;
	ret = tracepass_open(tp, RECORD_AGAIN, err);
	if (ret)
		return ret;
	s = xzalloc(sizeof(*s));
	s->t = xzalloc(sizeof(*s->t));
	s->t->path = xstrdup(tp->path);
	s->t->devs = xzalloc(TXPATH_MAX_DEVS * sizeof(*s->t->devs));
	s->st.tf = &tp->tf;
	s->st.tep = tp->tf.tep;
	trace_seq_init(&s->st.seq);
	if (resolve(s->t, &s->st)) {
		err_set(err, "cannot read trace '%s': it lacks net:net_dev_start_xmit or net:net_dev_xmit\nhint: " RECORD_AGAIN,
			tp->path);
		trace_seq_destroy(&s->st.seq);
		free(s->st.drv);
		txpath_free(s->t);
		free(s);
		return -ENODATA;
	}
	s->slot.cb = on_record;
	s->slot.ctx = s;
	tracepass_add(tp, &s->slot);
	*out = s;
	return 0;
}

/*
 * The smallest period the dropped skbs keep: all of them at one position
 * modulo it, and every skb at that position dropped (as many as there were
 * positions of that residue, within one at either end).
 */
static void period_of(struct txpath_dev *d, const struct devacc *a)
{
	if (a->dropped < 4)
		return;
	for (unsigned int p = 2; p <= PERIOD_MAX; p++)
		for (unsigned int r = 0; r < p; r++) {
			uint64_t at_r = a->ip_skbs / p + (r < a->ip_skbs % p);

			if (a->residue[p][r] != a->dropped || at_r > a->dropped + 1)
				continue;
			d->period = p;
			d->phase = r;
			return;
		}
}

static void finish(struct txpath *t, struct state *st)
{
	for (size_t i = 0; i < st->cap; i++) {
		struct skb *k = &st->tab[i];

		if (k->addr && k->taken && is_ip(k->family) && k->desc)
			t->devs[k->dev - 1].in_flight += k->segs;
	}
	for (size_t i = 0; i < t->n_devs; i++) {
		struct txpath_dev *d = &t->devs[i];
		struct devacc *a = &st->acc[i];

		lens_of(&d->no_desc_len, &st->no_desc[i]);
		for (uint64_t l = d->no_desc_len.min; a->by_len && d->no_desc_len.count &&
						      l <= d->no_desc_len.max && l < LEN_SLOTS; l++)
			d->handed_in_range += a->by_len[l];
		period_of(d, a);
	}
}

int txpath_collect(struct txpath_pass *s, struct txpath **out, char **err)
{
	int ret = tracepass_result(&s->slot, err);

	*out = NULL;
	if (!ret)
		finish(s->t, &s->st);
	if (ret == -ENOMEM)
		err_set(err, "cannot read trace '%s': %s", s->t->path, strerror(ENOMEM));
	if (ret)
		txpath_free(s->t);
	else
		*out = s->t;
	trace_seq_destroy(&s->st.seq);
	free(s->st.tab);
	free(s->st.drv);
	for (size_t i = 0; i < TXPATH_MAX_DEVS; i++)
		free(s->st.acc[i].by_len);
	free(s);
	return ret;
}

void txpath_free(struct txpath *t)
{
	if (!t)
		return;
	free(t->devs);
	free(t->path);
	free(t);
}

uint64_t txpath_dev_no_desc(const struct txpath_dev *d)
{
	return d->lines ? d->no_desc : 0;
}
