// SPDX-License-Identifier: GPL-2.0
/*
 * A scenario's [gdb] section: its keys, their errors with FILE:LINE, the
 * gdb metrics checks may name, and how those metrics are read from a run
 * directory. Each test writes its scenario (and script) into a fresh
 * directory, so that script paths resolve against the scenario's.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "scenario/scenario.h"
#include "scenario/scnrun.h"
#include "lib/util.h"

static const char head[] = "[scenario]\n"	/* line 1 */
			   "duration = 2\n"	/* 2 */
			   "[traffic]\n"	/* 3 */
			   "generator = udp-stream\n"	/* 4 */
			   "[gdb]\n";		/* 5: [gdb] keys from line 6 */

struct tdir {
	char path[64];
	char *scn;
};

/* DIR/rx.gdb, DIR/t.scn = head + gdb keys + "[checks]" + checks. */
static void write_scn(struct tdir *t, const char *gdb_keys, const char *checks)
{
	char *script;

	strcpy(t->path, "/tmp/netlab-test-scngdb-XXXXXX");
	assert_non_null(mkdtemp(t->path));
	script = xasprintf("%s/rx.gdb", t->path);
	assert_int_equal(file_writef(script, "continue\n"), 0);
	free(script);
	t->scn = xasprintf("%s/t.scn", t->path);
	assert_int_equal(file_writef(t->scn, "%s%s[checks]\n%s\n", head, gdb_keys,
				     checks ? checks : "sent = udp.sent > 0"), 0);
}

static void tdir_release(struct tdir *t)
{
	char *cmd = xasprintf("rm -rf '%s'", t->path);

	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(t->scn);
}

static struct scenario *parse_ok(struct tdir *t)
{
	struct scenario *s = NULL;
	char *err = NULL;

	if (scn_parse(t->scn, &s, &err))
		fail_msg("%s", err);
	return s;
}

static void expect_error(const char *gdb_keys, const char *checks, unsigned int line,
			 const char *msg)
{
	struct scenario *s = NULL;
	struct tdir t;
	char *err = NULL, *want;

	write_scn(&t, gdb_keys, checks);
	assert_int_equal(scn_parse(t.scn, &s, &err), -EINVAL);
	assert_null(s);
	want = xasprintf("%s:%u: %s", t.scn, line, msg);
	assert_non_null(err);
	assert_string_equal(err, want);
	free(want);
	free(err);
	tdir_release(&t);
}

static void test_scenario_gdb__parses_every_key(void **state)
{
	struct tdir t;
	struct scenario *s;
	char *script;

	write_scn(&t,
		  "script = rx.gdb\nbreak = e1000_clean_rx_irq  e1000e_poll\ntimeout = 30\n"
		  "match.ring = next_to_use=[0-9]+\nmatch.bt = in (e1000e_poll|__napi_poll) \n",
		  "ring = gdb.lines_matching.ring >= 1\nok = gdb.exit == 0");
	s = parse_ok(&t);
	script = xasprintf("%s/rx.gdb", t.path);
	assert_true(s->gdb);
	assert_string_equal(s->gdb_script, script);
	assert_int_equal(s->n_gdb_breaks, 2);
	assert_string_equal(s->gdb_breaks[0], "e1000_clean_rx_irq");
	assert_string_equal(s->gdb_breaks[1], "e1000e_poll");
	assert_int_equal(s->gdb_timeout_s, 30);
	assert_int_equal(s->gdb_vm, -1);
	assert_int_equal(s->n_gdb_match, 2);
	assert_string_equal(s->gdb_match[0].name, "ring");
	assert_string_equal(s->gdb_match[1].regex, "in (e1000e_poll|__napi_poll)");
	/* Compiled as POSIX extended: the alternation matches. */
	assert_int_equal(regexec(&s->gdb_match[1].re, "#1 0x1 in __napi_poll (n=0x2)", 0, NULL, 0),
			 0);
	assert_int_not_equal(regexec(&s->gdb_match[0].re, "next_to_use=x", 0, NULL, 0), 0);
	free(script);
	scn_free(s);
	tdir_release(&t);
}

static void test_scenario_gdb__defaults_and_absence(void **state)
{
	struct tdir t;
	struct scenario *s;

	/* duration 2: the run's timeout is 2 * 4 + 120 = 128 s, gdb gets half. */
	write_scn(&t, "script = rx.gdb\nvm = a\n", NULL);
	s = parse_ok(&t);
	assert_true(s->gdb);
	assert_int_equal(s->gdb_timeout_s, 64);
	assert_int_equal(s->gdb_vm, 0);
	assert_int_equal(s->n_gdb_breaks, 0);
	scn_free(s);
	tdir_release(&t);
	/* Without the section: no gdb, and the file's other sections parse as before. */
	strcpy(t.path, "/tmp/netlab-test-scngdb-XXXXXX");
	assert_non_null(mkdtemp(t.path));
	t.scn = xasprintf("%s/t.scn", t.path);
	file_writef(t.scn, "[traffic]\ngenerator = rr\n[checks]\nx = rr.lost == 0\n");
	s = parse_ok(&t);
	assert_false(s->gdb);
	assert_null(s->gdb_script);
	scn_free(s);
	tdir_release(&t);
}

static void test_scenario_gdb__rejects_bad_regex_with_line_and_key(void **state)
{
	expect_error("script = rx.gdb\nmatch.ring = next_to_use=(\n", NULL, 7,
		     "bad regex in match.ring 'next_to_use=(': Unmatched ( or \\( (POSIX extended regex)");
}

/* Found by the fuzzer: "B" and 22 '+' made regcomp() take gigabytes. */
static void test_scenario_gdb__rejects_regex_that_regcomp_would_blow_up(void **state)
{
	expect_error("script = rx.gdb\nmatch.x = B++++++++++++++++++++++\n", NULL, 7,
		     "regex in match.x has more than 10 repetition operators (* + ? {): glibc's regcomp grows exponentially with them");
	expect_error("script = rx.gdb\nmatch.x = a*b+c?d{2}e*f*g*h*i*j*k*\n", NULL, 7,
		     "regex in match.x has more than 10 repetition operators (* + ? {): glibc's regcomp grows exponentially with them");
}

static void test_scenario_gdb__rejects_missing_script(void **state)
{
	struct scenario *s = NULL;
	struct tdir t;
	char *err = NULL, *want;

	write_scn(&t, "timeout = 10\nscript = nosuch.gdb\n", NULL);
	assert_int_equal(scn_parse(t.scn, &s, &err), -EINVAL);
	want = xasprintf("%s:7: cannot read gdb script '%s/nosuch.gdb' (script in [gdb]): No such file or directory",
			 t.scn, t.path);
	assert_string_equal(err, want);
	free(want);
	free(err);
	tdir_release(&t);
}

static void test_scenario_gdb__rejects_script_that_is_not_gdb_or_python(void **state)
{
	expect_error("script = rx.sh\n", NULL, 6,
		     "bad script 'rx.sh' in [gdb]: expected a .gdb or .py file");
}

static void test_scenario_gdb__rejects_section_without_script(void **state)
{
	expect_error("break = e1000e_poll\n", NULL, 5,
		     "[gdb] has no script (script = FILE.gdb or FILE.py, next to the scenario)");
}

static void test_scenario_gdb__rejects_unknown_key(void **state)
{
	expect_error("script = rx.gdb\nbreakpoint = x\n", NULL, 7,
		     "unknown key 'breakpoint' in [gdb] (allowed: script, break, vm, timeout, match.NAME)");
}

static void test_scenario_gdb__rejects_vm_the_topology_lacks(void **state)
{
	expect_error("script = rx.gdb\nvm = b\n", NULL, 7,
		     "vm b in [gdb], but topology 'loop' has one VM (a)");
	expect_error("script = rx.gdb\nvm = c\n", NULL, 7,
		     "bad vm 'c' in [gdb]: expected a or b");
}

static void test_scenario_gdb__rejects_bad_break_and_timeout(void **state)
{
	expect_error("script = rx.gdb\nbreak = foo;bar\n", NULL, 7,
		     "bad break 'foo;bar' in [gdb]: expected a function, FILE:LINE or *ADDRESS");
	expect_error("script = rx.gdb\ntimeout = 128\n", NULL, 7,
		     "timeout 128 s in [gdb] is not shorter than the run's timeout, 128 s");
	expect_error("script = rx.gdb\ntimeout = soon\n", NULL, 7,
		     "bad [gdb] timeout 'soon': expected an integer in 1..86400");
	expect_error("script = rx.gdb\nmatch.Ring = x\n", NULL, 7,
		     "bad match name 'match.Ring' in [gdb]: expected match.NAME, NAME [a-z0-9_]+");
}

static void test_scenario_gdb__checks_name_only_metrics_the_section_makes(void **state)
{
	expect_error("script = rx.gdb\nmatch.ring = x\n", "bt = gdb.lines_matching.bt >= 1", 9,
		     "check 'bt': metric 'gdb.lines_matching.bt': [gdb] has no match.bt (matches: ring)");
	expect_error("script = rx.gdb\n", "st = gdb.status == 0", 8,
		     "check 'st': unknown metric 'gdb.status' (gdb metrics: gdb.exit, gdb.lines_matching.NAME)");
}

static void test_scenario_gdb__gdb_metrics_need_the_section(void **state)
{
	struct scenario *s = NULL;
	char path[] = "/tmp/netlab-test-scngdb-XXXXXX.scn", *err = NULL, *want;
	int fd = mkstemps(path, 4);

	assert_true(fd >= 0);
	close(fd);
	file_writef(path, "[traffic]\ngenerator = rr\n[checks]\nok = gdb.exit == 0\n");
	assert_int_equal(scn_parse(path, &s, &err), -EINVAL);
	want = xasprintf("%s:4: check 'ok': metric 'gdb.exit' needs a [gdb] section", path);
	assert_string_equal(err, want);
	free(want);
	free(err);
	unlink(path);
}

/* gdb.log's lines counted per regex (a line once per match name), gdb.exit as written. */
static void test_scenario_gdb__metrics_count_matching_lines(void **state)
{
	struct metrics *m = metrics_new();
	struct scenario *s;
	struct tdir t;
	char *p, *err = NULL;
	double v;

	write_scn(&t, "script = rx.gdb\nmatch.stop = ^Breakpoint 1, e1000_clean_rx_irq\n"
		      "match.ring = next_to_use=[0-9]+ next_to_clean=[0-9]+\nmatch.none = ^nothing$\n",
		  "r = gdb.lines_matching.ring >= 1");
	s = parse_ok(&t);
	p = xasprintf("%s/gdb.log", t.path);
	file_writef(p, "Hardware assisted breakpoint 1 at 0xffffffff81a: file netdev.c, line 931.\n"
		       "Breakpoint 1, e1000_clean_rx_irq (rx_ring=0x1) at netdev.c:931\n"
		       "#1  0xffffffff81a in e1000e_poll (napi=0x2, budget=64) at netdev.c:2672\n"
		       "rx_ring 0x1: next_to_use=255 next_to_clean=0 count=256\n"
		       "adapter: next_to_use=12 next_to_clean=3 count=256\n"
		       "Breakpoint 1, e1000_clean_rx_irq (rx_ring=0x1) at netdev.c:931");
	free(p);
	/* No gdb.exit yet: an error that names the file. */
	assert_int_equal(scnrun_gdb_metrics(s, t.path, m, &err), -EIO);
	assert_non_null(strstr(err, "gdb.exit"));
	free(err);
	err = NULL;
	p = xasprintf("%s/gdb.exit", t.path);
	file_writef(p, "124\n");
	free(p);
	assert_int_equal(scnrun_gdb_metrics(s, t.path, m, &err), 0);
	assert_true(metrics_get(m, "gdb.lines_matching.stop", &v));
	assert_true(v == 2);	/* the last line has no newline: still a line */
	assert_true(metrics_get(m, "gdb.lines_matching.ring", &v));
	assert_true(v == 2);
	assert_true(metrics_get(m, "gdb.lines_matching.none", &v));
	assert_true(v == 0);
	assert_true(metrics_get(m, "gdb.exit", &v));
	assert_true(v == 124);
	metrics_free(m);
	scn_free(s);
	tdir_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scenario_gdb__parses_every_key),
		cmocka_unit_test(test_scenario_gdb__defaults_and_absence),
		cmocka_unit_test(test_scenario_gdb__rejects_bad_regex_with_line_and_key),
		cmocka_unit_test(test_scenario_gdb__rejects_regex_that_regcomp_would_blow_up),
		cmocka_unit_test(test_scenario_gdb__rejects_missing_script),
		cmocka_unit_test(test_scenario_gdb__rejects_script_that_is_not_gdb_or_python),
		cmocka_unit_test(test_scenario_gdb__rejects_section_without_script),
		cmocka_unit_test(test_scenario_gdb__rejects_unknown_key),
		cmocka_unit_test(test_scenario_gdb__rejects_vm_the_topology_lacks),
		cmocka_unit_test(test_scenario_gdb__rejects_bad_break_and_timeout),
		cmocka_unit_test(test_scenario_gdb__checks_name_only_metrics_the_section_makes),
		cmocka_unit_test(test_scenario_gdb__gdb_metrics_need_the_section),
		cmocka_unit_test(test_scenario_gdb__metrics_count_matching_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
