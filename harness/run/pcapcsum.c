// SPDX-License-Identifier: GPL-2.0
/*
 * Checksums of a capture (pcapcsum.h). One pass over the file: each frame
 * is parsed (Ethernet, VLAN tags, IPv4, or IPv6 and its extension headers),
 * its IPv4 header checksum verified, and its L4 checksum verified at once or,
 * for a fragment, when its datagram is done with. Every read of the frame is
 * checked against what was captured (have) and what was on the wire (wire):
 * a header past the wire length is malformed, one past the captured bytes
 * only is cut.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <pcap/pcap.h>

#include "run/pcapcsum.h"
#include "run/pcapstat.h"
#include "lib/util.h"

#define ETH_HLEN 14
/* The most bytes the fragments of one datagram may span, in 8-byte blocks. */
#define DGRAM_MAX 65535
#define DGRAM_BLOCKS ((DGRAM_MAX + 7) / 8)

enum {
	P_HOPOPTS = 0,
	P_ICMP = 1,
	P_TCP = 6,
	P_UDP = 17,
	P_ROUTING = 43,
	P_FRAGMENT = 44,
	P_ICMPV6 = 58,
	P_NONE6 = 59,
	P_DSTOPTS = 60,
};

static const char *const kind_names[] = { "ip", "tcp", "udp", "icmp", "icmpv6", "none" };
static const char *const why_names[] = { "cut", "incomplete", "malformed" };
static const char *const verdict_names[] = {
	"none", "good", "bad", "zero", "unverifiable", "other",
};

/* The L4 verdict of a packet, given to each of its frames. */
struct l4res {
	enum pcap_csum_verdict v;
	enum pcap_csum_kind kind;
	enum pcap_csum_why why;
	int proto;
	bool ports;
	uint16_t sport, dport;
};

/* What the L4 pseudo-header takes from the network layer. */
struct l3 {
	int family;
	const uint8_t *src, *dst;	/* 4 or 16 bytes; dst: the final destination */
};

/* Distinct lengths of the bad frames of one kind, sorted by length. */
struct lens {
	struct pcap_csum_len_count *v;
	size_t n, cap;
	bool full;
};

struct tally {
	struct pcap_csum_sender pub;
	struct lens lens[PCAP_CSUM_NKINDS];
};

/* A fragment, as one frame brings it. */
struct frag {
	int family;
	const uint8_t *src, *dst, *pdst;
	uint32_t id;
	int proto;		/* IPv4's (part of the key); -1 for IPv6 */
	int nh;			/* IPv6: the fragment header's next header */
	uint32_t off;
	bool more, cut;
	const uint8_t *data;
	size_t len, have;	/* fragment data in the packet, and captured */
};

/* A datagram being reassembled. */
struct dgram {
	int family;		/* the key: family, mac, src, dst, id, proto */
	uint8_t mac[6], src[16], dst[16];
	uint32_t id;
	int proto;
	int sender;		/* index into state.t; -1: untallied */
	uint8_t pdst[16];	/* the pseudo-header's destination */
	int nh;			/* IPv6: next header of the offset-0 fragment; -1 before it */
	uint64_t age;		/* index of its first frame */
	uint8_t *buf;
	size_t buf_len;
	uint64_t blocks[(DGRAM_BLOCKS + 63) / 64];	/* 8-byte blocks received */
	long total;		/* length, from the last fragment; -1 before it */
	size_t max_end;
	bool cut, malformed, hdr_bad, ports;
	uint16_t sport, dport;
	struct pcap_csum_frame *frames;
	size_t n_frames, cap_frames;
};

struct state {
	const struct pcap_csum_opts *opts;
	struct pcap_csum *c;
	struct tally *t;
	size_t n_t, cap_t;
	struct dgram *open[PCAP_CSUM_MAX_OPEN];
	size_t n_open;
	size_t pending;		/* frames held by open datagrams */
	int stop;		/* the callback's negative return */
};

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)be16(p) << 16 | be16(p + 2);
}

static size_t min_sz(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* @sum plus the 16-bit big-endian words of @n bytes (an odd last byte padded with 0). */
static uint64_t csum_add(uint64_t sum, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += be16(p + i);
	if (i < n)
		sum += (uint64_t)p[i] << 8;
	return sum;
}

/* The ones' complement sum: 0xffff over data that includes its correct checksum. */
static uint16_t csum_fold(uint64_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* IPv4's and IPv6's pseudo-headers add up to the same words. */
static uint64_t csum_pseudo(const struct l3 *ip, int proto, size_t len)
{
	size_t alen = ip->family == 4 ? 4 : 16;
	uint64_t sum = csum_add(csum_add(0, ip->src, alen), ip->dst, alen);

	return sum + (uint64_t)proto + (len >> 16) + (len & 0xffff);
}

static enum pcap_csum_kind kind_of(int family, int proto)
{
	switch (proto) {
	case P_TCP:
		return PCAP_CSUM_TCP;
	case P_UDP:
		return PCAP_CSUM_UDP;
	case P_ICMP:
		return family == 4 ? PCAP_CSUM_ICMP : PCAP_CSUM_NKINDS;
	case P_ICMPV6:
		return family == 6 ? PCAP_CSUM_ICMPV6 : PCAP_CSUM_NKINDS;
	}
	return PCAP_CSUM_NKINDS;
}

static bool is_ext6(int nh)
{
	return nh == P_HOPOPTS || nh == P_ROUTING || nh == P_FRAGMENT || nh == P_DSTOPTS;
}

static void unverifiable(struct l4res *r, enum pcap_csum_why why)
{
	r->v = PCAP_CSUM_UNVERIFIABLE;
	r->why = why;
}

/*
 * The checksum of L4 protocol @proto over @l4: @len bytes (the IP payload
 * after the extension headers), the first @have of them captured.
 */
static void l4_check(struct l4res *r, const struct l3 *ip, int proto, const uint8_t *l4, size_t len,
		     size_t have)
{
	/* The smallest header each kind's receive path takes, and where its checksum is. */
	static const size_t hdr[] = { 0, 20, 8, 8, 8 }, at[] = { 0, 16, 6, 2, 2 };
	size_t n = len;
	uint16_t csum;
	uint64_t sum;

	r->proto = proto;
	r->kind = kind_of(ip->family, proto);
	if ((proto == P_TCP || proto == P_UDP) && have >= 4 && len >= 4) {
		r->ports = true;
		r->sport = be16(l4);
		r->dport = be16(l4 + 2);
	}
	if (r->kind == PCAP_CSUM_NKINDS) {
		r->v = PCAP_CSUM_OTHER;
		return;
	}
	if (len < hdr[r->kind] || have < hdr[r->kind]) {
		unverifiable(r, len < hdr[r->kind] ? PCAP_CSUM_WHY_MALFORMED : PCAP_CSUM_WHY_CUT);
		return;
	}
	if (r->kind == PCAP_CSUM_UDP) {
		/* UDP's own length: the checksum covers it, the rest is padding. */
		n = be16(l4 + 4);
		if (n < 8 || n > len) {
			unverifiable(r, PCAP_CSUM_WHY_MALFORMED);
			return;
		}
	}
	if (have < n) {
		unverifiable(r, PCAP_CSUM_WHY_CUT);
		return;
	}
	csum = be16(l4 + at[r->kind]);
	if (r->kind == PCAP_CSUM_UDP && !csum) {
		r->v = ip->family == 4 ? PCAP_CSUM_ZERO : PCAP_CSUM_BAD;
		return;
	}
	sum = r->kind == PCAP_CSUM_ICMP ? 0 : csum_pseudo(ip, proto, n);
	r->v = csum_fold(csum_add(sum, l4, n)) == 0xffff ? PCAP_CSUM_GOOD : PCAP_CSUM_BAD;
}

/* ---- tallies ---------------------------------------------------------- */

static int sender_index(struct state *s, const uint8_t mac[6])
{
	for (size_t i = 0; i < s->n_t; i++)
		if (!memcmp(s->t[i].pub.mac, mac, 6))
			return (int)i;
	if (s->n_t == PCAP_CSUM_MAX_SENDERS)
		return -1;
	xgrow_array(&s->t, &s->cap_t, s->n_t + 1, sizeof(*s->t));
	memset(&s->t[s->n_t], 0, sizeof(*s->t));
	memcpy(s->t[s->n_t].pub.mac, mac, 6);
	return (int)s->n_t++;
}

static void lens_add(struct lens *l, uint32_t len)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->v[mid].len < len)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < l->n && l->v[lo].len == len) {
		l->v[lo].count++;
		return;
	}
	if (l->n == PCAP_CSUM_MAX_LENS) {
		l->full = true;
		return;
	}
	xgrow_array(&l->v, &l->cap, l->n + 1, sizeof(*l->v));
	memmove(&l->v[lo + 1], &l->v[lo], (l->n - lo) * sizeof(*l->v));
	l->v[lo] = (struct pcap_csum_len_count){ .len = len, .count = 1 };
	l->n++;
}

/* Frame @f carried a bad checksum of kind @k. */
static void tally_bad_frame(struct tally *t, enum pcap_csum_kind k, const struct pcap_csum_frame *f)
{
	struct pcap_csum_bad *b = &t->pub.bad_kind[k];

	if (!b->frames++) {
		b->first = b->last = f->index;
		b->len_min = b->len_max = f->len;
	} else {
		b->first = f->index < b->first ? f->index : b->first;
		b->last = f->index > b->last ? f->index : b->last;
		b->len_min = f->len < b->len_min ? f->len : b->len_min;
		b->len_max = f->len > b->len_max ? f->len : b->len_max;
	}
	lens_add(&t->lens[k], f->len);
}

static void emit(struct state *s, const struct pcap_csum_frame *f)
{
	int r;

	if (!s->opts->frame || s->stop)
		return;
	r = s->opts->frame(f, s->opts->ctx);
	if (r < 0)
		s->stop = r;
}

/*
 * A packet is done: its @n frames get its L4 verdict @r and go to the
 * callback, its sender (@snd, -1 for none) counts it once.
 */
static void packet_done(struct state *s, int snd, struct pcap_csum_frame *frames, size_t n,
			const struct l4res *r, bool hdr_bad)
{
	struct tally *t = snd >= 0 ? &s->t[snd] : NULL;
	struct pcap_csum_sender *p = t ? &t->pub : NULL;

	for (size_t i = 0; i < n; i++) {
		struct pcap_csum_frame *f = &frames[i];

		f->l4 = r->v;
		f->l4_kind = r->kind;
		f->proto = r->proto;
		if (r->v == PCAP_CSUM_UNVERIFIABLE)
			f->why = r->why;
		if (r->ports) {
			f->ports = true;
			f->sport = r->sport;
			f->dport = r->dport;
		}
		if (t && r->v == PCAP_CSUM_BAD)
			tally_bad_frame(t, r->kind, f);
		emit(s, f);
	}
	if (!p)
		return;
	p->packets++;
	if (hdr_bad || r->v == PCAP_CSUM_BAD) {
		p->bad++;
		if (r->v == PCAP_CSUM_BAD)
			p->bad_kind[r->kind].packets++;
	} else if (r->v == PCAP_CSUM_UNVERIFIABLE) {
		p->unverifiable[r->why]++;
	} else if (r->v == PCAP_CSUM_ZERO) {
		p->zero++;
	} else if (r->v == PCAP_CSUM_OTHER) {
		p->other++;
	} else {
		p->good++;
	}
}

/* ---- IPv6 extension headers ------------------------------------------- */

enum walk_end { W_L4, W_FRAG, W_CUT, W_MALFORMED };

struct walk {
	enum walk_end end;
	int nh;			/* the L4 protocol, or the fragment header's next header */
	size_t off;		/* where that begins */
	uint32_t foff, id;	/* W_FRAG: the fragment's offset and ID */
	bool more;
};

/* A routing header that has segments left names the final destination. */
static void route_dst(const uint8_t *rh, size_t hl, uint8_t pdst[16])
{
	size_t n = (hl - 8) / 16;

	if (!rh[3] || !n)
		return;
	if (rh[2] == 0)
		memcpy(pdst, rh + 8 + 16 * (n - 1), 16);	/* type 0: the last address */
	else if (rh[2] == 2 || rh[2] == 4)
		memcpy(pdst, rh + 8, 16);	/* home address; SRH: segment list[0] is the last */
}

/*
 * Walk the extension headers from @off (next header @nh) up to the payload
 * end @end, of which @avail bytes are captured. An atomic fragment header
 * (offset 0, no more fragments) is walked past.
 */
static struct walk walk6(const uint8_t *p, size_t off, size_t end, size_t avail, int nh,
			 uint8_t pdst[16])
{
	struct walk w = { .end = W_L4 };

	while (is_ext6(nh)) {
		size_t hl;

		if (off + 8 > end || off + 8 > avail) {
			w.end = off + 8 > end ? W_MALFORMED : W_CUT;
			return w;
		}
		hl = nh == P_FRAGMENT ? 8 : ((size_t)p[off + 1] + 1) * 8;
		if (off + hl > end || off + hl > avail) {
			w.end = off + hl > end ? W_MALFORMED : W_CUT;
			return w;
		}
		if (nh == P_ROUTING)
			route_dst(p + off, hl, pdst);
		if (nh == P_FRAGMENT && be16(p + off + 2) & 0xfff9) {
			w.end = W_FRAG;
			w.nh = p[off];
			w.off = off + 8;
			w.foff = be16(p + off + 2) & 0xfff8;
			w.more = be16(p + off + 2) & 1;
			w.id = be32(p + off + 4);
			return w;
		}
		nh = p[off];
		off += hl;
	}
	w.nh = nh;
	w.off = off;
	return w;
}

/* ---- reassembly ------------------------------------------------------- */

static void dgram_free(struct dgram *dg)
{
	free(dg->buf);
	free(dg->frames);
	free(dg);
}

static void dgram_unlink(struct state *s, struct dgram *dg)
{
	for (size_t i = 0; i < s->n_open; i++) {
		if (s->open[i] == dg) {
			s->open[i] = s->open[--s->n_open];
			break;
		}
	}
	s->pending -= dg->n_frames;
}

static bool dgram_complete(const struct dgram *dg)
{
	size_t n = ((size_t)dg->total + 7) / 8, i;

	for (i = 0; i + 64 <= n; i += 64)
		if (dg->blocks[i / 64] != UINT64_MAX)
			return false;
	return i == n || (dg->blocks[i / 64] | ~((UINT64_C(1) << (n - i)) - 1)) == UINT64_MAX;
}

/* The verdict of a complete datagram's L4 checksum. */
static void dgram_check(struct l4res *r, struct dgram *dg)
{
	struct l3 ip = { .family = dg->family, .src = dg->src, .dst = dg->pdst };
	size_t total = (size_t)dg->total;
	struct walk w;

	if (dg->family == 4) {
		l4_check(r, &ip, dg->proto, dg->buf, total, total);
		return;
	}
	w = walk6(dg->buf, 0, total, total, dg->nh, dg->pdst);
	if (w.end == W_L4)
		l4_check(r, &ip, w.nh, dg->buf + w.off, total - w.off, total - w.off);
	else
		unverifiable(r, PCAP_CSUM_WHY_MALFORMED);
}

/* A datagram is done with: complete, given up on, or at the end of the file. */
static void dgram_done(struct state *s, struct dgram *dg, bool complete)
{
	struct l4res r = { .proto = dg->family == 4 ? dg->proto : dg->nh };

	dgram_unlink(s, dg);
	r.kind = r.proto >= 0 ? kind_of(dg->family, r.proto) : PCAP_CSUM_NKINDS;
	if (dg->malformed)
		unverifiable(&r, PCAP_CSUM_WHY_MALFORMED);
	else if (dg->cut)
		unverifiable(&r, PCAP_CSUM_WHY_CUT);
	else if (!complete)
		unverifiable(&r, PCAP_CSUM_WHY_INCOMPLETE);
	else
		dgram_check(&r, dg);
	/* Only the kinds that have a checksum can be unverifiable. */
	if (r.v == PCAP_CSUM_UNVERIFIABLE && r.kind == PCAP_CSUM_NKINDS && r.proto >= 0 &&
	    !(dg->family == 6 && is_ext6(r.proto)))
		r.v = PCAP_CSUM_OTHER;
	if (!r.ports && dg->ports) {
		r.ports = true;
		r.sport = dg->sport;
		r.dport = dg->dport;
	}
	packet_done(s, dg->sender, dg->frames, dg->n_frames, &r, dg->hdr_bad);
	dgram_free(dg);
}

static void dgram_evict_oldest(struct state *s)
{
	struct dgram *old = s->open[0];

	for (size_t i = 1; i < s->n_open; i++)
		if (s->open[i]->age < old->age)
			old = s->open[i];
	dgram_done(s, old, false);
}

static struct dgram *dgram_get(struct state *s, int snd, const struct pcap_csum_frame *f,
			       const struct frag *fr)
{
	size_t alen = fr->family == 4 ? 4 : 16;
	struct dgram *dg;

	for (size_t i = 0; i < s->n_open; i++) {
		dg = s->open[i];
		if (dg->family == fr->family && dg->id == fr->id && dg->proto == fr->proto &&
		    !memcmp(dg->mac, f->src, 6) && !memcmp(dg->src, fr->src, alen) &&
		    !memcmp(dg->dst, fr->dst, alen))
			return dg;
	}
	if (s->n_open == PCAP_CSUM_MAX_OPEN)
		dgram_evict_oldest(s);
	dg = xzalloc(sizeof(*dg));
	dg->family = fr->family;
	memcpy(dg->mac, f->src, 6);
	memcpy(dg->src, fr->src, alen);
	memcpy(dg->dst, fr->dst, alen);
	memcpy(dg->pdst, fr->pdst, alen);
	dg->id = fr->id;
	dg->proto = fr->proto;
	dg->sender = snd;
	dg->nh = -1;
	dg->age = f->index;
	dg->total = -1;
	s->open[s->n_open++] = dg;
	return dg;
}

/* Put the data of fragment @fr at its place in @dg. */
static void dgram_put(struct dgram *dg, const struct frag *fr)
{
	size_t end = (size_t)fr->off + fr->len;

	if (end > dg->buf_len) {
		dg->buf = xrealloc_array(dg->buf, end, 1);
		memset(dg->buf + dg->buf_len, 0, end - dg->buf_len);
		dg->buf_len = end;
	}
	if (fr->have && fr->len)	/* an empty fragment may come before any buffer */
		memcpy(dg->buf + fr->off, fr->data, min_sz(fr->have, fr->len));
	for (size_t b = fr->off / 8; b < (end + 7) / 8; b++)
		dg->blocks[b / 64] |= UINT64_C(1) << (b % 64);
	if (fr->off == 0) {
		int proto = fr->family == 4 ? fr->proto : fr->nh;

		dg->nh = fr->nh;
		if ((proto == P_TCP || proto == P_UDP) && fr->have >= 4 && fr->len >= 4) {
			dg->ports = true;
			dg->sport = be16(fr->data);
			dg->dport = be16(fr->data + 2);
		}
	}
}

/* Frame @f is fragment @fr: into its datagram, which may then be complete. */
static void frag_add(struct state *s, int snd, struct pcap_csum_frame *f, const struct frag *fr)
{
	size_t end = (size_t)fr->off + fr->len;
	struct dgram *dg;

	f->fragment = true;
	f->frag_offset = fr->off;
	f->frag_more = fr->more;
	f->ip_id = fr->id;
	if (snd >= 0)
		s->t[snd].pub.fragments++;
	if (s->pending >= PCAP_CSUM_MAX_PENDING)
		dgram_evict_oldest(s);
	dg = dgram_get(s, snd, f, fr);
	xgrow_array(&dg->frames, &dg->cap_frames, dg->n_frames + 1, sizeof(*dg->frames));
	dg->frames[dg->n_frames++] = *f;
	s->pending++;
	dg->cut |= fr->cut;
	dg->hdr_bad |= f->ip == PCAP_CSUM_BAD;
	/* Linux drops these datagrams: past 64 KiB, an odd middle, two different ends. */
	if (end > DGRAM_MAX || (fr->more && fr->len % 8) ||
	    (dg->total >= 0 && (fr->more ? end > (size_t)dg->total : end != (size_t)dg->total)) ||
	    (!fr->more && dg->max_end > end))
		dg->malformed = true;
	if (dg->malformed)
		return;
	if (!fr->more)
		dg->total = (long)end;
	dg->max_end = end > dg->max_end ? end : dg->max_end;
	dgram_put(dg, fr);
	if (dg->total >= 0 && dgram_complete(dg))
		dgram_done(s, dg, true);
}

/* ---- frames ----------------------------------------------------------- */

static void ip4(struct state *s, int snd, struct pcap_csum_frame *f, const uint8_t *p, size_t have,
		size_t wire)
{
	struct l4res r = { .proto = -1, .kind = PCAP_CSUM_NKINDS };
	struct tally *t = snd >= 0 ? &s->t[snd] : NULL;
	size_t ihl, tot;
	struct l3 ip;
	uint16_t frag;

	f->family = 4;
	if (t)
		t->pub.ip4++;
	if (have < 20) {
		unverifiable(&r, wire < 20 ? PCAP_CSUM_WHY_MALFORMED : PCAP_CSUM_WHY_CUT);
		goto done;
	}
	ihl = (size_t)(p[0] & 15) * 4;
	tot = be16(p + 2);
	f->ip_len = (uint32_t)tot;
	f->ip_id = be16(p + 4);
	r.proto = f->proto = p[9];
	r.kind = kind_of(4, p[9]);
	if (p[0] >> 4 != 4 || ihl < 20 || tot < ihl || tot > wire) {
		unverifiable(&r, PCAP_CSUM_WHY_MALFORMED);
		goto done;
	}
	if (ihl > have) {
		unverifiable(&r, PCAP_CSUM_WHY_CUT);
		goto done;
	}
	f->ip = csum_fold(csum_add(0, p, ihl)) == 0xffff ? PCAP_CSUM_GOOD : PCAP_CSUM_BAD;
	if (t && f->ip == PCAP_CSUM_BAD) {
		t->pub.bad_kind[PCAP_CSUM_IP].packets++;
		tally_bad_frame(t, PCAP_CSUM_IP, f);
	}
	ip = (struct l3){ .family = 4, .src = p + 12, .dst = p + 16 };
	frag = be16(p + 6);
	if (frag & 0x3fff) {
		struct frag fr = {
			.family = 4, .src = p + 12, .dst = p + 16, .pdst = p + 16, .id = f->ip_id,
			.proto = p[9], .nh = p[9], .off = (uint32_t)(frag & 0x1fff) * 8,
			.more = frag & 0x2000, .cut = tot > have, .data = p + ihl,
			.len = tot - ihl, .have = min_sz(have, tot) - ihl,
		};

		frag_add(s, snd, f, &fr);
		return;
	}
	l4_check(&r, &ip, p[9], p + ihl, tot - ihl, min_sz(have, tot) - ihl);
done:
	if (r.v == PCAP_CSUM_UNVERIFIABLE) {
		f->why = r.why;
		if (f->ip == PCAP_CSUM_NONE)
			f->ip = PCAP_CSUM_UNVERIFIABLE;
	}
	packet_done(s, snd, f, 1, &r, f->ip == PCAP_CSUM_BAD);
}

static void ip6(struct state *s, int snd, struct pcap_csum_frame *f, const uint8_t *p, size_t have,
		size_t wire)
{
	struct l4res r = { .proto = -1, .kind = PCAP_CSUM_NKINDS };
	size_t end, avail;
	uint8_t pdst[16];
	struct walk w;
	struct l3 ip;

	f->family = 6;
	if (snd >= 0)
		s->t[snd].pub.ip6++;
	if (have < 40) {
		unverifiable(&r, wire < 40 ? PCAP_CSUM_WHY_MALFORMED : PCAP_CSUM_WHY_CUT);
		goto done;
	}
	end = 40 + (size_t)be16(p + 4);
	f->ip_len = (uint32_t)end;
	/* A payload length of 0 is a jumbogram's, but for "no next header". */
	if (p[0] >> 4 != 6 || end > wire || (end == 40 && p[6] != P_NONE6)) {
		unverifiable(&r, PCAP_CSUM_WHY_MALFORMED);
		goto done;
	}
	avail = min_sz(have, end);
	memcpy(pdst, p + 24, 16);
	w = walk6(p, 40, end, avail, p[6], pdst);
	if (w.end == W_CUT || w.end == W_MALFORMED) {
		unverifiable(&r, w.end == W_CUT ? PCAP_CSUM_WHY_CUT : PCAP_CSUM_WHY_MALFORMED);
		goto done;
	}
	if (w.end == W_FRAG) {
		struct frag fr = {
			.family = 6, .src = p + 8, .dst = p + 24, .pdst = pdst, .id = w.id,
			.proto = -1, .nh = w.nh, .off = w.foff, .more = w.more, .cut = end > have,
			.data = p + w.off, .len = end - w.off, .have = avail - w.off,
		};

		frag_add(s, snd, f, &fr);
		return;
	}
	ip = (struct l3){ .family = 6, .src = p + 8, .dst = pdst };
	l4_check(&r, &ip, w.nh, p + w.off, end - w.off, avail - w.off);
done:
	if (r.v == PCAP_CSUM_UNVERIFIABLE)
		f->why = r.why;
	packet_done(s, snd, f, 1, &r, false);
}

static bool is_vlan(uint16_t type)
{
	return type == 0x8100 || type == 0x88a8 || type == 0x9100;
}

static void frame(struct state *s, uint64_t index, const struct pcap_pkthdr *h, const uint8_t *d)
{
	struct pcap_csum_frame f = {
		.index = index, .ts_sec = h->ts.tv_sec, .ts_nsec = (uint32_t)h->ts.tv_usec,
		.len = h->len, .caplen = h->caplen, .proto = -1, .l4_kind = PCAP_CSUM_NKINDS,
	};
	/* Bytes past the wire length (a file that says so) are not the frame's. */
	size_t wire = h->len, have = min_sz(h->caplen, wire), off = 12;
	int snd;

	if (have < ETH_HLEN) {
		s->c->runts++;
		emit(s, &f);
		return;
	}
	memcpy(f.dst, d, 6);
	memcpy(f.src, d + 6, 6);
	snd = sender_index(s, f.src);
	if (snd < 0)
		s->c->untallied++;
	else
		s->t[snd].pub.frames++;
	f.ethertype = be16(d + 12);
	while (is_vlan(f.ethertype) && off + 6 <= have) {
		off += 4;
		f.vlans++;
		f.ethertype = be16(d + off);
	}
	off += 2;
	if (f.ethertype == 0x0800)
		ip4(s, snd, &f, d + off, have - off, wire - off);
	else if (f.ethertype == 0x86dd)
		ip6(s, snd, &f, d + off, have - off, wire - off);
	else
		emit(s, &f);
}

/* ---- the result ------------------------------------------------------- */

static int by_count(const void *a, const void *b)
{
	const struct pcap_csum_len_count *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->len < y->len ? -1 : x->len > y->len;
}

static void top_fill(struct pcap_csum_bad *b, struct lens *l)
{
	uint64_t in_top = 0;

	b->top_exact = !l->full;
	if (!l->n)
		return;
	qsort(l->v, l->n, sizeof(*l->v), by_count);
	b->n_top = min_sz(l->n, PCAP_CSUM_TOP);
	memcpy(b->top, l->v, b->n_top * sizeof(*b->top));
	for (size_t i = 0; i < b->n_top; i++)
		in_top += b->top[i].count;
	b->top_other = b->frames - in_top;
}

static void finish(struct state *s)
{
	struct pcap_csum *c = s->c;

	c->senders = xzalloc(s->n_t * sizeof(*c->senders));
	c->n_senders = s->n_t;
	for (size_t i = 0; i < s->n_t; i++) {
		c->senders[i] = s->t[i].pub;
		for (int k = 0; k < PCAP_CSUM_NKINDS; k++)
			top_fill(&c->senders[i].bad_kind[k], &s->t[i].lens[k]);
	}
}

static void state_release(struct state *s)
{
	for (size_t i = 0; i < s->n_open; i++)
		dgram_free(s->open[i]);
	for (size_t i = 0; i < s->n_t; i++)
		for (int k = 0; k < PCAP_CSUM_NKINDS; k++)
			free(s->t[i].lens[k].v);
	free(s->t);
	pcap_csum_free(s->c);
}

/* Open @path as a capture of Ethernet frames, or say why not. */
static pcap_t *open_capture(const char *path, int *ret, char **err)
{
	char errbuf[PCAP_ERRBUF_SIZE] = "";
	FILE *fp = fopen(path, "rb");
	struct stat st;
	pcap_t *p;

	if (!fp || fstat(fileno(fp), &st) || S_ISDIR(st.st_mode)) {
		*ret = !fp || !S_ISDIR(st.st_mode) ? -errno : -EISDIR;
		err_set(err, "cannot read capture '%s': %s\nhint: a run's captures are RUN_DIR/nic-A.pcap and RUN_DIR/nic-B.pcap",
			path, strerror(-*ret));
		if (fp)
			fclose(fp);
		return NULL;
	}
	p = pcap_fopen_offline_with_tstamp_precision(fp, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (!p) {
		fclose(fp);
		*ret = -EINVAL;
		err_set(err, "'%s' is not a capture: %s\nhint: give a libpcap file, such as a run's nic-A.pcap (QEMU's filter-dump writes them)",
			path, errbuf);
		return NULL;
	}
	if (pcap_datalink(p) != DLT_EN10MB) {
		const char *name = pcap_datalink_val_to_name(pcap_datalink(p));

		*ret = -EINVAL;
		err_set(err, "capture '%s' has link type %s (%d), not Ethernet\nhint: only Ethernet captures are verified (DLT_EN10MB, what QEMU's filter-dump writes)",
			path, name ? name : "unknown", pcap_datalink(p));
		pcap_close(p);
		return NULL;
	}
	return p;
}

int pcap_csum_read(const char *path, const struct pcap_csum_opts *opts, struct pcap_csum **out,
		   char **err)
{
	static const struct pcap_csum_opts none;
	struct state s = { .opts = opts ? opts : &none };
	struct bpf_program prog;
	struct pcap_pkthdr *h;
	const u_char *data;
	int ret = 0, r = 0;
	pcap_t *p;

	*out = NULL;
	if (pcap_filter_check(s.opts->filter, err))
		return -EINVAL;
	p = open_capture(path, &ret, err);
	if (!p)
		return ret;
	if (s.opts->filter &&
	    pcap_compile(p, &prog, s.opts->filter, 1, PCAP_NETMASK_UNKNOWN) < 0) {
		err_set(err, "filter '%s' for '%s': %s\nhint: the filter is tcpdump's language (pcap-filter(7)), given as one argument",
			s.opts->filter, path, pcap_geterr(p));
		pcap_close(p);
		return -EINVAL;
	}
	s.c = xzalloc(sizeof(*s.c));
	while (!s.stop && (r = pcap_next_ex(p, &h, &data)) == 1) {
		uint64_t index = s.c->frames++;

		if (s.opts->filter && !pcap_offline_filter(&prog, h, data))
			continue;
		s.c->matched++;
		frame(&s, index, h, data);
	}
	if (!s.stop && r == PCAP_ERROR) {
		err_set(err, "capture '%s' is damaged after %llu frames: %s\nhint: a capture cut short (its writer stopped mid-frame) still shows its first frames in tcpdump -r",
			path, (unsigned long long)s.c->frames, pcap_geterr(p));
		ret = -EINVAL;
	}
	while (!ret && !s.stop && s.n_open)
		dgram_evict_oldest(&s);
	if (!ret)
		ret = s.stop;
	if (!ret) {
		finish(&s);
		*out = s.c;
		s.c = NULL;
	}
	state_release(&s);
	if (s.opts->filter)
		pcap_freecode(&prog);
	pcap_close(p);
	return ret;
}

void pcap_csum_free(struct pcap_csum *c)
{
	if (!c)
		return;
	free(c->senders);
	free(c);
}

const struct pcap_csum_sender *pcap_csum_sender(const struct pcap_csum *c, const uint8_t mac[6])
{
	for (size_t i = 0; i < c->n_senders; i++)
		if (!memcmp(c->senders[i].mac, mac, 6))
			return &c->senders[i];
	return NULL;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int pcap_csum_mac_parse(const char *s, uint8_t mac[6])
{
	uint8_t m[6];

	for (int i = 0; i < 6; i++, s += 3) {
		int hi = hexval(s[0]), lo = hi < 0 ? -1 : hexval(s[1]);

		if (lo < 0 || s[2] != (i < 5 ? ':' : '\0'))
			return -EINVAL;
		m[i] = (uint8_t)(hi << 4 | lo);
	}
	memcpy(mac, m, 6);
	return 0;
}

char *pcap_csum_mac_str(const uint8_t mac[6], char buf[18])
{
	snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4],
		 mac[5]);
	return buf;
}

const char *pcap_csum_kind_name(enum pcap_csum_kind k)
{
	return (unsigned int)k <= PCAP_CSUM_NKINDS ? kind_names[k] : "none";
}

const char *pcap_csum_why_name(enum pcap_csum_why w)
{
	return (unsigned int)w < PCAP_CSUM_NWHYS ? why_names[w] : "?";
}

const char *pcap_csum_verdict_name(enum pcap_csum_verdict v)
{
	return (unsigned int)v < ARRAY_SIZE(verdict_names) ? verdict_names[v] : "?";
}
