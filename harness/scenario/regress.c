// SPDX-License-Identifier: GPL-2.0
/*
 * netlab regress: scenarios -> runs (a pool of forked workers, each running
 * one guest) -> metrics -> medians -> checks.
 */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "boot/acpi.h"
#include "boot/flavour.h"
#include "vm/share.h"
#include "scenario/baseline.h"
#include "lib/jsonout.h"
#include "lib/outlock.h"
#include "lib/provenance.h"
#include "scenario/regress.h"
#include "scenario/regress-int.h"
#include "scenario/scnrun.h"
#include "vm/backend.h"

static const char *const outcome_names[] = {
	[RO_PASS] = "pass", [RO_FAIL] = "fail", [RO_INFRA] = "infra-error",
	[RO_BAD] = "bad-scenario", [RO_INTERRUPTED] = "interrupted", [RO_SKIP] = "skip",
	[RO_NOT_RUN] = "not-run",
};

const char *regress_outcome_name(enum regress_outcome o)
{
	return outcome_names[o];
}

/* The run options of one scenario run. */
static void scn_run_opts(const struct regress_opts *o, const struct regress_scn *rs,
			 struct run_opts *ro)
{
	const struct scenario *s = rs->scn;
	bool det = o->deterministic >= 0 ? o->deterministic : s->deterministic;

	*ro = o->base;
	ro->topology = s->topo->name;
	for (int i = 0; i < VM_MAX_NICS; i++)
		ro->nic_model[i] = s->nic_model[i] ? s->nic_model[i]->name : NULL;
	ro->append = rs->append;
	ro->timeout_s = s->timeout_s;
	if (s->mem_mb)
		ro->mem_mb = s->mem_mb;
	/* cpus = 1 (the default) keeps --smp's */
	if (s->cpus > 1)
		ro->smp = s->cpus;
	for (unsigned int vm = 0; vm < VM_MAX_VMS; vm++)
		ro->vm_smp[vm] = s->vm_cpus[vm];
	/* --snaplen, when given, wins over the scenario's */
	if (s->snaplen >= 0 && o->base.snaplen == RUN_SNAPLEN)
		ro->snaplen = (unsigned int)s->snaplen;
	ro->icount_shift = det ? 3 : -1;
	if (o->record || s->record) {
		/* Every VM, replayable from the run directory (netlab gdb --replay). */
		ro->debug.rr = VM_RR_RECORD;
		ro->debug.rr_vm = -1;
	}
	ro->exec = rs->script;
	ro->peer_exec = rs->peer_script;
	ro->job_lines = (const char *const *)rs->job_lines;
	ro->n_job_lines = s->n_sysctl;
	ro->acpi = (const char *const *)s->acpi;
	ro->n_acpi = s->n_acpi;
	ro->shares = rs->shares;
	ro->n_shares = rs->n_shares;
	ro->on_output = NULL;
}

/* rs's baselines: the values, and the per-stage latencies of its case. */
static int load_baseline(struct regress_scn *rs, const char *bpath, char **err)
{
	struct baseline_extra x = { 0 };
	int ret;

	metrics_free(rs->baseline);
	metrics_free(rs->base_stages);
	rs->baseline = rs->base_stages = NULL;
	ret = baseline_load(bpath, &rs->baseline, err);
	if (!ret)
		ret = baseline_load_extra(bpath, &x, err);
	if (!ret)
		rs->base_stages = baseline_stages(&x, rs->scn);
	baseline_extra_release(&x);
	return ret;
}

/* rs->shares: the scenario's, then --share's, checked together. */
static int merge_shares(const struct regress_opts *o, struct regress_scn *rs, char **err)
{
	const struct scenario *s = rs->scn;
	char *why = NULL;

	if (!share_merge(s->shares, s->n_shares, o->base.shares, o->base.n_shares, o->base.adds,
			 o->base.n_adds, &rs->shares, &rs->n_shares, &why))
		return 0;
	err_set(err, "%s:%u: share and --share/--add together: %s", s->path, s->share_line, why);
	free(why);
	return -EINVAL;
}

/* One scenario (or matrix case), parsed; r owns scn from here on. */
static int load_one(const struct regress_opts *o, struct regress *r, struct scenario *scn,
		    char **err)
{
	struct regress_scn *rs;
	const char *path = scn->path;
	struct run_opts ro;
	struct sbuf script;
	char *bpath;
	int ret;

	r->s = xrealloc_array(r->s, r->n + 1, sizeof(*r->s));
	rs = &r->s[r->n++];
	memset(rs, 0, sizeof(*rs));
	rs->scn = scn;
	/* A broken baselines file is bad input: found before anything boots. */
	bpath = baseline_path(path);
	ret = load_baseline(rs, bpath, err);
	free(bpath);
	if (ret)
		return -EINVAL;
	/* An ACPI source iasl rejects is a scenario error, found before any boot. */
	if (rs->scn->n_acpi) {
		char *why = NULL;

		if (acpi_validate((const char *const *)rs->scn->acpi, rs->scn->n_acpi, &why)) {
			err_set(err, "%s:%u: %s", path, rs->scn->acpi_line, why);
			free(why);
			return -EINVAL;
		}
	}
	if (o->repeat)
		rs->scn->repeat = o->repeat;
	rs->script = xstrdup("");
	rs->append = scn_kernel_append(rs->scn);
	rs->job_lines = xzalloc((rs->scn->n_sysctl + 1) * sizeof(char *));
	for (size_t i = 0; i < rs->scn->n_sysctl; i++)
		rs->job_lines[i] = xasprintf("sysctl.%s=%s", rs->scn->sysctl[i].key,
					     rs->scn->sysctl[i].value);
	ret = merge_shares(o, rs, err);
	if (ret)
		return -EINVAL;
	scn_run_opts(o, rs, &ro);
	ret = run_config(&ro, &rs->cfg, err);
	if (ret)
		return -EINVAL;
	sbuf_init(&script);
	ret = scnrun_script(rs->scn, &rs->cfg, 0, &script, err);
	free(rs->script);
	rs->script = sbuf_detach(&script);
	if (!ret && rs->cfg.topo->n_vms > 1) {
		sbuf_init(&script);
		ret = scnrun_script(rs->scn, &rs->cfg, 1, &script, err);
		rs->peer_script = sbuf_detach(&script);
	}
	return ret ? -EINVAL : 0;
}

static bool case_wanted(const char *filter, const char *name)
{
	return !filter || !strcmp(filter, name) || !fnmatch(filter, name, FNM_NOESCAPE);
}

static bool loaded(const struct regress *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->s[i].scn->name, name))
			return true;
	return false;
}

/* The cases of one file that its filter selects; each case at most once. */
static int load_file(const struct regress_opts *o, struct regress *r, size_t k, char **err)
{
	const char *filter = o->case_filter ? o->case_filter[k] : NULL;
	struct scenario **cases = NULL;
	size_t n = 0;
	int ret = scn_parse_cases(o->scenarios[k], &cases, &n, err) ? -EINVAL : 0;

	for (size_t i = 0; i < n; i++) {
		struct scenario *c = cases[i];

		cases[i] = NULL;
		if (ret || !case_wanted(filter, c->name) || (filter && loaded(r, c->name))) {
			scn_free(c);
		} else if (loaded(r, c->name)) {
			err_set(err, "%s: scenario named twice", c->name);
			scn_free(c);
			ret = -EINVAL;
		} else {
			ret = load_one(o, r, c, err);
		}
	}
	free(cases);
	return ret;
}

static void scn_release(struct regress_scn *rs);

/*
 * --shard I/N: the cases at positions I-1, I-1+N, I-1+2N, ... of the loaded
 * suite (every file's cases, in file then matrix order), the others freed.
 * Round robin, so that a matrix's cases spread over the shards; the same
 * suite gives every shard the same cases on every machine.
 */
static void shard(struct regress *r, unsigned int i, unsigned int n)
{
	size_t kept = 0;

	for (size_t k = 0; k < r->n; k++) {
		if (k % n == i - 1)
			r->s[kept++] = r->s[k];
		else
			scn_release(&r->s[k]);
	}
	r->n = kept;
	r->shard_i = i;
	r->shard_n = n;
}

int regress_load(const struct regress_opts *o, struct regress **out, char **err)
{
	struct regress *r = xzalloc(sizeof(*r));

	r->lock_fd = -1;
	for (size_t i = 0; i < o->n_scenarios; i++) {
		if (load_file(o, r, i, err)) {
			regress_free(r);
			return -EINVAL;
		}
	}
	if (!r->n) {
		bool filtered = false;

		for (size_t i = 0; o->case_filter && i < o->n_scenarios; i++)
			filtered |= o->case_filter[i] != NULL;
		if (filtered)
			err_set(err, "no scenario or matrix case matches what was named\n"
				     "hint: netlab regress --list shows every case's name");
		else
			err_set(err, "no scenarios to run");
		regress_free(r);
		return -EINVAL;
	}
	if (o->shard_n > 1)
		shard(r, o->shard_i, o->shard_n);
	*out = r;
	return 0;
}

/* ---- workers ---------------------------------------------------------- */

static volatile sig_atomic_t worker_stop;

static void worker_signal(int sig)
{
	worker_stop = sig;
}

/* In the child: one guest run. Exits 0 when it ran (whatever the verdict). */
static void worker(const struct regress_opts *o, const struct regress_scn *rs, const char *dir,
		   const char *uri, struct regress_chan *chan)
{
	struct sigaction sa = { .sa_handler = worker_signal };
	struct gdb_batch *gdb = NULL;
	struct run_result res;
	struct run_opts ro;
	char *err = NULL;
	int ret;

	prctl(PR_SET_PDEATHSIG, SIGTERM);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	scn_run_opts(o, rs, &ro);
	ro.out = dir;
	ro.connect = uri;
	/* A scenario's [gdb]: a batch gdb on the paused guest (scnrun.h). */
	ret = scnrun_gdb_attach(rs->scn, &rs->cfg, &ro, &gdb, &err);
	if (!ret)
		ret = run_execute(&ro, &worker_stop, &res, &err);
	scnrun_gdb_finish(gdb);
	if (ret) {
		char *p = xasprintf("%s/harness-error", dir);

		mkdir_p(dir, 0755);
		file_writef(p, "%s\n", err ? err : strerror(-ret));
		_exit(ret == -EINVAL ? NL_EXIT_USAGE : NL_EXIT_CANNOT_TEST);
	}
	run_result_release(&res);
	regress_worker_collect(o, rs, dir, chan);
	_exit(0);
}

struct job {
	size_t scn;
	unsigned int rep;
	pid_t pid;
	size_t conn;			/* index into the connections */
	double start;
	struct regress_chan *chan;	/* what its worker hands over */
};

/* The connections runs spread over (the backend's URIs), or one slot of this host. */
static size_t n_conns(const struct regress_opts *o)
{
	return vm_backend_n_conns(o->base.backend, o->n_connect);
}

static const char *conn_uri(const struct regress_opts *o, size_t k)
{
	return vm_backend_conn_uri(o->base.backend, o->connect, o->n_connect, k);
}

static void progress(const struct regress_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void progress(const struct regress_opts *o, const char *fmt, ...)
{
	struct sbuf b;
	va_list ap;

	if (!o->progress)
		return;
	sbuf_init(&b);
	va_start(ap, fmt);
	sbuf_vaddf(&b, fmt, ap);
	va_end(ap);
	o->progress(o->ctx, b.s);
	sbuf_release(&b);
}

static void job_done(struct regress *r, const struct regress_opts *o, struct job *j, int status,
		     size_t done, size_t total)
{
	struct regress_scn *rs = &r->s[j->scn];
	struct regress_run *run = &rs->runs[j->rep];
	double wall = now_s() - j->start;
	struct sbuf say;

	regress_read_run(run, status);
	run->connect = conn_uri(o, j->conn);
	sbuf_init(&say);
	if (run->verdict == RV_OK)
		regress_run_metrics(rs, run, j->chan, &say);
	regress_chan_free(j->chan);
	j->chan = NULL;
	/* The connection, when the suite is spread over several. */
	if (run->connect && n_conns(o) > 1)
		sbuf_addf(&say, " (%.1f s, %s)", wall, run->connect);
	else
		sbuf_addf(&say, " (%.1f s)", wall);
	progress(o, "[%zu/%zu] %s run %u/%u: %s%s", done, total, rs->scn->name, j->rep + 1,
		 rs->n_runs, run_verdict_name(run->verdict), say.s);
	sbuf_release(&say);
}

/* After a run whose file system filled up, start no more runs. */
static void no_space_stop(struct regress *r, const struct job *j)
{
	const char *why = r->s[j->scn].runs[j->rep].reason;

	if (!r->no_space && why && !strncmp(why, "no space left on ", 17))
		r->no_space = xstrdup(why);
}

static int run_all(struct regress *r, const struct regress_opts *o, volatile sig_atomic_t *stop)
{
	size_t total = 0, next = 0, done = 0, running = 0, nc = n_conns(o);
	unsigned int jobs = o->jobs ? o->jobs : 1;
	unsigned int *busy = xzalloc(nc * sizeof(*busy));
	struct job *all;

	for (size_t i = 0; i < r->n; i++)
		total += r->s[i].n_runs;
	all = xzalloc(total * sizeof(*all));
	for (size_t i = 0, k = 0; i < r->n; i++)
		for (unsigned int rep = 0; rep < r->s[i].n_runs; rep++, k++)
			all[k] = (struct job){ .scn = i, .rep = rep };

	while (done < total) {
		for (;;) {
			struct job *j;
			const char *dir;
			size_t k = 0;

			/* The least busy connection with room for one more guest. */
			for (size_t c = 1; c < nc; c++)
				if (busy[c] < busy[k])
					k = c;
			if (busy[k] >= jobs || next >= total || (stop && *stop) || r->no_space)
				break;
			j = &all[next++];
			dir = r->s[j->scn].runs[j->rep].dir;
			j->conn = k;
			fflush(NULL);
			j->start = now_s();
			j->chan = regress_chan_new();
			j->pid = fork();
			if (j->pid == 0)
				worker(o, &r->s[j->scn], dir, conn_uri(o, k), j->chan);
			if (j->pid < 0) {
				regress_chan_free(j->chan);
				j->chan = NULL;
				j->pid = 0;
				r->s[j->scn].runs[j->rep].reason = xstrdup("fork failed");
				done++;
				continue;
			}
			running++;
			busy[k]++;
		}
		if (!running)
			break;
		{
			int status;
			pid_t pid = waitpid(-1, &status, 0);

			if (pid < 0) {
				if (errno == EINTR) {
					if (stop && *stop)
						for (size_t k = 0; k < next; k++)
							if (all[k].pid > 0)
								kill(all[k].pid, SIGTERM);
					continue;
				}
				break;
			}
			for (size_t k = 0; k < next; k++) {
				if (all[k].pid == pid) {
					all[k].pid = 0;
					running--;
					busy[all[k].conn]--;
					job_done(r, o, &all[k], status, ++done, total);
					no_space_stop(r, &all[k]);
				}
			}
		}
	}
	r->interrupted = stop && *stop;
	/* Interrupted: what never started is not run, not a failure of any kind. */
	for (size_t k = next; r->interrupted && !r->no_space && k < total; k++) {
		struct regress_run *run = &r->s[all[k].scn].runs[all[k].rep];

		run->not_run = true;
		run->exit_status = -1;
	}
	/* A full disk fails every run after it the same way: they are not started. */
	for (size_t k = next; r->no_space && k < total; k++) {
		struct regress_run *run = &r->s[all[k].scn].runs[all[k].rep];

		run->verdict = RV_INFRA;
		run->exit_status = -1;
		run->reason = xasprintf("not run: %s", r->no_space);
	}
	if (r->no_space)
		progress(o, "%zu of %zu runs not started: %s", total - next, total, r->no_space);
	free(all);
	free(busy);
	return 0;
}

/* ---- evaluation ------------------------------------------------------- */

static void spread(struct regress_scn *rs, struct metrics **runs, size_t n)
{
	for (size_t c = 0; c < rs->scn->n_checks; c++) {
		struct regress_check *rc = &rs->checks[c];
		const char *subj = check_subject(rc->check->expr);

		rc->min = INFINITY;
		rc->max = -INFINITY;
		for (size_t i = 0; i < n; i++) {
			double v;

			if (subj && metrics_get(runs[i], subj, &v)) {
				rc->min = fmin(rc->min, v);
				rc->max = fmax(rc->max, v);
			}
		}
		if (rc->min > rc->max)
			rc->min = rc->max = NAN;
	}
}

/* Why a run did not give metrics: bad scenario, regression or infrastructure. */
static enum regress_outcome run_failure(const struct scenario *scn, struct regress_run *run)
{
	char *p, *text = NULL;

	if (run->verdict == RV_PANIC)
		return RO_FAIL;
	if (run->verdict == RV_INTERRUPTED)
		return RO_INTERRUPTED;
	if (run->verdict == RV_BAD_INPUT) {	/* a [sysctl] the kernel lacks, as a refused ring */
		p = scn_sysctl_where(scn, run->reason);
		if (p) {
			text = xasprintf("%s: %s", p, run->reason);
			free(p);
			free(run->reason);
			run->reason = text;
		}
		return RO_BAD;
	}
	if (run->verdict == RV_FAILED && run->exit_status == SCNRUN_EXIT_SETUP) {
		p = xasprintf("%s/files/setup-error", run->dir);
		if (file_read(p, &text, NULL) == 0) {
			text[strcspn(text, "\n")] = '\0';
			free(run->reason);
			run->reason = text;
		}
		free(p);
		return RO_BAD;
	}
	return RO_INFRA;
}

static bool uses_baseline(const struct scenario *s)
{
	for (size_t c = 0; c < s->n_checks; c++)
		if (check_uses_baseline(s->checks[c].expr))
			return true;
	return false;
}

/*
 * A failed check on METRIC.stalled (no_stall): the reason says how the path
 * stopped the flow, from the first run it stopped ("run 2: stalled: 110049
 * bytes unacknowledged for 10.0 s (tcp-stream send, ...)").
 */
static void stall_reason(struct regress_scn *rs)
{
	bool failed = false;

	for (size_t c = 0; c < rs->scn->n_checks; c++) {
		const char *sub = check_subject(rs->checks[c].check->expr);
		const char *dot = sub ? strrchr(sub, '.') : NULL;

		failed |= rs->checks[c].res.status == CHECK_FAIL && dot && !strcmp(dot, ".stalled");
	}
	for (unsigned int i = 0; failed && i < rs->n_runs; i++) {
		struct regress_run *run = &rs->runs[i];
		char *why;

		if (run->verdict != RV_OK || !run->m)
			continue;
		why = scnrun_stall_reason(rs->scn, &rs->cfg, run->dir);
		if (!why)
			continue;
		free(rs->reason);
		rs->reason = rs->n_runs > 1 ? xasprintf("run %u: %s", i + 1, why) : xstrdup(why);
		free(why);
		return;
	}
}

/* A scenario flavour_skip() left out: every check skipped, not measured. */
static void skipped(struct regress_scn *rs)
{
	rs->checks = xzalloc((rs->scn->n_checks + 1) * sizeof(*rs->checks));
	for (size_t c = 0; c < rs->scn->n_checks; c++) {
		rs->checks[c].check = &rs->scn->checks[c];
		rs->checks[c].baseline = rs->checks[c].min = rs->checks[c].max = NAN;
		rs->checks[c].res.status = CHECK_NOT_MEASURED;
	}
}

static void evaluate(const struct regress *r, struct regress_scn *rs, const struct regress_opts *o)
{
	struct metrics **ok;
	char *bpath, *err = NULL;
	bool infra_by_check = false;	/* RO_INFRA from a check not measured, not from a run */
	size_t n_ok = 0;

	if (rs->outcome == RO_SKIP) {
		skipped(rs);
		return;
	}
	ok = xzalloc(rs->n_runs * sizeof(*ok));
	bpath = baseline_path(rs->scn->path);
	rs->outcome = RO_PASS;
	rs->checks = xzalloc((rs->scn->n_checks + 1) * sizeof(*rs->checks));
	for (unsigned int i = 0; i < rs->n_runs && rs->runs[i].not_run; i++) {
		if (i + 1 == rs->n_runs) {
			rs->outcome = RO_NOT_RUN;
			rs->reason = xstrdup("not run: interrupted");
		}
	}
	for (unsigned int i = 0; rs->outcome != RO_NOT_RUN && i < rs->n_runs; i++) {
		struct regress_run *run = &rs->runs[i];
		struct metrics *m;
		enum regress_outcome f;

		if (run->not_run) {
			/* Some of its runs ran: the scenario was interrupted. */
			if (rs->outcome == RO_PASS) {
				rs->outcome = RO_INTERRUPTED;
				rs->reason = xasprintf("run %u: not run: interrupted", i + 1);
			}
			continue;
		}
		if (run->verdict == RV_OK) {
			m = run->m;
			if (m) {
				ok[n_ok++] = m;
				continue;
			}
			f = RO_INFRA;
		} else {
			f = run_failure(rs->scn, run);
		}
		/* The worst failure decides: a bad scenario, then a regression, then infra. */
		if (rs->outcome == RO_PASS || f == RO_BAD || (f == RO_FAIL && rs->outcome != RO_BAD)) {
			rs->outcome = f;
			free(rs->reason);
			rs->reason = xasprintf("run %u: %s: %s", i + 1, run_verdict_name(run->verdict),
					       run->reason ? run->reason : "");
		}
	}
	if (n_ok)
		rs->median = metrics_median(ok, n_ok);
	if (rs->median && o->update_baselines && n_ok == rs->n_runs && uses_baseline(rs->scn)) {
		const struct kernel_id *kid = r->kid;
		struct baseline_meta meta = {
			.repeat = (unsigned int)n_ok,
			.netlab_version = provenance_version(),
			.netlab_commit = provenance_commit(),
			.kernel = kid && kid->release[0] ? kid->release : NULL,
			.kernel_version = kid && kid->version[0] ? kid->version : NULL,
			.kernel_cache_key = kid && kid->cache_key[0] ? kid->cache_key : NULL,
			.kernel_source = kid && kid->source[0] ? kid->source : NULL,
			.kernel_config_sha256 = kid && kid->config_sha256[0] ? kid->config_sha256 : NULL,
		};

		if (baseline_update(bpath, rs->scn, rs->median, ok, n_ok, &meta, &err)) {
			rs->outcome = RO_BAD;
			free(rs->reason);
			rs->reason = err;
			err = NULL;
		}
	}
	if (o->update_baselines) {
		if (load_baseline(rs, bpath, &err)) {
			rs->outcome = RO_BAD;
			free(rs->reason);
			rs->reason = err;
			err = NULL;
		}
	}
	for (size_t c = 0; c < rs->scn->n_checks; c++) {
		struct regress_check *rc = &rs->checks[c];

		rc->check = &rs->scn->checks[c];
		rc->baseline = baseline_value(rs->baseline, rs->scn, rc->check->expr);
		if (!rs->median) {
			rc->res.status = CHECK_NOT_MEASURED;
			continue;
		}
		check_eval(rc->check->expr, rs->median, rc->baseline, &rc->res);
		if (rs->outcome != RO_PASS && rs->outcome != RO_FAIL &&
		    !(rs->outcome == RO_INFRA && rc->res.status == CHECK_FAIL && infra_by_check))
			continue;
		/*
		 * A failed check is a regression even where another check could
		 * not be measured: a flow the path stopped leaves metrics out
		 * (its latencies), and the stall is the verdict, not "cannot test".
		 */
		if (rc->res.status == CHECK_FAIL) {
			rs->outcome = RO_FAIL;
			if (infra_by_check) {
				free(rs->reason);
				rs->reason = NULL;
				infra_by_check = false;
			}
		} else if (rc->res.status != CHECK_PASS && rs->outcome != RO_FAIL) {
			rs->outcome = rc->res.status == CHECK_NOT_MEASURED ? RO_INFRA : RO_BAD;
			infra_by_check = rs->outcome == RO_INFRA;
			free(rs->reason);
			rs->reason = xasprintf("check '%s': %s", rc->check->name,
					       rc->res.err ? rc->res.err : check_status_name(rc->res.status));
		}
	}
	if (rs->outcome == RO_FAIL)
		stall_reason(rs);
	spread(rs, ok, n_ok);
	free(ok);
	free(bpath);
}

void regress_evaluate(struct regress *r, const struct regress_opts *o)
{
	for (size_t i = 0; i < r->n; i++)
		evaluate(r, &r->s[i], o);
}

/* A scenario that needs another kernel flavour than the run's: RO_SKIP, and why. */
static bool flavour_skip(const struct regress_opts *o, struct regress_scn *rs)
{
	const char *want = rs->scn->flavour, *have = o->flavour ? o->flavour : FLAVOUR_DEFAULT;
	char *name;

	if (!*want || !strcmp(want, have))
		return false;
	/* A matrix case by its name, NAME[AXIS=VALUE,...] (in --dir), a scenario by its file. */
	name = xstrdup(rs->scn->case_id ? rs->scn->name : rs->scn->path);
	rs->outcome = RO_SKIP;
	rs->reason = xasprintf("needs kernel flavour '%s' (this run's: '%s'); run it with: "
			       "make kernel FLAVOUR=%s && netlab regress --flavour %s '%s'",
			       want, have, want, want, name);
	free(name);
	return true;
}

static int prepare_dirs(struct regress *r, const struct regress_opts *o, char **err)
{
	int ret;

	/* Refused before anything runs, not as each run's infrastructure error. */
	if (qemu_path_check("run directory (--out)", o->out, err))
		return -EINVAL;
	ret = mkdir_p(o->out, 0755);

	if (ret) {
		err_set(err, "cannot create '%s': %s", o->out, strerror(-ret));
		return ret;
	}
	/* One writer per suite directory, until regress_free(). */
	if (!o->out_locked && (ret = outlock_take(o->out, err)) < 0)
		return ret == -EBUSY ? -EINVAL : ret;
	if (!o->out_locked)
		r->lock_fd = ret;
	r->dir = xstrdup(o->out);
	{
		char *p = xasprintf("%s/.suite-reserve", o->out);

		disk_reserve(p, REGRESS_RESERVE);
		free(p);
	}
	for (size_t i = 0; i < r->n; i++) {
		struct regress_scn *rs = &r->s[i];

		char *name = scn_file_name(rs->scn);

		rs->dir = xasprintf("%s/%s", o->out, name);
		free(name);
		if (flavour_skip(o, rs))
			continue;	/* no run: n_runs stays 0 */
		rs->n_runs = rs->scn->repeat;
		rs->runs = xzalloc(rs->n_runs * sizeof(*rs->runs));
		for (unsigned int k = 0; k < rs->n_runs; k++)
			rs->runs[k].dir = xasprintf("%s/run-%u", rs->dir, k + 1);
		if (access(rs->dir, F_OK) == 0) {
			err_set(err, "'%s' exists already\nhint: pass a new --out DIR", rs->dir);
			return -EINVAL;
		}
	}
	return 0;
}

/* Room for every run of the suite, which keeps them all, before any boots. */
static int space_check(const struct regress *r, const struct regress_opts *o, char **err)
{
	unsigned long long need = 0;
	size_t runs = 0;
	char *short_of;

	for (size_t i = 0; i < r->n; i++) {
		struct run_opts ro;

		scn_run_opts(o, &r->s[i], &ro);
		need += r->s[i].n_runs * run_space_estimate(&ro);
		runs += r->s[i].n_runs;
	}
	short_of = disk_short(r->dir, need);
	if (!short_of)
		return 0;
	err_set(err, "%s/: %s for %zu runs (about %.0f MB each: initrd copies, captures, traces)\n"
		     "hint: free some space there, or pass --out on a file system with more room",
		r->dir, short_of, runs, need / 1e6 / (runs ? runs : 1));
	free(short_of);
	return -ENOSPC;
}

/*
 * What the suite asks of its backend, before anything boots: --connect only
 * of one that takes connections; [gdb] and recording only where netlab
 * drives the VM's QMP (libvirt owns it there); every connection answering.
 */
static int backend_check(const struct regress *r, const struct regress_opts *o, char **err)
{
	const struct vm_backend_ops *ops = o->base.backend;
	bool chosen = true;
	int ret;

	if (o->n_connect && vm_backend_need(&ops, &chosen, VM_BACKEND_CAN_CONNECT, "--connect", err))
		return -EINVAL;
	if (o->record && vm_backend_need(&ops, &chosen, VM_BACKEND_CAN_DEBUG, "--record", err))
		return -EINVAL;
	for (size_t i = 0; !ops->debug && i < r->n; i++) {
		const struct scenario *s = r->s[i].scn;

		if (s->gdb || s->record) {
			err_set(err, "%s: %s runs with the direct QEMU backend only\n"
				     "hint: run it without --backend %s / --connect",
				s->path, s->gdb ? "[gdb]" : "record = yes", ops->name);
			return -EINVAL;
		}
	}
	/* Every connection must answer before anything runs. */
	for (size_t k = 0; ops->check && k < n_conns(o); k++) {
		ret = ops->check(conn_uri(o, k), err);
		if (ret)
			return ret;
	}
	return 0;
}

int regress_execute(struct regress *r, const struct regress_opts *o, volatile sig_atomic_t *stop,
		    char **err)
{
	struct regress_opts resolved = *o;
	double t0 = now_s();
	bool any_fast = false;
	int ret;

	ret = prepare_dirs(r, o, err);
	if (ret)
		return ret;
	/* What the outputs and baselines say the runs booted. */
	if (o->base.kernel) {
		r->kernel = xstrdup(o->base.kernel);
		r->kid = xzalloc(sizeof(*r->kid));
		if (kernel_identify(o->base.kernel, r->kid, NULL)) {
			kernel_id_release(r->kid);
			free(r->kid);
			r->kid = NULL;
		}
	}
	/* Probe the accelerator once, not in every worker. */
	for (size_t i = 0; i < r->n; i++)
		any_fast |= (o->deterministic >= 0 ? !o->deterministic : !r->s[i].scn->deterministic);
	ret = backend_check(r, o, err);
	if (ret)
		return ret;
	if (any_fast) {
		resolved.base.icount_shift = -1;
		ret = accel_resolve(&resolved.base, &resolved.base.accel, &r->accel_why, err);
		if (ret)
			return ret;
	} else {
		resolved.base.accel = VM_ACCEL_TCG;
		r->accel_why = xstrdup("-icount (deterministic mode) needs TCG");
	}
	ret = space_check(r, &resolved, err);
	if (ret)
		return ret;
	run_all(r, &resolved, stop);
	regress_evaluate(r, &resolved);
	r->wall_s = now_s() - t0;
	return 0;
}

int regress_exit_code(const struct regress *r)
{
	bool fail = false, bad = false, infra = false;

	if (r->interrupted)
		return NL_EXIT_INTERRUPTED;
	for (size_t i = 0; i < r->n; i++) {
		fail |= r->s[i].outcome == RO_FAIL;
		bad |= r->s[i].outcome == RO_BAD;
		infra |= r->s[i].outcome == RO_INFRA;
	}
	if (bad)
		return NL_EXIT_USAGE;
	if (fail)
		return NL_EXIT_FAIL;
	return infra ? NL_EXIT_CANNOT_TEST : NL_EXIT_OK;
}

void regress_reserve_release(const struct regress *r)
{
	char *p;

	if (!r || !r->dir)
		return;
	p = xasprintf("%s/.suite-reserve", r->dir);
	unlink(p);
	free(p);
}

/* Everything one scenario of the suite holds. */
static void scn_release(struct regress_scn *rs)
{
	for (unsigned int k = 0; k < rs->n_runs; k++) {
		free(rs->runs[k].dir);
		free(rs->runs[k].reason);
		metrics_free(rs->runs[k].m);
	}
	metrics_free(rs->baseline);
	metrics_free(rs->base_stages);
	for (size_t c = 0; rs->checks && c < rs->scn->n_checks; c++)
		check_result_release(&rs->checks[c].res);
	free(rs->checks);
	free(rs->runs);
	free(rs->script);
	free(rs->peer_script);
	for (size_t k = 0; rs->job_lines && k < rs->scn->n_sysctl; k++)
		free(rs->job_lines[k]);
	free(rs->job_lines);
	free(rs->append);
	free(rs->shares);
	free(rs->dir);
	free(rs->reason);
	metrics_free(rs->median);
	scn_free(rs->scn);
}

void regress_free(struct regress *r)
{
	if (!r)
		return;
	regress_reserve_release(r);
	for (size_t i = 0; i < r->n; i++)
		scn_release(&r->s[i]);
	free(r->s);
	free(r->dir);
	free(r->accel_why);
	free(r->no_space);
	free(r->kernel);
	if (r->kid)
		kernel_id_release(r->kid);
	free(r->kid);
	outlock_release(r->lock_fd);
	free(r);
}
