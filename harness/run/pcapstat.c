// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include "run/pcapstat.h"
#include "lib/util.h"

int pcap_filter_check(const char *filter, char **err)
{
	size_t n = filter ? strlen(filter) : 0;

	if (n <= PCAP_FILTER_MAX)
		return 0;
	err_set(err, "filter '%.40s...': %zu bytes, more than the %d a netlab pcap filter holds\nhint: match fewer hosts or ports (a net, a port range), or filter in two passes",
		filter, n, PCAP_FILTER_MAX);
	return -EINVAL;
}

/*
 * The Ethernet frame a tunnel carries inside @d (@len bytes captured), for
 * the tunnels a topology file builds: VXLAN (IPv4/UDP to port 4789, an
 * 8-byte VXLAN header) and GRE carrying Ethernet (gretap: IPv4 protocol
 * 47, GRE protocol 0x6558, with its optional checksum, key and sequence
 * words). An outer 802.1Q tag is skipped. NULL for anything else.
 */
static const u_char *tunnel_inner(const u_char *d, size_t len, size_t *inner_len)
{
	size_t off = 12, ihl;
	unsigned int type;

	if (len < off + 2)
		return NULL;
	type = (unsigned int)d[off] << 8 | d[off + 1];
	if (type == 0x8100) {
		off += 4;
		if (len < off + 2)
			return NULL;
		type = (unsigned int)d[off] << 8 | d[off + 1];
	}
	off += 2;
	if (type != 0x0800 || len < off + 20 || (d[off] >> 4) != 4)
		return NULL;
	ihl = (size_t)(d[off] & 0x0f) * 4;
	/* a fragment past the first carries no tunnel header */
	if (ihl < 20 || len < off + ihl || ((d[off + 6] & 0x1f) | d[off + 7]))
		return NULL;
	if (d[off + 9] == 17) {			/* UDP */
		off += ihl;
		if (len < off + 8 + 8 || ((unsigned int)d[off + 2] << 8 | d[off + 3]) != 4789)
			return NULL;
		off += 16;
	} else if (d[off + 9] == 47) {		/* GRE */
		unsigned int flags;

		off += ihl;
		if (len < off + 4)
			return NULL;
		flags = d[off];
		if (((unsigned int)d[off + 2] << 8 | d[off + 3]) != 0x6558)
			return NULL;
		off += 4 + (flags & 0x80 ? 4 : 0) + (flags & 0x20 ? 4 : 0) + (flags & 0x10 ? 4 : 0);
	} else {
		return NULL;
	}
	if (len < off + 14)
		return NULL;
	*inner_len = len - off;
	return d + off;
}

/* Whether @prog matches the frame, or the Ethernet frame a tunnel carries in it. */
static bool match(const struct bpf_program *prog, const struct pcap_pkthdr *h, const u_char *d)
{
	struct pcap_pkthdr ih;
	const u_char *in;
	size_t n;

	if (pcap_offline_filter(prog, h, d))
		return true;
	in = tunnel_inner(d, h->caplen, &n);
	if (!in)
		return false;
	ih = *h;
	ih.caplen = (bpf_u_int32)n;
	ih.len = h->len - (bpf_u_int32)(in - d);
	return pcap_offline_filter(prog, &ih, in);
}

int pcap_stats_read_many(const char *path, const char *const *filters, size_t n,
			 struct pcap_stats *st, char **err)
{
	char errbuf[PCAP_ERRBUF_SIZE] = "";
	struct bpf_program *prog = xzalloc((n + 1) * sizeof(*prog));
	struct pcap_pkthdr *h;
	const u_char *data;
	size_t compiled = 0;
	pcap_t *p;
	int r = 0, ret = 0;

	memset(st, 0, n * sizeof(*st));
	for (size_t i = 0; i < n; i++) {
		if (pcap_filter_check(filters[i], err)) {
			free(prog);
			return -EINVAL;
		}
	}
	p = pcap_open_offline(path, errbuf);
	if (!p) {
		err_set(err, "cannot read capture '%s': %s", path, errbuf);
		free(prog);
		return -EINVAL;
	}
	for (; compiled < n; compiled++) {
		if (filters[compiled] &&
		    pcap_compile(p, &prog[compiled], filters[compiled], 1, PCAP_NETMASK_UNKNOWN) < 0) {
			err_set(err, "filter '%s' for '%s': %s", filters[compiled], path,
				pcap_geterr(p));
			ret = -EINVAL;
			break;
		}
	}
	while (!ret && (r = pcap_next_ex(p, &h, &data)) == 1) {
		for (size_t i = 0; i < n; i++) {
			st[i].packets++;
			st[i].bytes += h->len;
			if (!filters[i] || match(&prog[i], h, data)) {
				st[i].matched++;
				st[i].matched_bytes += h->len;
			}
		}
	}
	if (!ret && r == PCAP_ERROR) {
		err_set(err, "capture '%s' is damaged after %llu packets: %s", path,
			(unsigned long long)(n ? st[0].packets : 0), pcap_geterr(p));
		ret = -EINVAL;
	}
	for (size_t i = 0; i < compiled; i++)
		if (filters[i])
			pcap_freecode(&prog[i]);
	free(prog);
	pcap_close(p);
	return ret;
}

int pcap_stats_read(const char *path, const char *filter, struct pcap_stats *st, char **err)
{
	return pcap_stats_read_many(path, &filter, 1, st, err);
}
