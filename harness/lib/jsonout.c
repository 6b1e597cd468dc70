// SPDX-License-Identifier: GPL-2.0
/*
 * JSON values shared by the report's analyses (see jsonout.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

static int too_big(const char *path, unsigned long long n, char **why)
{
	err_set(why, "'%s': %llu bytes, more than the %u MiB a netlab JSON file holds", path, n,
		JSON_FILE_MAX >> 20);
	return -EFBIG;
}

int json_file_read(const char *path, struct json_object **out, char **why)
{
	struct json_tokener *tok;
	enum json_tokener_error je;
	char *data = NULL;
	size_t len = 0;
	int ret = file_read_max(path, JSON_FILE_MAX, &data, &len);

	*out = NULL;
	if (ret == -EFBIG) {
		struct stat st;

		return too_big(path, stat(path, &st) ? (unsigned long long)len
					: (unsigned long long)st.st_size, why);
	}
	if (ret) {
		err_set(why, "'%s': %s", path, strerror(-ret));
		return ret;
	}
	tok = json_tokener_new();
	*out = json_tokener_parse_ex(tok, data, (int)len);
	je = json_tokener_get_error(tok);
	if (*out && je == json_tokener_success) {
		/* One value, then only white space. */
		size_t at = (size_t)tok->char_offset;

		at += strspn(data + at, " \t\r\n");
		if (at != len)
			je = json_tokener_error_parse_unexpected;
	}
	if (!*out || je != json_tokener_success) {
		json_object_put(*out);
		*out = NULL;
		err_set(why, "'%s': not JSON (%s)", path, je == json_tokener_continue ||
			je == json_tokener_success ? "it ends early" : json_tokener_error_desc(je));
		ret = -EINVAL;
	}
	json_tokener_free(tok);
	free(data);
	return ret;
}

struct json_object *json_file_get(const char *path)
{
	struct json_object *o;

	json_file_read(path, &o, NULL);
	return o;
}
