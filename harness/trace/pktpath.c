// SPDX-License-Identifier: GPL-2.0
/*
 * The packet path of a trace.dat: stage latency, flows, snoop, drops (see
 * pktpath.h for the model).
 *
 * Reading: event ids and fields are looked up once (find_events()); per
 * record, tep_data_type() indexes a table of our event kinds and numbers are
 * read with tracefile_u64(). Nothing per event is kept: open packets live in
 * an open-addressing table keyed by skb address (backward-shift deletion, so
 * no tombstones pile up), and latencies go to fixed-size log-linear
 * histograms (traffic/hist.h). Per process and per flow state grows with the
 * number of processes and flows only.
 *
 * Text is formatted with libtraceevent only where a number is not enough:
 * driver trace_printk lines (tep_print_event() on ftrace:bprint/print,
 * cached per format pointer so foreign lines are formatted once) and the
 * kfree_skb reason name (once per reason value: the kernel's own
 * __print_symbolic table, decoded by libtraceevent, as tracedrops does).
 *
 * Heuristics, stated where they are used: TCP control segments (no PSH and at
 * most 60 bytes of TCP) are taken as payload-less, since the probes do not
 * read the TCP data offset; a sendmsg stops matching ip_output once its task
 * has called recvmsg since.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <event-parse.h>
#include <trace-seq.h>
#include <trace-cmd.h>

#include "hist.h"
#include "scenario/metrics.h"
#include "trace/drvring.h"
#include "trace/pktpath.h"
#include "trace/tracefile.h"
#include "lib/util.h"

#define RECORD_AGAIN                                                                               \
	"record it with netlab's default [trace] set (its tracepoints and netlab:* kprobe events), or with trace-cmd record -e net -e skb and the netlab kprobe events"

#define AF_INET_ 2
#define IPPROTO_TCP_ 6
#define IPPROTO_UDP_ 17
#define ETH_P_IP_ 0x0800
#define IP_MF 0x2000
#define IP_OFFSET 0x1fff
#define TCP_PSH 0x08
#define IRQ_CONTEXT (TRACE_FLAG_HARDIRQ | TRACE_FLAG_SOFTIRQ | 0x40 /* NMI */)

/* ---- the events ------------------------------------------------------------ */

enum ev {
	EV_NONE,
	EV_BPRINT,
	EV_PRINT,
	EV_GRO,
	EV_NETIF,
	EV_IP_IN,
	EV_TCP_RCV,
	EV_UDP_RCV,
	EV_COPY_IOV,
	EV_UDP_RECV_SKB,
	EV_COPY_CSUM,
	EV_IP_OUT,
	EV_QUEUE,
	EV_START,
	EV_XMIT,
	EV_CONSUME,
	EV_KFREE,
	EV_TCP_SEND,
	EV_UDP_SEND,
	EV_TCP_RECV,
	EV_UDP_RECV,
	EV_RETRANS,
	EV_N
};

static const struct {
	const char *sys, *name;
	bool path; /* a packet-path event: without any, -ENODATA */
} events[EV_N] = {
	[EV_BPRINT] = { "ftrace", "bprint" },
	[EV_PRINT] = { "ftrace", "print" },
	[EV_GRO] = { "net", "napi_gro_receive_entry", true },
	[EV_NETIF] = { "net", "netif_receive_skb", true },
	[EV_IP_IN] = { "netlab", "ip_local_deliver", true },
	[EV_TCP_RCV] = { "netlab", "tcp_v4_rcv", true },
	[EV_UDP_RCV] = { "netlab", "udp_rcv", true },
	[EV_COPY_IOV] = { "skb", "skb_copy_datagram_iovec", true },
	[EV_UDP_RECV_SKB] = { "netlab", "udp_recv_skb", true },
	[EV_COPY_CSUM] = { "netlab", "skb_copy_csum", true },
	[EV_IP_OUT] = { "netlab", "ip_output", true },
	[EV_QUEUE] = { "net", "net_dev_queue", true },
	[EV_START] = { "net", "net_dev_start_xmit", true },
	[EV_XMIT] = { "net", "net_dev_xmit", true },
	[EV_CONSUME] = { "skb", "consume_skb" },
	[EV_KFREE] = { "skb", "kfree_skb" },
	[EV_TCP_SEND] = { "netlab", "tcp_sendmsg", true },
	[EV_UDP_SEND] = { "netlab", "udp_sendmsg", true },
	[EV_TCP_RECV] = { "netlab", "tcp_recvmsg" },
	[EV_UDP_RECV] = { "netlab", "udp_recvmsg" },
	[EV_RETRANS] = { "tcp", "tcp_retransmit_skb" },
};

struct evf {
	struct tep_event *ev;
	struct tep_format_field *skb, *len, *vihl, *frag, *proto, *saddr, *daddr, *sport, *dport,
		*flags, *family, *protocol, *data_len, *rc, *loc, *reason, *fmt;
};

/* Stages of a packet, per direction. */
enum { S_DRV, S_GRO, S_NET, S_IP, S_L4, S_COPY, S_N };
enum { T_IP, T_QUEUE, T_START, T_XMIT, T_FREE };

/* C_DONE: net_dev_xmit when the trace has no free events to end a transmission. */
enum close_how { C_COPY, C_DONE, C_CONSUME, C_KFREE, C_REUSE, C_END };

/* pkt.fl */
enum {
	F_V4 = 1,
	F_IP = 2,
	F_PORTS = 4,
	F_GUESSED = 8,
	F_FRAG = 16,
	F_FLAGS = 32,
	F_DRV = 64,
	F_TCP_L4 = 128,
	F_HEADLEN = 256,
};

struct pkt {
	uint64_t skb; /* the key; 0 for an empty slot */
	uint64_t ts[S_N]; /* per stage of its direction, 0 when not seen */
	uint64_t t_app; /* tx: the matched sendmsg */
	uint32_t saddr, daddr;
	uint16_t sport, dport;
	uint16_t ip_len, frag, headlen;
	uint16_t fl;
	uint8_t dir, stage, proto, vihl, tcpflags;
	uint32_t flow; /* index + 1, 0 for none */
	int pid; /* rx: the copying task; tx: the sending task; -1 */
};

/* Per task: its latest socket calls, for the sendmsg join. */
#define SENDS 4
struct tstate {
	struct {
		struct pktpath_tuple t;
		uint64_t ts;
	} send[SENDS];
	uint64_t last_recv;
	struct pktpath_tuple recv[2]; /* tcp, udp */
	bool has_recv[2];
	bool last_recv_udp; /* the latest recvmsg was udp_recvmsg */
};

struct loc_name {
	uint64_t addr;
	char *name;
	bool list; /* in kfree_skb_list_reason: a fragment freed with its packet */
};

struct reason_name {
	long long value;
	char *name;
};

struct fmt_kind {
	uint64_t fmt;
	int kind; /* 0 not ours, 1 rx_handoff, 2 another netlab_drv line */
};

/* Index hash: slots hold an array index + 1. */
struct ihash {
	uint32_t *slot;
	size_t cap, n;
};

struct reader {
	struct pktpath *p;
	const struct pktpath_opts *o;
	struct tracefile tf;
	struct tep_handle *tep;
	struct evf f[EV_N];
	uint8_t *kind; /* event id -> enum ev */
	int max_id;
	bool has_free; /* consume_skb or kfree_skb recorded */
	bool open_at[2][S_N]; /* may a packet open at this stage (no earlier stage recorded) */

	struct pkt *tab; /* open packets */
	size_t tab_cap, tab_n;

	struct tstate *ts; /* parallel to p->procs */
	size_t procs_cap;
	struct ihash proc_h;
	size_t flows_cap;
	struct ihash flow_h;
	struct pair {
		uint32_t saddr, daddr, flow;
		uint8_t proto;
	} * pairs;
	size_t n_pairs, pairs_cap;
	struct ihash pair_h;

	struct loc_name *locs;
	size_t n_locs, locs_cap;
	struct reason_name *reasons;
	size_t n_reasons, reasons_cap;
	struct fmt_kind fmts[64];
	size_t n_fmts;
	struct trace_seq seq;

	bool started;
	int rc;
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

static uint16_t swap16(uint64_t v)
{
	return (uint16_t)(((v & 0xff) << 8) | ((v >> 8) & 0xff));
}

/* ---- names ---------------------------------------------------------------- */

static const char *const rx_stage_names[] = { "drv_ip", "drv_net", "net_ip",  "ip_tcp",
					      "ip_udp", "tcp_app", "udp_app", "total" };
static const char *const tx_stage_names[] = {
	"app_ip", "ip_qdisc", "qdisc", "dev", "done", "total"
};
static const char *const outcome_names[] = {
	"followed",    "gro_merged", "reassembled", "dropped",	    "no_copy",	      "no_payload",
	"other_proto", "no_app",     "not_sent",    "missed_probe", "address_reused", "trace_ended",
};

int pktpath_stages(enum pktpath_dir dir)
{
	return dir == PKTPATH_RX ? PKTPATH_RX_STAGES : PKTPATH_TX_STAGES;
}

const char *pktpath_stage_name(enum pktpath_dir dir, int stage)
{
	if (stage < 0 || stage >= pktpath_stages(dir))
		return NULL;
	return dir == PKTPATH_RX ? rx_stage_names[stage] : tx_stage_names[stage];
}

const char *pktpath_outcome_name(enum pktpath_outcome o)
{
	return o < PKTPATH_OUTCOMES ? outcome_names[o] : "?";
}

char *pktpath_addr_str(uint32_t a, char *buf)
{
	snprintf(buf, 16, "%u.%u.%u.%u", a & 0xff, (a >> 8) & 0xff, (a >> 16) & 0xff, a >> 24);
	return buf;
}

char *pktpath_tcpflags_str(int flags, char *buf)
{
	static const char letters[] = "FSRPAU";

	if (flags < 0) {
		strcpy(buf, "-");
		return buf;
	}
	for (int i = 0; i < 6; i++)
		buf[i] = flags & (1 << i) ? letters[i] : '.';
	buf[6] = '\0';
	return buf;
}

/* One parser for the driver patches' lines: drvring's; this keeps what pktpath uses. */
int pktpath_drv_line_parse(const char *text, struct pktpath_drv_line *out)
{
	struct drvring_line l;
	int ret = drvring_line_parse(text, &l);

	memset(out, 0, sizeof(*out));
	out->q = -1;
	out->len = -1;
	if (ret)
		return ret;
	snprintf(out->driver, sizeof(out->driver), "%s", l.driver);
	snprintf(out->ifname, sizeof(out->ifname), "%s", l.ifname);
	snprintf(out->event, sizeof(out->event), "%s", drvring_event_name(l.event));
	if (l.has & (1u << DRVRING_K_Q))
		out->q = (int)l.v[DRVRING_K_Q];
	if (l.has & (1u << DRVRING_K_SKB))
		out->skb = l.v[DRVRING_K_SKB];
	if (l.has & (1u << DRVRING_K_LEN))
		out->len = (long long)l.v[DRVRING_K_LEN];
	return 0;
}

/* ---- small tables ----------------------------------------------------------- */

typedef bool (*ihash_eq)(const struct reader *r, uint32_t idx, const void *key);
typedef uint64_t (*ihash_of)(const struct reader *r, uint32_t idx);

/* Find @key; *slot is where it is or where it would go. Returns index or -1. */
static long ihash_find(const struct reader *r, const struct ihash *h, uint64_t hash, ihash_eq eq,
		       const void *key, size_t *slot)
{
	size_t j;

	for (j = hash & (h->cap - 1); h->slot[j]; j = (j + 1) & (h->cap - 1))
		if (eq(r, h->slot[j] - 1, key)) {
			*slot = j;
			return h->slot[j] - 1;
		}
	*slot = j;
	return -1;
}

/* Room for one more entry; the hashes of entries 0..n-1 come from @hash_of. */
static int ihash_reserve(struct reader *r, struct ihash *h, ihash_of hash_of)
{
	size_t cap = h->cap ? h->cap * 2 : 64;
	uint32_t *s;

	if ((h->n + 1) * 2 <= h->cap)
		return 0;
	s = calloc(cap, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (uint32_t i = 0; i < h->n; i++) {
		size_t j = hash_of(r, i) & (cap - 1);

		while (s[j])
			j = (j + 1) & (cap - 1);
		s[j] = i + 1;
	}
	free(h->slot);
	h->slot = s;
	h->cap = cap;
	return 0;
}

/* Processes, by pid. */
static uint64_t proc_hash(const struct reader *r, uint32_t i)
{
	return mix((uint64_t)r->p->procs[i].task.pid);
}

static bool proc_eq(const struct reader *r, uint32_t i, const void *key)
{
	return r->p->procs[i].task.pid == *(const int *)key;
}

static long proc_get(struct reader *r, int pid)
{
	struct pktpath *p = r->p;
	struct tstate *ts;
	size_t slot;
	long i;

	if (ihash_reserve(r, &r->proc_h, proc_hash))
		return -ENOMEM;
	i = ihash_find(r, &r->proc_h, mix((uint64_t)pid), proc_eq, &pid, &slot);
	if (i >= 0)
		return i;
	if (grow_array(&p->procs, &r->procs_cap, p->n_procs + 1, sizeof(*p->procs)))
		return -ENOMEM;
	ts = realloc(r->ts, r->procs_cap * sizeof(*r->ts));
	if (!ts)
		return -ENOMEM;
	r->ts = ts;
	memset(&p->procs[p->n_procs], 0, sizeof(*p->procs));
	memset(&r->ts[p->n_procs], 0, sizeof(*r->ts));
	p->procs[p->n_procs].task.pid = pid;
	p->procs[p->n_procs].task.comm = xstrdup(tep_data_comm_from_pid(r->tep, pid));
	r->proc_h.slot[slot] = (uint32_t)++p->n_procs;
	r->proc_h.n++;
	return (long)p->n_procs - 1;
}

/* Flows, by tuple. */
static uint64_t tuple_hash(const struct pktpath_tuple *t)
{
	return mix(((uint64_t)t->saddr << 32 | t->daddr) ^
		   mix((uint64_t)t->sport << 24 | (uint64_t)t->dport << 8 | t->proto));
}

static uint64_t flow_hash(const struct reader *r, uint32_t i)
{
	return tuple_hash(&r->p->flows[i].t);
}

static bool tuple_eq(const struct pktpath_tuple *a, const struct pktpath_tuple *b)
{
	return a->saddr == b->saddr && a->daddr == b->daddr && a->sport == b->sport &&
	       a->dport == b->dport && a->proto == b->proto && a->ports == b->ports;
}

static bool flow_eq(const struct reader *r, uint32_t i, const void *key)
{
	return tuple_eq(&r->p->flows[i].t, key);
}

/* The flow index + 1 of @t (created when new), 0 on ENOMEM. */
static uint32_t flow_get(struct reader *r, const struct pktpath_tuple *t)
{
	struct pktpath *p = r->p;
	size_t slot;
	long i;

	if (ihash_reserve(r, &r->flow_h, flow_hash))
		return 0;
	i = ihash_find(r, &r->flow_h, tuple_hash(t), flow_eq, t, &slot);
	if (i >= 0)
		return (uint32_t)i + 1;
	if (grow_array(&p->flows, &r->flows_cap, p->n_flows + 1, sizeof(*p->flows)))
		return 0;
	memset(&p->flows[p->n_flows], 0, sizeof(*p->flows));
	p->flows[p->n_flows].t = *t;
	r->flow_h.slot[slot] = (uint32_t)++p->n_flows;
	r->flow_h.n++;
	return (uint32_t)p->n_flows;
}

/* Address pairs -> the flow whose ports were last seen, for fragments. */
static uint64_t pair_key_hash(uint32_t s, uint32_t d, uint8_t proto)
{
	return mix(((uint64_t)s << 32 | d) ^ proto);
}

static uint64_t pair_hash(const struct reader *r, uint32_t i)
{
	return pair_key_hash(r->pairs[i].saddr, r->pairs[i].daddr, r->pairs[i].proto);
}

static bool pair_eq(const struct reader *r, uint32_t i, const void *key)
{
	const struct pkt *k = key;

	return r->pairs[i].saddr == k->saddr && r->pairs[i].daddr == k->daddr &&
	       r->pairs[i].proto == k->proto;
}

static int pair_set(struct reader *r, const struct pkt *k, uint32_t flow)
{
	size_t slot;
	long i;

	if (ihash_reserve(r, &r->pair_h, pair_hash))
		return -ENOMEM;
	i = ihash_find(r, &r->pair_h, pair_key_hash(k->saddr, k->daddr, k->proto), pair_eq, k,
		       &slot);
	if (i < 0) {
		if (grow_array(&r->pairs, &r->pairs_cap, r->n_pairs + 1, sizeof(*r->pairs)))
			return -ENOMEM;
		i = (long)r->n_pairs++;
		r->pairs[i].saddr = k->saddr;
		r->pairs[i].daddr = k->daddr;
		r->pairs[i].proto = k->proto;
		r->pair_h.slot[slot] = (uint32_t)i + 1;
		r->pair_h.n++;
	}
	r->pairs[i].flow = flow;
	return 0;
}

static uint32_t pair_flow(const struct reader *r, const struct pkt *k)
{
	size_t slot;
	long i;

	if (!r->pair_h.cap)
		return 0;
	i = ihash_find(r, &r->pair_h, pair_key_hash(k->saddr, k->daddr, k->proto), pair_eq, k,
		       &slot);
	return i < 0 ? 0 : r->pairs[i].flow;
}

static int task_add(struct pktpath_task **v, size_t *n, const struct pktpath_task *t)
{
	struct pktpath_task *q;

	if (*n && (*v)[*n - 1].pid == t->pid)
		return 0;
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].pid == t->pid)
			return 0;
	q = realloc(*v, (*n + 1) * sizeof(*q));
	if (!q)
		return -ENOMEM;
	*v = q;
	q[*n].pid = t->pid;
	q[(*n)++].comm = xstrdup(t->comm);
	return 0;
}

/* ---- open packets ------------------------------------------------------------ */

static size_t pkt_slot(const struct reader *r, uint64_t skb)
{
	return mix(skb) & (r->tab_cap - 1);
}

static struct pkt *pkt_find(struct reader *r, uint64_t skb)
{
	for (size_t j = pkt_slot(r, skb);; j = (j + 1) & (r->tab_cap - 1)) {
		if (r->tab[j].skb == skb)
			return &r->tab[j];
		if (!r->tab[j].skb)
			return NULL;
	}
}

static int pkt_rehash(struct reader *r, size_t cap)
{
	struct pkt *old = r->tab;
	size_t old_cap = r->tab_cap;

	r->tab = calloc(cap, sizeof(*r->tab));
	if (!r->tab) {
		r->tab = old;
		return -ENOMEM;
	}
	r->tab_cap = cap;
	for (size_t i = 0; i < old_cap; i++) {
		size_t j;

		if (!old[i].skb)
			continue;
		for (j = pkt_slot(r, old[i].skb); r->tab[j].skb; j = (j + 1) & (cap - 1))
			;
		r->tab[j] = old[i];
	}
	free(old);
	return 0;
}

/* A new packet for @skb (not in the table); NULL on ENOMEM. */
static struct pkt *pkt_new(struct reader *r, uint64_t skb, int dir, int stage, uint64_t ts)
{
	size_t j;

	if ((r->tab_n + 1) * 2 > r->tab_cap && pkt_rehash(r, r->tab_cap * 2)) {
		r->rc = -ENOMEM;
		return NULL;
	}
	for (j = pkt_slot(r, skb); r->tab[j].skb; j = (j + 1) & (r->tab_cap - 1))
		;
	memset(&r->tab[j], 0, sizeof(r->tab[j]));
	r->tab[j].skb = skb;
	r->tab[j].dir = (uint8_t)dir;
	r->tab[j].stage = (uint8_t)stage;
	r->tab[j].ts[stage] = ts;
	r->tab[j].pid = -1;
	r->tab_n++;
	return &r->tab[j];
}

/* Remove the packet at @k, shifting back the entries of its probe run. */
static void pkt_delete(struct reader *r, struct pkt *k)
{
	size_t mask = r->tab_cap - 1, i = (size_t)(k - r->tab), j = i;

	for (;;) {
		size_t h;

		j = (j + 1) & mask;
		if (!r->tab[j].skb)
			break;
		h = pkt_slot(r, r->tab[j].skb);
		/* Leave j where it is when its home h lies cyclically in (i, j]. */
		if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
			continue;
		r->tab[i] = r->tab[j];
		i = j;
	}
	r->tab[i].skb = 0;
	r->tab_n--;
}

/* ---- closing a packet: outcome, latencies, callbacks ------------------------ */

/* No PSH and at most 60 bytes of TCP: a control segment (the data offset is not probed). */
static bool tcp_control(const struct pkt *k)
{
	unsigned int ihl = (k->vihl & 0xf) * 4u;

	return (k->fl & F_FLAGS) && !(k->tcpflags & TCP_PSH) && k->ip_len <= ihl + 60;
}

/* A stage the trace records but the packet skipped: a missed kprobe. */
static bool rx_missed(const struct reader *r, const struct pkt *k)
{
	int l4 = k->proto == IPPROTO_TCP_ ? EV_TCP_RCV : k->proto == IPPROTO_UDP_ ? EV_UDP_RCV : 0;

	return (r->f[EV_NETIF].ev && !k->ts[S_NET]) || (r->f[EV_IP_IN].ev && !k->ts[S_IP]) ||
	       (k->ts[S_IP] && l4 && r->f[l4].ev && !k->ts[S_L4]);
}

static enum pktpath_outcome rx_outcome(const struct reader *r, const struct pkt *k,
				       enum close_how how, bool list_free)
{
	if (how == C_COPY)
		return rx_missed(r, k) ? PKTPATH_MISSED_PROBE : PKTPATH_FOLLOWED;
	if ((k->fl & F_FRAG) && k->stage < S_L4) {
		if (how == C_END)
			return PKTPATH_TRACE_ENDED;
		return how == C_KFREE && !list_free ? PKTPATH_DROPPED : PKTPATH_REASSEMBLED;
	}
	/*
	 * Freed in the list of another skb (a fragment, a reassembly clone):
	 * the address was reused silently after this packet was done.
	 */
	if (how == C_KFREE && list_free)
		how = C_REUSE;
	if (how == C_KFREE)
		return PKTPATH_DROPPED;
	if (k->stage <= S_GRO)
		return how == C_END ? PKTPATH_TRACE_ENDED : PKTPATH_GRO_MERGED;
	if ((k->fl & F_IP) && k->proto != IPPROTO_TCP_ && k->proto != IPPROTO_UDP_)
		return PKTPATH_OTHER_PROTO;
	if (k->stage >= S_L4 && k->proto == IPPROTO_TCP_ && tcp_control(k))
		return PKTPATH_NO_PAYLOAD;
	if (how == C_END)
		return PKTPATH_TRACE_ENDED;
	return how == C_CONSUME ? PKTPATH_NO_COPY : PKTPATH_ADDRESS_REUSED;
}

static enum pktpath_outcome tx_outcome(const struct pkt *k, enum close_how how)
{
	if (k->ts[T_FREE] || how == C_DONE)
		return k->t_app ? PKTPATH_FOLLOWED : PKTPATH_NO_APP;
	if (how == C_KFREE)
		return PKTPATH_DROPPED;
	if (how == C_CONSUME)
		return PKTPATH_NOT_SENT;
	return how == C_END ? PKTPATH_TRACE_ENDED : PKTPATH_ADDRESS_REUSED;
}

static int64_t span(uint64_t a, uint64_t b)
{
	return a && b && b >= a ? (int64_t)(b - a) : -1;
}

/* Latency per stage; the total only for packets followed end to end. */
static void stages_of(const struct pkt *k, bool followed, int64_t *ns)
{
	for (int i = 0; i < PKTPATH_MAX_STAGES; i++)
		ns[i] = -1;
	if (k->dir == PKTPATH_RX) {
		uint64_t h = k->ts[S_DRV] ? k->ts[S_DRV] : k->ts[S_GRO];
		bool tcp = k->fl & F_TCP_L4;

		ns[PKTPATH_RX_DRV_IP] = span(h, k->ts[S_IP]);
		ns[PKTPATH_RX_DRV_NET] = span(h, k->ts[S_NET]);
		ns[PKTPATH_RX_NET_IP] = span(k->ts[S_NET], k->ts[S_IP]);
		ns[tcp ? PKTPATH_RX_IP_TCP : PKTPATH_RX_IP_UDP] = span(k->ts[S_IP], k->ts[S_L4]);
		ns[tcp ? PKTPATH_RX_TCP_APP : PKTPATH_RX_UDP_APP] =
			span(k->ts[S_L4], k->ts[S_COPY]);
		ns[PKTPATH_RX_TOTAL] = followed ? span(h, k->ts[S_COPY]) : -1;
	} else {
		ns[PKTPATH_TX_APP_IP] = span(k->t_app, k->ts[T_IP]);
		ns[PKTPATH_TX_IP_QDISC] = span(k->ts[T_IP], k->ts[T_QUEUE]);
		ns[PKTPATH_TX_QDISC] = span(k->ts[T_QUEUE], k->ts[T_START]);
		ns[PKTPATH_TX_DEV] = span(k->ts[T_START], k->ts[T_XMIT]);
		ns[PKTPATH_TX_DONE] = span(k->ts[T_XMIT], k->ts[T_FREE]);
		ns[PKTPATH_TX_TOTAL] = span(k->t_app, k->ts[T_FREE]);
	}
}

static int stats_add(struct pktpath_stats *s, const struct pktpath_packet *pk)
{
	s->packets++;
	s->outcome[pk->outcome]++;
	if (pk->outcome == PKTPATH_FOLLOWED)
		s->followed++;
	for (int i = 0; i < pktpath_stages(pk->dir); i++) {
		if (pk->stage_ns[i] < 0)
			continue;
		if (!s->stage[i] && !(s->stage[i] = hist_new()))
			return -ENOMEM;
		hist_record(s->stage[i], (uint64_t)pk->stage_ns[i]);
	}
	return 0;
}

static void packet_of(const struct reader *r, const struct pkt *k, enum close_how how,
		      bool list_free, struct pktpath_packet *pk)
{
	const struct pktpath *p = r->p;

	*pk = (struct pktpath_packet){ .dir = k->dir, .skbaddr = k->skb, .tcpflags = -1 };
	pk->outcome = k->dir == PKTPATH_RX ? rx_outcome(r, k, how, list_free) : tx_outcome(k, how);
	pk->ts = k->ts[k->dir == PKTPATH_RX ? S_IP : T_IP];
	for (int i = 0; i < S_N && !pk->ts; i++)
		pk->ts = k->ts[i];
	pk->rel = pk->ts > p->t0 ? pk->ts - p->t0 : 0;
	pk->has_ip = k->fl & F_IP;
	pk->tuple = (struct pktpath_tuple){ .saddr = k->saddr,
					    .daddr = k->daddr,
					    .sport = k->sport,
					    .dport = k->dport,
					    .proto = k->proto,
					    .ports = k->fl & F_PORTS };
	if (k->flow) {
		pk->tuple = p->flows[k->flow - 1].t;
		pk->tuple_guessed = k->fl & F_GUESSED;
	}
	pk->ip_len = k->ip_len;
	pk->frag = k->frag;
	if (k->fl & F_FLAGS)
		pk->tcpflags = k->tcpflags;
	pk->handoff_drv = k->fl & F_DRV;
	stages_of(k, pk->outcome == PKTPATH_FOLLOWED, pk->stage_ns);
}

/* Count the packet, give it to the callbacks, and forget it. */
static int pkt_close(struct reader *r, struct pkt *k, enum close_how how, bool list_free)
{
	struct pktpath *p = r->p;
	struct pktpath_packet pk;
	long proc = -1;
	int ret = 0;

	if (!(k->fl & F_V4))
		goto out; /* not IPv4, or not known to be: not counted */
	packet_of(r, k, how, list_free, &pk);
	if (k->pid >= 0) {
		proc = proc_get(r, k->pid);
		if (proc < 0)
			goto nomem;
		pk.task = &p->procs[proc].task;
	}
	if (k->dir == PKTPATH_RX && (k->ts[S_DRV] || k->ts[S_GRO]) && k->stage > S_GRO) {
		if (k->fl & F_DRV)
			p->handoff_drv++;
		else
			p->handoff_napi++;
	}
	if (stats_add(&p->dir[k->dir], &pk))
		goto nomem;
	/* Per process: rx at the copy, tx at the sendmsg. */
	if (proc >= 0 && (k->dir == PKTPATH_RX ? how == C_COPY : k->t_app != 0) &&
	    stats_add(&p->procs[proc].dir[k->dir], &pk))
		goto nomem;
	if (r->o->on_packet)
		ret = r->o->on_packet(r->o->ctx, &pk);
	if (!ret && r->o->on_snoop && pk.has_ip)
		ret = r->o->on_snoop(r->o->ctx, &pk);
out:
	pkt_delete(r, k);
	r->rc = ret;
	return ret;
nomem:
	pkt_delete(r, k);
	r->rc = -ENOMEM;
	return -ENOMEM;
}

/*
 * The packet @skb at @stage of @dir: advance its open packet, or close that
 * one (the address was reused) and open a new one where packets may open.
 * *out is the packet, or NULL; returns nonzero to stop.
 */
static int advance(struct reader *r, uint64_t skb, int dir, int stage, uint64_t ts,
		   struct pkt **out)
{
	struct pkt *k;

	*out = NULL;
	if (!skb)
		return 0;
	k = pkt_find(r, skb);
	if (k) {
		/* start_xmit again after NETDEV_TX_BUSY: the same packet */
		if (k->dir == dir && (stage > k->stage || (dir == PKTPATH_TX && stage == T_START &&
							   k->stage == T_START))) {
			k->stage = (uint8_t)stage;
			k->ts[stage] = ts;
			*out = k;
			return 0;
		}
		if (pkt_close(r, k, C_REUSE, false))
			return -1;
	}
	if (!r->open_at[dir][stage])
		return 0;
	*out = pkt_new(r, skb, dir, stage, ts);
	return *out ? 0 : -1;
}

/* ---- per event ------------------------------------------------------------------ */

#define U(e, fld) tracefile_u64(&r->tf, rec, r->f[e].fld)

static bool in_irq(struct reader *r, struct tep_record *rec)
{
	return tep_data_flags(r->tep, rec) & IRQ_CONTEXT;
}

static bool l4_ports(uint8_t proto)
{
	return proto == IPPROTO_TCP_ || proto == IPPROTO_UDP_;
}

/* The IPv4 header fields of netlab:ip_local_deliver / ip_output, and the flow. */
static int ip_fields(struct reader *r, struct tep_record *rec, int e, struct pkt *k)
{
	struct pktpath *p = r->p;
	struct pktpath_flow *fl;
	struct pktpath_tuple t;
	bool frag, first, linear;
	uint32_t flow = 0;

	k->fl |= F_IP | F_V4;
	k->ip_len = (uint16_t)U(e, len);
	k->vihl = (uint8_t)U(e, vihl);
	k->frag = swap16(U(e, frag));
	k->proto = (uint8_t)U(e, proto);
	k->saddr = (uint32_t)U(e, saddr);
	k->daddr = (uint32_t)U(e, daddr);
	frag = k->frag & (IP_MF | IP_OFFSET);
	first = !(k->frag & IP_OFFSET);
	if (frag)
		k->fl |= F_FRAG;
	/*
	 * GRO does not pull a received first fragment up to its L4 header:
	 * unless the skb was all linear, the probe reads stale bytes there.
	 */
	linear = k->dir == PKTPATH_TX || !frag ||
		 ((k->fl & F_HEADLEN) && k->headlen >= 20 + (k->proto == IPPROTO_TCP_ ? 14 : 8));
	if (k->vihl == 0x45 && first && linear && l4_ports(k->proto)) {
		k->sport = swap16(U(e, sport));
		k->dport = swap16(U(e, dport));
		k->fl |= F_PORTS;
		if (k->proto == IPPROTO_TCP_) {
			k->tcpflags = (uint8_t)U(e, flags);
			k->fl |= F_FLAGS;
		}
	}
	t = (struct pktpath_tuple){ .saddr = k->saddr,
				    .daddr = k->daddr,
				    .proto = k->proto,
				    .sport = k->sport,
				    .dport = k->dport,
				    .ports = k->fl & F_PORTS };
	if (!(k->fl & F_PORTS) && l4_ports(k->proto)) {
		flow = pair_flow(r, k);
		if (flow)
			k->fl |= F_GUESSED;
	}
	if (!flow && !(flow = flow_get(r, &t)))
		return -ENOMEM;
	if ((k->fl & F_PORTS) && pair_set(r, k, flow))
		return -ENOMEM;
	k->flow = flow;
	fl = &p->flows[flow - 1];
	if (k->dir == PKTPATH_RX) {
		fl->rx_packets++;
		fl->rx_bytes += k->ip_len;
	} else {
		fl->tx_packets++;
		fl->tx_bytes += k->ip_len;
	}
	if (k->fl & F_GUESSED)
		fl->guessed++;
	return 0;
}

/* Does the socket of a sendmsg (@s) send the packet @k? */
static bool sock_sends(const struct pktpath_tuple *s, const struct pkt *k)
{
	return s->proto == k->proto && s->sport == k->sport &&
	       (!s->saddr || s->saddr == k->saddr) &&
	       (!s->daddr || (s->daddr == k->daddr && s->dport == k->dport));
}

/* The sendmsg of the task of an ip_output in process context. */
static int tx_app(struct reader *r, struct tep_record *rec, struct pkt *k)
{
	int pid = tep_data_pid(r->tep, rec);
	struct pktpath_flow *fl;
	struct tstate *st;
	long i;

	if (in_irq(r, rec) || pid <= 0)
		return 0;
	k->pid = pid;
	if (!(k->fl & F_PORTS) || (k->proto == IPPROTO_TCP_ && tcp_control(k)))
		return 0;
	i = proc_get(r, pid);
	if (i < 0)
		return -ENOMEM;
	st = &r->ts[i];
	for (int j = 0; j < SENDS; j++) {
		if (!st->send[j].ts || st->send[j].ts <= st->last_recv ||
		    !sock_sends(&st->send[j].t, k))
			continue;
		k->t_app = st->send[j].ts;
		fl = &r->p->flows[k->flow - 1];
		return task_add(&fl->senders, &fl->n_senders, &r->p->procs[i].task);
	}
	return 0;
}

static int sock_call(struct reader *r, struct tep_record *rec, int e)
{
	bool tcp = e == EV_TCP_SEND || e == EV_TCP_RECV;
	struct pktpath_tuple t = {
		.proto = tcp ? IPPROTO_TCP_ : IPPROTO_UDP_,
		.ports = true,
		.saddr = (uint32_t)U(e, saddr),
		.daddr = (uint32_t)U(e, daddr),
		.sport = (uint16_t)U(e, sport),
		.dport = swap16(U(e, dport)),
	};
	struct tstate *st;
	int j, old = 0;
	long i;

	if (r->f[e].family && U(e, family) != AF_INET_)
		return 0;
	i = proc_get(r, tep_data_pid(r->tep, rec));
	if (i < 0)
		return -ENOMEM;
	st = &r->ts[i];
	if (e == EV_TCP_RECV || e == EV_UDP_RECV) {
		st->last_recv = rec->ts;
		st->recv[!tcp] = t;
		st->has_recv[!tcp] = true;
		st->last_recv_udp = !tcp;
		return 0;
	}
	/* The same socket again, else the least recently used entry. */
	for (j = 0; j < SENDS; j++) {
		if (st->send[j].ts && tuple_eq(&st->send[j].t, &t))
			break;
		if (st->send[j].ts < st->send[old].ts)
			old = j;
	}
	j = j < SENDS ? j : old;
	st->send[j].t = t;
	st->send[j].ts = rec->ts;
	return 0;
}

/* The flow of the task's connected socket, to or from @k's addresses when known. */
static uint32_t sock_flow(struct reader *r, const struct tstate *st, struct pkt *k)
{
	int u = st->last_recv_udp;
	const struct pktpath_tuple *s = &st->recv[u];
	struct pktpath_tuple t = { .saddr = s->daddr,
				   .daddr = s->saddr,
				   .sport = s->dport,
				   .dport = s->sport,
				   .proto = s->proto,
				   .ports = true };
	uint32_t flow;

	if (!st->has_recv[u] || !s->daddr || !s->dport)
		return 0;
	if ((k->fl & F_IP) && (t.saddr != k->saddr || t.daddr != k->daddr || t.proto != k->proto))
		return 0;
	flow = flow_get(r, &t);
	return flow ? flow : (uint32_t)-1;
}

/*
 * The copy to the application: the receiver. A packet whose ports are
 * unknown, or whose IP event a missed kprobe lost, takes its flow from the
 * task's connected socket when the addresses match (its latest recvmsg).
 */
static int rx_copy(struct reader *r, struct tep_record *rec, struct pkt *k)
{
	struct pktpath *p = r->p;
	int pid = tep_data_pid(r->tep, rec);
	struct pktpath_flow *fl;
	uint32_t flow = 0;
	long i;

	if (in_irq(r, rec) || pid <= 0)
		return 0;
	k->pid = pid;
	i = proc_get(r, pid);
	if (i < 0)
		return -ENOMEM;
	if (!(k->fl & F_IP) || (!(k->fl & (F_PORTS | F_GUESSED)) && l4_ports(k->proto)))
		flow = sock_flow(r, &r->ts[i], k);
	if (flow == (uint32_t)-1)
		return -ENOMEM;
	if (flow && k->flow) {
		p->flows[k->flow - 1].rx_packets--;
		p->flows[k->flow - 1].rx_bytes -= k->ip_len;
		p->flows[flow - 1].rx_packets++;
		p->flows[flow - 1].rx_bytes += k->ip_len;
	}
	if (flow)
		k->flow = flow;
	if (!k->flow)
		return 0;
	fl = &p->flows[k->flow - 1];
	return task_add(&fl->receivers, &fl->n_receivers, &p->procs[i].task);
}

static const struct loc_name *location(struct reader *r, uint64_t addr)
{
	const char *fn;
	struct loc_name *l;

	for (size_t i = 0; i < r->n_locs; i++)
		if (r->locs[i].addr == addr)
			return &r->locs[i];
	if (grow_array(&r->locs, &r->locs_cap, r->n_locs + 1, sizeof(*r->locs)))
		return NULL;
	l = &r->locs[r->n_locs++];
	fn = tep_find_function(r->tep, addr);
	l->addr = addr;
	l->list = fn && !strcmp(fn, "kfree_skb_list_reason");
	l->name =
		fn ? xasprintf("%s+0x%llx", fn,
			       (unsigned long long)(addr - tep_find_function_address(r->tep, addr)))
		   : xasprintf("0x%llx", (unsigned long long)addr);
	return l;
}

/* The reason's name as libtraceevent prints the record ("... reason: NAME"). */
static const char *reason_name(struct reader *r, struct tep_record *rec, long long v)
{
	struct reason_name *n;
	const char *s;

	if (!r->f[EV_KFREE].reason)
		return "-";
	for (size_t i = 0; i < r->n_reasons; i++)
		if (r->reasons[i].value == v)
			return r->reasons[i].name;
	if (grow_array(&r->reasons, &r->reasons_cap, r->n_reasons + 1, sizeof(*r->reasons)))
		return NULL;
	trace_seq_reset(&r->seq);
	tep_print_event(r->tep, &r->seq, rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&r->seq);
	s = r->seq.buffer ? strstr(r->seq.buffer, "reason: ") : NULL;
	n = &r->reasons[r->n_reasons];
	n->value = v;
	n->name = s ? strndup(s + 8, strcspn(s + 8, " \n")) : xasprintf("%lld", v);
	if (!n->name)
		return NULL;
	r->n_reasons++;
	return n->name;
}

static int on_kfree(struct reader *r, struct tep_record *rec)
{
	struct pktpath *p = r->p;
	uint64_t skb = U(EV_KFREE, skb);
	struct pkt *k = skb ? pkt_find(r, skb) : NULL;
	const struct loc_name *loc = location(r, U(EV_KFREE, loc));
	struct pktpath_drop d = { .ts = rec->ts, .rel = rec->ts - p->t0, .skbaddr = skb };
	bool drop;

	if (!loc)
		return -ENOMEM;
	p->drops++;
	d.reassembly =
		k && k->dir == PKTPATH_RX && (k->fl & F_FRAG) && k->stage < S_L4 && loc->list;
	/* A list free is a fragment or a silently reused address, not a drop. */
	drop = k && !loc->list && (k->dir == PKTPATH_RX || k->stage < T_XMIT);
	if (d.reassembly)
		p->reassembly_frees++;
	if (drop && k->flow) {
		p->drops_in_flows++;
		p->flows[k->flow - 1].drops++;
	}
	if (r->o->on_drop) {
		d.protocol = (unsigned int)U(EV_KFREE, protocol);
		d.location = loc->addr;
		d.location_name = loc->name;
		d.reason = r->f[EV_KFREE].reason ? (long long)U(EV_KFREE, reason) : -1;
		d.reason_name = reason_name(r, rec, d.reason);
		if (!d.reason_name)
			return -ENOMEM;
		d.pid = tep_data_pid(r->tep, rec);
		d.flow = k && k->flow ? &p->flows[k->flow - 1].t : NULL;
		d.dir = k ? k->dir : PKTPATH_RX;
		r->rc = r->o->on_drop(r->o->ctx, &d);
		if (r->rc)
			return r->rc;
	}
	if (!k)
		return 0;
	if (k->dir == PKTPATH_TX && k->stage == T_XMIT)
		k->ts[T_FREE] = rec->ts; /* freed at completion, e.g. dev_kfree_skb_irq */
	return pkt_close(r, k, C_KFREE, loc->list);
}

static int on_consume(struct reader *r, struct tep_record *rec)
{
	uint64_t skb = U(EV_CONSUME, skb);
	struct pkt *k = skb ? pkt_find(r, skb) : NULL;

	if (!k)
		return 0;
	if (k->dir == PKTPATH_TX && k->stage == T_XMIT)
		k->ts[T_FREE] = rec->ts;
	return pkt_close(r, k, C_CONSUME, false);
}

static int on_retrans(struct reader *r, struct tep_record *rec)
{
	struct pktpath_tuple t = {
		.saddr = (uint32_t)U(EV_RETRANS, saddr),
		.daddr = (uint32_t)U(EV_RETRANS, daddr),
		.sport = (uint16_t)U(EV_RETRANS, sport),
		.dport = (uint16_t)U(EV_RETRANS, dport),
		.proto = IPPROTO_TCP_,
		.ports = true,
	};
	uint32_t flow;

	r->p->retransmits++;
	if (r->f[EV_RETRANS].family && U(EV_RETRANS, family) != AF_INET_)
		return 0;
	flow = flow_get(r, &t);
	if (!flow)
		return -ENOMEM;
	r->p->flows[flow - 1].retransmits++;
	return 0;
}

/* 0 not ours, 1 rx_handoff, 2 another netlab_drv line; the parsed line in @d. */
static int drv_line(struct reader *r, struct tep_record *rec, int e, struct pktpath_drv_line *d)
{
	uint64_t fmt = r->f[e].fmt ? U(e, fmt) : 0;
	size_t i;
	int ret, kind;

	for (i = 0; fmt && i < r->n_fmts; i++)
		if (r->fmts[i].fmt == fmt)
			break;
	if (fmt && i < r->n_fmts && r->fmts[i].kind != 1) {
		/*
		 * Formatted once: a trace_printk of someone else, or a driver
		 * line other than the hand-off (drvring reads those; here
		 * they are only counted, not formatted again).
		 */
		if (r->fmts[i].kind)
			r->p->drv_lines++;
		return 0;
	}
	trace_seq_reset(&r->seq);
	tep_print_event(r->tep, &r->seq, rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&r->seq);
	ret = r->seq.buffer ? pktpath_drv_line_parse(r->seq.buffer, d) : -ENOENT;
	kind = ret == -ENOENT ? 0 : !ret && !strcmp(d->event, "rx_handoff") ? 1 : 2;
	if (kind) {
		r->p->drv_lines++;
		if (ret)
			r->p->drv_bad_lines++;
	}
	if (fmt && i == r->n_fmts && r->n_fmts < ARRAY_SIZE(r->fmts))
		r->fmts[r->n_fmts++] = (struct fmt_kind){ .fmt = fmt, .kind = kind };
	return ret ? 0 : kind;
}

static int on_event(struct reader *r, struct tep_record *rec, int e)
{
	struct pktpath_drv_line d;
	struct pkt *k;
	int ret = 0;

	switch (e) {
	case EV_BPRINT:
	case EV_PRINT:
		if (drv_line(r, rec, e, &d) != 1)
			return 0;
		if (advance(r, d.skb, PKTPATH_RX, S_DRV, rec->ts, &k))
			return -1;
		if (k)
			k->fl |= F_DRV;
		return 0;
	case EV_GRO:
		if (advance(r, U(EV_GRO, skb), PKTPATH_RX, S_GRO, rec->ts, &k))
			return -1;
		if (k && U(EV_GRO, protocol) != ETH_P_IP_) {
			pkt_delete(r, k); /* ARP, IPv6: not followed */
			return 0;
		}
		if (k) {
			k->fl |= F_V4;
			if (r->f[EV_GRO].data_len) {
				uint64_t len = U(EV_GRO, len), dl = U(EV_GRO, data_len);

				k->headlen = (uint16_t)(len > dl ? (len - dl > 0xffff ? 0xffff
										      : len - dl)
								 : 0);
				k->fl |= F_HEADLEN;
			}
		}
		return 0;
	case EV_NETIF:
		return advance(r, U(EV_NETIF, skb), PKTPATH_RX, S_NET, rec->ts, &k) ? -1 : 0;
	case EV_IP_IN:
		if (advance(r, U(EV_IP_IN, skb), PKTPATH_RX, S_IP, rec->ts, &k))
			return -1;
		ret = k ? ip_fields(r, rec, EV_IP_IN, k) : 0;
		break;
	case EV_TCP_RCV:
	case EV_UDP_RCV:
		if (advance(r, U(e, skb), PKTPATH_RX, S_L4, rec->ts, &k))
			return -1;
		if (k && e == EV_TCP_RCV)
			k->fl |= F_TCP_L4;
		return 0;
	case EV_COPY_IOV:
	case EV_UDP_RECV_SKB:
	case EV_COPY_CSUM:
		if (advance(r, U(e, skb), PKTPATH_RX, S_COPY, rec->ts, &k))
			return -1;
		if (!k)
			return 0;
		ret = rx_copy(r, rec, k);
		if (!ret)
			return pkt_close(r, k, C_COPY, false) ? -1 : 0;
		break;
	case EV_IP_OUT:
		if (advance(r, U(EV_IP_OUT, skb), PKTPATH_TX, T_IP, rec->ts, &k))
			return -1;
		if (k) {
			ret = ip_fields(r, rec, EV_IP_OUT, k);
			if (!ret)
				ret = tx_app(r, rec, k);
		}
		break;
	case EV_QUEUE:
		return advance(r, U(EV_QUEUE, skb), PKTPATH_TX, T_QUEUE, rec->ts, &k) ? -1 : 0;
	case EV_START:
		return advance(r, U(EV_START, skb), PKTPATH_TX, T_START, rec->ts, &k) ? -1 : 0;
	case EV_XMIT:
		/* Not sent (NETDEV_TX_BUSY): the packet stays at start_xmit. */
		if (r->f[EV_XMIT].rc && U(EV_XMIT, rc) != 0)
			return 0;
		if (advance(r, U(EV_XMIT, skb), PKTPATH_TX, T_XMIT, rec->ts, &k))
			return -1;
		/* Without free events, transmission ends at the device. */
		if (k && !r->has_free)
			return pkt_close(r, k, C_DONE, false) ? -1 : 0;
		return 0;
	case EV_CONSUME:
		ret = on_consume(r, rec);
		return ret ? -1 : 0;
	case EV_KFREE:
		ret = on_kfree(r, rec);
		if (ret && !r->rc)
			r->rc = ret;
		return ret ? -1 : 0;
	case EV_TCP_SEND:
	case EV_UDP_SEND:
	case EV_TCP_RECV:
	case EV_UDP_RECV:
		ret = sock_call(r, rec, e);
		break;
	case EV_RETRANS:
		ret = on_retrans(r, rec);
		break;
	}
	if (ret) {
		r->rc = ret;
		return -1;
	}
	return 0;
}

static int on_record(struct tep_record *rec, int cpu, void *data)
{
	struct reader *r = data;
	struct pktpath *p = r->p;
	int type;

	if (!r->started) {
		p->t0 = rec->ts;
		r->started = true;
	}
	if (rec->ts > p->last_ts)
		p->last_ts = rec->ts;
	p->events++;
	if (rec->missed_events) {
		p->lost_gaps++;
		if (rec->missed_events > 0)
			p->lost += rec->missed_events;
		else
			p->lost_unknown++;
	}
	if (rec->size < 2)
		return 0;
	type = tep_data_type(r->tep, rec);
	if (type < 0 || type > r->max_id || !r->kind[type])
		return 0;
	if (on_event(r, rec, r->kind[type])) {
		if (!r->rc)
			r->rc = -ENOMEM;
		return r->rc;
	}
	return 0;
}

/* ---- setup and finish ------------------------------------------------------------ */

static struct tep_format_field *field(struct tep_event *ev, const char *a, const char *b)
{
	struct tep_format_field *f = tep_find_field(ev, a);

	return f || !b ? f : tep_find_field(ev, b);
}

static int find_events(struct reader *r, const char *path, char **err)
{
	struct pktpath *p = r->p;
	size_t path_events = 0;

	r->max_id = 0;
	for (int e = 1; e < EV_N; e++) {
		struct tep_event *ev = tracefile_event(&r->tf, events[e].sys, events[e].name);
		struct evf *f = &r->f[e];
		char *name = xasprintf("%s:%s", events[e].sys, events[e].name);

		f->ev = ev;
		if (e != EV_BPRINT && e != EV_PRINT) {
			char ***list = ev ? &p->present : &p->missing;
			size_t *n = ev ? &p->n_present : &p->n_missing;
			char **q = realloc(*list, (*n + 1) * sizeof(**list));

			if (!q) {
				free(name);
				return -ENOMEM;
			}
			*list = q;
			q[(*n)++] = name;
		} else {
			free(name);
		}
		if (!ev)
			continue;
		if (events[e].path)
			path_events++;
		if (ev->id > r->max_id)
			r->max_id = ev->id;
		f->skb = field(ev, "skbaddr", "skb");
		f->len = field(ev, "len", NULL);
		f->vihl = field(ev, "vihl", NULL);
		f->frag = field(ev, "frag", NULL);
		f->proto = field(ev, "proto", NULL);
		f->saddr = field(ev, "saddr", NULL);
		f->daddr = field(ev, "daddr", NULL);
		f->sport = field(ev, "sport", NULL);
		f->dport = field(ev, "dport", NULL);
		f->flags = field(ev, "tcpflags", NULL);
		f->family = field(ev, "family", NULL);
		f->protocol = field(ev, "protocol", NULL);
		f->data_len = field(ev, "data_len", NULL);
		f->rc = field(ev, "rc", NULL);
		f->loc = field(ev, "location", NULL);
		f->reason = field(ev, "reason", NULL);
		f->fmt = field(ev, "fmt", NULL);
	}
	if (!path_events) {
		err_set(err,
			"cannot read trace '%s': it holds none of the packet-path events (net:napi_gro_receive_entry, netlab:ip_local_deliver, netlab:ip_output, ...), so no packet can be followed\nhint: " RECORD_AGAIN,
			path);
		return -ENODATA;
	}
	r->kind = calloc((size_t)r->max_id + 1, 1);
	if (!r->kind)
		return -ENOMEM;
	for (int e = 1; e < EV_N; e++)
		if (r->f[e].ev)
			r->kind[r->f[e].ev->id] = (uint8_t)e;
	r->has_free = r->f[EV_CONSUME].ev || r->f[EV_KFREE].ev;
	/* A packet opens at its direction's earliest recorded stage (and the driver line). */
	r->open_at[PKTPATH_RX][S_DRV] = r->open_at[PKTPATH_RX][S_GRO] = true;
	r->open_at[PKTPATH_RX][S_NET] = !r->f[EV_GRO].ev;
	r->open_at[PKTPATH_RX][S_IP] = r->open_at[PKTPATH_RX][S_NET] && !r->f[EV_NETIF].ev;
	r->open_at[PKTPATH_RX][S_L4] = r->open_at[PKTPATH_RX][S_IP] && !r->f[EV_IP_IN].ev;
	r->open_at[PKTPATH_TX][T_IP] = true;
	r->open_at[PKTPATH_TX][T_QUEUE] = !r->f[EV_IP_OUT].ev;
	r->open_at[PKTPATH_TX][T_START] = r->open_at[PKTPATH_TX][T_QUEUE] && !r->f[EV_QUEUE].ev;
	return 0;
}

static int cmp_open(const void *a, const void *b)
{
	const struct pkt *x = *(const struct pkt *const *)a, *y = *(const struct pkt *const *)b;
	uint64_t tx = 0, ty = 0;

	for (int i = 0; i < S_N; i++) {
		tx = tx ? tx : x->ts[i];
		ty = ty ? ty : y->ts[i];
	}
	if (tx != ty)
		return tx < ty ? -1 : 1;
	return x->skb < y->skb ? -1 : x->skb > y->skb;
}

/* Close what is still open, in the order the packets appeared. */
static int close_open(struct reader *r)
{
	size_t n = 0;
	uint64_t *skbs;
	struct pkt **v = calloc(r->tab_n + 1, sizeof(*v));
	int ret = 0;

	skbs = calloc(r->tab_n + 1, sizeof(*skbs));
	if (!v || !skbs) {
		free(v);
		free(skbs);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->tab_cap; i++)
		if (r->tab[i].skb)
			v[n++] = &r->tab[i];
	if (n > 1)	/* qsort(NULL, 0) is undefined */
		qsort(v, n, sizeof(*v), cmp_open);
	/* Deleting shifts entries: remember keys, look each up again. */
	for (size_t i = 0; i < n; i++)
		skbs[i] = v[i]->skb;
	for (size_t i = 0; i < n && !ret; i++)
		ret = pkt_close(r, pkt_find(r, skbs[i]), C_END, false);
	free(v);
	free(skbs);
	return ret;
}

static int cmp_flow(const void *a, const void *b)
{
	const struct pktpath_flow *x = a, *y = b;
	uint64_t bx = x->tx_bytes + x->rx_bytes, by = y->tx_bytes + y->rx_bytes;

	if (bx != by)
		return bx < by ? 1 : -1;
	if (x->t.saddr != y->t.saddr)
		return x->t.saddr < y->t.saddr ? -1 : 1;
	if (x->t.sport != y->t.sport)
		return x->t.sport < y->t.sport ? -1 : 1;
	if (x->t.daddr != y->t.daddr)
		return x->t.daddr < y->t.daddr ? -1 : 1;
	if (x->t.dport != y->t.dport)
		return x->t.dport < y->t.dport ? -1 : 1;
	return (int)x->t.proto - (int)y->t.proto;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct pktpath_proc *x = a, *y = b;

	return x->task.pid < y->task.pid ? -1 : x->task.pid > y->task.pid;
}

static void stats_release(struct pktpath_stats *s)
{
	for (int i = 0; i < PKTPATH_MAX_STAGES; i++)
		hist_free(s->stage[i]);
}

/* Sort flows and processes; keep only processes with packets. */
static void finish(struct pktpath *p)
{
	size_t n = 0;

	if (p->n_flows > 1)	/* qsort(NULL, 0) is undefined */
		qsort(p->flows, p->n_flows, sizeof(*p->flows), cmp_flow);
	for (size_t i = 0; i < p->n_procs; i++) {
		struct pktpath_proc *q = &p->procs[i];

		if (q->dir[PKTPATH_RX].packets || q->dir[PKTPATH_TX].packets) {
			p->procs[n++] = *q;
		} else {
			free(q->task.comm);
			stats_release(&q->dir[PKTPATH_RX]);
			stats_release(&q->dir[PKTPATH_TX]);
		}
	}
	p->n_procs = n;
	if (p->n_procs > 1)	/* qsort(NULL, 0) is undefined */
		qsort(p->procs, p->n_procs, sizeof(*p->procs), cmp_proc);
	if (p->handoff_drv && !p->handoff_napi)
		p->handoff = "netlab_drv rx_handoff";
	else if (p->handoff_drv)
		p->handoff = "mixed";
	else
		p->handoff = "net:napi_gro_receive_entry";
}

static void reader_release(struct reader *r)
{
	free(r->kind);
	free(r->tab);
	free(r->ts);
	free(r->proc_h.slot);
	free(r->flow_h.slot);
	free(r->pairs);
	free(r->pair_h.slot);
	for (size_t i = 0; i < r->n_locs; i++)
		free(r->locs[i].name);
	free(r->locs);
	for (size_t i = 0; i < r->n_reasons; i++)
		free(r->reasons[i].name);
	free(r->reasons);
	trace_seq_destroy(&r->seq);
}

int pktpath_read(const char *path, const struct pktpath_opts *o, struct pktpath **out, char **err)
{
	static const struct pktpath_opts defaults;
	struct reader r = { .o = o ? o : &defaults };
	struct pktpath *p;
	int ret;

	*out = NULL;
	ret = tracefile_open(&r.tf, path, RECORD_AGAIN, err);
	if (ret)
		return ret;
	trace_seq_init(&r.seq);
	p = xzalloc(sizeof(*p));
	p->path = xstrdup(path);
	p->cpus = r.tf.cpus;
	p->buffers = r.tf.n;
	r.p = p;
	r.tep = r.tf.tep;
	r.tab_cap = 1024;
	r.tab = calloc(r.tab_cap, sizeof(*r.tab));
	ret = r.tab ? find_events(&r, path, err) : -ENOMEM;
	if (ret)
		goto out;
	ret = tracefile_iterate(&r.tf, on_record, &r, err);
	if (!ret)
		ret = close_open(&r);
	if (!ret)
		finish(p);
out:
	tracefile_close(&r.tf);
	reader_release(&r);
	if (ret) {
		if (ret == -ENOMEM)
			err_set(err, "cannot read trace '%s': %s", path, strerror(ENOMEM));
		pktpath_free(p);
		return ret;
	}
	*out = p;
	return 0;
}

void pktpath_free(struct pktpath *p)
{
	if (!p)
		return;
	for (int d = 0; d < PKTPATH_DIRS; d++)
		stats_release(&p->dir[d]);
	for (size_t i = 0; i < p->n_procs; i++) {
		free(p->procs[i].task.comm);
		stats_release(&p->procs[i].dir[PKTPATH_RX]);
		stats_release(&p->procs[i].dir[PKTPATH_TX]);
	}
	for (size_t i = 0; i < p->n_flows; i++) {
		for (size_t j = 0; j < p->flows[i].n_senders; j++)
			free(p->flows[i].senders[j].comm);
		for (size_t j = 0; j < p->flows[i].n_receivers; j++)
			free(p->flows[i].receivers[j].comm);
		free(p->flows[i].senders);
		free(p->flows[i].receivers);
	}
	for (size_t i = 0; i < p->n_present; i++)
		free(p->present[i]);
	for (size_t i = 0; i < p->n_missing; i++)
		free(p->missing[i]);
	free(p->present);
	free(p->missing);
	free(p->procs);
	free(p->flows);
	free(p->path);
	free(p);
}

