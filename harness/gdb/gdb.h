/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gdb on a guest kernel (netlab gdb), record/replay, and oops decoding.
 *
 * The kernel's debug files come from its cache directory (the bzImage's
 * directory, see README "Kernel"): vmlinux with DWARF, the kernel's gdb
 * scripts (the gdb/linux package) and vmlinux-gdb.py. netlab's own gdb commands
 * (nl-e1000e-rx, nl-ring, nl-skb) are in harness/gdb/e1000e.gdb.
 *
 * Ownership: every char * in these structs is owned by the struct and
 * freed by its _release(); strings passed in are borrowed.
 */
#ifndef NETLAB_GDB_H
#define NETLAB_GDB_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "lib/proc.h"
#include "lib/util.h"

struct gdb_kernel {
	char *dir;		/* the kernel's directory (bzImage's, symlinks resolved) */
	char *vmlinux;		/* dir/vmlinux, with .debug_info */
	char *scripts;		/* dir/gdb (the linux package), or NULL when absent */
	char *loader;		/* dir/vmlinux-gdb.py, or NULL when absent */
};

/*
 * gdb_kernel_find() - the debug files of the kernel `bzimage`
 *
 * Return: 0; -EINVAL when vmlinux is missing, not ELF or has no DWARF
 * (.debug_info), with *err naming the file and a hint.
 */
int gdb_kernel_find(const char *bzimage, struct gdb_kernel *k, char **err);
void gdb_kernel_release(struct gdb_kernel *k);

/*
 * gdb_find_binary() - `name` (or $NETLAB_GDB, or "gdb") searched in $PATH
 * Return: 0 with *path (caller frees), -ENOENT with *err and a hint.
 */
int gdb_find_binary(const char *name, char **path, char **err);

/* harness/gdb (netlab's gdb scripts) beside the source tree of the binary,
 * or $NETLAB_GDB_DIR; NULL when not found. Caller frees. */
char *gdb_data_dir(void);

struct gdb_session {
	const char *socket;		/* QEMU's gdbstub (unix socket) */
	const char *data_dir;		/* gdb_data_dir(), NULL = none */
	const char *const *breaks;	/* --break FUNC: hbreak before the kernel runs */
	size_t n_breaks;
	const char *log;		/* gdb.log: interactive sessions log into it */
	bool batch;
	bool replay;			/* source replay.py; say so in the banner */
	const char *until;		/* replay: nl-until this first (first-drop, FUNC), or NULL */
};

/*
 * gdb_init_script() - the commands gdb runs first (RUN_DIR/gdb-init.gdb)
 *
 * Loads the kernel's scripts (add-auto-load-safe-path, sys.path for the
 * linux package, vmlinux-gdb.py), connects to the gdbstub, sources
 * netlab's scripts and sets the --break hardware breakpoints.
 */
void gdb_init_script(const struct gdb_kernel *k, const struct gdb_session *s, struct sbuf *out);

/*
 * gdb_build_argv() - gdb's command line: `gdb -q [-batch -nx] -x INIT
 * [-x USER] VMLINUX`. `user` (the --batch file) may be NULL.
 */
void gdb_build_argv(const char *gdb, const struct gdb_kernel *k, const char *init,
		    const char *user, bool batch, struct argv *a);

/*
 * gdb_qmp_cont() - resume a VM stopped by -S or left stopped by gdb, via
 * QEMU's QMP socket ("cont"). 0 or -errno.
 */
int gdb_qmp_cont(const char *qmp_socket, char **err);

/* What a replaying QEMU says of itself over QMP. */
struct gdb_replay_state {
	char status[32];		/* query-status: running, debug, paused ... */
	unsigned long long icount;	/* query-replay: instructions replayed */
};

/**
 * gdb_qmp_replay_state() - ask a QEMU (over QMP) whether it runs and how
 * far its replay has come. 0, or -EIO with *err set.
 */
int gdb_qmp_replay_state(const char *qmp_socket, struct gdb_replay_state *st, char **err);

/* ---- gdb beside a running QEMU -------------------------------------------- */

/* Exit status recorded for a batch gdb that netlab ended at its timeout. */
#define GDB_EXIT_TIMEOUT 124

/*
 * struct gdb_proc - one gdb process attached to a VM's gdbstub
 *
 * gdb_proc_start() writes `dir`/gdb-init.gdb (gdb_init_script()), waits
 * for QEMU's socket and starts gdb. A batch gdb (`script` given) reads
 * /dev/null and writes everything to s->log. Drive it from the run loop
 * with gdb_proc_tick(): once gdb has gone, the VM is resumed over QMP (gdb
 * may quit with the guest stopped by -S or a breakpoint), and a batch gdb
 * older than `timeout_s` is ended (SIGINT, then SIGTERM, SIGKILL). When the
 * VM has ended, gdb_proc_stop() gives gdb `grace_s` to see the connection
 * close, then ends it. gdb dies with its parent (PR_SET_PDEATHSIG).
 *
 * Strings are owned by the struct; gdb_proc_release() frees them.
 */
struct gdb_proc {
	struct proc proc;		/* pid 0: not started */
	bool timed_out, batch;
	double started, term_at, cont_at;
	unsigned int timeout_s;		/* batch gdb: 0 = no limit */
	char *qmp;			/* the VM's QMP socket, NULL = never resume */
};

void gdb_proc_init(struct gdb_proc *p, const char *qmp_socket, unsigned int timeout_s);
int gdb_proc_start(struct gdb_proc *p, const char *gdb, const struct gdb_kernel *k,
		   const struct gdb_session *s, const char *dir, const char *script, char **err);
void gdb_proc_tick(struct gdb_proc *p);
void gdb_proc_stop(struct gdb_proc *p, unsigned int grace_s);
/* Whether gdb has exited (as of the last tick or stop). */
bool gdb_proc_exited(const struct gdb_proc *p);
/* 0..255 as gdb exited; 128 + signal; GDB_EXIT_TIMEOUT when netlab ended it;
 * -1 while it runs or when it never started. */
int gdb_proc_exit_code(const struct gdb_proc *p);
void gdb_proc_release(struct gdb_proc *p);

/*
 * gdb_log_ended_guest() - whether gdb's log says the guest went away under
 * it ("Remote connection closed", ...): a batch script whose last command
 * ran the guest to its end fails for that reason only.
 */
bool gdb_log_ended_guest(const char *log_path);

/*
 * A batch gdb for a run that nobody watches (a scenario's [gdb] section).
 *
 * gdb_batch_new() checks gdb and the kernel's debug files; the caller then
 * boots the VM paused with the gdbstub on gdb_batch_socket(), and calls
 * gdb_batch_spawned() once QEMU runs and gdb_batch_tick() from the run loop
 * (both fit run_opts' on_spawned/on_tick). gdb_batch_finish(), after the
 * run, ends gdb if need be and writes RUN_DIR/gdb.exit; gdb's output is
 * RUN_DIR/gdb.log. Return of gdb_batch_new(): 0, or -EINVAL with *err (no
 * gdb, no vmlinux with debug info).
 */
struct gdb_batch_opts {
	const char *rundir;		/* the run's directory (created by the run) */
	const char *qmp;		/* the debugged VM's QMP socket */
	const char *kernel;		/* its bzImage; vmlinux beside it */
	const char *script;		/* .gdb or .py */
	const char *const *breaks;	/* hbreak before the kernel runs */
	size_t n_breaks;
	unsigned int timeout_s;		/* gdb is ended after this */
};

struct gdb_batch;

int gdb_batch_new(const struct gdb_batch_opts *o, struct gdb_batch **out, char **err);
/* RUN_DIR/gdb.sock: where QEMU's gdbstub listens. Owned by `b`. */
const char *gdb_batch_socket(const struct gdb_batch *b);
void gdb_batch_spawned(void *b);
void gdb_batch_tick(void *b);
/* gdb's exit status as gdb_proc_exit_code() gives it (-1: never ran). */
int gdb_batch_finish(struct gdb_batch *b);
void gdb_batch_free(struct gdb_batch *b);

/* ---- record/replay ----------------------------------------------------- */

/*
 * gdb_replay_argv() - the QEMU command line that replays a recording
 *
 * Reads VM_DIR/replay.argv (written by `netlab run --record`), puts `out`
 * for @OUT@ and `sock_dir` for @SOCK@, and appends the gdbstub on `socket`
 * (and -S when `paused`). Return: 0, or -EINVAL when the directory holds
 * no recording (replay.argv or replay.bin missing).
 */
int gdb_replay_argv(const char *vm_dir, const char *out, const char *sock_dir, const char *socket,
		    bool paused, struct argv *a, char **err);


/* ---- oops decoding ------------------------------------------------------ */

/* One frame of an oops trace: "func+0xoff/0xlen [module]". */
struct oops_frame {
	char func[128];
	unsigned long off, len;
	char module[64];		/* "" for vmlinux */
};

/*
 * oops_parse_frame() - find "func+0xoff/0xlen" in a console line
 *
 * Accepts the call-trace forms (" func+0x1/0x2", " ? func+0x1/0x2",
 * "RIP: 0010:func+0x1/0x2", with a timestamp and a " [module]" suffix).
 * Return: true with *f filled when the line holds one.
 */
bool oops_parse_frame(const char *line, struct oops_frame *f);

/*
 * oops_decode() - every frame of `oops` resolved to file:line, as the
 * kernel's scripts/faddr2line prints it: "func+0xoff/0xlen:" then
 * "func at file:line" and " (inlined by) func at file:line" lines. The
 * symbol is the one of that name *and size* in vmlinux's symbol table
 * (static functions share names); file names are relative to the source
 * tree. Frames of modules or unknown symbols say so. Appends to `out`.
 * Return: the number of frames resolved, or -errno (vmlinux unreadable,
 * addr2line missing) with *err.
 */
int oops_decode(const char *vmlinux, const char *oops, struct sbuf *out, char **err);

/*
 * oops_report() - the decoded oops of a run directory
 *
 * When RUN_DIR/result.json holds an "oops", decodes it with the vmlinux
 * beside the run's kernel ("kernel.path"), under a heading; a kernel that
 * changed since the run (sha256) is said so. Return: 1 when decoded, 0 when
 * the run has no oops, -errno with *err when it cannot be decoded.
 */
int oops_report(const char *rundir, struct sbuf *out, char **err);

#endif /* NETLAB_GDB_H */
