// SPDX-License-Identifier: GPL-2.0
/*
 * The packet path of a trace.dat, per event: what each recorded event does to
 * the open packets, and reading a trace.dat from attach to finish; the events
 * and their fields are resolved in pktpath-setup.c (see pktpath.c for the
 * reading model, pktpath.h for the packet model).
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
#include "trace/tracepass.h"
#include "lib/util.h"

/* ---- per event ------------------------------------------------------------------ */

#define U(e, fld) tracefile_u64(r->tf, rec, r->f[e].fld)
/*
 * A header field: @size bytes at @off of the header fetched as 8-byte words
 * (ipN, skcN) where the probe did so, else its own field.
 */
#define IP(e, off, size, fld)                                                                       \
	(r->f[e].ipw[0] ? tracefile_u64_at(r->tf, rec, r->f[e].ipw[(off) / 8], (off) % 8, size)   \
			: U(e, fld))
#define SKC(e, off, size, fld)                                                                      \
	(r->f[e].skw[0] ? tracefile_u64_at(r->tf, rec, r->f[e].skw[(off) / 8], (off) % 8, size)   \
			: U(e, fld))

/*
 * Give @k the device of a net: event (its "name" field, a __data_loc
 * string) unless it has one: once per packet, at its first such event.
 */
static void dev_of(struct reader *r, struct tep_record *rec, int e, struct pkt *k)
{
	const struct tep_format_field *f = r->f[e].name;
	unsigned int off, max;

	if (!k || k->dev || !f)
		return;
	off = f->offset;
	max = f->size;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		uint64_t v = U(e, name);

		off = v & 0xffff;
		max = v >> 16;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += f->offset + f->size;
	}
	if (rec->size < 0 || off + max > (unsigned int)rec->size)
		return;
	pktpath_pkt_dev(r, k, (const char *)rec->data + off,
			strnlen((const char *)rec->data + off, max));
}

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
	k->ip_cpu = (int16_t)rec->cpu;
	k->ip_len = (uint16_t)U(e, len);
	k->vihl = (uint8_t)IP(e, 0, 1, vihl);
	k->frag = swap16(IP(e, 6, 2, frag));
	k->proto = (uint8_t)IP(e, 9, 1, proto);
	k->saddr = (uint32_t)IP(e, 12, 4, saddr);
	k->daddr = (uint32_t)IP(e, 16, 4, daddr);
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
		k->sport = swap16(IP(e, 20, 2, sport));
		k->dport = swap16(IP(e, 22, 2, dport));
		k->fl |= F_PORTS;
		if (k->proto == IPPROTO_TCP_) {
			k->tcpflags = (uint8_t)IP(e, 33, 1, flags);
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
		flow = pktpath_pair_flow(r, k);
		if (flow)
			k->fl |= F_GUESSED;
	}
	if (!flow)
		flow = pktpath_flow_get(r, &t);
	if (k->fl & F_PORTS)
		pktpath_pair_set(r, k, flow);
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
	size_t i;

	if (in_irq(r, rec) || pid <= 0)
		return 0;
	k->pid = pid;
	if (!(k->fl & F_PORTS) || (k->proto == IPPROTO_TCP_ && pktpath_tcp_control(k)))
		return 0;
	i = pktpath_proc_get(r, pid);
	st = &r->ts[i];
	for (int j = 0; j < SENDS; j++) {
		if (!st->send[j].ts || st->send[j].ts <= st->last_recv ||
		    !sock_sends(&st->send[j].t, k))
			continue;
		k->t_app = st->send[j].ts;
		fl = &r->p->flows[k->flow - 1];
		return pktpath_task_add(&fl->senders, &fl->n_senders, &r->p->procs[i].task);
	}
	return 0;
}

static int sock_call(struct reader *r, struct tep_record *rec, int e)
{
	bool tcp = e == EV_TCP_SEND || e == EV_TCP_RECV;
	struct pktpath_tuple t = {
		.proto = tcp ? IPPROTO_TCP_ : IPPROTO_UDP_,
		.ports = true,
		.saddr = (uint32_t)SKC(e, 4, 4, saddr),
		.daddr = (uint32_t)SKC(e, 0, 4, daddr),
		.sport = (uint16_t)SKC(e, 14, 2, sport),
		.dport = swap16(SKC(e, 12, 2, dport)),
	};
	struct tstate *st;
	int j, old = 0;
	size_t i;

	if ((r->f[e].skw[0] || r->f[e].family) && SKC(e, 16, 2, family) != AF_INET_)
		return 0;
	i = pktpath_proc_get(r, tep_data_pid(r->tep, rec));
	st = &r->ts[i];
	if (e == EV_TCP_RECV || e == EV_UDP_RECV || e == EV_UDP_CONSUME) {
		st->last_recv = rec->ts;
		st->recv[!tcp] = t;
		st->has_recv[!tcp] = true;
		st->last_recv_udp = !tcp;
		return 0;
	}
	/* The same socket again, else the least recently used entry. */
	for (j = 0; j < SENDS; j++) {
		if (st->send[j].ts && pktpath_tuple_eq(&st->send[j].t, &t))
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

	if (!st->has_recv[u] || !s->daddr || !s->dport)
		return 0;
	if ((k->fl & F_IP) && (t.saddr != k->saddr || t.daddr != k->daddr || t.proto != k->proto))
		return 0;
	return pktpath_flow_get(r, &t);
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
	size_t i;

	if (in_irq(r, rec) || pid <= 0)
		return 0;
	k->pid = pid;
	k->copy_cpu = (int16_t)rec->cpu;
	i = pktpath_proc_get(r, pid);
	if (!(k->fl & F_IP) || (!(k->fl & (F_PORTS | F_GUESSED)) && l4_ports(k->proto)))
		flow = sock_flow(r, &r->ts[i], k);
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
	return pktpath_task_add(&fl->receivers, &fl->n_receivers, &p->procs[i].task);
}

static const struct loc_name *location(struct reader *r, uint64_t addr)
{
	const char *fn;
	struct loc_name *l;

	for (size_t i = 0; i < r->n_locs; i++)
		if (r->locs[i].addr == addr)
			return &r->locs[i];
	xgrow_array(&r->locs, &r->locs_cap, r->n_locs + 1, sizeof(*r->locs));
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
	xgrow_array(&r->reasons, &r->reasons_cap, r->n_reasons + 1, sizeof(*r->reasons));
	trace_seq_reset(&r->seq);
	tep_print_event(r->tep, &r->seq, rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&r->seq);
	s = r->seq.buffer ? strstr(r->seq.buffer, "reason: ") : NULL;
	n = &r->reasons[r->n_reasons];
	n->value = v;
	n->name = s ? xstrndup(s + 8, strcspn(s + 8, " \n")) : xasprintf("%lld", v);
	r->n_reasons++;
	return n->name;
}

/* Is this drop reason one that only a transport protocol or a socket gives? */
static bool reason_past_ip(const char *name)
{
	static const char *const prefix[] = { "SOCKET_", "TCP_", "UDP_", "NO_SOCKET", "PROTO_MEM" };

	for (size_t i = 0; name && i < ARRAY_SIZE(prefix); i++)
		if (!strncmp(name, prefix[i], strlen(prefix[i])))
			return true;
	return false;
}

static int on_kfree(struct reader *r, struct tep_record *rec)
{
	struct pktpath *p = r->p;
	uint64_t skb = U(EV_KFREE, skb);
	struct pkt *k = skb ? pktpath_pkt_find(r, skb) : NULL;
	const struct loc_name *loc = location(r, U(EV_KFREE, loc));
	struct pktpath_drop d = { .ts = rec->ts, .rel = rec->ts - p->t0, .skbaddr = skb };
	bool drop;

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
	d.reason = r->f[EV_KFREE].reason ? (long long)U(EV_KFREE, reason) : -1;
	if (drop && !k->flow && k->dir == PKTPATH_RX && (k->fl & F_V4) && !(k->fl & F_IP) &&
	    r->f[EV_IP_IN].ev) {
		d.reason_name = reason_name(r, rec, d.reason);
		d.missed_probe = reason_past_ip(d.reason_name);
		p->drops_missed_probe += d.missed_probe;
	}
	if (r->o->on_drop) {
		d.protocol = (unsigned int)U(EV_KFREE, protocol);
		d.location = loc->addr;
		d.location_name = loc->name;
		if (!d.reason_name) /* not looked up above for missed_probe */
			d.reason_name = reason_name(r, rec, d.reason);
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
	return pktpath_pkt_close(r, k, C_KFREE, loc->list);
}

static int on_consume(struct reader *r, struct tep_record *rec)
{
	uint64_t skb = U(EV_CONSUME, skb);
	struct pkt *k = skb ? pktpath_pkt_find(r, skb) : NULL;

	if (!k)
		return 0;
	if (k->dir == PKTPATH_TX && k->stage == T_XMIT)
		k->ts[T_FREE] = rec->ts;
	return pktpath_pkt_close(r, k, C_CONSUME, false);
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
	flow = pktpath_flow_get(r, &t);
	r->p->flows[flow - 1].retransmits++;
	return 0;
}

static int on_event(struct reader *r, struct tep_record *rec, int e)
{
	struct pkt *k;
	int ret = 0;

	switch (e) {
	case EV_BPRINT:
	case EV_PRINT:
	case EV_DRVTP:
		return pktpath_drv_event(r, rec, e);
	case EV_P_IRQ:
	case EV_P_POLL:
	case EV_P_POLL_RET:
		pktpath_probe_event(r, rec, e);
		return 0;
	case EV_GRO:
		if (pktpath_advance(r, U(EV_GRO, skb), PKTPATH_RX, S_GRO, rec->ts, &k))
			return -1;
		if (k && k->ts[S_GRO] == rec->ts && !(k->fl & F_DRV) && rec->cpu >= 0 &&
		    rec->cpu < DRVRING_MAX_CPUS && r->p_cpu[rec->cpu].poll) {
			k->drv[D_POLL] = r->p_cpu[rec->cpu].poll;
			k->drv[D_IRQ] = r->p_cpu[rec->cpu].poll_irq;
		}
		if (k && U(EV_GRO, protocol) != ETH_P_IP_) {
			pktpath_pkt_delete(r, k); /* ARP, IPv6: not followed */
			return 0;
		}
		if (k) {
			k->fl |= F_V4;
			if (r->f[EV_GRO].data_len)
				pktpath_pkt_headlen(k, U(EV_GRO, len), U(EV_GRO, data_len));
			dev_of(r, rec, EV_GRO, k);
		}
		return 0;
	case EV_NETIF:
		if (pktpath_advance(r, U(EV_NETIF, skb), PKTPATH_RX, S_NET, rec->ts, &k))
			return -1;
		dev_of(r, rec, EV_NETIF, k);
		return 0;
	case EV_IP_IN:
		if (pktpath_advance(r, U(EV_IP_IN, skb), PKTPATH_RX, S_IP, rec->ts, &k))
			return -1;
		ret = k ? ip_fields(r, rec, EV_IP_IN, k) : 0;
		break;
	case EV_TCP_RCV:
	case EV_UDP_RCV:
		if (pktpath_advance(r, U(e, skb), PKTPATH_RX, S_L4, rec->ts, &k))
			return -1;
		if (k && e == EV_TCP_RCV)
			k->fl |= F_TCP_L4;
		return 0;
	case EV_UDP_CONSUME:
		/* The receiving task's recvmsg, then the copy of its skb. */
		if ((ret = sock_call(r, rec, e)))
			break;
		/* fall through */
	case EV_COPY_IOV:
	case EV_UDP_RECV_SKB:
	case EV_COPY_CSUM:
		if (pktpath_advance(r, U(e, skb), PKTPATH_RX, S_COPY, rec->ts, &k))
			return -1;
		if (!k)
			return 0;
		ret = rx_copy(r, rec, k);
		if (!ret)
			return pktpath_pkt_close(r, k, C_COPY, false) ? -1 : 0;
		break;
	case EV_IP_OUT:
		if (pktpath_advance(r, U(EV_IP_OUT, skb), PKTPATH_TX, T_IP, rec->ts, &k))
			return -1;
		if (k) {
			ret = ip_fields(r, rec, EV_IP_OUT, k);
			if (!ret)
				ret = tx_app(r, rec, k);
		}
		break;
	case EV_QUEUE:
		if (pktpath_advance(r, U(EV_QUEUE, skb), PKTPATH_TX, T_QUEUE, rec->ts, &k))
			return -1;
		dev_of(r, rec, EV_QUEUE, k);
		return 0;
	case EV_START:
		if (pktpath_advance(r, U(EV_START, skb), PKTPATH_TX, T_START, rec->ts, &k))
			return -1;
		dev_of(r, rec, EV_START, k);
		/* A trace without ip_output: IPv4 by the skb's protocol here. */
		if (k && !(k->fl & F_V4) && r->f[EV_START].protocol &&
		    U(EV_START, protocol) == ETH_P_IP_)
			k->fl |= F_V4;
		return 0;
	case EV_XMIT:
		/* Not sent (NETDEV_TX_BUSY): the packet stays at start_xmit. */
		if (r->f[EV_XMIT].rc && U(EV_XMIT, rc) != 0)
			return 0;
		if (pktpath_advance(r, U(EV_XMIT, skb), PKTPATH_TX, T_XMIT, rec->ts, &k))
			return -1;
		dev_of(r, rec, EV_XMIT, k);
		/* Without free events, transmission ends at the device. */
		if (k && !r->has_free)
			return pktpath_pkt_close(r, k, C_DONE, false) ? -1 : 0;
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

/* ---- finish --------------------------------------------------------------------- */

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
	struct pkt **v = xcalloc(r->tab_n + 1, sizeof(*v));
	int ret = 0;

	skbs = xcalloc(r->tab_n + 1, sizeof(*skbs));
	for (size_t i = 0; i < r->tab_cap; i++)
		if (r->tab[i].skb)
			v[n++] = &r->tab[i];
	if (n > 1)	/* qsort(NULL, 0) is undefined */
		qsort(v, n, sizeof(*v), cmp_open);
	/* Deleting shifts entries: remember keys, look each up again. */
	for (size_t i = 0; i < n; i++)
		skbs[i] = v[i]->skb;
	for (size_t i = 0; i < n && !ret; i++)
		ret = pktpath_pkt_close(r, pktpath_pkt_find(r, skbs[i]), C_END, false);
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

static int cmp_dev(const void *a, const void *b)
{
	return strcmp(((const struct pktpath_dev *)a)->name, ((const struct pktpath_dev *)b)->name);
}

/* Keep the devices that have packets (IPv4), by name. */
static void finish_devs(struct pktpath *p)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n_devs; i++) {
		struct pktpath_dev *d = &p->devs[i];

		if (d->dir[PKTPATH_RX].packets || d->dir[PKTPATH_TX].packets) {
			p->devs[n++] = *d;
		} else {
			free(d->name);
			stats_release(&d->dir[PKTPATH_RX]);
			stats_release(&d->dir[PKTPATH_TX]);
		}
	}
	p->n_devs = n;
	if (p->n_devs > 1) /* qsort(NULL, 0) is undefined */
		qsort(p->devs, p->n_devs, sizeof(*p->devs), cmp_dev);
}

/* The length of a queue entry's device name ("ethB" of "ethB_q1"). */
static size_t queue_dev_len(const char *name)
{
	const char *q = strrchr(name, '_');

	return q ? (size_t)(q - name) : strlen(name);
}

/* Keep the queues of devices that had two or more, by name. */
static void finish_queues(struct pktpath *p)
{
	size_t n = 0;
	bool *keep = xcalloc(p->n_queues ? p->n_queues : 1, sizeof(*keep));

	for (size_t i = 0; i < p->n_queues; i++)
		for (size_t j = 0; j < p->n_queues; j++)
			if (j != i && queue_dev_len(p->queues[i].name) == queue_dev_len(p->queues[j].name) &&
			    !strncmp(p->queues[i].name, p->queues[j].name, queue_dev_len(p->queues[i].name)))
				keep[i] = true;
	for (size_t i = 0; i < p->n_queues; i++) {
		struct pktpath_dev *q = &p->queues[i];

		if (keep[i]) {
			p->queues[n++] = *q;
		} else {
			free(q->name);
			stats_release(&q->dir[PKTPATH_RX]);
			stats_release(&q->dir[PKTPATH_TX]);
		}
	}
	free(keep);
	p->n_queues = n;
	if (p->n_queues > 1)
		qsort(p->queues, p->n_queues, sizeof(*p->queues), cmp_dev);
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
	finish_devs(p);
	finish_queues(p);
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
	free(r->probe_drv);
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

struct pktpath_pass {
	struct tracepass_slot slot;
	struct reader r;
	struct pktpath_opts o;
	const char *path;
};

static void pass_free(struct pktpath_pass *s)
{
	reader_release(&s->r);
	pktpath_free(s->r.p);
	free(s);
}

int pktpath_attach(struct tracepass *tp, const struct pktpath_opts *o, struct pktpath_pass **out,
		   char **err)
{
	struct pktpath_pass *s;
	struct reader *r;
	struct pktpath *p;
	int ret;

	*out = NULL;
	ret = tracepass_open(tp, RECORD_AGAIN, err);
	if (ret)
		return ret;
	s = xzalloc(sizeof(*s));
	if (o)
		s->o = *o;
	s->path = tp->path;
	r = &s->r;
	r->o = &s->o;
	r->tf = &tp->tf;
	trace_seq_init(&r->seq);
	p = xzalloc(sizeof(*p));
	p->path = xstrdup(tp->path);
	p->cpus = tp->tf.cpus;
	p->buffers = tp->tf.n;
	r->p = p;
	r->tep = tp->tf.tep;
	r->tab_cap = 1024;
	r->tab = xcalloc(r->tab_cap, sizeof(*r->tab));
	ret = pktpath_find_events(r, tp->path, err);
	if (ret) {
		pass_free(s);
		return ret;
	}
	s->slot.cb = on_record;
	s->slot.ctx = r;
	tracepass_add(tp, &s->slot);
	*out = s;
	return 0;
}

int pktpath_collect(struct pktpath_pass *s, struct pktpath **out, char **err)
{
	int ret = tracepass_result(&s->slot, err);

	*out = NULL;
	if (!ret)
		ret = close_open(&s->r);
	if (ret) {
		if (ret == -ENOMEM)
			err_set(err, "cannot read trace '%s': %s", s->path, strerror(ENOMEM));
		pass_free(s);
		return ret;
	}
	finish(s->r.p);
	*out = s->r.p;
	s->r.p = NULL;
	pass_free(s);
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
	for (size_t i = 0; i < p->n_devs; i++) {
		free(p->devs[i].name);
		stats_release(&p->devs[i].dir[PKTPATH_RX]);
		stats_release(&p->devs[i].dir[PKTPATH_TX]);
	}
	for (size_t i = 0; i < p->n_queues; i++) {
		free(p->queues[i].name);
		stats_release(&p->queues[i].dir[PKTPATH_RX]);
		stats_release(&p->queues[i].dir[PKTPATH_TX]);
	}
	free(p->queues);
	for (size_t i = 0; i < p->n_flows; i++) {
		for (size_t j = 0; j < p->flows[i].n_senders; j++)
			free(p->flows[i].senders[j].comm);
		for (size_t j = 0; j < p->flows[i].n_receivers; j++)
			free(p->flows[i].receivers[j].comm);
		free(p->flows[i].senders);
		free(p->flows[i].receivers);
		free(p->flows[i].lat[PKTPATH_RX]);
		free(p->flows[i].lat[PKTPATH_TX]);
	}
	for (size_t i = 0; i < p->n_present; i++)
		free(p->present[i]);
	for (size_t i = 0; i < p->n_missing; i++)
		free(p->missing[i]);
	free(p->present);
	free(p->missing);
	free(p->procs);
	free(p->devs);
	free(p->flows);
	free(p->path);
	free(p);
}
