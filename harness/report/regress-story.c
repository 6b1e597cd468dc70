// SPDX-License-Identifier: GPL-2.0
/*
 * The loss story under a failed check (regress_loss_story()): a scenario's
 * metrics told layer by layer, sender's application to receiver's, with
 * the evidence each layer has: the driver's descriptors on receive and on
 * transmit, the checksums on each link, the kernel's drop reasons, and what
 * the lost frames share.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "lib/metrics.h"
#include "scenario/regress.h"
#include "trace/txpath.h"

/* A metric, or NAN when it was not measured. */
static double mget(const struct metrics *m, const char *name)
{
	return metrics_value(m, name, NAN);
}

/* The same, for a per-NIC metric: fmt has one %c for the label. */
static double mgetl(const struct metrics *m, const char *fmt, char label)
{
	return metrics_value_label(m, fmt, label, NAN);
}

struct named_count {
	const char *v;
	double count;
};

static int cmp_count(const void *a, const void *b)
{
	const struct named_count *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->v, y->v);
}

/*
 * The metrics PREFIX.VALUE as "LEAD v1UNIT (n1), v2UNIT (n2)", the most
 * frequent first (the metrics keep the 4 most frequent values of a set).
 */
static void add_by_count(struct sbuf *b, const struct metrics *m, const char *prefix,
			 const char *lead, const char *unit)
{
	struct named_count e[16];
	size_t n = 0, pl = strlen(prefix);

	for (size_t i = 0; m && i < metrics_count(m) && n < ARRAY_SIZE(e); i++) {
		const char *name;
		double v;

		metrics_at(m, i, &name, &v);
		if (!strncmp(name, prefix, pl) && name[pl])
			e[n++] = (struct named_count){ name + pl, v };
	}
	if (n > 1)
		qsort(e, n, sizeof(*e), cmp_count);
	for (size_t i = 0; i < n; i++)
		sbuf_addf(b, "%s%s%s (%.0f)", i ? ", " : lead, e[i].v, unit, e[i].count);
}

/*
 * Each NIC label whose layer FAMILY ("nicrx.", "nictx.": 6 characters) was
 * measured (FAMILY<L>.lost), in order.
 */
static size_t layer_labels(const struct metrics *m, const char *family, char *labels, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; m && i < metrics_count(m) && n < max; i++) {
		const char *name;
		double v;

		metrics_at(m, i, &name, &v);
		if (!strncmp(name, family, 6) && name[6] && !strcmp(name + 7, ".lost") &&
		    !memchr(labels, name[6], n))
			labels[n++] = name[6];
	}
	return n;
}

/*
 * A NIC of several queues (drv.IF.qN.*): the queues whose completed
 * descriptors were not all handed up, "; queue 1: 1004 descriptors, 647
 * handed up (-357); queue 0 lost none".
 */
static void queue_evidence(const struct metrics *m, int il, const char *ifname, struct sbuf *b)
{
	bool some = false;

	for (unsigned int q = 0; q < 64; q++) {
		char dn[128], hn[128];
		double d, h;

		snprintf(dn, sizeof(dn), "drv.%.*s.q%u.rx.descs", il, ifname, q);
		snprintf(hn, sizeof(hn), "drv.%.*s.q%u.rx.handoffs", il, ifname, q);
		d = mget(m, dn);
		h = mget(m, hn);
		if (isnan(d))
			break;
		if (d > h)
			sbuf_addf(b, "; queue %u: %.0f descriptors, %.0f handed up (-%.0f)", q, d, h, d - h);
		else
			sbuf_addf(b, "%s queue %u lost none (%.0f)", some ? "," : ";", q, d);
		some = true;
	}
}

/* "e1000e ethB: 8293 descriptors completed without a hand-off: len 1514 (8293); status 0x7 (8293)" */
static void driver_evidence(const struct metrics *m, struct sbuf *b)
{
	for (size_t i = 0; m && i < metrics_count(m); i++) {
		const char *name, *ifname, *suffix = ".rx.no_handoff";
		size_t nl, sl = strlen(suffix);
		double v;

		metrics_at(m, i, &name, &v);
		nl = strlen(name);
		if (strncmp(name, "drv.", 4) || nl <= 4 + sl || strcmp(name + nl - sl, suffix) || v <= 0)
			continue;
		ifname = name + 4;
		sbuf_addf(b, "\n      driver: %.*s completed %.0f received descriptors without handing them to the stack",
			  (int)(nl - 4 - sl), ifname, v);
		{
			char *lo = xasprintf("%s_len_min", name), *hi = xasprintf("%s_len_max", name);
			double l = mget(m, lo), h = mget(m, hi);

			if (!isnan(l) && !isnan(h))
				sbuf_addf(b, l == h ? ", all %.0f B" : ", %.0f..%.0f B", l, h);
			free(lo);
			free(hi);
		}
		for (int pass = 0; pass < 2; pass++) {
			const char *what = pass ? ".rx.no_handoff_status." : ".rx.no_handoff_len.";
			char *prefix = xasprintf("drv.%.*s%s", (int)(nl - 4 - sl), ifname, what);

			add_by_count(b, m, prefix, pass ? "; status " : "; most: ", pass ? "" : " B");
			free(prefix);
		}
		queue_evidence(m, (int)(nl - 4 - sl), ifname, b);
		{
			char *per = xasprintf("%.*s_period", (int)nl, name);
			char *ph = xasprintf("%.*s_phase", (int)nl, name);
			double p = mget(m, per);

			if (p > 0)
				sbuf_addf(b, "; every %.0f%s descriptor it took (positions %.0f mod %.0f), no other",
					  p, p == 2 ? "nd" : p == 3 ? "rd" : "th", mget(m, ph), p);
			free(per);
			free(ph);
		}
	}
}

/* drv.IFNAME.WHAT, or NAN. */
static double mget_drv(const struct metrics *m, const char *ifname, const char *what)
{
	char name[128];

	snprintf(name, sizeof(name), "drv.%s%s", ifname, what);
	return mget(m, name);
}

/* @v as a count: 0 when NaN, negative or too large (a metrics.json from a file). */
static uint64_t count_of(double v)
{
	return v >= 0 && v < 0x1p64 ? (uint64_t)v : 0;
}

static uint64_t mget_drv_count(const struct metrics *m, const char *ifname, const char *what)
{
	return count_of(mget_drv(m, ifname, what));
}

/* What the @n frames ifname's driver took without descriptors share (txpath_pattern()). */
static void tx_pattern(const struct metrics *m, const char *ifname, double n, struct sbuf *b)
{
	struct txpath_traits lost = {
		.csum_partial = mget_drv_count(m, ifname, ".tx.no_desc_csum_partial"),
		.gso = mget_drv_count(m, ifname, ".tx.no_desc_gso"),
		.nonlinear = mget_drv_count(m, ifname, ".tx.no_desc_nonlinear"),
	}, all = {
		.csum_partial = mget_drv_count(m, ifname, ".tx.handed_csum_partial"),
		.gso = mget_drv_count(m, ifname, ".tx.handed_gso"),
		.nonlinear = mget_drv_count(m, ifname, ".tx.handed_nonlinear"),
	};
	double handed = mget_drv(m, ifname, ".tx.handed") + mget_drv(m, ifname, ".tx.handed_v6");
	double in_range = mget_drv(m, ifname, ".tx.handed_in_no_desc_range");
	double period = mget_drv(m, ifname, ".tx.no_desc_period");

	if (isnan(handed) || isnan(in_range) || isnan(period))
		return;
	txpath_pattern(b, count_of(n), &lost, &all, count_of(handed),
		       mget_drv_count(m, ifname, ".tx.no_desc_len_min"),
		       mget_drv_count(m, ifname, ".tx.no_desc_len_max"), count_of(in_range),
		       (unsigned int)(count_of(period) & UINT_MAX),
		       (unsigned int)(mget_drv_count(m, ifname, ".tx.no_desc_phase") & UINT_MAX));
}

/*
 * "driver: ethA took 612 frames to send without writing a descriptor, all
 * freed by consume_skb (silent), 600..898 B; most: 642 B (12), ..."
 */
static void tx_driver_evidence(const struct metrics *m, struct sbuf *b)
{
	static const char suffix[] = ".tx.no_desc";

	/* Without driver lines: what kfree_skb saw the driver's xmit drop. */
	for (size_t i = 0; m && i < metrics_count(m); i++) {
		static const char fsuf[] = ".tx.xmit_freed";
		const char *name;
		size_t nl, sl = sizeof(fsuf) - 1;
		double v;
		char *p;

		metrics_at(m, i, &name, &v);
		nl = strlen(name);
		if (strncmp(name, "drv.", 4) || nl <= 4 + sl || strcmp(name + nl - sl, fsuf) ||
		    !(v > 0))
			continue;
		p = xasprintf("%.*s", (int)(nl - 4 - sl), name + 4);
		if (isnan(mget_drv(m, p, suffix)))
			sbuf_addf(b, "\n      driver: %s freed %.0f frames to send with kfree_skb inside its xmit (no descriptor; see kfree_skb by reason; without the driver lines in the trace set the rest is not known)",
				  p, v);
		free(p);
	}

	for (size_t i = 0; m && i < metrics_count(m); i++) {
		const char *name;
		size_t nl, sl = sizeof(suffix) - 1;
		double v, quiet, lo, hi;
		char *p;

		metrics_at(m, i, &name, &v);
		nl = strlen(name);
		if (strncmp(name, "drv.", 4) || nl <= 4 + sl || strcmp(name + nl - sl, suffix) ||
		    !(v > 0))
			continue;
		p = xasprintf("%.*s", (int)(nl - 4 - sl), name + 4);
		sbuf_addf(b, "\n      driver: %s took %.0f frames to send without writing a descriptor",
			  p, v);
		quiet = mget_drv(m, p, ".tx.no_desc_silent");
		if (quiet == v)
			sbuf_adds(b, ", all freed by consume_skb (no drop event, no counter: silent)");
		else if (quiet > 0)
			sbuf_addf(b, ", %.0f of them freed by consume_skb (silent), the rest by kfree_skb", quiet);
		else if (quiet == 0)
			sbuf_adds(b, ", freed by kfree_skb (a drop event; see kfree_skb by reason)");
		lo = mget_drv(m, p, ".tx.no_desc_len_min");
		hi = mget_drv(m, p, ".tx.no_desc_len_max");
		if (!isnan(lo) && !isnan(hi))
			sbuf_addf(b, lo == hi ? ", all %.0f B" : ", %.0f..%.0f B", lo, hi);
		if (lo != hi) {
			char *prefix = xasprintf("drv.%s.tx.no_desc_len.", p);

			add_by_count(b, m, prefix, "; most: ", " B");
			free(prefix);
		}
		tx_pattern(m, p, v, b);
		free(p);
	}
}

static const char *csum_kind_upper(const char *k)
{
	static const char *const up[][2] = { { "udp", "UDP" }, { "tcp", "TCP" }, { "ip", "IPv4 header" },
					     { "icmp", "ICMP" }, { "icmpv6", "ICMPv6" } };

	for (size_t i = 0; i < ARRAY_SIZE(up); i++)
		if (!strcmp(k, up[i][0]))
			return up[i][1];
	return k;
}

/* The receivers' checksum drops: Udp/Tcp InCsumErrors (v4 and v6) of every NIC. */
static double csum_errors_in(const struct metrics *m)
{
	static const char *const fmt[] = { "snmp.%c.Udp.InCsumErrors", "snmp.%c.Tcp.InCsumErrors",
					   "snmp6.%c.Udp6InCsumErrors", "snmp.%c.Icmp.InCsumErrors" };
	double sum = 0;

	for (char l = 'A'; l <= 'Z'; l++)
		for (size_t k = 0; k < ARRAY_SIZE(fmt); k++) {
			double v = mgetl(m, fmt[k], l);

			sum += v > 0 ? v : 0;
		}
	return sum;
}

/*
 * "checksums: NIC A put 312 packets with a bad UDP checksum on its link
 * (1042..1294 B; most: 1100 B (4), ...; the first at frame 57 of its
 * capture; its tx checksum offload on); the receivers counted 312
 * checksum errors (InCsumErrors)". Only when a link carried a bad one, or
 * a receiver counted one.
 */
static void csum_evidence(const struct metrics *m, struct sbuf *b)
{
	static const char *const kinds[] = { "udp", "tcp", "ip", "icmp", "icmpv6" };
	double errs = csum_errors_in(m), sent_bad = 0;
	bool any = false;

	for (char l = 'A'; l <= 'Z'; l++) {
		double bad = mgetl(m, "csum.%c.bad", l), lo, hi, off;
		const char *kind = NULL;
		double most = 0;
		char prefix[32];

		if (!(bad > 0))
			continue;
		sent_bad += bad;
		for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
			char fmt[32];
			double v;

			snprintf(fmt, sizeof(fmt), "csum.%%c.bad_%s", kinds[k]);
			v = mgetl(m, fmt, l);
			if (v > most) {
				most = v;
				kind = kinds[k];
			}
		}
		sbuf_addf(b, "%s NIC %c put %.0f packets with a bad %s checksum on its link (its capture",
			  any ? ";" : "\n      checksums:", l, bad, kind ? csum_kind_upper(kind) : "?");
		any = true;
		lo = mgetl(m, "csum.%c.bad_len_min", l);
		hi = mgetl(m, "csum.%c.bad_len_max", l);
		if (!isnan(lo))
			sbuf_addf(b, lo == hi ? "; all %.0f B" : "; %.0f..%.0f B", lo, hi);
		snprintf(prefix, sizeof(prefix), "csum.%c.bad_len.", l);
		if (lo != hi)
			add_by_count(b, m, prefix, "; most: ", " B");
		if (!isnan(mgetl(m, "csum.%c.bad_first", l)))
			sbuf_addf(b, "; the first is frame %.0f", mgetl(m, "csum.%c.bad_first", l));
		off = mgetl(m, "offload.%c.tx_checksumming", l);
		if (!isnan(off))
			sbuf_addf(b, "; its tx checksum offload %s", off > 0 ? "on" : "off");
		sbuf_adds(b, ")");
	}
	for (char l = 'A'; l <= 'Z'; l++) {
		double in = mgetl(m, "csum.%c.bad_in", l);

		if (in > 0 && !(sent_bad > 0)) {
			sbuf_addf(b, "%s %.0f packets reached NIC %c's link with a bad checksum that no sender's own link carried: they went bad between the links",
				  any ? ";" : "\n      checksums:", in, l);
			any = true;
		}
	}
	if (errs > 0)
		sbuf_addf(b, "%s the receivers counted %.0f checksum errors (InCsumErrors)%s",
			  any ? ";" : "\n      checksums:", errs,
			  sent_bad > 0 ? ": the sender's doing, not the receiver's" :
			  " and no link carried a bad one that could be verified (raise [scenario] snaplen to verify longer frames)");
}

/* udp.flow.K.WHAT */
static double mget_flow(const struct metrics *m, size_t k, const char *what)
{
	char name[96];

	snprintf(name, sizeof(name), "udp.flow.%zu.%s", k, what);
	return mget(m, name);
}

static int cmp_lost(const void *a, const void *b)
{
	const double *x = a, *y = b;

	if (x[1] != y[1])
		return x[1] > y[1] ? -1 : 1;
	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/*
 * Several flows: the ones that lost datagrams, the most first (at most
 * eight), each followed through the layers its datagrams were counted at
 * (sent, each wire, delivered to its socket, to another's) and the CPUs.
 */
static void flow_evidence(const struct metrics *m, struct sbuf *b)
{
	size_t n = (size_t)metrics_value(m, "udp.flows", 0), lossy = 0;
	double (*e)[2];

	if (n < 2)
		return;
	e = xcalloc(n, sizeof(*e));
	for (size_t k = 0; k < n; k++) {
		e[k][0] = (double)k;
		e[k][1] = mget_flow(m, k, "lost");
		lossy += e[k][1] > 0;
	}
	if (!lossy) {
		free(e);
		return;
	}
	qsort(e, n, sizeof(*e), cmp_lost);
	sbuf_addf(b, "\n      flows: %zu of %zu lost datagrams (the most first):", lossy, n);
	for (size_t i = 0; i < lossy && i < 8; i++) {
		size_t k = (size_t)e[i][0];
		double mis = mget_flow(m, k, "misdelivered"), cpu = mget_flow(m, k, "rx_cpu");
		double wtx = mget_flow(m, k, "wire_tx"), wrx = mget_flow(m, k, "wire_rx");

		sbuf_addf(b, "\n        flow %zu (source port %.0f): sent %.0f", k,
			  mget_flow(m, k, "sport"), mget_flow(m, k, "sent"));
		if (!isnan(wtx))
			sbuf_addf(b, " -> sender's wire %.0f -> receiver's wire %.0f", wtx, wrx);
		sbuf_addf(b, " -> its socket %.0f, lost %.0f", mget_flow(m, k, "unique"), e[i][1]);
		if (mis > 0)
			sbuf_addf(b, ", of them %.0f delivered to another flow's socket (socket demux)",
				  mis);
		else if (!isnan(wtx) && wtx < mget_flow(m, k, "sent"))
			sbuf_addf(b, ", %.0f before the sender's wire", mget_flow(m, k, "sent") - wtx);
		else if (!isnan(wrx) && wrx < wtx)
			sbuf_addf(b, ", %.0f between the NICs", wtx - wrx);
		else if (!isnan(wrx))
			sbuf_addf(b, ", %.0f after the receiver's wire (its NIC/driver or stack)",
				  wrx - mget_flow(m, k, "unique"));
		if (!isnan(cpu))
			sbuf_addf(b, "; read on CPU %.0f", cpu);
	}
	free(e);
}

/*
 * Loss between the two ends' links: hop by hop when the topology has hops
 * (scnrun-hops.c: hop.NAME.*, the reasons its namespace counted), the rest
 * as lost on the wire.
 */
static double hop_value(const struct metrics *m, const char *hop, const char *what)
{
	char *key = xasprintf("hop.%s.%s", hop, what);
	double v = metrics_value(m, key, 0);

	free(key);
	return isnan(v) ? 0 : v;
}

static void hop_evidence(const struct metrics *m, double wire, struct sbuf *b)
{
	static const struct { const char *what, *says; } r[] = {
		{ "no_route", "no route" },
		{ "hdr_errors", "header errors/TTL expired" },
		{ "too_big", "too big for the next link's MTU (fragmentation needed)" },
		{ "addr_errors", "address errors" },
		{ "in_discards", "discarded on input" },
		{ "out_discards", "discarded on output" },
		{ "neigh_unresolved", "neighbour unresolved" },
		{ "driver", "dropped by its in NIC's driver" },
	};
	double in_hops = 0;

	for (size_t i = 0; i < metrics_count(m); i++) {
		const char *name, *dot;
		double v, counted, silent;
		char hop[32];

		metrics_at(m, i, &name, &v);
		if (strncmp(name, "hop.", 4) || !(dot = strrchr(name, '.')) ||
		    strcmp(dot, ".lost") || v <= 0 || (size_t)(dot - name - 4) >= sizeof(hop))
			continue;
		snprintf(hop, sizeof(hop), "%.*s", (int)(dot - name - 4), name + 4);
		in_hops += v;
		sbuf_addf(b, " %.0f at hop %s (%s; in %.0f, out %.0f):", v, hop,
			  hop_value(m, hop, "bridge") > 0 ? "the bridge" : "IP forwarding",
			  hop_value(m, hop, "in"), hop_value(m, hop, "out"));
		for (size_t k = 0, first = 1; k < ARRAY_SIZE(r); k++) {
			double n = hop_value(m, hop, r[k].what);

			if (n > 0)
				sbuf_addf(b, "%s %s %.0f", first ? "" : ",", r[k].says, n);
			first = first && !(n > 0);
		}
		counted = hop_value(m, hop, "counted");
		silent = v - counted;
		if (!(counted > 0))
			sbuf_adds(b, " no counter of its namespace moved (silent: see kfree_skb above);");
		else if (silent > 0)
			sbuf_addf(b, ", %.0f that no counter explains;", silent);
		else
			sbuf_adds(b, ";");
	}
	if (wire - in_hops > 0)
		sbuf_addf(b, " %.0f between the NICs (on the wire);", wire - in_hops);
}

/*
 * " N frames dropped at CPU K's backlog (...);" for each CPU of the receiving
 * VM whose softnet dropped moved, and the trace's CPU_BACKLOG drops; the
 * total in *n.
 */
static void cpu_backlog_evidence(const struct metrics *m, struct sbuf *b, double *n)
{
	double traced = mget(m, "drops.reason.CPU_BACKLOG");

	*n = 0;
	for (size_t i = 0; m && i < metrics_count(m); i++) {
		const char *name, *dot;
		double v;

		metrics_at(m, i, &name, &v);
		if (strncmp(name, "softnet.cpu", 11) || !(dot = strchr(name + 11, '.')) ||
		    strcmp(dot, ".dropped") || !(v > 0))
			continue;
		*n += v;
		if (b)
			sbuf_addf(b, " %.0f frames dropped at CPU %.*s's backlog (softnet dropped; RPS/netif_rx queue full, netdev_max_backlog);",
				  v, (int)(dot - name - 11), name + 11);
	}
	if (b && *n > 0 && traced > 0)
		sbuf_addf(b, " the trace saw %.0f kfree_skb with reason CPU_BACKLOG;", traced);
}

/*
 * The IPv6 layer of each NIC whose IPv6 drop counters moved (snmp6, family
 * = 6): "IPv6 layer at B: Ip6InDiscards 40, Udp6InErrors 3", and its
 * reassembly, as the IPv4 one's (Ip6Reasm*).
 */
static void ip6_evidence(const struct metrics *m, struct sbuf *b)
{
	static const char *const drops[] = {
		"Ip6InDiscards", "Ip6InHdrErrors", "Ip6InAddrErrors", "Ip6InNoRoutes",
		"Ip6InTooBigErrors", "Ip6InTruncatedPkts", "Ip6InUnknownProtos", "Ip6ReasmFails",
		"Ip6ReasmTimeout", "Ip6OutDiscards", "Ip6OutNoRoutes", "Ip6FragFails",
		"Icmp6InPktTooBigs", "Icmp6InDestUnreachs", "Icmp6OutPktTooBigs",
		"Icmp6OutDestUnreachs", "Udp6InErrors", "Udp6NoPorts", "Udp6RcvbufErrors",
		"Udp6SndbufErrors", "Udp6InCsumErrors",
	};

	for (char l = 'A'; l < 'A' + VM_MAX_NICS; l++) {
		double v[4];
		bool first = true;

		for (size_t k = 0; k < ARRAY_SIZE(drops); k++) {
			char *fmt = xasprintf("snmp6.%%c.%s", drops[k]);
			double n = mgetl(m, fmt, l);

			free(fmt);
			if (!(n > 0))
				continue;
			if (first)
				sbuf_addf(b, "\n      IPv6 layer at %c: ", l);
			sbuf_addf(b, "%s%s %.0f", first ? "" : ", ", drops[k], n);
			first = false;
		}
		v[0] = mgetl(m, "snmp6.%c.Ip6ReasmReqds", l);
		v[1] = mgetl(m, "snmp6.%c.Ip6ReasmOKs", l);
		v[2] = mgetl(m, "snmp6.%c.Ip6ReasmFails", l);
		v[3] = mgetl(m, "snmp6.%c.Ip6ReasmTimeout", l);
		if (v[0] > 0)
			sbuf_addf(b, "\n      IPv6 reassembly at %c: %.0f fragments -> %.0f datagrams, %.0f failed, %.0f timed out (Ip6Reasm*)",
				  l, v[0], isnan(v[1]) ? 0 : v[1], isnan(v[2]) ? 0 : v[2],
				  isnan(v[3]) ? 0 : v[3]);
	}
}

char *regress_loss_story(const struct metrics *m)
{
	double sent = mget(m, "loss.app_sent"), before = mget(m, "loss.lost_before_wire");
	double wire = mget(m, "loss.lost_on_wire"), stack = mget(m, "loss.lost_in_stack");
	double drv = mget(m, "loss.driver_drops"), un = mget(m, "loss.unaccounted");
	double txdrv = mget(m, "loss.tx_driver_drops");
	char labels[8], tx_labels[8];
	size_t n_labels = layer_labels(m, "nicrx.", labels, sizeof(labels));
	size_t n_tx = layer_labels(m, "nictx.", tx_labels, sizeof(tx_labels));
	bool driver_lost = false, tx_lost = false;
	double backlog, hops;
	struct sbuf b;

	if (isnan(sent) && !n_labels && !n_tx)
		return NULL;
	sbuf_init(&b);
	if (!isnan(sent) && !isnan(txdrv))
		sbuf_addf(&b, "sent %.0f -> sender stack -%.0f (counted %.0f) -> sender's driver -%.0f -> "
			      "wire %.0f -> receiver's wire %.0f (-%.0f between the NICs) -> NIC/driver -%.0f -> "
			      "receiver stack -%.0f (counted %.0f) -> delivered %.0f; unaccounted %.0f",
			  sent, before - txdrv, mget(m, "loss.tx_stack_drops"), txdrv,
			  mget(m, "loss.wire_tx"), mget(m, "loss.wire_rx"), wire, isnan(drv) ? 0 : drv,
			  stack, mget(m, "loss.rx_stack_drops"), mget(m, "loss.app_received"), un);
	else if (!isnan(sent))
		sbuf_addf(&b, "sent %.0f -> sender stack -%.0f (counted %.0f) -> wire %.0f -> "
			      "receiver's wire %.0f (-%.0f between the NICs) -> NIC/driver -%.0f -> "
			      "receiver stack -%.0f (counted %.0f) -> delivered %.0f; unaccounted %.0f",
			  sent, before, mget(m, "loss.tx_stack_drops"), mget(m, "loss.wire_tx"),
			  mget(m, "loss.wire_rx"), wire, isnan(drv) ? 0 : drv, stack,
			  mget(m, "loss.rx_stack_drops"), mget(m, "loss.app_received"), un);
	for (size_t i = 0; i < n_tx; i++) {
		double h = mgetl(m, "nictx.%c.handed", tx_labels[i]);
		double w = mgetl(m, "nictx.%c.wire", tx_labels[i]);
		double lost = mgetl(m, "nictx.%c.lost", tx_labels[i]);

		tx_lost |= lost > 0;
		sbuf_addf(&b, "%s%c %.0f to its driver -> %.0f on its wire", i ? "; " :
			  (b.len ? "\n      IPv4 frames out of each NIC: " : "IPv4 frames out of each NIC: "),
			  tx_labels[i], h, w);
		if (lost > 0)
			sbuf_addf(&b, " (-%.0f in its driver/NIC)", lost);
	}
	for (size_t i = 0; i < n_labels; i++) {
		double w = mgetl(m, "nicrx.%c.wire", labels[i]), ip = mgetl(m, "nicrx.%c.ip", labels[i]);
		double lost = mgetl(m, "nicrx.%c.lost", labels[i]);

		double bl = mgetl(m, "nicrx.%c.backlog", labels[i]);

		driver_lost |= lost > 0;
		sbuf_addf(&b, "%s%c %.0f on its wire -> %.0f at IP", i ? "; " :
			  (!b.len ? "IP frames into each NIC: " : "\n      IP frames into each NIC: "),
			  labels[i], w, ip);
		if (lost > 0)
			sbuf_addf(&b, " (-%.0f in its NIC/driver)", lost);
		if (bl > 0)
			sbuf_addf(&b, " (-%.0f at a CPU's backlog, after its driver)", bl);
	}
	for (size_t i = 0; i < n_labels; i++) {
		/* Fragments: what the receiving IP layer made of them. */
		static const char *const fmt[] = { "snmp.%c.Ip.ReasmReqds", "snmp.%c.Ip.ReasmOKs",
						   "snmp.%c.Ip.ReasmFails", "snmp.%c.Ip.ReasmTimeout" };
		double v[4];

		for (int k = 0; k < 4; k++)
			v[k] = mgetl(m, fmt[k], labels[i]);
		if (v[0] > 0)
			sbuf_addf(&b, "\n      reassembly at %c: %.0f fragments -> %.0f datagrams, %.0f failed, %.0f timed out (Ip.Reasm*)",
				  labels[i], v[0], v[1], isnan(v[2]) ? 0 : v[2], isnan(v[3]) ? 0 : v[3]);
	}
	if (!isnan(mget(m, "tcp.retransmits")))
		sbuf_addf(&b, "\n      TCP: %.0f retransmits (tcp_info of the sender)", mget(m, "tcp.retransmits"));
	{
		/* What the trace says, by the kernel's own reason names. */
		bool first = true;

		for (size_t i = 0; m && i < metrics_count(m); i++) {
			const char *name;
			double v;

			metrics_at(m, i, &name, &v);
			if (strncmp(name, "drops.reason.", 13) || v <= 0)
				continue;
			sbuf_addf(&b, "%s%s %.0f", first ? "\n      kfree_skb by reason: " : ", ",
				  name + 13, v);
			first = false;
		}
	}
	ip6_evidence(m, &b);
	driver_evidence(m, &b);
	tx_driver_evidence(m, &b);
	csum_evidence(m, &b);
	flow_evidence(m, &b);
	cpu_backlog_evidence(m, NULL, &backlog);
	/* A TCP stream's segments lost at a hop: no UDP identity, the hops' own counts. */
	hops = isnan(mget(m, "udp.sent")) ? mget(m, "loss.lost_in_hops") : 0;
	if (before > 0 || wire > 0 || stack > 0 || drv > 0 || driver_lost || tx_lost || backlog > 0 ||
	    hops > 0) {
		sbuf_adds(&b, "\n      packets went missing:");
		if (before - (isnan(txdrv) ? 0 : txdrv) > 0)
			sbuf_addf(&b, " %.0f in the sender's stack (before the wire; qdisc/netem);",
				  before - (isnan(txdrv) ? 0 : txdrv));
		for (size_t i = 0; i < n_tx; i++) {
			double lost = mgetl(m, "nictx.%c.lost", tx_labels[i]);
			double silent = mgetl(m, "nictx.%c.silent", tx_labels[i]);
			double counted = mgetl(m, "nictx.%c.counted", tx_labels[i]);
			double no_desc = mgetl(m, "nictx.%c.no_desc", tx_labels[i]);

			if (!(lost > 0))
				continue;
			sbuf_addf(&b, " %.0f IPv4 frames handed to NIC %c's driver never reached its wire",
				  lost, tx_labels[i]);
			if (no_desc >= lost)
				sbuf_adds(&b, ": the driver took them without writing a descriptor");
			else if (no_desc > 0)
				sbuf_addf(&b, ": %.0f taken by the driver without a descriptor, %.0f after one (the NIC)",
					  no_desc, lost - no_desc);
			if (silent > 0 && !(counted > 0))
				sbuf_adds(&b, " (no counter moved, no drop event: silent);");
			else if (counted > 0)
				sbuf_addf(&b, " (its NIC counters say %.0f dropped: ethtool -S);", counted);
			else
				sbuf_adds(&b, " (no counter moved; kfree_skb saw them);");
		}
		if (wire > 0 || hops > 0)
			hop_evidence(m, wire, &b);
		/* A layer of its own, between the driver's hand-off and IP, per CPU. */
		cpu_backlog_evidence(m, &b, &backlog);
		for (size_t i = 0; i < n_labels; i++) {
			double lost = mgetl(m, "nicrx.%c.lost", labels[i]);
			double silent = mgetl(m, "nicrx.%c.silent", labels[i]);
			double counted = mgetl(m, "nicrx.%c.counted", labels[i]);

			if (lost <= 0)
				continue;
			sbuf_addf(&b, " %.0f IP frames in NIC %c's NIC/driver (on its wire, never at its IP layer; no stack counter sees them",
				  lost, labels[i]);
			if (silent > 0 && !(counted > 0))
				sbuf_adds(&b, ", and no NIC or driver counter moved: silent);");
			else if (silent > 0)
				sbuf_addf(&b, "; its NIC counters say %.0f dropped, %.0f silent);", counted,
					  silent);
			else
				sbuf_addf(&b, "; its NIC counters say %.0f dropped: ethtool -S);", counted);
		}
		if (stack > 0 && csum_errors_in(m) > 0 && mgetl(m, "csum.%c.bad", 'A') +
								  mgetl(m, "csum.%c.bad", 'B') > 0)
			sbuf_addf(&b, " %.0f in the receiver's stack (after the driver), %.0f of them for checksums the sender's NIC got wrong;",
				  stack, csum_errors_in(m));
		else if (stack > 0)
			sbuf_addf(&b, " %.0f in the receiver's stack (after the driver);", stack);
		if (mget(m, "loss.misdelivered") > 0)
			sbuf_addf(&b, " %.0f of them delivered by the stack to another flow's socket (socket demux: the lookup among the sockets on the port);",
				  mget(m, "loss.misdelivered"));
	}
	return sbuf_detach(&b);
}
