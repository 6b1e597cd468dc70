/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inline SVG plots for the HTML report: a plot area with linear or log axes,
 * tick labels, axis labels and a legend, and series drawn into it. Every
 * series is one <g class="series" data-series="NAME"> element, every axis
 * label a <text class="axis-label" data-axis="x|y">, so that a test can
 * count them in the page. Names and labels are escaped (esc_html()).
 *
 * Usage: svg_begin(); svg_axes(); for each series svg_series_begin(),
 * svg_line() / svg_rect() / svg_mark(), svg_series_end(); svg_end() (which
 * draws the legend and closes the element). Everything is appended to the
 * caller's sbuf; nothing is allocated that svg_end() does not free.
 */
#ifndef NETLAB_SVG_H
#define NETLAB_SVG_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/util.h"

#define SVG_MAX_LEGEND 40

struct svg_plot {
	struct sbuf *b;
	int w, h;			/* the whole image, px */
	int ml, mr, mt, mb;		/* margins around the plot area */
	double x0, x1, y0, y1;		/* data ranges; x0 > 0 with xlog */
	bool xlog;
	/* Categories on the x axis instead of numbers: category i spans [i, i+1]. */
	const char *const *xcats;
	size_t n_xcats;
	int n_series;
	size_t n_legend;
	struct {
		char *name;
		int color;
	} legend[SVG_MAX_LEGEND];
};

/*
 * Open <svg class="plot" data-plot=@id> of @w x @h px with @title over it;
 * the data ranges are given: a range of zero width is widened.
 */
void svg_begin(struct svg_plot *p, struct sbuf *b, const char *id, const char *title, int w, int h,
	       double x0, double x1, double y0, double y1, bool xlog);

/* The frame, ticks with their values, and the two axis labels. */
void svg_axes(struct svg_plot *p, const char *xlabel, const char *ylabel);

/* Data to pixels (clamped to the plot area). */
double svg_x(const struct svg_plot *p, double x);
double svg_y(const struct svg_plot *p, double y);

/* The fill/stroke colour of series @i ("#1f77b4", ...). */
const char *svg_color(int i);

/* Open a series: <g class="series" data-series=@name> in the next colour; it joins the legend. */
void svg_series_begin(struct svg_plot *p, const char *name);
void svg_series_end(struct svg_plot *p);

/* A polyline through n points (data coordinates), optionally as steps. */
void svg_line(struct svg_plot *p, const double *xs, const double *ys, size_t n, bool steps);

/* A rectangle between data corners, with a tooltip (@title, may be NULL). */
void svg_rect(struct svg_plot *p, double xa, double ya, double xb, double yb, const char *cls,
	      const char *title);

/* A marker at a data point: a circle with a short label ("p50"), class "mark" data-mark=@label. */
void svg_mark(struct svg_plot *p, double x, double y, const char *label, const char *title);

/* A small dot at a data point (class "dot"), with a tooltip (@title, may be NULL). */
void svg_dot(struct svg_plot *p, double x, double y, const char *title);

/* A vertical band over [xa, xb] of the whole plot height (class @cls), with a tooltip. */
void svg_band(struct svg_plot *p, double xa, double xb, const char *cls, const char *title);

/* The legend (one entry per series, in order) and </svg>. */
void svg_end(struct svg_plot *p);

#endif /* NETLAB_SVG_H */
