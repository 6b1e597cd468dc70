// SPDX-License-Identifier: GPL-2.0
/*
 * Baselines files: read into struct metrics, updated in place with the
 * subjects of a scenario's `baseline` checks.
 */
#include "scenario/baseline.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "lib/jsonout.h"
#include "lib/provenance.h"
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

static bool is_number(struct json_object *v)
{
	return json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double);
}

/* A finite number, or -EINVAL naming the file, the object (may be "") and the key. */
static int number_at(const char *path, const char *in, const char *key, struct json_object *val,
		     char **err)
{
	if (!is_number(val)) {
		err_set(err, "%s: %sthe value of '%s' is not a number", path, in, key);
		return -EINVAL;
	}
	if (!isfinite(json_object_get_double(val))) {
		err_set(err, "%s: %sthe value of '%s' is not a finite number", path, in, key);
		return -EINVAL;
	}
	return 0;
}

/* "_stages": an object of finite numbers; into m (may be NULL: only checked). */
static int read_stages(const char *path, struct json_object *o, struct metrics *m, char **err)
{
	if (!json_object_is_type(o, json_type_object)) {
		err_set(err, "%s: '_stages' is not an object of stage latencies", path);
		return -EINVAL;
	}
	json_object_object_foreach(o, key, val) {
		if (number_at(path, "_stages: ", key, val, err))
			return -EINVAL;
		if (m)
			metrics_set(m, key, json_object_get_double(val));
	}
	return 0;
}

/* One entry of "_spread": { "max": .., "min": .., "n": .. }, min <= max, n >= 1. */
static int read_spread_entry(const char *path, const char *key, struct json_object *val,
			     struct baseline_spread *sp, char **err)
{
	struct json_object *min, *max, *n;

	if (!json_object_is_type(val, json_type_object) ||
	    !json_object_object_get_ex(val, "min", &min) ||
	    !json_object_object_get_ex(val, "max", &max) ||
	    !json_object_object_get_ex(val, "n", &n) || !is_number(min) || !is_number(max) ||
	    !json_object_is_type(n, json_type_int)) {
		err_set(err, "%s: _spread: the entry of '%s' is not { \"min\": NUMBER, \"max\": NUMBER, \"n\": RUNS }",
			path, key);
		return -EINVAL;
	}
	sp->min = json_object_get_double(min);
	sp->max = json_object_get_double(max);
	if (!isfinite(sp->min) || !isfinite(sp->max) || sp->min > sp->max) {
		err_set(err, "%s: _spread: the entry of '%s' has no finite min <= max", path, key);
		return -EINVAL;
	}
	if (json_object_get_int64(n) < 1 || json_object_get_int64(n) > UINT_MAX) {
		err_set(err, "%s: _spread: the entry of '%s' has n %s, not a count of runs", path,
			key, json_object_get_string(n));
		return -EINVAL;
	}
	sp->n = (unsigned int)json_object_get_int64(n);
	return 0;
}

/* "_spread": an object of entries; into x (may be NULL: only checked). */
static int read_spread(const char *path, struct json_object *o, struct baseline_extra *x,
		       char **err)
{
	if (!json_object_is_type(o, json_type_object)) {
		err_set(err, "%s: '_spread' is not an object of per-subject spreads", path);
		return -EINVAL;
	}
	json_object_object_foreach(o, key, val) {
		struct baseline_spread sp;

		if (read_spread_entry(path, key, val, &sp, err))
			return -EINVAL;
		if (!x)
			continue;
		x->spread = xrealloc_array(x->spread, x->n_spread + 1, sizeof(*x->spread));
		x->spread[x->n_spread].key = xstrdup(key);
		x->spread[x->n_spread++].s = sp;
	}
	return 0;
}

/* The keys starting with '_' that netlab reads; others ("_meta") are skipped. */
static int read_extra(const char *path, struct json_object *o, struct baseline_extra *x,
		      char **err)
{
	struct json_object *v;

	if (json_object_object_get_ex(o, "_stages", &v)) {
		if (x)
			x->stages = metrics_new();
		if (read_stages(path, v, x ? x->stages : NULL, err))
			return -EINVAL;
	}
	if (json_object_object_get_ex(o, "_spread", &v) && read_spread(path, v, x, err))
		return -EINVAL;
	return 0;
}

static int read_values(const char *path, struct json_object *o, struct metrics *m, char **err)
{
	json_object_object_foreach(o, key, val) {
		if (key[0] == '_')
			continue;
		if (number_at(path, "", key, val, err))
			return -EINVAL;
		metrics_set(m, key, json_object_get_double(val));
	}
	return 0;
}

/* The file's values into *out (may be NULL), its extras into x (may be NULL). */
static int load(const char *path, struct metrics **out, struct baseline_extra *x, char **err)
{
	struct json_object *o;
	struct metrics *m;
	int ret = read_object(path, &o, err);

	if (ret)
		return ret;
	m = metrics_new();
	ret = read_values(path, o, m, err);
	if (!ret)
		ret = read_extra(path, o, x, err);
	json_object_put(o);
	if (ret || !out) {
		metrics_free(m);
		if (ret && x)
			baseline_extra_release(x);
		return ret;
	}
	*out = m;
	return 0;
}

int baseline_load(const char *path, struct metrics **out, char **err)
{
	return load(path, out, NULL, err);
}

int baseline_load_extra(const char *path, struct baseline_extra *x, char **err)
{
	memset(x, 0, sizeof(*x));
	return load(path, NULL, x, err);
}

void baseline_extra_release(struct baseline_extra *x)
{
	for (size_t i = 0; i < x->n_spread; i++)
		free(x->spread[i].key);
	free(x->spread);
	metrics_free(x->stages);
	memset(x, 0, sizeof(*x));
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

bool baseline_spread(const struct baseline_extra *x, const struct scenario *scn,
		     const struct check_expr *e, struct baseline_spread *out)
{
	char *key;
	bool found = false;

	if (!x || !check_subject(e))
		return false;
	key = baseline_key(scn, check_subject(e));
	for (size_t i = 0; i < x->n_spread && !found; i++) {
		if (strcmp(x->spread[i].key, key))
			continue;
		*out = x->spread[i].s;
		found = true;
	}
	free(key);
	return found;
}

/*
 * The metric name of a "_stages" key of case suffix sfx ("[k=v]", or "" for
 * a scenario without a matrix), or NULL when the key is another case's.
 * Caller frees.
 */
static char *stage_name(const char *key, const char *sfx)
{
	size_t kl = strlen(key), sl = strlen(sfx);

	if (kl <= sl || strcmp(key + kl - sl, sfx) || memchr(key, '[', kl - sl))
		return NULL;
	return xasprintf("%.*s", (int)(kl - sl), key);
}

struct metrics *baseline_stages(const struct baseline_extra *x, const struct scenario *scn)
{
	char *sfx = baseline_key(scn, "");
	struct metrics *m = metrics_new();

	for (size_t i = 0; x && x->stages && i < metrics_count(x->stages); i++) {
		const char *key;
		char *name;
		double v;

		metrics_at(x->stages, i, &key, &v);
		name = stage_name(key, sfx);
		if (name)
			metrics_set(m, name, v);
		free(name);
	}
	free(sfx);
	if (!metrics_count(m)) {
		metrics_free(m);
		return NULL;
	}
	return m;
}

bool baseline_is_stage_metric(const char *name)
{
	size_t n = strlen(name);

	if (strncmp(name, "latency.rx.", 11) && strncmp(name, "latency.tx.", 11))
		return false;
	/* latency.rx.<stage>.p50_us: a stage name of at least one character. */
	return (n > 11 + 7 && !strcmp(name + n - 7, ".p50_us")) ||
	       (n > 11 + 7 && !strcmp(name + n - 7, ".p90_us"));
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

static void meta_str(struct json_object *o, const char *key, const char *v)
{
	if (v)
		json_object_object_add(o, key, json_object_new_string(v));
}

static struct json_object *meta_json(const struct baseline_meta *meta)
{
	struct json_object *o = json_object_new_object();
	char now[32];

	json_object_object_add(o, "format_version", json_object_new_int(NETLAB_FORMAT_VERSION));
	meta_str(o, "kernel", meta->kernel);
	meta_str(o, "kernel_version", meta->kernel_version);
	meta_str(o, "kernel_cache_key", meta->kernel_cache_key);
	meta_str(o, "kernel_source", meta->kernel_source);
	meta_str(o, "kernel_config_sha256", meta->kernel_config_sha256);
	meta_str(o, "netlab_version", meta->netlab_version);
	meta_str(o, "netlab_commit", meta->netlab_commit);
	json_object_object_add(o, "date", json_object_new_string(
				      meta->date ? meta->date : provenance_utc_now(now, sizeof(now))));
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

/* The object o holds under key, created if missing. */
static struct json_object *child(struct json_object *o, const char *key)
{
	struct json_object *c;

	if (json_object_object_get_ex(o, key, &c))
		return c;
	c = json_object_new_object();
	json_object_object_add(o, key, c);
	return c;
}

/* Drop o's child key when it has nothing left. */
static void drop_if_empty(struct json_object *o, const char *key)
{
	struct json_object *c;

	if (json_object_object_get_ex(o, key, &c) && !json_object_object_length(c))
		json_object_object_del(o, key);
}

/* { "max": .., "min": .., "n": .. } of subj across runs; NULL when no run has it. */
static struct json_object *spread_json(struct metrics *const *runs, size_t n_runs,
				       const char *subj)
{
	double min = INFINITY, max = -INFINITY, v;
	struct json_object *o;
	unsigned int n = 0;

	for (size_t i = 0; i < n_runs; i++) {
		if (!metrics_get(runs[i], subj, &v))
			continue;
		min = fmin(min, v);
		max = fmax(max, v);
		n++;
	}
	if (!n)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "max", metrics_json_number(max));
	json_object_object_add(o, "min", metrics_json_number(min));
	json_object_object_add(o, "n", json_object_new_int64(n));
	return o;
}

/* "_spread": each `baseline` subject's values across the runs (none: the entry goes). */
static void set_spread(struct json_object *o, const struct scenario *scn,
		       struct metrics *const *runs, size_t n_runs)
{
	struct json_object *sp = child(o, "_spread");

	for (size_t i = 0; i < scn->n_checks; i++) {
		const struct check_expr *e = scn->checks[i].expr;
		struct json_object *entry;
		char *key;

		if (!check_uses_baseline(e))
			continue;
		key = baseline_key(scn, check_subject(e));
		entry = spread_json(runs, n_runs, check_subject(e));
		if (entry)
			json_object_object_add(sp, key, entry);
		else
			json_object_object_del(sp, key);
		free(key);
	}
	drop_if_empty(o, "_spread");
}

/*
 * "_stages": the measured per-stage medians of this scenario (or case),
 * replacing all it had: a stage not measured now is not kept from before.
 */
static void set_stages(struct json_object *o, const struct scenario *scn,
		       const struct metrics *measured)
{
	struct json_object *st = child(o, "_stages");
	char *sfx = baseline_key(scn, ""), **old;
	size_t n_old = 0;

	old = xzalloc(((size_t)json_object_object_length(st) + 1) * sizeof(*old));
	json_object_object_foreach(st, k, v) {
		char *name = stage_name(k, sfx);

		(void)v;
		if (name)
			old[n_old++] = xstrdup(k);
		free(name);
	}
	for (size_t i = 0; i < n_old; i++) {
		json_object_object_del(st, old[i]);
		free(old[i]);
	}
	free(old);
	free(sfx);
	for (size_t i = 0; i < metrics_count(measured); i++) {
		const char *name;
		char *key;
		double v;

		metrics_at(measured, i, &name, &v);
		if (!baseline_is_stage_metric(name))
			continue;
		key = baseline_key(scn, name);
		/* To the ns the trace measured: a median of two is no 181.75900000000001. */
		json_object_object_add(st, key, metrics_json_number(round(v * 1e3) / 1e3));
		free(key);
	}
	drop_if_empty(o, "_stages");
}

int baseline_update(const char *path, const struct scenario *scn, const struct metrics *measured,
		    struct metrics *const *runs, size_t n_runs, const struct baseline_meta *meta,
		    char **err)
{
	struct json_object *o, *sorted;
	char *text;
	int ret = read_object(path, &o, err);

	if (ret)
		return ret;
	/* A corrupt "_spread" or "_stages" is refused as baseline_load() does. */
	ret = read_extra(path, o, NULL, err);
	if (!ret)
		ret = set_subjects(o, scn, measured, err);
	if (ret)
		goto out;
	set_spread(o, scn, runs, n_runs);
	set_stages(o, scn, measured);
	if (meta)
		json_object_object_add(o, "_meta", meta_json(meta));
	sorted = sorted_copy(o);
	{
		char *t = json_text(sorted, JSON_FORMAT);

		text = xasprintf("%s\n", t ? t : "");
		free(t);
	}
	json_object_put(sorted);
	ret = file_write_sync(path, text, strlen(text));
	if (ret)
		err_set(err, "%s: cannot write: %s", path, strerror(-ret));
	free(text);
out:
	json_object_put(o);
	return ret;
}
