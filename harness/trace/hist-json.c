// SPDX-License-Identifier: GPL-2.0
/*
 * A histogram's summary in JSON (see hist-json.h).
 */
#include <stdio.h>

#include "lib/jsonout.h"
#include "trace/hist-json.h"

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

struct json_object *json_seconds(uint64_t ns)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu.%09llu", (unsigned long long)(ns / 1000000000ull),
		 (unsigned long long)(ns % 1000000000ull));
	return json_object_new_double_s((double)ns / 1e9, buf);
}

struct json_object *json_trace_head(const struct json_trace_head *h)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "file", json_object_new_string(h->path));
	json_object_object_add(o, "cpus", json_object_new_int(h->cpus));
	json_object_object_add(o, "buffers", json_object_new_int(h->buffers));
	json_object_object_add(o, "events", json_object_new_uint64(h->events));
	json_object_object_add(o, "first_ts", json_seconds(h->t0));
	json_object_object_add(o, "last_ts", json_seconds(h->last_ts));
	json_object_object_add(o, "lost_events", json_object_new_uint64(h->lost));
	json_object_object_add(o, "lost_gaps", json_object_new_uint64(h->lost_gaps));
	json_object_object_add(o, "lost_unknown", json_object_new_uint64(h->lost_unknown));
	return o;
}
