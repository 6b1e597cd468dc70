// SPDX-License-Identifier: GPL-2.0
/*
 * Baselines files: read into struct metrics, updated in place with the
 * subjects of a scenario's `baseline` checks.
 */
#include "scenario/baseline.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "lib/util.h"

/* Two-space indent, "key": value, one entry a line: reviewable diffs. */
#define JSON_FORMAT \
	(JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

char *baseline_path(const char *scn_path)
{
	size_t len = strlen(scn_path);

	if (len > 4 && !strcmp(scn_path + len - 4, ".scn"))
		len -= 4;
	return xasprintf("%.*s.baseline.json", (int)len, scn_path);
}

static unsigned int line_at(const char *text, size_t off)
{
	unsigned int line = 1;

	for (size_t i = 0; i < off && text[i]; i++)
		line += text[i] == '\n';
	return line;
}

/*
 * The first key the top-level object of (valid JSON) text holds twice, as
 * an offset into text, or -1. json-c keeps the last silently; a baseline
 * written twice is a merge gone wrong, not a value to pick from.
 */
static long duplicate_key(const char *text)
{
	const char *p = text, **keys = NULL;
	size_t *lens = NULL, n = 0;
	int depth = 0;
	long found = -1;

	for (; *p && found < 0; p++) {
		/* json-c reads comments too: skip them, with their quotes. */
		if (p[0] == '/' && p[1] == '/') {
			p += strcspn(p, "\n");
			if (!*p)
				break;
		} else if (p[0] == '/' && p[1] == '*') {
			const char *end = strstr(p + 2, "*/");

			if (!end)
				break;
			p = end + 1;
		} else if (*p == '{' || *p == '[') {
			depth++;
		} else if (*p == '}' || *p == ']') {
			depth--;
		} else if (*p == '"') {
			const char *start = ++p;

			for (; *p && *p != '"'; p++)
				if (*p == '\\' && p[1])
					p++;
			if (!*p)
				break;
			if (depth == 1 && p[1 + strspn(p + 1, " \t\r\n")] == ':') {
				size_t len = (size_t)(p - start);

				for (size_t i = 0; i < n && found < 0; i++)
					if (lens[i] == len && !strncmp(keys[i], start, len))
						found = start - text;
				keys = xrealloc_array(keys, n + 1, sizeof(*keys));
				lens = xrealloc_array(lens, n + 1, sizeof(*lens));
				keys[n] = start;
				lens[n++] = len;
			}
		}
	}
	free(keys);
	free(lens);
	return found;
}

/* Parse text as one JSON object; errors name path and line. */
static int parse_object(const char *path, const char *text, struct json_object **out, char **err)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o;
	enum json_tokener_error jerr;
	size_t end;
	long dup;

	/* json-c reads NaN and Infinity too: baseline_load() refuses what is not finite. */
	o = json_tokener_parse_ex(tok, text, -1);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!o && jerr == json_tokener_success) {
		err_set(err, "%s: expected a JSON object of metric values, not null", path);
		return -EINVAL;
	}
	if (!o) {
		err_set(err, "%s:%u: invalid JSON: %s", path, line_at(text, end),
			jerr == json_tokener_continue || jerr == json_tokener_error_parse_eof
				? "unexpected end of file"
				: json_tokener_error_desc(jerr));
		return -EINVAL;
	}
	/* After a comment that runs to the end of the text ("{} // c", no
	 * newline), json-c's parse end counts the terminating NUL too. */
	if (end > strlen(text))
		end = strlen(text);
	end += strspn(text + end, " \t\r\n");
	if (text[end]) {
		err_set(err, "%s:%u: invalid JSON: unexpected text after the object", path,
			line_at(text, end));
		json_object_put(o);
		return -EINVAL;
	}
	if (!json_object_is_type(o, json_type_object)) {
		err_set(err, "%s: expected a JSON object of metric values", path);
		json_object_put(o);
		return -EINVAL;
	}
	dup = duplicate_key(text);
	if (dup >= 0) {
		err_set(err, "%s:%u: key '%.*s' appears twice", path, line_at(text, (size_t)dup),
			(int)strcspn(text + dup, "\""), text + dup);
		json_object_put(o);
		return -EINVAL;
	}
	*out = o;
	return 0;
}

/* The file's object; a missing file gives an empty one. */
static int read_object(const char *path, struct json_object **out, char **err)
{
	char *text;
	int ret = file_read(path, &text, NULL);

	if (ret == -ENOENT) {
		*out = json_object_new_object();
		return 0;
	}
	if (ret) {
		err_set(err, "%s: %s", path, strerror(-ret));
		return ret;
	}
	ret = parse_object(path, text, out, err);
	free(text);
	return ret;
}

int baseline_load(const char *path, struct metrics **out, char **err)
{
	struct json_object *o;
	struct metrics *m;
	int ret = read_object(path, &o, err);

	if (ret)
		return ret;
	m = metrics_new();
	json_object_object_foreach(o, key, val) {
		if (key[0] == '_')
			continue;
		if (!json_object_is_type(val, json_type_int) &&
		    !json_object_is_type(val, json_type_double)) {
			err_set(err, "%s: the value of '%s' is not a number", path, key);
			ret = -EINVAL;
			break;
		}
		if (!isfinite(json_object_get_double(val))) {
			err_set(err, "%s: the value of '%s' is not a finite number", path, key);
			ret = -EINVAL;
			break;
		}
		metrics_set(m, key, json_object_get_double(val));
	}
	json_object_put(o);
	if (ret) {
		metrics_free(m);
		return ret;
	}
	*out = m;
	return 0;
}

char *baseline_key(const struct scenario *scn, const char *subject)
{
	return scn && scn->case_id ? xasprintf("%s[%s]", subject, scn->case_id)
				   : xstrdup(subject);
}

double baseline_value(const struct metrics *b, const struct scenario *scn,
		      const struct check_expr *e)
{
	char *key;
	double v;
	bool ok;

	if (!b || !check_subject(e))
		return NAN;
	key = baseline_key(scn, check_subject(e));
	ok = metrics_get(b, key, &v);
	free(key);
	return ok ? v : NAN;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A copy of o with the keys of it, and of the objects in it, sorted. */
static struct json_object *sorted_copy(struct json_object *o)
{
	size_t n, i = 0;
	const char **keys;
	struct json_object *out;

	if (!json_object_is_type(o, json_type_object))
		return json_object_get(o);
	n = (size_t)json_object_object_length(o);
	keys = xzalloc(n * sizeof(*keys));
	json_object_object_foreach(o, k, v) {
		(void)v;
		keys[i++] = k;
	}
	if (n > 1)	/* qsort(NULL, 0) is undefined */
		qsort(keys, n, sizeof(*keys), cmp_str);
	out = json_object_new_object();
	for (i = 0; i < n; i++)
		json_object_object_add(out, keys[i],
				       sorted_copy(json_object_object_get(o, keys[i])));
	free(keys);
	return out;
}

static struct json_object *meta_json(const struct baseline_meta *meta)
{
	struct json_object *o = json_object_new_object();
	char now[32];
	struct tm tm;
	time_t t;

	if (meta->kernel)
		json_object_object_add(o, "kernel", json_object_new_string(meta->kernel));
	if (meta->netlab_version)
		json_object_object_add(o, "netlab_version",
				       json_object_new_string(meta->netlab_version));
	if (!meta->date) {
		t = time(NULL);
		strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	}
	json_object_object_add(o, "date", json_object_new_string(meta->date ? meta->date : now));
	if (meta->repeat)
		json_object_object_add(o, "repeat", json_object_new_int64(meta->repeat));
	return o;
}

/* Set the subject of every `baseline` check in o; nothing when one is missing. */
static int set_subjects(struct json_object *o, const struct scenario *scn,
			const struct metrics *measured, char **err)
{
	double v;

	for (size_t i = 0; i < scn->n_checks; i++) {
		const struct check_expr *e = scn->checks[i].expr;

		if (!check_uses_baseline(e) || metrics_get(measured, check_subject(e), NULL))
			continue;
		err_set(err, "%s: cannot update the baseline of check '%s': '%s' was not measured",
			scn->path, scn->checks[i].name, check_subject(e));
		return -EINVAL;
	}
	for (size_t i = 0; i < scn->n_checks; i++) {
		const struct check_expr *e = scn->checks[i].expr;
		char *key;

		if (!check_uses_baseline(e))
			continue;
		metrics_get(measured, check_subject(e), &v);
		key = baseline_key(scn, check_subject(e));
		json_object_object_add(o, key, metrics_json_number(v));
		free(key);
	}
	return 0;
}

int baseline_update(const char *path, const struct scenario *scn, const struct metrics *measured,
		    const struct baseline_meta *meta, char **err)
{
	struct json_object *o, *sorted;
	char *text;
	int ret = read_object(path, &o, err);

	if (ret)
		return ret;
	ret = set_subjects(o, scn, measured, err);
	if (ret)
		goto out;
	if (meta)
		json_object_object_add(o, "_meta", meta_json(meta));
	sorted = sorted_copy(o);
	text = xasprintf("%s\n", json_object_to_json_string_ext(sorted, JSON_FORMAT));
	json_object_put(sorted);
	ret = file_write_sync(path, text, strlen(text));
	if (ret)
		err_set(err, "%s: cannot write: %s", path, strerror(-ret));
	free(text);
out:
	json_object_put(o);
	return ret;
}
