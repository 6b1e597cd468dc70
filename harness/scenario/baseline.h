/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Baselines: the reference values checks compare against with `baseline`.
 * A scenario tests/regress/NAME.scn keeps them next to it, in
 * tests/regress/NAME.baseline.json:
 *
 *	{
 *	  "_meta": { "date": "...", "format_version": 1, "kernel": "...",
 *		     "kernel_cache_key": "...", "netlab_version": "...", "repeat": 3, ... },
 *	  "_spread": {
 *	    "rr.latency_us.p99": { "max": 44, "min": 39.5, "n": 3 }
 *	  },
 *	  "_stages": {
 *	    "latency.rx.drv_ip.p50_us": 30.1,
 *	    "latency.tx.app_ip.p90_us": 12.5
 *	  },
 *	  "rr.latency_us.p99": 41.5
 *	}
 *
 * Keys starting with '_' are not metrics:
 *  - "_meta" says where the values came from;
 *  - "_spread" holds, for a subject, the smallest and largest of the
 *    per-run values its baseline is the median of, and how many runs
 *    measured it (netlab bisect widens its noise band by it);
 *  - "_stages" holds the medians of the per-stage packet-path latencies
 *    (every measured latency.{rx,tx}.<stage>.{p50_us,p90_us}) of the same
 *    runs, to the ns: which stage moved, when a latency check fails.
 * Keys inside "_spread" and "_stages" follow baseline_key(): a case of a
 * [matrix] has "[case]" after the name. Both are optional (files written
 * before them load as before); other '_' keys are skipped. The file is
 * written pretty-printed with sorted keys, so that a baseline update reads
 * well as a diff.
 */
#ifndef NETLAB_BASELINE_H
#define NETLAB_BASELINE_H

#include "scenario/check.h"
#include "lib/metrics.h"
#include "scenario/scenario.h"

/* Where the numbers in a baselines file came from; all optional. */
struct baseline_meta {
	const char *kernel;		/* kernel release of the measured runs */
	const char *kernel_version;	/* the bzImage's version string */
	const char *kernel_cache_key;	/* netlab's kernel cache key (kbuild.sh) */
	const char *kernel_source;	/* the kernel cache's source identity */
	const char *kernel_config_sha256;
	const char *netlab_version;
	const char *netlab_commit;
	const char *date;		/* ISO 8601; NULL: now, UTC */
	unsigned int repeat;		/* runs the values are the median of; 0: omit */
};

/* The spread of one subject's per-run values, as "_spread" records it. */
struct baseline_spread {
	double min, max;
	unsigned int n;			/* runs that measured the subject */
};

/* What a baselines file holds besides its values. */
struct baseline_extra {
	struct metrics *stages;		/* "_stages" (keys as in the file), NULL when none */
	struct {
		char *key;		/* baseline_key() of the subject */
		struct baseline_spread s;
	} *spread;			/* "_spread" */
	size_t n_spread;
};

/* "dir/NAME.baseline.json" for "dir/NAME.scn"; caller frees. */
char *baseline_path(const char *scn_path);

/*
 * baseline_load() - read a baselines file
 * @path: the .baseline.json file
 * @out:  a new map of its metrics (empty when the file does not exist)
 * @err:  "PATH:LINE: message" for bad JSON, "PATH: message" otherwise
 *
 * Return: 0; -EINVAL when the file is not a JSON object of numbers, or its
 * "_spread" or "_stages" is malformed (the error names the entry); -errno
 * when it cannot be read.
 */
int baseline_load(const char *path, struct metrics **out, char **err);

/*
 * baseline_load_extra() - read the "_spread" and "_stages" of a baselines file
 *
 * As baseline_load() (the same checks, the same errors); x is empty when the
 * file, or either object, does not exist. Release it with
 * baseline_extra_release(), also after an error.
 */
int baseline_load_extra(const char *path, struct baseline_extra *x, char **err);
void baseline_extra_release(struct baseline_extra *x);

/* The recorded spread of check e's subject (baseline_key() of it); false when none. */
bool baseline_spread(const struct baseline_extra *x, const struct scenario *scn,
		     const struct check_expr *e, struct baseline_spread *out);

/*
 * The "_stages" of scenario (or matrix case) scn, by metric name without
 * the case ("latency.rx.drv_ip.p50_us"): a new map, or NULL when the file
 * recorded none for it.
 */
struct metrics *baseline_stages(const struct baseline_extra *x, const struct scenario *scn);

/* Is name a per-stage latency "_stages" records: latency.{rx,tx}.<stage>.{p50_us,p90_us}? */
bool baseline_is_stage_metric(const char *name);

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
 * @runs:     the per-run values measured was the median of: each subject's
 *            "_spread" (none: the subject's entry is removed)
 * @n_runs:   how many
 * @meta:     replaces "_meta"; NULL keeps the file's "_meta"
 * @err:      why not
 *
 * "_stages" of the scenario (or case) is replaced by the stage latencies
 * in measured (baseline_is_stage_metric()); other cases' are kept.
 * Entries of the file no check updates are kept. The file is replaced
 * atomically (temporary file + rename); on any error it is left as it was,
 * and nothing is written when a subject was not measured.
 *
 * Return: 0, -EINVAL (corrupt file, subject not measured), or -errno.
 */
int baseline_update(const char *path, const struct scenario *scn, const struct metrics *measured,
		    struct metrics *const *runs, size_t n_runs, const struct baseline_meta *meta,
		    char **err);

#endif /* NETLAB_BASELINE_H */
