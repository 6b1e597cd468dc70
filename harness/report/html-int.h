/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The HTML report's parts (html.c: page frame and numbers; html-run.c: the
 * run page's sections; html-suite.c: the suite page). Internal to report/.
 */
#ifndef NETLAB_HTML_INT_H
#define NETLAB_HTML_INT_H

#include <stdbool.h>

#include "lib/util.h"
#include "report/html.h"

struct json_object;
struct tracedrops;
struct pktpath;
struct netrx;
struct drvring;
struct metrics;

#define HTML_MAX_ERRORS 8

/* What one run page is made of; each part may be NULL (its section says so). */
struct html_run {
	const char *target;		/* as given */
	const char *dir;		/* the run directory, NULL for a trace.dat target */
	const char *trace;		/* the trace.dat, NULL when the run recorded none */
	struct json_object *rep;	/* the JSON report: trace, drops, path, timeline, ring, wire */
	struct json_object *result;	/* result.json */
	struct json_object *mj;		/* metrics.json */
	struct metrics *m;		/* the same, flattened */
	struct tracedrops *td;
	struct pktpath *pp;
	struct netrx *nr;
	struct drvring *dr;
	char *errors[HTML_MAX_ERRORS];	/* what failed, one line each */
	size_t n_errors;
};

/* Add an error line (its first line; duplicates once); takes @msg. */
void html_run_error(struct html_run *r, char *msg);

/* The whole run page into @b. */
void html_run_render(struct sbuf *b, const struct html_run *r);

/* The whole suite page into @b, from summary.json (@sum) of suite directory @dir. */
void html_suite_render(struct sbuf *b, const char *dir, struct json_object *sum);

/*
 * The bisect page into @b: @cfg is bisect.json, @steps the array of
 * bisect.log.jsonl's lines, @commits the commit order (good first).
 */
void html_bisect_render(struct sbuf *b, const char *dir, struct json_object *cfg,
			struct json_object *steps, char *const *commits, size_t n_commits);

/* <!DOCTYPE html>... up to <body>, and the end. */
void html_page_begin(struct sbuf *b, const char *title);
void html_page_end(struct sbuf *b);

/* The value at dotted @path in @root ("path.rx.stages.drv_ip.p50_us", array indexes as numbers). */
struct json_object *html_json_at(struct json_object *root, const char *path);
/* The number at @path in @root (NULL: none), or @dflt when there is none. */
double html_json_num(struct json_object *root, const char *path, double dflt);

/*
 * A number of the JSON report: <span class="num" data-metric=@path>VALUE</span>,
 * VALUE as json-c prints it; "-" (no data-metric) when absent or null.
 * @source: NULL for the report, "metrics" (then @path is a metrics.json
 * name, looked up as one key) or "summary".
 */
void html_num(struct sbuf *b, struct json_object *root, const char *source, const char *path);
/* The same with a printf-built path. */
void html_numf(struct sbuf *b, struct json_object *root, const char *source, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* A string of the JSON (escaped), or @dflt. */
void html_str(struct sbuf *b, struct json_object *root, const char *path, const char *dflt);

/* A run page's section: <section id=@id data-section=@id><h2>@title</h2> ... </section>. */
void html_section_begin(struct sbuf *b, const char *id, const char *title);
void html_section_end(struct sbuf *b);
/* <p class="missing">@why</p>: what a section lacks, and why. */
void html_missing(struct sbuf *b, const char *why);
/* One <td> per column: the number at @path.@i.COLUMN of the run's report. */
void html_num_cells(struct sbuf *b, const struct html_run *r, const char *path, size_t i,
		    const char *const *cols, size_t n);

/* The run page's flows and processes section (html-flows.c). */
void html_sec_flows(struct sbuf *b, const struct html_run *r);
/* The run page's hops section: each hop of a topology file's path (html-flows.c). */
void html_sec_hops(struct sbuf *b, const struct html_run *r);

#endif /* NETLAB_HTML_INT_H */
