// SPDX-License-Identifier: GPL-2.0
/*
 * The KTAP/TAP reader behind exec.ktap.*: flat and nested KTAP, kselftest's
 * TAP 13 with "# "-prefixed subtests, SKIP/TODO directives, names made
 * metric-safe, and malformed input that must neither crash nor count.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "scenario/ktap.h"

static const struct ktap_case *find(const struct ktap_result *r, const char *name)
{
	for (size_t i = 0; i < r->n_cases; i++)
		if (!strcmp(r->cases[i].name, name))
			return &r->cases[i];
	fail_msg("no case '%s' (of %zu)", name, r->n_cases);
	return NULL;
}

static void test_ktap__counts_flat_results_and_skip(void **state)
{
	struct ktap_result r;

	(void)state;
	ktap_parse("KTAP version 1\n1..4\nok 1 first\nnot ok 2 second\n"
		   "ok 3 third # SKIP no device\nok 4 - fourth # comment\n", &r);
	assert_int_equal(r.pass, 2);
	assert_int_equal(r.fail, 1);
	assert_int_equal(r.skip, 1);
	assert_int_equal(r.n_cases, 4);
	assert_int_equal(find(&r, "first")->status, KTAP_PASS);
	assert_int_equal(find(&r, "second")->status, KTAP_FAIL);
	assert_int_equal(find(&r, "third")->status, KTAP_SKIP);
	assert_int_equal(find(&r, "fourth")->status, KTAP_PASS);
	ktap_release(&r);
}

static void test_ktap__nested_subtests_are_named_by_their_header(void **state)
{
	struct ktap_result r;

	(void)state;
	ktap_parse("KTAP version 1\n"
		   "1..2\n"
		   "  KTAP version 1\n"
		   "  # Subtest: example\n"
		   "  1..2\n"
		   "  ok 1 test_1\n"
		   "  not ok 2 test_2\n"
		   "not ok 1 example\n"
		   "ok 2 lonely\n", &r);
	/* Leaves only: example's two tests and lonely. */
	assert_int_equal(r.pass, 2);
	assert_int_equal(r.fail, 1);
	assert_int_equal(find(&r, "example.test_1")->status, KTAP_PASS);
	assert_int_equal(find(&r, "example.test_2")->depth, 1);
	assert_false(find(&r, "example")->leaf);
	assert_int_equal(find(&r, "example")->status, KTAP_FAIL);
	assert_true(find(&r, "lonely")->leaf);
	ktap_release(&r);
}

static void test_ktap__kselftest_tap13_hash_prefixed_subtests(void **state)
{
	struct ktap_result r;

	(void)state;
	ktap_parse("TAP version 13\n1..1\n# selftests: net: udpgso\n# TAP version 13\n# 1..2\n"
		   "# ok 1 udp4 gso\n# not ok 2 udp6 gso # TODO flaky\n"
		   "# # diagnostics only\nok 1 selftests: net: udpgso\n", &r);
	assert_int_equal(r.pass, 1);
	assert_int_equal(r.skip, 1);
	assert_int_equal(r.fail, 0);
	assert_int_equal(find(&r, "udp4_gso")->depth, 1);
	assert_int_equal(find(&r, "udp6_gso")->status, KTAP_SKIP);
	assert_false(find(&r, "selftests_net_udpgso")->leaf);
	ktap_release(&r);
}

/*
 * A kselftest script whose own cases passed but which then exited 1 (6.1's
 * udpgro.sh when net_helper.sh is missing): its "not ok" is a failure of
 * its own. A parent whose subtest failed is not counted twice.
 */
static void test_ktap__failed_parent_with_passing_subtests_fails(void **state)
{
	struct ktap_result r;

	(void)state;
	ktap_parse("TAP version 13\n1..2\n# selftests: net: udpgro.sh\n# ok 1 no GRO\n"
		   "# ok 2 GRO\n# failed\nnot ok 1 selftests: net: udpgro.sh # exit=1\n"
		   "# selftests: net: b.sh\n# ok 1 x\n# not ok 2 y\nnot ok 2 selftests: net: b.sh # exit=1\n",
		   &r);
	assert_int_equal(r.pass, 3);
	assert_int_equal(r.fail, 2);	/* udpgro.sh itself, and b.sh's y */
	assert_int_equal(find(&r, "selftests_net_udpgro_sh")->status, KTAP_FAIL);
	ktap_release(&r);
}

static void test_ktap__malformed_lines_are_skipped(void **state)
{
	struct ktap_result r;

	(void)state;
	ktap_parse("okay then\nok3 glued\nnot okay\n1..x\nok 2x bad number\n"
		   "random output\r\n\n\n#\n   \nok\nnot ok 7 #\n", &r);
	/* "ok" alone and "not ok 7 #" are results (a number is optional). */
	assert_int_equal(r.n_cases, 2);
	assert_int_equal(r.pass, 1);
	assert_int_equal(r.fail, 1);
	assert_string_equal(r.cases[0].name, "test_0");
	assert_string_equal(r.cases[1].name, "test_7");
	ktap_release(&r);
}

static void test_ktap__empty_and_bail_out(void **state)
{
	struct ktap_result r;

	(void)state;
	ktap_parse("", &r);
	assert_int_equal(r.n_cases + r.pass + r.fail + r.skip, 0);
	ktap_release(&r);
	ktap_parse("1..3\nok 1 a\nBail out! no network\n", &r);
	assert_true(r.bail_out);
	assert_int_equal(r.fail, 1);
	ktap_release(&r);
}

static void test_ktap__sanitize_and_name_ok(void **state)
{
	char out[32];

	(void)state;
	ktap_sanitize("  tcp: 3-way  handshake! ", 25, out, sizeof(out));
	assert_string_equal(out, "tcp_3_way_handshake");
	ktap_sanitize("***", 3, out, sizeof(out));
	assert_string_equal(out, "");
	ktap_sanitize("abcdefghijklmnopqrstuvwxyz0123456789", 36, out, 8);
	assert_int_equal(strlen(out), 6);
	assert_true(ktap_name_ok("suite.case_1"));
	assert_false(ktap_name_ok("suite..case"));
	assert_false(ktap_name_ok(".case"));
	assert_false(ktap_name_ok("a-b"));
	assert_false(ktap_name_ok(""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ktap__counts_flat_results_and_skip),
		cmocka_unit_test(test_ktap__nested_subtests_are_named_by_their_header),
		cmocka_unit_test(test_ktap__kselftest_tap13_hash_prefixed_subtests),
		cmocka_unit_test(test_ktap__failed_parent_with_passing_subtests_fails),
		cmocka_unit_test(test_ktap__malformed_lines_are_skipped),
		cmocka_unit_test(test_ktap__empty_and_bail_out),
		cmocka_unit_test(test_ktap__sanitize_and_name_ok),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
