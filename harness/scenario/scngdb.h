/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netlab gdb SCENARIO.scn: the scenario's run with QEMU's gdbstub on
 * DIR/gdb.sock, the VM paused (-S) until the session's gdb (gdb/replay.h)
 * continues it.
 */
#ifndef NETLAB_SCNGDB_H
#define NETLAB_SCNGDB_H

#include "gdb/replay.h"
#include "run/run.h"

/*
 * scngdb_run() - run s->o->target (a scenario) into s->o->out with gdb on
 * the VM --vm names (default: the one with an e1000e NIC, else VM a).
 * Return: run_execute()'s; -EINVAL on bad input, with *err.
 */
int scngdb_run(struct gdb_sess *s, struct run_result *res, char **err);

#endif /* NETLAB_SCNGDB_H */
