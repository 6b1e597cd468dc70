// SPDX-License-Identifier: GPL-2.0
/*
 * Scenario matrices: axes, cases and check conditions (matrix.h).
 */
#include "scenario/matrix.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

void matrix_axis_free(struct scn_axis *ax)
{
	for (size_t i = 0; i < ax->n_values; i++)
		free(ax->values[i]);
	free(ax->values);
	free(ax->key);
	memset(ax, 0, sizeof(*ax));
}

int matrix_axis_parse(const char *key, const char *value, unsigned int line, struct scn_axis *ax,
		      char **why)
{
	char *copy = xstrdup(value), *save = NULL;
	int ret = 0;

	memset(ax, 0, sizeof(*ax));
	ax->key = xstrdup(key);
	ax->line = line;
	for (char *v = strtok_r(copy, " \t", &save); v && !ret; v = strtok_r(NULL, " \t", &save)) {
		if (strpbrk(v, ",[]|=")) {
			err_set(why, "bad value '%s' of axis '%s': a value cannot hold , [ ] | or =",
				v, key);
			ret = -EINVAL;
			break;
		}
		for (size_t i = 0; i < ax->n_values; i++) {
			if (!strcmp(ax->values[i], v)) {
				err_set(why, "axis '%s' lists '%s' twice", key, v);
				ret = -EINVAL;
			}
		}
		ax->values = xrealloc_array(ax->values, ax->n_values + 1, sizeof(*ax->values));
		ax->values[ax->n_values++] = xstrdup(v);
	}
	if (!ret && !ax->n_values) {
		err_set(why, "axis '%s' has no values", key);
		ret = -EINVAL;
	}
	free(copy);
	if (ret)
		matrix_axis_free(ax);
	return ret;
}

struct scn_axis *matrix_axes_dup(const struct scn_axis *axes, size_t n)
{
	struct scn_axis *out = xzalloc((n + 1) * sizeof(*out));

	for (size_t i = 0; i < n; i++) {
		out[i].key = xstrdup(axes[i].key);
		out[i].line = axes[i].line;
		out[i].n_values = axes[i].n_values;
		out[i].values = xzalloc((axes[i].n_values + 1) * sizeof(char *));
		for (size_t k = 0; k < axes[i].n_values; k++)
			out[i].values[k] = xstrdup(axes[i].values[k]);
	}
	return out;
}

size_t matrix_n_cases(const struct scn_axis *axes, size_t n)
{
	size_t total = 1;

	for (size_t i = 0; i < n; i++) {
		total *= axes[i].n_values;
		if (total > MATRIX_MAX_CASES)
			return 0;
	}
	return total;
}

void matrix_case_values(const struct scn_axis *axes, size_t n, size_t k, const char **values)
{
	for (size_t i = n; i-- > 0;) {
		values[i] = axes[i].values[k % axes[i].n_values];
		k /= axes[i].n_values;
	}
}

bool matrix_value_implied(const char *key, const char *value)
{
	const char *dot = strrchr(key, '.');
	const char *k = !strncmp(key, "traffic.", 8) && dot ? dot + 1 : key;

	return !strcmp(k, "family") && !strcmp(value, "4");
}

char *matrix_case_id(const struct scn_axis *axes, size_t n, const char *const *values)
{
	struct sbuf b;

	sbuf_init(&b);
	for (size_t i = 0; i < n; i++)
		if (!matrix_value_implied(axes[i].key, values[i]))
			sbuf_addf(&b, "%s%s=%s", b.len ? "," : "", axes[i].key, values[i]);
	return sbuf_detach(&b);
}

static const struct scn_axis *axis_find(const struct scn_axis *axes, size_t n, const char *key,
					size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(axes[i].key) == len && !strncmp(axes[i].key, key, len))
			return &axes[i];
	return NULL;
}

static bool axis_has(const struct scn_axis *ax, const char *v, size_t len)
{
	for (size_t i = 0; i < ax->n_values; i++)
		if (strlen(ax->values[i]) == len && !strncmp(ax->values[i], v, len))
			return true;
	return false;
}

/*
 * Walk the terms of cond. For each: the axis, whether it is negated, and
 * the alternatives "v1|v2". Returns -EINVAL with *why on the first bad term.
 */
typedef bool (*term_fn)(const struct scn_axis *ax, size_t ax_index, bool neg, const char *alts,
			size_t len, void *ctx);

static int cond_walk(const char *cond, const struct scn_axis *axes, size_t n, term_fn fn,
		     void *ctx, char **why)
{
	const char *t = cond;

	for (;;) {
		size_t len = strcspn(t, ","), klen = strcspn(t, "!=");
		bool neg = klen < len && t[klen] == '!';
		const char *vals = t + klen + (neg ? 2 : 1);
		const struct scn_axis *ax = axis_find(axes, n, t, klen);

		if (klen >= len || (neg && t[klen + 1] != '=') || vals > t + len || !klen) {
			err_set(why, "bad condition '%.*s': expected AXIS=VALUE, AXIS!=VALUE or AXIS=V1|V2",
				(int)len, t);
			return -EINVAL;
		}
		if (!ax) {
			err_set(why, "condition '%.*s': no axis '%.*s' in [matrix]", (int)len, t,
				(int)klen, t);
			return -EINVAL;
		}
		if (!fn(ax, (size_t)(ax - axes), neg, vals, (size_t)(t + len - vals), ctx)) {
			err_set(why, "condition '%.*s': a value is not one of axis '%s''s", (int)len,
				t, ax->key);
			return -EINVAL;
		}
		if (!t[len])
			return 0;
		t += len + 1;
	}
}

/* Every alternative of a term is a value of its axis. */
static bool term_valid(const struct scn_axis *ax, size_t i, bool neg, const char *alts, size_t len,
		       void *ctx)
{
	const char *end = alts + len;

	(void)i, (void)neg, (void)ctx;
	while (alts <= end) {
		size_t n = strcspn(alts, "|,");

		if (alts + n > end)
			n = (size_t)(end - alts);
		if (!n || !axis_has(ax, alts, n))
			return false;
		alts += n + 1;
	}
	return true;
}

int matrix_cond_check(const char *cond, const struct scn_axis *axes, size_t n, char **why)
{
	if (!n) {
		err_set(why, "a condition [%s] needs a [matrix] section", cond);
		return -EINVAL;
	}
	return cond_walk(cond, axes, n, term_valid, NULL, why);
}

struct holds_ctx {
	const char *const *values;
	bool holds;
};

static bool term_holds(const struct scn_axis *ax, size_t i, bool neg, const char *alts, size_t len,
		       void *ctx)
{
	struct holds_ctx *h = ctx;
	const char *end = alts + len, *v = h->values[i];
	bool any = false;

	(void)ax;
	while (alts <= end) {
		size_t n = strcspn(alts, "|,");

		if (alts + n > end)
			n = (size_t)(end - alts);
		any |= strlen(v) == n && !strncmp(v, alts, n);
		alts += n + 1;
	}
	if (any == neg)
		h->holds = false;
	return true;
}

bool matrix_cond_holds(const char *cond, const struct scn_axis *axes, size_t n,
		       const char *const *values)
{
	struct holds_ctx h = { .values = values, .holds = true };

	if (cond_walk(cond, axes, n, term_holds, &h, NULL))
		return false;
	return h.holds;
}
