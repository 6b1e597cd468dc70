/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Baselines: the reference values checks compare against with `baseline`.
 * A scenario tests/regress/NAME.scn keeps them next to it, in
 * tests/regress/NAME.baseline.json:
 *
 *	{
 *	  "_meta": { "date": "...", "kernel": "...", "netlab_version": "...", "repeat": 3 },
 *	  "rr.latency_us.p99": 41.5
 *	}
 *
 * Keys starting with '_' are not metrics ("_meta" says where the values
 * came from). The file is written pretty-printed with sorted keys, so that
 * a baseline update reads well as a diff.
 */
#ifndef NETLAB_BASELINE_H
#define NETLAB_BASELINE_H

#include "scenario/check.h"
#include "scenario/metrics.h"
#include "scenario/scenario.h"

/* Where the numbers in a baselines file came from; all optional. */
struct baseline_meta {
	const char *kernel;		/* kernel release of the measured runs */
	const char *netlab_version;
	const char *date;		/* ISO 8601; NULL: now, UTC */
	unsigned int repeat;		/* runs the values are the median of; 0: omit */
};

/* "dir/NAME.baseline.json" for "dir/NAME.scn"; caller frees. */
char *baseline_path(const char *scn_path);

/*
 * baseline_load() - read a baselines file
 * @path: the .baseline.json file
 * @out:  a new map of its metrics (empty when the file does not exist)
 * @err:  "PATH:LINE: message" for bad JSON, "PATH: message" otherwise
 *
 * Return: 0; -EINVAL when the file is not a JSON object of numbers; -errno
 * when it cannot be read.
 */
int baseline_load(const char *path, struct metrics **out, char **err);

/*
 * The baseline of check e (of its subject, under baseline_key() for a case
 * of scenario scn; scn may be NULL) in b, or NAN when there is none.
 */
double baseline_value(const struct metrics *b, const struct scenario *scn,
		      const struct check_expr *e);

/*
 * The key of a subject in a baselines file: the subject, and for a case of
 * a [matrix] the subject followed by the case, "tcp.goodput_bps[nic.B=e1000]":
 * the cases of one file share it. Caller frees.
 */
char *baseline_key(const struct scenario *scn, const char *subject);

/*
 * baseline_update() - record measured values as the new baselines
 * @path:     the .baseline.json file (created if missing)
 * @scn:      the scenario; every check that uses `baseline` has its subject
 *            updated
 * @measured: the values to record (the median across repeats)
 * @meta:     replaces "_meta"; NULL keeps the file's "_meta"
 * @err:      why not
 *
 * Entries of the file no check updates are kept. The file is replaced
 * atomically (temporary file + rename); on any error it is left as it was,
 * and nothing is written when a subject was not measured.
 *
 * Return: 0, -EINVAL (corrupt file, subject not measured), or -errno.
 */
int baseline_update(const char *path, const struct scenario *scn, const struct metrics *measured,
		    const struct baseline_meta *meta, char **err);

#endif /* NETLAB_BASELINE_H */
