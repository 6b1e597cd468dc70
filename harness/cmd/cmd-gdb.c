// SPDX-License-Identifier: GPL-2.0
/*
 * netlab gdb SCENARIO|RUN_DIR: a scenario's guest kernel under gdb (QEMU's
 * gdbstub on a unix socket in the run directory), interactively or with a
 * --batch script; or the replay of a recorded run (--replay RUN_DIR).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/esc.h"
#include "cmd/cmd.h"
#include "gdb/gdb.h"
#include "lib/outlock.h"
#include "scenario/scenario.h"
#include "scenario/scnrun.h"
#include "trace/tracedrops.h"
#include "vm/share.h"
#include "vm/vm.h"

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
	"      --vm a|b          pair topology: the VM to debug or replay (default: e1000e's, else a)\n"
	"  -o, --out DIR         run directory (default runs/gdb-DATE-PID)\n"
	"      --timeout S       stop the run after S seconds (default: the scenario's; 1 day\n"
	"                        for an interactive session; 600 for a replay)\n"
	"      --kernel FILE     bzImage; its vmlinux and gdb scripts must be beside it\n"
	"      --initrd FILE     base initramfs\n"
	"      --modules DIR     as for netlab run: the kernel's lib/modules/VERSION, for a\n"
	"                        kernel whose NIC drivers are modules (not with --replay)\n"
	"      --qemu PATH       QEMU binary\n"
	CMD_SHARE_HELP
	"exit status: the run's (0 ok, 1 failed, panic or timeout), 1 when gdb failed,\n"
	"2 on bad input (no vmlinux with debug info, no gdb, no recording), 125 when\n"
	"the guest could not run or a replay did not finish.\n";

enum { OPT_BATCH = 256, OPT_REPLAY, OPT_RECORD, OPT_VM, OPT_TIMEOUT, OPT_KERNEL, OPT_INITRD,
       OPT_QEMU, OPT_UNTIL, OPT_SHARE, OPT_ADD, OPT_MODULES };

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
		gc->breaks = xrealloc_array(gc->breaks, gc->n_breaks + 1, sizeof(*gc->breaks));
		gc->breaks[gc->n_breaks++] = arg;
		return 0;
	case OPT_BATCH: gc->batch = arg; return 0;
	case OPT_REPLAY: gc->replay = true; return 0;
	case OPT_RECORD: gc->record = true; return 0;
	case 'o': gc->out = arg; return 0;
	case OPT_KERNEL: gc->kernel = arg; return 0;
	case OPT_INITRD: gc->initrd = arg; return 0;
	case OPT_MODULES: {
		struct stat st;

		if (stat(arg, &st) || !S_ISDIR(st.st_mode)) {
			err_set(err, "--modules '%s': not a directory\nhint: the kernel's "
				     "lib/modules/VERSION, or a package unpacked with dpkg -x", arg);
			return -EINVAL;
		}
		gc->modules = arg;
		return 0;
	}
	case OPT_QEMU: gc->qemu = arg; return 0;
	case OPT_SHARE: return cmd_parse_share(arg, false, &gc->shares, err);
	case OPT_ADD: return cmd_parse_share(arg, true, &gc->shares, err);
	case OPT_UNTIL:
		/* One gdb command line: no newline may end it early. */
		if (!*arg || strpbrk(arg, "\n\r")) {
			err_set(err, "--until '%s': expected first-drop, next-drop or a kernel function", arg);
			return -EINVAL;
		}
		gc->until = arg;
		return 0;
	case 'h': gc->help = true; return 0;
	case OPT_VM:
		if ((arg[0] == 'a' || arg[0] == 'b') && !arg[1]) {
			gc->vm = arg[0] - 'a';
			return 0;
		}
		err_set(err, "--vm '%s': expected a or b", arg);
		return -EINVAL;
	case OPT_TIMEOUT:
		if (parse_uint(arg, 1, 86400 * 7, &v) == 0) {
			gc->timeout_s = (unsigned int)v;
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
	gc->vm = -1;
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
	if (gc->help)
		return 0;
	if (optind != argc - 1) {
		err_set(err, "expected one SCENARIO.scn or RUN_DIR (see 'netlab gdb --help')");
		return -EINVAL;
	}
	gc->target = argv[optind];
	if (gc->batch && access(gc->batch, R_OK)) {
		err_set(err, "cannot read --batch file '%s': %s", gc->batch, strerror(errno));
		return -EINVAL;
	}
	if (gc->out && cmd_check_out(gc->out, NULL, err))
		return -EINVAL;
	if (!gc->kernel)
		gc->kernel = gc->own[0] = cmd_default_kernel();
	if (!gc->initrd)
		gc->initrd = gc->own[1] = cmd_default_initrd();
	return 0;
}

void gdb_cmd_release(struct gdb_cmd *gc)
{
	for (size_t i = 0; i < ARRAY_SIZE(gc->own); i++)
		free(gc->own[i]);
	free(gc->breaks);
	cmd_shares_release(&gc->shares);
}

/* ---- the gdb process ---------------------------------------------------- */

/* gdb beside a running QEMU (gdb.h's gdb_proc), and where it keeps its files. */
struct session {
	const struct gdb_cmd *gc;
	struct gdb_kernel k;
	char *gdb;			/* the binary */
	char *data_dir;
	char *dir;			/* where gdb.sock, gdb-init.gdb, gdb.log go */
	char *qmp;			/* the VM's QMP socket */
	struct gdb_proc proc;
	char *err;
};

static void spawn_gdb(struct session *s)
{
	char *sock = xasprintf("%s/gdb.sock", s->dir), *log = xasprintf("%s/gdb.log", s->dir);
	struct gdb_session gs = {
		.socket = sock, .data_dir = s->data_dir, .breaks = s->gc->breaks,
		.n_breaks = s->gc->n_breaks, .log = log, .batch = s->gc->batch != NULL,
		.replay = s->gc->replay, .until = s->gc->until,
	};

	gdb_proc_init(&s->proc, s->qmp, 0);
	if (gdb_proc_start(&s->proc, s->gdb, &s->k, &gs, s->dir, s->gc->batch, &s->err))
		fprintf(stderr, "netlab gdb: %s\n", s->err);
	free(sock);
	free(log);
}

static void tick(void *ctx)
{
	struct session *s = ctx;

	gdb_proc_tick(&s->proc);
}

static void on_spawned(void *ctx)
{
	spawn_gdb(ctx);
}

/* After the guest ended: gdb sees the connection close; a batch gdb gets 30 s. */
static void wait_gdb(struct session *s)
{
	gdb_proc_stop(&s->proc, s->gc->batch ? 30 : UINT_MAX);
}

static int session_init(struct session *s, const struct gdb_cmd *gc, char **err)
{
	int ret;

	memset(s, 0, sizeof(*s));
	s->gc = gc;
	ret = gdb_find_binary(NULL, &s->gdb, err);
	if (!ret)
		ret = gdb_kernel_find(gc->kernel, &s->k, err);
	s->data_dir = gdb_data_dir();
	return ret ? -EINVAL : 0;
}

static void session_release(struct session *s)
{
	gdb_kernel_release(&s->k);
	free(s->gdb);
	free(s->data_dir);
	free(s->dir);
	free(s->qmp);
	free(s->err);
	gdb_proc_release(&s->proc);
}

/* The run directory, absolute, and short enough for a unix socket path. */
static int session_dir(struct session *s, const char *out, char **err)
{
	int ret = mkdir_p(out, 0755);

	if (ret) {
		err_set(err, "cannot create '%s': %s", out, strerror(-ret));
		return -EINVAL;
	}
	s->dir = realpath(out, NULL);
	if (!s->dir || strlen(s->dir) + sizeof("/gdb.sock") > sizeof(((struct sockaddr_un *)0)->sun_path)) {
		err_set(err, "run directory '%s' is unusable or too deep for a unix socket path (108 bytes)\nhint: pass a shorter --out DIR",
			out);
		return -EINVAL;
	}
	s->qmp = xasprintf("%s/qmp.sock", s->dir);
	return 0;
}

/* ---- a scenario under gdb ----------------------------------------------- */

struct scn_session {
	struct scenario *scn;
	struct vm_config cfg;
	char *script[VM_MAX_VMS];
	char **job_lines;
	char *append;
	char *sock;
	struct vm_share *shares;	/* the scenario's and --share's (share_merge()) */
	size_t n_shares;
};

static int load_scenario(const struct gdb_cmd *gc, struct scn_session *ss, struct run_opts *ro,
			 char **err)
{
	struct scenario *s;
	int ret = scn_parse(gc->target, &ss->scn, err);

	if (ret)
		return -EINVAL;
	s = ss->scn;
	ss->append = scn_kernel_append(s);
	ss->job_lines = xzalloc((s->n_sysctl + 1) * sizeof(char *));
	for (size_t i = 0; i < s->n_sysctl; i++)
		ss->job_lines[i] = xasprintf("sysctl.%s=%s", s->sysctl[i].key, s->sysctl[i].value);
	ro->topology = s->topo->name;
	for (int i = 0; i < VM_MAX_NICS; i++)
		ro->nic_model[i] = s->nic_model[i] ? s->nic_model[i]->name : NULL;
	ro->append = ss->append;
	ro->timeout_s = gc->timeout_s ? gc->timeout_s : gc->batch ? s->timeout_s + 120 : 86400;
	if (s->mem_mb)
		ro->mem_mb = s->mem_mb;
	ro->icount_shift = s->deterministic ? 3 : -1;
	ro->job_lines = (const char *const *)ss->job_lines;
	ro->n_job_lines = s->n_sysctl;
	ro->acpi = (const char *const *)s->acpi;
	ro->n_acpi = s->n_acpi;
	ret = share_merge(s->shares, s->n_shares, gc->shares.shares, gc->shares.n_shares,
			  gc->shares.adds, gc->shares.n_adds, &ss->shares, &ss->n_shares, err);
	if (ret)
		return -EINVAL;
	ro->shares = ss->shares;
	ro->n_shares = ss->n_shares;
	ro->adds = gc->shares.adds;
	ro->n_adds = gc->shares.n_adds;
	if (run_config(ro, &ss->cfg, err))
		return -EINVAL;
	for (unsigned int vm = 0; vm < ss->cfg.topo->n_vms; vm++) {
		struct sbuf b;

		sbuf_init(&b);
		ret = scnrun_script(s, &ss->cfg, vm, &b, err);
		ss->script[vm] = sbuf_detach(&b);
		if (ret)
			return -EINVAL;
	}
	ro->exec = ss->script[0];
	ro->peer_exec = ss->script[1];
	return 0;
}

static void scn_session_release(struct scn_session *ss)
{
	for (size_t i = 0; ss->scn && i < ss->scn->n_sysctl; i++)
		free(ss->job_lines[i]);
	free(ss->job_lines);
	for (int i = 0; i < VM_MAX_VMS; i++)
		free(ss->script[i]);
	free(ss->append);
	free(ss->sock);
	free(ss->shares);
	scn_free(ss->scn);
}

/* The VM to debug: --vm, else the one with a NIC gdb has helpers for, else VM a. */
static unsigned int pick_vm(const struct gdb_cmd *gc, const struct vm_config *cfg)
{
	return gc->vm >= 0 ? (unsigned int)gc->vm : vm_gdb_default(cfg);
}

static int run_scenario(const struct gdb_cmd *gc, struct session *s, struct run_result *res,
			char **err)
{
	struct scn_session ss = { 0 };
	struct run_opts ro;
	unsigned int vm;
	int ret;

	run_opts_init(&ro);
	ro.kernel = gc->kernel;
	ro.initrd = gc->initrd;
	ro.modules = gc->modules;	/* NULL: none */
	if (gc->qemu)
		ro.qemu = gc->qemu;
	ret = load_scenario(gc, &ss, &ro, err);
	if (ret)
		goto out;
	vm = pick_vm(gc, &ss.cfg);
	if (vm >= ss.cfg.topo->n_vms) {
		err_set(err, "--vm %c: topology '%s' has one VM", 'a' + vm, ss.cfg.topo->name);
		ret = -EINVAL;
		goto out;
	}
	ret = session_dir(s, gc->out, err);
	if (ret)
		goto out;
	ro.out = s->dir;
	if (ss.cfg.topo->n_vms > 1) {
		free(s->qmp);
		s->qmp = xasprintf("%s/%s/qmp.sock", s->dir, run_vm_name(vm));
	}
	ss.sock = xasprintf("%s/gdb.sock", s->dir);
	ro.debug.gdb_socket = ss.sock;
	ro.debug.gdb_vm = vm;
	ro.debug.paused = true;
	ro.debug.rr = gc->record ? VM_RR_RECORD : VM_RR_OFF;
	ro.debug.rr_vm = (int)vm;	/* the VM under gdb */
	ro.on_spawned = on_spawned;
	ro.on_tick = tick;
	ro.ctx = s;
	ret = run_execute(&ro, NULL, res, err);
out:
	scn_session_release(&ss);
	return ret;
}

/* ---- replay ----------------------------------------------------------------- */

/* RUN_DIR itself (one VM) or RUN_DIR/vm-X: the one with a recording. */
static char *replay_vm_dir(const struct gdb_cmd *gc)
{
	char *d;

	if (gc->vm >= 0)
		return xasprintf("%s/%s", gc->target, run_vm_name((unsigned int)gc->vm));
	d = run_recording_dir(gc->target);
	return d ? d : xstrdup(gc->target);
}

static char *replay_out(const char *vmdir)
{
	for (unsigned int n = 1;; n++) {
		char *p = xasprintf("%s/replay-%u", vmdir, n);

		if (access(p, F_OK))
			return p;
		free(p);
	}
}

/* files.tar (what the guest left in /netlab/out) into files/, as a run does. */
static void unpack(const char *dir)
{
	if (run_unpack_files(dir))
		fprintf(stderr, "netlab gdb: no guest files in '%s/files.tar'\n", dir);
}

static bool same_file(const char *a, const char *b)
{
	char *x = NULL, *y = NULL;
	size_t nx = 0, ny = 0;
	bool same = !file_read(a, &x, &nx) && !file_read(b, &y, &ny) && nx == ny &&
		    !memcmp(x, y, nx);

	free(x);
	free(y);
	return same;
}

/*
 * --until first-drop: the first drop of the recorded run's own trace
 * (VM_DIR/files/trace.dat), for replay.py's nl-until: its return address
 * (the tracepoint's location; recorded VMs boot with nokaslr) and reason.
 * Without a trace, nl-until stops at the first skb freed as a drop.
 */
struct first_drop {
	bool found;
	uint64_t addr;
	long long reason;
	char *text;
};

static int on_first_drop(void *ctx, const struct tracedrops_drop *d)
{
	struct first_drop *f = ctx;

	f->found = true;
	f->addr = d->site->addr;
	f->reason = d->site->reason_value;
	f->text = xasprintf("%s %s", d->site->location, d->site->reason);
	return 1;
}

static void first_drop_env(const char *vmdir)
{
	char *trace = xasprintf("%s/files/trace.dat", vmdir), *err = NULL;
	struct first_drop f = { 0 };
	struct tracedrops_opts o = { .on_drop = on_first_drop, .ctx = &f };
	struct tracedrops *td = NULL;

	unsetenv("NETLAB_FIRST_DROP_LOCATION");
	unsetenv("NETLAB_FIRST_DROP_REASON");
	if (!access(trace, R_OK))
		tracedrops_read(trace, &o, &td, &err);
	if (f.found) {
		char v[32];

		snprintf(v, sizeof(v), "0x%llx", (unsigned long long)f.addr);
		setenv("NETLAB_FIRST_DROP_LOCATION", v, 1);
		if (f.reason >= 0) {
			snprintf(v, sizeof(v), "%lld", f.reason);
			setenv("NETLAB_FIRST_DROP_REASON", v, 1);
		}
		fprintf(stderr, "netlab gdb: the run's first traced drop: %s (%s)\n", f.text, trace);
	} else {
		fprintf(stderr, "netlab gdb: no drop in '%s'%s: stopping at the first skb freed as a drop\n",
			trace, access(trace, R_OK) ? " (no trace)" : "");
	}
	tracedrops_free(td);
	free(f.text);
	free(err);
	free(trace);
}

/*
 * Going back in a replay is replaying again: QEMU 10's own way back (its
 * snapshot at icount 0, used by replay_seek and reverse-continue) stalls a
 * few thousand instructions after the reload here. So replay.py asks for a
 * new QEMU on the same recording, by creating DIR/nl-restart; netlab
 * starts it (paused, the same gdbstub socket) and says so in
 * DIR/nl-restarted ("ok N" or "error"); gdb reconnects and runs forward.
 */
static bool restart_asked(const char *dir)
{
	char *p = xasprintf("%s/nl-restart", dir);
	bool asked = !unlink(p);

	free(p);
	return asked;
}

static void restart_done(const char *dir, int ret, unsigned int n)
{
	char *p = xasprintf("%s/nl-restarted", dir);

	file_writef(p, ret ? "error %u\n" : "ok %u\n", n);
	free(p);
}

/*
 * A replay that stops following its recording does not end: QEMU waits
 * for an event that never comes, its instruction count frozen, while its
 * state says "running". Every REPLAY_LOOK_S netlab asks QEMU (QMP
 * query-status, query-replay); REPLAY_STALL_S of running without one more
 * instruction ends the replay with that count, instead of at --timeout.
 * Time stopped in gdb (status "debug") or before gdb's first continue is
 * not counted. NETLAB_REPLAY_STALL=SECONDS sets another limit (tests).
 */
#define REPLAY_LOOK_S 5
#define REPLAY_STALL_S 120

struct replay_watch {
	const char *qmp;		/* the session's QMP socket */
	unsigned int limit;		/* REPLAY_STALL_S, or NETLAB_REPLAY_STALL */
	double looked, moved;
	unsigned long long icount;
	bool stalled;
};

/* From `t0` on: a new pass of the replay starts from instruction 0. */
static void watch_start(struct replay_watch *w, double t0)
{
	w->looked = w->moved = t0;
	w->icount = 0;
	w->stalled = false;
}

static bool watch_stalled(struct replay_watch *w)
{
	struct gdb_replay_state st;
	double now = now_s();

	if (now - w->looked < (w->limit < 4 * REPLAY_LOOK_S ? 1 : REPLAY_LOOK_S))
		return false;
	w->looked = now;
	/* "debug": stopped by gdb; "prelaunch": waiting for gdb (-S). No answer
	 * counts as no progress (a main loop that hangs is a stall too), and so
	 * does a replay QEMU paused itself ("replay file is over"). */
	if (!gdb_qmp_replay_state(w->qmp, &st, NULL) &&
	    (!strcmp(st.status, "debug") || !strcmp(st.status, "prelaunch") || st.icount != w->icount)) {
		w->moved = now;
		w->icount = st.icount;
	}
	w->stalled = now - w->moved >= w->limit;
	return w->stalled;
}

/* QEMU's last line in its log (an error it gave), or NULL. */
static char *qemu_said(const char *log)
{
	char *line = file_last_line(log, "");

	if (line && strstr(line, "terminating on signal")) {
		free(line);
		return NULL;
	}
	return line;
}

/* QEMU replays the log; gdb rides on it. 0, -ETIMEDOUT when it hung or
 * stalled, -EIO when QEMU ended it early. */
static int run_replay(const struct gdb_cmd *gc, struct session *s, char **err)
{
	char *vmdir = replay_vm_dir(gc), *out = gc->out ? xstrdup(gc->out) : replay_out(vmdir);
	char sockdir[] = "/tmp/netlab-replay-XXXXXX", *sock = NULL, *path, *qlog = NULL;
	unsigned int timeout = gc->timeout_s ? gc->timeout_s : 600;
	struct vm_proc p;
	struct argv a;
	bool cut = false;
	unsigned int qv = 0, restarts = 0;
	const char *stall = getenv("NETLAB_REPLAY_STALL");
	struct replay_watch w = {
		.limit = stall && atoi(stall) > 0 ? (unsigned int)atoi(stall) : REPLAY_STALL_S,
	};
	double t0;
	int ret;

	argv_init(&a);
	ret = gdb_replay_argv(vmdir, "@OUT@", "@SOCK@", NULL, false, &a, err);
	argv_release(&a);
	if (!ret)
		ret = session_dir(s, out, err);
	/* One writer per --out (a scenario's session locks in run_execute()). */
	if (!ret && (ret = outlock_take(s->dir, err)) >= 0)
		ret = 0;	/* held until the process ends */
	if (ret)
		goto out;
	if (!mkdtemp(sockdir)) {
		ret = -errno;
		err_set(err, "cannot create '%s': %s", sockdir, strerror(errno));
		goto out;
	}
	sock = xasprintf("%s/gdb.sock", s->dir);
	argv_init(&a);
	gdb_replay_argv(vmdir, s->dir, sockdir, sock, true, &a, err);
	/* QEMU snapshots the replay there when gdb attaches: reverse-stepi. */
	path = xasprintf("%s/snapshots.qcow2", s->dir);
	if (!vm_qcow2_create(path, NULL)) {
		argv_add(&a, "-drive");
		argv_addf(&a, "file=%s,if=none,id=rr", path);
	}
	free(path);
	path = xasprintf("%s/cmdline", s->dir);
	{
		char *line = esc_shell_argv(&a);

		file_writef(path, "%s\n", line);
		free(line);
	}
	free(path);
	qlog = xasprintf("%s/qemu.log", s->dir);
	if (gc->until)
		first_drop_env(vmdir);
	/* replay.py's nl-goto/nl-back restart the replay through these. */
	setenv("NETLAB_REPLAY_DIR", s->dir, 1);
	setenv("NETLAB_REPLAY_SOCKET", sock, 1);
	qv = vm_qemu_version(a.v[0], NULL);
	t0 = now_s();
	ret = vm_spawn(&p, &a, qlog, err);
	if (ret)
		goto rm;
	spawn_gdb(s);
	w.qmp = s->qmp;		/* set by session_dir() */
	watch_start(&w, t0);
	while (!vm_wait(&p, 100) && now_s() - t0 < timeout) {
		tick(s);
		if (watch_stalled(&w))
			break;
		/* --until with --batch: done once the batch file is. */
		if (gc->until && gc->batch && gdb_proc_exited(&s->proc)) {
			cut = true;
			break;
		}
		if (restart_asked(s->dir)) {
			vm_kill(&p, 2000);
			vm_release(&p);
			ret = vm_spawn(&p, &a, qlog, err);
			restart_done(s->dir, ret, ++restarts);
			if (ret)
				break;
			t0 = now_s();	/* --timeout is per pass of the replay */
			watch_start(&w, t0);
		}
	}
	argv_release(&a);
	if (ret)
		goto rm;
	if (cut) {
		vm_kill(&p, 2000);
		fprintf(stderr, "netlab gdb: the batch file ended: replay stopped there (--until)\n");
		cut = true;
	} else if (w.stalled) {
		char *said;

		vm_kill(&p, 2000);
		said = qemu_said(qlog);
		err_set(err, "the replay of '%s' stalled at instruction %llu: QEMU ran it %u s without one more "
			"instruction%s%s (console: %s/console.log)\nhint: QEMU's replay no longer follows the recording "
			"(a limit of QEMU's record/replay, not of the guest); record the run again and replay the new recording",
			vmdir, w.icount, w.limit, said ? "; QEMU said: " : "", said ? said : "", s->dir);
		free(said);
		ret = -ETIMEDOUT;
	} else if (!p.proc.exited) {
		vm_kill(&p, 2000);
		err_set(err, "the replay of '%s' did not finish in %u s (console: %s/console.log)\nhint: %s",
			vmdir, timeout, s->dir,
			qv < VM_QEMU_RR_PORTS
				? "QEMU before 10 stops for good in the replay of some recordings (README 'Record/replay'): install QEMU 10 ('make deps')"
				: "a replay runs 2-4 times slower than the recording: raise --timeout");
		ret = -ETIMEDOUT;
	} else if (!WIFEXITED(p.proc.status) || WEXITSTATUS(p.proc.status)) {
		char *said = qemu_said(qlog);

		err_set(err, "QEMU ended the replay of '%s' early (%s %d)%s%s (log: %s)\nhint: the recording is "
			"cut or damaged, or was made by another QEMU: record the run again",
			vmdir, WIFEXITED(p.proc.status) ? "exit status" : "signal",
			WIFEXITED(p.proc.status) ? WEXITSTATUS(p.proc.status) : WTERMSIG(p.proc.status),
			said ? ": " : "", said ? said : "", qlog);
		free(said);
		ret = -EIO;
	}
	vm_release(&p);
	wait_gdb(s);
	if (!cut)	/* the guest never got to write them */
		unpack(s->dir);
	path = xasprintf("%s/console.log", vmdir);
	{
		char *rc = xasprintf("%s/console.log", s->dir);

		if (cut)
			fprintf(stderr, "netlab gdb: replay ran %.1f s\n", now_s() - t0);
		else
			fprintf(stderr, "netlab gdb: replay %s in %.1f s; console %s the recording's\n",
				ret ? "stopped" : "finished", now_s() - t0,
				same_file(path, rc) ? "identical to" : "differs from");
		free(rc);
	}
	free(path);
rm:
	rmdir(sockdir);
out:
	free(qlog);
	free(sock);
	free(vmdir);
	free(out);
	return ret;
}

/* ---- the command -------------------------------------------------------------- */

static int finish(const struct session *s, int run_code)
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
	return g && s->gc->batch ? NL_EXIT_FAIL : NL_EXIT_OK;
}

static int __cmd_gdb(struct gdb_cmd *gc)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	struct run_result res = { 0 };
	struct session s;
	char *err = NULL;
	int ret, code;
	bool scn = !gc->replay && strlen(gc->target) > 4 &&
		   !strcmp(gc->target + strlen(gc->target) - 4, ".scn");

	if (!scn && !gc->replay) {
		/* A run directory: replay it if it holds a recording. */
		struct stat st;

		if (stat(gc->target, &st) || !S_ISDIR(st.st_mode)) {
			err_set(&err, "'%s' is neither a scenario (.scn) nor a run directory", gc->target);
			cmd_error("gdb", err);
			free(err);
			return NL_EXIT_USAGE;
		}
		gc->replay = true;
	}
	if (gc->modules && gc->replay) {
		cmd_error("gdb", "--modules with a replay: it boots the recorded initramfs, with the "
				 "modules it had\nhint: pass --modules when recording");
		return NL_EXIT_USAGE;
	}
	if (gc->until && !gc->replay) {
		cmd_error("gdb", "--until needs a recorded run (netlab gdb RUN_DIR)\nhint: record one with 'netlab regress --record' or 'netlab run --record'");
		return NL_EXIT_USAGE;
	}
	if (scn && cmd_check_initrd(gc->own[1] ? "initramfs" : "--initrd", gc->initrd, &err)) {
		cmd_error("gdb", err);
		free(err);
		return NL_EXIT_USAGE;
	}
	if (scn && !gc->out)
		gc->out = gc->own[2] = cmd_default_out("gdb");
	ret = session_init(&s, gc, &err);
	/* ^C belongs to gdb (it stops the guest), not to us. */
	if (!gc->batch)
		sigaction(SIGINT, &ign, &old);
	if (!ret)
		ret = gc->replay ? run_replay(gc, &s, &err) : run_scenario(gc, &s, &res, &err);
	if (!ret && !gc->replay)
		wait_gdb(&s);
	if (!gc->batch)
		sigaction(SIGINT, &old, NULL);
	if (ret) {
		cmd_error("gdb", err);
		code = ret == -EINVAL ? NL_EXIT_USAGE : NL_EXIT_CANNOT_TEST;
		if (ret == -ETIMEDOUT)
			finish(&s, 0);
	} else if (gc->replay) {
		code = finish(&s, 0);
	} else {
		fprintf(stderr, "netlab gdb: %s: %s\nnetlab gdb: run directory: %s\n",
			run_verdict_name(res.verdict), res.reason ? res.reason : "", s.dir);
		code = finish(&s, run_result_exit_code(&res));
	}
	run_result_release(&res);
	session_release(&s);
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
