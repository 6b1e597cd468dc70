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

#include "util.h"

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
	bool replay;			/* say so in the banner */
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
