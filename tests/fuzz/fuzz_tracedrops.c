// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the trace.dat reader of `netlab report`: the input is a trace.dat
 * read with tracedrops_read() in this process (tracefile_open() and
 * libtracecmd), each drop turned into JSON as --json does, then the
 * aggregate. Seeds: the trace.dat fixtures, copied at run time (they are
 * ~500 KB each). libtracecmd and libtraceevent are not instrumented, so
 * coverage counts netlab's code only; memory errors in them are caught by
 * ASan's interceptors only where they go through libc.
 */
#include <stdlib.h>

#include <json-c/json.h>

#include "fuzz.h"
#include "trace/tracedrops.h"

static int on_drop(void *ctx, const struct tracedrops_drop *d)
{
	json_object_put(tracedrops_drop_to_json(d));
	tracedrops_proto_name(d->protocol);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("trace.dat", data, size);
	const struct tracedrops_opts o = { .on_drop = on_drop };
	struct tracedrops *td = NULL;
	char *err = NULL;

	if (!tracedrops_read(path, &o, &td, &err)) {
		for (size_t i = 0; i < td->n_intervals; i++)
			tracedrops_interval_start(td, &td->intervals[i]);
		json_object_put(tracedrops_to_json(td));
		tracedrops_free(td);
	}
	free(err);
	return 0;
}
