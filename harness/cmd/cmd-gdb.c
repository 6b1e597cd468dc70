// SPDX-License-Identifier: GPL-2.0
/*
 * netlab gdb SCENARIO|RUN_DIR: a scenario's guest kernel under gdb (QEMU's
 * gdbstub on a unix socket in the run directory), interactively or with a
 * --batch script; or the replay of a recorded run (--replay RUN_DIR).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "gdb/replay.h"
#include "run/run.h"
#include "scenario/scngdb.h"

static const char gdb_usage[] =
	"usage: netlab gdb [options] SCENARIO.scn\n"
	"       netlab gdb [options] --replay RUN_DIR\n"
	"  -b, --break FUNC      hardware breakpoint (hbreak) before the kernel runs; repeatable\n"
	"      --batch FILE      run gdb commands FILE (.gdb, or .py) with nobody at the terminal;\n"
	"                        gdb's output goes to RUN_DIR/gdb.log\n"
	"      --replay          RUN_DIR is a recording ('netlab run --record'): replay it under gdb,\n"
	"                        output in VM_DIR/replay-N/; nl-goto ICOUNT, nl-back go back\n"
	"      --until WHAT      replay: run to WHAT, print it and stop there: first-drop (the\n"
	"                        run's first packet drop: the first of its trace, else the first\n"
	"                        skb freed as a drop), next-drop, or a kernel FUNC ['if EXPR'];\n"
	"                        with --batch the replay ends when the batch file does\n"
	"      --record          record the debugged VM too (replay.bin, replay.argv)\n"
	"      --vm a|b          pair topology: the VM to debug or replay (default: a NIC's with gdb helpers, else a)\n"
	"  -o, --out DIR         run directory (default runs/gdb-DATE-PID)\n"
	"      --timeout S       stop the run after S seconds (default: the scenario's; 1 day\n"
	"                        for an interactive session; 600 for a replay)\n"
	"      --kernel FILE     bzImage; its vmlinux and gdb scripts must be beside it\n"
	"      --flavour NAME    the kernel of flavour NAME, as for netlab run\n"
	"      --initrd FILE     base initramfs\n"
	"      --modules DIR     as for netlab run: the kernel's lib/modules/VERSION, for a\n"
	"                        kernel whose NIC drivers are modules (not with --replay)\n"
	"      --qemu PATH       QEMU binary\n"
	CMD_SHARE_HELP
	"exit status: the run's (0 ok, 1 failed, panic or timeout), 1 when gdb failed,\n"
	"2 on bad input (no vmlinux with debug info, no gdb, no recording), 125 when\n"
	"the guest could not run or a replay did not finish.\n";

enum { OPT_BATCH = 256, OPT_REPLAY, OPT_RECORD, OPT_VM, OPT_TIMEOUT, OPT_KERNEL, OPT_INITRD,
       OPT_QEMU, OPT_UNTIL, OPT_SHARE, OPT_ADD, OPT_MODULES, OPT_FLAVOUR };

static const struct option gdb_longopts[] = {
	{ "break", required_argument, NULL, 'b' },
	{ "batch", required_argument, NULL, OPT_BATCH },
	{ "replay", no_argument, NULL, OPT_REPLAY },
	{ "record", no_argument, NULL, OPT_RECORD },
	{ "until", required_argument, NULL, OPT_UNTIL },
	{ "vm", required_argument, NULL, OPT_VM },
	{ "out", required_argument, NULL, 'o' },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "kernel", required_argument, NULL, OPT_KERNEL },
	{ "flavour", required_argument, NULL, OPT_FLAVOUR },
	{ "initrd", required_argument, NULL, OPT_INITRD },
	{ "modules", required_argument, NULL, OPT_MODULES },
	{ "qemu", required_argument, NULL, OPT_QEMU },
	{ "share", required_argument, NULL, OPT_SHARE },
	{ "add", required_argument, NULL, OPT_ADD },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_one(int c, const char *arg, struct gdb_cmd *gc, char **err)
{
	unsigned long v;

	switch (c) {
	case 'b':
		gc->o.breaks = xrealloc_array(gc->o.breaks, gc->o.n_breaks + 1, sizeof(*gc->o.breaks));
		gc->o.breaks[gc->o.n_breaks++] = arg;
		return 0;
	case OPT_BATCH: gc->o.batch = arg; return 0;
	case OPT_REPLAY: gc->o.replay = true; return 0;
	case OPT_RECORD: gc->o.record = true; return 0;
	case 'o': gc->o.out = arg; return 0;
	case OPT_KERNEL: gc->o.kernel = arg; return 0;
	case OPT_FLAVOUR: return cmd_parse_flavour("--flavour", arg, &gc->flavour, err);
	case OPT_INITRD: gc->o.initrd = arg; return 0;
	case OPT_MODULES: {
		struct stat st;

		if (stat(arg, &st) || !S_ISDIR(st.st_mode)) {
			err_set(err, "--modules '%s': not a directory\nhint: the kernel's "
				     "lib/modules/VERSION, or a package unpacked with dpkg -x", arg);
			return -EINVAL;
		}
		gc->o.modules = arg;
		return 0;
	}
	case OPT_QEMU: gc->o.qemu = arg; return 0;
	case OPT_SHARE: return cmd_parse_share(arg, false, &gc->shares, err);
	case OPT_ADD: return cmd_parse_share(arg, true, &gc->shares, err);
	case OPT_UNTIL:
		/* One gdb command line: no newline may end it early. */
		if (!*arg || strpbrk(arg, "\n\r")) {
			err_set(err, "--until '%s': expected first-drop, next-drop or a kernel function", arg);
			return -EINVAL;
		}
		gc->o.until = arg;
		return 0;
	case 'h': gc->help = true; return 0;
	case OPT_VM:
		if ((arg[0] == 'a' || arg[0] == 'b') && !arg[1]) {
			gc->o.vm = arg[0] - 'a';
			return 0;
		}
		err_set(err, "--vm '%s': expected a or b", arg);
		return -EINVAL;
	case OPT_TIMEOUT:
		if (parse_uint(arg, 1, 86400 * 7, &v) == 0) {
			gc->o.timeout_s = (unsigned int)v;
			return 0;
		}
		err_set(err, "--timeout '%s': expected seconds, 1 or more", arg);
		return -EINVAL;
	default:
		err_set(err, "bad option (see 'netlab gdb --help')");
		return -EINVAL;
	}
}

int gdb_cmd_parse(int argc, char **argv, struct gdb_cmd *gc, char **err)
{
	int c;

	memset(gc, 0, sizeof(*gc));
	gc->o.vm = -1;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "b:o:h", gdb_longopts, NULL)) != -1) {
		if (c == '?' || c == ':') {
			err_set(err, "bad option '%s' (see 'netlab gdb --help')", argv[optind - 1]);
			return -EINVAL;
		}
		if (parse_one(c, optarg, gc, err))
			return -EINVAL;
	}
	gc->o.shares = gc->shares.shares;
	gc->o.n_shares = gc->shares.n_shares;
	gc->o.adds = gc->shares.adds;
	gc->o.n_adds = gc->shares.n_adds;
	if (gc->help)
		return 0;
	if (optind != argc - 1) {
		err_set(err, "expected one SCENARIO.scn or RUN_DIR (see 'netlab gdb --help')");
		return -EINVAL;
	}
	gc->o.target = argv[optind];
	if (gc->o.batch && access(gc->o.batch, R_OK)) {
		err_set(err, "cannot read --batch file '%s': %s", gc->o.batch, strerror(errno));
		return -EINVAL;
	}
	if (gc->o.out && cmd_check_out(gc->o.out, NULL, err))
		return -EINVAL;
	if (!gc->o.kernel)
		gc->o.kernel = gc->own[0] = cmd_flavour_kernel(gc->flavour);
	if (!gc->o.replay && cmd_check_flavour_kernel(gc->flavour, gc->o.kernel, err))
		return -EINVAL;
	if (!gc->o.initrd)
		gc->o.initrd = gc->own[1] = cmd_default_initrd();
	return 0;
}

void gdb_cmd_release(struct gdb_cmd *gc)
{
	for (size_t i = 0; i < ARRAY_SIZE(gc->own); i++)
		free(gc->own[i]);
	free(gc->o.breaks);
	cmd_shares_release(&gc->shares);
}

/* ---- the command -------------------------------------------------------------- */

static int finish(const struct gdb_sess *s, int run_code)
{
	char *log = xasprintf("%s/gdb.log", s->dir);
	int g = gdb_proc_exited(&s->proc) ? gdb_proc_exit_code(&s->proc) : 0;

	/* A batch script whose last command ran the guest to its end fails only
	 * because the guest powered off under it: that is not gdb failing. */
	if (g && g < 128 && g != GDB_EXIT_TIMEOUT && gdb_log_ended_guest(log)) {
		fprintf(stderr, "netlab gdb: the guest ended while gdb waited on it (end scripts with 'detach' to avoid that)\n");
		g = 0;
	}
	fprintf(stderr, "netlab gdb: gdb exited with status %d; log: %s\n", g, log);
	free(log);
	if (run_code)
		return run_code;
	return g && s->o->batch ? NL_EXIT_FAIL : NL_EXIT_OK;
}

static int __cmd_gdb(struct gdb_cmd *gc)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	struct run_result res = { 0 };
	struct gdb_sess s;
	char *err = NULL;
	int ret, code;
	bool scn = !gc->o.replay && strlen(gc->o.target) > 4 &&
		   !strcmp(gc->o.target + strlen(gc->o.target) - 4, ".scn");

	if (!scn && !gc->o.replay) {
		/* A run directory: replay it if it holds a recording. */
		struct stat st;

		if (stat(gc->o.target, &st) || !S_ISDIR(st.st_mode)) {
			err_set(&err, "'%s' is neither a scenario (.scn) nor a run directory", gc->o.target);
			cmd_error("gdb", err);
			free(err);
			return NL_EXIT_USAGE;
		}
		gc->o.replay = true;
	}
	if (gc->o.modules && gc->o.replay) {
		cmd_error("gdb", "--modules with a replay: it boots the recorded initramfs, with the "
				 "modules it had\nhint: pass --modules when recording");
		return NL_EXIT_USAGE;
	}
	if (gc->o.until && !gc->o.replay) {
		cmd_error("gdb", "--until needs a recorded run (netlab gdb RUN_DIR)\nhint: record one with 'netlab regress --record' or 'netlab run --record'");
		return NL_EXIT_USAGE;
	}
	if (scn && cmd_check_initrd(gc->own[1] ? "initramfs" : "--initrd", gc->o.initrd, &err)) {
		cmd_error("gdb", err);
		free(err);
		return NL_EXIT_USAGE;
	}
	if (scn && !gc->o.out)
		gc->o.out = gc->own[2] = cmd_default_out("gdb");
	ret = gdb_sess_init(&s, &gc->o, &err);
	/* ^C belongs to gdb (it stops the guest), not to us. */
	if (!gc->o.batch)
		sigaction(SIGINT, &ign, &old);
	if (!ret)
		ret = gc->o.replay ? gdb_replay_run(&s, &err) : scngdb_run(&s, &res, &err);
	if (!ret && !gc->o.replay)
		gdb_sess_wait(&s);
	if (!gc->o.batch)
		sigaction(SIGINT, &old, NULL);
	if (ret) {
		cmd_error("gdb", err);
		code = ret == -EINVAL ? NL_EXIT_USAGE : NL_EXIT_CANNOT_TEST;
		if (ret == -ETIMEDOUT)
			finish(&s, 0);
	} else if (gc->o.replay) {
		code = finish(&s, 0);
	} else {
		fprintf(stderr, "netlab gdb: %s: %s\nnetlab gdb: run directory: %s\n",
			run_verdict_name(res.verdict), res.reason ? res.reason : "", s.dir);
		code = finish(&s, run_result_exit_code(&res));
	}
	run_result_release(&res);
	gdb_sess_release(&s);
	free(err);
	return code;
}

int cmd_gdb(int argc, char **argv)
{
	struct gdb_cmd gc;
	char *err = NULL;
	int ret;

	if (gdb_cmd_parse(argc, argv, &gc, &err)) {
		cmd_error("gdb", err);
		free(err);
		gdb_cmd_release(&gc);
		return NL_EXIT_USAGE;
	}
	if (gc.help) {
		fputs(gdb_usage, stdout);
		gdb_cmd_release(&gc);
		return NL_EXIT_OK;
	}
	ret = __cmd_gdb(&gc);
	gdb_cmd_release(&gc);
	return ret;
}
