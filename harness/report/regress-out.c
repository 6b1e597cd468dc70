// SPDX-License-Identifier: GPL-2.0
/*
 * What netlab regress reports: a table for people, KTAP for kernel CI,
 * JUnit XML for generic CI, and a JSON summary with every number.
 */
#include <errno.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/esc.h"
#include "lib/jsonout.h"
#include "lib/provenance.h"
#include "scenario/baseline.h"
#include "report/regress-int.h"
#include "scenario/regress.h"
#include "scenario/scnrun.h"

static void fmt_num(char *buf, size_t n, double v)
{
	if (isnan(v))
		snprintf(buf, n, "-");
	else if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.4g", v);
}

/* "12 [10..14]" for a value measured over several runs. */
static void fmt_value(char *buf, size_t n, const struct regress_check *rc, unsigned int runs)
{
	char v[24], lo[24], hi[24];

	fmt_num(v, sizeof(v), rc->res.status == CHECK_PASS || rc->res.status == CHECK_FAIL ?
				      rc->res.value : NAN);
	if (runs < 2 || isnan(rc->min) || rc->min == rc->max) {
		snprintf(buf, n, "%s", v);
		return;
	}
	fmt_num(lo, sizeof(lo), rc->min);
	fmt_num(hi, sizeof(hi), rc->max);
	snprintf(buf, n, "%s [%s..%s]", v, lo, hi);
}

static const char *check_verdict(const struct regress_scn *rs, const struct regress_check *rc)
{
	if (!rs->median)
		return regress_outcome_name(rs->outcome);
	return check_status_name(rc->res.status);
}

/* ---- which stage moved ------------------------------------------------- */

#define STAGES_SHOWN 3

/*
 * "rx.drv_ip" of "latency.rx.drv_ip.p50_us", "tx.dev.ethA" of a NIC's own
 * "latency.tx.dev.ethA.p50_us"; NULL for any other name. Caller frees.
 */
static char *p50_stage(const char *name)
{
	size_t n = strlen(name);

	if (!baseline_is_stage_metric(name) || strcmp(name + n - 7, ".p50_us"))
		return NULL;
	return xasprintf("%.*s", (int)(n - 8 - 7), name + 8);
}

/* Insert mv into out (n of max, largest increase first); false when it did not fit. */
static bool insert_move(struct regress_stage_move *out, size_t n, size_t max,
			const struct regress_stage_move *mv)
{
	size_t i = n;
	double up = mv->now_us - mv->base_us;

	while (i > 0 && out[i - 1].now_us - out[i - 1].base_us < up)
		i--;
	if (i >= max)
		return false;
	if (n == max)
		free(out[--n].stage);
	memmove(&out[i + 1], &out[i], (n - i) * sizeof(*out));
	out[i] = *mv;
	return true;
}

/*
 * A direction's stage ("tx.dev") is left out where both maps hold a NIC's
 * own p50 of it ("tx.dev.ethA"): that one says which NIC moved, and the
 * direction's, a mix of the NICs', would only take a place of the three.
 */
size_t regress_stages_moved(const struct metrics *base, const struct metrics *now,
			    struct regress_stage_move *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; base && now && max && i < metrics_count(now); i++) {
		struct regress_stage_move mv;
		const char *name;
		bool dir_stage, per_nic = false;
		char *stage;
		size_t len;

		metrics_at(now, i, &name, &mv.now_us);
		stage = p50_stage(name);
		if (!stage)
			continue;
		len = strlen(stage);
		/* A direction's stage has one dot ("tx.dev"), a NIC's two. */
		dir_stage = strchr(stage, '.') == strrchr(stage, '.');
		for (size_t j = 0; dir_stage && !per_nic && j < metrics_count(now); j++) {
			const char *nic_name;
			char *nic;
			double v;

			metrics_at(now, j, &nic_name, &v);
			nic = p50_stage(nic_name);
			per_nic = nic && !strncmp(nic, stage, len) && nic[len] == '.' &&
				  !strchr(nic + len + 1, '.') && metrics_get(base, nic_name, NULL);
			free(nic);
		}
		if (per_nic) {
			free(stage);
			continue;
		}
		mv.stage = stage;
		if (!metrics_get(base, name, &mv.base_us) || !(mv.now_us > mv.base_us) ||
		    !insert_move(out, n, max, &mv)) {
			free(stage);
			continue;
		}
		n += n < max;
	}
	return n;
}

/* Does m hold a p50 of some stage? With stages_in, only of a stage stages_in has too. */
static bool has_p50_stage(const struct metrics *m, const struct metrics *stages_in)
{
	bool found;

	for (size_t i = 0; m && i < metrics_count(m); i++) {
		const char *name;
		char *stage;
		double v;

		metrics_at(m, i, &name, &v);
		stage = p50_stage(name);
		found = stage && (!stages_in || metrics_get(stages_in, name, NULL));
		free(stage);
		if (found)
			return true;
	}
	return false;
}

char *regress_stage_story(const struct metrics *base, const struct metrics *now)
{
	struct regress_stage_move mv[STAGES_SHOWN];
	size_t n;
	struct sbuf b;

	if (!has_p50_stage(now, NULL))
		return NULL;
	if (!base)
		return xstrdup("stages: baseline has no per-stage latencies (netlab regress --update-baselines records them)");
	if (!has_p50_stage(now, base))
		return xstrdup("stages: the baseline's per-stage latencies name none of this run's stages");
	n = regress_stages_moved(base, now, mv, STAGES_SHOWN);
	if (!n)
		return xstrdup("stages: no stage's p50 rose above the baseline's");
	sbuf_init(&b);
	for (size_t i = 0; i < n; i++) {
		sbuf_addf(&b, "%s%s p50 %.1f -> %.1f us (+%.1f us", i ? "; " : "stage moved: ",
			  mv[i].stage, mv[i].base_us, mv[i].now_us, mv[i].now_us - mv[i].base_us);
		/* The factor, when the stage took half as long again or more. */
		if (mv[i].base_us > 0 && mv[i].now_us >= 1.5 * mv[i].base_us)
			sbuf_addf(&b, ", x%.1f", mv[i].now_us / mv[i].base_us);
		sbuf_adds(&b, ")");
		free(mv[i].stage);
	}
	return sbuf_detach(&b);
}

bool regress_latency_subject(const char *subject)
{
	return subject && (!strncmp(subject, "rr.", 3) || strstr(subject, "latency"));
}

/* A latency check of rs failed: which stage moved, as regress_stage_story(); else NULL. */
static char *scn_stage_story(const struct regress_scn *rs)
{
	bool latency_failed = false;

	for (size_t c = 0; rs->median && c < rs->scn->n_checks; c++)
		latency_failed |= rs->checks[c].res.status == CHECK_FAIL &&
				  regress_latency_subject(check_subject(rs->checks[c].check->expr));
	return latency_failed ? regress_stage_story(rs->base_stages, rs->median) : NULL;
}

/* The first run whose own checks failed, else the first run; NULL when none has a directory. */
static const struct regress_run *failing_run(const struct regress_scn *rs)
{
	for (unsigned int i = 0; i < rs->n_runs; i++)
		if (rs->runs[i].dir && rs->runs[i].checks_failed)
			return &rs->runs[i];
	return rs->n_runs && rs->runs[0].dir ? &rs->runs[0] : NULL;
}

/*
 * The command that takes a failing run to its first drop under gdb: the
 * first run whose own checks failed (else the first run), if it was
 * recorded; else how to record it.
 */
static void print_replay_hint(const struct regress_scn *rs, FILE *f)
{
	const struct regress_run *run = failing_run(rs);
	struct sbuf w;
	char *rec;

	if (!run)
		return;
	rec = run_recording_dir(run->dir);
	sbuf_init(&w);
	esc_shell(&w, rec ? run->dir : rs->scn->name);
	if (rec)
		fprintf(f, "  replay: netlab gdb --replay %s --until first-drop   (add --batch FILE to script it)\n",
			w.s);
	else
		fprintf(f, "  replay: record it with: netlab regress --record %s; then: netlab gdb --replay RUN_DIR --until first-drop\n",
			w.s);
	sbuf_release(&w);
	free(rec);
}

/* "CMD WORD/suffix" as one line of b, the path quoted for a shell when it needs it. */
static void add_command(struct sbuf *b, const char *cmd, const char *dir, const char *suffix)
{
	char *p = suffix ? xasprintf("%s/%s", dir, suffix) : xstrdup(dir);

	if (b->len)
		sbuf_adds(b, "\n");
	sbuf_adds(b, cmd);
	sbuf_adds(b, " ");
	esc_shell(b, p);
	free(p);
}

/* A line "cmd FILE" for each file under dir that pattern matches. */
static void add_matches(struct sbuf *b, const char *cmd, const char *dir, const char *pattern)
{
	char *pat = xasprintf("%s/%s", dir, pattern);
	glob_t g;

	if (glob(pat, 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++)
			add_command(b, cmd, g.gl_pathv[i], NULL);
		globfree(&g);
	}
	free(pat);
}

char *regress_look_commands(const struct regress_scn *rs)
{
	const struct regress_run *run = failing_run(rs);
	struct sbuf b;

	if (!run)
		return NULL;
	sbuf_init(&b);
	add_command(&b, "netlab report", run->dir, NULL);
	add_command(&b, "netlab report --html", run->dir, NULL);
	/* A two-VM run keeps each VM's files in vm-a/, vm-b/. */
	add_matches(&b, "kernelshark", run->dir, "files/trace.dat");
	add_matches(&b, "kernelshark", run->dir, "vm-*/files/trace.dat");
	add_matches(&b, "wireshark", run->dir, "nic-*.pcap");
	add_matches(&b, "wireshark", run->dir, "vm-*/nic-*.pcap");
	return sbuf_detach(&b);
}

/* Each line of text (NULL: none) to f, after prefix. */
static void print_lines(FILE *f, const char *prefix, const char *text)
{
	for (const char *p = text; p && *p;) {
		size_t n = strcspn(p, "\n");

		fprintf(f, "%s%.*s\n", prefix, (int)n, p);
		p += n + (p[n] == '\n');
	}
}

/* The same into @b. */
static void print_lines_sbuf(struct sbuf *b, const char *prefix, const char *text)
{
	for (const char *p = text; p && *p;) {
		size_t n = strcspn(p, "\n");

		sbuf_addf(b, "%s%.*s\n", prefix, (int)n, p);
		p += n + (p[n] == '\n');
	}
}

/* ---- what CI outputs count ------------------------------------------ */

static enum regress_item_class outcome_class(enum regress_outcome o)
{
	switch (o) {
	case RO_PASS: return RIC_PASSED;
	case RO_FAIL: return RIC_FAILED;
	case RO_BAD: return RIC_ERROR;
	default: return RIC_SKIPPED;
	}
}

static enum regress_item_class check_class(const struct regress_scn *rs, const struct regress_check *rc)
{
	if (!rs->median || rs->outcome == RO_SKIP)
		return outcome_class(rs->outcome);
	switch (rc->res.status) {
	case CHECK_PASS: return RIC_PASSED;
	case CHECK_FAIL: return RIC_FAILED;
	case CHECK_NOT_MEASURED: return RIC_SKIPPED;
	default: return RIC_ERROR;
	}
}

/* Does the scenario need the "runs" item: no check says why it did not pass, or it has none? */
static bool runs_item(const struct regress_scn *rs)
{
	if (!rs->scn->n_checks)
		return true;
	if (rs->outcome == RO_PASS)
		return false;
	for (size_t c = 0; c < rs->scn->n_checks; c++)
		if (check_class(rs, &rs->checks[c]) != RIC_PASSED)
			return false;
	return true;
}

size_t regress_n_items(const struct regress_scn *rs)
{
	return rs->scn->n_checks + runs_item(rs);
}

enum regress_item_class regress_item_class(const struct regress_scn *rs, size_t i)
{
	return i < rs->scn->n_checks ? check_class(rs, &rs->checks[i]) : outcome_class(rs->outcome);
}

const char *regress_item_name(const struct regress_scn *rs, size_t i)
{
	return i < rs->scn->n_checks ? rs->checks[i].check->name : "runs";
}

void regress_count(const struct regress *r, struct regress_counts *c)
{
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < r->n; i++) {
		for (size_t k = 0; k < regress_n_items(&r->s[i]); k++) {
			c->total++;
			switch (regress_item_class(&r->s[i], k)) {
			case RIC_PASSED: c->passed++; break;
			case RIC_FAILED: c->failed++; break;
			case RIC_ERROR: c->errors++; break;
			case RIC_SKIPPED: c->skipped++; break;
			}
		}
	}
}

void regress_print_table(const struct regress *r, FILE *f)
{
	size_t pass = 0;

	fprintf(f, "%-24s %-18s %-28s %-20s %-22s %s\n", "SCENARIO", "CHECK", "METRIC",
		"VALUE [min..max]", "BOUND", "VERDICT");
	for (size_t i = 0; i < r->n; i++) {
		const struct regress_scn *rs = &r->s[i];
		char *story;

		pass += rs->outcome == RO_PASS;
		for (size_t c = 0; c < rs->scn->n_checks; c++) {
			const struct regress_check *rc = &rs->checks[c];
			const char *subj = check_subject(rc->check->expr);
			char val[96], bound[48], b[32];

			fmt_value(val, sizeof(val), rc, rs->n_runs);
			fmt_num(b, sizeof(b), rc->res.bound);
			snprintf(bound, sizeof(bound), "%s %s", check_op_str(rc->res.op), b);
			fprintf(f, "%-24s %-18s %-28s %-20s %-22s %s\n", rs->scn->name,
				rc->check->name, subj ? subj : "-", val,
				rs->median ? bound : "-", check_verdict(rs, rc));
		}
		story = regress_explain(rs);
		print_lines(f, "  ", story);
		free(story);
		if (rs->outcome == RO_FAIL)
			print_replay_hint(rs, f);
	}
	fprintf(f, "%zu/%zu scenarios passed in %.0f s; results in %s\n", pass, r->n, r->wall_s,
		r->dir);
}

static struct json_object *jnum_or_null(double v)
{
	return isnan(v) || isinf(v) ? NULL : metrics_json_number(v);
}

static struct json_object *json_checks(const struct regress_scn *rs)
{
	struct json_object *arr = json_object_new_array();

	for (size_t c = 0; c < rs->scn->n_checks; c++) {
		const struct regress_check *rc = &rs->checks[c];
		struct json_object *o = json_object_new_object();
		const char *subj = check_subject(rc->check->expr);

		json_object_object_add(o, "name", json_object_new_string(rc->check->name));
		json_object_object_add(o, "expr", json_object_new_string(check_text(rc->check->expr)));
		json_object_object_add(o, "subject", subj ? json_object_new_string(subj) : NULL);
		json_object_object_add(o, "status", json_object_new_string(check_verdict(rs, rc)));
		json_object_object_add(o, "value", jnum_or_null(rc->res.value));
		json_object_object_add(o, "op", json_object_new_string(check_op_str(rc->res.op)));
		json_object_object_add(o, "bound", jnum_or_null(rc->res.bound));
		json_object_object_add(o, "min", jnum_or_null(rc->min));
		json_object_object_add(o, "max", jnum_or_null(rc->max));
		json_object_object_add(o, "baseline", jnum_or_null(rc->baseline));
		json_object_object_add(o, "error", rc->res.err ? json_object_new_string(rc->res.err) : NULL);
		json_object_array_add(arr, o);
	}
	return arr;
}

/* [ { "stage", "baseline_p50_us", "p50_us" } ] of the stages that moved most. */
static struct json_object *json_stages_moved(const struct regress_scn *rs)
{
	struct regress_stage_move mv[STAGES_SHOWN];
	size_t n = regress_stages_moved(rs->base_stages, rs->median, mv, STAGES_SHOWN);
	struct json_object *arr = json_object_new_array();

	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "stage", json_object_new_string(mv[i].stage));
		json_object_object_add(o, "baseline_p50_us", metrics_json_number(mv[i].base_us));
		json_object_object_add(o, "p50_us", metrics_json_number(mv[i].now_us));
		json_object_array_add(arr, o);
		free(mv[i].stage);
	}
	return arr;
}

static struct json_object *json_scenario(const struct regress_scn *rs)
{
	struct json_object *o = json_object_new_object(), *runs = json_object_new_array();
	char *story = regress_loss_story(rs->median), *stages = scn_stage_story(rs);

	json_object_object_add(o, "name", json_object_new_string(rs->scn->name));
	json_object_object_add(o, "path", json_object_new_string(rs->scn->path));
	json_object_object_add(o, "outcome", json_object_new_string(regress_outcome_name(rs->outcome)));
	json_object_object_add(o, "reason", rs->reason ? json_object_new_string(rs->reason) : NULL);
	for (unsigned int k = 0; k < rs->n_runs; k++) {
		struct json_object *run = json_object_new_object();

		json_object_object_add(run, "dir", json_object_new_string(rs->runs[k].dir));
		json_object_object_add(run, "verdict",
				       json_object_new_string(rs->runs[k].not_run ? "not-run"
						: run_verdict_name(rs->runs[k].verdict)));
		json_object_object_add(run, "wall_s", json_object_new_double(rs->runs[k].wall_s));
		if (rs->runs[k].connect)
			json_object_object_add(run, "connect",
					       json_object_new_string(rs->runs[k].connect));
		json_object_array_add(runs, run);
	}
	json_object_object_add(o, "runs", runs);
	json_object_object_add(o, "checks", json_checks(rs));
	json_object_object_add(o, "loss", story ? json_object_new_string(story) : NULL);
	/* Only when a latency check failed and the run was traced, as in the table. */
	json_object_object_add(o, "stages", stages ? json_object_new_string(stages) : NULL);
	json_object_object_add(o, "stages_moved", stages ? json_stages_moved(rs) : NULL);
	free(stages);
	json_object_object_add(o, "median", rs->median ? metrics_to_json(rs->median) : NULL);
	free(story);
	story = rs->outcome == RO_FAIL ? regress_look_commands(rs) : NULL;
	if (story) {
		struct json_object *look = json_object_new_array();

		for (char *l = story, *nl; l && *l; l = nl ? nl + 1 : NULL) {
			nl = strchr(l, '\n');
			json_object_array_add(look, json_object_new_string_len(l, nl ? (int)(nl - l)
										     : (int)strlen(l)));
		}
		json_object_object_add(o, "look", look);
	} else {
		json_object_object_add(o, "look", NULL);
	}
	free(story);
	return o;
}

int regress_write_json(const struct regress *r, const char *path, char **err)
{
	struct json_object *o = json_object_new_object(), *arr = json_object_new_array();
	int ret;

	struct regress_counts c;
	struct json_object *counts = json_object_new_object();

	provenance_add(o);
	json_object_object_add(o, "kernel", r->kernel || r->kid ? kernel_id_to_json(r->kid, r->kernel)
							      : NULL);
	for (size_t i = 0; i < r->n; i++)
		json_object_array_add(arr, json_scenario(&r->s[i]));
	json_object_object_add(o, "exit_code", json_object_new_int(regress_exit_code(r)));
	regress_count(r, &c);
	json_object_object_add(counts, "total", json_object_new_int64((int64_t)c.total));
	json_object_object_add(counts, "passed", json_object_new_int64((int64_t)c.passed));
	json_object_object_add(counts, "failed", json_object_new_int64((int64_t)c.failed));
	json_object_object_add(counts, "errors", json_object_new_int64((int64_t)c.errors));
	json_object_object_add(counts, "skipped", json_object_new_int64((int64_t)c.skipped));
	json_object_object_add(o, "counts", counts);
	json_object_object_add(o, "wall_s", json_object_new_double(r->wall_s));
	if (r->shard_n) {
		struct json_object *sh = json_object_new_object();

		json_object_object_add(sh, "index", json_object_new_int((int)r->shard_i));
		json_object_object_add(sh, "count", json_object_new_int((int)r->shard_n));
		json_object_object_add(o, "shard", sh);
	} else {
		json_object_object_add(o, "shard", NULL);
	}
	json_object_object_add(o, "accel_reason",
			       r->accel_why ? json_object_new_string(r->accel_why) : NULL);
	json_object_object_add(o, "scenarios", arr);
	ret = json_file_write(path, o);
	if (ret)
		err_set(err, "cannot write '%s': %s", path, strerror(-ret));
	json_object_put(o);
	return ret;
}

/* ---- for regress-ci.c --------------------------------------------------- */

void regress_fmt_num(char *buf, size_t n, double v)
{
	fmt_num(buf, n, v);
}

void regress_fmt_value(char *buf, size_t n, const struct regress_check *rc, unsigned int runs)
{
	fmt_value(buf, n, rc, runs);
}

/*
 * What explains scenario @rs, a line each (NULL: nothing): why it did not
 * pass, its loss story, what its [exec] command did, which stage moved and,
 * when it failed, the commands that open what explains it. The text table,
 * KTAP's diagnostics and JUnit's system-out all print these lines.
 */
char *regress_explain(const struct regress_scn *rs)
{
	struct sbuf b;
	char *story;

	sbuf_init(&b);
	if (rs->outcome == RO_NOT_RUN && rs->reason)
		sbuf_addf(&b, "%s\n", rs->reason);	/* "not run: interrupted" */
	else if (rs->outcome != RO_PASS && rs->reason)
		sbuf_addf(&b, "%s: %s\n", regress_outcome_name(rs->outcome), rs->reason);
	story = rs->outcome != RO_PASS ? regress_loss_story(rs->median) : NULL;
	if (story)
		sbuf_addf(&b, "loss: %s\n", story);
	free(story);
	story = rs->n_runs ? scnrun_exec_story(rs->scn, rs->median, rs->runs[0].dir) : NULL;
	if (story)
		sbuf_addf(&b, "%s\n", story);
	free(story);
	story = scn_stage_story(rs);
	if (story)
		sbuf_addf(&b, "%s\n", story);
	free(story);
	if (rs->outcome == RO_FAIL) {
		story = regress_look_commands(rs);
		print_lines_sbuf(&b, "look: ", story);
		free(story);
	}
	if (!b.len) {
		sbuf_release(&b);
		return NULL;
	}
	return sbuf_detach(&b);
}

