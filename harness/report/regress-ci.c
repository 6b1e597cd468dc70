// SPDX-License-Identifier: GPL-2.0
/*
 * What netlab regress writes for CI systems that read it whole: KTAP
 * (results.ktap, --ktap) for the kernel's own parser, and JUnit XML. Both
 * count the items of regress_n_items() (regress-out.c), as summary.json does.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/provenance.h"
#include "lib/esc.h"
#include "report/regress-int.h"
#include "scenario/regress.h"

/*
 * s as one line of KTAP: valid UTF-8, control characters (line breaks
 * included) as spaces; for a test name, '#' as '_' too (it would start a
 * directive). Caller frees.
 */
static char *ktap_text(const char *s, bool name)
{
	char *t = esc_utf8_fix(s ? s : "");

	for (char *p = t; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f || (name && *p == '#'))
			*p = name && *p == '#' ? '_' : ' ';
	return t;
}

/* "# " and each line of text, indented. */
static void ktap_diag(FILE *f, const char *text)
{
	for (const char *p = text; p && *p;) {
		size_t n = strcspn(p, "\n");
		char *line = xstrndup(p, n), *clean = ktap_text(line, false);

		fprintf(f, "    # %s\n", clean);
		free(clean);
		free(line);
		p += n + (p[n] == '\n');
	}
}

/* What explains scenario rs (regress_explain()), as diagnostic lines. */
static void ktap_scenario_story(const struct regress_scn *rs, FILE *f)
{
	char *text = regress_explain(rs);

	ktap_diag(f, text);
	free(text);
}

static void ktap_item(const struct regress_scn *rs, size_t i, bool *told, FILE *f)
{
	enum regress_item_class cls = regress_item_class(rs, i);
	char *name = ktap_text(regress_item_name(rs, i), true);
	const struct regress_check *rc = i < rs->scn->n_checks ? &rs->checks[i] : NULL;
	char v[32], b[32];

	if (cls == RIC_SKIPPED && rs->outcome == RO_NOT_RUN) {
		char *why = ktap_text(rs->reason, false);

		fprintf(f, "    ok %zu %s # SKIP %s\n", i + 1, name, why);	/* "not run: ..." */
		free(why);
		free(name);
		return;
	}
	if (cls == RIC_SKIPPED) {
		char *why = ktap_text(rc && rs->median && rc->res.err ? rc->res.err : rs->reason, false);

		fprintf(f, "    ok %zu %s # SKIP %s%s%s\n", i + 1, name,
			rc && rs->median ? check_status_name(rc->res.status) : regress_outcome_name(rs->outcome),
			*why ? ": " : "", why);
		free(why);
		free(name);
		return;
	}
	if (cls != RIC_PASSED) {
		/* The scenario's story once, before its first failing item; then this one's. */
		if (!*told)
			ktap_scenario_story(rs, f);
		*told = true;
		if (rc && rs->median) {
			char *t;

			regress_fmt_value(v, sizeof(v), rc, rs->n_runs);
			regress_fmt_num(b, sizeof(b), rc->res.bound);
			t = rc->res.status == CHECK_FAIL
				    ? xasprintf("%s: value %s, bound %s %s", check_text(rc->check->expr), v,
						check_op_str(rc->res.op), b)
				    : xasprintf("%s: %s%s%s", check_text(rc->check->expr),
						check_status_name(rc->res.status), rc->res.err ? ": " : "",
						rc->res.err ? rc->res.err : "");
			ktap_diag(f, t);
			free(t);
		}
	}
	if (rc && rs->median && (rc->res.status == CHECK_PASS || rc->res.status == CHECK_FAIL)) {
		regress_fmt_num(v, sizeof(v), rc->res.value);
		regress_fmt_num(b, sizeof(b), rc->res.bound);
		fprintf(f, "    %sok %zu %s # %s %s %s\n", cls == RIC_PASSED ? "" : "not ", i + 1, name,
			v, check_op_str(rc->res.op), b);
	} else {
		fprintf(f, "    %sok %zu %s # %s\n", cls == RIC_PASSED ? "" : "not ", i + 1, name,
			rc && rs->median ? check_status_name(rc->res.status) : regress_outcome_name(rs->outcome));
	}
	free(name);
}

void regress_print_ktap(const struct regress *r, FILE *f)
{
	fprintf(f, "KTAP version 1\n1..%zu\n", r->n);
	for (size_t i = 0; i < r->n; i++) {
		const struct regress_scn *rs = &r->s[i];
		char *name = ktap_text(rs->scn->name, true);
		size_t n = regress_n_items(rs);
		bool told = false;

		fprintf(f, "    KTAP version 1\n    # Subtest: %s\n    1..%zu\n", name, n);
		for (size_t c = 0; c < n; c++)
			ktap_item(rs, c, &told, f);
		if (rs->outcome == RO_SKIP || rs->outcome == RO_NOT_RUN) {
			char *why = ktap_text(rs->reason, false);

			fprintf(f, "ok %zu %s # SKIP %s\n", i + 1, name, why);
			free(why);
		} else if (rs->outcome == RO_INFRA || rs->outcome == RO_INTERRUPTED) {
			char *why = ktap_text(rs->reason, false);

			fprintf(f, "ok %zu %s # SKIP %s%s%s\n", i + 1, name,
				regress_outcome_name(rs->outcome), *why ? ": " : "", why);
			free(why);
		} else {
			fprintf(f, "%sok %zu %s\n", rs->outcome == RO_PASS ? "" : "not ", i + 1, name);
		}
		free(name);
	}
}

int regress_write_ktap(const struct regress *r, const char *path, char **err)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int ret;

	if (!f) {
		err_set(err, "cannot write '%s': %s", path, strerror(errno));
		return -errno;
	}
	regress_print_ktap(r, f);
	fclose(f);
	ret = file_write(path, text, len);
	if (ret)
		err_set(err, "cannot write '%s': %s", path, strerror(-ret));
	free(text);
	return ret;
}

/* The runs of rs, in seconds: what its checks cost. */
static double scn_time(const struct regress_scn *rs)
{
	double t = 0;

	for (unsigned int k = 0; k < rs->n_runs; k++)
		t += rs->runs[k].wall_s > 0 ? rs->runs[k].wall_s : 0;
	return t;
}

/* ` name="value"`, the value escaped. */
static void xml_attr(struct sbuf *b, const char *name, const char *value)
{
	sbuf_addf(b, " %s=\"", name);
	esc_xml(b, value, 0);
	sbuf_adds(b, "\"");
}

static void junit_counts(struct sbuf *b, size_t tests, size_t failures, size_t errors,
			 size_t skipped, double time)
{
	sbuf_addf(b, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\"",
		  tests, failures, errors, skipped, time);
}

/* What a person needs under a testcase that did not pass: the table's lines under the scenario. */
static char *junit_story(const struct regress_scn *rs)
{
	char *text = NULL, *story;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	story = regress_explain(rs);
	if (story)
		fputs(story, f);
	free(story);
	for (unsigned int k = 0; k < rs->n_runs; k++)
		if (rs->runs[k].dir)
			fprintf(f, "run %u: %s (%s, %.1f s)\n", k + 1, rs->runs[k].dir,
				run_verdict_name(rs->runs[k].verdict), rs->runs[k].wall_s);
	fclose(f);
	return text;
}

static void junit_testcase(struct sbuf *b, const struct regress_scn *rs, size_t i, double time)
{
	enum regress_item_class cls = regress_item_class(rs, i);
	const struct regress_check *rc = i < rs->scn->n_checks ? &rs->checks[i] : NULL;
	bool evaluated = rc && rs->median &&
			 (rc->res.status == CHECK_PASS || rc->res.status == CHECK_FAIL);
	char v[96], bd[32];
	char *story;

	sbuf_adds(b, "    <testcase");
	xml_attr(b, "classname", rs->scn->name);
	xml_attr(b, "name", regress_item_name(rs, i));
	sbuf_addf(b, " time=\"%.3f\"", time);
	if (cls == RIC_PASSED) {
		sbuf_adds(b, "/>\n");
		return;
	}
	sbuf_adds(b, ">\n      ");
	regress_fmt_value(v, sizeof(v), rc ? rc : &(struct regress_check){ .min = NAN }, rs->n_runs);
	regress_fmt_num(bd, sizeof(bd), rc ? rc->res.bound : NAN);
	switch (cls) {
	case RIC_SKIPPED:
		sbuf_adds(b, "<skipped");
		xml_attr(b, "message", rc && rs->median && rc->res.err ? rc->res.err
				       : rs->reason ? rs->reason : regress_outcome_name(rs->outcome));
		sbuf_adds(b, "/>");
		break;
	case RIC_FAILED:
		sbuf_adds(b, "<failure message=\"");
		if (evaluated) {
			esc_xml(b, check_text(rc->check->expr), 0);
			sbuf_adds(b, ": value ");
			esc_xml(b, v, 0);
			sbuf_adds(b, ", bound ");
			esc_xml(b, check_op_str(rc->res.op), 0);
			sbuf_addf(b, " %s", bd);
		} else {
			sbuf_addf(b, "%s: ", regress_outcome_name(rs->outcome));
			esc_xml(b, rs->reason, 0);
		}
		sbuf_adds(b, "\" type=\"fail\"/>");
		break;
	default:
		sbuf_adds(b, "<error message=\"");
		esc_xml(b, rc && rs->median && rc->res.err ? rc->res.err : rs->reason, 0);
		sbuf_addf(b, "\" type=\"%s\"/>", rc && rs->median ? check_status_name(rc->res.status)
							  : regress_outcome_name(rs->outcome));
	}
	story = junit_story(rs);
	if (story && *story) {
		sbuf_adds(b, "\n      <system-out>");
		esc_xml(b, story, 0);
		sbuf_adds(b, "</system-out>");
	}
	free(story);
	sbuf_adds(b, "\n    </testcase>\n");
}

static void junit_properties(struct sbuf *b, const struct regress *r)
{
	const struct kernel_id *k = r->kid;
	const char *const props[][2] = {
		{ "netlab.version", provenance_version() },
		{ "netlab.commit", provenance_commit() },
		{ "kernel.path", r->kernel },
		{ "kernel.version", k ? k->version : NULL },
		{ "kernel.release", k ? k->release : NULL },
		{ "kernel.cache_key", k ? k->cache_key : NULL },
		{ "kernel.source", k ? k->source : NULL },
		{ "kernel.flavour", k ? k->flavour : NULL },
		{ "kernel.config_sha256", k ? k->config_sha256 : NULL },
		{ "suite.dir", r->dir },
	};

	sbuf_adds(b, "    <properties>\n");
	for (size_t i = 0; i < ARRAY_SIZE(props); i++) {
		if (!props[i][1] || !*props[i][1])
			continue;
		sbuf_adds(b, "      <property");
		xml_attr(b, "name", props[i][0]);
		xml_attr(b, "value", props[i][1]);
		sbuf_adds(b, "/>\n");
	}
	sbuf_adds(b, "    </properties>\n");
}

int regress_write_junit(const struct regress *r, const char *path, char **err)
{
	struct regress_counts all;
	char now[32];
	struct sbuf b;
	int ret;

	regress_count(r, &all);
	provenance_utc_now(now, sizeof(now));
	sbuf_init(&b);
	sbuf_adds(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"netlab regress\"");
	junit_counts(&b, all.total, all.failed, all.errors, all.skipped, r->wall_s);
	sbuf_addf(&b, " timestamp=\"%s\">\n", now);
	for (size_t i = 0; i < r->n; i++) {
		const struct regress_scn *rs = &r->s[i];
		struct regress_counts c = { 0 };
		size_t n = regress_n_items(rs);
		double t = scn_time(rs);

		for (size_t k = 0; k < n; k++) {
			enum regress_item_class cls = regress_item_class(rs, k);

			c.failed += cls == RIC_FAILED;
			c.errors += cls == RIC_ERROR;
			c.skipped += cls == RIC_SKIPPED;
		}
		sbuf_adds(&b, "  <testsuite");
		xml_attr(&b, "name", rs->scn->name);
		sbuf_addf(&b, " id=\"%zu\"", i);
		junit_counts(&b, n, c.failed, c.errors, c.skipped, t);
		sbuf_addf(&b, " timestamp=\"%s\">\n", now);
		junit_properties(&b, r);
		/* The checks judge the same runs: each gets an even share of their time. */
		for (size_t k = 0; k < n; k++)
			junit_testcase(&b, rs, k, t / (double)n);
		sbuf_adds(&b, "    <system-out>");
		for (unsigned int k = 0; k < rs->n_runs; k++) {
			char line[64];

			if (!rs->runs[k].dir)
				continue;
			snprintf(line, sizeof(line), "run %u: ", k + 1);
			sbuf_adds(&b, line);
			esc_xml(&b, rs->runs[k].dir, 0);
			sbuf_addf(&b, " (%s, %.1f s)\n", run_verdict_name(rs->runs[k].verdict),
				  rs->runs[k].wall_s);
		}
		sbuf_adds(&b, "</system-out>\n  </testsuite>\n");
	}
	sbuf_adds(&b, "</testsuites>\n");
	ret = file_write(path, b.s, b.len);
	if (ret)
		err_set(err, "cannot write '%s': %s", path, strerror(-ret));
	sbuf_release(&b);
	return ret;
}
