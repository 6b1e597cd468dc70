// SPDX-License-Identifier: GPL-2.0
/*
 * JSON values shared by the report's analyses (see jsonout.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/esc.h"
#include "lib/jsonout.h"
#include "lib/util.h"

struct json_object *json_fixed(uint64_t v, uint64_t unit, int digits)
{
	char buf[40];

	snprintf(buf, sizeof(buf), "%llu.%0*llu", (unsigned long long)(v / unit), digits,
		 (unsigned long long)(v % unit));
	return json_object_new_double_s((double)v / (double)unit, buf);
}

struct json_object *json_us(uint64_t ns)
{
	return json_fixed(ns, 1000, 3);
}

struct json_object *json_real(double v, const char *fmt)
{
	char buf[40];

	snprintf(buf, sizeof(buf), fmt, v);
	return json_object_new_double_s(v, buf);
}

struct json_object *json_hist_summary(const struct hist_summary *s, bool unit_us)
{
	struct json_object *o = json_object_new_object();
	struct json_object *(*v)(uint64_t) = unit_us ? json_us : json_object_new_uint64;

	json_object_object_add(o, "count", json_object_new_uint64(s->count));
	json_object_object_add(o, "min", v(s->min));
	json_object_object_add(o, "p50", v(s->p50));
	json_object_object_add(o, "p90", v(s->p90));
	json_object_object_add(o, "p99", v(s->p99));
	json_object_object_add(o, "max", v(s->max));
	json_object_object_add(o, "mean", json_real(unit_us ? s->mean / 1e3 : s->mean, "%.3f"));
	return o;
}

char *json_text(struct json_object *o, int flags)
{
	const char *text = json_object_to_json_string_ext(o, flags);

	return text ? esc_json_text(text) : NULL;
}

int json_file_write(const char *path, struct json_object *o)
{
	char *text = json_text(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	int ret = text ? file_writef(path, "%s\n", text) : -ENOMEM;

	free(text);
	return ret;
}
