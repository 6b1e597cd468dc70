/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Checks: boolean expressions over metrics, as written in a scenario's
 * [checks] section (grammar in harness/README-scenarios.md):
 *
 *	udp.lost == 0
 *	rr.latency_us.p99 <= baseline * 1.25
 *	udp.received + snmp.B.Udp.RcvbufErrors == udp.sent
 *	not (nic.A.rx_missed_errors > 0 or udp.lost > 10k)
 *
 * The *subject* of a check is the first metric it names; `baseline` is the
 * subject's value in the scenario's baselines file.
 *
 * Comparisons are exact on doubles. Counters are integers, and integers up
 * to 2^53 are exact in a double, so `==` on counts means what it says; for
 * rates and latencies use <, <=, >, >= with a margin.
 *
 * Ownership: check_parse() returns a struct check_expr the caller frees
 * with check_expr_free(); strings it hands out live as long as it does.
 */
#ifndef NETLAB_CHECK_H
#define NETLAB_CHECK_H

#include <stdbool.h>

#include "lib/metrics.h"

struct check_expr;

enum check_op {
	CHECK_EQ,
	CHECK_NE,
	CHECK_LT,
	CHECK_LE,
	CHECK_GT,
	CHECK_GE,
};

/* "==", "<=", ... */
const char *check_op_str(enum check_op op);

/*
 * check_parse() - parse a check expression
 * @text: the expression
 * @out:  the parsed check, on success
 * @err:  on failure, "column N: what was expected" (columns count from 1)
 *
 * Return: 0, or -EINVAL for a syntax error.
 */
int check_parse(const char *text, struct check_expr **out, char **err);
void check_expr_free(struct check_expr *e);

/* The text the check was parsed from. */
const char *check_text(const struct check_expr *e);
/* The first metric named in the check (never NULL for a parsed check). */
const char *check_subject(const struct check_expr *e);
/* Whether the check uses the keyword `baseline`. */
bool check_uses_baseline(const struct check_expr *e);

/*
 * check_metrics_used() - call fn for every metric the check names
 *
 * In the order they appear (a metric named twice is reported twice);
 * `column` is where the name starts. Stops at, and returns, the first
 * non-zero value fn returns; 0 otherwise.
 */
typedef int (*check_metric_fn)(void *ctx, const char *name, unsigned int column);
int check_metrics_used(const struct check_expr *e, check_metric_fn fn, void *ctx);

enum check_status {
	CHECK_PASS,
	CHECK_FAIL,
	CHECK_NOT_MEASURED,	/* a metric the check names is missing from the run */
	CHECK_NO_BASELINE,	/* `baseline` used, but the subject has none */
	CHECK_ERROR,		/* division by zero, or a result that is not a number */
};

/* "pass", "fail", "not-measured", "no-baseline", "error". */
const char *check_status_name(enum check_status s);

/*
 * The outcome of one evaluation. The *main comparison* is the check's
 * first comparison, turned round if need be so that its left side holds
 * the subject: `value` is that side, `bound` the other, so a result reads
 * "value 12 vs bound <= 0". Both are NAN when they could not be computed.
 */
struct check_result {
	enum check_status status;
	double value;
	enum check_op op;
	double bound;
	char *err;		/* why, for any status but pass/fail; owned */
};

/*
 * check_eval() - evaluate a check on measured metrics
 * @e:        the check
 * @m:        the run's metrics (the median across repeats)
 * @baseline: the subject's baseline value, or NAN when there is none
 * @res:      filled in every case; release with check_result_release()
 *
 * Every metric the check names must be present, even where `and`/`or`
 * could decide without it: a missing metric is a broken check, not a pass.
 *
 * Return: 0 for pass or fail; -ENOENT (not measured), -ENODATA (no
 * baseline) or -EDOM (division by zero, non-finite result) otherwise.
 */
int check_eval(const struct check_expr *e, const struct metrics *m, double baseline,
	       struct check_result *res);
void check_result_release(struct check_result *res);

#endif /* NETLAB_CHECK_H */
