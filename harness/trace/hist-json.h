/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A distribution as the trace analyses print it in JSON: the summary of a
 * traffic/hist.h histogram (the generators' latency histogram, which the
 * analyses use too). Here, not in lib/jsonout.h: lib/ needs nothing of
 * traffic/.
 */
#ifndef NETLAB_HIST_JSON_H
#define NETLAB_HIST_JSON_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

#include "hist.h"

/* What every analysis's JSON says of the trace it read ("trace": {...}). */
struct json_trace_head {
	const char *path;
	int cpus, buffers;
	uint64_t events, t0, last_ts, lost, lost_gaps, lost_unknown;
};

/* {file, cpus, buffers, events, first_ts, last_ts, lost_events, lost_gaps, lost_unknown} */
struct json_object *json_trace_head(const struct json_trace_head *h);
/* @ns as seconds, printed with nine decimals. */
struct json_object *json_seconds(uint64_t ns);

/* {count, min, p50, p90, p99, max, mean}; unit_us: values are ns, shown in µs. */
struct json_object *json_hist_summary(const struct hist_summary *s, bool unit_us);

#endif /* NETLAB_HIST_JSON_H */
