/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The results database: every `netlab regress` suite, kept in one SQLite
 * file (libsqlite3) for trends and flake rates across runs and kernels.
 *
 *   suites:  id, at (UTC, ISO 8601), dir, host, netlab version and commit,
 *            QEMU version, the kernel's release, image sha256, config
 *            sha256, cache key, source (a git tree's commit) and flavour,
 *            exit code, wall time
 *   cases:   id, suite, name (a scenario or matrix case), path, outcome,
 *            reason, runs
 *   metrics: case, name, value (the case's median over its runs)
 *   checks:  case, name, expression, value (its subject), verdict
 *
 * Where: --db FILE, else $NETLAB_DB, else runs/netlab.db (beside the
 * default run directories); "none" records nothing. Format and queries:
 * Documentation/netlab-history.txt.
 */
#ifndef NETLAB_RESULTSDB_H
#define NETLAB_RESULTSDB_H

#include <stdbool.h>
#include <stddef.h>

#include "scenario/regress.h"

/* The database file to use: @opt (--db), $NETLAB_DB, or the default; NULL for "none". */
const char *resultsdb_path(const char *opt);

/* Record suite @r (after its outputs are written). 0, or -errno with *err. */
int resultsdb_record(const char *path, const struct regress *r, char **err);

/* One value of a metric: when, on which kernel, in which case. */
struct rdb_value {
	long long suite;
	char *at, *kernel, *case_name, *outcome;
	double value;
};

/* @metric's values in cases matching @case_glob (NULL: all), oldest first. */
int resultsdb_values(const char *path, const char *metric, const char *case_glob,
		     struct rdb_value **out, size_t *n, char **err);
void resultsdb_values_free(struct rdb_value *v, size_t n);

/*
 * A check's record: how many times it was evaluated, failed, and failed on
 * a kernel on which a later evaluation of it passed (a flake: "failed then
 * passed on the same kernel", the kernel by its image's sha256).
 */
struct rdb_flake {
	char *case_name, *check;
	unsigned int runs, failed, flaky;
};

/* Every check of cases matching @case_glob, ordered by case then check. */
int resultsdb_flakes(const char *path, const char *case_glob, struct rdb_flake **out, size_t *n,
		     char **err);
void resultsdb_flakes_free(struct rdb_flake *f, size_t n);

/*
 * rdb_flaky_fold() - the flake count of one check's verdicts, oldest first,
 * each with its kernel: a failure counts when a later verdict on the same
 * kernel is a pass. (The database query feeds it; a unit test too.)
 */
unsigned int rdb_flaky_fold(const char *const *kernels, const bool *passed, size_t n);

#endif /* NETLAB_RESULTSDB_H */
