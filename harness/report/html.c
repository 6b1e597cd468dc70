// SPDX-License-Identifier: GPL-2.0
/*
 * The HTML report (html.h): the page frame, numbers taken from the JSON
 * report, and the writing of a run's page, whose trace is decoded in a
 * bounded child process.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/jsonout.h"
#include "lib/proc.h"
#include "report/html-int.h"
#include "report/runview.h"
#include "lib/metrics.h"
#include "trace/analysis.h"
#include "trace/drvring.h"
#include "trace/netrx.h"
#include "trace/pktpath.h"
#include "trace/tracedrops.h"

void html_run_error(struct html_run *r, char *msg)
{
	if (!msg)
		return;
	msg[strcspn(msg, "\n")] = '\0';
	for (size_t i = 0; i < r->n_errors; i++)
		if (!strcmp(r->errors[i], msg)) {
			free(msg);
			return;
		}
	if (r->n_errors < HTML_MAX_ERRORS)
		r->errors[r->n_errors++] = msg;
	else
		free(msg);
}

/* ---- reading the run ----------------------------------------------------------- */

static bool is_dir(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

/* DIR/NAME as JSON into *out (NULL when absent); -EINVAL naming it when it is not JSON. */
static int read_json(const char *dir, const char *name, struct json_object **out, char **err)
{
	char *p = xasprintf("%s/%s", dir, name);
	int ret = 0;

	*out = NULL;
	if (!access(p, F_OK)) {
		char *why = NULL;

		if (json_file_read(p, out, &why) == -EFBIG) {
			err_set(err, "cannot read %s\nhint: it is written by netlab run / regress; run again, or remove it", why);
			ret = -EINVAL;
		} else if (!*out || !json_object_is_type(*out, json_type_object)) {
			err_set(err, "cannot read '%s': not a JSON object (%s)\nhint: it is written by netlab run / regress; run again, or remove it",
				p, *out ? "another type" : why ? why : "unknown");
			json_object_put(*out);
			*out = NULL;
			ret = -EINVAL;
		}
		free(why);
	}
	free(p);
	return ret;
}

/* RUN_DIR/files/trace.dat, RUN_DIR/trace.dat (as netlab report looks), or NULL. */
static char *find_trace(const char *dir)
{
	static const char *const rel[] = { "files/trace.dat", "trace.dat" };

	for (size_t i = 0; i < ARRAY_SIZE(rel); i++) {
		char *p = xasprintf("%s/%s", dir, rel[i]);

		if (!access(p, F_OK))
			return p;
		free(p);
	}
	return NULL;
}

/* An analysis that failed: its message on the page, unless the trace simply lacks its events. */
static void analysis_error(struct html_run *r, int ret, char *err)
{
	if (ret && ret != -ENODATA)
		html_run_error(r, err ? err : xasprintf("%s: %s", r->trace, strerror(-ret)));
	else
		free(err);
}

/*
 * What the analyses gave (trace/analysis.h): their results into the page,
 * each that failed an error line, the attach errors first (the order they
 * came in when each analysis attached, then collected, in turn).
 */
static void take_analyses(struct html_run *r, struct trace_analyses *ta)
{
	static const enum trace_analysis_id used[] = { TA_PATH, TA_DROPS, TA_TIMELINE, TA_RING };
	void **into[TA_N] = { [TA_PATH] = (void **)&r->pp, [TA_DROPS] = (void **)&r->td,
			      [TA_TIMELINE] = (void **)&r->nr, [TA_RING] = (void **)&r->dr };

	for (int attached = 0; attached < 2; attached++)
		for (size_t i = 0; i < ARRAY_SIZE(used); i++) {
			struct trace_analysis *a = &ta->a[used[i]];
			char *err = NULL;
			int ret;

			if (!a->want || a->attached != attached)
				continue;
			ret = trace_analyses_take_err(ta, used[i], &err);
			analysis_error(r, ret, err);
			if (!a->rc) {
				*into[used[i]] = a->result;
				a->result = NULL;
			}
		}
}

/*
 * The analyses netlab report runs, with its defaults and --worst 1, in one
 * pass; each that fails leaves its part NULL and an error line.
 */
static void analyse(struct html_run *r)
{
	static const struct netrx_opts no = NETRX_OPTS_PAGE;
	struct drvring_opts dro = { .counters = r->m };
	struct trace_analyses ta = { .path = r->trace };

	for (int id = 0; id < TA_N; id++)
		ta.a[id].want = id != TA_TX;
	ta.a[TA_TIMELINE].opts = &no;
	ta.a[TA_RING].opts = &dro;
	trace_analyses_run(&ta);
	take_analyses(r, &ta);
	trace_analyses_release(&ta);
}

void report_json_analyses(struct json_object *o, const struct pktpath *pp, const struct netrx *nr,
			  const struct drvring *dr)
{
	struct json_object *t;

	if (pp) {
		struct json_object *pj = pktpath_to_json(pp);

		if (!json_object_object_get_ex(o, "trace", &t) &&
		    json_object_object_get_ex(pj, "trace", &t))
			json_object_object_add(o, "trace", json_object_get(t));
		json_object_object_del(pj, "trace");
		json_object_object_add(o, "path", pj);
	}
	if (nr) {
		struct json_object *nj = netrx_to_json(nr);

		json_object_object_del(nj, "trace");
		json_object_object_add(o, "timeline", nj);
	}
	if (dr) {
		struct json_object *dj = drvring_to_json(dr);

		json_object_object_del(dj, "trace");
		json_object_object_add(o, "ring", dj);
	}
}

/*
 * The JSON report as `netlab report --json --worst 1` composes it
 * (cmd-report.c print_report_json): drops' object at the top, then path,
 * timeline and ring without their "trace", and wire.
 */
static void compose_json(struct html_run *r)
{
	struct json_object *o = r->td ? tracedrops_to_json(r->td) : json_object_new_object();
	struct runview *rv = NULL;
	char *err = NULL;

	report_json_analyses(o, r->pp, r->nr, r->dr);
	if (r->dir) {
		int ret = runview_read(r->dir, &rv, &err);

		if (!ret)
			json_object_object_add(o, "wire", runview_to_json(rv));
		else if (ret != -ENOENT)
			html_run_error(r, err), err = NULL;
		free(err);
		runview_free(rv);
	}
	r->rep = o;
}

static void run_release(struct html_run *r)
{
	tracedrops_free(r->td);
	pktpath_free(r->pp);
	netrx_free(r->nr);
	drvring_free(r->dr);
	json_object_put(r->rep);
	for (size_t i = 0; i < r->n_errors; i++)
		free(r->errors[i]);
}

/* Render and write: 0, or -errno of writing @out. */
static int write_page(const struct html_run *r, const char *out)
{
	struct sbuf b;
	int ret;

	sbuf_init(&b);
	html_run_render(&b, r);
	ret = file_write(out, b.s, b.len);
	sbuf_release(&b);
	return ret;
}

/*
 * With a trace: decode and write in a child; a child that dies of the file
 * leaves the page to be written here without the trace's sections. Returns
 * 0 or -errno of writing @out.
 */
static int write_isolated(struct html_run *r, const char *out, struct trace_analyses *done)
{
	int status, ret;
	pid_t pid;

	if (r->trace && done && done->path && !strcmp(done->path, r->trace)) {
		/* Decoded already (by the metrics of the run): not again. */
		take_analyses(r, done);
		compose_json(r);
		return write_page(r, out);
	}
	if (r->trace) {
		fflush(NULL);
		pid = fork();
		if (!pid) {
			proc_decode_limits(r->trace);
			analyse(r);
			compose_json(r);
			ret = write_page(r, out);
			/* 0, or 100 + errno of the write (errno values fit below 100) */
			_exit(ret ? 100 + (-ret < 100 ? -ret : EIO) : 0);
		}
		while (pid > 0 && waitpid(pid, &status, 0) < 0)
			if (errno != EINTR)
				break;
		if (pid > 0 && WIFEXITED(status) && !WEXITSTATUS(status))
			return 0;
		if (pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) >= 100)
			return -(WEXITSTATUS(status) - 100);
		if (pid > 0 && WIFSIGNALED(status))
			html_run_error(r, xasprintf("cannot read trace '%s': decoding it failed (%s): the file is truncated or corrupted; the trace's sections are left out",
						    r->trace, strsignal(WTERMSIG(status))));
		else
			html_run_error(r, xasprintf("cannot read trace '%s': its reader could not run (%s)",
						    r->trace, pid < 0 ? strerror(errno) : "exit status"));
		r->trace = NULL;
	}
	compose_json(r);
	return write_page(r, out);
}

int html_run_write(const char *target, const char *out, char **err)
{
	return html_run_write_from(target, out, NULL, err);
}

int html_run_write_from(const char *target, const char *out, struct trace_analyses *done,
			char **err)
{
	struct html_run r = { .target = target };
	char *trace = NULL, *def = NULL;
	int ret;

	if (access(target, F_OK)) {
		ret = -errno;
		err_set(err, "cannot read run directory '%s': %s\nhint: give a run directory (netlab run --out DIR, or one of a suite's DIR/SCENARIO/run-N)",
			target, strerror(-ret));
		return ret;
	}
	if (is_dir(target)) {
		r.dir = target;
		ret = read_json(target, "result.json", &r.result, err);
		if (!ret)
			ret = read_json(target, "metrics.json", &r.mj, err);
		if (ret)
			goto out;
		trace = find_trace(target);
		if (!out)
			out = def = xasprintf("%s/report.html", target);
	} else {
		if (!out) {
			err_set(err, "--html for trace '%s' needs -o FILE\nhint: or give the run directory the trace is in",
				target);
			return -EINVAL;
		}
		trace = xstrdup(target);
	}
	r.trace = trace;
	if (r.mj) {
		r.m = metrics_new();
		metrics_add_json(r.m, NULL, r.mj);
	}
	if (r.dir && !r.trace)
		html_run_error(&r, xasprintf("no trace: '%s/files/trace.dat' does not exist (the run recorded none); the trace's sections are left out",
					     target));
	ret = write_isolated(&r, out, done);
	if (ret)
		err_set(err, "cannot write '%s': %s", out, strerror(-ret));
out:
	run_release(&r);
	json_object_put(r.result);
	json_object_put(r.mj);
	metrics_free(r.m);
	free(trace);
	free(def);
	return ret;
}

/* ---- the suite ------------------------------------------------------------------ */

/* RUN_DIR/report.html exists. */
static bool has_page(const char *rd)
{
	char *p = xasprintf("%s/report.html", rd);
	bool ret = !access(p, F_OK);

	free(p);
	return ret;
}

int html_suite_write(const char *dir, const char *out, int runs, char **err)
{
	struct json_object *sum = NULL, *scns;
	char *def = NULL;
	struct sbuf b;
	int ret;

	if (!is_dir(dir)) {
		err_set(err, "cannot read suite directory '%s': %s", dir,
			strerror(access(dir, F_OK) ? errno : ENOTDIR));
		return -ENOENT;
	}
	ret = read_json(dir, "summary.json", &sum, err);
	if (ret)
		return ret;
	if (!sum || !json_object_object_get_ex(sum, "scenarios", &scns) ||
	    !json_object_is_type(scns, json_type_array)) {
		err_set(err, "cannot read '%s/summary.json': %s\nhint: give the directory of netlab regress --out",
			dir, sum ? "it has no \"scenarios\" array" : strerror(ENOENT));
		json_object_put(sum);
		return sum ? -EINVAL : -ENOENT;
	}
	for (size_t i = 0; runs && i < json_object_array_length(scns); i++) {
		struct json_object *rs = html_json_at(json_object_array_get_idx(scns, i), "runs");

		for (size_t k = 0; rs && k < json_object_array_length(rs); k++) {
			const char *rd = json_object_get_string(html_json_at(json_object_array_get_idx(rs, k), "dir"));
			char *rerr = NULL;

			if (!rd || !is_dir(rd) || (runs == HTML_RUNS_MISSING && has_page(rd)))
				continue;
			if (html_run_write(rd, NULL, &rerr))
				free(rerr);
		}
	}
	if (!out)
		out = def = xasprintf("%s/report.html", dir);
	sbuf_init(&b);
	html_suite_render(&b, dir, sum);
	ret = file_write(out, b.s, b.len);
	if (ret)
		err_set(err, "cannot write '%s': %s", out, strerror(-ret));
	sbuf_release(&b);
	json_object_put(sum);
	free(def);
	return ret;
}
