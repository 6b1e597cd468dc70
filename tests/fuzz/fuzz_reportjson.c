// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the JSON that netlab report --json and every JSON file netlab writes
 * go through (lib/jsonout.h json_text()), with what a run directory gives
 * it: any JSON document json-c accepts (it lets invalid UTF-8 and control
 * characters through in strings) as the object, and the same bytes as the
 * run's result.json, whose "kernel" the report copies
 * (run_result_kernel_json()).
 *
 * Input: a JSON document. Invariants (abort() when broken): the text is
 * valid UTF-8 with no raw control character but newline and tab and no DEL
 * or C1 control, and it parses back to a value of the same type (when
 * json-c's own text of it does).
 */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "fuzz.h"
#include "lib/esc.h"
#include "lib/jsonout.h"
#include "lib/provenance.h"
#include "run/result.h"

static void check(struct json_object *o, int flags)
{
	char *text = json_text(o, flags);
	struct json_object *back;

	if (!text)
		return;
	if (!esc_utf8_valid(text))
		abort();
	for (const unsigned char *p = (const unsigned char *)text; *p; p++)
		if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f ||
		    (p[0] == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0))
			abort();
	/* Parses back when json-c's own text does (it prints some numbers it
	 * accepted, "0E", as they came: not JSON). */
	back = json_tokener_parse(json_object_to_json_string_ext(o, flags));
	if (o && back && json_object_get_type(back) == json_object_get_type(o)) {
		json_object_put(back);
		back = json_tokener_parse(text);
		if (!back || json_object_get_type(back) != json_object_get_type(o))
			abort();
	}
	json_object_put(back);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size), *dir;
	const char *path = fuzz_file("result.json", (const uint8_t *)s, strlen(s));
	struct json_object *o = json_tokener_parse(s), *r = json_object_new_object();

	dir = strdup(path);
	if (!dir)
		abort();
	*strrchr(dir, '/') = '\0';
	json_object_object_add(r, "kernel", run_result_kernel_json(dir));
	json_object_object_add(r, "given", json_object_get(o));
	provenance_add(r);
	check(o, JSON_C_TO_STRING_PLAIN);
	check(r, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
	json_object_put(o);
	json_object_put(r);
	free(dir);
	free(s);
	return 0;
}
