/* SPDX-License-Identifier: GPL-2.0 */
/* Packet counts of a capture file, read with libpcap. */
#ifndef NETLAB_PCAPSTAT_H
#define NETLAB_PCAPSTAT_H

#include <stddef.h>
#include <stdint.h>

struct pcap_stats {
	uint64_t packets;
	uint64_t bytes;		/* original (wire) length */
	uint64_t matched;	/* packets the filter accepted (all when no filter) */
	uint64_t matched_bytes;
};

/*
 * Count the packets of `path`, and those matching the BPF `filter` (tcpdump
 * syntax; NULL for none). -EINVAL with *err naming the file for a file that
 * is not a capture, is truncated, or a filter that does not compile.
 */
int pcap_stats_read(const char *path, const char *filter, struct pcap_stats *st, char **err);

/*
 * The longest BPF filter netlab compiles: libpcap's optimizer takes minutes
 * and gigabytes on thousands of terms (measured: 1 KB of "port N or ..." compiles
 * in 0.5 s, 4 KB in 18 s); a real filter is a few dozen bytes.
 */
#define PCAP_FILTER_MAX 1024
/* 0, or -EINVAL with *err when @filter is longer than PCAP_FILTER_MAX. */
int pcap_filter_check(const char *filter, char **err);

/*
 * The same for n filters in one pass over the file: st[i] for filters[i]
 * (NULL for none; packets and bytes are the file's in every st[i]). A
 * frame matches when it does, or when the Ethernet frame a VXLAN (UDP port
 * 4789) or gretap tunnel over IPv4 carries in it does: a topology file's
 * tunnels are counted by what they carry.
 */
int pcap_stats_read_many(const char *path, const char *const *filters, size_t n,
			 struct pcap_stats *st, char **err);

#endif /* NETLAB_PCAPSTAT_H */
