/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netlab selftests: which selftests a command line names, what each one's
 * run said (kselftest/runner.sh's verdict line, the reason it skipped or
 * failed), and the suite outputs that fold them: the table and closing
 * note, results.ktap (a test per selftest, its own TAP nested) and the
 * "selftests" part of summary.json.
 *
 * Ownership: a struct ksft_suite owns its tests' strings; ksft_suite_release()
 * frees them. It borrows the regress suite (struct regress) it is folded into.
 */
#ifndef NETLAB_KSFT_SUITE_H
#define NETLAB_KSFT_SUITE_H

#include <stdbool.h>
#include <stdio.h>

#include "scenario/regress.h"

enum ksft_result { KSFT_PASS, KSFT_FAIL, KSFT_SKIP, KSFT_INFRA };

struct ksft_test {
	char *name;		/* "net:reuseport_addr_any.sh" (TARGET:TEST) */
	char *scn_name;		/* its scenario's name: "net-reuseport_addr_any.sh" */
	char *not_built;	/* why it did not build (then it does not run), or NULL */
	enum ksft_result result;
	char *reason;		/* why it skipped or failed (a line of its output), or NULL */
	char *config;		/* "probably a missing kernel config: ...", or NULL */
	char *run_dir;		/* its run directory, or NULL */
	double wall_s;
};

struct ksft_suite {
	struct ksft_test *t;
	size_t n;
};

/**
 * ksft_select() - the tests @args name, from an install directory
 * @install: ksft-build.sh's install directory (kselftest-list.txt, ksft-missing.txt)
 * @args:    "TARGET" (every test of it, and of its subtargets) or "TARGET:TEST"
 * @s:       zeroed here; the tests in list order, each once; those of
 *           ksft-missing.txt (not helpers) with not_built set
 * Return: 0, or -EINVAL naming an argument that matches nothing (with a hint).
 */
int ksft_select(const char *install, const char *const *args, size_t n_args,
		struct ksft_suite *s, char **err);

/* "net/forwarding:x.sh" -> "net-forwarding-x.sh": a scenario name. Caller frees. */
char *ksft_scn_name(const char *test);

/* The target part of "TARGET:TEST" (or all of it), as a new string. */
char *ksft_target_of(const char *arg);

struct ksft_verdict {
	enum ksft_result result;
	char *reason;		/* NULL for a pass */
	char *config;		/* a line that points at a missing kernel config, or NULL */
	bool has_line;		/* the runner printed its verdict line */
};

/**
 * ksft_verdict_parse() - what one test's run said
 * @out:       its exec.out (the runner's TAP 13), may be NULL (no output)
 * @exec_exit: exec.exit, -1 when unknown
 * @timed_out: netlab's [exec] timeout killed it
 * @v:         filled; free its strings with ksft_verdict_release()
 *
 * The runner's top-level "ok N selftests: T: X" line decides: "# SKIP" is a
 * skip, "not ok" a failure ("# TIMEOUT N seconds", "# exit=N"). The reason
 * is the test's last line naming SKIP (for a skip), else its first line
 * with FAIL or an error. Without a verdict line it failed (timed out, or
 * "no verdict").
 */
void ksft_verdict_parse(const char *out, int exec_exit, bool timed_out, struct ksft_verdict *v);
void ksft_verdict_release(struct ksft_verdict *v);

/*
 * ksft_suite_fold() - each test's verdict from its run (RUN/exec.out and
 * its metrics) into @s, and into its scenario in @r: outcome RO_PASS,
 * RO_FAIL or RO_SKIP with the reason, so that junit.xml, summary.json and
 * report.html say what the test said. A scenario that could not run
 * (infra-error, interrupted) keeps its outcome: KSFT_INFRA.
 */
void ksft_suite_fold(struct ksft_suite *s, struct regress *r);

/* The table, one line per test, then the closing note: counts, skips
 * grouped by reason, failures with their reason, the time. */
void ksft_print(const struct ksft_suite *s, double wall_s, FILE *f);

/* results.ktap: KTAP version 1, a test per selftest, its runner's TAP nested. */
int ksft_write_ktap(const struct ksft_suite *s, const char *path, char **err);

/* Add "selftests": {counts, tests: [{name, result, reason, config, run}]} to summary.json. */
int ksft_json_add(const struct ksft_suite *s, const char *summary, char **err);

/* 0 all pass or skip, 1 a test failed, 125 only infrastructure failures, 130 interrupted. */
int ksft_exit_code(const struct ksft_suite *s, const struct regress *r);

void ksft_suite_release(struct ksft_suite *s);

#endif /* NETLAB_KSFT_SUITE_H */
