// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the checksum verifier: the input is a pcap file (what QEMU's
 * filter-dump writes for a NIC; its bytes come from a guest), verified with
 * pcap_csum_read() with a callback that reads every frame, then with the
 * filter "udp or ip6". A result whose counts do not add up aborts, which
 * libFuzzer reports as a crash. Seeds: the first frames of the captures
 * under tests/unit/fixtures/runs, their IP fragments and IPv6 frames.
 */
#include <stdlib.h>

#include "fuzz.h"
#include "run/pcapcsum.h"

static int frame(const struct pcap_csum_frame *f, void *ctx)
{
	uint64_t *sum = ctx;

	*sum += f->index + f->len + f->caplen + f->ip_len + f->ip + f->l4 + f->l4_kind + f->why +
		f->sport + f->dport + (uint64_t)f->proto + f->frag_offset + f->src[5];
	return 0;
}

static void check(const struct pcap_csum *c)
{
	uint64_t frames = c->runts + c->untallied;

	for (size_t i = 0; i < c->n_senders; i++) {
		const struct pcap_csum_sender *p = &c->senders[i];
		uint64_t outcomes = p->good + p->bad + p->zero + p->other;

		for (int w = 0; w < PCAP_CSUM_NWHYS; w++)
			outcomes += p->unverifiable[w];
		if (outcomes != p->packets || p->ip4 + p->ip6 > p->frames)
			abort();
		for (int k = 0; k < PCAP_CSUM_NKINDS; k++) {
			const struct pcap_csum_bad *b = &p->bad_kind[k];
			uint64_t in = b->top_other;

			if (b->n_top > PCAP_CSUM_TOP || b->packets > b->frames ||
			    (b->frames && (b->first > b->last || b->len_min > b->len_max)))
				abort();
			for (size_t t = 0; t < b->n_top; t++)
				in += b->top[t].count;
			if (in != b->frames)
				abort();
		}
		frames += p->frames;
	}
	if (frames != c->matched || c->matched > c->frames)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("X.pcap", data, size);
	uint64_t sum = 0;
	struct pcap_csum_opts o = { .frame = frame, .ctx = &sum };
	struct pcap_csum *c = NULL;
	char *err = NULL;

	if (!pcap_csum_read(path, &o, &c, &err))
		check(c);
	pcap_csum_free(c);
	free(err);
	err = NULL;
	c = NULL;
	o = (struct pcap_csum_opts){ .filter = "udp or ip6" };
	if (!pcap_csum_read(path, &o, &c, &err))
		check(c);
	pcap_csum_free(c);
	free(err);
	return 0;
}
