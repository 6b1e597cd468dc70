// SPDX-License-Identifier: GPL-2.0
/*
 * The trace analyses' table and their one pass (see analysis.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/util.h"
#include "lib/metrics.h"
#include "trace/analysis.h"
#include "trace/drvring.h"
#include "trace/netrx.h"
#include "trace/pktpath.h"
#include "trace/tracedrops.h"
#include "trace/tracepass.h"
#include "trace/txpath.h"

/* ---- the rows: each analysis's own functions behind one signature ---- */

/* NAME_attach(tp, opts, &pass, err) as the table's attach (TAG_attach). */
#define TA_ATTACH(TAG, NAME)                                                             \
	static int TAG##_attach(struct tracepass *tp, const void *o, void **pass, char **err) \
	{                                                                                \
		return NAME##_attach(tp, o, (struct NAME##_pass **)pass, err);            \
	}

/* NAME_collect, NAME_to_json and NAME_free as TAG_collect, TAG_json, TAG_free. */
#define TA_RESULT(TAG, NAME)                                                    \
	static int TAG##_collect(void *pass, void **out, char **err)            \
	{                                                                       \
		return NAME##_collect(pass, (struct NAME **)out, err);           \
	}                                                                       \
	static struct json_object *TAG##_json(const void *r)                    \
	{                                                                       \
		return NAME##_to_json(r);                                        \
	}                                                                       \
	static void TAG##_free(void *r)                                         \
	{                                                                       \
		NAME##_free(r);                                                  \
	}

/* NAME_metrics(result, m) as TAG_metrics. */
#define TA_METRICS(TAG, NAME)                                        \
	static void TAG##_metrics(const void *r, struct metrics *m) \
	{                                                            \
		NAME##_metrics(r, m);                                \
	}

TA_ATTACH(path, pktpath)
TA_RESULT(path, pktpath)
TA_METRICS(path, pktpath)
TA_ATTACH(drops, tracedrops)
TA_RESULT(drops, tracedrops)
TA_ATTACH(timeline, netrx)
TA_RESULT(timeline, netrx)
TA_METRICS(timeline, netrx)
TA_ATTACH(ring, drvring)
TA_RESULT(ring, drvring)
TA_METRICS(ring, drvring)
TA_RESULT(tx, txpath)
TA_METRICS(tx, txpath)

/* txpath has no options. */
static int tx_attach(struct tracepass *tp, const void *o, void **pass, char **err)
{
	(void)o;
	return txpath_attach(tp, (struct txpath_pass **)pass, err);
}

static void add_to(struct metrics *m, const char *name, double v)
{
	double old = 0;

	metrics_get(m, name, &old);
	metrics_set(m, name, old + v);
}

/* drops.total, drops.lost_events and drops.reason.REASON, added to what @m holds. */
static void drops_metrics(const void *r, struct metrics *m)
{
	const struct tracedrops *td = r;

	for (size_t i = 0; i < td->n_by_reason; i++) {
		char name[128];

		snprintf(name, sizeof(name), "drops.reason.%s", td->by_reason[i].name);
		add_to(m, name, (double)td->by_reason[i].count);
	}
	add_to(m, "drops.total", (double)td->total);
	add_to(m, "drops.lost_events", (double)td->lost);
}

const struct trace_analysis_ops trace_analysis_table[TA_N] = {
	[TA_PATH] = { "path", path_attach, path_collect, path_json, path_metrics, path_free },
	[TA_DROPS] = { "drops", drops_attach, drops_collect, drops_json, drops_metrics, drops_free },
	[TA_TIMELINE] = { "timeline", timeline_attach, timeline_collect, timeline_json,
			  timeline_metrics, timeline_free },
	[TA_RING] = { "ring", ring_attach, ring_collect, ring_json, ring_metrics, ring_free },
	[TA_TX] = { "tx", tx_attach, tx_collect, tx_json, tx_metrics, tx_free },
};

/* ---- one analysis alone, and the pass of several ------------------------ */

int trace_analysis_read(enum trace_analysis_id id, const char *path, const void *opts, void **out,
			char **err)
{
	const struct trace_analysis_ops *op = &trace_analysis_table[id];
	struct tracepass tp;
	void *pass = NULL;
	int ret;

	*out = NULL;
	tracepass_init(&tp, path);
	ret = op->attach(&tp, opts, &pass, err);
	if (!ret) {
		tracepass_run(&tp);
		ret = op->collect(pass, out, err);
	}
	tracepass_close(&tp);
	return ret;
}

/* The analyses' own entry points (their headers), each one alone. */
int pktpath_read(const char *path, const struct pktpath_opts *o, struct pktpath **out, char **err)
{
	return trace_analysis_read(TA_PATH, path, o, (void **)out, err);
}

int tracedrops_read(const char *path, const struct tracedrops_opts *o, struct tracedrops **out,
		    char **err)
{
	return trace_analysis_read(TA_DROPS, path, o, (void **)out, err);
}

int netrx_read(const char *path, const struct netrx_opts *o, struct netrx **out, char **err)
{
	return trace_analysis_read(TA_TIMELINE, path, o, (void **)out, err);
}

int drvring_read(const char *path, const struct drvring_opts *o, struct drvring **out, char **err)
{
	return trace_analysis_read(TA_RING, path, o, (void **)out, err);
}

int txpath_read(const char *path, struct txpath **out, char **err)
{
	return trace_analysis_read(TA_TX, path, NULL, (void **)out, err);
}

void trace_analyses_run(struct trace_analyses *ta)
{
	void *pass[TA_N] = { 0 };
	struct tracepass tp;
	int id;

	tracepass_init(&tp, ta->path);
	for (id = 0; id < TA_N; id++) {
		ta->a[id].attached = false;
		ta->a[id].rc = 0;
		ta->a[id].err = NULL;
		ta->a[id].result = NULL;
	}
	for (id = 0; id < TA_N; id++) {
		struct trace_analysis *a = &ta->a[id];

		if (!a->want)
			continue;
		a->rc = trace_analysis_table[id].attach(&tp, a->opts, &pass[id], &a->err);
		a->attached = !a->rc;
		if (a->rc && ta->on_attach_error && ta->on_attach_error(ta, id, ta->ctx))
			break;
	}
	tracepass_run(&tp);
	for (id = 0; id < TA_N; id++)
		if (ta->a[id].attached)
			ta->a[id].rc = trace_analysis_table[id].collect(pass[id], &ta->a[id].result,
									&ta->a[id].err);
	tracepass_close(&tp);
}

void trace_analyses_release(struct trace_analyses *ta)
{
	for (int id = 0; id < TA_N; id++) {
		struct trace_analysis *a = &ta->a[id];

		if (a->result)
			trace_analysis_table[id].free(a->result);
		free(a->err);
		a->result = NULL;
		a->err = NULL;
	}
}

const void *trace_analyses_result(const struct trace_analyses *ta, enum trace_analysis_id id)
{
	return ta->a[id].rc ? NULL : ta->a[id].result;
}

int trace_analyses_take_err(struct trace_analyses *ta, enum trace_analysis_id id, char **err)
{
	*err = ta->a[id].err;
	ta->a[id].err = NULL;
	return ta->a[id].rc;
}
