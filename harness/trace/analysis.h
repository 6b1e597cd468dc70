/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace analyses as one table (iproute2's struct link_util, one per
 * kind): each analysis of a trace.dat is a struct trace_analysis_ops, and
 * trace_analyses_run() runs the wanted ones over a file in ONE pass
 * (trace/tracepass.h) and keeps what each gave: its result (the struct its
 * own header describes), or its error. `netlab report`, the scenario metrics
 * and the run page all read a trace through it; the JSON object of each
 * result (ops->to_json) is what the text report, metrics and page show.
 *
 * To add an analysis: write its attach/collect pair on struct tracepass (as
 * txpath.c does), its to_json, metrics and free, then add one TA_* id and one
 * row to trace_analysis_table[] (analysis.c), in the order the results are
 * to be taken.
 *
 * With NETLAB_DEBUG_DECODES=FILE in the environment, every pass over a
 * trace.dat (tracepass_run) appends a line "decode PID PATH" to FILE: how tests
 * count that a run decodes each VM's trace once.
 */
#ifndef NETLAB_TRACE_ANALYSIS_H
#define NETLAB_TRACE_ANALYSIS_H

#include <stdbool.h>

struct json_object;
struct metrics;
struct tracepass;

/* The analyses, in the order they attach and their results are taken. */
enum trace_analysis_id {
	TA_PATH,	/* pktpath: stage latency, flows, processes (pktpath.h) */
	TA_DROPS,	/* tracedrops: dropwatch (tracedrops.h) */
	TA_TIMELINE,	/* netrx: NET_RX timeline (netrx.h) */
	TA_RING,	/* drvring: the driver patches' ring lines (drvring.h) */
	TA_TX,		/* txpath: the transmit side of the driver layer (txpath.h) */
	TA_N
};

struct trace_analysis_ops {
	const char *name;	/* its key in the JSON report: "path", "drops", ... */
	/*
	 * Join @tp's pass (opening the file if no analysis did), with @opts
	 * (its own *_opts, copied; NULL: defaults): 0 and *@pass, or -errno and
	 * *@err as its *_read() would give, nothing attached.
	 */
	int (*attach)(struct tracepass *tp, const void *opts, void **pass, char **err);
	/* After the pass: its result or error, as its *_read(); frees @pass. */
	int (*collect)(void *pass, void **result, char **err);
	struct json_object *(*to_json)(const void *result);
	/* Its figures as metrics into @m (adding to what is there for drops). */
	void (*metrics)(const void *result, struct metrics *m);
	void (*free)(void *result);
};

extern const struct trace_analysis_ops trace_analysis_table[TA_N];

/* One analysis in a run: what the caller asks, then what it gave. */
struct trace_analysis {
	bool want;
	const void *opts;	/* the caller's, alive until the run returns */
	/* After trace_analyses_run(): */
	bool attached;
	int rc;			/* the attach's error, or collect's: 0, -errno */
	char *err;		/* with rc: its message, owned here */
	void *result;		/* with rc 0: owned here */
};

struct trace_analyses {
	const char *path;
	struct trace_analysis a[TA_N];
	/*
	 * Called after each attach that failed, in order, or NULL: may change
	 * the opts of those after it; a nonzero return attaches no more (they
	 * are left with want and rc 0, no result).
	 */
	int (*on_attach_error)(struct trace_analyses *ta, enum trace_analysis_id id, void *ctx);
	void *ctx;
};

/*
 * trace_analysis_read() - analysis @id alone over the trace.dat @path, in one
 * pass: 0 and *@out its result (the caller frees it with the row's free, or
 * the analysis's own NAME_free), or -errno with *@err; each analysis's
 * NAME_read() (its header) is this.
 */
int trace_analysis_read(enum trace_analysis_id id, const char *path, const void *opts, void **out,
			char **err);

/**
 * trace_analyses_run() - the wanted analyses over @ta->path in one pass
 * @ta: path, want and opts set; each analysis's outcome is left in @ta->a
 *
 * Attaches each wanted analysis in TA_* order, reads the file once, and
 * collects them (tracepass.h: a callback's error also cancels the slots
 * attached after it). Release with trace_analyses_release().
 */
void trace_analyses_run(struct trace_analyses *ta);

/* Free every result and error left in @ta. */
void trace_analyses_release(struct trace_analyses *ta);

/* The result of @id, or NULL when it gave none. */
const void *trace_analyses_result(const struct trace_analyses *ta, enum trace_analysis_id id);

/* Move the error of @id into *@err (NULL when it has none); returns its rc. */
int trace_analyses_take_err(struct trace_analyses *ta, enum trace_analysis_id id, char **err);

#endif /* NETLAB_TRACE_ANALYSIS_H */
