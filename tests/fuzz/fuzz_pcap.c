// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the capture counter: the input is a pcap file (what QEMU's
 * filter-dump writes for a NIC), counted with pcap_stats_read() without a
 * filter and with "udp". Seeds: the first packets of the captures under
 * tests/unit/fixtures/runs.
 */
#include <stdlib.h>

#include "fuzz.h"
#include "run/pcapstat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("X.pcap", data, size);
	struct pcap_stats st;
	char *err = NULL;

	pcap_stats_read(path, NULL, &st, &err);
	free(err);
	err = NULL;
	pcap_stats_read(path, "udp", &st, &err);
	free(err);
	return 0;
}
