/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Scenario matrices: a [matrix] section names axes, each a scenario key with
 * the values it takes; every combination is a case of its own.
 *
 *	[matrix]
 *	nic.B = e1000 e1000e virtio-net
 *	size = 32 1472
 *	direction = A>B B>A
 *
 * gives 12 cases, named NAME[nic.B=e1000,size=32,direction=A>B] and so on
 * (axes in file order, the first varying slowest). An axis key is a
 * [scenario] key (nic.B, mtu.A, direction, ring.B.rx, ...), sysctl.NAME (a
 * [sysctl] key), traffic.NAME.KEY (a key of section [traffic.NAME]) or any
 * other word: a [traffic] key (generator, size, ...).
 *
 * A check may hold for some cases only: NAME[COND] = EXPR, where COND is
 * comma-separated terms that must all hold, each AXIS=VALUE, AXIS!=VALUE or
 * AXIS=V1|V2 (one of).
 *
 * Ownership: the functions that return strings or arrays allocate them; the
 * caller frees them (matrix_axis_free() for an axis' values).
 */
#ifndef NETLAB_MATRIX_H
#define NETLAB_MATRIX_H

#include <stdbool.h>
#include <stddef.h>

#include "scenario/scenario.h"

#define MATRIX_MAX_CASES 1024

/*
 * matrix_axis_parse() - one "KEY = V1 V2 ..." line of [matrix]
 * Return: 0 and ax filled (key, values, line); -EINVAL with *why for an
 * empty list, a repeated value or a value with characters a case name
 * cannot carry (',' '[' ']' '|' '=').
 */
int matrix_axis_parse(const char *key, const char *value, unsigned int line, struct scn_axis *ax,
		      char **why);
void matrix_axis_free(struct scn_axis *ax);
/* A deep copy of n axes. */
struct scn_axis *matrix_axes_dup(const struct scn_axis *axes, size_t n);

/* The number of cases (0 when over MATRIX_MAX_CASES). */
size_t matrix_n_cases(const struct scn_axis *axes, size_t n);
/* The values of case k: values[i] points into axes[i].values. */
void matrix_case_values(const struct scn_axis *axes, size_t n, size_t k, const char **values);
/*
 * Whether an axis value is the default of its key, left out of case names:
 * family = 4 (and traffic.NAME.family = 4), so that adding a family axis to
 * a matrix renames none of its IPv4 cases (nor their baselines).
 */
bool matrix_value_implied(const char *key, const char *value);
/* "k=v,k=v" of a case, without the implied values. */
char *matrix_case_id(const struct scn_axis *axes, size_t n, const char *const *values);

/* 0, or -EINVAL with *why: COND's syntax, its axes and values against the matrix. */
int matrix_cond_check(const char *cond, const struct scn_axis *axes, size_t n, char **why);
/* Whether a (checked) COND holds for the case with these values. */
bool matrix_cond_holds(const char *cond, const struct scn_axis *axes, size_t n,
		       const char *const *values);

#endif /* NETLAB_MATRIX_H */
