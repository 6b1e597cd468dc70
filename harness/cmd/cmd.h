/* SPDX-License-Identifier: GPL-2.0 */
/* Subcommands: each parses its options and calls into the library. */
#ifndef NETLAB_CMD_H
#define NETLAB_CMD_H

#include "gdb/replay.h"
#include "run/run.h"

struct cmd {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

int cmd_run(int argc, char **argv);
int cmd_pcap(int argc, char **argv);
int cmd_regress(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_bisect(int argc, char **argv);
int cmd_gdb(int argc, char **argv);
int cmd_selftests(int argc, char **argv);
int cmd_history(int argc, char **argv);

/* --share and --add of run, regress, gdb and bisect: owned arrays (vm/share.h). */
struct cmd_shares {
	struct vm_share *shares;
	size_t n_shares;
	struct vm_share *adds;
	size_t n_adds;
};

#define CMD_SHARE_HELP \
	"      --share DIR[:GUEST][:rw]  mount host directory DIR in the guest (virtio-9p) at\n" \
	"                        GUEST (default /mnt/share/BASENAME), read-only unless :rw;\n" \
	"                        repeatable\n" \
	"      --add FILE[:GUEST]  put FILE in the guest's initramfs at GUEST (default\n" \
	"                        /mnt/add/BASENAME); repeatable\n"

/* --share (add false) or --add (add true) SPEC into cs: 0, or -EINVAL with *err. */
int cmd_parse_share(const char *spec, bool add, struct cmd_shares *cs, char **err);
/* The shares and files together (share_list_check()), then into o. */
int cmd_shares_finish(struct cmd_shares *cs, struct run_opts *o, char **err);
void cmd_shares_release(struct cmd_shares *cs);

/* Options of `netlab run`, parsed; strings borrowed from argv or owned in `own`. */
struct run_cmd {
	struct run_opts opts;
	bool quiet;
	bool help;
	bool print_xml;			/* --print-xml: libvirt domain XML, no run */
	bool backend_given;		/* --backend: else --connect, --print-xml imply one */
	const char *flavour;		/* --flavour: the default kernel is its; NULL: default */
	char *own[4];
	char **job_lines;		/* --sysctl, as "sysctl.NAME=VALUE"; owned */
	size_t n_job_lines;
	struct cmd_shares shares;	/* --share, --add */
};

/* --domain-name: letters, digits, '_', '.', '-', at most 48 characters. */
int cmd_parse_domain_name(const char *arg, const char **out, char **err);
/* --snaplen BYTES: 0 (whole frames) or 64..65535 (QEMU filter-dump maxlen). */
int cmd_parse_snaplen(const char *arg, unsigned int *out, char **err);

struct option;
/*
 * cmd_opt_name() - how the user wrote the option getopt_long() just returned:
 * "--NAME" when @li (its longindex) is set, else "-C". Into @buf.
 */
const char *cmd_opt_name(const struct option *longopts, int li, int c, char *buf, size_t n);

/*
 * cmd_getopt() - getopt_long() over @argv, each option handed to @one with
 * the name the user wrote (cmd_opt_name()) and its argument; an unknown
 * option or a missing argument is "bad option 'X' (see 'netlab CMD --help')".
 * Return: 0, with optind at the first operand; -EINVAL with *@err set.
 */
int cmd_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
	       const char *cmd, int (*one)(void *ctx, int c, const char *opt, const char *arg,
					   char **err),
	       void *ctx, char **err);

/* Parse `netlab run` options (argv[0] is "run"). 0 or -EINVAL with *err. */
int run_cmd_parse(int argc, char **argv, struct run_cmd *rc, char **err);
void run_cmd_release(struct run_cmd *rc);

/* Options of `netlab bisect`, parsed; strings borrowed from argv. */
struct bisect_cmd {
	const char *ksrc, *good, *bad, *scenario, *check, *out, *resume, *initrd, *module;
	const char *selftest;		/* --selftest TARGET:TEST, instead of --scenario */
	const char *flavour;		/* --flavour NAME: each step builds that flavour */
	struct cmd_shares shares;	/* --share, --add: every step's runs get them */
	unsigned int runs, jobs;
	int deterministic;		/* -1: the scenario's */
	bool help;
	bool step;			/* hidden: one `git bisect run` step */
	const char *state;		/* --state RUN_DIR of a step */
};

/* Parse `netlab bisect` options (argv[0] is "bisect"). 0 or -EINVAL with *err. */
int bisect_cmd_parse(int argc, char **argv, struct bisect_cmd *bc, char **err);
void bisect_cmd_release(struct bisect_cmd *bc);

/* Options of `netlab gdb`, parsed; strings borrowed from argv or owned in `own`. */
struct gdb_cmd {
	struct gdb_opts o;		/* gdb/replay.h */
	bool help;
	const char *flavour;		/* --flavour: the default kernel is its; NULL: default */
	char *own[3];
	struct cmd_shares shares;	/* --share, --add: after the scenario's shares */
};

/* Parse `netlab gdb` options (argv[0] is "gdb"): 0 or -EINVAL with *err.
 * Release gc in both cases. */
int gdb_cmd_parse(int argc, char **argv, struct gdb_cmd *gc, char **err);
void gdb_cmd_release(struct gdb_cmd *gc);

/* Print "netlab: <err>" (err may hold a "\nhint: ..." line) to stderr. */
void cmd_error(const char *what, const char *err);

/*
 * cmd_check_out() - --out DIR of any command, before anything is made or
 * boots: run_dir_check() naming "--out"; @below as there (NULL: DIR is the
 * run directory). 0, or -EINVAL with *err.
 */
int cmd_check_out(const char *out, const char *below, char **err);

struct regress;
/*
 * cmd_check_suite_out() - cmd_check_out() for a suite's --out: its runs go
 * to OUT/SCENARIO/run-N, the deepest of @r's scenarios counted.
 */
int cmd_check_suite_out(const char *out, const struct regress *r, char **err);

/*
 * cmd_check_initrd() - the initramfs a command was given (@opt: "--initrd",
 * or "initramfs" for the default) is one (initrd_check()). 0, or -EINVAL
 * with *err naming it and what to do.
 */
int cmd_check_initrd(const char *opt, const char *path, char **err);

/*
 * --flavour NAME of run, regress, selftests, gdb and bisect: a directory of
 * kconfigs/flavours/ (boot/flavour.h). 0, or -EINVAL with *err naming it
 * and listing the flavours.
 */
int cmd_parse_flavour(const char *opt, const char *arg, const char **out, char **err);
/* The kernel of a flavour (NULL: default): cmd_default_kernel(), else build/kernel-NAME/bzImage. */
char *cmd_flavour_kernel(const char *flavour);
/* A flavour's kernel that `make kernel FLAVOUR=NAME` has not built: -EINVAL, with the hint. */
int cmd_check_flavour_kernel(const char *flavour, const char *kernel, char **err);

/* Defaults every command uses; heap strings the caller frees: $KERNEL or
 * kernel/bzImage beside the binary, $INITRD or initramfs.cpio.gz beside it,
 * and runs/KIND-DATE-TIME-PID. */
char *cmd_default_kernel(void);
char *cmd_default_initrd(void);
char *cmd_default_out(const char *kind);

#endif /* NETLAB_CMD_H */
