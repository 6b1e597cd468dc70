// SPDX-License-Identifier: GPL-2.0
/*
 * What netlab regress reports: a table for people, KTAP for kernel CI,
 * JUnit XML for generic CI, and a JSON summary with every number.
 */
#include <errno.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/jsonout.h"
#include "lib/provenance.h"
#include "scenario/baseline.h"
#include "scenario/regress-int.h"
#include "scenario/regress.h"
#include "scenario/scnrun.h"
#include "trace/txpath.h"

static void fmt_num(char *buf, size_t n, double v)
{
	if (isnan(v))
		snprintf(buf, n, "-");
	else if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.4g", v);
}

/* "12 [10..14]" for a value measured over several runs. */
static void fmt_value(char *buf, size_t n, const struct regress_check *rc, unsigned int runs)
{
	char v[24], lo[24], hi[24];

	fmt_num(v, sizeof(v), rc->res.status == CHECK_PASS || rc->res.status == CHECK_FAIL ?
				      rc->res.value : NAN);
	if (runs < 2 || isnan(rc->min) || rc->min == rc->max) {
		snprintf(buf, n, "%s", v);
		return;
	}
	fmt_num(lo, sizeof(lo), rc->min);
	fmt_num(hi, sizeof(hi), rc->max);
	snprintf(buf, n, "%s [%s..%s]", v, lo, hi);
}

static const char *check_verdict(const struct regress_scn *rs, const struct regress_check *rc)
{
	if (!rs->median)
		return regress_outcome_name(rs->outcome);
	return check_status_name(rc->res.status);
}

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

/* Each NIC label whose NIC/driver layer was measured (nicrx.<L>.lost), in order. */
static size_t nicrx_labels(const struct metrics *m, char *labels, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; m && i < metrics_count(m) && n < max; i++) {
		const char *name;
		double v;

		metrics_at(m, i, &name, &v);
		if (!strncmp(name, "nicrx.", 6) && name[6] && !strcmp(name + 7, ".lost") &&
		    !memchr(labels, name[6], n))
			labels[n++] = name[6];
	}
	return n;
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
	}
}

/* Each NIC label whose transmit side was measured (nictx.<L>.lost), in order. */
static size_t nictx_labels(const struct metrics *m, char *labels, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; m && i < metrics_count(m) && n < max; i++) {
		const char *name;
		double v;

		metrics_at(m, i, &name, &v);
		if (!strncmp(name, "nictx.", 6) && name[6] && !strcmp(name + 7, ".lost") &&
		    !memchr(labels, name[6], n))
			labels[n++] = name[6];
	}
	return n;
}

/* drv.IFNAME.WHAT, or NAN. */
static double mget_drv(const struct metrics *m, const char *ifname, const char *what)
{
	char name[128];

	snprintf(name, sizeof(name), "drv.%s%s", ifname, what);
	return mget(m, name);
}

/* What the @n frames ifname's driver took without descriptors share (txpath_pattern()). */
static void tx_pattern(const struct metrics *m, const char *ifname, double n, struct sbuf *b)
{
	struct txpath_traits lost = {
		.csum_partial = (uint64_t)mget_drv(m, ifname, ".tx.no_desc_csum_partial"),
		.gso = (uint64_t)mget_drv(m, ifname, ".tx.no_desc_gso"),
		.nonlinear = (uint64_t)mget_drv(m, ifname, ".tx.no_desc_nonlinear"),
	}, all = {
		.csum_partial = (uint64_t)mget_drv(m, ifname, ".tx.handed_csum_partial"),
		.gso = (uint64_t)mget_drv(m, ifname, ".tx.handed_gso"),
		.nonlinear = (uint64_t)mget_drv(m, ifname, ".tx.handed_nonlinear"),
	};
	double handed = mget_drv(m, ifname, ".tx.handed") + mget_drv(m, ifname, ".tx.handed_v6");
	double in_range = mget_drv(m, ifname, ".tx.handed_in_no_desc_range");
	double period = mget_drv(m, ifname, ".tx.no_desc_period");

	if (isnan(handed) || isnan(in_range) || isnan(period))
		return;
	txpath_pattern(b, (uint64_t)n, &lost, &all, (uint64_t)handed,
		       (uint64_t)mget_drv(m, ifname, ".tx.no_desc_len_min"),
		       (uint64_t)mget_drv(m, ifname, ".tx.no_desc_len_max"), (uint64_t)in_range,
		       (unsigned int)period, (unsigned int)mget_drv(m, ifname, ".tx.no_desc_phase"));
}

/*
 * "driver: ethA took 612 frames to send without writing a descriptor, all
 * freed by consume_skb (silent), 600..898 B; most: 642 B (12), ..."
 */
static void tx_driver_evidence(const struct metrics *m, struct sbuf *b)
{
	static const char suffix[] = ".tx.no_desc";

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

char *regress_loss_story(const struct metrics *m)
{
	double sent = mget(m, "loss.app_sent"), before = mget(m, "loss.lost_before_wire");
	double wire = mget(m, "loss.lost_on_wire"), stack = mget(m, "loss.lost_in_stack");
	double drv = mget(m, "loss.driver_drops"), un = mget(m, "loss.unaccounted");
	double txdrv = mget(m, "loss.tx_driver_drops");
	char labels[8], tx_labels[8];
	size_t n_labels = nicrx_labels(m, labels, sizeof(labels));
	size_t n_tx = nictx_labels(m, tx_labels, sizeof(tx_labels));
	bool driver_lost = false, tx_lost = false;
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

		driver_lost |= lost > 0;
		sbuf_addf(&b, "%s%c %.0f on its wire -> %.0f at IP", i ? "; " :
			  (!b.len ? "IP frames into each NIC: " : "\n      IP frames into each NIC: "),
			  labels[i], w, ip);
		if (lost > 0)
			sbuf_addf(&b, " (-%.0f in its NIC/driver)", lost);
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
	driver_evidence(m, &b);
	tx_driver_evidence(m, &b);
	csum_evidence(m, &b);
	if (before > 0 || wire > 0 || stack > 0 || drv > 0 || driver_lost || tx_lost) {
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
		if (wire > 0)
			sbuf_addf(&b, " %.0f between the NICs (on the wire);", wire);
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
	}
	return sbuf_detach(&b);
}

/* ---- which stage moved ------------------------------------------------- */

#define STAGES_SHOWN 3

/*
 * "rx.drv_ip" of "latency.rx.drv_ip.p50_us", "tx.dev.ethA" of a NIC's own
 * "latency.tx.dev.ethA.p50_us"; NULL for any other name. Caller frees.
 */
static char *p50_stage(const char *name)
{
	size_t n = strlen(name);

	if (!baseline_is_stage_metric(name) || strcmp(name + n - 7, ".p50_us"))
		return NULL;
	return xasprintf("%.*s", (int)(n - 8 - 7), name + 8);
}

/* Insert mv into out (n of max, largest increase first); false when it did not fit. */
static bool insert_move(struct regress_stage_move *out, size_t n, size_t max,
			const struct regress_stage_move *mv)
{
	size_t i = n;
	double up = mv->now_us - mv->base_us;

	while (i > 0 && out[i - 1].now_us - out[i - 1].base_us < up)
		i--;
	if (i >= max)
		return false;
	if (n == max)
		free(out[--n].stage);
	memmove(&out[i + 1], &out[i], (n - i) * sizeof(*out));
	out[i] = *mv;
	return true;
}

/*
 * A direction's stage ("tx.dev") is left out where both maps hold a NIC's
 * own p50 of it ("tx.dev.ethA"): that one says which NIC moved, and the
 * direction's, a mix of the NICs', would only take a place of the three.
 */
size_t regress_stages_moved(const struct metrics *base, const struct metrics *now,
			    struct regress_stage_move *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; base && now && max && i < metrics_count(now); i++) {
		struct regress_stage_move mv;
		const char *name;
		bool dir_stage, per_nic = false;
		char *stage;
		size_t len;

		metrics_at(now, i, &name, &mv.now_us);
		stage = p50_stage(name);
		if (!stage)
			continue;
		len = strlen(stage);
		/* A direction's stage has one dot ("tx.dev"), a NIC's two. */
		dir_stage = strchr(stage, '.') == strrchr(stage, '.');
		for (size_t j = 0; dir_stage && !per_nic && j < metrics_count(now); j++) {
			const char *nic_name;
			char *nic;
			double v;

			metrics_at(now, j, &nic_name, &v);
			nic = p50_stage(nic_name);
			per_nic = nic && !strncmp(nic, stage, len) && nic[len] == '.' &&
				  !strchr(nic + len + 1, '.') && metrics_get(base, nic_name, NULL);
			free(nic);
		}
		if (per_nic) {
			free(stage);
			continue;
		}
		mv.stage = stage;
		if (!metrics_get(base, name, &mv.base_us) || !(mv.now_us > mv.base_us) ||
		    !insert_move(out, n, max, &mv)) {
			free(stage);
			continue;
		}
		n += n < max;
	}
	return n;
}

/* Does m hold a p50 of some stage? With stages_in, only of a stage stages_in has too. */
static bool has_p50_stage(const struct metrics *m, const struct metrics *stages_in)
{
	bool found;

	for (size_t i = 0; m && i < metrics_count(m); i++) {
		const char *name;
		char *stage;
		double v;

		metrics_at(m, i, &name, &v);
		stage = p50_stage(name);
		found = stage && (!stages_in || metrics_get(stages_in, name, NULL));
		free(stage);
		if (found)
			return true;
	}
	return false;
}

char *regress_stage_story(const struct metrics *base, const struct metrics *now)
{
	struct regress_stage_move mv[STAGES_SHOWN];
	size_t n;
	struct sbuf b;

	if (!has_p50_stage(now, NULL))
		return NULL;
	if (!base)
		return xstrdup("stages: baseline has no per-stage latencies (netlab regress --update-baselines records them)");
	if (!has_p50_stage(now, base))
		return xstrdup("stages: the baseline's per-stage latencies name none of this run's stages");
	n = regress_stages_moved(base, now, mv, STAGES_SHOWN);
	if (!n)
		return xstrdup("stages: no stage's p50 rose above the baseline's");
	sbuf_init(&b);
	for (size_t i = 0; i < n; i++) {
		sbuf_addf(&b, "%s%s p50 %.1f -> %.1f us (+%.1f us", i ? "; " : "stage moved: ",
			  mv[i].stage, mv[i].base_us, mv[i].now_us, mv[i].now_us - mv[i].base_us);
		/* The factor, when the stage took half as long again or more. */
		if (mv[i].base_us > 0 && mv[i].now_us >= 1.5 * mv[i].base_us)
			sbuf_addf(&b, ", x%.1f", mv[i].now_us / mv[i].base_us);
		sbuf_adds(&b, ")");
		free(mv[i].stage);
	}
	return sbuf_detach(&b);
}

bool regress_latency_subject(const char *subject)
{
	return subject && (!strncmp(subject, "rr.", 3) || strstr(subject, "latency"));
}

/* A latency check of rs failed: which stage moved, as regress_stage_story(); else NULL. */
static char *scn_stage_story(const struct regress_scn *rs)
{
	bool latency_failed = false;

	for (size_t c = 0; rs->median && c < rs->scn->n_checks; c++)
		latency_failed |= rs->checks[c].res.status == CHECK_FAIL &&
				  regress_latency_subject(check_subject(rs->checks[c].check->expr));
	return latency_failed ? regress_stage_story(rs->base_stages, rs->median) : NULL;
}

/* The first run whose own checks failed, else the first run; NULL when none has a directory. */
static const struct regress_run *failing_run(const struct regress_scn *rs)
{
	for (unsigned int i = 0; i < rs->n_runs; i++)
		if (rs->runs[i].dir && rs->runs[i].checks_failed)
			return &rs->runs[i];
	return rs->n_runs && rs->runs[0].dir ? &rs->runs[0] : NULL;
}

/*
 * The command that takes a failing run to its first drop under gdb: the
 * first run whose own checks failed (else the first run), if it was
 * recorded; else how to record it.
 */
static void print_replay_hint(const struct regress_scn *rs, FILE *f)
{
	const struct regress_run *run = failing_run(rs);
	char *rec;

	if (!run)
		return;
	rec = run_recording_dir(run->dir);
	if (rec)
		fprintf(f, "  replay: netlab gdb --replay %s --until first-drop   (add --batch FILE to script it)\n",
			run->dir);
	else
		fprintf(f, "  replay: record it with 'netlab regress --record %s', then 'netlab gdb --replay RUN_DIR --until first-drop'\n",
			rs->scn->name);
	free(rec);
}

/* "CMD WORD/suffix" as one line of b, the path quoted for a shell when it needs it. */
static void add_command(struct sbuf *b, const char *cmd, const char *dir, const char *suffix)
{
	char *p = suffix ? xasprintf("%s/%s", dir, suffix) : xstrdup(dir);

	if (b->len)
		sbuf_adds(b, "\n");
	sbuf_adds(b, cmd);
	sbuf_adds(b, " ");
	sbuf_add_shell_word(b, p);
	free(p);
}

/* A line "cmd FILE" for each file under dir that pattern matches. */
static void add_matches(struct sbuf *b, const char *cmd, const char *dir, const char *pattern)
{
	char *pat = xasprintf("%s/%s", dir, pattern);
	glob_t g;

	if (glob(pat, 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++)
			add_command(b, cmd, g.gl_pathv[i], NULL);
		globfree(&g);
	}
	free(pat);
}

char *regress_look_commands(const struct regress_scn *rs)
{
	const struct regress_run *run = failing_run(rs);
	struct sbuf b;

	if (!run)
		return NULL;
	sbuf_init(&b);
	add_command(&b, "netlab report", run->dir, NULL);
	add_command(&b, "netlab report --html", run->dir, NULL);
	/* A two-VM run keeps each VM's files in vm-a/, vm-b/. */
	add_matches(&b, "kernelshark", run->dir, "files/trace.dat");
	add_matches(&b, "kernelshark", run->dir, "vm-*/files/trace.dat");
	add_matches(&b, "wireshark", run->dir, "nic-*.pcap");
	add_matches(&b, "wireshark", run->dir, "vm-*/nic-*.pcap");
	return sbuf_detach(&b);
}

/* Each line of text (NULL: none) to f, after prefix. */
static void print_lines(FILE *f, const char *prefix, const char *text)
{
	for (const char *p = text; p && *p;) {
		size_t n = strcspn(p, "\n");

		fprintf(f, "%s%.*s\n", prefix, (int)n, p);
		p += n + (p[n] == '\n');
	}
}

/* The same into @b. */
static void print_lines_sbuf(struct sbuf *b, const char *prefix, const char *text)
{
	for (const char *p = text; p && *p;) {
		size_t n = strcspn(p, "\n");

		sbuf_addf(b, "%s%.*s\n", prefix, (int)n, p);
		p += n + (p[n] == '\n');
	}
}

/* ---- what CI outputs count ------------------------------------------ */

static enum regress_item_class outcome_class(enum regress_outcome o)
{
	switch (o) {
	case RO_PASS: return RIC_PASSED;
	case RO_FAIL: return RIC_FAILED;
	case RO_BAD: return RIC_ERROR;
	default: return RIC_SKIPPED;
	}
}

static enum regress_item_class check_class(const struct regress_scn *rs, const struct regress_check *rc)
{
	if (!rs->median || rs->outcome == RO_SKIP)
		return outcome_class(rs->outcome);
	switch (rc->res.status) {
	case CHECK_PASS: return RIC_PASSED;
	case CHECK_FAIL: return RIC_FAILED;
	case CHECK_NOT_MEASURED: return RIC_SKIPPED;
	default: return RIC_ERROR;
	}
}

/* Does the scenario need the "runs" item: no check says why it did not pass, or it has none? */
static bool runs_item(const struct regress_scn *rs)
{
	if (!rs->scn->n_checks)
		return true;
	if (rs->outcome == RO_PASS)
		return false;
	for (size_t c = 0; c < rs->scn->n_checks; c++)
		if (check_class(rs, &rs->checks[c]) != RIC_PASSED)
			return false;
	return true;
}

size_t regress_n_items(const struct regress_scn *rs)
{
	return rs->scn->n_checks + runs_item(rs);
}

enum regress_item_class regress_item_class(const struct regress_scn *rs, size_t i)
{
	return i < rs->scn->n_checks ? check_class(rs, &rs->checks[i]) : outcome_class(rs->outcome);
}

const char *regress_item_name(const struct regress_scn *rs, size_t i)
{
	return i < rs->scn->n_checks ? rs->checks[i].check->name : "runs";
}

void regress_count(const struct regress *r, struct regress_counts *c)
{
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < r->n; i++) {
		for (size_t k = 0; k < regress_n_items(&r->s[i]); k++) {
			c->total++;
			switch (regress_item_class(&r->s[i], k)) {
			case RIC_PASSED: c->passed++; break;
			case RIC_FAILED: c->failed++; break;
			case RIC_ERROR: c->errors++; break;
			case RIC_SKIPPED: c->skipped++; break;
			}
		}
	}
}

void regress_print_table(const struct regress *r, FILE *f)
{
	size_t pass = 0;

	fprintf(f, "%-24s %-18s %-28s %-20s %-22s %s\n", "SCENARIO", "CHECK", "METRIC",
		"VALUE [min..max]", "BOUND", "VERDICT");
	for (size_t i = 0; i < r->n; i++) {
		const struct regress_scn *rs = &r->s[i];
		char *story;

		pass += rs->outcome == RO_PASS;
		for (size_t c = 0; c < rs->scn->n_checks; c++) {
			const struct regress_check *rc = &rs->checks[c];
			const char *subj = check_subject(rc->check->expr);
			char val[96], bound[48], b[32];

			fmt_value(val, sizeof(val), rc, rs->n_runs);
			fmt_num(b, sizeof(b), rc->res.bound);
			snprintf(bound, sizeof(bound), "%s %s", check_op_str(rc->res.op), b);
			fprintf(f, "%-24s %-18s %-28s %-20s %-22s %s\n", rs->scn->name,
				rc->check->name, subj ? subj : "-", val,
				rs->median ? bound : "-", check_verdict(rs, rc));
		}
		story = regress_explain(rs);
		print_lines(f, "  ", story);
		free(story);
		if (rs->outcome == RO_FAIL)
			print_replay_hint(rs, f);
	}
	fprintf(f, "%zu/%zu scenarios passed in %.0f s; results in %s\n", pass, r->n, r->wall_s,
		r->dir);
}

static struct json_object *jnum_or_null(double v)
{
	return isnan(v) || isinf(v) ? NULL : metrics_json_number(v);
}

static struct json_object *json_checks(const struct regress_scn *rs)
{
	struct json_object *arr = json_object_new_array();

	for (size_t c = 0; c < rs->scn->n_checks; c++) {
		const struct regress_check *rc = &rs->checks[c];
		struct json_object *o = json_object_new_object();
		const char *subj = check_subject(rc->check->expr);

		json_object_object_add(o, "name", json_object_new_string(rc->check->name));
		json_object_object_add(o, "expr", json_object_new_string(check_text(rc->check->expr)));
		json_object_object_add(o, "subject", subj ? json_object_new_string(subj) : NULL);
		json_object_object_add(o, "status", json_object_new_string(check_verdict(rs, rc)));
		json_object_object_add(o, "value", jnum_or_null(rc->res.value));
		json_object_object_add(o, "op", json_object_new_string(check_op_str(rc->res.op)));
		json_object_object_add(o, "bound", jnum_or_null(rc->res.bound));
		json_object_object_add(o, "min", jnum_or_null(rc->min));
		json_object_object_add(o, "max", jnum_or_null(rc->max));
		json_object_object_add(o, "baseline", jnum_or_null(rc->baseline));
		json_object_object_add(o, "error", rc->res.err ? json_object_new_string(rc->res.err) : NULL);
		json_object_array_add(arr, o);
	}
	return arr;
}

/* [ { "stage", "baseline_p50_us", "p50_us" } ] of the stages that moved most. */
static struct json_object *json_stages_moved(const struct regress_scn *rs)
{
	struct regress_stage_move mv[STAGES_SHOWN];
	size_t n = regress_stages_moved(rs->base_stages, rs->median, mv, STAGES_SHOWN);
	struct json_object *arr = json_object_new_array();

	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "stage", json_object_new_string(mv[i].stage));
		json_object_object_add(o, "baseline_p50_us", metrics_json_number(mv[i].base_us));
		json_object_object_add(o, "p50_us", metrics_json_number(mv[i].now_us));
		json_object_array_add(arr, o);
		free(mv[i].stage);
	}
	return arr;
}

static struct json_object *json_scenario(const struct regress_scn *rs)
{
	struct json_object *o = json_object_new_object(), *runs = json_object_new_array();
	char *story = regress_loss_story(rs->median), *stages = scn_stage_story(rs);

	json_object_object_add(o, "name", json_object_new_string(rs->scn->name));
	json_object_object_add(o, "path", json_object_new_string(rs->scn->path));
	json_object_object_add(o, "outcome", json_object_new_string(regress_outcome_name(rs->outcome)));
	json_object_object_add(o, "reason", rs->reason ? json_object_new_string(rs->reason) : NULL);
	for (unsigned int k = 0; k < rs->n_runs; k++) {
		struct json_object *run = json_object_new_object();

		json_object_object_add(run, "dir", json_object_new_string(rs->runs[k].dir));
		json_object_object_add(run, "verdict",
				       json_object_new_string(run_verdict_name(rs->runs[k].verdict)));
		json_object_object_add(run, "wall_s", json_object_new_double(rs->runs[k].wall_s));
		if (rs->runs[k].connect)
			json_object_object_add(run, "connect",
					       json_object_new_string(rs->runs[k].connect));
		json_object_array_add(runs, run);
	}
	json_object_object_add(o, "runs", runs);
	json_object_object_add(o, "checks", json_checks(rs));
	json_object_object_add(o, "loss", story ? json_object_new_string(story) : NULL);
	/* Only when a latency check failed and the run was traced, as in the table. */
	json_object_object_add(o, "stages", stages ? json_object_new_string(stages) : NULL);
	json_object_object_add(o, "stages_moved", stages ? json_stages_moved(rs) : NULL);
	free(stages);
	json_object_object_add(o, "median", rs->median ? metrics_to_json(rs->median) : NULL);
	free(story);
	story = rs->outcome == RO_FAIL ? regress_look_commands(rs) : NULL;
	if (story) {
		struct json_object *look = json_object_new_array();

		for (char *l = story, *nl; l && *l; l = nl ? nl + 1 : NULL) {
			nl = strchr(l, '\n');
			json_object_array_add(look, json_object_new_string_len(l, nl ? (int)(nl - l)
										     : (int)strlen(l)));
		}
		json_object_object_add(o, "look", look);
	} else {
		json_object_object_add(o, "look", NULL);
	}
	free(story);
	return o;
}

int regress_write_json(const struct regress *r, const char *path, char **err)
{
	struct json_object *o = json_object_new_object(), *arr = json_object_new_array();
	int ret;

	struct regress_counts c;
	struct json_object *counts = json_object_new_object();

	provenance_add(o);
	json_object_object_add(o, "kernel", r->kernel || r->kid ? kernel_id_to_json(r->kid, r->kernel)
							      : NULL);
	for (size_t i = 0; i < r->n; i++)
		json_object_array_add(arr, json_scenario(&r->s[i]));
	json_object_object_add(o, "exit_code", json_object_new_int(regress_exit_code(r)));
	regress_count(r, &c);
	json_object_object_add(counts, "total", json_object_new_int64((int64_t)c.total));
	json_object_object_add(counts, "passed", json_object_new_int64((int64_t)c.passed));
	json_object_object_add(counts, "failed", json_object_new_int64((int64_t)c.failed));
	json_object_object_add(counts, "errors", json_object_new_int64((int64_t)c.errors));
	json_object_object_add(counts, "skipped", json_object_new_int64((int64_t)c.skipped));
	json_object_object_add(o, "counts", counts);
	json_object_object_add(o, "wall_s", json_object_new_double(r->wall_s));
	json_object_object_add(o, "accel_reason",
			       r->accel_why ? json_object_new_string(r->accel_why) : NULL);
	json_object_object_add(o, "scenarios", arr);
	ret = json_file_write(path, o);
	if (ret)
		err_set(err, "cannot write '%s': %s", path, strerror(-ret));
	json_object_put(o);
	return ret;
}

/* ---- for regress-ci.c --------------------------------------------------- */

void regress_fmt_num(char *buf, size_t n, double v)
{
	fmt_num(buf, n, v);
}

void regress_fmt_value(char *buf, size_t n, const struct regress_check *rc, unsigned int runs)
{
	fmt_value(buf, n, rc, runs);
}

/*
 * What explains scenario @rs, a line each (NULL: nothing): why it did not
 * pass, its loss story, what its [exec] command did, which stage moved and,
 * when it failed, the commands that open what explains it. The text table,
 * KTAP's diagnostics and JUnit's system-out all print these lines.
 */
char *regress_explain(const struct regress_scn *rs)
{
	struct sbuf b;
	char *story;

	sbuf_init(&b);
	if (rs->outcome != RO_PASS && rs->reason)
		sbuf_addf(&b, "%s: %s\n", regress_outcome_name(rs->outcome), rs->reason);
	story = rs->outcome != RO_PASS ? regress_loss_story(rs->median) : NULL;
	if (story)
		sbuf_addf(&b, "loss: %s\n", story);
	free(story);
	story = rs->n_runs ? scnrun_exec_story(rs->scn, rs->median, rs->runs[0].dir) : NULL;
	if (story)
		sbuf_addf(&b, "%s\n", story);
	free(story);
	story = scn_stage_story(rs);
	if (story)
		sbuf_addf(&b, "%s\n", story);
	free(story);
	if (rs->outcome == RO_FAIL) {
		story = regress_look_commands(rs);
		print_lines_sbuf(&b, "look: ", story);
		free(story);
	}
	if (!b.len) {
		sbuf_release(&b);
		return NULL;
	}
	return sbuf_detach(&b);
}

