/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A QEMU process: spawned in its own process group, bound to the harness by
 * PR_SET_PDEATHSIG so that it never outlives it, even after SIGKILL.
 */
#ifndef NETLAB_VM_H
#define NETLAB_VM_H

#include <stdbool.h>
#include <sys/types.h>

#include "lib/proc.h"
#include "lib/util.h"

/* A QEMU process (lib/proc underneath); `exited` and `status` are proc's,
 * copied for the callers that read them. */
struct vm_proc {
	struct proc proc;	/* proc.exited, proc.status: waitpid()'s, once exited */
};

/* Start argv with stdin from /dev/null and stdout+stderr to `log`. */
int vm_spawn(struct vm_proc *p, const struct argv *argv, const char *log, char **err);
/* Wait up to `ms` for the process to exit; true once it has. */
bool vm_wait(struct vm_proc *p, int ms);
/* SIGTERM the process group, SIGKILL after `grace_ms`, and reap. */
void vm_kill(struct vm_proc *p, int grace_ms);
void vm_release(struct vm_proc *p);

/*
 * vm_qemu_version() - the version of the QEMU binary `qemu` (searched in
 * $PATH), from `qemu --version`: MAJOR * 10000 + MINOR * 100 + MICRO
 * (10.0.2 = 100002), and its text ("10.0.2") in *text if not NULL (caller
 * frees). Cached per binary for the life of the process.
 * Return: the version, or 0 when it cannot be run or said no version.
 */
unsigned int vm_qemu_version(const char *qemu, char **text);

/*
 * vm_qcow2_create() - an empty 1 GiB qcow2 at `path` (qemu-img create):
 * the `-drive file=PATH,if=none,id=rr` where QEMU keeps a recording's
 * initial snapshot (rrsnapshot) and the "start_debugging" snapshot it takes
 * when gdb attaches to a replay, from which reverse-stepi replays. 0, or
 * -EIO with *err.
 */
int vm_qcow2_create(const char *path, char **err);

/* The first QEMU whose record/replay was seen to replay netlab's runs
 * (virtio-serial ports included) to their end: README "Record/replay". */
#define VM_QEMU_RR_PORTS 100000

#endif /* NETLAB_VM_H */
