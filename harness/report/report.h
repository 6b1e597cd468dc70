/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netlab report's library (report.c): what a traced run's trace.dat says,
 * section by section, from the trace analyses' one pass (trace/analysis.h),
 * as text or one JSON object on stdout, decoded in a bounded child process;
 * and the HTML page of a run, suite or bisection (html.h). cmd/cmd-report.c
 * parses the options into struct report_opts and calls these.
 */
#ifndef NETLAB_REPORT_H
#define NETLAB_REPORT_H

#include <stdbool.h>
#include <stdint.h>

enum report_section {
	REPORT_DROPS = 1,
	REPORT_LATENCY = 2,
	REPORT_FLOWS = 4,
	REPORT_TIMELINE = 8,
	REPORT_WIRE = 16,
	REPORT_RING = 32,
	REPORT_TX = 64,
};

struct report_opts {
	const char *target;
	unsigned int sections;	/* asked for; 0: every one the input allows */
	uint64_t interval_ns;
	bool list, packets, snoop, counters;
	unsigned int first, worst;
	unsigned int top;	/* --top N: the flow table's first N (0: all) */
	int flow_order;		/* --sort: enum pktpath_flow_order */
	const char *dev;
	bool json;
	bool html;		/* the HTML page instead (report/html.h) */
	const char *out;	/* -o FILE: where the page goes */
	bool help;
	char *oops;		/* the run's oops decoded to file:line, for --json; or NULL */
};

/* How an error reaches the user (cmd_error("report", ...)): called with its text. */
typedef void (*report_err_fn)(const char *err);

/* Whether @target is a directory (a run directory). */
bool report_is_dir(const char *target);

/*
 * The report of @path (the trace.dat; NULL: the run recorded none) and, for
 * a run directory, its wire, on stdout, computed in a child process bounded
 * as lib/proc.h proc_decode_limits() says. Returns 0; -EINVAL for bad input
 * (a damaged trace, a section the input lacks: @on_err said why, in the
 * child or here); a child killed from outside (SIGPIPE of `| head`, SIGINT)
 * kills us the same way.
 */
int report_isolated(const struct report_opts *ro, char *path, report_err_fn on_err);

/*
 * A run that ended in an oops or panic: its trace decoded to file:line
 * (gdb.h), printed first, or kept in @ro->oops for the JSON object.
 */
void report_oops(struct report_opts *ro, report_err_fn on_err);

/*
 * --html: a run's page, a suite directory's (summary.json) or a
 * bisection's (bisect.json); its path on stdout. 0, or -EINVAL once
 * @on_err said why (a damaged trace: the page is written and says so).
 */
int report_html(const struct report_opts *ro, report_err_fn on_err);

#endif /* NETLAB_REPORT_H */
