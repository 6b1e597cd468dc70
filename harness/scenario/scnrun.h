/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One run of a scenario: the guest script that sets the scenario up,
 * snapshots counters, runs the traffic generator's two ends and snapshots
 * again; and the metrics read back from the run directory it leaves.
 *
 * The sender runs on NIC A's side, the receiver on NIC B's (in its netns).
 */
#ifndef NETLAB_SCNRUN_H
#define NETLAB_SCNRUN_H

#include "trace/analysis.h"

#include "gdb/gdb.h"
#include "lib/metrics.h"
#include "run/run.h"
#include "scenario/scenario.h"
#include "vm/vmcfg.h"

/* Exit status of the guest script besides the generators' own. */
#define SCNRUN_EXIT_SETUP 3	/* the scenario could not be applied: see setup-error */
#define SCNRUN_EXIT_TRAFFIC 4	/* a generator failed: see *.err */

/*
 * The guest script of VM `vm` for `s` on the NICs of `cfg` (topology set
 * up). With both NICs in one VM it runs both ends; in a two-VM topology,
 * VM 1 (NIC B) runs the receiver and says when it listens (TCP port 7999),
 * and VM 0 (NIC A) waits for that, then sends.
 */
int scnrun_script(const struct scenario *s, const struct vm_config *cfg, unsigned int vm,
		  struct sbuf *out, char **err);

/*
 * Metrics of a finished run in `rundir` (whose guest files are in
 * rundir/files): generator results (udp.*, tcp.*, rr.*), counter deltas
 * (snmp.*, netstat.*, softnet.*, nic.*, qdisc.*), ring sizes, pcap counts
 * and, for UDP, the per-layer loss accounting (loss.*); with [gdb],
 * gdb.exit and gdb.lines_matching.NAME from RUN_DIR/gdb.exit and gdb.log.
 */
int scnrun_collect(const struct scenario *s, const struct vm_config *cfg, const char *rundir,
		   struct metrics *m, char **err);

/*
 * The trace analyses of a one-VM run's RUN/files/trace.dat, as the metrics
 * pass decoded them (trace/analysis.h): the run page takes them instead of
 * decoding the file again. Empty (ta.path NULL) when none was decoded.
 */
struct scnrun_trace {
	char *path;
	struct trace_analyses ta;
};

/*
 * scnrun_collect(), keeping in @keep (when not NULL, and only when it
 * returns 0) what the one pass over a one-VM run's trace gave; release it
 * with scnrun_trace_release().
 */
int scnrun_collect_keep(const struct scenario *s, const struct vm_config *cfg, const char *rundir,
			struct metrics *m, struct scnrun_trace *keep, char **err);
void scnrun_trace_release(struct scnrun_trace *t);

/**
 * scnrun_stall_reason() - how the path stopped a run's flow, in one line
 * @s: the scenario
 * @cfg: its VMs and NICs
 * @rundir: the run directory
 *
 * From the generators' results (their "failure", when the path failed the
 * flow: traffic/ttool.h), the sender's first:
 * "stalled: 110049 bytes unacknowledged for 10.0 s (tcp-stream sender,
 * waiting for acknowledgements)", "stalled: no connection for 10.0 s (rr
 * client, connect)", "reset: ... (rr client, transaction)".
 *
 * Return: a new string, or NULL when neither end says its flow failed.
 */
char *scnrun_stall_reason(const struct scenario *s, const struct vm_config *cfg,
			  const char *rundir);

/*
 * scnrun_gdb_attach() - a scenario's [gdb] on a run about to start
 *
 * For a scenario with [gdb]: the debugged VM ([gdb] vm, else the one with
 * an e1000e NIC, else a) boots paused with its gdbstub on RUN_DIR/gdb.sock,
 * and `o`'s on_spawned/on_tick/ctx start and drive a batch gdb running the
 * script (gdb.h, gdb_batch). `o->out` must be set. After run_execute(),
 * scnrun_gdb_finish() ends gdb (RUN_DIR/gdb.log, gdb.exit) and frees *g.
 * Return: 0 (*g NULL without [gdb]), -EINVAL with *err when gdb or the
 * kernel's debug files are missing.
 */
int scnrun_gdb_attach(const struct scenario *s, const struct vm_config *cfg, struct run_opts *o,
		      struct gdb_batch **g, char **err);
void scnrun_gdb_finish(struct gdb_batch *g);

/*
 * scnrun_gdb_metrics() - gdb.exit (RUN_DIR/gdb.exit) and, for each [gdb]
 * match.NAME, gdb.lines_matching.NAME: the lines of RUN_DIR/gdb.log that
 * its regex matches. Return: 0, or -EIO with *err when a file is missing.
 */
int scnrun_gdb_metrics(const struct scenario *s, const char *rundir, struct metrics *m,
		       char **err);

/* scnrun-exec.c: [exec] in the guest script, and its metrics. */
/* The VM whose namespace [exec] netns names (0 for root). */
unsigned int scnrun_exec_vm(const struct scenario *s, const struct vm_config *cfg);
/* VM vm's part of [exec]: nothing without [exec] or when it runs in another VM. */
void scnrun_exec_script(const struct scenario *s, const struct vm_config *cfg, unsigned int vm,
			struct sbuf *o);
/*
 * scnrun_exec_story() - "exec: 'RUN' exited with status N; its output:
 * RUNDIR/exec.out" (or that it was killed at its timeout) when the median
 * `m` has a nonzero exec.exit; else NULL. Caller frees.
 */
char *scnrun_exec_story(const struct scenario *s, const struct metrics *m, const char *rundir);
/*
 * scnrun_exec_metrics() - exec.exit and exec.timed_out from the notes on the
 * status port of the VM that ran it (`files`' sibling "status"), exec.out_bytes,
 * exec.out_full and, with ktap = yes, exec.ktap.pass/fail/skip and
 * exec.ktap.NAME from `files` (the guest's /netlab/out of that VM); copies
 * its output to `rundir`/exec.out.
 * Return: 0, or -EIO with *err when no valid exit status came.
 */
/* The guest's tmpfs for an [exec] command's output (a flood fills it, nothing else). */
#define SCNRUN_EXEC_OUT_MB 32u
int scnrun_exec_metrics(const struct scenario *s, const char *files, const char *rundir,
			struct metrics *m, char **err);

#endif /* NETLAB_SCNRUN_H */
