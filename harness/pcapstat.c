// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>

#include <pcap/pcap.h>

#include "pcapstat.h"
#include "util.h"

int pcap_stats_read(const char *path, const char *filter, struct pcap_stats *st, char **err)
{
	char errbuf[PCAP_ERRBUF_SIZE] = "";
	struct bpf_program prog;
	struct pcap_pkthdr *h;
	const u_char *data;
	pcap_t *p;
	int r, ret = 0;

	memset(st, 0, sizeof(*st));
	p = pcap_open_offline(path, errbuf);
	if (!p) {
		err_set(err, "cannot read capture '%s': %s", path, errbuf);
		return -EINVAL;
	}
	if (filter && pcap_compile(p, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) < 0) {
		err_set(err, "filter '%s' for '%s': %s", filter, path, pcap_geterr(p));
		pcap_close(p);
		return -EINVAL;
	}
	while ((r = pcap_next_ex(p, &h, &data)) == 1) {
		st->packets++;
		st->bytes += h->len;
		if (!filter || pcap_offline_filter(&prog, h, data)) {
			st->matched++;
			st->matched_bytes += h->len;
		}
	}
	if (r == PCAP_ERROR) {
		err_set(err, "capture '%s' is damaged after %llu packets: %s", path,
			(unsigned long long)st->packets, pcap_geterr(p));
		ret = -EINVAL;
	}
	if (filter)
		pcap_freecode(&prog);
	pcap_close(p);
	return ret;
}
