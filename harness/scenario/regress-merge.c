// SPDX-License-Identifier: GPL-2.0
/*
 * netlab regress --merge DIR...: the suite directories of several runs of
 * one suite (a CI job matrix's --shard I/N slices) as one suite. Each
 * slice's summary.json names its cases, their scenario files and runs;
 * the cases are loaded again from those files, their run directories
 * linked into the merged directory, and each case evaluated from its runs'
 * result.json and metrics.json, as if the runs had been made here. The
 * writers then give the merged summary.json, junit.xml, results.ktap and
 * report.html from that, as they do after a run.
 *
 * Slices of one --shard N go back in the suite's own order; other
 * directories follow one another in the order given. Refused (exit 2,
 * naming the file): a directory without summary.json, a case in two of
 * them, slices of different kernels, a scenario file that no longer holds
 * the case.
 */
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "boot/kernel.h"
#include "lib/jsonout.h"
#include "lib/outlock.h"
#include "lib/util.h"
#include "scenario/regress-int.h"

struct mcase {
	const char *dir;		/* its slice's directory */
	struct json_object *j;		/* its summary.json entry (borrowed) */
	size_t pos;			/* its place in the merged suite */
};

struct slice {
	const char *dir;
	struct json_object *sum;
	unsigned int index, count;	/* "shard", 0/0 when none */
};

static const char *jstr(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v) : NULL;
}

static double jnum(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) && v ? json_object_get_double(v) : NAN;
}

static int read_slice(struct slice *sl, const char *dir, char **err)
{
	char *path = xasprintf("%s/summary.json", dir), *why = NULL;
	struct json_object *sh, *scns;

	sl->dir = dir;
	if (json_file_read(path, &sl->sum, &why)) {
		err_set(err, "--merge: %s\nhint: each DIR is the --out of a netlab regress run", why);
		free(why);
		free(path);
		return -EINVAL;
	}
	if (!json_object_object_get_ex(sl->sum, "scenarios", &scns) ||
	    !json_object_is_type(scns, json_type_array)) {
		err_set(err, "--merge: %s: no \"scenarios\" array\nhint: each DIR is the --out of a netlab regress run",
			path);
		free(path);
		return -EINVAL;
	}
	if (json_object_object_get_ex(sl->sum, "shard", &sh) && sh) {
		sl->index = (unsigned int)jnum(sh, "index");
		sl->count = (unsigned int)jnum(sh, "count");
	}
	free(path);
	return 0;
}

/* The kernel of a slice's summary, as a comparable string ("" when none). */
static const char *kernel_key(const struct slice *sl, char *buf, size_t n)
{
	struct json_object *k;

	if (!json_object_object_get_ex(sl->sum, "kernel", &k) || !k)
		return "";
	snprintf(buf, n, "%s %s %s", jstr(k, "release") ?: "", jstr(k, "sha256") ?: "",
		 jstr(k, "config_sha256") ?: "");
	return buf;
}

/* Every slice ran the same kernel (its image's hash, release and config). */
static int same_kernel(const struct slice *sl, size_t n, char **err)
{
	char a[512], b[512];

	for (size_t i = 1; i < n; i++) {
		if (strcmp(kernel_key(&sl[0], a, sizeof(a)), kernel_key(&sl[i], b, sizeof(b)))) {
			err_set(err, "--merge: %s and %s ran different kernels (%s / %s)\nhint: merge the slices of one suite run on one kernel",
				sl[0].dir, sl[i].dir, a, b);
			return -EINVAL;
		}
	}
	return 0;
}

/* Whether the slices are 1..N of one --shard N, each once. */
static bool one_sharding(const struct slice *sl, size_t n)
{
	bool seen[64] = { false };

	if (!n || sl[0].count != n || n > ARRAY_SIZE(seen))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (sl[i].count != n || sl[i].index < 1 || sl[i].index > n || seen[sl[i].index - 1])
			return false;
		seen[sl[i].index - 1] = true;
	}
	return true;
}

static int cmp_pos(const void *a, const void *b)
{
	const struct mcase *x = a, *y = b;

	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* The cases of every slice, in the merged suite's order. */
static struct mcase *collect_cases(const struct slice *sl, size_t n, size_t *n_out)
{
	bool sharded = one_sharding(sl, n);
	struct mcase *c = NULL;
	size_t nc = 0, base = 0;

	for (size_t i = 0; i < n; i++) {
		struct json_object *scns;
		size_t k, len;

		json_object_object_get_ex(sl[i].sum, "scenarios", &scns);
		len = json_object_array_length(scns);
		c = xrealloc_array(c, nc + len + 1, sizeof(*c));
		for (k = 0; k < len; k++) {
			c[nc].dir = sl[i].dir;
			c[nc].j = json_object_array_get_idx(scns, k);
			/* --shard's round robin, undone: case k of slice I was I-1 + k*N */
			c[nc].pos = sharded ? (sl[i].index - 1) + k * n : base + k;
			nc++;
		}
		base += len;
	}
	qsort(c, nc, sizeof(*c), cmp_pos);
	*n_out = nc;
	return c;
}

static int check_cases(const struct mcase *c, size_t n, char **err)
{
	for (size_t i = 0; i < n; i++) {
		const char *name = jstr(c[i].j, "name"), *path = jstr(c[i].j, "path");

		if (!name || !path) {
			err_set(err, "--merge: %s/summary.json: scenario %zu has no \"name\" or \"path\"",
				c[i].dir, i);
			return -EINVAL;
		}
		if (access(path, R_OK)) {
			err_set(err, "--merge: %s/summary.json: case '%s': its scenario file '%s': %s\nhint: run --merge in the tree the slices ran from (their paths are relative to it)",
				c[i].dir, name, path, strerror(errno));
			return -EINVAL;
		}
		for (size_t k = 0; k < i; k++)
			if (!strcmp(name, jstr(c[k].j, "name"))) {
				err_set(err, "--merge: case '%s' is in both %s and %s\nhint: merge the slices of one suite, each once",
					name, c[k].dir, c[i].dir);
				return -EINVAL;
			}
	}
	return 0;
}

/* The run directories of case @c in the merged suite, and what each run left. */
static void read_runs(struct regress_scn *rs, const struct mcase *c)
{
	struct json_object *runs;
	size_t n;

	if (!json_object_object_get_ex(c->j, "runs", &runs) || !json_object_is_type(runs, json_type_array))
		return;
	n = json_object_array_length(runs);
	rs->n_runs = (unsigned int)n;
	rs->runs = xzalloc((n ? n : 1) * sizeof(*rs->runs));
	for (size_t k = 0; k < n; k++) {
		struct json_object *jr = json_object_array_get_idx(runs, k);
		struct regress_run *run = &rs->runs[k];
		const char *d = jstr(jr, "dir"), *v = jstr(jr, "verdict");
		char *copy = xstrdup(d ? d : "run-1"), *mpath;
		struct json_object *mj;

		run->dir = xasprintf("%s/%s", rs->dir, basename(copy));
		free(copy);
		if (v && !strcmp(v, "not-run")) {
			run->not_run = true;
			continue;
		}
		regress_read_run(run, 0);
		mpath = xasprintf("%s/metrics.json", run->dir);
		mj = json_file_get(mpath);
		free(mpath);
		if (mj) {
			run->m = metrics_new();
			metrics_add_json(run->m, NULL, mj);
			json_object_put(mj);
		}
	}
}

/* The slices' kernel identity and accelerator, for the merged outputs. */
static void suite_facts(struct regress *r, const struct slice *sl, size_t n)
{
	struct json_object *k;

	for (size_t i = 0; i < n; i++)
		r->wall_s = fmax(r->wall_s, isnan(jnum(sl[i].sum, "wall_s")) ? 0 : jnum(sl[i].sum, "wall_s"));
	if (jstr(sl[0].sum, "accel_reason"))
		r->accel_why = xstrdup(jstr(sl[0].sum, "accel_reason"));
	if (!json_object_object_get_ex(sl[0].sum, "kernel", &k) || !k)
		return;
	r->kernel = jstr(k, "path") ? xstrdup(jstr(k, "path")) : NULL;
	r->kid = xzalloc(sizeof(*r->kid));
	snprintf(r->kid->version, sizeof(r->kid->version), "%s", jstr(k, "version") ?: "");
	snprintf(r->kid->release, sizeof(r->kid->release), "%s", jstr(k, "release") ?: "");
	snprintf(r->kid->sha256, sizeof(r->kid->sha256), "%s", jstr(k, "sha256") ?: "");
	snprintf(r->kid->config_sha256, sizeof(r->kid->config_sha256), "%s",
		 jstr(k, "config_sha256") ?: "");
	snprintf(r->kid->cache_key, sizeof(r->kid->cache_key), "%s", jstr(k, "cache_key") ?: "");
	snprintf(r->kid->source, sizeof(r->kid->source), "%s", jstr(k, "source") ?: "");
	snprintf(r->kid->flavour, sizeof(r->kid->flavour), "%s", jstr(k, "flavour") ?: "");
}

/* Case @c's directory linked into the merged suite, its runs read, or why not. */
static int place_case(struct regress_scn *rs, const struct mcase *c, const char *out, char **err)
{
	char *name = scn_file_name(rs->scn), *from = xasprintf("%s/%s", c->dir, name);
	const char *outcome = jstr(c->j, "outcome");
	int ret = 0;

	rs->dir = xasprintf("%s/%s", out, name);
	free(name);
	if (access(rs->dir, F_OK) == 0) {
		err_set(err, "--merge: '%s' exists already\nhint: pass a new --out DIR", rs->dir);
		ret = -EINVAL;
	} else if (access(from, F_OK) == 0 && (ret = tree_link_copy(from, rs->dir))) {
		err_set(err, "--merge: cannot copy '%s' to '%s': %s", from, rs->dir, strerror(-ret));
	} else if (outcome && !strcmp(outcome, "skip")) {
		rs->outcome = RO_SKIP;
		rs->reason = jstr(c->j, "reason") ? xstrdup(jstr(c->j, "reason")) : NULL;
	} else {
		read_runs(rs, c);
	}
	free(from);
	return ret;
}

int regress_merge(const struct regress_opts *o, const char *const *dirs, size_t n,
		  struct regress **out, char **err)
{
	struct slice *sl = xcalloc(n ? n : 1, sizeof(*sl));
	struct regress_opts lo = *o;
	struct regress *r = NULL;
	struct mcase *c = NULL;
	size_t nc = 0;
	int ret = 0;

	*out = NULL;
	for (size_t i = 0; i < n && !ret; i++)
		ret = read_slice(&sl[i], dirs[i], err);
	if (!ret)
		ret = same_kernel(sl, n, err);
	if (!ret) {
		c = collect_cases(sl, n, &nc);
		ret = check_cases(c, nc, err);
	}
	if (!ret && !nc) {
		err_set(err, "--merge: no case in %s", dirs[0]);
		ret = -EINVAL;
	}
	if (ret)
		goto out;
	/* Each case again from its scenario file, by its name. */
	lo.n_scenarios = nc;
	lo.scenarios = xcalloc(nc, sizeof(*lo.scenarios));
	lo.case_filter = xcalloc(nc, sizeof(*lo.case_filter));
	for (size_t i = 0; i < nc; i++) {
		lo.scenarios[i] = (char *)jstr(c[i].j, "path");
		((const char **)lo.case_filter)[i] = jstr(c[i].j, "name");
	}
	lo.shard_i = lo.shard_n = 0;
	lo.update_baselines = false;
	ret = regress_load(&lo, &r, err);
	for (size_t i = 0; !ret && i < nc; i++) {
		if (i >= r->n || strcmp(r->s[i].scn->name, jstr(c[i].j, "name"))) {
			err_set(err, "--merge: %s/summary.json: case '%s' is not in '%s' any more\nhint: merge in the tree the slices ran from",
				c[i].dir, jstr(c[i].j, "name"), jstr(c[i].j, "path"));
			ret = -EINVAL;
		}
	}
	free(lo.scenarios);
	free((void *)lo.case_filter);
	if (ret)
		goto out;
	ret = outlock_take(o->out, err);
	if (ret < 0)
		goto out;
	r->lock_fd = ret;
	ret = 0;
	r->dir = xstrdup(o->out);
	for (size_t i = 0; i < nc && !ret; i++)
		ret = place_case(&r->s[i], &c[i], o->out, err);
	if (ret)
		goto out;
	suite_facts(r, sl, n);
	regress_evaluate(r, &lo);
	*out = r;
	r = NULL;
out:
	regress_free(r);
	for (size_t i = 0; i < n; i++)
		json_object_put(sl[i].sum);
	free(sl);
	free(c);
	return ret ? -EINVAL : 0;
}
