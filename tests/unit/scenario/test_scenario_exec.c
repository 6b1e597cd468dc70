// SPDX-License-Identifier: GPL-2.0
/*
 * A scenario's [exec] section and share key: keys, defaults, errors with
 * FILE:LINE, the exec.* metrics checks may name, the guest script part and
 * the metrics read back from a run directory.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/util.h"
#include "scenario/scenario.h"
#include "scenario/scnrun.h"
#include "tmpdir.h"
#include "vm/share.h"

TMPDIR_FIXTURE("scnexec")

static char *write_scn(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s.scn", dir, name);

	assert_int_equal(file_writef(path, "%s", text), 0);
	return path;
}

static void expect_error(const char *text, unsigned int line, const char *needle)
{
	char *path = write_scn("bad", text), *err = NULL, *want = xasprintf("%s:%u: ", path, line);
	struct scenario *s = NULL;

	assert_int_equal(scn_parse(path, &s, &err), -EINVAL);
	assert_non_null(err);
	if (strncmp(err, want, strlen(want)) || !strstr(err, needle))
		fail_msg("got '%s', want '%s...%s'", err, want, needle);
	free(err);
	free(want);
	free(path);
}

static void test_scenario_exec__alone_with_share_and_ktap(void **state)
{
	char *sub = xasprintf("%s/t", dir), *path, *err = NULL;
	struct scenario *s = NULL;

	(void)state;
	assert_int_equal(mkdir(sub, 0755), 0);
	path = write_scn("ok", "[scenario]\nshare = t:/mnt/t:rw\n[exec]\nrun = ./x.sh --flag\n"
			       "netns = b\ntimeout = 2m\nktap = yes\n[checks]\n"
			       "e = exec.exit == 0\nk = exec.ktap.suite.case_1 == 1\n"
			       "p = exec.ktap.pass >= 1\nw = pcap.B.packets > 0\n");
	if (scn_parse(path, &s, &err))
		fail_msg("%s", err);
	assert_null(s->generator);
	assert_true(s->exec);
	assert_string_equal(s->exec_run, "./x.sh --flag");
	assert_int_equal(s->exec_netns, 'B');
	assert_int_equal(s->exec_timeout_s, 120);
	assert_int_equal(s->n_shares, 1);
	assert_string_equal(s->shares[0].host, sub);
	assert_true(s->shares[0].rw);
	/* The run's default timeout leaves the command its two minutes. */
	assert_true(s->timeout_s > 120);
	scn_free(s);
	free(path);
	free(sub);
}

static void test_scenario_exec__errors_name_the_line(void **state)
{
	(void)state;
	expect_error("[exec]\nrun = x\nnetns = c\n[checks]\ne = exec.exit == 0\n", 3,
		     "bad netns 'c'");
	expect_error("[exec]\nrun = x\ntimeout = soon\n[checks]\ne = exec.exit == 0\n", 3,
		     "bad timeout 'soon'");
	expect_error("[exec]\nrun = x\nshell = bash\n[checks]\ne = exec.exit == 0\n", 3,
		     "unknown key 'shell' in [exec]");
	expect_error("[exec]\nrun = x\n[checks]\ne = exec.ktap.pass == 1\n", 4,
		     "needs 'ktap = yes'");
	expect_error("[exec]\nrun = x\n[checks]\ne = udp.lost == 0\n", 4, "udp.lost");
	expect_error("[traffic]\ngenerator = udp-stream\n[checks]\ne = exec.exit == 0\n", 4,
		     "needs an [exec] section");
	expect_error("[scenario]\nshare = missing-dir\n[exec]\nrun = x\n[checks]\n"
		     "e = exec.exit == 0\n", 2, "no directory");
	expect_error("[scenario]\nshare = .:/proc/x\n[exec]\nrun = x\n[checks]\n"
		     "e = exec.exit == 0\n", 2, "guest agent uses");
	expect_error("[scenario]\ntimeout = 30\n[exec]\nrun = x\ntimeout = 30\n[checks]\n"
		     "e = exec.exit == 0\n", 5, "not shorter than the run's timeout");
	expect_error("[exec]\ntimeout = 3\n[checks]\ne = exec.exit == 0\n", 1, "has no run");
}

/* A run directory: its status port text and files/exec/out. */
static struct scenario *exec_run(const char *status, const char *out)
{
	char *path = write_scn("m", "[exec]\nrun = t\nktap = yes\n[checks]\ne = exec.exit == 0\n");
	char *files = xasprintf("%s/files", dir), *err = NULL, *p;
	struct scenario *s = NULL;

	assert_int_equal(scn_parse(path, &s, &err), 0);
	(void)mkdir(files, 0755);
	p = xasprintf("%s/exec", files);
	(void)mkdir(p, 0755);
	free(p);
	p = xasprintf("%s/status", dir);
	assert_int_equal(file_writef(p, "%s", status), 0);
	free(p);
	p = xasprintf("%s/exec/out", files);
	assert_int_equal(file_writef(p, "%s", out), 0);
	free(p);
	/* what a guest process left in /netlab/out: never read */
	p = xasprintf("%s/exec.exit", files);
	assert_int_equal(file_writef(p, "nan\n"), 0);
	free(p);
	free(files);
	free(path);
	return s;
}

static void test_scenario_exec__metrics_from_notes(void **state)
{
	struct scenario *s = exec_run("agent 1\ntopology ok\nexec 80\nnote exec.exit 124\n"
				      "note exec.timed_out 1\nnote exec.exit 0\nexit 0\npoweroff\n",
				      "1..2\nok 1 one\nnot ok 2 two\n");
	char *files = xasprintf("%s/files", dir), *err = NULL, *p;
	struct metrics *m = metrics_new();

	(void)state;
	assert_int_equal(scnrun_exec_metrics(s, files, dir, m, &err), 0);
	assert_true(metrics_value(m, "exec.exit", -1) == 124);	/* the first note */
	assert_true(metrics_value(m, "exec.timed_out", -1) == 1);
	assert_true(metrics_value(m, "exec.ktap.one", -1) == 1);
	assert_true(metrics_value(m, "exec.ktap.two", -1) == 0);
	assert_true(metrics_value(m, "exec.ktap.fail", -1) == 1);
	assert_true(metrics_value(m, "exec.out_full", -1) == 0);
	p = xasprintf("%s/exec.out", dir);
	assert_int_equal(access(p, R_OK), 0);
	free(p);
	metrics_free(m);
	scn_free(s);
	free(files);
}

/* No note (the forged file alone), or a note that is no exit status: an error, no metric. */
static void test_scenario_exec__no_or_bad_note_is_an_error(void **state)
{
	static const char *const bad[] = {
		"agent 1\nexec 80\nexit 0\n",
		"agent 1\nnote exec.exit nan\nexit 0\n",
		"agent 1\nnote exec.exit 256\nexit 0\n",
		"agent 1\nnote exec.exit -1\nexit 0\n",
		"agent 1\nnote exec.exit 3x\nexit 0\n",
		"agent 1\nnote exec.exit\nexit 0\n",
	};
	char *files = xasprintf("%s/files", dir);

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct scenario *s = exec_run(bad[i], "");
		struct metrics *m = metrics_new();
		char *err = NULL;

		assert_int_equal(scnrun_exec_metrics(s, files, dir, m, &err), -EIO);
		assert_non_null(err);
		assert_non_null(strstr(err, i && i < 5 ? "no exit status (0..255)"
						  : "reported no exit status"));
		assert_true(metrics_value(m, "exec.exit", -7) == -7);
		free(err);
		metrics_free(m);
		scn_free(s);
	}
	free(files);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scenario_exec__alone_with_share_and_ktap),
		cmocka_unit_test(test_scenario_exec__errors_name_the_line),
		cmocka_unit_test(test_scenario_exec__metrics_from_notes),
		cmocka_unit_test(test_scenario_exec__no_or_bad_note_is_an_error),
	};

	return cmocka_run_group_tests(tests, dir_setup, dir_teardown);
}
