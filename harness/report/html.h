/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HTML reports people look at: one self-contained page per run (inline CSS
 * and SVG, no script, nothing fetched) and one per regression suite.
 *
 * A run page shows what `netlab report --json --worst 1 RUN_DIR` says, from
 * the same analyses in one pass over the trace (trace/tracepass.h), beside
 * the run's metrics.json and result.json: the loss story as a waterfall
 * across layers, drops over time by reason, per-stage latency CDFs, the
 * driver rings over time, the NET_RX tree of the worst interrupt, flows and
 * processes, and how to open the trace and the captures. Every number on
 * the page is an element with data-metric="KEY" (a dotted path into that
 * JSON report; with data-source="metrics", a name in metrics.json; with
 * data-source="summary", a path into the suite's summary.json), and its text
 * is the JSON value as json-c prints it, so the page and the JSON agree.
 *
 * The trace is decoded in a child process with bounded memory and CPU time
 * (as netlab report does): a truncated or corrupted trace.dat that makes the
 * decoding fail, or crash, still gives a page, with what the run has
 * besides the trace and a line saying what failed.
 *
 * Everything taken from the run (scenario names, comm strings, reasons) is
 * escaped with esc_html() (lib/esc.h).
 */
#ifndef NETLAB_HTML_H
#define NETLAB_HTML_H

#include "lib/esc.h"
#include "lib/util.h"


/**
 * html_run_write() - write the page of a run
 * @target: a run directory, or a trace.dat
 * @out: the page to write; NULL: RUN_DIR/report.html (required for a trace.dat)
 * @err: on failure, a message naming the file at fault; the caller frees it
 *
 * Return: 0 when the page was written (perhaps with error lines in it for a
 * damaged trace); -ENOENT for a target that does not exist; -EINVAL for bad
 * input: a metrics.json, result.json or summary.json that is not JSON, a
 * trace.dat target without @out; or the errno of writing @out.
 */
int html_run_write(const char *target, const char *out, char **err);

/*
 * html_run_write(), with the run's trace already decoded: @done, the
 * analyses of that trace.dat (trace/analysis.h, all but TA_TX wanted, the
 * timeline NETRX_OPTS_PAGE, the ring with the run's counters), as the
 * metrics of the run left them; they are used, not decoded again, when
 * @done->path is the trace the page reads. The page takes the results it
 * shows out of @done; the caller still releases it. NULL: as html_run_write().
 */
struct trace_analyses;
int html_run_write_from(const char *target, const char *out, struct trace_analyses *done,
			char **err);

/*
 * The analyses' sections of the JSON report, into @o (the drops object):
 * "path", "timeline" and "ring" without their own "trace" (pktpath's goes
 * to @o's "trace" when @o has none). netlab report --json and the page's
 * figures are composed by this one function. NULL analyses are left out.
 */
struct json_object;
struct pktpath;
struct netrx;
struct drvring;
void report_json_analyses(struct json_object *o, const struct pktpath *pp, const struct netrx *nr,
			  const struct drvring *dr);

/**
 * html_suite_write() - write the pages of a regression suite's directory
 * @dir: the suite directory, with its summary.json (regress_write_json())
 * @out: the suite page; NULL: DIR/report.html
 * @runs: HTML_RUNS_NONE (false), HTML_RUNS_ALL (true): also write report.html
 *	  into every run directory the summary names that exists, or
 *	  HTML_RUNS_MISSING: into those that have none yet (netlab regress:
 *	  its workers wrote the pages of the runs that ended)
 * @err: as html_run_write(); a run whose page could not be written does not
 *	 fail the suite page (its row says so)
 *
 * Return: 0, -ENOENT, -EINVAL (summary.json unreadable or not netlab's), or
 * the errno of writing the page.
 */
enum { HTML_RUNS_NONE, HTML_RUNS_ALL, HTML_RUNS_MISSING };
int html_suite_write(const char *dir, const char *out, int runs, char **err);

/**
 * html_bisect_write() - write the page of a netlab bisect run directory
 * @dir: the bisection's run directory (bisect.json, bisect.log.jsonl)
 * @out: the page; NULL: DIR/report.html
 * @err: as html_run_write()
 *
 * The steps as a table and each checked metric against the commit order of
 * good..bad (DIR/commits.txt; when it is missing, `git rev-list` of the
 * bisected tree, kept in DIR/commits.txt). netlab bisect writes it after
 * every step.
 *
 * Return: 0; -ENOENT without DIR/bisect.json; -EINVAL when bisect.json or a
 * line of bisect.log.jsonl is not a JSON object; or the errno of writing.
 */
int html_bisect_write(const char *dir, const char *out, char **err);

/* netlab history --html: @metric's values (resultsdb_values()) as a page into @b. */
struct rdb_value;
void html_history_render(struct sbuf *b, const char *metric, const struct rdb_value *v, size_t n);

#endif /* NETLAB_HTML_H */
