// SPDX-License-Identifier: GPL-2.0
/*
 * netlab pcap FILE [FILTER]: packets and bytes of a capture, and of those a
 * BPF filter accepts, as "key value" lines (or JSON with --json).
 * netlab pcap --csum FILE [FILTER]: the checksums of those frames verified,
 * per sending MAC (run/pcapcsum.h), as a small table each (or JSON).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cmd/cmd.h"
#include "lib/jsonout.h"
#include "run/pcapcsum.h"
#include "run/pcapstat.h"

#define PCAP_USAGE "netlab pcap [--json] [--csum] FILE [FILTER]"

static void json_print(struct json_object *o)
{
	char *text = json_text(o, JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);

	if (text)
		puts(text);
	free(text);
	json_object_put(o);
}

static void print_json(const char *file, const struct pcap_stats *st)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "file", json_object_new_string(file));
	json_object_object_add(o, "packets", json_object_new_uint64(st->packets));
	json_object_object_add(o, "bytes", json_object_new_uint64(st->bytes));
	json_object_object_add(o, "matched", json_object_new_uint64(st->matched));
	json_object_object_add(o, "matched_bytes", json_object_new_uint64(st->matched_bytes));
	json_print(o);
}

static void add_u64(struct json_object *o, const char *key, uint64_t v)
{
	json_object_object_add(o, key, json_object_new_uint64(v));
}

static struct json_object *csum_bad_json(const struct pcap_csum_bad *b)
{
	struct json_object *o = json_object_new_object(), *lens;

	add_u64(o, "packets", b->packets);
	add_u64(o, "frames", b->frames);
	if (!b->frames)
		return o;
	add_u64(o, "first", b->first);
	add_u64(o, "last", b->last);
	add_u64(o, "len_min", b->len_min);
	add_u64(o, "len_max", b->len_max);
	lens = json_object_new_array();
	for (size_t i = 0; i < b->n_top; i++) {
		struct json_object *l = json_object_new_object();

		add_u64(l, "len", b->top[i].len);
		add_u64(l, "count", b->top[i].count);
		json_object_array_add(lens, l);
	}
	json_object_object_add(o, "lengths", lens);
	add_u64(o, "lengths_other", b->top_other);
	json_object_object_add(o, "lengths_exact", json_object_new_boolean(b->top_exact));
	return o;
}

static struct json_object *csum_sender_json(const struct pcap_csum_sender *p)
{
	struct json_object *o = json_object_new_object(), *u, *k;
	char mac[18];

	json_object_object_add(o, "mac", json_object_new_string(pcap_csum_mac_str(p->mac, mac)));
	add_u64(o, "frames", p->frames);
	add_u64(o, "ip4", p->ip4);
	add_u64(o, "ip6", p->ip6);
	add_u64(o, "fragments", p->fragments);
	add_u64(o, "packets", p->packets);
	add_u64(o, "good", p->good);
	add_u64(o, "bad", p->bad);
	add_u64(o, "zero", p->zero);
	u = json_object_new_object();
	for (int w = 0; w < PCAP_CSUM_NWHYS; w++)
		add_u64(u, pcap_csum_why_name(w), p->unverifiable[w]);
	json_object_object_add(o, "unverifiable", u);
	add_u64(o, "other", p->other);
	k = json_object_new_object();
	for (int i = 0; i < PCAP_CSUM_NKINDS; i++)
		json_object_object_add(k, pcap_csum_kind_name(i), csum_bad_json(&p->bad_kind[i]));
	json_object_object_add(o, "bad_kinds", k);
	return o;
}

static void csum_print_json(const char *file, const struct pcap_csum *c)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();

	json_object_object_add(o, "file", json_object_new_string(file));
	add_u64(o, "frames", c->frames);
	add_u64(o, "matched", c->matched);
	add_u64(o, "runts", c->runts);
	add_u64(o, "untallied", c->untallied);
	for (size_t i = 0; i < c->n_senders; i++)
		json_object_array_add(a, csum_sender_json(&c->senders[i]));
	json_object_object_add(o, "senders", a);
	json_print(o);
}

/*
 * "  bad udp      5 packets in 7 frames (#7..#69), 83..1034 bytes"
 * "               442 x2, 1034 x2, 83 x1, 87 x1, 91 x1": the most frequent lengths
 */
static void csum_print_bad(const char *kind, const struct pcap_csum_bad *b)
{
	printf("  bad %-8s %llu %s in %llu frames (#%llu..#%llu), %u..%u bytes\n%15s", kind,
	       (unsigned long long)b->packets, strcmp(kind, "ip") ? "packets" : "headers",
	       (unsigned long long)b->frames, (unsigned long long)b->first,
	       (unsigned long long)b->last, b->len_min, b->len_max, "");
	for (size_t i = 0; i < b->n_top; i++)
		printf("%s%u x%llu", i ? ", " : "", b->top[i].len,
		       (unsigned long long)b->top[i].count);
	if (b->top_other)
		printf(", other x%llu", (unsigned long long)b->top_other);
	printf("%s\n", b->top_exact ? "" : " (too many lengths: the top may miss some)");
}

static void csum_print_text(const struct pcap_csum *c)
{
	printf("frames %llu, matched %llu", (unsigned long long)c->frames,
	       (unsigned long long)c->matched);
	if (c->runts || c->untallied)
		printf(", runts %llu, untallied %llu", (unsigned long long)c->runts,
		       (unsigned long long)c->untallied);
	printf("\n");
	for (size_t i = 0; i < c->n_senders; i++) {
		const struct pcap_csum_sender *p = &c->senders[i];
		const uint64_t *u = p->unverifiable;
		char mac[18];

		printf("\nsender %s\n", pcap_csum_mac_str(p->mac, mac));
		printf("  frames        %8llu   IPv4 %llu, IPv6 %llu, fragments %llu\n",
		       (unsigned long long)p->frames, (unsigned long long)p->ip4,
		       (unsigned long long)p->ip6, (unsigned long long)p->fragments);
		printf("  packets       %8llu\n", (unsigned long long)p->packets);
		printf("  good          %8llu\n", (unsigned long long)p->good);
		printf("  bad           %8llu  ", (unsigned long long)p->bad);
		for (int k = 0; k < PCAP_CSUM_NKINDS; k++)
			printf(" %s %llu", pcap_csum_kind_name(k),
			       (unsigned long long)p->bad_kind[k].packets);
		printf("\n  no checksum   %8llu   (UDP over IPv4 with checksum 0)\n",
		       (unsigned long long)p->zero);
		printf("  unverifiable  %8llu   cut %llu, incomplete %llu, malformed %llu\n",
		       (unsigned long long)(u[0] + u[1] + u[2]), (unsigned long long)u[0],
		       (unsigned long long)u[1], (unsigned long long)u[2]);
		printf("  other         %8llu   (L4 protocols without a checksum verified)\n",
		       (unsigned long long)p->other);
		for (int k = 0; k < PCAP_CSUM_NKINDS; k++)
			if (p->bad_kind[k].frames)
				csum_print_bad(pcap_csum_kind_name(k), &p->bad_kind[k]);
	}
}

static int pcap_csum_cmd(const char *file, const char *filter, int json)
{
	struct pcap_csum_opts opts = { .filter = filter };
	struct pcap_csum *c;
	char *err = NULL;

	if (pcap_csum_read(file, &opts, &c, &err)) {
		cmd_error("pcap", err);
		free(err);
		return NL_EXIT_USAGE;
	}
	if (json)
		csum_print_json(file, c);
	else
		csum_print_text(c);
	pcap_csum_free(c);
	return NL_EXIT_OK;
}

int cmd_pcap(int argc, char **argv)
{
	struct pcap_stats st;
	const char *file = NULL, *filter = NULL;
	char *err = NULL;
	int json = 0, csum = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "--csum")) {
			csum = 1;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			puts("usage: " PCAP_USAGE "\n"
			     "      --json    one JSON object\n"
			     "      --csum    verify the IPv4, TCP, UDP, ICMP and ICMPv6\n"
			     "                checksums, per sending MAC");
			return NL_EXIT_OK;
		} else if (!file && argv[i][0] == '-' && argv[i][1]) {
			/* A filter may start with '-' only after the file. */
			char *e = xasprintf("bad option '%s' (see 'netlab pcap --help')\nhint: %s",
					    argv[i], PCAP_USAGE);

			cmd_error("pcap", e);
			free(e);
			return NL_EXIT_USAGE;
		} else if (!file) {
			file = argv[i];
		} else if (!filter) {
			filter = argv[i];
		} else {
			cmd_error("pcap", "too many arguments\nhint: quote the filter: 'icmp and host 198.18.0.2'");
			return NL_EXIT_USAGE;
		}
	}
	if (!file) {
		cmd_error("pcap", "no capture file given\nhint: netlab pcap RUN_DIR/nic-A.pcap [FILTER]");
		return NL_EXIT_USAGE;
	}
	if (csum)
		return pcap_csum_cmd(file, filter, json);
	if (pcap_stats_read(file, filter, &st, &err)) {
		cmd_error("pcap", err);
		free(err);
		return NL_EXIT_USAGE;
	}
	if (json)
		print_json(file, &st);
	else
		printf("packets %llu\nbytes %llu\nmatched %llu\nmatched_bytes %llu\n",
		       (unsigned long long)st.packets, (unsigned long long)st.bytes,
		       (unsigned long long)st.matched, (unsigned long long)st.matched_bytes);
	return NL_EXIT_OK;
}
