// SPDX-License-Identifier: GPL-2.0
/*
 * The packet path of a trace.dat: stage latency, flows, snoop, drops (see
 * pktpath.h for the model).
 *
 * Reading: event ids and fields are looked up once (pktpath_find_events(), pktpath-setup.c); per
 * record, tep_data_type() indexes a table of our event kinds and numbers are
 * read with tracefile_u64(). Nothing per event is kept: open packets live in
 * an open-addressing table keyed by skb address (backward-shift deletion, so
 * no tombstones pile up), and latencies go to fixed-size log-linear
 * histograms (traffic/hist.h). Per process and per flow state grows with the
 * number of processes and flows only.
 *
 * Text is formatted with libtraceevent only where a number is not enough:
 * driver lines (tep_print_event() on the netlab_drv tracepoints and on
 * ftrace:bprint/print, cached per event or format pointer so foreign lines
 * are formatted once) and the
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
#include "lib/metrics.h"
#include "trace/drvring.h"
#include "trace/pktpath.h"
#include "trace/pktpath-int.h"
#include "trace/tracefile.h"
#include "lib/util.h"

/* ---- names ---------------------------------------------------------------- */

static const char *const rx_stage_names[] = {
	"irq_poll", "poll_handoff", "desc_handoff", "drv_ip",  "drv_net", "net_ip",
	"ip_tcp",   "ip_udp",	    "tcp_app",	    "udp_app", "total"
};
static const char *const tx_stage_names[] = { "app_ip",	  "ip_qdisc", "qdisc", "dev",
					      "done",	  "drv_xmit", "drv_done", "total" };
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
	out->dir = -1;
	out->len = -1;
	out->data_len = -1;
	out->proto = -1;
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
	if (l.has & (1u << DRVRING_K_DIR))
		out->dir = (int)l.v[DRVRING_K_DIR];
	if (l.has & (1u << DRVRING_K_DATA_LEN))
		out->data_len = (long long)l.v[DRVRING_K_DATA_LEN];
	if ((l.has & (1u << DRVRING_K_PROTO)) && l.v[DRVRING_K_PROTO] <= 0xffff)
		out->proto = (int)l.v[DRVRING_K_PROTO];
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
static void ihash_reserve(struct reader *r, struct ihash *h, ihash_of hash_of)
{
	size_t cap = h->cap ? h->cap * 2 : 64;
	uint32_t *s;

	if ((h->n + 1) * 2 <= h->cap)
		return;
	s = xcalloc(cap, sizeof(*s));
	for (uint32_t i = 0; i < h->n; i++) {
		size_t j = hash_of(r, i) & (cap - 1);

		while (s[j])
			j = (j + 1) & (cap - 1);
		s[j] = i + 1;
	}
	free(h->slot);
	h->slot = s;
	h->cap = cap;
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

size_t pktpath_proc_get(struct reader *r, int pid)
{
	struct pktpath *p = r->p;
	size_t slot;
	long i;

	ihash_reserve(r, &r->proc_h, proc_hash);
	i = ihash_find(r, &r->proc_h, mix((uint64_t)pid), proc_eq, &pid, &slot);
	if (i >= 0)
		return (size_t)i;
	xgrow_array(&p->procs, &r->procs_cap, p->n_procs + 1, sizeof(*p->procs));
	r->ts = xrealloc_array(r->ts, r->procs_cap, sizeof(*r->ts));
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

bool pktpath_tuple_eq(const struct pktpath_tuple *a, const struct pktpath_tuple *b)
{
	return a->saddr == b->saddr && a->daddr == b->daddr && a->sport == b->sport &&
	       a->dport == b->dport && a->proto == b->proto && a->ports == b->ports;
}

static bool flow_eq(const struct reader *r, uint32_t i, const void *key)
{
	return pktpath_tuple_eq(&r->p->flows[i].t, key);
}

/* The flow index + 1 of @t (created when new): never 0. */
uint32_t pktpath_flow_get(struct reader *r, const struct pktpath_tuple *t)
{
	struct pktpath *p = r->p;
	size_t slot;
	long i;

	ihash_reserve(r, &r->flow_h, flow_hash);
	i = ihash_find(r, &r->flow_h, tuple_hash(t), flow_eq, t, &slot);
	if (i >= 0)
		return (uint32_t)i + 1;
	xgrow_array(&p->flows, &r->flows_cap, p->n_flows + 1, sizeof(*p->flows));
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

void pktpath_pair_set(struct reader *r, const struct pkt *k, uint32_t flow)
{
	size_t slot;
	long i;

	ihash_reserve(r, &r->pair_h, pair_hash);
	i = ihash_find(r, &r->pair_h, pair_key_hash(k->saddr, k->daddr, k->proto), pair_eq, k,
		       &slot);
	if (i < 0) {
		xgrow_array(&r->pairs, &r->pairs_cap, r->n_pairs + 1, sizeof(*r->pairs));
		i = (long)r->n_pairs++;
		r->pairs[i].saddr = k->saddr;
		r->pairs[i].daddr = k->daddr;
		r->pairs[i].proto = k->proto;
		r->pair_h.slot[slot] = (uint32_t)i + 1;
		r->pair_h.n++;
	}
	r->pairs[i].flow = flow;
}

uint32_t pktpath_pair_flow(const struct reader *r, const struct pkt *k)
{
	size_t slot;
	long i;

	if (!r->pair_h.cap)
		return 0;
	i = ihash_find(r, &r->pair_h, pair_key_hash(k->saddr, k->daddr, k->proto), pair_eq, k,
		       &slot);
	return i < 0 ? 0 : r->pairs[i].flow;
}

int pktpath_task_add(struct pktpath_task **v, size_t *n, const struct pktpath_task *t)
{
	struct pktpath_task *q;

	if (*n && (*v)[*n - 1].pid == t->pid)
		return 0;
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].pid == t->pid)
			return 0;
	q = xrealloc_array(*v, *n + 1, sizeof(*q));
	*v = q;
	q[*n].pid = t->pid;
	q[(*n)++].comm = xstrdup(t->comm);
	return 0;
}

/*
 * Devices, by name: the index + 1 in pktpath.devs of @name (@n bytes, not
 * NUL-terminated), added when new; 0 when the name is empty or longer than
 * an interface name can be, or the table is full. Called once per packet
 * (at its first event that names a device), and a lookup compares two
 * words per device, not strings.
 */
uint8_t pktpath_dev_get(struct reader *r, const char *name, size_t n)
{
	struct pktpath *p = r->p;
	uint64_t key[2] = { 0, 0 };
	size_t i;

	if (!n || n >= sizeof(key))
		return 0;
	memcpy(key, name, n);
	for (i = 0; i < p->n_devs; i++)
		if (r->devkey[i][0] == key[0] && r->devkey[i][1] == key[1])
			return (uint8_t)(i + 1);
	if (i == PKTPATH_MAX_DEVS)
		return 0;
	if (!p->devs)
		p->devs = xzalloc(PKTPATH_MAX_DEVS * sizeof(*p->devs));
	p->devs[i].name = xasprintf("%.*s", (int)n, name);
	r->devkey[i][0] = key[0];
	r->devkey[i][1] = key[1];
	p->n_devs++;
	return (uint8_t)(i + 1);
}

/* ---- open packets ------------------------------------------------------------ */

static size_t pkt_slot(const struct reader *r, uint64_t skb)
{
	return mix(skb) & (r->tab_cap - 1);
}

struct pkt *pktpath_pkt_find(struct reader *r, uint64_t skb)
{
	for (size_t j = pkt_slot(r, skb);; j = (j + 1) & (r->tab_cap - 1)) {
		if (r->tab[j].skb == skb)
			return &r->tab[j];
		if (!r->tab[j].skb)
			return NULL;
	}
}

static void pkt_rehash(struct reader *r, size_t cap)
{
	struct pkt *old = r->tab;
	size_t old_cap = r->tab_cap;

	r->tab = xcalloc(cap, sizeof(*r->tab));
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
}

/* A new packet for @skb (not in the table). */
struct pkt *pktpath_pkt_new(struct reader *r, uint64_t skb, int dir, int stage, uint64_t ts)
{
	size_t j;

	if ((r->tab_n + 1) * 2 > r->tab_cap)
		pkt_rehash(r, r->tab_cap * 2);
	for (j = pkt_slot(r, skb); r->tab[j].skb; j = (j + 1) & (r->tab_cap - 1))
		;
	memset(&r->tab[j], 0, sizeof(r->tab[j]));
	r->tab[j].skb = skb;
	r->tab[j].dir = (uint8_t)dir;
	r->tab[j].stage = (uint8_t)stage;
	r->tab[j].ts[stage] = ts;
	r->tab[j].pid = -1;
	r->tab[j].ip_cpu = -1;
	r->tab[j].copy_cpu = -1;
	r->tab[j].q = -1;
	r->tab_n++;
	return &r->tab[j];
}

/* Remove the packet at @k, shifting back the entries of its probe run. */
void pktpath_pkt_delete(struct reader *r, struct pkt *k)
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
bool pktpath_tcp_control(const struct pkt *k)
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
	if (k->stage >= S_L4 && k->proto == IPPROTO_TCP_ && pktpath_tcp_control(k))
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

		ns[PKTPATH_RX_IRQ_POLL] = span(k->drv[D_IRQ], k->drv[D_POLL]);
		ns[PKTPATH_RX_POLL_HANDOFF] = span(k->drv[D_POLL], h);
		ns[PKTPATH_RX_DESC_HANDOFF] = span(k->drv[D_DESC], h);
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
		ns[PKTPATH_TX_DRV_XMIT] = span(k->ts[T_START], k->drv[D_XMIT]);
		ns[PKTPATH_TX_DRV_DONE] = span(k->drv[D_XMIT], k->drv[D_DONE]);
		ns[PKTPATH_TX_TOTAL] = span(k->t_app, k->ts[T_FREE]);
	}
}

/* ---- per-flow latency and CPUs ---------------------------------------------------- */

#define LAT_SHIFT 4 /* hist.h buckets per pktpath_lat bucket: 1 << LAT_SHIFT */
#define LAT_BUCKETS (HIST_BUCKETS >> LAT_SHIFT)

struct pktpath_lat {
	uint64_t count, min, max;
	uint32_t b[LAT_BUCKETS]; /* saturating */
};

static int lat_record(struct pktpath_lat **lp, uint64_t v)
{
	struct pktpath_lat *l = *lp;
	unsigned int i = hist_index(v) >> LAT_SHIFT;

	if (!l) {
		l = xcalloc(1, sizeof(*l));
		l->min = UINT64_MAX;
		*lp = l;
	}
	l->count++;
	l->min = v < l->min ? v : l->min;
	l->max = v > l->max ? v : l->max;
	if (l->b[i] != UINT32_MAX)
		l->b[i]++;
	return 0;
}

/*
 * The @pct-th percentile (nearest rank, as hist_percentile()): the midpoint
 * of the coarse bucket that holds it, clamped to min..max.
 */
static uint64_t lat_percentile(const struct pktpath_lat *l, unsigned int pct)
{
	uint64_t rank = (l->count * pct + 99) / 100, seen = 0;

	for (unsigned int i = 0; i < LAT_BUCKETS; i++) {
		uint64_t lo, v;

		seen += l->b[i];
		if (seen < rank)
			continue;
		lo = hist_bucket_lo(i << LAT_SHIFT);
		v = lo + (hist_bucket_lo((i + 1) << LAT_SHIFT) - lo) / 2;
		return v < l->min ? l->min : v > l->max ? l->max : v;
	}
	return l->max;
}

void pktpath_lat_summarize(const struct pktpath_lat *l, struct pktpath_lat_summary *s)
{
	*s = (struct pktpath_lat_summary){ 0 };
	if (!l || !l->count)
		return;
	s->count = l->count;
	s->min = l->min;
	s->max = l->max;
	s->p50 = lat_percentile(l, 50);
	s->p99 = lat_percentile(l, 99);
}

static uint64_t cpu_bit(int cpu)
{
	return cpu < 0 ? 0 : 1ULL << (cpu < 63 ? cpu : 63);
}

char *pktpath_cpus_str(uint64_t mask, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int c = 0; c < 64 && len < n; c++)
		if (mask & (1ULL << c))
			len += (size_t)snprintf(buf + len, n - len, "%s%d%s", len ? "," : "", c,
						c == 63 ? "+" : "");
	if (!mask)
		snprintf(buf, n, "-");
	return buf;
}

/* A packet closing: its flow's CPUs, and its latency when it was followed. */
static int flow_close(struct pktpath_flow *fl, const struct pkt *k, const struct pktpath_packet *pk)
{
	int total = k->dir == PKTPATH_RX ? PKTPATH_RX_TOTAL : PKTPATH_TX_TOTAL;

	fl->ip_cpus[k->dir] |= cpu_bit(k->ip_cpu);
	fl->copy_cpus |= cpu_bit(k->copy_cpu);
	if (pk->stage_ns[total] < 0)
		return 0;
	return lat_record(&fl->lat[k->dir], (uint64_t)pk->stage_ns[total]);
}

static const char *const flow_orders[PKTPATH_FLOW_ORDERS] = {
	[PKTPATH_BY_BYTES] = "bytes",
	[PKTPATH_BY_DROPS] = "drops",
	[PKTPATH_BY_LATENCY] = "latency",
};

const char *pktpath_flow_order_name(enum pktpath_flow_order o)
{
	return (unsigned int)o < PKTPATH_FLOW_ORDERS ? flow_orders[o] : "?";
}

int pktpath_flow_order_parse(const char *name)
{
	for (int o = 0; o < PKTPATH_FLOW_ORDERS; o++)
		if (!strcmp(name, flow_orders[o]))
			return o;
	return -1;
}

static uint64_t flow_p99(const struct pktpath_flow *fl)
{
	struct pktpath_lat_summary rx, tx;

	pktpath_lat_summarize(fl->lat[PKTPATH_RX], &rx);
	pktpath_lat_summarize(fl->lat[PKTPATH_TX], &tx);
	return rx.p99 > tx.p99 ? rx.p99 : tx.p99;
}

struct flow_key {
	uint64_t k1, k2;
	size_t i;
};

/* Descending by k1, k2; then pktpath.flows' order (stable). */
static int cmp_flow_key(const void *a, const void *b)
{
	const struct flow_key *x = a, *y = b;

	if (x->k1 != y->k1)
		return x->k1 < y->k1 ? 1 : -1;
	if (x->k2 != y->k2)
		return x->k2 < y->k2 ? 1 : -1;
	return x->i < y->i ? -1 : x->i > y->i;
}

void pktpath_flows_sorted(const struct pktpath *p, enum pktpath_flow_order order, size_t *idx)
{
	struct flow_key *key = xcalloc(p->n_flows ? p->n_flows : 1, sizeof(*key));

	for (size_t i = 0; i < p->n_flows; i++) {
		const struct pktpath_flow *fl = &p->flows[i];

		key[i].i = i;
		if (order == PKTPATH_BY_DROPS) {
			key[i].k1 = fl->drops;
			key[i].k2 = fl->retransmits;
		} else if (order == PKTPATH_BY_LATENCY) {
			key[i].k1 = flow_p99(fl);
		} else {
			key[i].k1 = fl->tx_bytes + fl->rx_bytes;
		}
	}
	if (p->n_flows > 1)
		qsort(key, p->n_flows, sizeof(*key), cmp_flow_key);
	for (size_t i = 0; i < p->n_flows; i++)
		idx[i] = key[i].i;
	free(key);
}

/* The entry of queue @q of device @dev ("ethB_q1"), added when new. */
static struct pktpath_dev *queue_of(struct pktpath *p, const char *dev, int q)
{
	char name[40];

	snprintf(name, sizeof(name), "%s_q%d", dev, q);
	for (size_t i = 0; i < p->n_queues; i++)
		if (!strcmp(p->queues[i].name, name))
			return &p->queues[i];
	p->queues = xrealloc_array(p->queues, p->n_queues + 1, sizeof(*p->queues));
	memset(&p->queues[p->n_queues], 0, sizeof(*p->queues));
	p->queues[p->n_queues].name = xstrdup(name);
	return &p->queues[p->n_queues++];
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
	pk->dev = k->dev ? p->devs[k->dev - 1].name : NULL;
	stages_of(k, pk->outcome == PKTPATH_FOLLOWED, pk->stage_ns);
}

/* Count the packet, give it to the callbacks, and forget it. */
int pktpath_pkt_close(struct reader *r, struct pkt *k, enum close_how how, bool list_free)
{
	struct pktpath *p = r->p;
	struct pktpath_packet pk;
	long proc = -1;
	int ret = 0;

	if (!(k->fl & F_V4))
		goto out; /* not IPv4, or not known to be: not counted */
	packet_of(r, k, how, list_free, &pk);
	if (k->pid >= 0) {
		proc = (long)pktpath_proc_get(r, k->pid);
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
	if (k->dev && stats_add(&p->devs[k->dev - 1].dir[k->dir], &pk))
		goto nomem;
	if (k->flow && flow_close(&p->flows[k->flow - 1], k, &pk))
		goto nomem;
	if (k->dev && k->q >= 0 &&
	    stats_add(&queue_of(p, p->devs[k->dev - 1].name, k->q)->dir[k->dir], &pk))
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
	pktpath_pkt_delete(r, k);
	r->rc = ret;
	return ret;
nomem:
	pktpath_pkt_delete(r, k);
	r->rc = -ENOMEM;
	return -ENOMEM;
}

/*
 * The packet @skb at @stage of @dir: advance its open packet, or close that
 * one (the address was reused) and open a new one where packets may open.
 * *out is the packet, or NULL; returns nonzero to stop.
 */
int pktpath_advance(struct reader *r, uint64_t skb, int dir, int stage, uint64_t ts,
		    struct pkt **out)
{
	struct pkt *k;

	*out = NULL;
	if (!skb)
		return 0;
	k = pktpath_pkt_find(r, skb);
	if (k) {
		/* start_xmit again after NETDEV_TX_BUSY: the same packet */
		if (k->dir == dir && (stage > k->stage || (dir == PKTPATH_TX && stage == T_START &&
							   k->stage == T_START))) {
			k->stage = (uint8_t)stage;
			k->ts[stage] = ts;
			*out = k;
			return 0;
		}
		if (pktpath_pkt_close(r, k, C_REUSE, false))
			return -1;
	}
	if (!r->open_at[dir][stage])
		return 0;
	*out = pktpath_pkt_new(r, skb, dir, stage, ts);
	return 0;
}

