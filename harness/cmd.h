/* SPDX-License-Identifier: GPL-2.0 */
/* Subcommands: each parses its options and calls into the library. */
#ifndef NETLAB_CMD_H
#define NETLAB_CMD_H

#include "run.h"

struct cmd {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

int cmd_run(int argc, char **argv);
int cmd_pcap(int argc, char **argv);
int cmd_regress(int argc, char **argv);
int cmd_report(int argc, char **argv);

/* Options of `netlab run`, parsed; strings borrowed from argv or owned in `own`. */
struct run_cmd {
	struct run_opts opts;
	bool quiet;
	bool help;
	char *own[4];
	char **job_lines;		/* --sysctl, as "sysctl.NAME=VALUE"; owned */
	size_t n_job_lines;
};

/* Parse `netlab run` options (argv[0] is "run"). 0 or -EINVAL with *err. */
int run_cmd_parse(int argc, char **argv, struct run_cmd *rc, char **err);
void run_cmd_release(struct run_cmd *rc);

/* Print "netlab: <err>" (err may hold a "\nhint: ..." line) to stderr. */
void cmd_error(const char *what, const char *err);

/* Defaults every command uses; heap strings the caller frees: $KERNEL or
 * kernel/bzImage beside the binary, $INITRD or initramfs.cpio.gz beside it,
 * and runs/KIND-DATE-TIME-PID. */
char *cmd_default_kernel(void);
char *cmd_default_initrd(void);
char *cmd_default_out(const char *kind);

#endif /* NETLAB_CMD_H */
