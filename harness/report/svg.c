// SPDX-License-Identifier: GPL-2.0
/*
 * Inline SVG plots (svg.h): one fixed layout, the plot area left, the legend
 * right; "nice" linear ticks (1, 2, 5 x 10^k) or decades on a log axis.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/esc.h"
#include "report/svg.h"

static const char *const colors[] = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
				      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf" };

const char *svg_color(int i)
{
	return colors[(unsigned int)i % (sizeof(colors) / sizeof(colors[0]))];
}

void svg_begin(struct svg_plot *p, struct sbuf *b, const char *id, const char *title, int w, int h,
	       double x0, double x1, double y0, double y1, bool xlog)
{
	memset(p, 0, sizeof(*p));
	p->b = b;
	p->w = w;
	p->h = h;
	p->ml = 70;
	p->mr = 200;
	p->mt = 30;
	p->mb = 50;
	p->xlog = xlog;
	if (xlog) {
		x0 = x0 > 0 ? x0 : 1e-3;
		x1 = x1 > x0 ? x1 : x0 * 10;
		x0 = pow(10, floor(log10(x0)));
		x1 = pow(10, ceil(log10(x1)));
		if (x1 <= x0)
			x1 = x0 * 10;
	} else if (!(x1 > x0)) {
		x1 = x0 + 1;
	}
	if (!(y1 > y0))
		y1 = y0 + 1;
	p->x0 = x0;
	p->x1 = x1;
	p->y0 = y0;
	p->y1 = y1;
	sbuf_addf(b, "<svg class=\"plot\" data-plot=\"");
	esc_html(b, id);
	sbuf_addf(b, "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n",
		  w, h, w, h);
	sbuf_adds(b, "<text class=\"plot-title\" x=\"10\" y=\"18\">");
	esc_html(b, title);
	sbuf_adds(b, "</text>\n");
}

double svg_x(const struct svg_plot *p, double x)
{
	double f, pw = p->w - p->ml - p->mr;

	if (p->xlog)
		f = x > 0 ? (log10(x) - log10(p->x0)) / (log10(p->x1) - log10(p->x0)) : 0;
	else
		f = (x - p->x0) / (p->x1 - p->x0);
	f = f < 0 ? 0 : f > 1 ? 1 : f;
	return p->ml + f * pw;
}

double svg_y(const struct svg_plot *p, double y)
{
	double f = (y - p->y0) / (p->y1 - p->y0), ph = p->h - p->mt - p->mb;

	f = f < 0 ? 0 : f > 1 ? 1 : f;
	return p->mt + (1 - f) * ph;
}

/* A tick step of 1, 2 or 5 x 10^k giving about @n ticks over @span. */
static double nice_step(double span, int n)
{
	double raw = span / n, mag = pow(10, floor(log10(raw))), r = raw / mag;

	return (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10) * mag;
}

static void tick_label(char *buf, size_t n, double v)
{
	if (v == 0 || (fabs(v) >= 1e-3 && fabs(v) < 1e7))
		snprintf(buf, n, "%.6g", fabs(v) < 1e-12 ? 0 : v);
	else
		snprintf(buf, n, "%.2g", v);
}

void svg_axes(struct svg_plot *p, const char *xlabel, const char *ylabel)
{
	struct sbuf *b = p->b;
	double xa = p->ml, xb = p->w - p->mr, ya = p->mt, yb = p->h - p->mb;
	char lbl[32];

	sbuf_addf(b, "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n",
		  xa, ya, xb - xa, yb - ya);
	sbuf_adds(b, "<g class=\"ticks\" data-axis=\"x\">");
	if (p->xcats) {
		for (size_t i = 0; i < p->n_xcats; i++) {
			sbuf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
				  svg_x(p, i + 0.5), yb + 16);
			esc_html(b, p->xcats[i]);
			sbuf_adds(b, "</text>");
		}
	} else if (p->xlog) {
		for (double v = p->x0; v <= p->x1 * 1.0001; v *= 10) {
			tick_label(lbl, sizeof(lbl), v);
			sbuf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>",
				  svg_x(p, v), ya, svg_x(p, v), yb + 4, svg_x(p, v), yb + 16, lbl);
		}
	} else {
		double st = nice_step(p->x1 - p->x0, 6);

		for (double v = ceil(p->x0 / st) * st; v <= p->x1 + st * 1e-6; v += st) {
			tick_label(lbl, sizeof(lbl), v);
			sbuf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>",
				  svg_x(p, v), ya, svg_x(p, v), yb + 4, svg_x(p, v), yb + 16, lbl);
		}
	}
	sbuf_adds(b, "</g>\n<g class=\"ticks\" data-axis=\"y\">");
	{
		double st = nice_step(p->y1 - p->y0, 5);

		for (double v = ceil(p->y0 / st) * st; v <= p->y1 + st * 1e-6; v += st) {
			tick_label(lbl, sizeof(lbl), v);
			sbuf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>",
				  xa - 4, svg_y(p, v), xb, svg_y(p, v), xa - 6, svg_y(p, v) + 4, lbl);
		}
	}
	sbuf_adds(b, "</g>\n");
	sbuf_addf(b, "<text class=\"axis-label\" data-axis=\"x\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">",
		  (xa + xb) / 2, p->h - 12);
	esc_html(b, xlabel);
	sbuf_addf(b, "</text>\n<text class=\"axis-label\" data-axis=\"y\" x=\"16\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 16 %.1f)\">",
		  (ya + yb) / 2, (ya + yb) / 2);
	esc_html(b, ylabel);
	sbuf_adds(b, "</text>\n");
}

void svg_series_begin(struct svg_plot *p, const char *name)
{
	const char *c = svg_color(p->n_series);

	sbuf_adds(p->b, "<g class=\"series\" data-series=\"");
	esc_html(p->b, name);
	sbuf_addf(p->b, "\" stroke=\"%s\" fill=\"%s\">\n", c, c);
	if (p->n_legend < SVG_MAX_LEGEND) {
		p->legend[p->n_legend].name = xstrdup(name);
		p->legend[p->n_legend++].color = p->n_series;
	}
	p->n_series++;
}

void svg_series_end(struct svg_plot *p)
{
	sbuf_adds(p->b, "</g>\n");
}

void svg_line(struct svg_plot *p, const double *xs, const double *ys, size_t n, bool steps)
{
	if (!n)
		return;
	sbuf_adds(p->b, "<polyline fill=\"none\" stroke-width=\"1.5\" points=\"");
	for (size_t i = 0; i < n; i++) {
		if (steps && i)
			sbuf_addf(p->b, "%.1f,%.1f ", svg_x(p, xs[i]), svg_y(p, ys[i - 1]));
		sbuf_addf(p->b, "%.1f,%.1f ", svg_x(p, xs[i]), svg_y(p, ys[i]));
	}
	sbuf_adds(p->b, "\"/>\n");
}

static void title_el(struct sbuf *b, const char *title)
{
	if (!title)
		return;
	sbuf_adds(b, "<title>");
	esc_html(b, title);
	sbuf_adds(b, "</title>");
}

void svg_rect(struct svg_plot *p, double xa, double ya, double xb, double yb, const char *cls,
	      const char *title)
{
	double x0 = svg_x(p, xa), x1 = svg_x(p, xb), y0 = svg_y(p, ya), y1 = svg_y(p, yb);

	sbuf_addf(p->b, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">",
		  cls ? cls : "bar", fmin(x0, x1), fmin(y0, y1), fmax(fabs(x1 - x0), 1),
		  fabs(y1 - y0));
	title_el(p->b, title);
	sbuf_adds(p->b, "</rect>\n");
}

void svg_mark(struct svg_plot *p, double x, double y, const char *label, const char *title)
{
	double px = svg_x(p, x), py = svg_y(p, y);

	sbuf_adds(p->b, "<g class=\"mark\" data-mark=\"");
	esc_html(p->b, label);
	sbuf_addf(p->b, "\"><circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\"/>", px, py);
	title_el(p->b, title);
	sbuf_addf(p->b, "<text x=\"%.1f\" y=\"%.1f\" stroke=\"none\">", px + 4, py - 4);
	esc_html(p->b, label);
	sbuf_adds(p->b, "</text></g>\n");
}

void svg_dot(struct svg_plot *p, double x, double y, const char *title)
{
	sbuf_addf(p->b, "<circle class=\"dot\" cx=\"%.1f\" cy=\"%.1f\" r=\"2\">", svg_x(p, x),
		  svg_y(p, y));
	title_el(p->b, title);
	sbuf_adds(p->b, "</circle>\n");
}

void svg_band(struct svg_plot *p, double xa, double xb, const char *cls, const char *title)
{
	double x0 = svg_x(p, xa), x1 = svg_x(p, xb);

	sbuf_addf(p->b, "<rect class=\"%s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\">",
		  cls, x0, p->mt, fmax(x1 - x0, 1.5), p->h - p->mt - p->mb);
	title_el(p->b, title);
	sbuf_adds(p->b, "</rect>\n");
}

void svg_end(struct svg_plot *p)
{
	double x = p->w - p->mr + 12, y = p->mt + 8;

	sbuf_adds(p->b, "<g class=\"legend\">\n");
	for (size_t i = 0; i < p->n_legend; i++, y += 16) {
		sbuf_addf(p->b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\">",
			  x, y - 9, svg_color(p->legend[i].color), x + 14, y);
		esc_html(p->b, p->legend[i].name);
		sbuf_adds(p->b, "</text>\n");
		free(p->legend[i].name);
	}
	sbuf_adds(p->b, "</g>\n</svg>\n");
	p->n_legend = 0;
}
