/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Checksums of a capture (libpcap, Ethernet), verified in one pass and
 * grouped by the sending station, the Ethernet source MAC: which frames a
 * NIC put on its link with a bad IPv4 header, TCP, UDP, ICMP or ICMPv6
 * checksum, and what those frames have in common.
 *
 * Frames and packets. Every frame counts once in its sender's frame counts.
 * The checksums count per packet, as the receiving stack checks them: a
 * packet is an IP frame, or the datagram that IP fragments make together.
 * Fragments are reassembled per (sender MAC, source, destination, ID,
 * protocol) for IPv4 and (sender MAC, source, destination, ID) for IPv6's
 * fragment header, within the file; the L4 checksum is verified over the
 * whole datagram and counts once for it, and every fragment frame is marked
 * with that verdict (struct pcap_csum_frame.l4). The IPv4 header checksum is
 * per frame, fragment or not. At most PCAP_CSUM_MAX_OPEN datagrams wait for
 * fragments at a time, each up to 64 KiB, and at most PCAP_CSUM_MAX_PENDING
 * fragment frames in all: past that the oldest datagram is given up on,
 * unverifiable (incomplete), like those still incomplete at the end.
 *
 * Everything read from the file is untrusted: each header is bounds-checked
 * against both the captured bytes and the frame's length on the wire.
 */
#ifndef NETLAB_PCAPCSUM_H
#define NETLAB_PCAPCSUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Datagrams reassembled at once, and fragment frames they may hold in all. */
#define PCAP_CSUM_MAX_OPEN 256
#define PCAP_CSUM_MAX_PENDING 16384
/* Senders tallied; frames of further MACs are verified but only counted (untallied). */
#define PCAP_CSUM_MAX_SENDERS 1024
/* Most frequent lengths kept per sender and kind, and distinct lengths counted. */
#define PCAP_CSUM_TOP 8
#define PCAP_CSUM_MAX_LENS 1024

/* The checksums that are verified. */
enum pcap_csum_kind {
	PCAP_CSUM_IP,		/* the IPv4 header's */
	PCAP_CSUM_TCP,
	PCAP_CSUM_UDP,
	PCAP_CSUM_ICMP,		/* ICMP over IPv4 */
	PCAP_CSUM_ICMPV6,
	PCAP_CSUM_NKINDS,	/* as a frame's l4_kind: none of those, or not known */
};

/* What one layer of a frame was found to be. */
enum pcap_csum_verdict {
	PCAP_CSUM_NONE,		/* nothing to check: not IP; the IP layer of IPv6 */
	PCAP_CSUM_GOOD,
	PCAP_CSUM_BAD,
	PCAP_CSUM_ZERO,		/* UDP over IPv4 with checksum 0: the sender computed none */
	PCAP_CSUM_UNVERIFIABLE,	/* why: enum pcap_csum_why */
	PCAP_CSUM_OTHER,	/* an L4 protocol that is none of the kinds (IGMP, ESP, ...) */
};

enum pcap_csum_why {
	PCAP_CSUM_WHY_CUT,		/* the capture kept fewer bytes than the packet has */
	PCAP_CSUM_WHY_INCOMPLETE,	/* fragments missing from the file (or given up on) */
	PCAP_CSUM_WHY_MALFORMED,	/* headers that contradict themselves or the frame */
	PCAP_CSUM_NWHYS,
};

/* One frame, as the per-frame callback sees it. */
struct pcap_csum_frame {
	uint64_t index;		/* position in the file, 0-based, counting every frame */
	int64_t ts_sec;
	uint32_t ts_nsec;
	uint32_t len, caplen;	/* on the wire, and kept in the file */
	uint8_t src[6], dst[6];	/* zero for a frame shorter than an Ethernet header */
	uint16_t ethertype;	/* after the VLAN tags */
	uint8_t vlans;		/* 802.1Q/802.1ad tags skipped */
	uint8_t family;		/* 4, 6, or 0: not IP */
	int proto;		/* L4 protocol (IPv6: after the extension headers); -1 unknown */
	bool ports;		/* sport and dport are known (TCP, UDP) */
	uint16_t sport, dport;
	uint32_t ip_len;	/* IPv4 total length, IPv6 40 + payload length; 0 unknown */
	uint32_t ip_id;		/* IPv4 ID; the fragment header's ID for an IPv6 fragment */
	bool fragment;		/* a piece of a datagram: l4 is the whole datagram's */
	bool frag_more;		/* more fragments follow (MF) */
	uint32_t frag_offset;	/* in bytes */
	enum pcap_csum_verdict ip;	/* the IPv4 header checksum */
	enum pcap_csum_verdict l4;	/* the TCP, UDP, ICMP or ICMPv6 checksum */
	enum pcap_csum_kind l4_kind;	/* which of those, PCAP_CSUM_NKINDS for none */
	enum pcap_csum_why why;		/* when ip or l4 is PCAP_CSUM_UNVERIFIABLE */
};

struct pcap_csum_len_count {
	uint32_t len;
	uint64_t count;
};

/* The bad checksums of one kind from one sender, and the frames that carried them. */
struct pcap_csum_bad {
	uint64_t packets;	/* IPv4 header: frames; L4: packets (a datagram once) */
	uint64_t frames;	/* frames that carried them: each fragment of a bad datagram */
	uint64_t first, last;	/* index of the first and of the last of those frames */
	uint32_t len_min, len_max;	/* their lengths on the wire */
	/* Their most frequent lengths, by count (most first) then length, exact counts. */
	struct pcap_csum_len_count top[PCAP_CSUM_TOP];
	size_t n_top;
	uint64_t top_other;	/* frames with a length not in top */
	/* false: over PCAP_CSUM_MAX_LENS distinct lengths; a later one may be missing from top */
	bool top_exact;
};

/*
 * One sending station. Each packet has one outcome: good, bad,
 * zero, unverifiable or other (in that order of precedence: bad first).
 */
struct pcap_csum_sender {
	uint8_t mac[6];
	uint64_t frames;	/* frames from this MAC (that the filter accepted) */
	uint64_t ip4, ip6;	/* of those, IPv4 and IPv6 */
	uint64_t fragments;	/* of those, IP fragments */
	uint64_t packets;	/* IP frames that are not fragments, and datagrams */
	uint64_t good;		/* every checksum it has verified good */
	uint64_t bad;		/* at least one bad checksum: bad_kind says which */
	uint64_t zero;		/* UDP over IPv4 without a checksum, the IPv4 header good */
	uint64_t unverifiable[PCAP_CSUM_NWHYS];
	uint64_t other;		/* an L4 protocol without a checksum verified here */
	struct pcap_csum_bad bad_kind[PCAP_CSUM_NKINDS];
};

struct pcap_csum {
	uint64_t frames;	/* in the file */
	uint64_t matched;	/* of those, accepted by the filter (all without one) */
	uint64_t runts;		/* matched frames shorter than an Ethernet header: no sender */
	uint64_t untallied;	/* matched frames of senders past PCAP_CSUM_MAX_SENDERS */
	struct pcap_csum_sender *senders;	/* in the order of their first frame */
	size_t n_senders;
};

/*
 * Called once for each frame the filter accepts. The frames of a fragmented
 * datagram come together when the datagram is done with (complete, given
 * up on, or at the end of the file), so indexes do not always increase.
 * A negative return stops the read, and pcap_csum_read() returns it.
 */
typedef int (*pcap_csum_frame_fn)(const struct pcap_csum_frame *f, void *ctx);

struct pcap_csum_opts {
	const char *filter;	/* BPF (tcpdump syntax): "ether src 52:54:00:4e:4c:0a"; NULL: all */
	pcap_csum_frame_fn frame;	/* NULL: none */
	void *ctx;			/* for frame */
};

/**
 * pcap_csum_read() - verify the checksums of every frame of a capture
 * @path: a libpcap file of link type Ethernet (QEMU's filter-dump writes them)
 * @opts: the filter and the per-frame callback; NULL for neither
 * @out: the result, to free with pcap_csum_free()
 * @err: on error, what failed naming @path, ending with a "\nhint: " line
 *
 * Return: 0; -errno when the file cannot be opened; -EINVAL for a file that
 * is not a capture, is truncated, is not of Ethernet frames, or a filter that
 * does not compile; a negative value the callback returned. *@out is set on
 * success only.
 */
int pcap_csum_read(const char *path, const struct pcap_csum_opts *opts, struct pcap_csum **out,
		   char **err);

void pcap_csum_free(struct pcap_csum *c);

/* The sender with MAC @mac, or NULL. */
const struct pcap_csum_sender *pcap_csum_sender(const struct pcap_csum *c, const uint8_t mac[6]);

/* "52:54:00:4e:4c:0a" into @mac: 0, or -EINVAL. */
int pcap_csum_mac_parse(const char *s, uint8_t mac[6]);

/* @mac as "52:54:00:4e:4c:0a" into @buf; returns @buf. */
char *pcap_csum_mac_str(const uint8_t mac[6], char buf[18]);

/* "ip", "tcp", "udp", "icmp", "icmpv6" ("none" for PCAP_CSUM_NKINDS). */
const char *pcap_csum_kind_name(enum pcap_csum_kind k);
/* "cut", "incomplete", "malformed". */
const char *pcap_csum_why_name(enum pcap_csum_why w);
/* "none", "good", "bad", "zero", "unverifiable", "other". */
const char *pcap_csum_verdict_name(enum pcap_csum_verdict v);

#endif /* NETLAB_PCAPCSUM_H */
