/* SPDX-License-Identifier: GPL-2.0 */
/* What regress-ci.c (KTAP, JUnit) shares of regress-out.c (table, JSON). */
#ifndef NETLAB_REGRESS_INT_H
#define NETLAB_REGRESS_INT_H

#include <stdio.h>

#include "scenario/regress.h"

/* "-" for NAN, an integer as such, else %.4g. */
void regress_fmt_num(char *buf, size_t n, double v);
/* The check's value, with "[min..max]" over the runs when they differ. */
void regress_fmt_value(char *buf, size_t n, const struct regress_check *rc, unsigned int runs);
/* "stage moved: ..." when a latency check of rs failed, else NULL; caller frees. */
char *regress_explain(const struct regress_scn *rs);
/* Each line of text (NULL: none) to f, after prefix. */

#endif /* NETLAB_REGRESS_INT_H */
