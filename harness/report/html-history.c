// SPDX-License-Identifier: GPL-2.0
/*
 * netlab history --html: a metric's trend, one series per case, one point
 * per suite that measured it (x: the suite's number in the database), each
 * point's tooltip naming its suite, time, kernel and outcome.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "report/html-int.h"
#include "report/html.h"
#include "report/svg.h"
#include "scenario/resultsdb.h"

void html_history_render(struct sbuf *b, const char *metric, const struct rdb_value *v, size_t n)
{
	double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
	char *title = xasprintf("netlab history: %s", metric);
	struct svg_plot p;
	bool *done = xzalloc((n ? n : 1) * sizeof(*done));

	html_page_begin(b, title);
	sbuf_adds(b, "<h1>");
	esc_html(b, title);
	sbuf_adds(b, "</h1>\n");
	for (size_t i = 0; i < n; i++) {
		if (isnan(v[i].value))
			continue;
		x0 = fmin(x0, (double)v[i].suite);
		x1 = fmax(x1, (double)v[i].suite);
		y0 = fmin(y0, v[i].value);
		y1 = fmax(y1, v[i].value);
	}
	if (x0 > x1) {
		html_missing(b, "no value of this metric in the database");
	} else {
		svg_begin(&p, b, "trend", metric, 900, 360, x0 - 0.5, x1 + 0.5, fmin(0, y0),
			  y1 + (y1 - fmin(0, y0)) * 0.05 + (y1 == 0), false);
		svg_axes(&p, "suite (its number in the results database)", metric);
		/* a series per case, in the order the cases first appear */
		for (size_t i = 0; i < n; i++) {
			if (done[i])
				continue;
			svg_series_begin(&p, v[i].case_name);
			for (size_t k = i; k < n; k++) {
				char *tip;

				if (done[k] || strcmp(v[k].case_name, v[i].case_name))
					continue;
				done[k] = true;
				if (isnan(v[k].value))
					continue;
				tip = xasprintf("suite %lld, %s, kernel %s: %g (%s)", v[k].suite, v[k].at,
						v[k].kernel, v[k].value, v[k].outcome);
				svg_dot(&p, (double)v[k].suite, v[k].value, tip);
				free(tip);
			}
			svg_series_end(&p);
		}
		svg_end(&p);
	}
	sbuf_adds(b, "<table class=\"history\"><tr><th>suite</th><th class=\"l\">at</th><th class=\"l\">kernel</th>"
		     "<th class=\"l\">case</th><th>value</th><th class=\"l\">outcome</th></tr>\n");
	for (size_t i = 0; i < n; i++) {
		sbuf_addf(b, "<tr><td>%lld</td><td class=\"l\">", v[i].suite);
		esc_html(b, v[i].at);
		sbuf_adds(b, "</td><td class=\"l\">");
		esc_html(b, v[i].kernel);
		sbuf_adds(b, "</td><td class=\"l\">");
		esc_html(b, v[i].case_name);
		sbuf_adds(b, "</td><td data-metric=\"");
		esc_html(b, metric);
		sbuf_adds(b, "\">");
		if (isnan(v[i].value))
			sbuf_adds(b, "-");
		else
			sbuf_addf(b, "%.17g", v[i].value);
		sbuf_adds(b, "</td><td class=\"l ");
		esc_html(b, v[i].outcome);
		sbuf_adds(b, "\">");
		esc_html(b, v[i].outcome);
		sbuf_adds(b, "</td></tr>\n");
	}
	sbuf_adds(b, "</table>\n");
	html_page_end(b);
	free(done);
	free(title);
}
