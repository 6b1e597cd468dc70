// SPDX-License-Identifier: GPL-2.0
/*
 * The packet path's driver part: the driver patches' netlab_drv lines
 * (the hand-off opens a receive packet; interrupt, poll and descriptor
 * lines time it inside the driver; xmit and tx_done the transmit side) and,
 * without them, the fallback probes (netlab:drv_DRIVER_*). Internal to the
 * packet-path reader (pktpath-int.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "trace/pktpath.h"
#include "trace/pktpath-int.h"
#include "trace/tracefile.h"
#include "lib/util.h"

#define U(e, fld) tracefile_u64(r->tf, rec, r->f[e].fld)

/* The driver lines pktpath follows; the others (poll_end, refills, TX cleans) it counts. */
static bool drv_line_used(const char *event)
{
	static const char *const used[] = { "rx_handoff", "irq", "poll_start", "rx_desc", "xmit",
					     "tx_done" };

	for (size_t i = 0; i < ARRAY_SIZE(used); i++)
		if (!strcmp(event, used[i]))
			return true;
	return false;
}

/* 0 not ours, 1 a line pktpath follows, 2 another netlab_drv line; the parsed line in @d. */
static int drv_line(struct reader *r, struct tep_record *rec, int e, struct pktpath_drv_line *d)
{
	uint64_t fmt = 0;
	size_t i;
	int ret, kind;

	/* One line shape each: a bprint's format pointer, or a tracepoint's id (top bit set). */
	if (e == EV_DRVTP)
		fmt = (uint64_t)tep_data_type(r->tep, rec) | 1ULL << 63;
	else if (r->f[e].fmt)
		fmt = U(e, fmt);
	for (i = 0; fmt && i < r->n_fmts; i++)
		if (r->fmts[i].fmt == fmt)
			break;
	if (fmt && i < r->n_fmts && r->fmts[i].kind != 1) {
		/*
		 * Formatted once: a trace_printk of someone else, or a driver
		 * line pktpath does not follow (drvring reads those; here
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
	kind = ret == -ENOENT ? 0 : !ret && drv_line_used(d->event) ? 1 : 2;
	if (kind) {
		r->p->drv_lines++;
		if (ret)
			r->p->drv_bad_lines++;
	}
	if (fmt && i == r->n_fmts && r->n_fmts < ARRAY_SIZE(r->fmts))
		r->fmts[r->n_fmts++] = (struct fmt_kind){ .fmt = fmt, .kind = kind };
	return ret ? 0 : kind;
}

/* The receive-side state of the device a driver line names; NULL when the table is full. */
static struct drvdev *drv_dev(struct reader *r, const char *ifname)
{
	struct drvdev *d;

	for (size_t i = 0; i < r->n_devs; i++)
		if (!strcmp(r->devs[i].ifname, ifname))
			return &r->devs[i];
	if (r->n_devs == DRV_DEVS)
		return NULL;
	d = &r->devs[r->n_devs++];
	memset(d, 0, sizeof(*d));
	snprintf(d->ifname, sizeof(d->ifname), "%s", ifname);
	return d;
}

/*
 * A driver line. The hand-off opens a receive packet and takes the device's
 * interrupt (when its poll was the first since), poll start and descriptor;
 * xmit and tx_done stamp the transmit packet of their skb. Each names the
 * packet's device, unless an earlier event did.
 */
static int on_drv_line(struct reader *r, const struct pktpath_drv_line *l, uint64_t ts)
{
	struct drvdev *d = drv_dev(r, l->ifname);
	struct pkt *k;

	if (!strcmp(l->event, "rx_handoff")) {
		if (pktpath_advance(r, l->skb, PKTPATH_RX, S_DRV, ts, &k))
			return -1;
		if (!k)
			return 0;
		k->fl |= F_DRV;
		if (l->q >= 0 && l->q < 64)
			k->q = (int16_t)l->q;
		if (d && k->ts[S_DRV] == ts) {
			k->drv[D_IRQ] = d->poll_irq;
			k->drv[D_POLL] = d->poll;
			k->drv[D_DESC] = d->desc;
			d->desc = 0;
		}
		/* What napi_gro_receive_entry says, where the line says it too. */
		if (l->proto >= 0 && l->proto != ETH_P_IP_) {
			pktpath_pkt_delete(r, k); /* ARP, IPv6: not followed */
			return 0;
		}
		if (l->proto >= 0)
			k->fl |= F_V4;
		pktpath_pkt_dev(r, k, l->ifname, strlen(l->ifname));
		if (l->data_len >= 0 && l->len >= 0)
			pktpath_pkt_headlen(k, (uint64_t)l->len, (uint64_t)l->data_len);
		return 0;
	}
	if (!strcmp(l->event, "xmit") || !strcmp(l->event, "tx_done")) {
		bool xmit = l->event[0] == 'x';

		k = l->skb ? pktpath_pkt_find(r, l->skb) : NULL;
		if (!k || k->dir != PKTPATH_TX)
			return 0;
		if (!k->drv[xmit ? D_XMIT : D_DONE] && (xmit || k->drv[D_XMIT]))
			k->drv[xmit ? D_XMIT : D_DONE] = ts;
		if (xmit && k->q < 0 && l->q >= 0 && l->q < 64)
			k->q = (int16_t)l->q;
		/* The device, where no net_dev_* event named it. */
		pktpath_pkt_dev(r, k, l->ifname, strlen(l->ifname));
		return 0;
	}
	if (!d)
		return 0;
	if (!strcmp(l->event, "irq")) {
		if (l->dir != 1)
			d->irq = ts;
	} else if (!strcmp(l->event, "poll_start")) {
		d->poll_irq = d->irq > d->poll ? d->irq : 0;
		d->poll = ts;
		d->desc = 0;
	} else if (!strcmp(l->event, "rx_desc")) {
		d->desc = ts;
	}
	return 0;
}

/* A fallback probe: the driver's receive interrupt, its poll's entry and return. */
void pktpath_probe_event(struct reader *r, struct tep_record *rec, int e)
{
	int drv = r->probe_drv[tep_data_type(r->tep, rec)];

	if (drv < 0 || drv >= DRVRING_PROBE_DRIVERS || rec->cpu < 0 || rec->cpu >= DRVRING_MAX_CPUS)
		return;
	if (e == EV_P_IRQ) {
		r->p_irq[drv] = rec->ts;
	} else if (e == EV_P_POLL) {
		r->p_cpu[rec->cpu].poll = rec->ts;
		r->p_cpu[rec->cpu].poll_irq = r->p_irq[drv] > r->p_last_poll[drv] ? r->p_irq[drv] : 0;
		r->p_last_poll[drv] = rec->ts;
	} else {
		r->p_cpu[rec->cpu].poll = r->p_cpu[rec->cpu].poll_irq = 0;
	}
}

/* An ftrace print or bprint record, or a driver line's tracepoint: a driver line, or someone else's. */
int pktpath_drv_event(struct reader *r, struct tep_record *rec, int e)
{
	struct pktpath_drv_line d;

	if (drv_line(r, rec, e, &d) != 1)
		return 0;
	return on_drv_line(r, &d, rec->ts);
}
