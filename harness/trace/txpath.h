/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The transmit side of each NIC's driver layer, from a trace.dat: what the
 * stack handed to a driver, what the driver gave the NIC, and what it freed
 * without giving it (the mirror of drvring's descriptors without a hand-off
 * on receive). One streaming pass (tracepass.h).
 *
 * Following an skb. net:net_dev_start_xmit opens it on its device: its
 * length, protocol and GSO segments (a TSO skb leaves the NIC as gso_segs
 * frames; a software-segmented one arrives here segment by segment). The
 * driver's xmit line (driver-patches/: the descriptors are written) marks
 * it. net:net_dev_xmit closes the hand-over: NETDEV_TX_OK (0) means the
 * driver took it, NETDEV_TX_BUSY (0x10) that it gave it back to be queued
 * again (not counted), anything else that it was refused. A free
 * (skb:consume_skb, skb:kfree_skb) of an skb the driver took:
 *   - after its xmit line: the completion (the NIC sent it; e1000e's MSI-X
 *     TX interrupt may complete it before net_dev_xmit is even written);
 *   - without an xmit line, on a device whose driver writes them: the
 *     driver dropped it without a descriptor: by consume_skb, which no drop
 *     tracepoint, counter or dropwatch sees (silent), or by kfree_skb, with
 *     its reason and location.
 * A device whose driver wrote no xmit line in the whole trace (no driver
 * patches, the kprobe fallback) has "lines" false: its descriptors are not
 * known, and neither is a drop without one.
 *
 * Counting. Frames, not skbs: an skb counts its GSO segments (1 without GSO),
 * by family (IPv4 0x0800, IPv6 0x86dd, other: ARP and the rest). Lengths are
 * skb->len at net_dev_start_xmit (the frame without its FCS, before padding).
 * Memory: an open skb is an entry in a hash table keyed by its address,
 * removed at its free, so memory follows the skbs in flight.
 */
#ifndef NETLAB_TXPATH_H
#define NETLAB_TXPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct json_object;
struct metrics;
struct tracepass;

#define TXPATH_MAX_DEVS 16	/* devices followed; skbs of others are counted in other_devs */
#define TXPATH_LEN_VALUES 8	/* the most frequent lengths kept */
#define TXPATH_LEN_TRACK 64	/* distinct lengths counted; later ones: other */

enum txpath_family { TXPATH_V4, TXPATH_V6, TXPATH_OTHER, TXPATH_FAMILIES };

/* One length and how many frames had it. */
struct txpath_len {
	uint64_t len, count;
};

/*
 * The lengths of a set of frames: count, min and max of all of them, the
 * TXPATH_LEN_VALUES most frequent of the first TXPATH_LEN_TRACK distinct
 * lengths with exact counts (highest count first, then shortest), the rest
 * in other.
 */
struct txpath_lens {
	uint64_t count, min, max;
	size_t n;
	struct txpath_len top[TXPATH_LEN_VALUES];
	uint64_t other;
};

struct txpath_dev {
	char name[16];
	bool lines;		/* its driver wrote xmit lines: descriptors are known */
	/* frames handed to the driver and taken (net_dev_xmit 0), per family */
	uint64_t handed[TXPATH_FAMILIES];
	uint64_t skbs;		/* skbs taken, every family */
	uint64_t gso_skbs;	/* of those, with more than one segment */
	uint64_t busy;		/* NETDEV_TX_BUSY: handed back (skbs), queued again */
	uint64_t refused;	/* any other return (skbs) */
	/* IP frames (IPv4 and IPv6) by what became of them */
	uint64_t desc;		/* an xmit line: the driver wrote descriptors */
	/*
	 * Taken without an xmit line (meaningful only with lines): the driver
	 * dropped them. Of those, with the free events recorded, freed by
	 * consume_skb (no drop event, no counter: silent) and by kfree_skb.
	 */
	uint64_t no_desc;
	uint64_t no_desc_consumed, no_desc_freed;
	/*
	 * (no_desc_freed, with or without lines:) IP frames freed by kfree_skb
	 * before net_dev_xmit, inside the driver's xmit: a completion is a
	 * consume_skb, so these are drops there, lines or not.
	 */
	uint64_t completed;	/* freed after their descriptors */
	uint64_t in_flight;	/* taken and not freed when the trace ended */
	struct txpath_lens no_desc_len;	/* the IP frames freed without descriptors */
	struct txpath_lens handed_len;	/* every IP frame taken (count, min, max only) */
	/*
	 * What the frames taken without descriptors share, against every IP
	 * frame taken (struct txpath_traits): an skb with checksum offload
	 * (CHECKSUM_PARTIAL), with GSO segments, with data in page fragments
	 * (data_len > 0); IP frames of no_desc_len's min..max among all taken.
	 */
	struct txpath_traits {
		uint64_t csum_partial, gso, nonlinear;
	} no_desc_has, handed_has;
	uint64_t handed_in_range;
	/*
	 * A period among the IP skbs taken: every period-th (0: none found, or
	 * fewer than 4 dropped), the dropped ones at positions = phase mod
	 * period, counting from 0.
	 */
	unsigned int period, phase;
	/* the first kfree_skb without descriptors: "NOT_SPECIFIED", "e1000_xmit_frame+0x1c4" */
	char freed_reason[32], freed_at[64];
};

struct txpath {
	char *path;
	uint64_t events;
	uint64_t lost;		/* events the ring buffer lost: counts are not exact then */
	bool has_start, has_xmit, has_free;	/* the events it needs were recorded */
	bool has_kfree;		/* skb:kfree_skb (has_free: consume_skb too) */
	uint64_t lines;		/* driver xmit and tx_done lines read */
	uint64_t other_devs;	/* skbs of devices past TXPATH_MAX_DEVS */
	struct txpath_dev *devs;	/* in order of appearance */
	size_t n_devs;
};

/**
 * txpath_read() - the transmit side of every NIC in a trace.dat
 * @path: the trace.dat file
 * @out: on success the result; free it with txpath_free()
 * @err: on failure, a message naming @path with a "\nhint: ..." line
 *
 * Without skb:consume_skb and skb:kfree_skb (has_free false) the frames
 * taken without descriptors are counted, but not how they were freed, and
 * no completion is.
 *
 * Return: 0; -errno from opening the file; -EINVAL for a file that is not a
 * trace.dat or is truncated; -ENODATA for a trace without
 * net:net_dev_start_xmit and net:net_dev_xmit; -ENOMEM.
 */
int txpath_read(const char *path, struct txpath **out, char **err);

/*
 * The same in a shared pass: txpath_attach() opens the file if no analysis
 * did yet; after tracepass_run(), txpath_collect() gives the result or the
 * error txpath_read() would have, and frees @s.
 */
struct txpath_pass;
int txpath_attach(struct tracepass *tp, struct txpath_pass **s, char **err);
int txpath_collect(struct txpath_pass *s, struct txpath **out, char **err);

void txpath_free(struct txpath *t);

/* IP frames a device's driver took without writing descriptors (0 when not known). */
uint64_t txpath_dev_no_desc(const struct txpath_dev *d);

/**
 * txpath_dev_evidence() - what a device's driver did with the frames it dropped, in a sentence
 * @d: a device of a txpath
 *
 * "ethA's driver freed 612 frames without a descriptor: 612 by consume_skb
 * (no drop event, no counter), 600..899 B, most: 642 B (12), ...".
 *
 * Return: a new string the caller frees; NULL when it dropped none (or its
 * descriptors are not known).
 */
char *txpath_dev_evidence(const struct txpath_dev *d);

/*
 * Metrics per device, IFNAME as the trace names it ("ethA"); only for a
 * trace that lost no event (no_desc_silent, completed and in_flight only
 * with the free events):
 *   drv.IFNAME.tx.{handed,handed_v6,handed_other,skbs,gso_skbs,busy,refused}
 *   drv.IFNAME.tx.xmit_freed (no_desc_freed; with skb:kfree_skb, lines or not)
 *   drv.IFNAME.tx.{desc,no_desc,no_desc_silent,completed,in_flight} (with lines only)
 *   drv.IFNAME.tx.{no_desc_len_min,no_desc_len_max} and drv.IFNAME.tx.no_desc_len.LEN
 *	(the 4 most frequent) when no_desc > 0
 * handed is IPv4 frames, handed_v6 IPv6, handed_other the rest.
 */
void txpath_metrics(const struct txpath *t, struct metrics *m);

/*
 * What @n dropped frames share, appended to @b as "; every frame of
 * LO..HI B it was handed (N)", "; all with data in page fragments
 * (non-linear), which 8 of the 2005 handed were", "; every 8th IP skb":
 * their sizes against the @in_range frames of those sizes handed in all,
 * each trait they all have (or none has) against @all of the @handed, and
 * a @period (0: none). Shared with the loss story, which has the metrics.
 */
struct sbuf;
void txpath_pattern(struct sbuf *b, uint64_t n, const struct txpath_traits *lost,
		    const struct txpath_traits *all, uint64_t handed, uint64_t lo, uint64_t hi,
		    uint64_t in_range, unsigned int period, unsigned int phase);

/* "transmit" of netlab report: a table per device. */
void txpath_print(const struct txpath *t, FILE *f);

/* The result as JSON: {"trace", "lost_events", "devices": [{name, lines, handed: {ipv4, ipv6, other}, ...}]}. */
struct json_object *txpath_to_json(const struct txpath *t);

#endif /* NETLAB_TXPATH_H */
