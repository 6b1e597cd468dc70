// SPDX-License-Identifier: GPL-2.0
/*
 * netlab bisect: the decision (median, spread, noise band), the option
 * parser, the step log (JSON round trip and text) and reading the result
 * out of `git bisect run`'s output.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "bisect/bisect.h"
#include "cmd/cmd.h"
#include "scenario/baseline.h"
#include "lib/util.h"

static const bool all_pass[] = { true, true, true, true, true, true };
static const bool all_fail[] = { false, false, false, false, false, false };

static void test_bisect_call__median_decides_when_runs_agree(void **state)
{
	assert_int_equal(bisect_call_check(true, all_pass, 3, 0, CHECK_EQ, 0, BISECT_BAND), BC_PASS);
	assert_int_equal(bisect_call_check(false, all_fail, 3, 125, CHECK_EQ, 0, BISECT_BAND),
			 BC_FAIL);
	/* one outlier of three: two thirds agree, the median still decides */
	bool one_off[] = { false, false, true };

	assert_int_equal(bisect_call_check(false, one_off, 3, 40, CHECK_EQ, 0, BISECT_BAND), BC_FAIL);
}

static void test_bisect_call__spread_straddling_the_bound_is_ambiguous(void **state)
{
	bool split[] = { true, false, true, false };
	bool five_of_six[] = { true, true, false, true, true, true };

	assert_int_equal(bisect_call_check(true, split, 4, 0, CHECK_EQ, 0, BISECT_BAND),
			 BC_AMBIGUOUS);
	assert_int_equal(bisect_call_check(true, five_of_six, 6, 0, CHECK_EQ, 0, BISECT_BAND),
			 BC_PASS);
}

static void test_bisect_call__median_near_the_bound_is_ambiguous(void **state)
{
	/* tcp.goodput_bps >= 100M: 103M is within 5%, 120M and 80M are not */
	assert_int_equal(bisect_call_check(true, all_pass, 3, 103e6, CHECK_GE, 100e6, BISECT_BAND),
			 BC_AMBIGUOUS);
	assert_int_equal(bisect_call_check(true, all_pass, 3, 120e6, CHECK_GE, 100e6, BISECT_BAND),
			 BC_PASS);
	assert_int_equal(bisect_call_check(false, all_fail, 3, 80e6, CHECK_GE, 100e6, BISECT_BAND),
			 BC_FAIL);
	/* equality and a zero bound have no band: counters are exact */
	assert_int_equal(bisect_call_check(false, all_fail, 3, 1, CHECK_EQ, 0, BISECT_BAND), BC_FAIL);
	assert_int_equal(bisect_call_check(false, all_fail, 3, 1, CHECK_LE, 0, BISECT_BAND), BC_FAIL);
	assert_int_equal(bisect_call_check(true, all_pass, 0, 0, CHECK_EQ, 0, BISECT_BAND),
			 BC_AMBIGUOUS);
}

/* The band is half the baseline's recorded relative range, never under 5%. */
static void test_bisect_band__from_the_baseline_spread(void **state)
{
	/* rr.latency_us.p50 baseline 100 from runs 80..120: 20% */
	struct baseline_spread noisy = { .min = 80, .max = 120, .n = 5 };
	struct baseline_spread tight = { .min = 99, .max = 101, .n = 5 };
	struct baseline_spread one = { .min = 50, .max = 150, .n = 1 };

	assert_true(fabs(bisect_band(&noisy, 100) - 0.2) < 1e-12);
	assert_true(fabs(bisect_band(&noisy, -100) - 0.2) < 1e-12);
	assert_true(bisect_band(&tight, 100) == BISECT_BAND);
	assert_true(bisect_band(NULL, 100) == BISECT_BAND);
	assert_true(bisect_band(&one, 100) == BISECT_BAND);	/* one run has no spread */
	assert_true(bisect_band(&noisy, 0) == BISECT_BAND);
	assert_true(bisect_band(&noisy, NAN) == BISECT_BAND);
	/* p50 <= baseline * 1.25 = 125: 140 fails with a 5% band, is too close with 20% */
	assert_int_equal(bisect_call_check(false, all_fail, 3, 140, CHECK_LE, 125, BISECT_BAND),
			 BC_FAIL);
	assert_int_equal(bisect_call_check(false, all_fail, 3, 140, CHECK_LE, 125,
					   bisect_band(&noisy, 100)),
			 BC_AMBIGUOUS);
	/* and 160 (28% over) fails either way */
	assert_int_equal(bisect_call_check(false, all_fail, 3, 160, CHECK_LE, 125,
					   bisect_band(&noisy, 100)),
			 BC_FAIL);
	/* the tight metric keeps the 5% floor: 135 is called */
	assert_int_equal(bisect_call_check(false, all_fail, 3, 135, CHECK_LE, 125,
					   bisect_band(&tight, 100)),
			 BC_FAIL);
}

static void test_bisect_call_step__fail_beats_ambiguous_beats_pass(void **state)
{
	enum bisect_call a[] = { BC_PASS, BC_AMBIGUOUS, BC_FAIL };
	enum bisect_call b[] = { BC_PASS, BC_AMBIGUOUS };
	enum bisect_call c[] = { BC_PASS, BC_PASS };

	assert_int_equal(bisect_call_step(a, 3), BC_FAIL);
	assert_int_equal(bisect_call_step(b, 2), BC_AMBIGUOUS);
	assert_int_equal(bisect_call_step(c, 2), BC_PASS);
}

static int parse(struct bisect_cmd *bc, char **err, ...)
{
	char *argv[32] = { "bisect" };
	int argc = 1;
	va_list ap;

	va_start(ap, err);
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	return bisect_cmd_parse(argc, argv, bc, err);
}

static void test_bisect_cmd__options_land_in_struct(void **state)
{
	struct bisect_cmd bc;
	char *err = NULL;

	assert_int_equal(parse(&bc, &err, "--ksrc", "/k", "--good", "v1", "--bad", "v2", "--scenario",
			       "s.scn", "--check", "no_loss", "--runs", "5", "-j", "2",
			       "--deterministic", "no", "-o", "out", NULL), 0);
	assert_string_equal(bc.ksrc, "/k");
	assert_string_equal(bc.good, "v1");
	assert_string_equal(bc.bad, "v2");
	assert_string_equal(bc.scenario, "s.scn");
	assert_string_equal(bc.check, "no_loss");
	assert_string_equal(bc.out, "out");
	assert_int_equal(bc.runs, 5);
	assert_int_equal(bc.jobs, 2);
	assert_int_equal(bc.deterministic, 0);
	assert_false(bc.step);

	assert_int_equal(parse(&bc, &err, "--ksrc", "/k", "--good", "a", "--bad", "b", "--scenario",
			       "s", NULL), 0);
	assert_int_equal(bc.runs, 1);
	assert_int_equal(bc.deterministic, -1);
	assert_int_equal(parse(&bc, &err, "--resume", "runs/x", NULL), 0);
	assert_string_equal(bc.resume, "runs/x");
	assert_int_equal(parse(&bc, &err, "--step", "--state", "runs/x", NULL), 0);
	assert_true(bc.step);
	assert_int_equal(parse(&bc, &err, "--module", "/m", "--good", "a", "--bad", "b",
			       "--scenario", "s", NULL), 0);
	assert_string_equal(bc.module, "/m");
	assert_null(bc.ksrc);
	assert_null(err);
}

static void test_bisect_cmd__module_and_ksrc_exclude_each_other(void **state)
{
	struct bisect_cmd bc;
	char *err = NULL;

	assert_int_equal(parse(&bc, &err, "--module", "/m", "--ksrc", "/k", "--good", "a", "--bad",
			       "b", "--scenario", "s", NULL), -EINVAL);
	assert_non_null(strstr(err, "--module and --ksrc exclude each other"));
	assert_non_null(strstr(err, "\nhint: "));
	free(err);
}

static void test_bisect_cmd__rejects_bad_input_naming_it(void **state)
{
	struct bisect_cmd bc;
	char *err = NULL;

	assert_int_equal(parse(&bc, &err, "--good", "a", "--bad", "b", "--scenario", "s", NULL),
			 -EINVAL);
	assert_non_null(strstr(err, "missing --ksrc"));
	free(err);
	err = NULL;
	assert_int_equal(parse(&bc, &err, "--ksrc", "k", "--bad", "b", "--scenario", "s", NULL),
			 -EINVAL);
	assert_non_null(strstr(err, "--good"));
	free(err);
	err = NULL;
	assert_int_equal(parse(&bc, &err, "--runs", "0", NULL), -EINVAL);
	assert_non_null(strstr(err, "'0'"));
	free(err);
	err = NULL;
	assert_int_equal(parse(&bc, &err, "--step", NULL), -EINVAL);
	assert_non_null(strstr(err, "--state"));
	free(err);
	err = NULL;
	assert_int_equal(parse(&bc, &err, "--frob", NULL), -EINVAL);
	assert_non_null(strstr(err, "--frob"));
	free(err);
}

/* --share/--add land in the struct, checked; --modules and --resume with a share refused. */
static void test_bisect_cmd__share_add_and_modules(void **state)
{
	char tmp[] = "/tmp/netlab-test-bisect-share-XXXXXX", *file, *spec;
	struct bisect_cmd bc;
	char *err = NULL;

	assert_non_null(mkdtemp(tmp));
	file = xasprintf("%s/repro.sh", tmp);
	assert_int_equal(file_write(file, "true\n", 5), 0);
	spec = xasprintf("%s:/opt/t:rw", tmp);
	assert_int_equal(parse(&bc, &err, "--ksrc", "/k", "--good", "a", "--bad", "b", "--scenario",
			       "s", "--share", spec, "--add", file, NULL), 0);
	assert_int_equal(bc.shares.n_shares, 1);
	assert_string_equal(bc.shares.shares[0].host, tmp);
	assert_string_equal(bc.shares.shares[0].guest, "/opt/t");
	assert_true(bc.shares.shares[0].rw);
	assert_int_equal(bc.shares.n_adds, 1);
	assert_string_equal(bc.shares.adds[0].guest, "/mnt/add/repro.sh");
	bisect_cmd_release(&bc);

	/* a file under a share's mount point would be hidden */
	free(spec);
	spec = xasprintf("%s:/opt/t/repro.sh", file);
	assert_int_equal(parse(&bc, &err, "--ksrc", "/k", "--good", "a", "--bad", "b", "--scenario",
			       "s", "--share", tmp, "--share", "/tmp:/opt/t", "--add", spec, NULL),
			 -EINVAL);
	assert_non_null(strstr(err, "--share/--add: "));
	bisect_cmd_release(&bc);
	free(err);
	err = NULL;
	assert_int_equal(parse(&bc, &err, "--share", "/no/such/dir", NULL), -EINVAL);
	assert_non_null(strstr(err, "--share '/no/such/dir'"));
	bisect_cmd_release(&bc);
	free(err);
	err = NULL;
	assert_int_equal(parse(&bc, &err, "--resume", "runs/x", "--add", file, NULL), -EINVAL);
	assert_non_null(strstr(err, "--resume"));
	bisect_cmd_release(&bc);
	free(err);
	err = NULL;
	assert_int_equal(parse(&bc, &err, "--ksrc", "/k", "--good", "a", "--bad", "b", "--scenario",
			       "s", "--modules", tmp, NULL), -EINVAL);
	assert_non_null(strstr(err, "--modules '"));
	assert_non_null(strstr(err, "\nhint: "));
	bisect_cmd_release(&bc);
	free(err);
	free(spec);
	free(file);
	rm_rf(tmp);
}

/* bisect.json keeps --share/--add for every step and --resume; a share gone is an error. */
static void test_bisect_config__shares_round_trip(void **state)
{
	char tmp[] = "/tmp/netlab-test-bisect-config-XXXXXX", *share, *file;
	struct bisect_config c = { 0 }, back;
	char *err = NULL;

	assert_non_null(mkdtemp(tmp));
	share = xasprintf("%s/tests", tmp);
	file = xasprintf("%s/repro.sh", tmp);
	assert_int_equal(mkdir_p(share, 0755), 0);
	assert_int_equal(file_write(file, "true\n", 5), 0);
	c.ksrc = xstrdup("/k");
	c.good = xstrdup("1111");
	c.bad = xstrdup("2222");
	c.scenario = xstrdup("/s.scn");
	c.initrd = xstrdup("/i");
	c.worktree = xstrdup("/w");
	c.phase = xstrdup("verify");
	c.runs = c.jobs = 1;
	c.shares = xzalloc(2 * sizeof(*c.shares));
	c.shares[0] = (struct vm_share){ .host = xstrdup(share), .guest = xstrdup("/opt/t"),
					 .rw = true };
	c.n_shares = 1;
	c.adds = xzalloc(2 * sizeof(*c.adds));
	c.adds[0] = (struct vm_share){ .host = xstrdup(file), .guest = xstrdup("/opt/r.sh") };
	c.n_adds = 1;
	assert_int_equal(bisect_config_save(&c, tmp, &err), 0);
	assert_int_equal(bisect_config_load(tmp, &back, &err), 0);
	assert_int_equal(back.n_shares, 1);
	assert_string_equal(back.shares[0].host, share);
	assert_string_equal(back.shares[0].guest, "/opt/t");
	assert_true(back.shares[0].rw);
	assert_int_equal(back.n_adds, 1);
	assert_string_equal(back.adds[0].host, file);
	assert_string_equal(back.adds[0].guest, "/opt/r.sh");
	assert_false(back.adds[0].rw);
	bisect_config_release(&back);

	assert_int_equal(rm_rf(share), 0);
	assert_int_equal(bisect_config_load(tmp, &back, &err), -EINVAL);
	assert_non_null(strstr(err, "--share '"));
	assert_non_null(strstr(err, "No such file or directory"));
	free(err);
	bisect_config_release(&c);
	free(share);
	free(file);
	rm_rf(tmp);
}

static void sample_step(struct bisect_step *s)
{
	memset(s, 0, sizeof(*s));
	s->n = 3;
	s->commit = xstrdup("0123456789abcdef0123456789abcdef01234567");
	s->subject = xstrdup("e1000e: tidy the RX path");
	s->dir = xstrdup("runs/b/steps/03-0123456789ab");
	s->kernel_dir = xstrdup("/cache/kernels/abc");
	s->build_s = 41.23;
	s->boot_s = 3.3;
	s->scenario_s = 12.04;
	s->n_runs = 3;
	s->verdict = BV_BAD;
	s->why = xstrdup("a check fails");
	s->checks = xzalloc(2 * sizeof(*s->checks));
	s->n_checks = 1;
	s->checks[0] = (struct bisect_check_sample){
		.name = xstrdup("no_loss"), .text = xstrdup("udp.lost == 0"),
		.subject = xstrdup("udp.lost"), .call = BC_FAIL, .median = 125, .bound = 0,
		.op = CHECK_EQ,
	};
	s->checks[0].values = xzalloc(3 * sizeof(double));
	s->checks[0].values[0] = 120;
	s->checks[0].values[1] = 125;
	s->checks[0].values[2] = 130;
	s->checks[0].n_values = 3;
	s->run_dirs = xzalloc(2 * sizeof(char *));
	s->run_dirs[0] = xstrdup("runs/b/steps/03-0123456789ab/runs-1/x/run-1");
	s->n_run_dirs = 1;
}

static void test_bisect_log__json_round_trip(void **state)
{
	struct bisect_step s, back;
	char *json;

	sample_step(&s);
	json = bisect_step_to_json(&s);
	assert_null(strchr(json, '\n'));
	assert_non_null(strstr(json, "\"verdict\":\"bad\""));
	assert_non_null(strstr(json, "\"build_s\":41.2"));
	assert_int_equal(bisect_step_from_json(json, &back), 0);
	assert_int_equal(back.n, 3);
	assert_string_equal(back.commit, s.commit);
	assert_string_equal(back.subject, s.subject);
	assert_int_equal(back.verdict, BV_BAD);
	assert_int_equal(back.n_checks, 1);
	assert_string_equal(back.checks[0].subject, "udp.lost");
	assert_int_equal(back.checks[0].op, CHECK_EQ);
	assert_int_equal(back.checks[0].call, BC_FAIL);
	assert_int_equal(back.checks[0].n_values, 3);
	assert_true(back.checks[0].values[2] == 130);
	assert_true(back.checks[0].band == BISECT_BAND);	/* not logged: the floor */
	assert_null(strstr(json, "\"band\""));
	assert_int_equal(back.n_run_dirs, 1);
	assert_null(back.label);
	bisect_step_release(&back);
	/* A band the baseline's spread widened is logged and read back. */
	free(json);
	s.checks[0].band = 0.2;
	json = bisect_step_to_json(&s);
	assert_non_null(strstr(json, "\"band\":0.2"));
	assert_int_equal(bisect_step_from_json(json, &back), 0);
	assert_true(back.checks[0].band == 0.2);
	bisect_step_release(&back);
	assert_int_equal(bisect_step_from_json("{\"step\": 1", &back), -EINVAL);
	bisect_step_release(&back);
	free(json);
	bisect_step_release(&s);
}

static void test_bisect_log__text_shows_verdict_times_and_spread(void **state)
{
	struct bisect_step s;
	char *t;

	sample_step(&s);
	t = bisect_step_to_text(&s);
	assert_non_null(strstr(t, "step 3   0123456789ab  bad    build 41.2 s  boot 3.3 s  scenario 12.0 s"));
	assert_non_null(strstr(t, "e1000e: tidy the RX path\n"));
	assert_non_null(strstr(t, "    no_loss: udp.lost = 125 [120..130] (3 runs) vs == 0: fail\n"));
	assert_non_null(strstr(t, "    dir: runs/b/steps/03-0123456789ab\n"));
	free(t);
	s.checks[0].band = 0.125;
	t = bisect_step_to_text(&s);
	assert_non_null(strstr(t, "vs == 0 (noise band 12.5%, from the baseline's spread): fail\n"));
	free(t);
	bisect_step_release(&s);
}

static void test_bisect_result__skipped_only_lists_candidates(void **state)
{
	struct bisect_config c = { .ksrc = "/nonexistent", .initrd = "i", .scenario = "s.scn" };
	const char *out = "running 'netlab'\n"
			  "There are only 'skip'ped commits left to test.\n"
			  "The first bad commit could be any of:\n"
			  "1111111111111111111111111111111111111111\n"
			  "2222222222222222222222222222222222222222\n"
			  "We cannot bisect more!\n";
	struct bisect_result r;
	char *err = NULL, *t;

	assert_int_equal(bisect_result_parse(&c, out, NULL, 0, &r, &err), 0);
	assert_null(r.first_bad);
	assert_int_equal(r.n_candidates, 2);
	t = bisect_result_to_text(&r);
	assert_non_null(strstr(t, "  2222222222222222222222222222222222222222\n"));
	free(t);
	bisect_result_release(&r);
	assert_int_equal(bisect_result_parse(&c, "bisect run failed\n", NULL, 0, &r, &err), -ENOENT);
	assert_non_null(err);
	free(err);
}

static void test_bisect_result__before_and_after_from_the_log(void **state)
{
	struct bisect_config c = { .ksrc = "/nonexistent", .initrd = "/i.cpio.gz", .scenario = "/s.scn",
				   .runs = 3, .deterministic = -1 };
	struct bisect_step steps[3];
	struct bisect_result r;
	char *err = NULL, *t, *out;

	sample_step(&steps[0]);
	sample_step(&steps[1]);
	sample_step(&steps[2]);
	steps[0].verdict = BV_GOOD;
	steps[0].n = 1;
	steps[0].checks[0].median = 0;
	steps[1].verdict = BV_SKIP;
	steps[1].n = 2;
	out = xasprintf("%s is the first bad commit\ncommit %s\n", steps[2].commit, steps[2].commit);
	assert_int_equal(bisect_result_parse(&c, out, steps, 3, &r, &err), 0);
	assert_string_equal(r.first_bad, steps[2].commit);
	assert_ptr_equal(r.after, &steps[2]);
	assert_ptr_equal(r.before, &steps[0]);	/* the parent is unknown: the nearest good */
	t = bisect_result_to_text(&r);
	assert_non_null(strstr(t, "before: no_loss: udp.lost = 0 [120..130] (3 runs) vs == 0"));
	assert_non_null(strstr(t, "after : no_loss: udp.lost = 125"));
	assert_non_null(strstr(t, "reproduce: netlab regress --kernel /cache/kernels/abc/bzImage "
				  "--initrd /i.cpio.gz --repeat 3 --out runs/repro-0123456789ab /s.scn"));
	free(t);
	bisect_result_release(&r);
	/* --share/--add: the reproducer has them too */
	c.shares = &(struct vm_share){ .host = "/t", .guest = "/opt/t", .rw = true };
	c.n_shares = 1;
	c.adds = &(struct vm_share){ .host = "/r.sh", .guest = "/mnt/add/r.sh" };
	c.n_adds = 1;
	assert_int_equal(bisect_result_parse(&c, out, steps, 3, &r, &err), 0);
	assert_non_null(strstr(r.repro, "--repeat 3 --share /t:/opt/t:rw --add /r.sh:/mnt/add/r.sh "
				       "--out runs/repro-"));
	free(out);
	bisect_result_release(&r);
	for (int i = 0; i < 3; i++)
		bisect_step_release(&steps[i]);
}

/* The reproduce line, pasted into sh with hostile paths, gives each path back whole and runs nothing. */
static void test_bisect_result__reproduce_line_pastes_safely(void **state)
{
	char dir[] = "/tmp/netlab-test-repro.XXXXXX";
	struct bisect_config c = { .ksrc = "/nonexistent", .runs = 1, .deterministic = -1,
				   .initrd = "/x $(touch pwned)/i'.cpio", .scenario = "s;touch pwned.scn" };
	struct vm_share sh = { .host = "/a `touch pwned` b", .guest = "/mnt/t" };
	struct bisect_step steps[1];
	struct bisect_result r;
	char *err = NULL, *out, *cmd, *pw, got[4096];
	size_t n;
	FILE *p;

	assert_non_null(mkdtemp(dir));
	sample_step(&steps[0]);
	free(steps[0].kernel_dir);
	steps[0].kernel_dir = xstrdup("/k dir/$(touch pwned)");
	c.shares = &sh;
	c.n_shares = 1;
	out = xasprintf("%s is the first bad commit\n", steps[0].commit);
	assert_int_equal(bisect_result_parse(&c, out, steps, 1, &r, &err), 0);
	assert_non_null(r.repro);
	cmd = xasprintf("cd %s && netlab() { printf '%%s|' \"$@\"; }; %s", dir, r.repro);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(got, 1, sizeof(got) - 1, p);
	got[n] = '\0';
	assert_int_equal(pclose(p), 0);
	assert_string_equal(got, "regress|--kernel|/k dir/$(touch pwned)/bzImage|"
				 "--initrd|/x $(touch pwned)/i'.cpio|--repeat|1|"
				 "--share|/a `touch pwned` b:/mnt/t|--out|runs/repro-0123456789ab|"
				 "s;touch pwned.scn|");
	pw = xasprintf("%s/pwned", dir);
	assert_int_equal(access(pw, F_OK), -1);
	rmdir(dir);
	free(pw);
	free(cmd);
	free(out);
	bisect_result_release(&r);
	bisect_step_release(&steps[0]);
}

/*
 * kbuild hard-links the worktree (every file's ctime changes); moving the
 * worktree to the next endpoint must still leave unchanged files alone, or
 * the next build recompiles the whole kernel.
 */
static void test_bisect_worktree__keeps_unchanged_files_and_ends_a_bisection(void **state)
{
	char dir[] = "/tmp/netlab-test-bisect.XXXXXX";
	struct bisect_config c = { 0 };
	struct stat before, after;
	char *cmd, *f, *err = NULL;

	assert_non_null(mkdtemp(dir));
	cmd = xasprintf("cd %s && git init -q r && cd r && echo 1 >a && echo 1 >b && git add a b && "
			"git -c user.name=t -c user.email=t@l -c commit.gpgsign=false commit -qm one && "
			"git tag one && echo 2 >a && git -c user.name=t -c user.email=t@l "
			"-c commit.gpgsign=false commit -qam two && git tag two", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	c.ksrc = xasprintf("%s/r", dir);
	c.worktree = xasprintf("%s/w/tree", dir);
	assert_int_equal(bisect_worktree_prepare(&c, "one", &err), 0);
	f = xasprintf("%s/b", c.worktree);
	assert_int_equal(stat(f, &before), 0);
	sleep(1);	/* a new ctime, in whole seconds too */
	cmd = xasprintf("cp -al %s %s/copy", c.worktree, dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	assert_int_equal(bisect_worktree_prepare(&c, "two", &err), 0);
	assert_int_equal(stat(f, &after), 0);
	assert_int_equal(after.st_ino, before.st_ino);
	assert_int_equal(after.st_mtime, before.st_mtime);
	free(f);
	f = xasprintf("%s/a", c.worktree);
	assert_int_equal(stat(f, &after), 0);
	assert_int_equal(after.st_size, 2);	/* the changed file was checked out */
	free(f);
	/* A bisection left in the worktree (a finished run, a crash) is ended. */
	cmd = xasprintf("cd %s && git bisect start two one >/dev/null 2>&1 && git bisect log "
			">/dev/null", c.worktree);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	assert_int_equal(bisect_worktree_prepare(&c, "one", &err), 0);
	cmd = xasprintf("cd %s && git bisect log >/dev/null 2>&1", c.worktree);
	assert_int_not_equal(system(cmd), 0);
	free(cmd);
	rm_rf(dir);
	free(c.ksrc);
	free(c.worktree);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bisect_call__median_decides_when_runs_agree),
		cmocka_unit_test(test_bisect_call__spread_straddling_the_bound_is_ambiguous),
		cmocka_unit_test(test_bisect_call__median_near_the_bound_is_ambiguous),
		cmocka_unit_test(test_bisect_band__from_the_baseline_spread),
		cmocka_unit_test(test_bisect_call_step__fail_beats_ambiguous_beats_pass),
		cmocka_unit_test(test_bisect_cmd__options_land_in_struct),
		cmocka_unit_test(test_bisect_cmd__rejects_bad_input_naming_it),
		cmocka_unit_test(test_bisect_cmd__module_and_ksrc_exclude_each_other),
		cmocka_unit_test(test_bisect_cmd__share_add_and_modules),
		cmocka_unit_test(test_bisect_config__shares_round_trip),
		cmocka_unit_test(test_bisect_log__json_round_trip),
		cmocka_unit_test(test_bisect_log__text_shows_verdict_times_and_spread),
		cmocka_unit_test(test_bisect_result__skipped_only_lists_candidates),
		cmocka_unit_test(test_bisect_result__before_and_after_from_the_log),
		cmocka_unit_test(test_bisect_result__reproduce_line_pastes_safely),
		cmocka_unit_test(test_bisect_worktree__keeps_unchanged_files_and_ends_a_bisection),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
