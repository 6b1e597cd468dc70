// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the check-expression parser: the input (cut at its first NUL) is
 * one expression, as on the right of "NAME = " in a [checks] section.
 * A check that parses is evaluated twice: on an empty metrics map with no
 * baseline (every check: not measured), and with each metric it names
 * set to 0, 1 or 2 (by the name's length) and a baseline of 2, so that the
 * arithmetic, the comparisons and the division-by-zero path run too.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/check.h"
#include "fuzz.h"
#include "lib/metrics.h"

static int set_metric(void *ctx, const char *name, unsigned int column)
{
	metrics_set(ctx, name, (double)(strlen(name) % 3));
	return 0;
}

static void eval(const struct check_expr *e, const struct metrics *m, double baseline)
{
	struct check_result res;

	check_eval(e, m, baseline, &res);
	check_status_name(res.status);
	check_op_str(res.op);
	check_result_release(&res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_str(data, size);
	struct check_expr *e = NULL;
	char *err = NULL;

	if (!check_parse(text, &e, &err)) {
		struct metrics *m = metrics_new();

		/* The strings a check hands out must outlive its source text. */
		free(text);
		text = NULL;
		if (strlen(check_text(e)) + strlen(check_subject(e)) == 0)
			abort();
		eval(e, m, NAN);
		check_metrics_used(e, set_metric, m);
		eval(e, m, check_uses_baseline(e) ? 2.0 : NAN);
		metrics_free(m);
		check_expr_free(e);
	}
	free(err);
	free(text);
	return 0;
}
