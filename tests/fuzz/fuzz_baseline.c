// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the baselines reader: the input is a NAME.baseline.json file read
 * with baseline_load(); what it returns is walked and written back as JSON
 * the way `netlab regress` prints it. Its "_spread" and "_stages" are read
 * with baseline_load_extra(). Seeds: the NAME.baseline.json files of
 * tests/regress.
 */
#include <stdlib.h>

#include <json-c/json.h>

#include "scenario/baseline.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("X.baseline.json", data, size);
	struct metrics *m = NULL;
	char *err = NULL;

	if (!baseline_load(path, &m, &err)) {
		struct json_object *j;

		for (size_t i = 0; i < metrics_count(m); i++) {
			const char *name;
			double v;

			metrics_at(m, i, &name, &v);
			json_object_put(metrics_json_number(v));
		}
		j = metrics_to_json(m);
		json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY);
		json_object_put(j);
		metrics_free(m);
	}
	free(err);
	err = NULL;
	{
		/* "_spread" and "_stages", as netlab regress and bisect read them. */
		struct baseline_extra x;

		if (!baseline_load_extra(path, &x, &err))
			metrics_free(baseline_stages(&x, NULL));
		baseline_extra_release(&x);
	}
	free(err);
	return 0;
}
