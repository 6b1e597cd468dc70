/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JSON values as the reports print them: fixed-point numbers whose text is
 * exact (json-c keeps the given text). A distribution (traffic/hist.h):
 * trace/hist-json.h.
 */
#ifndef NETLAB_JSONOUT_H
#define NETLAB_JSONOUT_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

/* v / unit with `digits` decimals, exactly: ns -> s is (v, 1000000000, 9). */
struct json_object *json_fixed(uint64_t v, uint64_t unit, int digits);
/* Nanoseconds as microseconds, 3 decimals. */
struct json_object *json_us(uint64_t ns);
/* A double printed with printf format `fmt` (e.g. "%.3f"). */
struct json_object *json_real(double v, const char *fmt);

/*
 * json_text() - @o serialized with json-c @flags (JSON_C_TO_STRING_*), made
 * valid UTF-8 and free of raw control characters (esc_json_text()): what
 * netlab prints or writes as JSON, whatever bytes a guest or a file put in
 * its strings. NULL when out of memory; caller frees.
 */
char *json_text(struct json_object *o, int flags);

/*
 * json_file_write() - `o` as pretty JSON (slashes unescaped) and a newline,
 * made safe by json_text(), written whole to `path` or not at all
 * (file_write()). 0 or -errno.
 */
int json_file_write(const char *path, struct json_object *o);

/* The most a JSON file netlab reads may hold (result.json, summary.json, bisect.json, ...). */
#define JSON_FILE_MAX (64u << 20)

/*
 * json_file_read() - @path parsed as JSON into *@out (the caller puts it),
 * reading at most JSON_FILE_MAX bytes: a larger file is refused before it
 * is read. Returns 0; -ENOENT or another -errno when it cannot be opened;
 * -EFBIG when it is larger ("PATH: N bytes, more than the 64 MiB a netlab
 * JSON file holds"); -EINVAL when it is not JSON. *@why (may be NULL) gets
 * the reason, naming @path; the caller frees it.
 */
int json_file_read(const char *path, struct json_object **out, char **why);
/* json_file_read() where a missing, large or bad file is only NULL. */
struct json_object *json_file_get(const char *path);

#endif /* NETLAB_JSONOUT_H */
