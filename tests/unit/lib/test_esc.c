// SPDX-License-Identifier: GPL-2.0
/*
 * esc_xml(): markup and quotes as entities (' only when asked), line
 * breaks as character references, other control characters as "\xNN"; the
 * result parses as XML 1.0 and gives back the text (controls aside).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <libxml/parser.h>

#include "lib/esc.h"

static char *escaped(const char *s, unsigned int flags)
{
	struct sbuf b;

	sbuf_init(&b);
	esc_xml(&b, s, flags);
	return sbuf_detach(&b);
}

static void test_xml__markup_quotes_and_controls(void **state)
{
	char *t;

	t = escaped("a&b<c>\"d'e", 0);
	assert_string_equal(t, "a&amp;b&lt;c&gt;&quot;d'e");
	free(t);
	t = escaped("a&b<c>\"d'e", ESC_XML_APOS);
	assert_string_equal(t, "a&amp;b&lt;c&gt;&quot;d&apos;e");
	free(t);
	t = escaped("l1\nl2\tx\x01y\x7f\x1b", 0);
	assert_string_equal(t, "l1&#10;l2&#9;x\\x01y\\x7f\\x1b");
	free(t);
	t = escaped("caf\xc3\xa9 /var/tmp/x.sock", ESC_XML_APOS);
	assert_string_equal(t, "caf\xc3\xa9 /var/tmp/x.sock");
	free(t);
	t = escaped(NULL, 0);
	assert_string_equal(t, "");
	free(t);
}

static void test_xml__escaped_attribute_parses_back(void **state)
{
	static const char text[] = "<&>\"' \x02 end\nnext";
	char *v = escaped(text, ESC_XML_APOS);
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
	char *v = escaped(text, ESC_XML_APOS), *doc = NULL;
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

static char *html(const char *s, bool url)
{
	struct sbuf b;

	sbuf_init(&b);
	if (url)
		esc_html_url(&b, s);
	else
		esc_html(&b, s);
	return sbuf_detach(&b);
}

/* HTML text and quoted attributes: no tag, entity or attribute can start in the output. */
static void test_esc__html_leaves_no_markup(void **state)
{
	char *t = html("<svg/onload=alert(1)> \"x\" onclick='y' &amp; \x1b[2J\xff", false);

	assert_string_equal(t, "&lt;svg/onload=alert(1)&gt; &quot;x&quot; onclick=&apos;y&apos; "
			       "&amp;amp; \\x1b[2J\\xff");
	assert_null(strpbrk(t, "<>\"'"));
	free(t);
}

/* A link from a file is a relative path: no scheme, no other host. */
static void test_esc__html_url_is_always_relative(void **state)
{
	static const char *const in[][2] = {
		{ "nic-A.pcap", "nic-A.pcap" },
		{ "run-1/report.html", "run-1/report.html" },
		{ "javascript:alert(1)", "./javascript:alert(1)" },
		{ "JaVaScRiPt:alert(1)", "./JaVaScRiPt:alert(1)" },
		{ "data:text/html,<b>", "./data:text/html,&lt;b&gt;" },
		{ "//evil.example/x", ".///evil.example/x" },
		{ "java\tscript:x", "./java&#9;script:x" },
		{ "a/b:c", "a/b:c" },
	};

	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		char *t = html(in[i][0], true);

		assert_string_equal(t, in[i][1]);
		free(t);
	}
}

static char *term(const char *s, size_t n, unsigned int flags)
{
	struct sbuf b;

	sbuf_init(&b);
	esc_term(&b, s, n, flags);
	return sbuf_detach(&b);
}

/* Whether s holds a byte a terminal obeys (C0 but newline and tab, DEL, a C1 control) or bad UTF-8. */
static bool term_unsafe(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = esc_utf8_seq(p);

		if (!n || (*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f ||
		    (n == 2 && p[0] == 0xc2 && p[1] < 0xa0))
			return true;
		p += n;
	}
	return false;
}

/* ESC, CSI (C1), BEL, CR, DEL and bad UTF-8 are shown, never sent; UTF-8 text is kept. */
static void test_esc__term_shows_controls_and_bad_utf8(void **state)
{
	static const char in[] = "a\x1b[31mred\x1b]0;title\x07 \xc2\x9b" "2J \r\x7f caf\xc3\xa9 \xff\xc3\n\tz";
	char *t = term(in, sizeof(in) - 1, 0);

	assert_string_equal(t, "a\\x1b[31mred\\x1b]0;title\\x07 \\xc2\\x9b2J \\x0d\\x7f caf\xc3\xa9 "
			       "\\xff\\xc3\\x0a\\x09z");
	assert_false(term_unsafe(t));
	free(t);
	t = term(in, sizeof(in) - 1, ESC_TERM_LINES);
	assert_non_null(strstr(t, "\\xc3\n\tz"));
	assert_false(term_unsafe(t));
	free(t);
	t = term("l1\r\nl2\r", 7, ESC_TERM_LINES);
	assert_string_equal(t, "l1\r\nl2\\x0d");
	free(t);
}

/* The stream keeps a UTF-8 sequence or a CR-LF cut between two writes whole. */
static void test_esc__term_stream_joins_what_writes_cut(void **state)
{
	static const char *const parts[] = { "caf\xc3", "\xa9 \xf0\x9f", "\x90\xa7 x\r", "\ny\x1b", "[1m\xe2" };
	char got[256] = "";
	int fd[2];
	ssize_t n;
	FILE *f;

	assert_int_equal(pipe(fd), 0);
	f = esc_term_stream(fd[1], _IONBF);
	assert_non_null(f);
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		fputs(parts[i], f);
		fflush(f);
	}
	assert_int_equal(fclose(f), 0);
	close(fd[1]);
	n = read(fd[0], got, sizeof(got) - 1);
	close(fd[0]);
	assert_true(n > 0);
	got[n] = '\0';
	assert_string_equal(got, "caf\xc3\xa9 \xf0\x9f\x90\xa7 x\r\ny\\x1b[1m\\xe2");
}

/* Serialized JSON with bad UTF-8, DEL and C1 in its strings: valid UTF-8, the same JSON otherwise. */
static void test_esc__json_text_is_valid_utf8(void **state)
{
	static const char in[] = "{\"a\": \"x\xff\xc3 \x7f \xc2\x9b caf\xc3\xa9\",\n\t\"b\": 1}";
	char *t = esc_json_text(in);

	assert_string_equal(t, "{\"a\": \"x\xef\xbf\xbd\xef\xbf\xbd \\u007f \\u009b caf\xc3\xa9\",\n\t\"b\": 1}");
	assert_true(esc_utf8_valid(t));
	assert_false(esc_utf8_valid(in));
	free(t);
	t = esc_utf8_fix("a\xff\xed\xa0\x80" "b");
	assert_string_equal(t, "a\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" "b");
	free(t);
}

/* Each word comes back whole from sh, and nothing in it runs. */
static void test_esc__shell_words_round_trip_through_sh(void **state)
{
	static const char *const words[] = {
		"plain/path-1.2", "a b", "$(touch pwned)", "`touch pwned`", "x;touch pwned", "it's",
		"'\"'\"", "", "a\nb", "~user", "*", "-n", "semi;colon&amp|pipe>out<in",
	};
	char dir[] = "/tmp/netlab-test-esc.XXXXXX";
	struct sbuf cmd;
	char *pw, line[256];
	size_t i = 0;
	FILE *p;

	assert_non_null(mkdtemp(dir));
	sbuf_init(&cmd);
	sbuf_addf(&cmd, "cd %s && printf '%%s\\0' ", dir);
	for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++) {
		esc_shell(&cmd, words[k]);
		sbuf_adds(&cmd, " ");
	}
	sbuf_adds(&cmd, "| tr '\\n\\0' '\\1\\n'");
	p = popen(cmd.s, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = '\0';
		for (char *c = line; *c; c++)
			if (*c == '\1')
				*c = '\n';
		assert_true(i < sizeof(words) / sizeof(words[0]));
		assert_string_equal(line, words[i]);
		i++;
	}
	assert_int_equal(pclose(p), 0);
	assert_int_equal(i, sizeof(words) / sizeof(words[0]));
	pw = xasprintf("%s/pwned", dir);
	assert_int_equal(access(pw, F_OK), -1);
	rmdir(dir);
	free(pw);
	sbuf_release(&cmd);
	pw = esc_shell_str("plain/path-1.2");
	assert_string_equal(pw, "plain/path-1.2");
	free(pw);
	pw = esc_shell_str("it's $(x)");
	assert_string_equal(pw, "'it'\\''s $(x)'");
	free(pw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xml__markup_quotes_and_controls),
		cmocka_unit_test(test_xml__escaped_attribute_parses_back),
		cmocka_unit_test(test_xml__hostile_text_stays_well_formed_utf8),
		cmocka_unit_test(test_esc__html_leaves_no_markup),
		cmocka_unit_test(test_esc__html_url_is_always_relative),
		cmocka_unit_test(test_esc__term_shows_controls_and_bad_utf8),
		cmocka_unit_test(test_esc__term_stream_joins_what_writes_cut),
		cmocka_unit_test(test_esc__json_text_is_valid_utf8),
		cmocka_unit_test(test_esc__shell_words_round_trip_through_sh),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
