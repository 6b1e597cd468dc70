// SPDX-License-Identifier: GPL-2.0
/*
 * The suite page (html-int.h): one row per scenario and matrix case from the
 * suite's summary.json, with each check's value against its bound and
 * baseline, and links to each run's page, trace and captures.
 */
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/jsonout.h"
#include "report/html-int.h"
#include "scenario/baseline.h"

/* @path relative to the suite directory @dir when it lies inside it, else as it is. */
static const char *rel_to(const char *dir, const char *path)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (!strncmp(path, dir, n) && path[n] == '/')
		return path + n + 1;
	return path;
}

static void add_link(struct sbuf *b, const char *href, const char *text, const char *cls)
{
	sbuf_addf(b, "<a class=\"%s\" href=\"", cls);
	esc_html_url(b, href);
	sbuf_adds(b, "\">");
	esc_html(b, text);
	sbuf_adds(b, "</a> ");
}

/* A run's verdict and its links: page, trace.dat, pcaps (those that exist). */
static void run_links(struct sbuf *b, const char *dir, struct json_object *run, unsigned int k)
{
	const char *rd = json_object_get_string(html_json_at(run, "dir"));
	const char *rel = rd ? rel_to(dir, rd) : NULL;
	char *p, name[32];
	glob_t g;

	snprintf(name, sizeof(name), "run-%u", k + 1);
	sbuf_adds(b, "<div class=\"run\">");
	esc_html(b, name);
	sbuf_adds(b, ": ");
	html_str(b, run, "verdict", "?");
	sbuf_adds(b, " ");
	if (!rel) {
		sbuf_adds(b, "</div>");
		return;
	}
	p = xasprintf("%s/report.html", rd);
	if (!access(p, F_OK)) {
		free(p);
		p = xasprintf("%s/report.html", rel);
		add_link(b, p, "page", "page");
	}
	free(p);
	p = xasprintf("%s/files/trace.dat", rd);
	if (!access(p, F_OK)) {
		free(p);
		p = xasprintf("%s/files/trace.dat", rel);
		add_link(b, p, "trace.dat", "trace");
	}
	free(p);
	p = xasprintf("%s/nic-*.pcap", rd);
	if (!glob(p, 0, NULL, &g)) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			char *h = xasprintf("%s/%s", rel, strrchr(g.gl_pathv[i], '/') + 1);

			add_link(b, h, strrchr(g.gl_pathv[i], '/') + 1, "pcap");
			free(h);
		}
		globfree(&g);
	}
	free(p);
	sbuf_adds(b, "</div>");
}

/* ---- per-run sparklines ------------------------------------------------------------ */

#define SPARK_W 160
#define SPARK_H 36

/* What a scenario's sparklines are drawn from: each run's metrics.json, the baseline's "_spread". */
struct spark_src {
	struct json_object **runs;	/* per run of the summary, NULL when unreadable */
	size_t n_runs;
	struct json_object *spread;	/* the baselines file's "_spread", or NULL */
	const char *suffix;		/* "[case]" of a matrix case, else "" */
	struct json_object *base;	/* holds spread */
};

static void spark_load(struct spark_src *ss, struct json_object *scn)
{
	struct json_object *runs = html_json_at(scn, "runs");
	const char *path = json_object_get_string(html_json_at(scn, "path"));
	const char *name = json_object_get_string(html_json_at(scn, "name"));

	memset(ss, 0, sizeof(*ss));
	ss->n_runs = runs ? json_object_array_length(runs) : 0;
	ss->runs = xzalloc((ss->n_runs + 1) * sizeof(*ss->runs));
	for (size_t k = 0; k < ss->n_runs; k++) {
		const char *rd = json_object_get_string(html_json_at(json_object_array_get_idx(runs, k), "dir"));
		char *p = rd ? xasprintf("%s/metrics.json", rd) : NULL;

		if (p && !access(p, R_OK))
			ss->runs[k] = json_file_get(p);
		free(p);
	}
	if (path) {
		char *bp = baseline_path(path);

		if (!access(bp, R_OK))
			ss->base = json_file_get(bp);
		free(bp);
	}
	ss->spread = ss->base ? html_json_at(ss->base, "_spread") : NULL;
	ss->suffix = name && strchr(name, '[') ? strchr(name, '[') : "";
}

static void spark_release(struct spark_src *ss)
{
	for (size_t k = 0; k < ss->n_runs; k++)
		json_object_put(ss->runs[k]);
	free(ss->runs);
	json_object_put(ss->base);
}

static bool jnumber(struct json_object *v, double *out)
{
	if (!v || !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
		return false;
	*out = json_object_get_double(v);
	return isfinite(*out);
}

/* The run's value of @subject, or NULL. */
static struct json_object *run_value(const struct spark_src *ss, size_t k, const char *subject)
{
	struct json_object *v = NULL;
	double d;

	if (!ss->runs[k] || !json_object_object_get_ex(ss->runs[k], subject, &v) || !jnumber(v, &d))
		return NULL;
	return v;
}

/* The baseline's recorded spread of @subject: true with min and max. */
static bool spark_spread(const struct spark_src *ss, const char *subject, double *lo, double *hi)
{
	char *key = xasprintf("%s%s", subject, ss->suffix);
	struct json_object *e = NULL;
	bool ok;

	ok = ss->spread && json_object_object_get_ex(ss->spread, key, &e) &&
	     jnumber(html_json_at(e, "min"), lo) && jnumber(html_json_at(e, "max"), hi);
	free(key);
	return ok;
}

static double spark_y(double v, double lo, double hi)
{
	return SPARK_H - 3 - (v - lo) / (hi - lo) * (SPARK_H - 6);
}

static double spark_x(const struct spark_src *ss, size_t k)
{
	return ss->n_runs > 1 ? 6 + (double)k * (SPARK_W - 12) / (double)(ss->n_runs - 1) : SPARK_W / 2.0;
}

/*
 * One check's values in each run: a point per run of the summary (a grey one
 * at the bottom for a run without the value), the bound as a dashed line,
 * the baseline's spread as a band.
 */
static void sparkline(struct sbuf *b, const struct spark_src *ss, struct json_object *ck,
		      const char *scn_name)
{
	const char *subject = json_object_get_string(html_json_at(ck, "subject"));
	double lo = INFINITY, hi = -INFINITY, bound, smin, smax, v;
	bool has_bound = jnumber(html_json_at(ck, "bound"), &bound);
	bool spread = subject && spark_spread(ss, subject, &smin, &smax);

	for (size_t k = 0; subject && k < ss->n_runs; k++)
		if (jnumber(run_value(ss, k, subject), &v))
			lo = fmin(lo, v), hi = fmax(hi, v);
	if (has_bound)
		lo = fmin(lo, bound), hi = fmax(hi, bound);
	if (spread)
		lo = fmin(lo, smin), hi = fmax(hi, smax);
	if (!(hi > lo))
		lo = isfinite(lo) ? lo - 1 : 0, hi = isfinite(hi) ? hi + 1 : 1;
	sbuf_addf(b, "<svg class=\"spark\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" data-runs=\"%zu\" data-spark=\"",
		  SPARK_W, SPARK_H, ss->n_runs);
	esc_html(b, scn_name);
	sbuf_adds(b, ":");
	html_str(b, ck, "name", "");
	sbuf_adds(b, "\">");
	if (spread)
		sbuf_addf(b, "<rect class=\"spread\" x=\"0\" y=\"%.1f\" width=\"%d\" height=\"%.1f\"><title>baseline runs: %g..%g</title></rect>",
			  spark_y(smax, lo, hi), SPARK_W, fmax(spark_y(smin, lo, hi) - spark_y(smax, lo, hi), 1),
			  smin, smax);
	if (has_bound)
		sbuf_addf(b, "<line class=\"bound\" x1=\"0\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"><title>bound %g</title></line>",
			  SPARK_W, spark_y(bound, lo, hi), spark_y(bound, lo, hi), bound);
	sbuf_adds(b, "<polyline fill=\"none\" stroke=\"#1f77b4\" points=\"");
	for (size_t k = 0; subject && k < ss->n_runs; k++)
		if (jnumber(run_value(ss, k, subject), &v))
			sbuf_addf(b, "%.1f,%.1f ", spark_x(ss, k), spark_y(v, lo, hi));
	sbuf_adds(b, "\"/>");
	for (size_t k = 0; k < ss->n_runs; k++) {
		struct json_object *rv = subject ? run_value(ss, k, subject) : NULL;
		double x = spark_x(ss, k);
		const char *txt = rv ? json_object_to_json_string_ext(rv, JSON_C_TO_STRING_PLAIN) : NULL;

		if (!rv) {
			sbuf_addf(b, "<circle class=\"pt missing\" data-run=\"%zu\" cx=\"%.1f\" cy=\"%d\" r=\"2.5\"><title>run-%zu: no value</title></circle>",
				  k + 1, x, SPARK_H - 3, k + 1);
			continue;
		}
		jnumber(rv, &v);
		sbuf_addf(b, "<circle class=\"pt\" data-run=\"%zu\" data-value=\"", k + 1);
		esc_html(b, txt);
		sbuf_addf(b, "\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\"><title>run-%zu: ", x,
			  spark_y(v, lo, hi), k + 1);
		esc_html(b, txt);
		sbuf_adds(b, "</title></circle>");
	}
	sbuf_adds(b, "</svg>");
}

static void checks_table(struct sbuf *b, struct json_object *sum, size_t si)
{
	static const char *const nums[] = { "value", "min", "max" };
	struct json_object *scn = json_object_array_get_idx(html_json_at(sum, "scenarios"), si);
	struct json_object *checks = html_json_at(scn, "checks");
	struct spark_src ss;

	sbuf_adds(b, "<table class=\"checks\"><tr><th class=\"l\">check</th><th class=\"l\">metric</th><th>value</th><th>min</th><th>max</th><th>bound</th><th>baseline</th><th class=\"l\">verdict</th><th class=\"l\">per run</th></tr>\n");
	spark_load(&ss, scn);
	for (size_t c = 0; checks && c < json_object_array_length(checks); c++) {
		struct json_object *ck = json_object_array_get_idx(checks, c);
		const char *st = json_object_get_string(html_json_at(ck, "status"));

		sbuf_adds(b, "<tr class=\"check ");
		esc_html(b, st ? st : "");
		sbuf_adds(b, "\" data-check=\"");
		html_str(b, ck, "name", "");
		sbuf_adds(b, "\"><td class=\"l\" title=\"");
		html_str(b, ck, "expr", "");
		sbuf_adds(b, "\">");
		html_str(b, ck, "name", "?");
		sbuf_adds(b, "</td><td class=\"l\">");
		html_str(b, ck, "subject", "-");
		sbuf_adds(b, "</td>");
		for (size_t k = 0; k < ARRAY_SIZE(nums); k++) {
			sbuf_adds(b, "<td>");
			html_numf(b, sum, "summary", "scenarios.%zu.checks.%zu.%s", si, c, nums[k]);
			sbuf_adds(b, "</td>");
		}
		sbuf_adds(b, "<td>");
		html_str(b, ck, "op", "");
		sbuf_adds(b, " ");
		html_numf(b, sum, "summary", "scenarios.%zu.checks.%zu.bound", si, c);
		sbuf_adds(b, "</td><td>");
		html_numf(b, sum, "summary", "scenarios.%zu.checks.%zu.baseline", si, c);
		sbuf_adds(b, "</td><td class=\"l\">");
		html_str(b, ck, "status", "?");
		if (html_json_at(ck, "error") && json_object_get_string(html_json_at(ck, "error"))) {
			sbuf_adds(b, ": ");
			html_str(b, ck, "error", "");
		}
		sbuf_adds(b, "</td><td class=\"l\">");
		sparkline(b, &ss, ck, json_object_get_string(html_json_at(scn, "name")));
		sbuf_adds(b, "</td></tr>\n");
	}
	sbuf_adds(b, "</table>\n");
	spark_release(&ss);
}

void html_suite_render(struct sbuf *b, const char *dir, struct json_object *sum)
{
	struct json_object *scns = html_json_at(sum, "scenarios");
	size_t n = scns ? json_object_array_length(scns) : 0, pass = 0;
	char *title = xasprintf("netlab regress %s", dir);

	html_page_begin(b, title);
	free(title);
	for (size_t i = 0; i < n; i++) {
		const char *o = json_object_get_string(html_json_at(json_object_array_get_idx(scns, i), "outcome"));

		pass += o && !strcmp(o, "pass");
	}
	sbuf_adds(b, "<h1>netlab regress <code>");
	esc_html(b, dir);
	sbuf_addf(b, "</code></h1>\n<p><span data-passed>%zu</span>/<span data-scenarios>%zu</span> scenarios passed in ",
		  pass, n);
	html_num(b, sum, "summary", "wall_s");
	sbuf_adds(b, " s; exit code ");
	html_num(b, sum, "summary", "exit_code");
	sbuf_adds(b, "; accelerator: ");
	html_str(b, sum, "accel_reason", "-");
	sbuf_adds(b, "</p>\n");
	sbuf_adds(b, "<table class=\"suite\"><tr><th class=\"l\">scenario</th><th class=\"l\">outcome</th><th class=\"l\">checks</th><th class=\"l\">runs</th></tr>\n");
	for (size_t i = 0; i < n; i++) {
		struct json_object *s = json_object_array_get_idx(scns, i), *runs;
		const char *o = json_object_get_string(html_json_at(s, "outcome"));

		sbuf_adds(b, "<tr class=\"scenario ");
		esc_html(b, o ? o : "");
		sbuf_adds(b, "\" data-scenario=\"");
		html_str(b, s, "name", "");
		sbuf_adds(b, "\" data-outcome=\"");
		esc_html(b, o ? o : "");
		sbuf_adds(b, "\"><td class=\"l\">");
		html_str(b, s, "name", "?");
		sbuf_adds(b, "</td><td class=\"l\">");
		esc_html(b, o ? o : "?");
		if (json_object_get_string(html_json_at(s, "reason")) && o && strcmp(o, "pass")) {
			sbuf_adds(b, "<br><small>");
			html_str(b, s, "reason", "");
			sbuf_adds(b, "</small>");
		}
		sbuf_adds(b, "</td><td class=\"l\">");
		checks_table(b, sum, i);
		if (json_object_get_string(html_json_at(s, "loss")) && o && strcmp(o, "pass")) {
			sbuf_adds(b, "<pre class=\"story\">loss: ");
			html_str(b, s, "loss", "");
			sbuf_adds(b, "</pre>");
		}
		sbuf_adds(b, "</td><td class=\"l\">");
		runs = html_json_at(s, "runs");
		for (size_t k = 0; runs && k < json_object_array_length(runs); k++)
			run_links(b, dir, json_object_array_get_idx(runs, k), (unsigned int)k);
		sbuf_adds(b, "</td></tr>\n");
	}
	sbuf_adds(b, "</table>\n");
	html_page_end(b);
}
