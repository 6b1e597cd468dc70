/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netlab gdb's sessions: gdb beside a QEMU (a scenario's, started by
 * scenario/scngdb.h, or a replay's), and the replay supervisor.
 *
 * The replay supervisor starts QEMU on a recording (gdb_replay_argv()),
 * gdb on its gdbstub, and watches it: a replay that stops following its
 * recording (no instruction more while running) ends, replay.py's
 * nl-goto/nl-back restart it (DIR/nl-restart), --until first-drop finds the
 * recorded run's first drop in its trace.
 *
 * Progress notes ("netlab gdb: ...") go to stderr, as a run's do; errors
 * come back in *err. Strings in gdb_opts are borrowed.
 */
#ifndef NETLAB_GDB_REPLAY_H
#define NETLAB_GDB_REPLAY_H

#include <stdbool.h>
#include <stddef.h>

#include "gdb/gdb.h"

struct vm_share;

/* What `netlab gdb` was asked (cmd/cmd-gdb.c parses it). */
struct gdb_opts {
	const char *target;		/* SCENARIO.scn or RUN_DIR */
	const char **breaks;		/* --break FUNC */
	size_t n_breaks;
	const char *batch, *out, *kernel, *initrd, *qemu, *until, *modules;
	int vm;				/* -1: default */
	unsigned int timeout_s;		/* 0: default */
	bool replay, record;
	/* --share, --add: after the scenario's shares */
	const struct vm_share *shares, *adds;
	size_t n_shares, n_adds;
};

/* gdb beside a running QEMU (gdb.h's gdb_proc), and where it keeps its files. */
struct gdb_sess {
	const struct gdb_opts *o;
	struct gdb_kernel k;
	char *gdb;			/* the binary */
	char *data_dir;
	char *dir;			/* where gdb.sock, gdb-init.gdb, gdb.log go */
	char *qmp;			/* the VM's QMP socket */
	struct gdb_proc proc;
	char *err;
};

/*
 * gdb_sess_init() - find gdb and the kernel's debug files (o->kernel).
 * 0, or -EINVAL with *err. gdb_sess_release() in both cases.
 */
int gdb_sess_init(struct gdb_sess *s, const struct gdb_opts *o, char **err);
void gdb_sess_release(struct gdb_sess *s);

/*
 * gdb_sess_dir() - make @out the session's directory: absolute, and short
 * enough for a unix socket path; s->qmp is DIR/qmp.sock. 0 or -EINVAL.
 */
int gdb_sess_dir(struct gdb_sess *s, const char *out, char **err);

/* Start gdb on DIR/gdb.sock (run_opts.on_spawned), drive it (on_tick). */
void gdb_sess_spawn(void *sess);
void gdb_sess_tick(void *sess);
/* After the guest ended: gdb sees the connection close; a batch gdb gets 30 s. */
void gdb_sess_wait(struct gdb_sess *s);

/*
 * gdb_replay_run() - replay the recording o->target (or its VM o->vm)
 * under gdb into o->out (default VM_DIR/replay-N).
 * Return: 0; -EINVAL on bad input; -ETIMEDOUT when the replay hung or
 * stalled; -EIO when QEMU ended it early; -errno. *err says which.
 */
int gdb_replay_run(struct gdb_sess *s, char **err);

#endif /* NETLAB_GDB_REPLAY_H */
