/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The run directory's life (run.c): created and locked, room kept for the
 * run's result.json whatever fills the disk, a provisional result.json
 * while the guests run, and the guest's files unpacked at the end.
 */
#ifndef NETLAB_RUNDIR_H
#define NETLAB_RUNDIR_H

#include <stdbool.h>

#include "run/run.h"

/* Room kept in the run directory for result.json (RUN_RESERVE_NAME). */
#define RUN_RESERVE (256u << 10)
#define RUN_RESERVE_NAME ".result-reserve"

/*
 * run_dir_prepare() - create @dir (and parents) and, with @lock_fd, lock it
 * (outlock.h): it must be new or empty but for the lock file. 0, -EINVAL
 * (not empty, or another command's) or -errno, with *err.
 */
int run_dir_prepare(const char *dir, int *lock_fd, char **err);
/* Keep RUN_RESERVE bytes in @dir (disk_reserve()); give them back. */
void run_reserve(const char *dir);
void run_reserve_release(const char *dir);
/*
 * run_write_provisional() - DIR/result.json saying the run did not end
 * ("provisional": true), and the room for the final one (run_reserve()).
 */
void run_write_provisional(const char *dir);
/*
 * run_unpack_outcome() - run_unpack_files(@dir); when that fails for a
 * full disk (and the run did not already end for one: @no_space), @res
 * becomes infra-error "disk full: cannot unpack ... into 'DIR/files': ..."
 * unless it is a panic. files.tar and what was unpacked stay.
 */
void run_unpack_outcome(const char *dir, bool no_space, struct run_result *res);

#endif /* NETLAB_RUNDIR_H */
