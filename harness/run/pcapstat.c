// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
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
			if (!filters[i] || pcap_offline_filter(&prog[i], h, data)) {
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
