// SPDX-License-Identifier: GPL-2.0
/*
 * xml_escape(): markup and quotes as entities (' only when asked), line
 * breaks as character references, other control characters as "\xNN"; the
 * result parses as XML 1.0 and gives back the text (controls aside).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <libxml/parser.h>

#include "lib/xml.h"

static char *escaped(const char *s, unsigned int flags)
{
	struct sbuf b;

	sbuf_init(&b);
	xml_escape(&b, s, flags);
	return sbuf_detach(&b);
}

static void test_xml__markup_quotes_and_controls(void **state)
{
	char *t;

	t = escaped("a&b<c>\"d'e", 0);
	assert_string_equal(t, "a&amp;b&lt;c&gt;&quot;d'e");
	free(t);
	t = escaped("a&b<c>\"d'e", XML_ESC_APOS);
	assert_string_equal(t, "a&amp;b&lt;c&gt;&quot;d&apos;e");
	free(t);
	t = escaped("l1\nl2\tx\x01y\x7f\x1b", 0);
	assert_string_equal(t, "l1&#10;l2&#9;x\\x01y\\x7f\\x1b");
	free(t);
	t = escaped("caf\xc3\xa9 /var/tmp/x.sock", XML_ESC_APOS);
	assert_string_equal(t, "caf\xc3\xa9 /var/tmp/x.sock");
	free(t);
	t = escaped(NULL, 0);
	assert_string_equal(t, "");
	free(t);
}

static void test_xml__escaped_attribute_parses_back(void **state)
{
	static const char text[] = "<&>\"' \x02 end\nnext";
	char *v = escaped(text, XML_ESC_APOS);
	char *doc = NULL;
	xmlDocPtr d;
	xmlChar *got;

	if (asprintf(&doc, "<r a='%s'>%s</r>", v, v) < 0)
		fail();
	d = xmlReadMemory(doc, (int)strlen(doc), NULL, NULL, XML_PARSE_NONET);
	assert_non_null(d);
	got = xmlGetProp(xmlDocGetRootElement(d), (const xmlChar *)"a");
	assert_string_equal((const char *)got, "<&>\"' \\x02 end\nnext");
	xmlFree(got);
	xmlFreeDoc(d);
	free(doc);
	free(v);
}

/* What a reason or a console line may carry: none of it breaks the document. */
static void test_xml__hostile_text_stays_well_formed_utf8(void **state)
{
	static const char text[] = "]]> <![CDATA[x]]> & < > \" ' \x01\x08\x0b\x0c\x1f\x7f"
				   " bad:\xff\xfe\xc3 \xc0\xaf \xed\xa0\x80 \xef\xbf\xbe"
				   " ok:caf\xc3\xa9 \xf0\x9f\x90\xa7";
	char *v = escaped(text, XML_ESC_APOS), *doc = NULL;
	xmlDocPtr d;
	xmlChar *got;

	assert_null(strstr(v, "]]>"));
	assert_null(strstr(v, "\xff"));
	assert_non_null(strstr(v, "bad:\\xff\\xfe\\xc3 \\xc0\\xaf \\xed\\xa0\\x80 \\xef\\xbf\\xbe"));
	assert_non_null(strstr(v, "ok:caf\xc3\xa9 \xf0\x9f\x90\xa7"));
	if (asprintf(&doc, "<?xml version=\"1.0\" encoding=\"UTF-8\"?><r a=\"%s\">%s</r>", v, v) < 0)
		fail();
	d = xmlReadMemory(doc, (int)strlen(doc), NULL, NULL, XML_PARSE_NONET);
	assert_non_null(d);
	got = xmlNodeGetContent(xmlDocGetRootElement(d));
	assert_non_null(strstr((const char *)got, "]]> <![CDATA[x]]> & < > \" '"));
	xmlFree(got);
	xmlFreeDoc(d);
	free(doc);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xml__markup_quotes_and_controls),
		cmocka_unit_test(test_xml__escaped_attribute_parses_back),
		cmocka_unit_test(test_xml__hostile_text_stays_well_formed_utf8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
