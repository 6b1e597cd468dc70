/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netlab bisect: find the kernel commit that breaks a scenario's checks, by
 * driving `git bisect run` in a worktree of the user's tree. Each step
 * builds the kernel (harness/kbuild.sh), runs the scenario through the
 * regress library and decides good (0), bad (1) or skip (125).
 *
 * The state of a bisection is its run directory:
 *	bisect.json        the configuration (struct bisect_config)
 *	bisect.log.jsonl   one JSON object per step (struct bisect_step)
 *	bisect.txt         the same, for people, and the result at the end
 *	steps/NN-SHORT/    each step's build log and regress run directories
 *	worktree ->        the git worktree the bisection runs in
 *
 * Library rules: nothing here prints to stdout or exits; errors are 0 or a
 * negative errno with a heap `*err` the caller frees.
 */
#ifndef NETLAB_BISECT_H
#define NETLAB_BISECT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "scenario/check.h"
#include "vm/share.h"

/* Step verdicts, as `git bisect run` reads a step's exit status. */
enum bisect_verdict {
	BV_GOOD = 0,
	BV_BAD = 1,
	BV_SKIP = 125,
	BV_INTERRUPTED = 130,	/* aborts `git bisect run`; --resume continues */
};

const char *bisect_verdict_name(int v);	/* "good", "bad", "skip", "interrupted" */

/* ---- the decision -------------------------------------------------------- */

enum bisect_call {
	BC_PASS,
	BC_FAIL,
	BC_AMBIGUOUS,	/* within the noise band: run more, or skip */
};

const char *bisect_call_name(enum bisect_call c);

/* Relative noise band: a median within 5% of the bound is too close to call. */
#define BISECT_BAND 0.05

struct baseline_spread;

/*
 * bisect_band() - the noise band of a check whose baseline recorded a spread
 * @sp:   the "_spread" of the check's subject (baseline_spread()), or NULL
 * @base: the baseline value (the median of those runs)
 *
 * Half the recorded relative range, (max - min) / 2 / |base|, when that is
 * wider than BISECT_BAND: a metric that spread 20% across the runs of its
 * baseline is too close to call within 10% of its bound, not 5%. Otherwise
 * (no spread, one run, a baseline of 0 or not finite) BISECT_BAND.
 */
double bisect_band(const struct baseline_spread *sp, double base);

/*
 * bisect_call_check() - call one check from its runs
 * @median_pass: the check evaluated on the median metrics
 * @run_pass:    the check evaluated on each run's metrics
 * @n:           number of runs (> 0)
 * @median:      the subject's median value (the check's main comparison)
 * @op:          its comparison
 * @bound:       its bound
 * @band:        relative noise band (BISECT_BAND)
 *
 * The median decides, unless it is too close to call: fewer than two thirds
 * of the runs agree with it (the spread straddles the bound), or, for an
 * ordering comparison (<, <=, >, >=) with a non-zero bound, the median lies
 * within band * |bound| of the bound. Equality checks on counters have no
 * band: `udp.lost == 0` is exact.
 */
enum bisect_call bisect_call_check(bool median_pass, const bool *run_pass, size_t n,
				   double median, enum check_op op, double bound, double band);

/* The step verdict from its checks' calls: any fail is bad, then any
 * ambiguous is ambiguous (BC_AMBIGUOUS), else good. */
enum bisect_call bisect_call_step(const enum bisect_call *calls, size_t n);

/* ---- configuration (RUN_DIR/bisect.json) ----------------------------------- */

struct bisect_config {
	char *ksrc;		/* the user's tree (absolute); never modified */
	char *good, *bad;	/* full commit ids */
	char *good_rev, *bad_rev;	/* as given */
	char *scenario;		/* absolute path */
	char *check;		/* only this check, or NULL for all */
	unsigned int runs;	/* runs per step (more when ambiguous: up to 2x) */
	unsigned int jobs;	/* guests at a time */
	int deterministic;	/* -1: the scenario's */
	char *initrd;
	char *flavour;		/* --flavour: each step builds kconfigs/flavours/NAME; NULL: default */
	char *worktree;		/* absolute; fixed per tree, so builds are incremental */
	char *phase;		/* "verify", "bisect", "done" */
	bool module;		/* ksrc is an out-of-tree driver (--module), built as a
				 * module against kbuild.sh's kernel and loaded in the
				 * guest in place of the built-in driver */
	/* --share, --add: every step's runs get them, after the scenario's
	 * own shares (as netlab regress --share/--add); owned, tags unset. */
	struct vm_share *shares, *adds;
	size_t n_shares, n_adds;
	/* --selftest TARGET:TEST: the kernel's own selftest decides. Each step
	 * builds it from the step's tree into RUN_DIR/ksft (harness/ksft-build.sh)
	 * and runs RUN_DIR/selftest.scn, which shares that directory. NULL: the
	 * scenario decides. */
	char *selftest;
};

void bisect_config_release(struct bisect_config *c);
int bisect_config_save(const struct bisect_config *c, const char *run_dir, char **err);
/* Also -EINVAL when a recorded --share directory or --add file is gone. */
int bisect_config_load(const char *run_dir, struct bisect_config *c, char **err);

/* ---- validation and the worktree ------------------------------------------ */

/*
 * bisect_validate() - refuse what cannot be bisected, before anything runs
 *
 * Fills c->ksrc (the tree's top), c->good, c->bad (full ids) from
 * c->ksrc/good_rev/bad_rev, parses c->scenario (it must have checks, and
 * c->check must name one of them). -EINVAL with a message and a hint.
 * *warn (may stay NULL) holds a warning the caller shows: good is not an
 * ancestor of bad (git bisects the merge base then).
 */
int bisect_validate(struct bisect_config *c, char **warn, char **err);

/*
 * With c->selftest and no scenario yet, bisect_validate() checks the
 * selftest instead: TARGET:TEST well formed, and the tree at --bad has it
 * (tools/testing/selftests/TARGET names TEST). The caller then writes the
 * scenario (ksft_write_scenario()) into the run directory and calls
 * bisect_validate_scenario(), as bisect_validate() does for --scenario.
 */
int bisect_validate_scenario(struct bisect_config *c, char **err);

/* The worktree path for a tree: CACHE/bisect/<hash of its path>/tree. */
char *bisect_worktree_path(const char *ksrc);

/*
 * bisect_worktree_prepare() - a detached worktree of c->ksrc at c->worktree,
 * checked out at `rev`, with no bisection in progress. An existing worktree
 * of the same tree is reused (its object directory makes builds incremental).
 */
int bisect_worktree_prepare(const struct bisect_config *c, const char *rev, char **err);

/*
 * bisect_lock() - hold the worktree's lock for the life of the process;
 * -EBUSY when another bisection of the same tree is running.
 */
int bisect_lock(const struct bisect_config *c, char **err);

/* ---- one step --------------------------------------------------------------- */

struct bisect_check_sample {
	char *name;
	char *text;
	char *subject;
	enum bisect_call call;
	double median, bound;	/* the main comparison (NAN when not measured) */
	double band;		/* the noise band it was called with (bisect_band()) */
	enum check_op op;
	double *values;		/* the subject in each run that gave metrics */
	size_t n_values;
};

struct bisect_step {
	unsigned int n;
	char *label;		/* "good", "bad" (endpoint checks) or NULL (a bisect step) */
	char *commit, *subject;
	char *dir;		/* RUN_DIR/steps/NN-SHORT */
	char *kernel_dir;	/* kbuild's cache dir, NULL when the build failed */
	double build_s, boot_s, scenario_s;	/* boot and scenario: mean per run */
	unsigned int n_runs;
	int verdict;		/* enum bisect_verdict */
	char *why;		/* one line */
	struct bisect_check_sample *checks;
	size_t n_checks;
	char **run_dirs;
	size_t n_run_dirs;
};

void bisect_step_release(struct bisect_step *s);
/* Free the step's check samples, leaving none. */
void bisect_step_clear_checks(struct bisect_step *s);

/*
 * bisect_step_run() - build and test the commit checked out in c->worktree
 * @c:        the configuration
 * @run_dir:  the bisection's run directory
 * @label:    "good"/"bad" for the endpoint checks, NULL otherwise
 * @stop:     set by a signal handler: stop now (verdict interrupted)
 * @progress: one line at a time (may be NULL)
 * @s:        the step, logged already to bisect.log.jsonl and bisect.txt
 *
 * The page of the run directory is the caller's to draw again (report/ reads
 * bisect.json and bisect.log.jsonl; bisect/ never calls report/).
 *
 * Return: 0 with s->verdict set, or -errno when the step could not even be
 * set up (the caller then skips: 125).
 */
int bisect_step_run(const struct bisect_config *c, const char *run_dir, const char *label,
		    volatile sig_atomic_t *stop, void (*progress)(void *ctx, const char *line),
		    void *ctx, struct bisect_step *s, char **err);

/* ---- the log ------------------------------------------------------------------- */

/* One JSON object (no newline); caller frees. */
char *bisect_step_to_json(const struct bisect_step *s);
int bisect_step_from_json(const char *line, struct bisect_step *s);
/* "udp.lost = 125 [120..130] (3 runs) vs == 0" (bisect-step.c) */
void bisect_sample_text(struct sbuf *b, const struct bisect_check_sample *cs);
/* "step 3  1a2b3c4d5e6f  bad   build 41.2 s  boot 3.3 s  scenario 12.0 s  subject\n"
 * then one line per check: "    no_loss: udp.lost = 125 [120..130] vs == 0  fail". */
char *bisect_step_to_text(const struct bisect_step *s);
/* Every step logged so far, in order. */
int bisect_log_load(const char *run_dir, struct bisect_step **steps, size_t *n, char **err);

/* ---- the end ----------------------------------------------------------------- */

struct bisect_result {
	char *first_bad;		/* full id, or NULL */
	char *subject;
	char **candidates;		/* when only skipped commits are left */
	size_t n_candidates;
	const struct bisect_step *after;	/* the first bad commit's step */
	const struct bisect_step *before;	/* its parent's, or the nearest good one */
	char *repro;			/* command that reproduces the bad run */
};

/* Parse `git bisect run`'s output (and the log of steps) into a result. */
int bisect_result_parse(const struct bisect_config *c, const char *run_output,
			const struct bisect_step *steps, size_t n_steps, struct bisect_result *r,
			char **err);
void bisect_result_release(struct bisect_result *r);
/* bisect_result_to_text(), bisect_step_to_text(): in bisect-step.c */
char *bisect_result_to_text(const struct bisect_result *r);

/* ---- helpers ------------------------------------------------------------------- */

/* `git -C dir ARG... NULL`; stdout (trailing newlines cut) into *out if asked
 * (caller frees). Returns git's exit status, or -errno. */
int bisect_git(const char *dir, char **out, ...) __attribute__((sentinel));

/*
 * bisect_exec() - run argv in cwd; stdout captured into *out (may be NULL:
 * appended to out_file, or discarded), stderr appended to err_file, to ours
 * when err_file is "-", or discarded when NULL; env entries "NAME=VALUE" are
 * added. Stdin and the process group are ours; signals do not end the wait.
 * Returns the exit status, 128+signal, or -errno when it could not start
 * (*out is then NULL).
 */
int bisect_exec(const char *const *argv, const char *cwd, const char *const *env, char **out,
		const char *out_file, const char *err_file);

#endif /* NETLAB_BISECT_H */
