// SPDX-License-Identifier: GPL-2.0
/*
 * netlab selftests' parsing: kselftest/runner.sh's verdict line and the
 * reason lines around it, the TARGET[:TEST] selection against an install
 * directory's kselftest-list.txt and ksft-missing.txt, the settings
 * timeout, and the [exec] scenario written for one test (which the
 * scenario parser must accept).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/util.h"
#include "scenario/scenario.h"
#include "selftests/ksft-suite.h"
#include "selftests/ksft.h"
#include "tmpdir.h"

TMPDIR_FIXTURE("ksft")

static void test_ksft__verdict_pass(void **state)
{
	struct ksft_verdict v;

	(void)state;
	ksft_verdict_parse("TAP version 13\n1..1\n# selftests: net: a.sh\n# UDP ... pass\n"
			   "ok 1 selftests: net: a.sh\n", 0, false, &v);
	assert_int_equal(v.result, KSFT_PASS);
	assert_null(v.reason);
	ksft_verdict_release(&v);
}

static void test_ksft__verdict_skip_names_the_tool(void **state)
{
	struct ksft_verdict v;

	(void)state;
	ksft_verdict_parse("TAP version 13\n1..1\n# selftests: net: b.sh\n# setting up\n"
			   "# SKIP: Could not run test without socat tool\n# cleanup\n"
			   "ok 1 selftests: net: b.sh # SKIP\n", 0, false, &v);
	assert_int_equal(v.result, KSFT_SKIP);
	assert_string_equal(v.reason, "SKIP: Could not run test without socat tool");
	ksft_verdict_release(&v);
}

static void test_ksft__verdict_fail_reason_and_config(void **state)
{
	struct ksft_verdict v;

	(void)state;
	ksft_verdict_parse("TAP version 13\n1..1\n# selftests: net: so_txtime.sh\n"
			   "# Error: Specified qdisc kind is unknown.\n"
			   "not ok 1 selftests: net: so_txtime.sh # exit=2\n", 2, false, &v);
	assert_int_equal(v.result, KSFT_FAIL);
	assert_string_equal(v.reason, "exit=2: Error: Specified qdisc kind is unknown.");
	assert_string_equal(v.config, "Error: Specified qdisc kind is unknown.");
	ksft_verdict_release(&v);
}

static void test_ksft__verdict_nested_tap_does_not_decide(void **state)
{
	struct ksft_verdict v;

	(void)state;
	/* A kselftest_harness test's own results are "# "-prefixed: only the
	 * runner's top-level line counts. */
	ksft_verdict_parse("TAP version 13\n1..1\n# selftests: net: socket\n# ok 1 x\n"
			   "# not ok 2 y\nnot ok 1 selftests: net: socket # TIMEOUT 45 seconds\n",
			   0, false, &v);
	assert_int_equal(v.result, KSFT_FAIL);
	assert_non_null(strstr(v.reason, "TIMEOUT 45 seconds"));
	ksft_verdict_release(&v);
}

static void test_ksft__verdict_without_a_line(void **state)
{
	struct ksft_verdict v;

	(void)state;
	ksft_verdict_parse("TAP version 13\n1..1\n# selftests: net: slow.sh\n# step 1\n", 124, true,
			   &v);
	assert_int_equal(v.result, KSFT_FAIL);
	assert_false(v.has_line);
	assert_non_null(strstr(v.reason, "killed at netlab's [exec] timeout"));
	ksft_verdict_release(&v);
	ksft_verdict_parse(NULL, -1, false, &v);
	assert_int_equal(v.result, KSFT_FAIL);
	assert_string_equal(v.reason, "no verdict from the runner (exec.exit -1)");
	ksft_verdict_release(&v);
	/* A skip that says nothing still has a reason. */
	ksft_verdict_parse("ok 1 selftests: net: q.sh # SKIP\n", 0, false, &v);
	assert_int_equal(v.result, KSFT_SKIP);
	assert_string_equal(v.reason, "skipped (exit 4) without saying why");
	ksft_verdict_release(&v);
}

static void test_ksft__names(void **state)
{
	char *s;

	(void)state;
	s = ksft_scn_name("net/forwarding:router.sh");
	assert_string_equal(s, "net-forwarding-router.sh");
	free(s);
	s = ksft_target_of("net/forwarding:router.sh");
	assert_string_equal(s, "net/forwarding");
	free(s);
	s = ksft_target_of("drivers/net");
	assert_string_equal(s, "drivers/net");
	free(s);
}

/* An install directory: two targets, a test that did not build, a helper that did not. */
static char *install(void)
{
	char *inst = xasprintf("%s/install", dir), *p;

	mkdir_p(inst, 0755);
	p = xasprintf("%s/net", inst);
	mkdir_p(p, 0755);
	free(p);
	p = xasprintf("%s/kselftest-list.txt", inst);
	file_writef(p, "net:a.sh\nnet:b\nnet/forwarding:router.sh\ndrivers/net/bonding:bond.sh\n");
	free(p);
	p = xasprintf("%s/ksft-missing.txt", inst);
	file_writef(p, "net:tls\tdid not build: tls.c:1:1: error: x\n"
		       "net:nettest\thelper did not build: nettest.c:2:2: error: y\n");
	free(p);
	p = xasprintf("%s/net/settings", inst);
	file_writef(p, "timeout=1500\n");
	free(p);
	return inst;
}

static void test_ksft__select_target_test_and_missing(void **state)
{
	char *inst = install(), *err = NULL;
	const char *a1[] = { "net" }, *a2[] = { "net:b", "net:tls" }, *a3[] = { "drivers/net" };
	struct ksft_suite s;

	(void)state;
	assert_int_equal(ksft_select(inst, a1, 1, &s, &err), 0);
	/* net, its subtarget net/forwarding, and the test that did not build (not the helper). */
	assert_int_equal(s.n, 4);
	assert_string_equal(s.t[0].name, "net:a.sh");
	assert_string_equal(s.t[2].name, "net/forwarding:router.sh");
	assert_string_equal(s.t[3].name, "net:tls");
	assert_int_equal(s.t[3].result, KSFT_SKIP);
	assert_string_equal(s.t[3].not_built, "did not build: tls.c:1:1: error: x");
	ksft_suite_release(&s);
	assert_int_equal(ksft_select(inst, a2, 2, &s, &err), 0);
	assert_int_equal(s.n, 2);
	assert_null(s.t[0].not_built);
	assert_non_null(s.t[1].not_built);
	ksft_suite_release(&s);
	assert_int_equal(ksft_select(inst, a3, 1, &s, &err), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.t[0].name, "drivers/net/bonding:bond.sh");
	ksft_suite_release(&s);
	free(inst);
}

static void test_ksft__select_rejects_unknown(void **state)
{
	char *inst = install(), *err = NULL;
	const char *a1[] = { "net:nope.sh" }, *a2[] = { "netfilter" }, *a3[] = { "net:nettest" };
	struct ksft_suite s;

	(void)state;
	assert_int_equal(ksft_select(inst, a1, 1, &s, &err), -EINVAL);
	assert_non_null(strstr(err, "no selftest 'net:nope.sh'"));
	assert_non_null(strstr(err, "hint:"));
	free(err);
	err = NULL;
	assert_int_equal(ksft_select(inst, a2, 1, &s, &err), -EINVAL);
	assert_non_null(strstr(err, "target 'netfilter' has no test"));
	free(err);
	err = NULL;
	/* A helper is not a test. */
	assert_int_equal(ksft_select(inst, a3, 1, &s, &err), -EINVAL);
	free(err);
	free(inst);
}

static void test_ksft__timeout_from_settings(void **state)
{
	char *inst = install();

	(void)state;
	assert_int_equal(ksft_timeout(inst, "net:a.sh"), 1500);
	assert_int_equal(ksft_timeout(inst, "net/forwarding:router.sh"), KSFT_DEFAULT_TIMEOUT);
	free(inst);
}

static void test_ksft__scenario_parses(void **state)
{
	char *inst = install(), *p = xasprintf("%s/net-a.sh.scn", dir), *err = NULL, *text = NULL;
	struct scenario *scn = NULL;
	size_t len;

	(void)state;
	assert_int_equal(ksft_write_scenario("net:a.sh", inst, KSFT_GUEST_DIR, 0, p, &err), 0);
	assert_int_equal(file_read(p, &text, &len), 0);
	assert_non_null(strstr(text, "./netlab-ksft.sh net:a.sh"));
	assert_non_null(strstr(text, "timeout = 1530s\n"));	/* settings + 30 */
	assert_non_null(strstr(text, "ktap = yes\n"));
	assert_int_equal(scn_parse(p, &scn, &err), 0);
	scn_free(scn);
	free(text);
	assert_int_equal(ksft_write_scenario("net:zz", inst, KSFT_GUEST_DIR, 60, p, &err), -EINVAL);
	assert_non_null(strstr(err, "no selftest 'net:zz'"));
	free(err);
	free(p);
	free(inst);
}

static void test_ksft__tools_initrd_appends_the_tools(void **state)
{
	char *base = xasprintf("%s/base.img", dir), *tools = xasprintf("%s/tools.img", dir);
	char *out = xasprintf("%s/out.img", dir), *nope = xasprintf("%s/nope.img", dir);
	char *err = NULL, *data = NULL;
	size_t len;

	(void)state;
	file_writef(base, "BASE");
	file_writef(tools, "TOOLS");
	assert_int_equal(ksft_tools_initrd(base, tools, out, &err), 0);
	assert_int_equal(file_read(out, &data, &len), 0);
	assert_int_equal(len, 9);
	assert_memory_equal(data, "BASETOOLS", 9);
	free(data);
	assert_int_equal(ksft_tools_initrd(base, nope, out, &err), -ENOENT);
	assert_non_null(strstr(err, "hint: 'make guest'"));
	free(err);
	free(base);
	free(tools);
	free(out);
	free(nope);
}

/* The modules image beside a flavour's kernel goes after the rest; none beside the default's. */
static void test_ksft__kernel_modules_beside_the_kernel(void **state)
{
	char *k = xasprintf("%s/k", dir), *kernel = xasprintf("%s/k/bzImage", dir);
	char *mods = xasprintf("%s/k/modules.cpio.gz", dir), *base = xasprintf("%s/base2.img", dir);
	char *out = xasprintf("%s/out2.img", dir), *err = NULL, *data = NULL, *p;
	size_t len;

	(void)state;
	assert_int_equal(mkdir_p(k, 0755), 0);
	file_writef(kernel, "KERNEL");
	assert_null(ksft_kernel_modules(kernel));
	file_writef(mods, "MODS");
	p = ksft_kernel_modules(kernel);
	assert_non_null(p);
	assert_string_equal(p, mods);
	free(p);
	file_writef(base, "BASETOOLS");
	assert_int_equal(ksft_initrd_append(base, mods, out, &err), 0);
	assert_int_equal(file_read(out, &data, &len), 0);
	assert_int_equal(len, 13);
	assert_memory_equal(data, "BASETOOLSMODS", 13);
	free(data);
	/* In place, as netlab selftests does after the tools. */
	assert_int_equal(ksft_initrd_append(out, mods, out, &err), 0);
	assert_int_equal(file_read(out, &data, &len), 0);
	assert_memory_equal(data, "BASETOOLSMODSMODS", 17);
	free(data);
	p = xasprintf("%s/nope/modules.cpio.gz", dir);
	assert_int_equal(ksft_initrd_append(base, p, out, &err), -ENOENT);
	free(p);
	assert_non_null(strstr(err, "modules.cpio.gz"));
	free(err);
	free(k);
	free(kernel);
	free(mods);
	free(base);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ksft__verdict_pass),
		cmocka_unit_test(test_ksft__verdict_skip_names_the_tool),
		cmocka_unit_test(test_ksft__verdict_fail_reason_and_config),
		cmocka_unit_test(test_ksft__verdict_nested_tap_does_not_decide),
		cmocka_unit_test(test_ksft__verdict_without_a_line),
		cmocka_unit_test(test_ksft__names),
		cmocka_unit_test(test_ksft__select_target_test_and_missing),
		cmocka_unit_test(test_ksft__select_rejects_unknown),
		cmocka_unit_test(test_ksft__timeout_from_settings),
		cmocka_unit_test(test_ksft__scenario_parses),
		cmocka_unit_test(test_ksft__tools_initrd_appends_the_tools),
		cmocka_unit_test(test_ksft__kernel_modules_beside_the_kernel),
	};

	return cmocka_run_group_tests(tests, dir_setup, dir_teardown);
}
