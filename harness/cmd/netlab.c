// SPDX-License-Identifier: GPL-2.0
/*
 * netlab: boot instrumented kernels in QEMU and check how they move packets.
 * main() and the command table only; each command lives in cmd-*.c.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "lib/util.h"
#include "version.h"

static const struct cmd commands[] = {
	{ "run", cmd_run, "boot a kernel, run a command in the guest, collect a run directory" },
	{ "regress", cmd_regress, "run the regression suite: scenarios, checks, baselines" },
	{ "pcap", cmd_pcap, "count the packets of a capture (libpcap), optionally by BPF filter" },
	{ "bisect", cmd_bisect, "find the kernel commit that breaks a scenario's checks (git bisect run)" },
	{ "report", cmd_report, "what a traced run's trace says: drops, stage latency, flows, NET_RX, rings, wire" },
	{ "gdb", cmd_gdb, "debug a scenario's guest kernel in gdb (gdbstub), interactively or in batch" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: netlab <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'netlab <command> --help' describes a command; 'netlab --version' tells the build.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return NL_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return NL_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("netlab %s (commit %s)\n", NETLAB_VERSION, NETLAB_COMMIT);
		return NL_EXIT_OK;
	}
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "netlab: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return NL_EXIT_USAGE;
}
