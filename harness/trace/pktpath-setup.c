// SPDX-License-Identifier: GPL-2.0
/*
 * The packet path's setup, at attach time: the events the reader follows
 * (events[]), their fields (among them the ipN/skcN header words), which of
 * them the trace holds and which it lacks, and the event ids of the fallback
 * probes and the driver-line tracepoints. Internal to the packet-path reader
 * (pktpath-int.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "trace/drvring.h"
#include "trace/pktpath.h"
#include "trace/pktpath-int.h"
#include "trace/tracefile.h"
#include "lib/util.h"

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
	[EV_UDP_CONSUME] = { "netlab", "udp_consume", true },
	[EV_RETRANS] = { "tcp", "tcp_retransmit_skb" },
};

static struct tep_format_field *field(struct tep_event *ev, const char *a, const char *b)
{
	struct tep_format_field *f = tep_find_field(ev, a);

	return f || !b ? f : tep_find_field(ev, b);
}

/* Does the trace hold a driver's rx_handoff line as a tracepoint (netlab_drv:DRIVER_rx_handoff)? */
static bool drv_handoff_events(struct tep_handle *tep)
{
	struct tep_event **evs = tep_list_events(tep, TEP_EVENT_SORT_ID);
	static const char tail[] = "_rx_handoff";

	for (size_t i = 0; evs && evs[i]; i++) {
		size_t n = strlen(evs[i]->name);

		if (evs[i]->system && !strcmp(evs[i]->system, DRVRING_TP_SYSTEM) && n > strlen(tail) &&
		    !strcmp(evs[i]->name + n - strlen(tail), tail))
			return true;
	}
	return false;
}

/*
 * Does the trace hold another event in the place of @e? netlab:udp_consume
 * does the work of netlab:udp_recvmsg and netlab:udp_recv_skb (UDP's
 * recvmsg and copy), which traces recorded before it have instead. The
 * drivers' rx_handoff lines are the hand-off that napi_gro_receive_entry is
 * for drivers without lines (the default set leaves it out when every
 * driver has them).
 */
static bool stands_in(struct tracefile *tf, struct tep_handle *tep, int e)
{
	static const int alt[][3] = {
		{ EV_UDP_CONSUME, EV_UDP_RECV, EV_UDP_RECV_SKB },
		{ EV_UDP_RECV, EV_UDP_CONSUME, 0 },
		{ EV_UDP_RECV_SKB, EV_UDP_CONSUME, 0 },
	};

	if (e == EV_GRO)
		return drv_handoff_events(tep);
	for (size_t i = 0; i < ARRAY_SIZE(alt); i++) {
		if (alt[i][0] != e)
			continue;
		for (int j = 1; j < 3 && alt[i][j]; j++)
			if (!tracefile_event(tf, events[alt[i][j]].sys, events[alt[i][j]].name))
				return false;
		return true;
	}
	return false;
}

int pktpath_find_events(struct reader *r, const char *path, char **err)
{
	struct pktpath *p = r->p;
	size_t path_events = 0;
	struct tep_event **evs;
	int drv;

	r->max_id = 0;
	for (int e = 1; e < EV_N; e++) {
		struct tep_event *ev = tracefile_event(r->tf, events[e].sys, events[e].name);
		struct evf *f = &r->f[e];
		char *name = xasprintf("%s:%s", events[e].sys, events[e].name);

		f->ev = ev;
		if (e != EV_BPRINT && e != EV_PRINT && (ev || !stands_in(r->tf, r->tep, e))) {
			char ***list = ev ? &p->present : &p->missing;
			size_t *n = ev ? &p->n_present : &p->n_missing;
			*list = xrealloc_array(*list, *n + 1, sizeof(**list));
			(*list)[(*n)++] = name;
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
		for (int w = 0; w < 5; w++) {
			char name[8];

			snprintf(name, sizeof(name), "ip%d", w * 8);
			f->ipw[w] = field(ev, name, NULL);
			snprintf(name, sizeof(name), "skc%d", w * 8);
			if (w < 3)
				f->skw[w] = field(ev, name, NULL);
		}
		f->protocol = field(ev, "protocol", NULL);
		f->data_len = field(ev, "data_len", NULL);
		f->rc = field(ev, "rc", NULL);
		f->loc = field(ev, "location", NULL);
		f->reason = field(ev, "reason", NULL);
		f->fmt = field(ev, "fmt", NULL);
		/* The device, of the net: events only (a kprobe's "name" could be anything). */
		if (!strcmp(events[e].sys, "net"))
			f->name = field(ev, "name", NULL);
	}
	if (!path_events) {
		err_set(err,
			"cannot read trace '%s': it holds none of the packet-path events (net:napi_gro_receive_entry, netlab:ip_local_deliver, netlab:ip_output, ...), so no packet can be followed\nhint: " RECORD_AGAIN,
			path);
		return -ENODATA;
	}
	evs = tep_list_events(r->tep, TEP_EVENT_SORT_ID);
	for (size_t i = 0; evs && evs[i]; i++)
		if (evs[i]->system && evs[i]->id > r->max_id &&
		    ((!strcmp(evs[i]->system, "netlab") &&
		      drvring_probe_at(evs[i]->name, &drv) != DRVRING_AT_NONE) ||
		     !strcmp(evs[i]->system, DRVRING_TP_SYSTEM)))
			r->max_id = evs[i]->id;
	r->kind = xcalloc((size_t)r->max_id + 1, 1);
	r->probe_drv = xcalloc((size_t)r->max_id + 1, 1);
	for (int e = 1; e < EV_N; e++)
		if (r->f[e].ev)
			r->kind[r->f[e].ev->id] = (uint8_t)e;
	for (size_t i = 0; evs && evs[i]; i++) {
		static const uint8_t kind_at[] = { [DRVRING_AT_IRQ] = EV_P_IRQ,
						   [DRVRING_AT_POLL] = EV_P_POLL,
						   [DRVRING_AT_POLL_RET] = EV_P_POLL_RET };
		enum drvring_probe_at at;

		if (evs[i]->system && !strcmp(evs[i]->system, DRVRING_TP_SYSTEM))
			r->kind[evs[i]->id] = EV_DRVTP;
		if (!evs[i]->system || strcmp(evs[i]->system, "netlab"))
			continue;
		at = drvring_probe_at(evs[i]->name, &drv);
		if (at == DRVRING_AT_NONE)
			continue;
		r->kind[evs[i]->id] = kind_at[at];
		r->probe_drv[evs[i]->id] = (int8_t)drv;
	}
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
