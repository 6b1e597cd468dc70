// SPDX-License-Identifier: GPL-2.0
/*
 * JSON result helpers: see tjson.h.
 */
#define _GNU_SOURCE
#include <json-c/json.h>
#include <string.h>

#include "hist.h"
#include "tjson.h"

/* A double in its shortest exact-enough form, always with a point: 0.2, 10.0. */
struct json_object *tjson_new_double(double v)
{
	char s[64];

	snprintf(s, sizeof(s), "%.15g", v);
	if (!strpbrk(s, ".eni"))
		strcat(s, ".0");
	return json_object_new_double_s(v, s);
}

void tjson_u64(struct json_object *o, const char *key, uint64_t v)
{
	json_object_object_add(o, key, json_object_new_uint64(v));
}

/* A double printed with @decimals digits after the point. */
void tjson_double(struct json_object *o, const char *key, double v, int decimals)
{
	char s[64];

	snprintf(s, sizeof(s), "%.*f", decimals, v);
	json_object_object_add(o, key, json_object_new_double_s(v, s));
}

void tjson_null(struct json_object *o, const char *key)
{
	json_object_object_add(o, key, NULL);
}

void tjson_str(struct json_object *o, const char *key, const char *s)
{
	json_object_object_add(o, key, s ? json_object_new_string(s) : NULL);
}

static void add_us(struct json_object *o, const char *key, const struct hist *h, double ns)
{
	if (h->count)
		tjson_double(o, key, ns / 1000.0, 3);
	else
		tjson_null(o, key);
}

/**
 * tjson_latency_us() - the latency summary of a histogram of ns values
 * @h: the histogram
 *
 * Keys: count, min, mean, p50, p90, p99, p99_9, max (microseconds, 3
 * decimals; null when count is 0). min, max and mean are exact, percentiles
 * within 1/256 (see hist.h).
 *
 * Return: a new object.
 */
struct json_object *tjson_latency_us(const struct hist *h)
{
	static const struct {
		const char *key;
		double p;
	} pct[] = {
		{ "p50", 50 },
		{ "p90", 90 },
		{ "p99", 99 },
		{ "p99_9", 99.9 },
	};
	struct json_object *o = json_object_new_object();
	size_t i;

	tjson_u64(o, "count", h->count);
	add_us(o, "min", h, (double)h->min);
	add_us(o, "mean", h, hist_mean(h));
	for (i = 0; i < sizeof(pct) / sizeof(pct[0]); i++)
		add_us(o, pct[i].key, h, (double)hist_percentile(h, pct[i].p));
	add_us(o, "max", h, (double)h->max);
	return o;
}

/* Count one failure with errno @errnum. */
void tjson_count_errno(uint64_t counts[TJSON_ERRNO_SLOTS], int errnum)
{
	counts[errnum > 0 && errnum < TJSON_ERRNO_SLOTS ? errnum : TJSON_ERRNO_SLOTS - 1]++;
}

uint64_t tjson_errno_total(const uint64_t counts[TJSON_ERRNO_SLOTS])
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < TJSON_ERRNO_SLOTS; i++)
		n += counts[i];
	return n;
}

/**
 * tjson_errnos() - errno counts as {"ENOBUFS": 12, ...}
 * @counts: counts indexed by errno
 *
 * Return: a new object, empty when nothing failed.
 */
struct json_object *tjson_errnos(const uint64_t counts[TJSON_ERRNO_SLOTS])
{
	struct json_object *o = json_object_new_object();
	const char *name;
	char num[16];
	int i;

	for (i = 0; i < TJSON_ERRNO_SLOTS; i++) {
		if (!counts[i])
			continue;
		name = strerrorname_np(i);
		if (!name) {
			snprintf(num, sizeof(num), "errno_%d", i);
			name = num;
		}
		tjson_u64(o, name, counts[i]);
	}
	return o;
}

/**
 * tjson_print_text() - print an object as "a.b.c = value" lines
 * @f: where to print
 * @o: the object
 * @prefix: key prefix, "" at the top
 */
void tjson_print_text(FILE *f, struct json_object *o, const char *prefix)
{
	struct json_object_iterator it = json_object_iter_begin(o), end = json_object_iter_end(o);
	struct json_object *v;
	char key[256];

	for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
		v = json_object_iter_peek_value(&it);
		snprintf(key, sizeof(key), "%s%s%s", prefix, *prefix ? "." : "",
			 json_object_iter_peek_name(&it));
		if (json_object_is_type(v, json_type_object))
			tjson_print_text(f, v, key);
		else if (json_object_is_type(v, json_type_string))
			fprintf(f, "%s = %s\n", key, json_object_get_string(v));
		else
			fprintf(f, "%s = %s\n", key, json_object_to_json_string(v));
	}
}
