// SPDX-License-Identifier: GPL-2.0
/*
 * netlab bisect, the library part: the decision (median, spread, noise
 * band), the configuration and log of a bisection (struct bisect_step's
 * life, JSON and text), the worktree and the result at the end. One step
 * (build, boot, scenario, verdict) is in bisect-step.c, which calls into
 * this file; nothing here calls bisect-step.c.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/esc.h"
#include "scenario/baseline.h"
#include "bisect/bisect.h"
#include "lib/jsonout.h"
#include "lib/proc.h"
#include "lib/metrics.h"
#include "scenario/regress.h"
#include "scenario/scenario.h"
#include "lib/util.h"

const char *bisect_verdict_name(int v)
{
	switch (v) {
	case BV_GOOD: return "good";
	case BV_BAD: return "bad";
	case BV_SKIP: return "skip";
	case BV_INTERRUPTED: return "interrupted";
	default: return "?";
	}
}

static const char *const call_names[] = {
	[BC_PASS] = "pass", [BC_FAIL] = "fail", [BC_AMBIGUOUS] = "ambiguous",
};

const char *bisect_call_name(enum bisect_call c)
{
	return call_names[c];
}

/* ---- the decision ------------------------------------------------------- */

enum bisect_call bisect_call_check(bool median_pass, const bool *run_pass, size_t n,
				   double median, enum check_op op, double bound, double band)
{
	size_t agree = 0;

	if (!n)
		return BC_AMBIGUOUS;
	for (size_t i = 0; i < n; i++)
		agree += run_pass[i] == median_pass;
	if (3 * agree < 2 * n)
		return BC_AMBIGUOUS;
	if (op != CHECK_EQ && op != CHECK_NE && bound != 0 && isfinite(median) &&
	    isfinite(bound) && fabs(median - bound) <= band * fabs(bound))
		return BC_AMBIGUOUS;
	return median_pass ? BC_PASS : BC_FAIL;
}

double bisect_band(const struct baseline_spread *sp, double base)
{
	double half;

	if (!sp || sp->n < 2 || base == 0 || !isfinite(base))
		return BISECT_BAND;
	half = (sp->max - sp->min) / 2 / fabs(base);
	return isfinite(half) && half > BISECT_BAND ? half : BISECT_BAND;
}

enum bisect_call bisect_call_step(const enum bisect_call *calls, size_t n)
{
	enum bisect_call r = BC_PASS;

	for (size_t i = 0; i < n; i++) {
		if (calls[i] == BC_FAIL)
			return BC_FAIL;
		if (calls[i] == BC_AMBIGUOUS)
			r = BC_AMBIGUOUS;
	}
	return r;
}

/* ---- running things ------------------------------------------------------ */

int bisect_exec(const char *const *argv, const char *cwd, const char *const *env, char **out,
		const char *out_file, const char *err_file)
{
	struct proc p;
	int ret;

	/* Our process group and stdin: a ^C at the terminal reaches it too. */
	proc_init(&p, argv);
	p.cwd = cwd;
	p.env = env;
	if (out) {
		p.stdout_mode = PROC_CAPTURE;
	} else if (out_file) {
		p.stdout_mode = PROC_APPEND;
		p.stdout_path = out_file;
	} else {
		p.stdout_mode = PROC_NULL;
	}
	if (!err_file) {
		p.stderr_mode = PROC_NULL;
	} else if (strcmp(err_file, "-")) {
		p.stderr_mode = PROC_APPEND;
		p.stderr_path = err_file;
	}
	ret = proc_run(&p, 0, NULL);
	if (out)
		*out = ret >= 0 ? proc_take_output(&p) : NULL;
	proc_release(&p);
	return ret;
}

int bisect_git(const char *dir, char **out, ...)
{
	const char *argv[16] = { "git", "-C", dir };
	size_t n = 3;
	char *o = NULL;
	va_list ap;
	int ret;

	va_start(ap, out);
	while (n < ARRAY_SIZE(argv) - 1 && (argv[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	ret = bisect_exec(argv, NULL, NULL, &o, NULL, NULL);
	if (o) {
		size_t l = strlen(o);

		while (l && o[l - 1] == '\n')
			o[--l] = '\0';
	}
	if (out)
		*out = o;
	else
		free(o);
	return ret;
}

/* ---- configuration -------------------------------------------------------- */

void bisect_config_release(struct bisect_config *c)
{
	free(c->ksrc);
	free(c->good);
	free(c->bad);
	free(c->good_rev);
	free(c->bad_rev);
	free(c->scenario);
	free(c->check);
	free(c->initrd);
	free(c->flavour);
	free(c->worktree);
	free(c->phase);
	free(c->selftest);
	share_array_free(c->shares, c->n_shares);
	share_array_free(c->adds, c->n_adds);
	memset(c, 0, sizeof(*c));
}

static void jadd_str(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, v ? json_object_new_string(v) : NULL);
}

static char *jstr(struct json_object *o, const char *k)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, k, &v) || !v)
		return NULL;
	return xstrdup(json_object_get_string(v));
}

static double jnum(struct json_object *o, const char *k)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, k, &v) || !v)
		return NAN;
	return json_object_get_double(v);
}

/* "shares": [{"host": ..., "guest": ..., "rw": B}], "adds" the same without rw. */
static void jadd_shares(struct json_object *o, const char *k, const struct vm_share *v, size_t n,
			bool dirs)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_new_object();

		jadd_str(e, "host", v[i].host);
		jadd_str(e, "guest", v[i].guest);
		if (dirs)
			json_object_object_add(e, "rw", json_object_new_boolean(v[i].rw));
		json_object_array_add(a, e);
	}
	json_object_object_add(o, k, a);
}

/* The shares (dirs) or files of key k; the host paths must still be there. */
static int jshares(struct json_object *o, const char *k, bool dirs, struct vm_share **out,
		   size_t *n, char **err)
{
	struct json_object *a, *rw;
	size_t len;

	*out = NULL;
	*n = 0;
	if (!json_object_object_get_ex(o, k, &a) || !json_object_is_type(a, json_type_array))
		return 0;	/* a bisection from before --share */
	len = json_object_array_length(a);
	*out = xzalloc((len + 1) * sizeof(**out));
	for (size_t i = 0; i < len; i++) {
		struct json_object *e = json_object_array_get_idx(a, i);
		struct vm_share *sh = &(*out)[(*n)++];
		const char *why = NULL;
		struct stat st;

		sh->host = jstr(e, "host");
		sh->guest = jstr(e, "guest");
		sh->rw = dirs && json_object_object_get_ex(e, "rw", &rw) && json_object_get_boolean(rw);
		if (!sh->host || !sh->guest) {
			err_set(err, "bisect.json: a '%s' entry lacks host or guest", k);
			return -EINVAL;
		}
		if (stat(sh->host, &st))
			why = strerror(errno);
		else if (dirs && !S_ISDIR(st.st_mode))
			why = "not a directory";
		else if (!dirs && !S_ISREG(st.st_mode))
			why = "not a regular file";
		if (why) {
			err_set(err, "--%s '%s' of this bisection: %s\nhint: put it back: every step "
				     "runs with it", dirs ? "share" : "add", sh->host, why);
			return -EINVAL;
		}
	}
	return 0;
}

int bisect_config_save(const struct bisect_config *c, const char *run_dir, char **err)
{
	struct json_object *o = json_object_new_object();
	char *p = xasprintf("%s/bisect.json", run_dir);
	int ret;

	jadd_str(o, "ksrc", c->ksrc);
	jadd_str(o, "good", c->good);
	jadd_str(o, "bad", c->bad);
	jadd_str(o, "good_rev", c->good_rev);
	jadd_str(o, "bad_rev", c->bad_rev);
	jadd_str(o, "scenario", c->scenario);
	jadd_str(o, "check", c->check);
	json_object_object_add(o, "runs", json_object_new_int((int)c->runs));
	json_object_object_add(o, "jobs", json_object_new_int((int)c->jobs));
	json_object_object_add(o, "deterministic", json_object_new_int(c->deterministic));
	jadd_str(o, "initrd", c->initrd);
	if (c->flavour)		/* absent for the default flavour, as before flavours */
		jadd_str(o, "flavour", c->flavour);
	jadd_str(o, "worktree", c->worktree);
	jadd_str(o, "phase", c->phase);
	json_object_object_add(o, "module", json_object_new_boolean(c->module));
	jadd_str(o, "selftest", c->selftest);
	jadd_shares(o, "shares", c->shares, c->n_shares, true);
	jadd_shares(o, "adds", c->adds, c->n_adds, false);
	ret = json_file_write(p, o);
	if (ret)
		err_set(err, "cannot write '%s': %s", p, strerror(-ret));
	json_object_put(o);
	free(p);
	return ret;
}

int bisect_config_load(const char *run_dir, struct bisect_config *c, char **err)
{
	char *p = xasprintf("%s/bisect.json", run_dir);
	struct json_object *o;
	char *why = NULL;
	double v;

	memset(c, 0, sizeof(*c));
	if (json_file_read(p, &o, &why) == -EFBIG) {
		err_set(err, "cannot read %s\nhint: pass the directory a 'netlab bisect' run printed",
			why);
		free(why);
		free(p);
		return -EINVAL;
	}
	free(why);
	if (!o) {
		err_set(err, "'%s' is not a bisection's run directory: cannot read '%s'\n"
			"hint: pass the directory a 'netlab bisect' run printed", run_dir, p);
		free(p);
		return -EINVAL;
	}
	c->ksrc = jstr(o, "ksrc");
	c->good = jstr(o, "good");
	c->bad = jstr(o, "bad");
	c->good_rev = jstr(o, "good_rev");
	c->bad_rev = jstr(o, "bad_rev");
	c->scenario = jstr(o, "scenario");
	c->check = jstr(o, "check");
	v = jnum(o, "runs");
	c->runs = isnan(v) ? 1 : (unsigned int)v;
	v = jnum(o, "jobs");
	c->jobs = isnan(v) ? 1 : (unsigned int)v;
	v = jnum(o, "deterministic");
	c->deterministic = isnan(v) ? -1 : (int)v;
	c->initrd = jstr(o, "initrd");
	c->flavour = jstr(o, "flavour");
	c->worktree = jstr(o, "worktree");
	c->phase = jstr(o, "phase");
	v = jnum(o, "module");
	c->module = !isnan(v) && v != 0;
	c->selftest = jstr(o, "selftest");
	if (jshares(o, "shares", true, &c->shares, &c->n_shares, err) ||
	    jshares(o, "adds", false, &c->adds, &c->n_adds, err)) {
		json_object_put(o);
		free(p);
		bisect_config_release(c);
		return -EINVAL;
	}
	json_object_put(o);
	if (!c->ksrc || !c->good || !c->bad || !c->scenario || !c->worktree || !c->initrd ||
	    !c->phase) {
		err_set(err, "'%s' lacks a field netlab bisect needs", p);
		free(p);
		bisect_config_release(c);
		return -EINVAL;
	}
	free(p);
	return 0;
}

/* ---- validation ------------------------------------------------------------ */

static int resolve_rev(const char *dir, const char *opt, const char *rev, char **id, char **err)
{
	char *spec = xasprintf("%s^{commit}", rev), *q;
	int ret = bisect_git(dir, id, "rev-parse", "--verify", "--quiet", spec, NULL);

	free(spec);
	if (ret == 0 && *id && **id)
		return 0;
	free(*id);
	*id = NULL;
	q = esc_shell_str(dir);
	err_set(err, "%s '%s': unknown revision in '%s'\nhint: git -C %s log --oneline names the commits",
		opt, rev, dir, q);
	free(q);
	return -EINVAL;
}

int bisect_validate_scenario(struct bisect_config *c, char **err)
{
	struct scenario *s = NULL;
	char *abs;
	int ret = scn_parse(c->scenario, &s, err);

	if (ret)
		return -EINVAL;
	if (c->check) {
		bool found = false;
		struct sbuf names;

		sbuf_init(&names);
		for (size_t i = 0; i < s->n_checks; i++) {
			found |= !strcmp(s->checks[i].name, c->check);
			sbuf_addf(&names, "%s%s", i ? ", " : "", s->checks[i].name);
		}
		if (!found) {
			err_set(err, "--check '%s': scenario '%s' has no such check\nhint: its checks are: %s",
				c->check, c->scenario, names.s);
			ret = -EINVAL;
		}
		sbuf_release(&names);
	}
	/* Its baselines are input too: a broken file stops here, not in a step. */
	if (!ret) {
		char *bpath = baseline_path(s->path);
		struct metrics *b = NULL;

		ret = baseline_load(bpath, &b, err) ? -EINVAL : 0;
		metrics_free(b);
		free(bpath);
	}
	/* Its shares and --share/--add together, as each step's runs merge them. */
	if (!ret && (c->n_shares || c->n_adds)) {
		struct vm_share *all = NULL;
		size_t n = 0;
		char *why = NULL;

		if (share_merge(s->shares, s->n_shares, c->shares, c->n_shares, c->adds, c->n_adds,
				&all, &n, &why)) {
			err_set(err, "%s:%u: share and --share/--add together: %s", s->path,
				s->share_line, why);
			ret = -EINVAL;
		}
		free(why);
		free(all);
	}
	scn_free(s);
	abs = realpath(c->scenario, NULL);
	if (abs) {
		free(c->scenario);
		c->scenario = abs;
	}
	return ret;
}

/* Is w a whole word of text (words: runs of [A-Za-z0-9_.-])? */
static bool word_in(const char *text, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = text; (p = strstr(p, w)); p++) {
		bool l = p == text || !(isalnum((unsigned char)p[-1]) || strchr("_.-", p[-1]));
		bool r = !p[n] || !(isalnum((unsigned char)p[n]) || strchr("_.-", p[n]));

		if (l && r)
			return true;
	}
	return false;
}

/* --selftest TARGET:TEST: the tree at --bad has it (its directory, and TEST
 * in its Makefile or as a file there). */
static int validate_selftest(const struct bisect_config *c, char **err)
{
	const char *colon = strchr(c->selftest, ':');
	char *target, *spec, *make = NULL, *file = NULL;
	int ret = -EINVAL;

	if (!colon || colon == c->selftest || !colon[1] || strchr(colon + 1, ':') ||
	    strchr(colon + 1, '/') || strstr(c->selftest, "..")) {
		err_set(err, "--selftest '%s': not TARGET:TEST\n"
			"hint: e.g. --selftest net:sk_connect_zero_addr ('netlab selftests --list' "
			"names them)", c->selftest);
		return -EINVAL;
	}
	target = xasprintf("%.*s", (int)(colon - c->selftest), c->selftest);
	spec = xasprintf("%s:tools/testing/selftests/%s/Makefile", c->bad, target);
	if (bisect_git(c->ksrc, &make, "show", spec, NULL) || !make) {
		err_set(err, "--selftest '%s': the tree at --bad (%.12s) has no selftest target '%s' "
			"(no tools/testing/selftests/%s/Makefile)\nhint: targets are the directories "
			"of tools/testing/selftests with a Makefile, e.g. net", c->selftest, c->bad,
			target, target);
		goto out;
	}
	free(spec);
	spec = xasprintf("%s:tools/testing/selftests/%s/%s", c->bad, target, colon + 1);
	if (!word_in(make, colon + 1) && bisect_git(c->ksrc, &file, "cat-file", "-e", spec, NULL)) {
		err_set(err, "--selftest '%s': target '%s' at --bad (%.12s) has no test '%s'\n"
			"hint: its tests are in tools/testing/selftests/%s/Makefile (TEST_PROGS, "
			"TEST_GEN_PROGS)", c->selftest, target, c->bad, colon + 1, target);
		goto out;
	}
	ret = 0;
out:
	free(make);
	free(file);
	free(spec);
	free(target);
	return ret;
}

int bisect_validate(struct bisect_config *c, char **warn, char **err)
{
	char *top = NULL;
	struct stat st;
	int ret;

	const char *opt = c->module ? "--module" : "--ksrc";

	if (stat(c->ksrc, &st) || !S_ISDIR(st.st_mode)) {
		err_set(err, "%s '%s': not a directory\nhint: point %s at a %s git tree", opt, c->ksrc,
			opt, c->module ? "driver's" : "kernel");
		return -EINVAL;
	}
	if (bisect_git(c->ksrc, &top, "rev-parse", "--show-toplevel", NULL) || !top || !*top) {
		free(top);
		err_set(err, "%s '%s': not a git tree\n"
			"hint: netlab bisect walks the history of a git tree; 'git init' and commit, or clone one", opt, c->ksrc);
		return -EINVAL;
	}
	free(c->ksrc);
	c->ksrc = top;
	ret = resolve_rev(c->ksrc, "--good", c->good_rev, &c->good, err);
	if (!ret)
		ret = resolve_rev(c->ksrc, "--bad", c->bad_rev, &c->bad, err);
	if (ret)
		return ret;
	if (!strcmp(c->good, c->bad)) {
		err_set(err, "--good '%s' and --bad '%s' are the same commit (%.12s): nothing to bisect\n"
			"hint: --good is a commit that passes, --bad a later one that fails", c->good_rev,
			c->bad_rev, c->good);
		return -EINVAL;
	}
	if (bisect_git(c->ksrc, NULL, "merge-base", "--is-ancestor", c->bad, c->good, NULL) == 0) {
		err_set(err, "--bad '%s' is an ancestor of --good '%s': the regression cannot come after both\n"
			"hint: did you swap --good and --bad?", c->bad_rev, c->good_rev);
		return -EINVAL;
	}
	if (bisect_git(c->ksrc, NULL, "merge-base", "--is-ancestor", c->good, c->bad, NULL) != 0)
		err_set(warn, "--good '%s' is not an ancestor of --bad '%s': git bisect tests their merge base first",
			c->good_rev, c->bad_rev);
	if (c->selftest && !c->scenario)
		return validate_selftest(c, err);
	return bisect_validate_scenario(c, err);
}

/* ---- the worktree ------------------------------------------------------------- */

char *bisect_worktree_path(const char *ksrc)
{
	unsigned long long h = 0xcbf29ce484222325ULL;	/* FNV-1a of the path */
	char *cache = cache_dir(), *p;

	for (const char *q = ksrc; *q; q++)
		h = (h ^ (unsigned char)*q) * 0x100000001b3ULL;
	p = xasprintf("%s/bisect/%012llx/tree", cache, h & 0xffffffffffffULL);
	free(cache);
	return p;
}

static bool same_common_dir(const char *a, const char *b)
{
	char *ca = NULL, *cb = NULL, *ra, *rb;
	bool same = false;

	if (!bisect_git(a, &ca, "rev-parse", "--path-format=absolute", "--git-common-dir", NULL) &&
	    !bisect_git(b, &cb, "rev-parse", "--path-format=absolute", "--git-common-dir", NULL)) {
		ra = realpath(ca, NULL);
		rb = realpath(cb, NULL);
		same = ra && rb && !strcmp(ra, rb);
		free(ra);
		free(rb);
	}
	free(ca);
	free(cb);
	return same;
}

int bisect_worktree_prepare(const struct bisect_config *c, const char *rev, char **err)
{
	char *parent = xstrdup(c->worktree), *slash = strrchr(parent, '/'), *out = NULL;
	struct stat st;
	int ret;

	if (slash)
		*slash = '\0';
	mkdir_p(parent, 0755);
	free(parent);
	if (stat(c->worktree, &st) == 0 && !same_common_dir(c->worktree, c->ksrc)) {
		rm_rf(c->worktree);
		bisect_git(c->ksrc, NULL, "worktree", "prune", NULL);
	}
	if (stat(c->worktree, &st) == 0) {
		/* Ours from an earlier bisection: end any bisection left in it. */
		bisect_git(c->worktree, NULL, "bisect", "reset", NULL);
		/*
		 * kbuild hard-links the worktree into its patched copy, which
		 * changes every file's ctime: a forced checkout that trusts
		 * ctime would rewrite every file with a new mtime, and the
		 * next build would recompile the whole kernel.
		 */
		ret = bisect_git(c->worktree, &out, "-c", "core.trustctime=false", "checkout",
				 "--quiet", "--force", "--detach", rev, NULL);
	} else {
		bisect_git(c->ksrc, NULL, "worktree", "prune", NULL);
		ret = bisect_git(c->ksrc, &out, "worktree", "add", "--quiet", "--detach", c->worktree,
				 rev, NULL);
	}
	free(out);
	if (ret) {
		char *q = esc_shell_str(c->ksrc);

		err_set(err, "cannot check out '%s' in worktree '%s' of '%s' (git exit %d)\n"
			"hint: git -C %s worktree list", rev, c->worktree, c->ksrc, ret, q);
		free(q);
		return -EIO;
	}
	return 0;
}

int bisect_lock(const struct bisect_config *c, char **err)
{
	char *p = xasprintf("%s.lock", c->worktree), *parent = xstrdup(c->worktree);
	int fd;

	if (strrchr(parent, '/'))
		*strrchr(parent, '/') = '\0';
	mkdir_p(parent, 0755);
	free(parent);
	fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		err_set(err, "cannot create the lock '%s': %s", p, strerror(errno));
		free(p);
		return -errno;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		err_set(err, "another netlab bisect of '%s' is running (lock '%s' is held)\n"
			"hint: wait for it, or stop it first", c->ksrc, p);
		close(fd);
		free(p);
		return -EBUSY;
	}
	free(p);
	return 0;	/* fd stays open: the lock lasts as long as the process */
}

/* ---- the log ----------------------------------------------------------------------- */

void bisect_step_clear_checks(struct bisect_step *s)
{
	for (size_t i = 0; i < s->n_checks; i++) {
		free(s->checks[i].name);
		free(s->checks[i].text);
		free(s->checks[i].subject);
		free(s->checks[i].values);
	}
	free(s->checks);
	s->checks = NULL;
	s->n_checks = 0;
}

void bisect_step_release(struct bisect_step *s)
{
	free(s->label);
	free(s->commit);
	free(s->subject);
	free(s->dir);
	free(s->kernel_dir);
	free(s->why);
	bisect_step_clear_checks(s);
	for (size_t i = 0; i < s->n_run_dirs; i++)
		free(s->run_dirs[i]);
	free(s->run_dirs);
	memset(s, 0, sizeof(*s));
}

char *bisect_step_to_json(const struct bisect_step *s)
{
	struct json_object *o = json_object_new_object(), *a, *checks = json_object_new_array();
	char *text;

	json_object_object_add(o, "step", json_object_new_int((int)s->n));
	jadd_str(o, "endpoint", s->label);
	jadd_str(o, "commit", s->commit);
	jadd_str(o, "subject", s->subject);
	jadd_str(o, "verdict", bisect_verdict_name(s->verdict));
	jadd_str(o, "why", s->why);
	json_object_object_add(o, "build_s", metrics_json_number(round(s->build_s * 10) / 10));
	json_object_object_add(o, "boot_s", metrics_json_number(round(s->boot_s * 10) / 10));
	json_object_object_add(o, "scenario_s", metrics_json_number(round(s->scenario_s * 10) / 10));
	json_object_object_add(o, "runs", json_object_new_int((int)s->n_runs));
	for (size_t i = 0; i < s->n_checks; i++) {
		const struct bisect_check_sample *cs = &s->checks[i];
		struct json_object *c = json_object_new_object();

		jadd_str(c, "name", cs->name);
		jadd_str(c, "check", cs->text);
		jadd_str(c, "subject", cs->subject);
		jadd_str(c, "call", bisect_call_name(cs->call));
		json_object_object_add(c, "median", metrics_json_number(cs->median));
		jadd_str(c, "op", check_op_str(cs->op));
		json_object_object_add(c, "bound", metrics_json_number(cs->bound));
		/* The band, when the baseline's spread widened it. */
		if (cs->band > BISECT_BAND)
			json_object_object_add(c, "band", metrics_json_number(cs->band));
		a = json_object_new_array();
		for (size_t k = 0; k < cs->n_values; k++)
			json_object_array_add(a, metrics_json_number(cs->values[k]));
		json_object_object_add(c, "values", a);
		json_object_array_add(checks, c);
	}
	json_object_object_add(o, "checks", checks);
	jadd_str(o, "kernel", s->kernel_dir);
	jadd_str(o, "dir", s->dir);
	a = json_object_new_array();
	for (size_t i = 0; i < s->n_run_dirs; i++)
		json_object_array_add(a, json_object_new_string(s->run_dirs[i]));
	json_object_object_add(o, "run_dirs", a);
	text = json_text(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	json_object_put(o);
	return text;
}

static int op_parse(const char *s, enum check_op *op)
{
	for (int i = CHECK_EQ; i <= CHECK_GE; i++)
		if (s && !strcmp(s, check_op_str(i))) {
			*op = i;
			return 0;
		}
	return -EINVAL;
}

int bisect_step_from_json(const char *line, struct bisect_step *s)
{
	struct json_object *o = json_tokener_parse(line), *a, *v;
	char *verdict;
	double d;

	memset(s, 0, sizeof(*s));
	if (!o || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return -EINVAL;
	}
	d = jnum(o, "step");
	s->n = isnan(d) ? 0 : (unsigned int)d;
	s->label = jstr(o, "endpoint");
	s->commit = jstr(o, "commit");
	s->subject = jstr(o, "subject");
	s->why = jstr(o, "why");
	s->kernel_dir = jstr(o, "kernel");
	s->dir = jstr(o, "dir");
	s->build_s = jnum(o, "build_s");
	s->boot_s = jnum(o, "boot_s");
	s->scenario_s = jnum(o, "scenario_s");
	d = jnum(o, "runs");
	s->n_runs = isnan(d) ? 0 : (unsigned int)d;
	verdict = jstr(o, "verdict");
	s->verdict = BV_SKIP;
	for (int k = 0; k <= BV_INTERRUPTED; k++)
		if (verdict && !strcmp(verdict, bisect_verdict_name(k)))
			s->verdict = k;
	free(verdict);
	if (json_object_object_get_ex(o, "checks", &a) && json_object_is_type(a, json_type_array)) {
		size_t n = json_object_array_length(a);

		s->checks = xzalloc((n + 1) * sizeof(*s->checks));
		for (size_t i = 0; i < n; i++) {
			struct json_object *c = json_object_array_get_idx(a, i), *vals;
			struct bisect_check_sample *cs = &s->checks[s->n_checks++];
			char *str;

			cs->name = jstr(c, "name");
			cs->text = jstr(c, "check");
			cs->subject = jstr(c, "subject");
			str = jstr(c, "call");
			for (int k = BC_PASS; k <= BC_AMBIGUOUS; k++)
				if (str && !strcmp(str, call_names[k]))
					cs->call = k;
			free(str);
			cs->median = jnum(c, "median");
			cs->bound = jnum(c, "bound");
			cs->band = jnum(c, "band");
			if (isnan(cs->band))
				cs->band = BISECT_BAND;
			str = jstr(c, "op");
			op_parse(str, &cs->op);
			free(str);
			if (json_object_object_get_ex(c, "values", &vals) &&
			    json_object_is_type(vals, json_type_array)) {
				size_t m = json_object_array_length(vals);

				cs->values = xzalloc((m + 1) * sizeof(double));
				for (size_t k = 0; k < m; k++) {
					v = json_object_array_get_idx(vals, k);
					cs->values[cs->n_values++] = v ? json_object_get_double(v) : NAN;
				}
			}
		}
	}
	if (json_object_object_get_ex(o, "run_dirs", &a) && json_object_is_type(a, json_type_array)) {
		size_t n = json_object_array_length(a);

		s->run_dirs = xzalloc((n + 1) * sizeof(char *));
		for (size_t i = 0; i < n; i++)
			s->run_dirs[s->n_run_dirs++] =
				xstrdup(json_object_get_string(json_object_array_get_idx(a, i)));
	}
	json_object_put(o);
	return s->commit ? 0 : -EINVAL;
}

int bisect_log_load(const char *run_dir, struct bisect_step **steps, size_t *n, char **err)
{
	char *p = xasprintf("%s/bisect.log.jsonl", run_dir), *text = NULL, *line, *save = NULL;

	int ret;

	*steps = NULL;
	*n = 0;
	ret = file_read_max(p, JSON_FILE_MAX, &text, NULL);
	if (ret == -EFBIG) {
		err_set(err, "cannot read '%s': more than the %u MiB a netlab JSON file holds", p,
			JSON_FILE_MAX >> 20);
		free(p);
		return -EINVAL;
	}
	if (ret) {
		free(p);
		return 0;	/* no step yet */
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct bisect_step s;

		if (bisect_step_from_json(line, &s)) {
			bisect_step_release(&s);
			continue;	/* a line cut short by a crash */
		}
		*steps = xrealloc_array(*steps, *n + 1, sizeof(**steps));
		(*steps)[(*n)++] = s;
	}
	free(text);
	free(p);
	return 0;
}

/* ---- the end ------------------------------------------------------------------------ */

static bool is_commit_id(const char *s)
{
	return strspn(s, "0123456789abcdef") >= 40;
}

int bisect_result_parse(const struct bisect_config *c, const char *run_output,
			const struct bisect_step *steps, size_t n_steps, struct bisect_result *r,
			char **err)
{
	char *text = xstrdup(run_output ? run_output : ""), *line, *save = NULL, *parent = NULL;
	bool candidates = false;

	memset(r, 0, sizeof(*r));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (is_commit_id(line) && strstr(line, " is the first bad commit")) {
			free(r->first_bad);
			r->first_bad = xstrndup(line, 40);
		} else if (strstr(line, "first bad commit could be any of")) {
			candidates = true;
		} else if (candidates && is_commit_id(line)) {
			r->candidates = xrealloc_array(r->candidates, r->n_candidates + 1, sizeof(char *));
			r->candidates[r->n_candidates++] = xstrndup(line, 40);
		}
	}
	free(text);
	if (!r->first_bad && !r->n_candidates) {
		err_set(err, "git bisect run named no first bad commit");
		return -ENOENT;
	}
	if (!r->first_bad)
		return 0;
	bisect_git(c->ksrc, &r->subject, "log", "-1", "--format=%s", r->first_bad, NULL);
	{
		char *spec = xasprintf("%s^", r->first_bad);

		bisect_git(c->ksrc, &parent, "rev-parse", "--verify", "--quiet", spec, NULL);
		free(spec);
	}
	for (size_t i = 0; i < n_steps; i++) {
		const struct bisect_step *s = &steps[i];

		if (s->verdict == BV_BAD && !strcmp(s->commit, r->first_bad))
			r->after = s;
		if (s->verdict == BV_GOOD && parent && !strcmp(s->commit, parent))
			r->before = s;
	}
	for (size_t i = n_steps; !r->before && i > 0; i--)
		if (steps[i - 1].verdict == BV_GOOD)
			r->before = &steps[i - 1];
	free(parent);
	if (r->after && r->after->kernel_dir) {
		struct sbuf b;

		/* Each word a path or a name holds is quoted: the line is pasted into a shell. */
		sbuf_init(&b);
		sbuf_adds(&b, "netlab regress");
		esc_shell_addf(&b, " --kernel ", "%s/bzImage", r->after->kernel_dir);
		/* --module: the step's initrd holds the module */
		if (c->module)
			esc_shell_addf(&b, " --initrd ", "%s/initrd.img", r->after->dir);
		else
			esc_shell_addf(&b, " --initrd ", "%s", c->initrd);
		sbuf_addf(&b, " --repeat %u", c->runs);
		if (c->deterministic >= 0)
			sbuf_addf(&b, " --deterministic %s", c->deterministic ? "yes" : "no");
		for (size_t i = 0; i < c->n_shares; i++)
			esc_shell_addf(&b, " --share ", "%s:%s%s", c->shares[i].host, c->shares[i].guest,
				       c->shares[i].rw ? ":rw" : "");
		for (size_t i = 0; i < c->n_adds; i++)
			esc_shell_addf(&b, " --add ", "%s:%s", c->adds[i].host, c->adds[i].guest);
		esc_shell_addf(&b, " --out ", "runs/repro-%.12s", r->first_bad);
		esc_shell_addf(&b, " ", "%s", c->scenario);
		r->repro = sbuf_detach(&b);
	}
	return 0;
}

void bisect_result_release(struct bisect_result *r)
{
	free(r->first_bad);
	free(r->subject);
	for (size_t i = 0; i < r->n_candidates; i++)
		free(r->candidates[i]);
	free(r->candidates);
	free(r->repro);
	memset(r, 0, sizeof(*r));
}
