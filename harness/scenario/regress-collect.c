// SPDX-License-Identifier: GPL-2.0
/*
 * netlab regress: what a run left, read into its result and metrics. The
 * collection (trace decode, counters, metrics.json, the run's page) runs in
 * the worker that ran the guest, as soon as the run ends; the parent only
 * reads what the worker handed over (struct regress_chan), so a slot of
 * `-j N` does not idle while a trace is decoded.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include <json-c/json.h>

#include "lib/jsonout.h"
#include "scenario/baseline.h"
#include "scenario/check.h"
#include "scenario/regress-int.h"
#include "scenario/scnrun.h"

/* @status: the worker's wait status; how it ended tells a run that left nothing. */
void regress_read_run(struct regress_run *run, int status)
{
	char *path = xasprintf("%s/result.json", run->dir), *herr = NULL, *why = NULL;
	struct json_object *j = NULL, *v;

	if (json_file_read(path, &j, &why) == -EFBIG) {
		/* Not ours: a run writes a few KB. */
		free(path);
		run->verdict = RV_INFRA;
		run->exit_status = -1;
		run->reason = why;
		return;
	}
	free(why);
	free(path);
	run->verdict = RV_INFRA;
	run->exit_status = -1;
	/* Only the first, provisional result.json (run.c): the run did not end. */
	if (j && json_object_object_get_ex(j, "provisional", &v) && json_object_get_boolean(v)) {
		json_object_put(j);
		j = NULL;
	}
	if (!j) {
		path = xasprintf("%s/harness-error", run->dir);
		file_read(path, &herr, NULL);
		free(path);
		/* A full disk takes result.json and harness-error with it. */
		run->reason = herr ? herr : disk_short(run->dir, 0);
		if (!run->reason && WIFSIGNALED(status))
			run->reason = xasprintf("the run left no result.json: its netlab process was killed by signal %d (%s)",
						WTERMSIG(status), strsignal(WTERMSIG(status)));
		else if (!run->reason)
			run->reason = xstrdup("the run left no result.json");
		if (herr)
			herr[strcspn(herr, "\n")] = '\0';
		return;
	}
	if (json_object_object_get_ex(j, "verdict", &v))
		for (int i = RV_OK; i <= RV_INTERRUPTED; i++)
			if (!strcmp(json_object_get_string(v), run_verdict_name(i)))
				run->verdict = i;
	if (json_object_object_get_ex(j, "exit_status", &v) && v)
		run->exit_status = json_object_get_int(v);
	if (json_object_object_get_ex(j, "wall_s", &v))
		run->wall_s = json_object_get_double(v);
	if (json_object_object_get_ex(j, "reason", &v) && v)
		run->reason = xstrdup(json_object_get_string(v));
	json_object_put(j);
}

/* RUN_DIR/metrics.json: what `netlab report` shows beside the trace. */
static void write_run_metrics(const char *dir, const struct metrics *m)
{
	struct json_object *j = metrics_to_json(m);
	char *path = xasprintf("%s/metrics.json", dir);

	if (j)
		(void)json_file_write(path, j);
	json_object_put(j);
	free(path);
}

/* ---- the worker's hand-over ------------------------------------------- */

/*
 * A shared page range the worker writes once and the parent reads after
 * waitpid: no pipe to fill and block on, nothing left in the run directory.
 * text: "M" and a metric a line ("%a NAME"), or "E" and the error.
 */
#define CHAN_SIZE (8u << 20)

struct regress_chan {
	size_t len;		/* of text; 0: the worker handed nothing over */
	char text[];
};

struct regress_chan *regress_chan_new(void)
{
	void *p = mmap(NULL, CHAN_SIZE, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void regress_chan_free(struct regress_chan *ch)
{
	if (ch)
		munmap(ch, CHAN_SIZE);
}

static void chan_put(struct regress_chan *ch, const struct sbuf *b)
{
	if (!ch || b->len + 1 > CHAN_SIZE - sizeof(*ch))
		return;	/* too long: the parent collects itself */
	memcpy(ch->text, b->s, b->len + 1);
	__atomic_store_n(&ch->len, b->len, __ATOMIC_RELEASE);
}

/* The metrics as the worker handed them over, or NULL (malformed). */
static struct metrics *chan_metrics(const char *text)
{
	struct metrics *m = metrics_new();

	for (const char *l = text; *l; ) {
		const char *nl = strchr(l, '\n'), *sp;
		char *end, *name;
		double v;

		if (!nl)
			nl = l + strlen(l);
		v = strtod(l, &end);
		sp = end;
		if (end == l || *sp != ' ' || sp + 1 >= nl) {
			metrics_free(m);
			return NULL;
		}
		name = xasprintf("%.*s", (int)(nl - sp - 1), sp + 1);
		metrics_set(m, name, v);
		free(name);
		l = *nl ? nl + 1 : nl;
	}
	return m;
}

void regress_worker_collect(const struct regress_opts *o, const struct regress_scn *rs,
			    const char *dir, struct regress_chan *ch)
{
	struct regress_run run = { .dir = (char *)dir };
	struct scnrun_trace keep = { 0 };
	struct metrics *m;
	char *err = NULL;
	struct sbuf b;

	regress_read_run(&run, 0);
	free(run.reason);
	if (run.verdict != RV_OK)
		return;	/* no metrics: the page alone, at the suite's end */
	m = metrics_new();
	sbuf_init(&b);
	if (scnrun_collect_keep(rs->scn, &rs->cfg, dir, m, &keep, &err)) {
		sbuf_addf(&b, "E%s", err ? err : "");
	} else {
		write_run_metrics(dir, m);
		sbuf_adds(&b, "M");
		for (size_t i = 0; i < metrics_count(m); i++) {
			const char *name;
			double v;

			metrics_at(m, i, &name, &v);
			sbuf_addf(&b, "%a %s\n", v, name);
		}
	}
	chan_put(ch, &b);
	sbuf_release(&b);
	/* The run's page, from the trace the metrics decoded (one decode). */
	if (o->run_page) {
		char *perr = NULL;

		o->run_page(dir, keep.ta.path ? &keep.ta : NULL, &perr);
		free(perr);
	}
	scnrun_trace_release(&keep);
	metrics_free(m);
	free(err);
}

/*
 * A run that completed: its metrics (kept for evaluate()), as its worker
 * handed them over (or, when it handed nothing, collected here), and its
 * checks on this run alone, for the progress line: "checks pass" or the
 * failing ones.
 */
void regress_run_metrics(struct regress_scn *rs, struct regress_run *run,
			 const struct regress_chan *ch, struct sbuf *say)
{
	size_t len = ch ? __atomic_load_n(&ch->len, __ATOMIC_ACQUIRE) : 0;
	char *err = NULL;
	int ret = 0;

	run->m = NULL;
	if (len && ch->text[0] == 'M') {
		run->m = chan_metrics(ch->text + 1);
	} else if (len && ch->text[0] == 'E') {
		err = ch->text[1] ? xstrdup(ch->text + 1) : NULL;
		ret = -EINVAL;
	}
	if (!run->m && !ret) {
		run->m = metrics_new();
		ret = scnrun_collect(rs->scn, &rs->cfg, run->dir, run->m, &err);
		if (!ret)
			write_run_metrics(run->dir, run->m);
	}
	if (ret) {
		metrics_free(run->m);
		run->m = NULL;
		free(run->reason);
		run->reason = err ? err : xstrdup("its metrics could not be read");
		sbuf_addf(say, ", metrics unreadable: %.*s", (int)strcspn(run->reason, "\n"),
			  run->reason);
		return;
	}
	for (size_t c = 0; c < rs->scn->n_checks; c++) {
		const struct scn_check *chk = &rs->scn->checks[c];
		double base = baseline_value(rs->baseline, rs->scn, chk->expr);
		struct check_result res;

		memset(&res, 0, sizeof(res));
		check_eval(chk->expr, run->m, base, &res);
		if (res.status == CHECK_FAIL)
			sbuf_addf(say, "%s%s", run->checks_failed++ ? ", " : ", checks FAIL: ",
				  chk->name);
		check_result_release(&res);
	}
	if (!run->checks_failed)
		sbuf_adds(say, ", checks pass");
}

