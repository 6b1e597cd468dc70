// SPDX-License-Identifier: GPL-2.0
/*
 * netlab gdb's sessions and the replay supervisor (gdb/replay.h): moved
 * out of cmd/cmd-gdb.c, which parses the options.
 */
#include "gdb/replay.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/esc.h"
#include "lib/outlock.h"
#include "run/run.h"
#include "trace/tracedrops.h"
#include "vm/vm.h"

/* ---- the gdb process ---------------------------------------------------- */

void gdb_sess_spawn(void *sess)
{
	struct gdb_sess *s = sess;
	char *sock = xasprintf("%s/gdb.sock", s->dir), *log = xasprintf("%s/gdb.log", s->dir);
	struct gdb_session gs = {
		.socket = sock, .data_dir = s->data_dir, .breaks = s->o->breaks,
		.n_breaks = s->o->n_breaks, .log = log, .batch = s->o->batch != NULL,
		.replay = s->o->replay, .until = s->o->until,
	};

	gdb_proc_init(&s->proc, s->qmp, 0);
	if (gdb_proc_start(&s->proc, s->gdb, &s->k, &gs, s->dir, s->o->batch, &s->err))
		fprintf(stderr, "netlab gdb: %s\n", s->err);
	free(sock);
	free(log);
}

void gdb_sess_tick(void *sess)
{
	struct gdb_sess *s = sess;

	gdb_proc_tick(&s->proc);
}

void gdb_sess_wait(struct gdb_sess *s)
{
	gdb_proc_stop(&s->proc, s->o->batch ? 30 : UINT_MAX);
}

int gdb_sess_init(struct gdb_sess *s, const struct gdb_opts *o, char **err)
{
	int ret;

	memset(s, 0, sizeof(*s));
	s->o = o;
	ret = gdb_find_binary(NULL, &s->gdb, err);
	if (!ret)
		ret = gdb_kernel_find(o->kernel, &s->k, err);
	s->data_dir = gdb_data_dir();
	return ret ? -EINVAL : 0;
}

void gdb_sess_release(struct gdb_sess *s)
{
	gdb_kernel_release(&s->k);
	free(s->gdb);
	free(s->data_dir);
	free(s->dir);
	free(s->qmp);
	free(s->err);
	gdb_proc_release(&s->proc);
}

int gdb_sess_dir(struct gdb_sess *s, const char *out, char **err)
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

/* ---- replay ----------------------------------------------------------------- */

/* RUN_DIR itself (one VM) or RUN_DIR/vm-X: the one with a recording. */
static char *replay_vm_dir(const struct gdb_opts *o)
{
	char *d;

	if (o->vm >= 0)
		return xasprintf("%s/%s", o->target, run_vm_name((unsigned int)o->vm));
	d = run_recording_dir(o->target);
	return d ? d : xstrdup(o->target);
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

/* QEMU replays the log; gdb rides on it. */
int gdb_replay_run(struct gdb_sess *s, char **err)
{
	const struct gdb_opts *o = s->o;
	char *vmdir = replay_vm_dir(o), *out = o->out ? xstrdup(o->out) : replay_out(vmdir);
	char sockdir[] = "/tmp/netlab-replay-XXXXXX", *sock = NULL, *path, *qlog = NULL;
	unsigned int timeout = o->timeout_s ? o->timeout_s : 600;
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
		ret = gdb_sess_dir(s, out, err);
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
	if (o->until)
		first_drop_env(vmdir);
	/* replay.py's nl-goto/nl-back restart the replay through these. */
	setenv("NETLAB_REPLAY_DIR", s->dir, 1);
	setenv("NETLAB_REPLAY_SOCKET", sock, 1);
	qv = vm_qemu_version(a.v[0], NULL);
	t0 = now_s();
	ret = vm_spawn(&p, &a, qlog, err);
	if (ret)
		goto rm;
	gdb_sess_spawn(s);
	w.qmp = s->qmp;		/* set by gdb_sess_dir() */
	watch_start(&w, t0);
	while (!vm_wait(&p, 100) && now_s() - t0 < timeout) {
		gdb_sess_tick(s);
		if (watch_stalled(&w))
			break;
		/* --until with --batch: done once the batch file is. */
		if (o->until && o->batch && gdb_proc_exited(&s->proc)) {
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
	gdb_sess_wait(s);
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
