// SPDX-License-Identifier: GPL-2.0
/*
 * The hops of a topology file's path (vm/topofile.h [hop.NAME]): for a UDP
 * stream, the data datagrams that came into each hop (the capture of its
 * in NIC's link) against those that left it (its out NIC's); for a TCP
 * stream, its data segments (retransmits too: each one the hop dropped is
 * sent again, and counted in again); and what the hop's namespace counted
 * as dropped, reason by reason (a counter counts packets as the hop saw
 * them: a GRO-merged TCP packet dropped once is several segments in):
 *   hop.NAME.{in,out,lost}, hop.NAME.bridge (1: a bridge, 0: IP forwarding)
 *   hop.NAME.{forwarded,no_route,hdr_errors,too_big,discards,addr_errors,
 *             neigh_unresolved,driver}       the counters' deltas
 *   hop.NAME.counted, hop.NAME.silent         lost = counted + silent
 * and loss.lost_in_hops, their sum. A frame the in NIC's driver lost is the
 * hop's too (its NIC/driver layer: nicrx of the in NIC, by its counters).
 * IPv4 counters from /proc/net/snmp, IPv6 ones from snmp6, of the hop's
 * namespace (the in NIC's: snmp.L, snmp6.L).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/scenario.h"
#include "scenario/scnrun-int.h"
#include "lib/metrics.h"
#include "lib/util.h"
#include "vm/topofile.h"

/* A per-NIC counter's delta, 0 when it was not measured. */
static double hget(const struct metrics *m, const char *fmt, char l)
{
	double v = metrics_value_label(m, fmt, l, 0);

	return isnan(v) ? 0 : v;
}

static void hset(struct metrics *m, const char *hop, const char *what, double v)
{
	char *name = xasprintf("hop.%s.%s", hop, what);

	metrics_set(m, name, v);
	free(name);
}

/* The counters' drops in the hop's namespace, by reason (IPv4 or IPv6). */
static double hop_counted(struct collect *c, const struct topo_hop *h, char in, bool v6)
{
	struct metrics *m = c->m;
	static const struct { const char *what, *v4, *v6; } r[] = {
		{ "no_route", "snmp.%c.Ip.InNoRoutes", "snmp6.%c.Ip6InNoRoutes" },
		{ "hdr_errors", "snmp.%c.Ip.InHdrErrors", "snmp6.%c.Ip6InHdrErrors" },
		{ "too_big", "snmp.%c.Ip.FragFails", "snmp6.%c.Ip6InTooBigErrors" },
		{ "addr_errors", "snmp.%c.Ip.InAddrErrors", "snmp6.%c.Ip6InAddrErrors" },
		{ "in_discards", "snmp.%c.Ip.InDiscards", "snmp6.%c.Ip6InDiscards" },
		{ "out_discards", "snmp.%c.Ip.OutDiscards", "snmp6.%c.Ip6OutDiscards" },
		{ "neigh_unresolved", "neigh.%c.arp.unresolved_discards",
		  "neigh.%c.ndisc.unresolved_discards" },
		{ "driver", "nicrx.%c.counted", "nicrx.%c.counted" },
	};
	double sum = 0;

	for (size_t i = 0; i < ARRAY_SIZE(r); i++) {
		double v = hget(m, v6 ? r[i].v6 : r[i].v4, in);

		hset(m, h->name, r[i].what, v);
		sum += v;
	}
	hset(m, h->name, "forwarded",
	     hget(m, v6 ? "snmp6.%c.Ip6OutForwDatagrams" : "snmp.%c.Ip.ForwDatagrams", in));
	return sum;
}

void scnrun_collect_hops(struct collect *c, const double *data_on_link, bool v6)
{
	const struct topo_data *d = c->cfg->topo->data;
	const struct vm_nic *tx = &c->cfg->nics[scn_tx_nic(c->s)];
	double all = 0;

	if (!d || !d->n_hops)
		return;
	for (unsigned int i = 0; i < d->n_hops; i++) {
		const struct topo_hop *h = &d->hops[i];
		/* The path runs A -> B: a hop's in NIC shares the sender's link. */
		bool fwd = c->cfg->nics[vm_nic_index(h->in)].hub == tx->hub;
		char in = fwd ? h->in : h->out, out = fwd ? h->out : h->in;
		double n_in = data_on_link[vm_nic_index(in)], n_out = data_on_link[vm_nic_index(out)];
		double lost = n_in - n_out, counted = hop_counted(c, h, in, v6);

		hset(c->m, h->name, "bridge", h->bridge);
		hset(c->m, h->name, "in", n_in);
		hset(c->m, h->name, "out", n_out);
		hset(c->m, h->name, "lost", lost);
		hset(c->m, h->name, "counted", counted);
		hset(c->m, h->name, "silent", lost > counted ? lost - counted : 0);
		all += lost;
	}
	metrics_set(c->m, "loss.lost_in_hops", all);
}
