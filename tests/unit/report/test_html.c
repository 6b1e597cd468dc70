// SPDX-License-Identifier: GPL-2.0
/*
 * The HTML report escapes what comes from the run: scenario names, comm
 * strings from the guest, reasons, check names. Pages rendered from hostile
 * JSON parse (libxml2's HTML parser) without a <script> or an element the
 * strings tried to open, and the attribute values read back as the text;
 * bad input is refused naming the file.
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

TMPDIR_FIXTURE("html")

#define HOSTILE "<script>alert(\"x\")</script> & 'q' \x01\x1b[31m"
/* What HTML shows of HOSTILE: controls become the text \xNN. */
#define HOSTILE_SHOWN "<script>alert(\"x\")</script> & 'q' \\x01\\x1b[31m"

static void test_html__escapes_markup_quotes_and_controls(void **state)
{
	struct sbuf b;

	sbuf_init(&b);
	esc_html(&b, HOSTILE);
	assert_string_equal(b.s, "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &apos;q&apos; \\x01\\x1b[31m");
	sbuf_release(&b);
}

/* Elements named @name anywhere under @n. */
static int count_elements(xmlNode *n, const char *name)
{
	int c = 0;

	for (; n; n = n->next) {
		if (n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name))
			c++;
		c += count_elements(n->children, name);
	}
	return c;
}

/* The value of attribute @attr of the first element that has it. */
static char *find_attr(xmlNode *n, const char *attr)
{
	for (; n; n = n->next) {
		xmlChar *v = n->type == XML_ELEMENT_NODE ? xmlGetProp(n, (const xmlChar *)attr) : NULL;
		char *r;

		if (v) {
			r = strdup((const char *)v);
			xmlFree(v);
			return r;
		}
		r = find_attr(n->children, attr);
		if (r)
			return r;
	}
	return NULL;
}

static htmlDocPtr parse(const struct sbuf *b)
{
	htmlDocPtr doc = htmlReadMemory(b->s, (int)b->len, "page.html", "utf-8",
					HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET);

	assert_non_null(doc);
	return doc;
}

static void test_html__run_page_escapes_guest_strings(void **state)
{
	struct html_run r = { .target = "runs/" HOSTILE, .dir = NULL };
	char *json = xasprintf(
		"{\"path\": {\"flows\": [{\"proto\": \"udp\", \"saddr\": \"1.2.3.4\", \"sport\": 1, \"daddr\": \"5.6.7.8\", \"dport\": 2,"
		" \"tx_packets\": 3, \"senders\": [{\"pid\": 7, \"comm\": \"%s\"}], \"receivers\": []}],"
		" \"processes\": [{\"pid\": 7, \"comm\": \"%s\"}]}}",
		"<script>alert(1)</script>", "\\\"><img src=x onerror=alert(1)>");
	struct sbuf b;
	htmlDocPtr doc;

	r.rep = json_tokener_parse(json);
	assert_non_null(r.rep);
	r.result = json_tokener_parse("{\"verdict\": \"ok\", \"reason\": \"<b>bold</b> & \\u0001\"}");
	html_run_error(&r, xstrdup("cannot read trace '<iframe>': bad"));
	sbuf_init(&b);
	html_run_render(&b, &r);
	assert_null(strstr(b.s, "<script>alert"));
	assert_null(strstr(b.s, "<img"));
	assert_null(strstr(b.s, "<iframe"));
	assert_null(strchr(b.s, '\x01'));
	assert_non_null(strstr(b.s, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	doc = parse(&b);
	assert_int_equal(count_elements(xmlDocGetRootElement(doc), "script"), 0);
	assert_int_equal(count_elements(xmlDocGetRootElement(doc), "img"), 0);
	assert_int_equal(count_elements(xmlDocGetRootElement(doc), "b"), 0);
	/* The flow's number keeps its path, for the test that compares page and JSON. */
	assert_non_null(strstr(b.s, "data-metric=\"path.flows.0.tx_packets\">3<"));
	xmlFreeDoc(doc);
	sbuf_release(&b);
	json_object_put(r.rep);
	json_object_put(r.result);
	free(r.errors[0]);
	free(json);
}

static void test_html__suite_page_escapes_names_and_reasons(void **state)
{
	struct json_object *sum = json_object_new_object(), *arr = json_object_new_array();
	struct json_object *s = json_object_new_object(), *checks = json_object_new_array();
	struct json_object *c = json_object_new_object();
	char *attr;
	struct sbuf b;
	htmlDocPtr doc;

	json_object_object_add(c, "name", json_object_new_string(HOSTILE));
	json_object_object_add(c, "expr", json_object_new_string("x < 1 && \"y\""));
	json_object_object_add(c, "status", json_object_new_string("fail\" onmouseover=\"alert(1)"));
	json_object_object_add(c, "value", json_object_new_int(5));
	json_object_object_add(c, "bound", json_object_new_double(1.5));
	json_object_object_add(c, "op", json_object_new_string("<"));
	json_object_array_add(checks, c);
	json_object_object_add(s, "name", json_object_new_string(HOSTILE));
	json_object_object_add(s, "outcome", json_object_new_string("fail"));
	json_object_object_add(s, "reason", json_object_new_string("run 1: <script>x</script>"));
	json_object_object_add(s, "checks", checks);
	json_object_object_add(s, "runs", json_object_new_array());
	json_object_array_add(arr, s);
	json_object_object_add(sum, "scenarios", arr);
	json_object_object_add(sum, "exit_code", json_object_new_int(1));
	sbuf_init(&b);
	html_suite_render(&b, "suite-<dir>", sum);
	assert_null(strstr(b.s, "<script>"));
	assert_null(strstr(b.s, "onmouseover=\"alert"));
	doc = parse(&b);
	assert_int_equal(count_elements(xmlDocGetRootElement(doc), "script"), 0);
	attr = find_attr(xmlDocGetRootElement(doc), "data-scenario");
	assert_non_null(attr);
	assert_string_equal(attr, HOSTILE_SHOWN);
	free(attr);
	assert_non_null(strstr(b.s, "data-metric=\"scenarios.0.checks.0.value\" data-source=\"summary\">5<"));
	xmlFreeDoc(doc);
	sbuf_release(&b);
	json_object_put(sum);
}

static void test_html__bad_input_names_the_file(void **state)
{
	char *run = xasprintf("%s/run", dir), *p = xasprintf("%s/run/metrics.json", dir);
	char *missing = xasprintf("%s/nosuch", dir), *err = NULL;

	assert_int_equal(html_run_write(missing, NULL, &err), -ENOENT);
	assert_non_null(strstr(err, missing));
	free(err);
	err = NULL;
	assert_int_equal(mkdir(run, 0755), 0);
	assert_int_equal(file_writef(p, "{\"loss.app_sent\": "), 0);
	assert_int_equal(html_run_write(run, NULL, &err), -EINVAL);
	assert_non_null(strstr(err, p));
	free(err);
	err = NULL;
	/* Nothing but a result.json: still a page, saying there is no trace. */
	assert_int_equal(file_writef(p, "{\"loss.app_sent\": 10, \"loss.app_received\": 9}"), 0);
	assert_int_equal(html_run_write(run, NULL, &err), 0);
	free(p);
	p = xasprintf("%s/run/report.html", dir);
	{
		char *page = NULL;

		assert_int_equal(file_read(p, &page, NULL), 0);
		assert_non_null(strstr(page, "no trace"));
		assert_non_null(strstr(page, "data-series=\"lost\""));
		free(page);
	}
	assert_int_equal(html_suite_write(run, NULL, false, &err), -ENOENT);
	assert_non_null(strstr(err, "summary.json"));
	free(err);
	free(run);
	free(p);
	free(missing);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_html__escapes_markup_quotes_and_controls),
		cmocka_unit_test(test_html__run_page_escapes_guest_strings),
		cmocka_unit_test(test_html__suite_page_escapes_names_and_reasons),
		cmocka_unit_test(test_html__bad_input_names_the_file),
	};

	return cmocka_run_group_tests(tests, dir_setup, dir_teardown);
}
