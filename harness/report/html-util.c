// SPDX-License-Identifier: GPL-2.0
/*
 * The HTML report's shared pieces (html-int.h): escaping, the page frame,
 * and numbers taken from the JSON report with their path. A leaf: the
 * run and suite pages call it, it calls neither.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/esc.h"
#include "report/html-int.h"

static const char css[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em auto;max-width:1250px;color:#222}\n"
	"h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc;margin-top:1.6em}\n"
	"table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:2px 8px;text-align:right}\n"
	"th{background:#f4f4f4}td.l,th.l{text-align:left}\n"
	".pass{background:#dfd}.fail{background:#fdd}.infra,.bad,.interrupted{background:#ffd}\n"
	".error{color:#a00;font-weight:bold}.missing{color:#777;font-style:italic}\n"
	"code,pre{background:#f6f6f6;padding:1px 4px}pre{white-space:pre-wrap}\n"
	"svg.plot{display:block;margin:.5em 0;font:11px sans-serif}\n"
	"svg .frame{fill:none;stroke:#888}svg .ticks line{stroke:#eee}svg .ticks text{fill:#555}\n"
	"svg .axis-label{font-size:12px;fill:#222}svg .plot-title{font-weight:bold}\n"
	"svg .episode{fill:#d62728;fill-opacity:.15;stroke:none}svg .mark text{font-size:10px}\n"
	"svg .culprit{fill:#d62728;fill-opacity:.12;stroke:#d62728}svg .band{fill:#888;fill-opacity:.12;stroke:none}\n"
	"svg .dot{fill-opacity:.5;stroke:none}p.result{font-weight:bold}\n"
	"svg.spark{vertical-align:middle}svg.spark .pt{fill:#1f77b4}svg.spark .pt.missing{fill:#bbb}\n"
	"svg.spark .bound{stroke:#d62728;stroke-dasharray:3 2}svg.spark .spread{fill:#2ca02c;fill-opacity:.18}\n";

void html_page_begin(struct sbuf *b, const char *title)
{
	sbuf_adds(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>");
	esc_html(b, title);
	sbuf_addf(b, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", css);
}

void html_page_end(struct sbuf *b)
{
	sbuf_adds(b, "<p class=\"missing\">written by netlab; numbers are those of the JSON report</p>\n</body>\n</html>\n");
}

struct json_object *html_json_at(struct json_object *root, const char *path)
{
	char *copy = xstrdup(path), *save = NULL;
	struct json_object *v = root;

	for (char *k = strtok_r(copy, ".", &save); v && k; k = strtok_r(NULL, ".", &save)) {
		if (json_object_is_type(v, json_type_array)) {
			char *end;
			long i = strtol(k, &end, 10);

			v = *end || i < 0 ? NULL : json_object_array_get_idx(v, (size_t)i);
		} else if (!json_object_is_type(v, json_type_object) ||
			   !json_object_object_get_ex(v, k, &v)) {
			v = NULL;
		}
	}
	free(copy);
	return v;
}

double html_json_num(struct json_object *root, const char *path, double dflt)
{
	struct json_object *v = root ? html_json_at(root, path) : NULL;

	return v && (json_object_is_type(v, json_type_int) ||
		     json_object_is_type(v, json_type_double))
		       ? json_object_get_double(v)
		       : dflt;
}

void html_num(struct sbuf *b, struct json_object *root, const char *source, const char *path)
{
	struct json_object *v = NULL;

	if (root && source && !strcmp(source, "metrics"))
		json_object_object_get_ex(root, path, &v);
	else if (root)
		v = html_json_at(root, path);
	if (!v || !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double))) {
		sbuf_adds(b, "<span class=\"num\">-</span>");
		return;
	}
	sbuf_adds(b, "<span class=\"num\" data-metric=\"");
	esc_html(b, path);
	if (source)
		sbuf_addf(b, "\" data-source=\"%s", source);
	sbuf_adds(b, "\">");
	esc_html(b, json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
	sbuf_adds(b, "</span>");
}

void html_numf(struct sbuf *b, struct json_object *root, const char *source, const char *fmt, ...)
{
	va_list ap;
	char *path;

	va_start(ap, fmt);
	if (vasprintf(&path, fmt, ap) < 0)
		path = NULL;
	va_end(ap);
	if (path)
		html_num(b, root, source, path);
	free(path);
}

void html_str(struct sbuf *b, struct json_object *root, const char *path, const char *dflt)
{
	struct json_object *v = root ? html_json_at(root, path) : NULL;

	esc_html(b, v && !json_object_is_type(v, json_type_null) ? json_object_get_string(v) : dflt);
}

/* ---- a run page's parts (html-run.c, html-flows.c) ---- */

void html_section_begin(struct sbuf *b, const char *id, const char *title)
{
	sbuf_addf(b, "<section id=\"%s\" data-section=\"%s\">\n<h2>", id, id);
	esc_html(b, title);
	sbuf_adds(b, "</h2>\n");
}

void html_section_end(struct sbuf *b)
{
	sbuf_adds(b, "</section>\n");
}

void html_missing(struct sbuf *b, const char *why)
{
	sbuf_adds(b, "<p class=\"missing\">");
	esc_html(b, why);
	sbuf_adds(b, "</p>\n");
}

/* One <td> per column: the number at PATH.@i.COLUMN of the run's report. */
void html_num_cells(struct sbuf *b, const struct html_run *r, const char *path, size_t i,
			   const char *const *cols, size_t n)
{
	for (size_t c = 0; c < n; c++) {
		sbuf_adds(b, "<td>");
		html_numf(b, r->rep, NULL, "%s.%zu.%s", path, i, cols[c]);
		sbuf_adds(b, "</td>");
	}
}
