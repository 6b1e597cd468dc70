// SPDX-License-Identifier: GPL-2.0
/*
 * netlab selftests: selection, verdicts and the folded outputs. See
 * ksft-suite.h.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/esc.h"
#include "lib/jsonout.h"
#include "lib/util.h"
#include "lib/metrics.h"
#include "selftests/ksft-suite.h"

static const char *const result_names[] = {
	[KSFT_PASS] = "pass", [KSFT_FAIL] = "fail", [KSFT_SKIP] = "skip", [KSFT_INFRA] = "infra-error",
};

char *ksft_target_of(const char *arg)
{
	const char *c = strchr(arg, ':');

	return c ? xstrndup(arg, (size_t)(c - arg)) : xstrdup(arg);
}

char *ksft_scn_name(const char *test)
{
	char *n = xstrdup(test);

	for (char *p = n; *p; p++)
		if (*p == '/' || *p == ':')
			*p = '-';
	return n;
}

/* Does list entry @test ("T:X") fall under argument @arg? */
static bool selects(const char *arg, const char *test)
{
	size_t n;

	if (strchr(arg, ':'))
		return !strcmp(arg, test);
	n = strlen(arg);
	return !strncmp(test, arg, n) && (test[n] == ':' || test[n] == '/');
}

static void add_test(struct ksft_suite *s, const char *name, const char *why)
{
	struct ksft_test *t;

	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->t[i].name, name))
			return;
	s->t = xrealloc_array(s->t, s->n + 1, sizeof(*s->t));
	t = &s->t[s->n++];
	memset(t, 0, sizeof(*t));
	t->name = xstrdup(name);
	t->scn_name = ksft_scn_name(name);
	if (why) {
		t->not_built = xstrdup(why);
		t->result = KSFT_SKIP;
		t->reason = xstrdup(why);
	}
}

/* Lines of @path (NULL when unreadable), each split at a tab into name and rest. */
static char *read_lines(const char *install, const char *file)
{
	char *p = xasprintf("%s/%s", install, file), *data = NULL;
	size_t len;

	if (file_read(p, &data, &len))
		data = NULL;
	free(p);
	return data;
}

int ksft_select(const char *install, const char *const *args, size_t n_args,
		struct ksft_suite *s, char **err)
{
	char *list = read_lines(install, "kselftest-list.txt");
	char *missing = read_lines(install, "ksft-missing.txt");
	int ret = 0;

	memset(s, 0, sizeof(*s));
	if (!list) {
		err_set(err, "no kselftest-list.txt in '%s'\nhint: the selftests build did not finish",
			install);
		free(missing);
		return -ENOENT;
	}
	for (size_t a = 0; a < n_args && !ret; a++) {
		size_t before = s->n;
		char *save = NULL, *copy = xstrdup(list);

		for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
			if (selects(args[a], l))
				add_test(s, l, NULL);
		free(copy);
		copy = xstrdup(missing ? missing : "");
		for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			char *tab = strchr(l, '\t');

			if (!tab || !strncmp(tab + 1, "helper ", 7))
				continue;
			*tab = 0;
			if (selects(args[a], l))
				add_test(s, l, tab + 1);
		}
		free(copy);
		if (s->n == before && !strchr(args[a], ':')) {
			char *q = esc_shell_str(args[a]);

			err_set(err, "selftest target '%s' has no test in '%s/kselftest-list.txt'\n"
				"hint: netlab selftests --list %s lists what it has", args[a], install, q);
			free(q);
			ret = -EINVAL;
		} else if (s->n == before) {
			bool dup = false;

			for (size_t i = 0; i < s->n; i++)
				dup |= !strcmp(s->t[i].name, args[a]);
			if (!dup) {
				err_set(err, "no selftest '%s' (not in '%s/kselftest-list.txt')\n"
					"hint: 'netlab selftests --list' lists the tests as TARGET:TEST",
					args[a], install);
				ret = -EINVAL;
			}
		}
	}
	free(list);
	free(missing);
	if (ret)
		ksft_suite_release(s);
	return ret;
}

/* ---- one test's verdict ---------------------------------------------- */

/* The runner's verdict line: at the top level, "ok N selftests: ..." or "not ok ...". */
static const char *verdict_line(const char *out, bool *ok)
{
	const char *found = NULL;

	for (const char *p = out; p && *p;) {
		size_t n = strcspn(p, "\n");
		char *line = xstrndup(p, n);

		if (!strncmp(line, "ok ", 3) || !strncmp(line, "not ok ", 7)) {
			found = p;
			*ok = line[0] == 'o';
		}
		free(line);
		p += n + (p[n] == '\n');
	}
	return found;
}

/* Messages that name a kernel feature the test did not find. */
static const char *const config_marks[] = {
	"Unknown device type", "qdisc kind is unknown", "Operation not supported",
	"Protocol not supported", "Address family not supported", "not supported by kernel",
	"Unknown filter", "Unknown action", "unknown filter", "Kernel does not support",
	"CONFIG_", "module not found", "not enabled", "Function not implemented",
	"No such device", "can't open tun", "is an unknown key", "modprobe",
};

/* The diagnostic lines (the test's own output, "# " stripped), one by one. */
static void scan(const char *out, struct ksft_verdict *v, bool skip)
{
	char *first_fail = NULL, *last_skip = NULL, *last = NULL;

	for (const char *p = out; p && *p;) {
		size_t n = strcspn(p, "\n");

		if (n > 2 && !strncmp(p, "# ", 2) && strncmp(p, "# selftests: ", 13)) {
			char *line = xstrndup(p + 2, n - 2);

			if (!v->config)
				for (size_t i = 0; i < ARRAY_SIZE(config_marks); i++)
					if (strstr(line, config_marks[i])) {
						v->config = xstrdup(line);
						break;
					}
			if (strcasestr(line, "skip") && (free(last_skip), 1))
				last_skip = xstrdup(line);
			if (!first_fail && (strstr(line, "FAIL") || strcasestr(line, "error")))
				first_fail = xstrdup(line);
			if (strspn(line, " \t#") < strlen(line)) {
				free(last);
				last = xstrdup(line);
			}
			free(line);
		}
		p += n + (p[n] == '\n');
	}
	if (skip)
		v->reason = last_skip ? xstrdup(last_skip) : last ? xstrdup(last) : NULL;
	else
		v->reason = first_fail ? xstrdup(first_fail) : last ? xstrdup(last) : NULL;
	free(first_fail);
	free(last_skip);
	free(last);
}

void ksft_verdict_parse(const char *out, int exec_exit, bool timed_out, struct ksft_verdict *v)
{
	bool ok = false;
	const char *line = verdict_line(out, &ok);
	char *directive = NULL, *why;

	memset(v, 0, sizeof(*v));
	v->has_line = line != NULL;
	if (line) {
		size_t n = strcspn(line, "\n");
		const char *hash = memchr(line, '#', n);

		if (hash)
			directive = xstrndup(hash + 1 + (hash[1] == ' '), n - (size_t)(hash - line) - 1 -
					    (hash[1] == ' '));
	}
	if (line && ok && directive && !strncasecmp(directive, "SKIP", 4)) {
		v->result = KSFT_SKIP;
		scan(out, v, true);
		if (!v->reason)
			v->reason = xstrdup("skipped (exit 4) without saying why");
	} else if (line && ok) {
		v->result = KSFT_PASS;
		scan(out, v, false);
		free(v->reason);
		v->reason = NULL;
	} else {
		v->result = KSFT_FAIL;
		scan(out, v, false);
		if (!line)
			directive = timed_out ? xstrdup("killed at netlab's [exec] timeout")
					      : xasprintf("no verdict from the runner (exec.exit %d)",
							  exec_exit);
		why = v->reason;
		v->reason = why ? xasprintf("%s: %s", directive ? directive : "not ok", why)
				: xstrdup(directive ? directive : "not ok");
		free(why);
	}
	free(directive);
}

void ksft_verdict_release(struct ksft_verdict *v)
{
	free(v->reason);
	free(v->config);
	memset(v, 0, sizeof(*v));
}

/* ---- folding into the regress suite ----------------------------------- */

void ksft_suite_fold(struct ksft_suite *s, struct regress *r)
{
	for (size_t i = 0; i < s->n; i++) {
		struct ksft_test *t = &s->t[i];
		struct regress_scn *rs = NULL;
		struct ksft_verdict v;
		char *out = NULL, *p;
		size_t len;
		double ex = -1, to = 0;

		for (size_t k = 0; k < r->n && !t->not_built; k++)
			if (!strcmp(r->s[k].scn->name, t->scn_name))
				rs = &r->s[k];
		if (!rs)
			continue;
		if (rs->n_runs && rs->runs[0].dir) {
			t->run_dir = xstrdup(rs->runs[0].dir);
			t->wall_s = rs->runs[0].wall_s;
		}
		if (rs->outcome == RO_NOT_RUN) {
			t->result = KSFT_SKIP;
			t->reason = xstrdup(rs->reason);
			continue;
		}
		if (rs->outcome == RO_INFRA || rs->outcome == RO_INTERRUPTED || rs->outcome == RO_BAD ||
		    !t->run_dir) {
			t->result = KSFT_INFRA;
			t->reason = xstrdup(rs->reason ? rs->reason : regress_outcome_name(rs->outcome));
			continue;
		}
		p = xasprintf("%s/exec.out", t->run_dir);
		if (file_read(p, &out, &len))
			out = NULL;
		free(p);
		if (rs->runs[0].m) {
			ex = metrics_value(rs->runs[0].m, "exec.exit", -1);
			to = metrics_value(rs->runs[0].m, "exec.timed_out", 0);
		}
		ksft_verdict_parse(out, (int)ex, to > 0, &v);
		/* No verdict line because the run itself ended badly (a timeout of
		 * the whole run, a panic): say that. */
		if (v.result == KSFT_FAIL && !v.has_line && rs->runs[0].verdict != RV_OK && rs->runs[0].verdict != RV_FAILED) {
			free(v.reason);
			v.reason = xasprintf("the run ended: %s", rs->runs[0].reason ? rs->runs[0].reason
										: "no reason");
		}
		free(out);
		t->result = v.result;
		t->reason = v.reason;
		t->config = v.config;
		rs->outcome = v.result == KSFT_PASS ? RO_PASS : v.result == KSFT_SKIP ? RO_SKIP : RO_FAIL;
		free(rs->reason);
		rs->reason = t->reason ? xstrdup(t->reason) : NULL;
	}
}

/* ---- outputs ----------------------------------------------------------- */

static void count(const struct ksft_suite *s, size_t c[4])
{
	memset(c, 0, 4 * sizeof(*c));
	for (size_t i = 0; i < s->n; i++)
		c[s->t[i].result]++;
}

void ksft_print(const struct ksft_suite *s, double wall_s, FILE *f)
{
	size_t c[4], w = 4;

	for (size_t i = 0; i < s->n; i++)
		w = strlen(s->t[i].name) > w ? strlen(s->t[i].name) : w;
	fprintf(f, "%-*s %-11s %7s  %s\n", (int)w, "TEST", "RESULT", "TIME", "REASON");
	for (size_t i = 0; i < s->n; i++) {
		const struct ksft_test *t = &s->t[i];

		fprintf(f, "%-*s %-11s %6.1fs  %s\n", (int)w, t->name, result_names[t->result],
			t->wall_s, t->reason ? t->reason : "");
		if (t->config && t->result != KSFT_PASS)
			fprintf(f, "%-*s %-11s %7s  probably a missing kernel config: %s\n", (int)w, "", "",
				"", t->config);
	}
	count(s, c);
	fprintf(f, "selftests: %zu: %zu passed, %zu failed, %zu skipped, %zu could not run; "
		"%.0f s\n", s->n, c[KSFT_PASS], c[KSFT_FAIL], c[KSFT_SKIP], c[KSFT_INFRA], wall_s);
	/* Skips grouped by reason. */
	for (size_t i = 0; i < s->n; i++) {
		const struct ksft_test *t = &s->t[i];
		size_t n = 0;
		bool seen = false;

		if (t->result != KSFT_SKIP)
			continue;
		for (size_t k = 0; k < i; k++)
			seen |= s->t[k].result == KSFT_SKIP && !strcmp(s->t[k].reason, t->reason);
		if (seen)
			continue;
		for (size_t k = i; k < s->n; k++)
			n += s->t[k].result == KSFT_SKIP && !strcmp(s->t[k].reason, t->reason);
		fprintf(f, "  skip (%zu): %s\n", n, t->reason);
	}
}

/* A line as KTAP text: valid UTF-8, no control characters. */
static char *clean(const char *s, size_t n)
{
	char *line = xstrndup(s, n), *t = esc_utf8_fix(line);

	for (char *p = t; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
	free(line);
	return t;
}

static void ktap_test(const struct ksft_test *t, size_t num, FILE *f)
{
	char *out = NULL, *p, *name = clean(t->name, strlen(t->name));
	char *why = t->reason ? clean(t->reason, strlen(t->reason)) : NULL;
	bool ok = false;
	size_t len;

	if (t->run_dir) {
		p = xasprintf("%s/exec.out", t->run_dir);
		if (file_read(p, &out, &len))
			out = NULL;
		free(p);
	}
	/* The runner's own TAP, nested, when it has its verdict line: after
	 * KTAP's header and where to look (its own "TAP version" line left out). */
	if (out && verdict_line(out, &ok)) {
		fprintf(f, "    KTAP version 1\n    # Subtest: %s\n", name);
		if (t->run_dir)
			fprintf(f, "    # run: %s\n", t->run_dir);
		if (t->config && t->result != KSFT_PASS)
			fprintf(f, "    # probably a missing kernel config: %s\n", t->config);
		for (const char *q = out; *q;) {
			size_t n = strcspn(q, "\n");
			char *l = clean(q, n);

			if (*l && strncmp(l, "TAP version", 11) && strncmp(l, "KTAP version", 12))
				fprintf(f, "    %s\n", l);
			free(l);
			q += n + (q[n] == '\n');
		}
	}
	switch (t->result) {
	case KSFT_PASS: fprintf(f, "ok %zu %s\n", num, name); break;
	case KSFT_SKIP: fprintf(f, "ok %zu %s # SKIP %s\n", num, name, why ? why : ""); break;
	case KSFT_INFRA:
		fprintf(f, "ok %zu %s # SKIP infra-error: %s\n", num, name, why ? why : "");
		break;
	default: fprintf(f, "not ok %zu %s\n", num, name); break;
	}
	free(out);
	free(why);
	free(name);
}

int ksft_write_ktap(const struct ksft_suite *s, const char *path, char **err)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		err_set(err, "cannot write '%s': %s", path, strerror(errno));
		return -errno;
	}
	fprintf(f, "KTAP version 1\n1..%zu\n", s->n);
	for (size_t i = 0; i < s->n; i++)
		ktap_test(&s->t[i], i + 1, f);
	if (fclose(f)) {
		err_set(err, "cannot write '%s': %s", path, strerror(errno));
		return -EIO;
	}
	return 0;
}

static struct json_object *str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

int ksft_json_add(const struct ksft_suite *s, const char *summary, char **err)
{
	struct json_object *root = json_file_get(summary), *o, *tests, *counts;
	size_t c[4];
	int ret;

	if (!root) {
		err_set(err, "cannot read '%s' back", summary);
		return -EIO;
	}
	count(s, c);
	o = json_object_new_object();
	counts = json_object_new_object();
	json_object_object_add(counts, "total", json_object_new_int64((int64_t)s->n));
	json_object_object_add(counts, "passed", json_object_new_int64((int64_t)c[KSFT_PASS]));
	json_object_object_add(counts, "failed", json_object_new_int64((int64_t)c[KSFT_FAIL]));
	json_object_object_add(counts, "skipped", json_object_new_int64((int64_t)c[KSFT_SKIP]));
	json_object_object_add(counts, "infra", json_object_new_int64((int64_t)c[KSFT_INFRA]));
	json_object_object_add(o, "counts", counts);
	tests = json_object_new_array();
	for (size_t i = 0; i < s->n; i++) {
		const struct ksft_test *t = &s->t[i];
		struct json_object *j = json_object_new_object();

		json_object_object_add(j, "name", json_object_new_string(t->name));
		json_object_object_add(j, "result", json_object_new_string(result_names[t->result]));
		json_object_object_add(j, "reason", str_or_null(t->reason));
		json_object_object_add(j, "config", str_or_null(t->config));
		json_object_object_add(j, "built", json_object_new_boolean(!t->not_built));
		json_object_object_add(j, "scenario", t->not_built ? NULL
								   : json_object_new_string(t->scn_name));
		json_object_object_add(j, "run", str_or_null(t->run_dir));
		json_object_object_add(j, "time_s", json_real(t->wall_s, "%.1f"));
		json_object_array_add(tests, j);
	}
	json_object_object_add(o, "tests", tests);
	json_object_object_add(root, "selftests", o);
	ret = json_file_write(summary, root);
	json_object_put(root);
	if (ret)
		err_set(err, "cannot write '%s': %s", summary, strerror(-ret));
	return ret;
}

int ksft_exit_code(const struct ksft_suite *s, const struct regress *r)
{
	size_t c[4];

	if (r && r->interrupted)
		return NL_EXIT_INTERRUPTED;
	count(s, c);
	if (c[KSFT_FAIL])
		return NL_EXIT_FAIL;
	return c[KSFT_INFRA] ? NL_EXIT_CANNOT_TEST : NL_EXIT_OK;
}

void ksft_suite_release(struct ksft_suite *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->t[i].name);
		free(s->t[i].scn_name);
		free(s->t[i].not_built);
		free(s->t[i].reason);
		free(s->t[i].config);
		free(s->t[i].run_dir);
	}
	free(s->t);
	memset(s, 0, sizeof(*s));
}
