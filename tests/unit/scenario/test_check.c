// SPDX-License-Identifier: GPL-2.0
/* Check expressions: grammar, errors with columns, evaluation. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "scenario/check.h"
#include "lib/metrics.h"
#include "scenario/scngen.h"
#include "lib/util.h"

static struct check_expr *parse_ok(const char *text)
{
	struct check_expr *e = NULL;
	char *err = NULL;
	int ret = check_parse(text, &e, &err);

	if (ret)
		fail_msg("'%s' did not parse: %s", text, err);
	assert_null(err);
	return e;
}

static void expect_parse_error(const char *text, const char *want)
{
	struct check_expr *e = NULL;
	char *err = NULL;

	assert_int_equal(check_parse(text, &e, &err), -EINVAL);
	assert_null(e);
	assert_non_null(err);
	assert_string_equal(err, want);
	free(err);
}

/* Evaluate text on the given name=value pairs (NULL-terminated), baseline b. */
static enum check_status eval_on(const char *text, double b, struct check_result *res, ...)
{
	struct check_expr *e = parse_ok(text);
	struct metrics *m = metrics_new();
	const char *name;
	va_list ap;

	va_start(ap, res);
	while ((name = va_arg(ap, const char *)))
		metrics_set(m, name, va_arg(ap, double));
	va_end(ap);
	check_eval(e, m, b, res);
	metrics_free(m);
	check_expr_free(e);
	return res->status;
}

/* Pass/fail of text with metric x.v = v (checks that are about arithmetic). */
static enum check_status eval_x(const char *text, double v)
{
	struct check_result r;
	enum check_status st = eval_on(text, NAN, &r, "x.v", v, NULL);

	if (r.err)
		fail_msg("'%s': %s", text, r.err);
	check_result_release(&r);
	return st;
}

static void test_check__simple_comparison_passes_and_fails(void **state)
{
	struct check_result r;

	assert_int_equal(eval_on("udp.lost == 0", NAN, &r, "udp.lost", 0.0, NULL), CHECK_PASS);
	assert_int_equal(eval_on("udp.lost == 0", NAN, &r, "udp.lost", 3.0, NULL), CHECK_FAIL);
	assert_null(r.err);
	assert_true(r.value == 3 && r.bound == 0 && r.op == CHECK_EQ);
	check_result_release(&r);
}

static void test_check__every_comparison_operator(void **state)
{
	assert_int_equal(eval_x("x.v != 1", 2), CHECK_PASS);
	assert_int_equal(eval_x("x.v != 2", 2), CHECK_FAIL);
	assert_int_equal(eval_x("x.v < 3", 2), CHECK_PASS);
	assert_int_equal(eval_x("x.v < 2", 2), CHECK_FAIL);
	assert_int_equal(eval_x("x.v <= 2", 2), CHECK_PASS);
	assert_int_equal(eval_x("x.v <= 1", 2), CHECK_FAIL);
	assert_int_equal(eval_x("x.v > 1", 2), CHECK_PASS);
	assert_int_equal(eval_x("x.v > 2", 2), CHECK_FAIL);
	assert_int_equal(eval_x("x.v >= 2", 2), CHECK_PASS);
	assert_int_equal(eval_x("x.v >= 3", 2), CHECK_FAIL);
}

static void test_check__multiplication_binds_tighter_than_addition(void **state)
{
	assert_int_equal(eval_x("x.v == 1 + 2 * 3", 7), CHECK_PASS);
	assert_int_equal(eval_x("x.v == 1 + 2 * 3", 9), CHECK_FAIL);
	assert_int_equal(eval_x("x.v == 10 - 6 / 2", 7), CHECK_PASS);
}

static void test_check__parentheses_override_precedence(void **state)
{
	assert_int_equal(eval_x("x.v == (1 + 2) * 3", 9), CHECK_PASS);
	assert_int_equal(eval_x("x.v == ((1 + 2)) * (3)", 9), CHECK_PASS);
	assert_int_equal(eval_x("(x.v + 1) * 2 == 20", 9), CHECK_PASS);
}

static void test_check__operators_are_left_associative(void **state)
{
	assert_int_equal(eval_x("x.v == 8 / 2 / 2", 2), CHECK_PASS);
	assert_int_equal(eval_x("x.v == 1 - 2 - 3", -4), CHECK_PASS);
}

static void test_check__unary_minus(void **state)
{
	assert_int_equal(eval_x("x.v == -2 * -3", 6), CHECK_PASS);
	assert_int_equal(eval_x("-x.v == 5", -5), CHECK_PASS);
	assert_int_equal(eval_x("x.v == -(1 + 2)", -3), CHECK_PASS);
}

static void test_check__number_forms_and_suffixes(void **state)
{
	assert_int_equal(eval_x("x.v == 1e6", 1e6), CHECK_PASS);
	assert_int_equal(eval_x("x.v == 2.5E-3", 0.0025), CHECK_PASS);
	assert_int_equal(eval_x("x.v == 20k", 20000), CHECK_PASS);
	assert_int_equal(eval_x("x.v == 1.5M", 1500000), CHECK_PASS);
	assert_int_equal(eval_x("x.v == 2G", 2e9), CHECK_PASS);
	assert_int_equal(eval_x("x.v == .5", 0.5), CHECK_PASS);
	assert_int_equal(eval_x("x.v == 20k", 20), CHECK_FAIL);
}

static void test_check__and_binds_tighter_than_or(void **state)
{
	struct check_result r;

	/* (lost == 1) or ((lost == 0) and (sent == 0)): pass; the other way: fail. */
	assert_int_equal(eval_on("udp.lost == 1 or udp.lost == 0 and udp.sent == 0", NAN, &r,
				 "udp.lost", 1.0, "udp.sent", 5.0, NULL),
			 CHECK_PASS);
}

static void test_check__not_binds_tighter_than_and(void **state)
{
	struct check_result r;

	/* (not lost == 1) and sent == 0 is false; not (lost == 1 and sent == 0) is true. */
	assert_int_equal(eval_on("not udp.lost == 1 and udp.sent == 0", NAN, &r, "udp.lost", 1.0,
				 "udp.sent", 0.0, NULL),
			 CHECK_FAIL);
	assert_int_equal(eval_on("not (udp.lost == 1 and udp.sent == 5)", NAN, &r, "udp.lost", 1.0,
				 "udp.sent", 0.0, NULL),
			 CHECK_PASS);
	assert_int_equal(eval_on("not not udp.lost == 1", NAN, &r, "udp.lost", 1.0, NULL),
			 CHECK_PASS);
}

static void test_check__parenthesized_logic(void **state)
{
	struct check_result r;

	assert_int_equal(eval_on("(udp.lost == 1 or udp.lost == 2) and udp.sent > 0", NAN, &r,
				 "udp.lost", 2.0, "udp.sent", 1.0, NULL),
			 CHECK_PASS);
	assert_int_equal(eval_on("(udp.lost == 1 or udp.lost == 2) and udp.sent > 0", NAN, &r,
				 "udp.lost", 2.0, "udp.sent", 0.0, NULL),
			 CHECK_FAIL);
}

static void test_check__subject_is_first_metric_named(void **state)
{
	struct check_expr *e = parse_ok("snmp.B.Udp.RcvbufErrors == udp.lost");

	assert_string_equal(check_subject(e), "snmp.B.Udp.RcvbufErrors");
	assert_false(check_uses_baseline(e));
	check_expr_free(e);
	e = parse_ok("baseline * 0.8 <= tcp.goodput_bps");
	assert_string_equal(check_subject(e), "tcp.goodput_bps");
	assert_true(check_uses_baseline(e));
	check_expr_free(e);
}

static void test_check__baseline_refers_to_subject(void **state)
{
	const char *text = "rr.latency_us.p99 <= baseline * 1.25";
	struct check_result r;

	assert_int_equal(eval_on(text, 10, &r, "rr.latency_us.p99", 12.0, "rr.tps", 1.0, NULL),
			 CHECK_PASS);
	assert_true(r.value == 12 && r.bound == 12.5 && r.op == CHECK_LE);
	assert_int_equal(eval_on(text, 10, &r, "rr.latency_us.p99", 13.0, NULL), CHECK_FAIL);
	assert_true(r.bound == 12.5);
}

static void test_check__names_with_digit_components_and_labels(void **state)
{
	struct check_result r;

	assert_int_equal(eval_on("rr.latency_us.p99_9 < 5 and nic.A.x > 0 and a.0b.c == 1", NAN, &r,
				 "rr.latency_us.p99_9", 1.0, "nic.A.x", 1.0, "a.0b.c", 1.0, NULL),
			 CHECK_PASS);
}

/*
 * A NIC's own stage latency (pktpath: latency.DIR.STAGE.IFNAME.*) is one
 * metric name in a check: parsed whole, its subject, a name the metric
 * families know, compared with its baseline.
 */
static void test_check__per_nic_stage_metric_in_a_check(void **state)
{
	const char *text = "latency.tx.dev.ethA.p90_us <= baseline * 1.25 + 5";
	struct check_expr *e = parse_ok(text);
	struct check_result r;

	assert_string_equal(check_subject(e), "latency.tx.dev.ethA.p90_us");
	assert_true(check_uses_baseline(e));
	check_expr_free(e);
	assert_int_equal(metrics_name_check("latency.tx.dev.ethA.p90_us", scn_gen_metrics, "rr",
					    "AB", NULL),
			 0);
	assert_int_equal(metrics_name_check("latency.rx.poll_handoff.ethB.count", scn_gen_metrics,
					    "udp-stream", "AB", NULL),
			 0);
	/* baseline 12 us: bound 12 * 1.25 + 5 = 20 */
	assert_int_equal(eval_on(text, 12, &r, "latency.tx.dev.ethA.p90_us", 19.5,
				 "latency.tx.dev.p90_us", 60.0, NULL),
			 CHECK_PASS);
	assert_true(r.value == 19.5 && r.bound == 20 && r.op == CHECK_LE);
	check_result_release(&r);
	/* e1000e's xmit 30 us slower: fails, though the direction's p90 (virtio-net's) held */
	assert_int_equal(eval_on(text, 12, &r, "latency.tx.dev.ethA.p90_us", 42.0,
				 "latency.tx.dev.p90_us", 60.0, NULL),
			 CHECK_FAIL);
	assert_true(r.value == 42 && r.bound == 20);
	check_result_release(&r);
	/* the direction's metric is not the NIC's */
	assert_int_equal(eval_on(text, 12, &r, "latency.tx.dev.p90_us", 60.0, NULL),
			 CHECK_NOT_MEASURED);
	check_result_release(&r);
}

struct seen {
	char names[8][64];
	unsigned int cols[8];
	int n;
};

static int collect(void *ctx, const char *name, unsigned int column)
{
	struct seen *s = ctx;

	strcpy(s->names[s->n], name);
	s->cols[s->n++] = column;
	return 0;
}

static int stop_at_second(void *ctx, const char *name, unsigned int column)
{
	int *n = ctx;

	return ++*n == 2 ? 42 : 0;
}

static void test_check__metrics_used_in_order_with_columns(void **state)
{
	struct check_expr *e = parse_ok("udp.received + snmp.B.Udp.RcvbufErrors == udp.sent");
	struct seen s = { .n = 0 };
	int n = 0;

	assert_int_equal(check_metrics_used(e, collect, &s), 0);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.names[0], "udp.received");
	assert_string_equal(s.names[1], "snmp.B.Udp.RcvbufErrors");
	assert_string_equal(s.names[2], "udp.sent");
	assert_int_equal(s.cols[0], 1);
	assert_int_equal(s.cols[1], 16);
	assert_int_equal(s.cols[2], 43);
	assert_int_equal(check_metrics_used(e, stop_at_second, &n), 42);
	assert_int_equal(n, 2);
	check_expr_free(e);
}

/* What can never evaluate is refused when parsed, not after the runs. */
static void test_check__rejects_overflowing_numbers_and_division_by_zero(void **state)
{
	expect_parse_error("udp.lost <= 1e999", "column 13: number '1e999' is out of range");
	expect_parse_error("udp.lost <= 1e308G", "column 13: number '1e308G' is out of range");
	expect_parse_error("udp.lost / 0 == 1", "column 10: division by zero");
	expect_parse_error("udp.lost == udp.sent / 0.0", "column 22: division by zero");
}

static void test_check__syntax_errors_name_column_and_expectation(void **state)
{
	expect_parse_error("rr.latency_us.p99 <= baseline *",
			   "column 32: expected a metric, number or '(' after '*'");
	expect_parse_error(
		"udp.lost",
		"column 9: expected a comparison (==, !=, <, <=, >, >=) after 'udp.lost'");
	expect_parse_error(
		"udp.lost == 0 and udp.sent",
		"column 27: expected a comparison (==, !=, <, <=, >, >=) after 'udp.sent'");
	expect_parse_error("udp.lost = 0", "column 10: '=' is not a comparison; use '=='");
	expect_parse_error("udp.lost < 1 < 2",
			   "column 14: comparisons cannot be chained; join them with 'and'");
	expect_parse_error("(udp.lost == 0",
			   "column 15: expected ')' to close the '(' at column 1 after '0'");
	expect_parse_error("udp.lost == 0 or",
			   "column 17: expected a metric, number or '(' after 'or'");
	expect_parse_error("* 2 == udp.lost",
			   "column 1: expected a metric, number or '(' at the start");
	expect_parse_error(
		"12abc > udp.lost",
		"column 1: bad number '12abc' (numbers look like 42, 0.5, 1e6, 20k, 1.5M, 2G)");
	expect_parse_error("udp. == 0", "column 5: expected a name after '.' in 'udp.'");
	expect_parse_error("udp.lost == 0 && udp.sent > 0", "column 15: use 'and' instead of '&&'");
	expect_parse_error("udp.lost == $", "column 13: unexpected character '$'");
	expect_parse_error("(udp.lost == 0) + 1 > 0",
			   "column 17: '+' needs a number on each side, not a comparison");
	expect_parse_error("udp.lost == 0 0",
			   "column 15: unexpected '0' after '0'; expected an operator or the end");
	expect_parse_error("1 + 1 == 2", "column 1: the check names no metric");
	expect_parse_error("  ",
			   "column 1: empty check; write a comparison such as 'udp.lost == 0'");
}

static void test_check__missing_metric_is_not_measured_not_fail(void **state)
{
	struct check_result r;
	struct check_expr *e = parse_ok("nic.A.rx_missed_errors > 0");
	struct metrics *m = metrics_new();

	metrics_set(m, "udp.lost", 0);
	assert_int_equal(check_eval(e, m, NAN, &r), -ENOENT);
	assert_int_equal(r.status, CHECK_NOT_MEASURED);
	assert_string_equal(r.err, "metric 'nic.A.rx_missed_errors' was not measured");
	assert_true(isnan(r.value));
	assert_true(r.bound == 0);
	check_result_release(&r);
	metrics_free(m);
	check_expr_free(e);
}

static void test_check__missing_metric_after_decided_or_still_errors(void **state)
{
	struct check_result r;

	assert_int_equal(eval_on("udp.lost == 0 or udp.sent > 0", NAN, &r, "udp.lost", 0.0, NULL),
			 CHECK_NOT_MEASURED);
	assert_string_equal(r.err, "metric 'udp.sent' was not measured");
	check_result_release(&r);
}

static void test_check__baseline_missing_is_an_error_with_hint(void **state)
{
	struct check_result r;
	struct check_expr *e = parse_ok("rr.latency_us.p99 <= baseline * 1.25");
	struct metrics *m = metrics_new();

	metrics_set(m, "rr.latency_us.p99", 12);
	assert_int_equal(check_eval(e, m, NAN, &r), -ENODATA);
	assert_int_equal(r.status, CHECK_NO_BASELINE);
	assert_string_equal(
		r.err,
		"no baseline for 'rr.latency_us.p99'; run netlab regress --update-baselines");
	assert_true(r.value == 12);
	check_result_release(&r);
	metrics_free(m);
	check_expr_free(e);
}

static void test_check__division_by_zero_is_an_error_not_inf(void **state)
{
	struct check_result r;

	assert_int_equal(eval_on("udp.lost / udp.sent < 0.01", NAN, &r, "udp.lost", 1.0, "udp.sent",
				 0.0, NULL),
			 CHECK_ERROR);
	assert_string_equal(r.err, "division by zero: 'udp.sent' is 0");
	check_result_release(&r);
	assert_int_equal(eval_on("udp.lost / (udp.sent - 1) < 0.01", NAN, &r, "udp.lost", 1.0,
				 "udp.sent", 1.0, NULL),
			 CHECK_ERROR);
	assert_string_equal(r.err, "division by zero at column 10");
	check_result_release(&r);
}

static void test_check__overflow_is_an_error(void **state)
{
	struct check_result r;

	assert_int_equal(eval_on("udp.bps * 1e308 > 0", NAN, &r, "udp.bps", 10.0, NULL),
			 CHECK_ERROR);
	assert_non_null(strstr(r.err, "not a finite number"));
	check_result_release(&r);
}

static void test_check__subject_on_the_right_is_turned_round(void **state)
{
	struct check_result r;

	assert_int_equal(eval_on("10 < udp.sent", NAN, &r, "udp.sent", 100.0, NULL), CHECK_PASS);
	assert_true(r.value == 100 && r.bound == 10);
	assert_int_equal(r.op, CHECK_GT);
	assert_string_equal(check_op_str(r.op), ">");
}

static void test_check__value_and_bound_come_from_first_comparison(void **state)
{
	struct check_result r;

	assert_int_equal(eval_on("udp.received + udp.late == udp.sent and udp.lost < 5", NAN, &r,
				 "udp.received", 90.0, "udp.late", 3.0, "udp.sent", 100.0,
				 "udp.lost", 0.0, NULL),
			 CHECK_FAIL);
	assert_true(r.value == 93 && r.bound == 100 && r.op == CHECK_EQ);
}

static void test_check__equality_is_exact(void **state)
{
	/* Integer counts compare exactly, even large ones... */
	assert_int_equal(eval_x("x.v == 9007199254740992", 9007199254740992.0), CHECK_PASS);
	assert_int_equal(eval_x("x.v == 9007199254740991", 9007199254740992.0), CHECK_FAIL);
	/* ...and fractions are not rounded: 0.1 + 0.2 is not 0.3. */
	assert_int_equal(eval_x("x.v == 0.3", 0.1 + 0.2), CHECK_FAIL);
}

static void test_check__status_names(void **state)
{
	assert_string_equal(check_status_name(CHECK_PASS), "pass");
	assert_string_equal(check_status_name(CHECK_NOT_MEASURED), "not-measured");
	assert_string_equal(check_status_name(CHECK_NO_BASELINE), "no-baseline");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check__simple_comparison_passes_and_fails),
		cmocka_unit_test(test_check__every_comparison_operator),
		cmocka_unit_test(test_check__multiplication_binds_tighter_than_addition),
		cmocka_unit_test(test_check__parentheses_override_precedence),
		cmocka_unit_test(test_check__operators_are_left_associative),
		cmocka_unit_test(test_check__unary_minus),
		cmocka_unit_test(test_check__number_forms_and_suffixes),
		cmocka_unit_test(test_check__and_binds_tighter_than_or),
		cmocka_unit_test(test_check__not_binds_tighter_than_and),
		cmocka_unit_test(test_check__parenthesized_logic),
		cmocka_unit_test(test_check__subject_is_first_metric_named),
		cmocka_unit_test(test_check__baseline_refers_to_subject),
		cmocka_unit_test(test_check__names_with_digit_components_and_labels),
		cmocka_unit_test(test_check__per_nic_stage_metric_in_a_check),
		cmocka_unit_test(test_check__metrics_used_in_order_with_columns),
		cmocka_unit_test(test_check__syntax_errors_name_column_and_expectation),
		cmocka_unit_test(test_check__rejects_overflowing_numbers_and_division_by_zero),
		cmocka_unit_test(test_check__missing_metric_is_not_measured_not_fail),
		cmocka_unit_test(test_check__missing_metric_after_decided_or_still_errors),
		cmocka_unit_test(test_check__baseline_missing_is_an_error_with_hint),
		cmocka_unit_test(test_check__division_by_zero_is_an_error_not_inf),
		cmocka_unit_test(test_check__overflow_is_an_error),
		cmocka_unit_test(test_check__subject_on_the_right_is_turned_round),
		cmocka_unit_test(test_check__value_and_bound_come_from_first_comparison),
		cmocka_unit_test(test_check__equality_is_exact),
		cmocka_unit_test(test_check__status_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
