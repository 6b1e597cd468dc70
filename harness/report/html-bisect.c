// SPDX-License-Identifier: GPL-2.0
/*
 * The page of a netlab bisect run directory (html.h html_bisect_write()):
 * its steps as a table and, for each checked metric, a plot of the step
 * medians and per-run values against the commit order of good..bad, with
 * the bound, its noise band and the first bad commit once the steps name
 * it. Numbers are spans with data-source="steps" and a path into the array
 * of bisect.log.jsonl's lines ("2.checks.0.median").
 *
 * The commit order is RUN_DIR/commits.txt (the good commit, then
 * `git rev-list --reverse --topo-order good..bad`, one full id a line);
 * without it, it is asked of the bisected tree and kept there, so that the
 * page can be drawn again when the tree is gone.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/jsonout.h"
#include "bisect/bisect.h"
#include "report/html-int.h"
#include "report/svg.h"

#define BISECT_PLOT_W 900
#define BISECT_PLOT_H 320

/* What the page is drawn from. */
struct bisect_page {
	const char *dir;
	struct json_object *cfg; /* bisect.json */
	struct json_object *steps; /* bisect.log.jsonl, an array of its lines */
	char **commits; /* the good commit, then good..bad in order */
	size_t n_commits;
	long first_bad; /* its position in commits, or -1 */
	long lo, hi; /* the highest good and lowest bad position after it */
};

static const char *jstr_at(struct json_object *o, const char *path)
{
	struct json_object *v = html_json_at(o, path);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* DIR/bisect.log.jsonl as an array of its lines; -EINVAL naming the line that is not JSON. */
static int read_steps(const char *dir, struct json_object **out, char **err)
{
	char *p = xasprintf("%s/bisect.log.jsonl", dir), *text = NULL, *line, *save = NULL;
	unsigned int lineno = 0;
	int ret;

	*out = json_object_new_array();
	ret = file_read_max(p, JSON_FILE_MAX, &text, NULL);
	if (ret == -ENOENT)
		ret = 0;
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line && !ret;
	     line = strtok_r(NULL, "\n", &save)) {
		struct json_object *o = json_tokener_parse(line);

		lineno++;
		if (!o || !json_object_is_type(o, json_type_object)) {
			json_object_put(o);
			err_set(err,
				"cannot read '%s': line %u is not a JSON object\nhint: it is written by netlab bisect, one step a line",
				p, lineno);
			ret = -EINVAL;
			break;
		}
		json_object_array_add(*out, o);
	}
	if (ret == -EFBIG)
		err_set(err, "cannot read '%s': more than the %u MiB a netlab JSON file holds", p,
			JSON_FILE_MAX >> 20);
	else if (ret && ret != -EINVAL)
		err_set(err, "cannot read '%s': %s", p, strerror(-ret));
	free(text);
	free(p);
	return ret;
}

/* The commit order: DIR/commits.txt, else from git (then kept in DIR/commits.txt). */
static void read_commits(struct bisect_page *pg)
{
	const char *ksrc = jstr_at(pg->cfg, "ksrc"), *good = jstr_at(pg->cfg, "good");
	const char *bad = jstr_at(pg->cfg, "bad");
	char *p = xasprintf("%s/commits.txt", pg->dir), *text = NULL, *save = NULL;

	if (file_read(p, &text, NULL) && ksrc && good && bad) {
		char *range = xasprintf("%s..%s", good, bad), *list = NULL;

		if (!bisect_git(ksrc, &list, "rev-list", "--reverse", "--topo-order", range,
				NULL) &&
		    list) {
			text = xasprintf("%s\n%s\n", good, list);
			file_write(p, text, strlen(text));
		}
		free(list);
		free(range);
	}
	for (char *l = text ? strtok_r(text, "\n", &save) : NULL; l;
	     l = strtok_r(NULL, "\n", &save)) {
		pg->commits = xrealloc_array(pg->commits, pg->n_commits + 1, sizeof(*pg->commits));
		pg->commits[pg->n_commits++] = xstrdup(l);
	}
	free(text);
	free(p);
}

/* The position of @commit in the order, or -1. */
static long position(const struct bisect_page *pg, const char *commit)
{
	for (size_t i = 0; commit && i < pg->n_commits; i++)
		if (!strcmp(pg->commits[i], commit))
			return (long)i;
	return -1;
}

static long step_pos(const struct bisect_page *pg, size_t i)
{
	return position(pg, jstr_at(json_object_array_get_idx(pg->steps, i), "commit"));
}

static const char *step_verdict(const struct bisect_page *pg, size_t i)
{
	const char *v = jstr_at(json_object_array_get_idx(pg->steps, i), "verdict");

	return v ? v : "?";
}

/*
 * A finished bisection's own answer, from RUN_DIR/bisect.txt ("first bad
 * commit: ID SUBJECT"), wins over the steps' order: git bisect's answer on a
 * history with merges need not be the order's neighbour of the last good.
 */
static void bisect_txt_first_bad(struct bisect_page *pg)
{
	char *path = xasprintf("%s/bisect.txt", pg->dir), *data = NULL, *p;
	static const char tag[] = "first bad commit: ";
	size_t len, n;

	if (file_read(path, &data, &len) == 0 && (p = strstr(data, tag))) {
		p += sizeof(tag) - 1;
		n = strcspn(p, " \n");
		for (size_t i = 0; n >= 7 && i < pg->n_commits; i++)
			if (!strncmp(pg->commits[i], p, n))
				pg->first_bad = (long)i;
	}
	free(data);
	free(path);
}

/*
 * The first bad commit as the steps name it: the lowest bad position above
 * the highest good one, when the two are neighbours in the order (as `git
 * bisect run` leaves them on a linear history); else lo and hi say where
 * it lies.
 */
static void find_first_bad(struct bisect_page *pg)
{
	size_t n = json_object_array_length(pg->steps);

	pg->lo = -1;
	pg->hi = -1;
	pg->first_bad = -1;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(step_verdict(pg, i), "good") && step_pos(pg, i) > pg->lo)
			pg->lo = step_pos(pg, i);
	for (size_t i = 0; i < n; i++) {
		long at = step_pos(pg, i);

		if (!strcmp(step_verdict(pg, i), "bad") && at > pg->lo &&
		    (pg->hi < 0 || at < pg->hi))
			pg->hi = at;
	}
	if (pg->lo >= 0 && pg->hi == pg->lo + 1)
		pg->first_bad = pg->hi;
	bisect_txt_first_bad(pg);
}

/* The subject a step recorded for @commit, or NULL. */
static const char *subject_of(const struct bisect_page *pg, const char *commit)
{
	for (size_t i = 0; i < json_object_array_length(pg->steps); i++) {
		struct json_object *s = json_object_array_get_idx(pg->steps, i);
		const char *c = jstr_at(s, "commit");

		if (c && !strcmp(c, commit))
			return jstr_at(s, "subject");
	}
	return NULL;
}

/* ---- the page --------------------------------------------------------------------- */

static void header(struct sbuf *b, const struct bisect_page *pg)
{
	static const char *const keys[] = { "ksrc", "good_rev", "good",	 "bad_rev",
					    "bad",  "scenario", "check", "phase" };

	sbuf_adds(b, "<h1>netlab bisect <code>");
	esc_html(b, pg->dir);
	sbuf_adds(b, "</code></h1>\n<table class=\"config\">\n");
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		sbuf_addf(b, "<tr><th class=\"l\">%s</th><td class=\"l\"><code>", keys[i]);
		html_str(b, pg->cfg, keys[i], "-");
		sbuf_adds(b, "</code></td></tr>\n");
	}
	sbuf_addf(
		b,
		"<tr><th class=\"l\">runs per step</th><td class=\"l\">%.0f%s</td></tr>\n</table>\n",
		html_json_num(pg->cfg, "runs", NAN),
		json_object_get_boolean(html_json_at(pg->cfg, "module")) ? " (--module)" : "");
	if (pg->first_bad >= 0) {
		const char *c = pg->commits[pg->first_bad], *subj = subject_of(pg, c);

		sbuf_adds(b, "<p class=\"result\" data-first-bad=\"");
		esc_html(b, c);
		sbuf_adds(b, "\">first bad commit: <code>");
		esc_html(b, c);
		sbuf_adds(b, "</code> ");
		esc_html(b, subj ? subj : "");
		sbuf_adds(b, "</p>\n");
	} else if (pg->lo >= 0 && pg->hi >= 0) {
		sbuf_addf(
			b,
			"<p class=\"result missing\">not found yet: the first bad commit lies between positions %ld (good) and %ld (bad) of %zu</p>\n",
			pg->lo, pg->hi, pg->n_commits ? pg->n_commits - 1 : 0);
	} else {
		sbuf_adds(
			b,
			"<p class=\"result missing\">no first bad commit: the steps so far have no good commit below a bad one</p>\n");
	}
}

static void step_check(struct sbuf *b, const struct bisect_page *pg, size_t i, size_t c)
{
	struct json_object *ck = html_json_at(json_object_array_get_idx(pg->steps, i), "checks");
	struct json_object *vals;

	ck = json_object_array_get_idx(ck, c);
	vals = html_json_at(ck, "values");
	sbuf_adds(b, "<div class=\"check\" data-check=\"");
	html_str(b, ck, "name", "");
	sbuf_adds(b, "\">");
	html_str(b, ck, "name", "?");
	sbuf_adds(b, ": ");
	html_str(b, ck, "subject", "?");
	sbuf_adds(b, " median ");
	html_numf(b, pg->steps, "steps", "%zu.checks.%zu.median", i, c);
	sbuf_adds(b, " ");
	html_str(b, ck, "op", "");
	sbuf_adds(b, " ");
	html_numf(b, pg->steps, "steps", "%zu.checks.%zu.bound", i, c);
	sbuf_adds(b, ", band ");
	html_numf(b, pg->steps, "steps", "%zu.checks.%zu.band", i, c);
	sbuf_adds(b, ", runs [");
	for (size_t k = 0; vals && k < json_object_array_length(vals); k++) {
		sbuf_adds(b, k ? ", " : "");
		html_numf(b, pg->steps, "steps", "%zu.checks.%zu.values.%zu", i, c, k);
	}
	sbuf_adds(b, "]: ");
	html_str(b, ck, "call", "?");
	sbuf_adds(b, "</div>");
}

static void steps_table(struct sbuf *b, const struct bisect_page *pg)
{
	static const char *const secs[] = { "build_s", "boot_s", "scenario_s", "runs" };
	size_t n = json_object_array_length(pg->steps);

	sbuf_adds(
		b,
		"<h2>steps</h2>\n<table class=\"steps\"><tr><th>step</th><th>position</th><th class=\"l\">commit</th><th class=\"l\">verdict</th><th class=\"l\">checks</th><th>build s</th><th>boot s</th><th>scenario s</th><th>runs</th><th class=\"l\">why</th></tr>\n");
	for (size_t i = 0; i < n; i++) {
		struct json_object *s = json_object_array_get_idx(pg->steps, i), *cks;
		const char *c = jstr_at(s, "commit"), *v = step_verdict(pg, i);
		long at = step_pos(pg, i);

		sbuf_adds(b, "<tr class=\"step ");
		esc_html(b, v);
		sbuf_adds(b, "\" data-verdict=\"");
		esc_html(b, v);
		sbuf_adds(b, "\"><td>");
		html_numf(b, pg->steps, "steps", "%zu.step", i);
		if (at >= 0)
			sbuf_addf(b, "</td><td>%ld", at);
		else
			sbuf_adds(b, "</td><td>?");
		sbuf_adds(b, "</td><td class=\"l\"><code title=\"");
		esc_html(b, c ? c : "");
		sbuf_addf(b, "\">%.12s</code> ", c ? c : "?");
		html_str(b, s, "subject", "");
		if (jstr_at(s, "endpoint")) {
			sbuf_adds(b, " (--");
			html_str(b, s, "endpoint", "");
			sbuf_adds(b, ")");
		}
		sbuf_adds(b, "</td><td class=\"l\">");
		esc_html(b, v);
		sbuf_adds(b, "</td><td class=\"l\">");
		cks = html_json_at(s, "checks");
		for (size_t k = 0; cks && k < json_object_array_length(cks); k++)
			step_check(b, pg, i, k);
		sbuf_adds(b, "</td>");
		for (size_t k = 0; k < ARRAY_SIZE(secs); k++) {
			sbuf_adds(b, "<td>");
			html_numf(b, pg->steps, "steps", "%zu.%s", i, secs[k]);
			sbuf_adds(b, "</td>");
		}
		sbuf_adds(b, "<td class=\"l\">");
		html_str(b, s, "why", "");
		sbuf_adds(b, "</td></tr>\n");
	}
	sbuf_adds(b, "</table>\n");
}

/* The check named @name in step @i, or NULL. */
static struct json_object *step_check_named(const struct bisect_page *pg, size_t i,
					    const char *name)
{
	struct json_object *cks = html_json_at(json_object_array_get_idx(pg->steps, i), "checks");

	for (size_t k = 0; cks && k < json_object_array_length(cks); k++) {
		const char *nm = jstr_at(json_object_array_get_idx(cks, k), "name");

		if (nm && !strcmp(nm, name))
			return json_object_array_get_idx(cks, k);
	}
	return NULL;
}

static void widen(double *lo, double *hi, double v)
{
	if (!isfinite(v))
		return;
	*lo = fmin(*lo, v);
	*hi = fmax(*hi, v);
}

/* The y range of check @name over all steps: values, medians, bounds and bands. */
static void check_range(const struct bisect_page *pg, const char *name, double *lo, double *hi)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t i = 0; i < json_object_array_length(pg->steps); i++) {
		struct json_object *ck = step_check_named(pg, i, name), *vals;
		double bound = html_json_num(ck, "bound", NAN), band = html_json_num(ck, "band", NAN);

		if (!ck)
			continue;
		widen(lo, hi, html_json_num(ck, "median", NAN));
		widen(lo, hi, bound);
		if (isfinite(band))
			widen(lo, hi, bound * (1 + band)), widen(lo, hi, bound * (1 - band));
		vals = html_json_at(ck, "values");
		for (size_t k = 0; vals && k < json_object_array_length(vals); k++)
			widen(lo, hi, json_object_get_double(json_object_array_get_idx(vals, k)));
	}
	if (!(*hi >= *lo))
		*lo = 0, *hi = 1;
	*lo -= (*hi - *lo) * 0.05 + (*hi == *lo);
	*hi += (*hi - *lo) * 0.05;
}

static void bound_line(struct svg_plot *p, const struct bisect_page *pg, const char *name)
{
	size_t n = json_object_array_length(pg->steps), m = 0;
	double *xs = xzalloc((n + 2) * sizeof(*xs)), *ys = xzalloc((n + 2) * sizeof(*ys));
	double band = NAN;

	for (long at = 0; at < (long)pg->n_commits; at++)
		for (size_t i = 0; i < n; i++) {
			struct json_object *ck = step_check_named(pg, i, name);

			if (ck && step_pos(pg, i) == at && isfinite(html_json_num(ck, "bound", NAN)) &&
			    m < n) {
				xs[m] = (double)at;
				ys[m++] = html_json_num(ck, "bound", NAN);
				if (isfinite(html_json_num(ck, "band", NAN)))
					band = html_json_num(ck, "band", NAN);
				break;
			}
		}
	if (m) {
		if (isfinite(band) && ys[0])
			svg_rect(p, p->x0, ys[0] * (1 - band), p->x1, ys[0] * (1 + band), "band",
				 "the noise band around the bound: too close to call");
		/* from the good end to the bad end of the order */
		memmove(xs + 1, xs, m * sizeof(*xs));
		memmove(ys + 1, ys, m * sizeof(*ys));
		xs[0] = p->x0;
		ys[0] = ys[1];
		xs[m + 1] = p->x1;
		ys[m + 1] = ys[m];
		svg_series_begin(p, "bound");
		svg_line(p, xs, ys, m + 2, true);
		svg_series_end(p);
	}
	free(xs);
	free(ys);
}

/* The points of the steps with verdict @verdict (NULL: those neither good nor bad). */
static void verdict_points(struct svg_plot *p, const struct bisect_page *pg, const char *name,
			   const char *verdict)
{
	size_t n = json_object_array_length(pg->steps);

	svg_series_begin(p, verdict ? verdict : "skip");
	for (size_t i = 0; i < n; i++) {
		struct json_object *ck = step_check_named(pg, i, name), *vals;
		const char *v = step_verdict(pg, i), *c;
		long at = step_pos(pg, i);
		double med = html_json_num(ck, "median", NAN);
		char label[24], *title;

		if (verdict ? strcmp(v, verdict) : !strcmp(v, "good") || !strcmp(v, "bad"))
			continue;
		c = jstr_at(json_object_array_get_idx(pg->steps, i), "commit");
		snprintf(label, sizeof(label), "%zu", i + 1);
		title = xasprintf("step %zu, %.12s: %s, median %g", i + 1, c ? c : "?", v, med);
		/* a step with no median (its build or runs failed) sits on the x axis */
		svg_mark(p, at >= 0 ? (double)at : p->x0, isfinite(med) ? med : p->y0, label,
			 title);
		free(title);
		vals = html_json_at(ck, "values");
		for (size_t k = 0; at >= 0 && vals && k < json_object_array_length(vals); k++)
			svg_dot(p, (double)at,
				json_object_get_double(json_object_array_get_idx(vals, k)), NULL);
	}
	svg_series_end(p);
}

static void check_plot(struct sbuf *b, const struct bisect_page *pg, const char *name,
		       const char *subject)
{
	char *id = xasprintf("bisect-%s", name), *title;
	double lo, hi, x1 = pg->n_commits > 1 ? (double)(pg->n_commits - 1) : 1;
	struct svg_plot p;

	check_range(pg, name, &lo, &hi);
	title = xasprintf("%s: %s per step (dots: each run) against the commit order", name,
			  subject);
	svg_begin(&p, b, id, title, BISECT_PLOT_W, BISECT_PLOT_H, -0.5, x1 + 0.5, lo, hi, false);
	svg_axes(&p, "position of the commit in good..bad (0: good)", subject);
	if (pg->first_bad >= 0) {
		char *t = xasprintf("first bad commit %s", pg->commits[pg->first_bad]);

		svg_band(&p, (double)pg->first_bad - 0.5, (double)pg->first_bad + 0.5, "culprit",
			 t);
		free(t);
	}
	bound_line(&p, pg, name);
	verdict_points(&p, pg, name, "bad");
	verdict_points(&p, pg, name, "good");
	verdict_points(&p, pg, name, NULL);
	svg_end(&p);
	free(title);
	free(id);
}

/* One plot per check name, in the order the steps first name them. */
static void plots(struct sbuf *b, const struct bisect_page *pg)
{
	struct json_object *seen = json_object_new_object();

	sbuf_adds(b, "<h2>checked metrics against the commit order</h2>\n");
	if (!pg->n_commits)
		sbuf_adds(
			b,
			"<p class=\"missing\">no commit order: commits.txt is missing and the tree could not list good..bad; points without a position sit at the left</p>\n");
	for (size_t i = 0; i < json_object_array_length(pg->steps); i++) {
		struct json_object *cks =
			html_json_at(json_object_array_get_idx(pg->steps, i), "checks");

		for (size_t k = 0; cks && k < json_object_array_length(cks); k++) {
			struct json_object *ck = json_object_array_get_idx(cks, k);
			const char *nm = jstr_at(ck, "name"), *subj = jstr_at(ck, "subject");

			if (!nm || json_object_object_get_ex(seen, nm, NULL))
				continue;
			json_object_object_add(seen, nm, NULL);
			check_plot(b, pg, nm, subj ? subj : nm);
		}
	}
	json_object_put(seen);
}

void html_bisect_render(struct sbuf *b, const char *dir, struct json_object *cfg,
			struct json_object *steps, char *const *commits, size_t n_commits)
{
	struct bisect_page pg = { .dir = dir,
				  .cfg = cfg,
				  .steps = steps,
				  .commits = (char **)commits,
				  .n_commits = n_commits };
	char *title = xasprintf("netlab bisect %s", dir);

	find_first_bad(&pg);
	html_page_begin(b, title);
	free(title);
	header(b, &pg);
	plots(b, &pg);
	steps_table(b, &pg);
	html_page_end(b);
}

int html_bisect_write(const char *dir, const char *out, char **err)
{
	struct bisect_page pg = { .dir = dir };
	char *p = xasprintf("%s/bisect.json", dir), *def = NULL, *why = NULL;
	struct sbuf b;
	int ret;

	if (access(p, F_OK)) {
		ret = -errno;
		err_set(err,
			"cannot read '%s': %s\nhint: give the run directory of netlab bisect --out",
			p, strerror(-ret));
		free(p);
		return ret;
	}
	if (json_file_read(p, &pg.cfg, &why) == -EFBIG) {
		err_set(err, "cannot read %s\nhint: it is written by netlab bisect", why);
		ret = -EINVAL;
		goto out;
	}
	if (!pg.cfg || !json_object_is_type(pg.cfg, json_type_object)) {
		err_set(err,
			"cannot read '%s': not a JSON object\nhint: it is written by netlab bisect",
			p);
		ret = -EINVAL;
		goto out;
	}
	ret = read_steps(dir, &pg.steps, err);
	if (ret)
		goto out;
	read_commits(&pg);
	if (!out)
		out = def = xasprintf("%s/report.html", dir);
	sbuf_init(&b);
	html_bisect_render(&b, dir, pg.cfg, pg.steps, pg.commits, pg.n_commits);
	ret = file_write(out, b.s, b.len);
	if (ret)
		err_set(err, "cannot write '%s': %s", out, strerror(-ret));
	sbuf_release(&b);
out:
	for (size_t i = 0; i < pg.n_commits; i++)
		free(pg.commits[i]);
	free(pg.commits);
	json_object_put(pg.cfg);
	json_object_put(pg.steps);
	free(why);
	free(def);
	free(p);
	return ret;
}
