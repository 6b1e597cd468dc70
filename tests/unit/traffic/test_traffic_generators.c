// SPDX-License-Identifier: GPL-2.0
/*
 * The generator descriptors (traffic/generators.h) the harness derives its
 * [traffic] keys from: every scenario key is an option of the tool's own
 * table (or the IPv6 key), and its end follows the option's role flag.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "generators.h"

static void test_generators__keys_are_the_tools_options(void **state)
{
	size_t n = 0;

	(void)state;

	for (const struct tgen *g = tgen_all; g->name; g++, n++) {
		assert_ptr_equal(tgen_find(g->name), g);
		for (const char *const *k = g->keys; *k; k++) {
			assert_non_null(tgen_key_opt(g, *k));
			assert_true(tgen_key_ok(g, *k));
			assert_int_not_equal(tgen_key_role(g, *k), 0);
		}
		assert_null(tgen_key_opt(g, "idle-timeout")); /* an option, not a key */
		assert_false(tgen_key_ok(g, "idle-timeout"));
		assert_false(tgen_key_ok(g, "generator"));
	}
	assert_int_equal(n, 3);
	assert_null(tgen_find("iperf"));
}

static void test_generators__roles(void **state)
{
	const struct tgen *u = tgen_find("udp-stream"), *t = tgen_find("tcp-stream");
	const struct tgen *r = tgen_find("rr");

	(void)state;

	assert_int_equal(tgen_key_role(u, "rate"), TGEN_TX);
	assert_int_equal(tgen_key_role(u, "rcvbuf"), TGEN_RX);
	assert_int_equal(tgen_key_role(u, "port"), TGEN_BOTH);
	assert_int_equal(tgen_key_role(u, "dst-ipv6"), TGEN_ADDR);
	assert_null(tgen_key_opt(u, "dst-ipv6"));
	assert_int_equal(tgen_key_role(t, "bidir"), TGEN_TX);
	assert_int_equal(tgen_key_opt(t, "bidir")->kind, TOPT_FLAG);
	assert_int_equal(tgen_key_role(t, "dst-ipv6"), 0);
	assert_int_equal(tgen_key_role(r, "req-size"), TGEN_TX);
	assert_int_equal(tgen_key_opt(r, "proto")->kind, TOPT_CHOICE);
	assert_string_equal(tgen_key_opt(r, "proto")->choices[1], "udp");
	assert_int_equal(r->default_port, 5202);
	/* issue 34: the receiver must know --flows too; --listeners and --backlog are the server's */
	assert_int_equal(tgen_key_role(t, "flows"), TGEN_BOTH);
	assert_int_equal(tgen_key_role(t, "listeners"), TGEN_RX);
	assert_int_equal(tgen_key_role(r, "flows"), TGEN_TX);
	assert_int_equal(tgen_key_role(r, "crr"), TGEN_TX);
	assert_int_equal(tgen_key_opt(r, "crr")->kind, TOPT_FLAG);
	assert_int_equal(tgen_key_role(r, "backlog"), TGEN_RX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generators__keys_are_the_tools_options),
		cmocka_unit_test(test_generators__roles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
