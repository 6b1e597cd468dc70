// SPDX-License-Identifier: GPL-2.0
/* guest/agent-note.c: which lines of the note pipe become status lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "agent-note.h"

struct got {
	char lines[80][300];
	int n;
};

static void keep(const char *line, void *arg)
{
	struct got *g = arg;

	snprintf(g->lines[g->n++], sizeof(g->lines[0]), "%s", line);
}

static void test_valid(void **state)
{
	char big[300];

	assert_true(note_valid("exec.exit 3"));
	assert_true(note_valid("traffic.status 0 3"));
	assert_true(note_valid("trace-cmd.status 0"));
	assert_false(note_valid("exec.exit"));		/* no value */
	assert_false(note_valid("exec.exit "));		/* empty value */
	assert_false(note_valid(" 3"));			/* empty key */
	assert_false(note_valid("Exec.exit 3"));	/* upper case */
	assert_false(note_valid("exec/exit 3"));
	assert_false(note_valid("exec.exit 3\x1b[2J"));	/* a terminal escape */
	assert_false(note_valid("exec.exit \xc3\xa9"));	/* not ASCII */
	memset(big, 'a', sizeof(big));
	big[NOTE_KEY_MAX + 1] = '\0';
	big[NOTE_KEY_MAX] = ' ';
	assert_false(note_valid(big));			/* 64-char key and empty value */
	big[NOTE_KEY_MAX] = 'a';
	big[NOTE_KEY_MAX + 1] = ' ';
	big[NOTE_KEY_MAX + 2] = '1';
	big[NOTE_KEY_MAX + 3] = '\0';
	assert_false(note_valid(big));			/* 65-char key */
	memset(big, 'a', sizeof(big));
	big[1] = ' ';
	big[2 + NOTE_VALUE_MAX] = '\0';
	assert_true(note_valid(big));			/* 200-char value */
	big[2 + NOTE_VALUE_MAX] = 'a';
	big[3 + NOTE_VALUE_MAX] = '\0';
	assert_false(note_valid(big));
}

static void test_feed_split_and_bad(void **state)
{
	static const char in[] = "exec.exit 3\ngarbage\nexec.exit nan\x1b\nexec.e"
				 "xit 0\nkey 1\0forged\nlast 1";
	struct note_reader r = { 0 };
	static struct got g;

	/* one byte at a time: lines cross reads */
	for (size_t i = 0; i < sizeof(in) - 1; i++)
		note_feed(&r, in + i, 1, keep, &g);
	assert_int_equal(g.n, 2);
	assert_string_equal(g.lines[0], "exec.exit 3");
	assert_string_equal(g.lines[1], "exec.exit 0");
	assert_int_equal(r.bad, 3);			/* garbage, the ESC, the NUL */
	/* "last 1" has no newline yet: not a note until it ends */
	note_feed(&r, "\n", 1, keep, &g);
	assert_int_equal(g.n, 3);
	assert_string_equal(g.lines[2], "last 1");
}

static void test_feed_overlong_and_count(void **state)
{
	struct note_reader r = { 0 };
	static struct got g;
	char line[2000];

	memset(line, 'a', sizeof(line));
	line[3] = ' ';
	line[sizeof(line) - 1] = '\n';
	note_feed(&r, line, sizeof(line), keep, &g);
	note_feed(&r, "ok 1\n", 5, keep, &g);
	assert_int_equal(g.n, 1);			/* the long line is dropped whole */
	assert_string_equal(g.lines[0], "ok 1");
	for (int i = 0; i < 100; i++)
		note_feed(&r, "k 1\n", 4, keep, &g);
	assert_int_equal(g.n, NOTE_MAX_LINES);
	assert_int_equal(r.lines, NOTE_MAX_LINES);
	assert_int_equal(r.bad, 1 + 100 - (NOTE_MAX_LINES - 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_feed_split_and_bad),
		cmocka_unit_test(test_feed_overlong_and_count),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
