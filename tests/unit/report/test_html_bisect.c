// SPDX-License-Identifier: GPL-2.0
/*
 * The bisect page and the suite page's sparklines, from real files: the
 * run directory of a netlab bisect --module of the planted e1000e latency
 * regression (fixtures/bisect/e1000e-slowtx: its bisect.json,
 * bisect.log.jsonl, bisect.txt and commits.txt), and a suite written here.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <json-c/json.h>
#include <libxml/HTMLparser.h>
#include <libxml/tree.h>

#include "lib/util.h"
#include "report/html-int.h"
#include "tmpdir.h"

TMPDIR_FIXTURE("html-bisect")

#define BISECT_FIXTURE FIXTURES "/bisect/e1000e-slowtx"
/* The commit bisect.txt names as the first bad one. */
#define FIRST_BAD "403e7270dd56d43f7c9988a1e3ea53a411db493a"

static htmlDocPtr parse_file(const char *p)
{
	htmlDocPtr doc = htmlReadFile(p, "utf-8", HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
							  HTML_PARSE_NONET);

	assert_non_null(doc);
	return doc;
}

/* Elements with class word @cls (and attribute @attr = @val when @attr) under @n. */
static int count_class(xmlNode *n, const char *cls, const char *attr, const char *val)
{
	int c = 0;

	for (; n; n = n->next) {
		if (n->type == XML_ELEMENT_NODE) {
			xmlChar *k = xmlGetProp(n, (const xmlChar *)"class");
			xmlChar *v = attr ? xmlGetProp(n, (const xmlChar *)attr) : NULL;
			char *words = k ? strdup((const char *)k) : NULL, *save = NULL;

			for (char *w = words ? strtok_r(words, " ", &save) : NULL; w;
			     w = strtok_r(NULL, " ", &save))
				if (!strcmp(w, cls) && (!attr || (v && !strcmp((const char *)v, val))))
					c++;
			free(words);
			xmlFree(k);
			xmlFree(v);
		}
		c += count_class(n->children, cls, attr, val);
	}
	return c;
}

/* The <svg> whose data-plot (or data-spark) is @id. */
static xmlNode *find_svg(xmlNode *n, const char *attr, const char *id)
{
	for (; n; n = n->next) {
		xmlChar *v = n->type == XML_ELEMENT_NODE ? xmlGetProp(n, (const xmlChar *)attr) : NULL;
		xmlNode *r;

		if (v && !strcmp((const char *)v, id)) {
			xmlFree(v);
			return n;
		}
		xmlFree(v);
		r = find_svg(n->children, attr, id);
		if (r)
			return r;
	}
	return NULL;
}

static int lines_of(const char *p)
{
	char *text = NULL;
	int n = 0;

	assert_int_equal(file_read(p, &text, NULL), 0);
	for (const char *q = text; *q; q++)
		n += *q == '\n';
	free(text);
	return n;
}

static void test_html_bisect__a_point_per_step_and_the_first_bad_commit(void **state)
{
	char *out = xasprintf("%s/bisect.html", dir), *err = NULL, *page = NULL;
	int steps = lines_of(BISECT_FIXTURE "/bisect.log.jsonl");
	htmlDocPtr doc;
	xmlNode *plot;

	assert_int_equal(html_bisect_write(BISECT_FIXTURE, out, &err), 0);
	assert_null(err);
	doc = parse_file(out);
	plot = find_svg(xmlDocGetRootElement(doc), "data-plot", "bisect-tx_driver");
	assert_non_null(plot);
	assert_int_equal(steps, 4);
	assert_int_equal(count_class(plot->children, "mark", NULL, NULL), steps);
	assert_int_equal(count_class(plot->children, "axis-label", NULL, NULL), 2);
	assert_int_equal(count_class(plot->children, "culprit", NULL, NULL), 1);
	assert_int_equal(count_class(plot->children, "series", "data-series", "bound"), 1);
	assert_int_equal(count_class(xmlDocGetRootElement(doc), "step", NULL, NULL), steps);
	assert_int_equal(count_class(xmlDocGetRootElement(doc), "step", "data-verdict", "bad"), 2);
	xmlFreeDoc(doc);
	assert_int_equal(file_read(out, &page, NULL), 0);
	assert_non_null(strstr(page, "data-first-bad=\"" FIRST_BAD "\""));
	/* the bad step's median and bound, as bisect.log.jsonl has them */
	assert_non_null(strstr(page, "data-metric=\"3.checks.0.median\" data-source=\"steps\">283.647<"));
	assert_non_null(strstr(page, "data-metric=\"3.checks.0.bound\" data-source=\"steps\">168.31875<"));
	assert_non_null(strstr(page, "data-metric=\"1.build_s\" data-source=\"steps\">0.8<"));
	free(page);
	free(out);
}

/* An interrupted bisection: the steps so far, no first bad commit yet; a torn line is refused. */
static void test_html_bisect__partial_log_names_no_culprit_and_bad_lines_are_refused(void **state)
{
	char *bd = xasprintf("%s/bis", dir), *p, *text = NULL, *err = NULL, *page = NULL;
	char *cut;

	assert_int_equal(mkdir(bd, 0755), 0);
	assert_int_equal(file_read(BISECT_FIXTURE "/bisect.json", &text, NULL), 0);
	p = xasprintf("%s/bisect.json", bd);
	assert_int_equal(file_write(p, text, strlen(text)), 0);
	free(p);
	free(text);
	assert_int_equal(file_read(BISECT_FIXTURE "/commits.txt", &text, NULL), 0);
	p = xasprintf("%s/commits.txt", bd);
	assert_int_equal(file_write(p, text, strlen(text)), 0);
	free(p);
	free(text);
	assert_int_equal(file_read(BISECT_FIXTURE "/bisect.log.jsonl", &text, NULL), 0);
	cut = text;
	for (int i = 0; i < 3; i++)
		cut = strchr(cut, '\n') + 1;
	*cut = '\0';
	p = xasprintf("%s/bisect.log.jsonl", bd);
	assert_int_equal(file_write(p, text, strlen(text)), 0);
	assert_int_equal(html_bisect_write(bd, NULL, &err), 0);
	free(p);
	p = xasprintf("%s/report.html", bd);
	assert_int_equal(file_read(p, &page, NULL), 0);
	assert_null(strstr(page, "data-first-bad"));
	assert_non_null(strstr(page, "not found yet"));
	assert_int_equal((int)(strstr(page, "data-mark=\"3\"") != NULL), 1);
	assert_null(strstr(page, "data-mark=\"4\""));
	free(page);
	free(p);
	/* a torn last line */
	p = xasprintf("%s/bisect.log.jsonl", bd);
	strcpy(cut, "{\"step\":4,\"commit\":");
	assert_int_equal(file_write(p, text, strlen(text)), 0);
	assert_int_equal(html_bisect_write(bd, NULL, &err), -EINVAL);
	assert_non_null(strstr(err, p));
	assert_non_null(strstr(err, "line 4"));
	free(err);
	err = NULL;
	free(p);
	free(text);
	assert_int_equal(html_bisect_write(dir, NULL, &err), -ENOENT);
	assert_non_null(strstr(err, "bisect.json"));
	free(err);
	free(bd);
}

/* A suite of two runs: a sparkline point per run with its metrics.json value, and the baseline's spread. */
static void test_html_suite__sparkline_has_a_point_per_run(void **state)
{
	char *sd = xasprintf("%s/suite", dir), *scn = xasprintf("%s/s.scn", sd), *p;
	struct json_object *sum;
	xmlNode *spark;
	struct sbuf b;
	htmlDocPtr doc;
	char *json;

	assert_int_equal(mkdir(sd, 0755), 0);
	for (int k = 1; k <= 3; k++) {
		p = xasprintf("%s/run-%d", sd, k);
		assert_int_equal(mkdir(p, 0755), 0);
		free(p);
		p = xasprintf("%s/run-%d/metrics.json", sd, k);
		if (k != 3)
			assert_int_equal(file_writef(p, "{\"rr.tps\": %d}", 100 * k + 1), 0);
		free(p);
	}
	p = xasprintf("%s/s.baseline.json", sd);
	assert_int_equal(file_writef(p, "{\"_spread\": {\"rr.tps\": {\"min\": 90, \"max\": 250, \"n\": 3}}, \"rr.tps\": 150}"), 0);
	free(p);
	json = xasprintf("{\"scenarios\": [{\"name\": \"s\", \"path\": \"%s\", \"outcome\": \"pass\","
			 " \"runs\": [{\"dir\": \"%s/run-1\"}, {\"dir\": \"%s/run-2\"}, {\"dir\": \"%s/run-3\"}],"
			 " \"checks\": [{\"name\": \"tps\", \"subject\": \"rr.tps\", \"op\": \">\", \"bound\": 50,"
			 " \"value\": 151, \"status\": \"pass\"}]}]}", scn, sd, sd, sd);
	sum = json_tokener_parse(json);
	assert_non_null(sum);
	sbuf_init(&b);
	html_suite_render(&b, sd, sum);
	doc = htmlReadMemory(b.s, (int)b.len, "s.html", "utf-8", HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING);
	assert_non_null(doc);
	spark = find_svg(xmlDocGetRootElement(doc), "data-spark", "s:tps");
	assert_non_null(spark);
	assert_int_equal(count_class(spark->children, "pt", NULL, NULL), 3);
	assert_int_equal(count_class(spark->children, "missing", NULL, NULL), 1);
	assert_int_equal(count_class(spark->children, "pt", "data-value", "201"), 1);
	assert_int_equal(count_class(spark->children, "spread", NULL, NULL), 1);
	assert_int_equal(count_class(spark->children, "bound", NULL, NULL), 1);
	assert_non_null(strstr(b.s, "baseline runs: 90..250"));
	xmlFreeDoc(doc);
	sbuf_release(&b);
	json_object_put(sum);
	free(json);
	free(scn);
	free(sd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_html_bisect__a_point_per_step_and_the_first_bad_commit),
		cmocka_unit_test(test_html_bisect__partial_log_names_no_culprit_and_bad_lines_are_refused),
		cmocka_unit_test(test_html_suite__sparkline_has_a_point_per_run),
	};

	return cmocka_run_group_tests(tests, dir_setup, dir_teardown);
}
