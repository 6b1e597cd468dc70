// SPDX-License-Identifier: GPL-2.0
/*
 * netlab pcap FILE [FILTER]: packets and bytes of a capture, and of those a
 * BPF filter accepts, as "key value" lines (or JSON with --json).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cmd/cmd.h"
#include "run/pcapstat.h"

static void print_json(const char *file, const struct pcap_stats *st)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "file", json_object_new_string(file));
	json_object_object_add(o, "packets", json_object_new_uint64(st->packets));
	json_object_object_add(o, "bytes", json_object_new_uint64(st->bytes));
	json_object_object_add(o, "matched", json_object_new_uint64(st->matched));
	json_object_object_add(o, "matched_bytes", json_object_new_uint64(st->matched_bytes));
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_SPACED |
						    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

int cmd_pcap(int argc, char **argv)
{
	struct pcap_stats st;
	const char *file = NULL, *filter = NULL;
	char *err = NULL;
	int json = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			puts("usage: netlab pcap [--json] FILE [FILTER]");
			return NL_EXIT_OK;
		} else if (!file && argv[i][0] == '-' && argv[i][1]) {
			/* A filter may start with '-' only after the file. */
			char *e = xasprintf("bad option '%s' (see 'netlab pcap --help')\nhint: "
					    "netlab pcap [--json] FILE [FILTER]", argv[i]);

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
