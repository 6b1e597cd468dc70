// SPDX-License-Identifier: GPL-2.0
/*
 * The suite page (html-int.h): one row per scenario and matrix case from the
 * suite's summary.json, with each check's value against its bound and
 * baseline, and links to each run's page, trace and captures.
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "report/html-int.h"

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
	html_escape(b, href);
	sbuf_adds(b, "\">");
	html_escape(b, text);
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
	html_escape(b, name);
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

static void checks_table(struct sbuf *b, struct json_object *sum, size_t si)
{
	static const char *const nums[] = { "value", "min", "max" };
	struct json_object *checks = html_json_at(json_object_array_get_idx(html_json_at(sum, "scenarios"), si),
						  "checks");

	sbuf_adds(b, "<table class=\"checks\"><tr><th class=\"l\">check</th><th class=\"l\">metric</th><th>value</th><th>min</th><th>max</th><th>bound</th><th>baseline</th><th class=\"l\">verdict</th></tr>\n");
	for (size_t c = 0; checks && c < json_object_array_length(checks); c++) {
		struct json_object *ck = json_object_array_get_idx(checks, c);
		const char *st = json_object_get_string(html_json_at(ck, "status"));

		sbuf_adds(b, "<tr class=\"check ");
		html_escape(b, st ? st : "");
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
		sbuf_adds(b, "</td></tr>\n");
	}
	sbuf_adds(b, "</table>\n");
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
	html_escape(b, dir);
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
		html_escape(b, o ? o : "");
		sbuf_adds(b, "\" data-scenario=\"");
		html_str(b, s, "name", "");
		sbuf_adds(b, "\" data-outcome=\"");
		html_escape(b, o ? o : "");
		sbuf_adds(b, "\"><td class=\"l\">");
		html_str(b, s, "name", "?");
		sbuf_adds(b, "</td><td class=\"l\">");
		html_escape(b, o ? o : "?");
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
