// SPDX-License-Identifier: GPL-2.0
/*
 * A histogram's summary in JSON (see hist-json.h).
 */
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
