/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The regression suite: every scenario run `repeat` times, each run in a
 * fresh guest, `jobs` guests at a time; checks evaluated on the median.
 */
#ifndef NETLAB_REGRESS_H
#define NETLAB_REGRESS_H

#include <signal.h>
#include <stdio.h>

#include "boot/kernel.h"
#include "scenario/check.h"
#include "lib/metrics.h"
#include "run/run.h"
#include "scenario/scenario.h"

enum regress_outcome {
	RO_PASS,
	RO_FAIL,	/* a check failed, or the kernel panicked: a regression */
	RO_INFRA,	/* boot failure, timeout, QEMU or generator failure: cannot test */
	RO_BAD,		/* the scenario cannot be applied (ring size refused, no baseline) */
	RO_INTERRUPTED,
	RO_SKIP,	/* the test said it cannot run here (netlab selftests: kselftest's
			 * exit 4); set by the caller after regress_execute(), with a reason */
	RO_NOT_RUN,	/* interrupted before any of its runs started */
};

struct regress_check {
	const struct scn_check *check;
	struct check_result res;
	double baseline;		/* NAN when none */
	double min, max;		/* the subject across runs */
};

struct regress_run {
	char *dir;
	enum run_verdict verdict;
	int exit_status;
	double wall_s;
	char *reason;
	const char *connect;		/* the libvirt URI it ran on, or NULL */
	struct metrics *m;		/* its metrics, when it ran and they were read */
	unsigned int checks_failed;	/* of the scenario's checks on this run alone */
	bool not_run;			/* the suite was interrupted before it started */
};

struct regress_scn {
	struct scenario *scn;
	struct vm_config cfg;
	char *script;			/* VM 0's (or the only VM's) */
	char *peer_script;		/* VM 1's in a two-VM topology, else NULL */
	char **job_lines;		/* the scenario's sysctls as job lines */
	char *append;			/* kernel command line (scn_kernel_append) */
	/* The scenario's shares, then --share's: the array is rs's, the
	 * strings the scenario's and the options'. */
	struct vm_share *shares;
	size_t n_shares;
	char *dir;
	struct regress_run *runs;	/* scn->repeat of them */
	unsigned int n_runs;
	struct metrics *median;		/* NULL when no run succeeded */
	struct metrics *baseline;	/* the baselines file, read before anything runs */
	struct metrics *base_stages;	/* its "_stages" for this case (baseline_stages()), or NULL */
	struct regress_check *checks;
	enum regress_outcome outcome;
	char *reason;
};

struct regress {
	struct regress_scn *s;
	size_t n;
	char *dir;
	double wall_s;
	char *accel_why;
	bool interrupted;
	char *no_space;		/* a run found its file system full: the rest did not run */
	char *kernel;		/* the kernel the runs booted (--kernel), or NULL */
	int lock_fd;		/* the suite directory's lock (outlock.h), or -1 */
	/* --shard I/N: this suite is slice I (1-based) of N; 0/0: the whole suite. */
	unsigned int shard_i, shard_n;
	struct kernel_id *kid;	/* its identity, read when the suite starts; NULL if unread */
};

struct trace_analyses;

struct regress_opts {
	struct run_opts base;		/* kernel, initrd, qemu, accel */
	char **scenarios;		/* scenario file paths */
	/* Per path, NULL or a pattern: only the cases of a [matrix] whose
	 * name equals it or matches it as a glob (fnmatch). NULL: all. */
	const char *const *case_filter;
	size_t n_scenarios;
	const char *out;		/* suite run directory (created; must be new or empty) */
	bool out_locked;		/* the caller holds out's lock (outlock_take()) */
	unsigned int jobs;		/* guests at a time (per connection) */
	/* The connections scenarios are spread over, each with `jobs` guests
	 * at a time, for a backend that takes them (vm/backend.h
	 * vm_backend_n_conns()); none = its default URI. */
	const char *const *connect;
	size_t n_connect;
	unsigned int repeat;		/* 0: each scenario's own */
	int deterministic;		/* -1: each scenario's own, else 0/1 */
	bool record;			/* record every run (QEMU record/replay) */
	bool update_baselines;
	/* The kernel's flavour (--flavour; NULL: default): a scenario that
	 * needs another (`flavour = NAME`) is skipped, with the command that
	 * runs it, and not built for: a cold kernel build is not the suite's. */
	const char *flavour;
	/* --shard I/N: regress_load() keeps slice I (1..N) of the cases; N = 0: all. */
	unsigned int shard_i, shard_n;
	void (*progress)(void *ctx, const char *line);
	void *ctx;
	/*
	 * Write RUN_DIR's page, or NULL for none: called in the worker as its
	 * run ends, after the metrics, with the analyses of the trace they
	 * decoded (NULL when none was; trace/analysis.h) so that the page does
	 * not decode it again.
	 */
	int (*run_page)(const char *dir, struct trace_analyses *done, char **err);
};

/* Parse every scenario; any error: -EINVAL with FILE:LINE: message. */
int regress_load(const struct regress_opts *o, struct regress **out, char **err);
/*
 * regress_merge() - the suite directories @dirs (each the --out of a netlab
 * regress run, e.g. the --shard slices of one suite) as one suite in
 * o->out: every case loaded again from its scenario file, its directory
 * linked in, evaluated from its runs' files (regress-merge.c). Then write
 * it as after regress_execute(). 0, or -EINVAL with *err naming the file.
 */
int regress_merge(const struct regress_opts *o, const char *const *dirs, size_t n,
		  struct regress **out, char **err);
/* Run everything, collect, evaluate. 0, or -errno when nothing could run. */
int regress_execute(struct regress *r, const struct regress_opts *o, volatile sig_atomic_t *stop,
		    char **err);
/* 0 all pass, 1 a regression, 2 a scenario that cannot be applied,
 * 125 infrastructure failures only, 130 interrupted. */
int regress_exit_code(const struct regress *r);
void regress_free(struct regress *r);
/*
 * The suite directory keeps REGRESS_RESERVE bytes aside from the start
 * (disk_reserve()): room for summary.json, junit.xml and results.ktap
 * however full the runs leave the disk. Release it just before writing them.
 */
#define REGRESS_RESERVE (1u << 20)
void regress_reserve_release(const struct regress *r);
const char *regress_outcome_name(enum regress_outcome o);

/*
 * What CI outputs count a check as: KTAP (passed, failed = FAILED + ERROR,
 * skipped), JUnit (failure, error, skipped) and summary.json's "counts".
 * A check that was not measured because the runs could not test (infra
 * error, interrupted) is skipped; one that could not be evaluated (no
 * baseline, a division by zero, a bad scenario) is an error; a panic or a
 * timeout fails every check.
 */
enum regress_item_class { RIC_PASSED, RIC_FAILED, RIC_ERROR, RIC_SKIPPED };

/*
 * The leaves CI outputs report for scenario (or matrix case) rs: its checks,
 * and one more, "runs", when no check says why the scenario did not pass
 * (a panic on one run while the others passed every check) or it has no
 * check: then its class is the outcome's.
 */
size_t regress_n_items(const struct regress_scn *rs);
/* Item i (< regress_n_items()): its class and name (the check's, or "runs"). */
enum regress_item_class regress_item_class(const struct regress_scn *rs, size_t i);
const char *regress_item_name(const struct regress_scn *rs, size_t i);

struct regress_counts {
	size_t total, passed, failed, errors, skipped;
};
void regress_count(const struct regress *r, struct regress_counts *c);

/* Outputs (report/regress-out.c, report/regress-ci.c). */
void regress_print_table(const struct regress *r, FILE *f);
/* KTAP, one test per scenario (matrix case), a subtest per check (results.ktap). */
void regress_print_ktap(const struct regress *r, FILE *f);
int regress_write_ktap(const struct regress *r, const char *path, char **err);
int regress_write_junit(const struct regress *r, const char *path, char **err);
int regress_write_json(const struct regress *r, const char *path, char **err);
/*
 * The commands that open what explains a failing scenario's run (the first
 * whose checks failed): "netlab report RUN", "netlab report --html RUN",
 * "kernelshark RUN/files/trace.dat"
 * and "wireshark RUN/nic-L.pcap" for each file that exists; one a line, no
 * newline after the last. NULL when there is no run directory. Caller frees.
 */
char *regress_look_commands(const struct regress_scn *rs);
/* "lost in the receiver's stack: 1234 (snmp Udp InErrors/NoPorts, Ip InDiscards)". */
char *regress_loss_story(const struct metrics *m);

/* A stage whose median p50 rose from the baseline's. */
struct regress_stage_move {
	char *stage;			/* "rx.drv_ip", "tx.xmit_drv": any stage */
	double base_us, now_us;
};

/*
 * regress_stages_moved() - the stages whose p50 rose most
 * @base: the baseline's stage latencies (baseline_stages()), may be NULL
 * @now:  this run's (median) metrics, may be NULL
 * @out:  up to max moves, the largest increase first; free each ->stage
 *
 * Every latency.{rx,tx}.<stage>.p50_us both maps hold is compared; only
 * increases count. Return: how many were filled.
 */
size_t regress_stages_moved(const struct metrics *base, const struct metrics *now,
			    struct regress_stage_move *out, size_t max);

/*
 * "stage moved: tx.xmit_drv p50 12.0 -> 162.4 us (+150.4 us, x13.5); ..."
 * (up to 3 stages), or a "stages: ..." line saying why there is none to
 * name; NULL when now has no per-stage latency (the run was not traced).
 * Caller frees.
 */
char *regress_stage_story(const struct metrics *base, const struct metrics *now);

/* Does a check of this subject measure latency (rr.*, latency.*, *latency*)? */
bool regress_latency_subject(const char *subject);

#endif /* NETLAB_REGRESS_H */
