// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the scenario parser: the input is a .scn file, read with
 * scn_parse_cases() (every [matrix] case, each validated whole). Seeds:
 * tests/regress and tests/unit/fixtures/scenarios.
 */
#include <stdlib.h>

#include "fuzz.h"
#include "scenario/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("X.scn", data, size);
	struct scenario **cases = NULL;
	char *err = NULL;
	size_t n = 0;

	if (!scn_parse_cases(path, &cases, &n, &err)) {
		for (size_t i = 0; i < n; i++) {
			/* What a run asks of a parsed case, beyond its fields. */
			char *s = scn_file_name(cases[i]);

			free(s);
			free(scn_kernel_append(cases[i]));
			scn_free(cases[i]);
		}
		free(cases);
	}
	free(err);
	return 0;
}
