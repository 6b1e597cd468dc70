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

static int path_attach(struct tracepass *tp, const void *o, void **pass, char **err)
{
	return pktpath_attach(tp, o, (struct pktpath_pass **)pass, err);
}

static int path_collect(void *pass, void **out, char **err)
{
	return pktpath_collect(pass, (struct pktpath **)out, err);
}

static struct json_object *path_json(const void *r)
{
	return pktpath_to_json(r);
}

static void path_metrics(const void *r, struct metrics *m)
{
	pktpath_metrics(r, m);
}

static void path_free(void *r)
{
	pktpath_free(r);
}

static int drops_attach(struct tracepass *tp, const void *o, void **pass, char **err)
{
	return tracedrops_attach(tp, o, (struct tracedrops_pass **)pass, err);
}

static int drops_collect(void *pass, void **out, char **err)
{
	return tracedrops_collect(pass, (struct tracedrops **)out, err);
}

static struct json_object *drops_json(const void *r)
{
	return tracedrops_to_json(r);
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

static void drops_free(void *r)
{
	tracedrops_free(r);
}

static int timeline_attach(struct tracepass *tp, const void *o, void **pass, char **err)
{
	return netrx_attach(tp, o, (struct netrx_pass **)pass, err);
}

static int timeline_collect(void *pass, void **out, char **err)
{
	return netrx_collect(pass, (struct netrx **)out, err);
}

static struct json_object *timeline_json(const void *r)
{
	return netrx_to_json(r);
}

static void timeline_metrics(const void *r, struct metrics *m)
{
	netrx_metrics(r, m);
}

static void timeline_free(void *r)
{
	netrx_free(r);
}

static int ring_attach(struct tracepass *tp, const void *o, void **pass, char **err)
{
	return drvring_attach(tp, o, (struct drvring_pass **)pass, err);
}

static int ring_collect(void *pass, void **out, char **err)
{
	return drvring_collect(pass, (struct drvring **)out, err);
}

static struct json_object *ring_json(const void *r)
{
	return drvring_to_json(r);
}

static void ring_metrics(const void *r, struct metrics *m)
{
	drvring_metrics(r, m);
}

static void ring_free(void *r)
{
	drvring_free(r);
}

/* txpath has no options. */
static int tx_attach(struct tracepass *tp, const void *o, void **pass, char **err)
{
	(void)o;
	return txpath_attach(tp, (struct txpath_pass **)pass, err);
}

static int tx_collect(void *pass, void **out, char **err)
{
	return txpath_collect(pass, (struct txpath **)out, err);
}

static struct json_object *tx_json(const void *r)
{
	return txpath_to_json(r);
}

static void tx_metrics(const void *r, struct metrics *m)
{
	txpath_metrics(r, m);
}

static void tx_free(void *r)
{
	txpath_free(r);
}

const struct trace_analysis_ops trace_analysis_table[TA_N] = {
	[TA_PATH] = { "path", path_attach, path_collect, path_json, path_metrics, path_free },
	[TA_DROPS] = { "drops", drops_attach, drops_collect, drops_json, drops_metrics, drops_free },
	[TA_TIMELINE] = { "timeline", timeline_attach, timeline_collect, timeline_json,
			  timeline_metrics, timeline_free },
	[TA_RING] = { "ring", ring_attach, ring_collect, ring_json, ring_metrics, ring_free },
	[TA_TX] = { "tx", tx_attach, tx_collect, tx_json, tx_metrics, tx_free },
};

/* ---- the pass ---------------------------------------------------------- */

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
