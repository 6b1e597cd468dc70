// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the three tools' command lines (ttool_parse): role checks,
 * required options, combinations, defaults as echoed into the JSON result.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "ttool.h"

/* Parse a NULL-terminated argument list; the options echo or NULL. */
static int parse(const struct ttool *t, char **err, struct json_object **echo, ...)
{
	char *argv[32] = { (char *)t->name };
	void *opts = malloc(t->opts_size);
	int argc = 1, ret;
	va_list ap;

	assert_non_null(opts);
	va_start(ap, echo);
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	*err = NULL;
	ret = ttool_parse(t, argc, argv, opts, err);
	*echo = ret ? NULL : topt_to_json(t->opts, opts);
	free(opts);
	return ret;
}

#define assert_cli_error(tool, needle, ...)                                          \
	do {                                                                         \
		struct json_object *j;                                               \
		char *err;                                                           \
		assert_int_equal(parse(tool, &err, &j, __VA_ARGS__, NULL), -EINVAL); \
		assert_non_null(err);                                                \
		if (!strstr(err, needle))                                            \
			fail_msg("error '%s' lacks '%s'", err, needle);              \
		assert_non_null(strstr(err, "\nhint: "));                            \
		free(err);                                                           \
	} while (0)

/* Parses; returns the echo, for the caller to check and put. */
static struct json_object *parse_ok(const struct ttool *t, ...)
{
	char *argv[32] = { (char *)t->name }, *err = NULL;
	void *opts = malloc(t->opts_size);
	struct json_object *j;
	int argc = 1, ret;
	va_list ap;

	assert_non_null(opts);
	va_start(ap, t);
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	ret = ttool_parse(t, argc, argv, opts, &err);
	if (ret)
		fail_msg("rejected: %s", err ? err : "?");
	j = topt_to_json(t->opts, opts);
	free(opts);
	return j;
}

static const char *echo_str(struct json_object *j, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(j, key, &v))
		fail_msg("no key '%s' in %s", key, json_object_to_json_string(j));
	return json_object_to_json_string(v);
}

static void test_cli__udp_stream_rejects_bad_usage(void **state)
{
	const struct ttool *t = &udp_stream_tool;

	(void)state;
	assert_cli_error(t, "give exactly one of --send and --recv", "--port", "1");
	assert_cli_error(t, "give exactly one of --send and --recv", "--send", "--recv");
	assert_cli_error(t, "option '--dst' is required with --send", "--send");
	assert_cli_error(t, "option '--dst': invalid address 'receiver'", "--send", "--dst",
			 "receiver");
	assert_cli_error(t, "option '--rcvbuf' only applies with --recv", "--send", "--dst",
			 "127.0.0.1", "--rcvbuf", "4096");
	assert_cli_error(t, "option '--rate' only applies with --send", "--recv", "--rate", "1");
	assert_cli_error(t, "'--burst-gap' and '--rate'/'--bitrate' cannot be combined", "--send",
			 "--dst", "127.0.0.1", "--rate", "1000", "--burst-gap", "100");
	assert_cli_error(t, "option '--size': '8' is too small (minimum 32)", "--send", "--dst",
			 "127.0.0.1", "--size", "8");
	assert_cli_error(t, "option '--size': '65508' is too large", "--send", "--dst", "127.0.0.1",
			 "--size", "65508");
	assert_cli_error(t, "different address families", "--send", "--dst", "127.0.0.1", "--bind",
			 "::1");
	assert_cli_error(t, "option '--bind': invalid address 'eth0'", "--recv", "--bind", "eth0");
	assert_cli_error(t, "option '--rate': invalid value '1e6'", "--send", "--dst", "::1",
			 "--rate", "1e6");
	assert_cli_error(t, "'--json' and '--text' cannot be combined", "--recv", "--json",
			 "--text");
	assert_cli_error(t, "option '--port': '70000' is too large", "--recv", "--port", "70000");
}

static void test_cli__udp_stream_size_max_and_seed(void **state)
{
	const struct ttool *t = &udp_stream_tool;
	struct json_object *j;

	(void)state;
	assert_cli_error(t, "option '--size-max': 100 is less than '--size' 1400", "--send",
			 "--dst", "127.0.0.1", "--size-max", "100");
	assert_cli_error(t, "option '--size-max': 1023 is less than '--size' 1024", "--send",
			 "--dst", "127.0.0.1", "--size", "1K", "--size-max", "1023");
	assert_cli_error(t, "option '--size-max': '65508' is too large (maximum 65507)", "--send",
			 "--dst", "127.0.0.1", "--size", "32", "--size-max", "65508");
	assert_cli_error(t, "option '--size-max': '0' is too small (minimum 32)", "--send", "--dst",
			 "127.0.0.1", "--size-max", "0");
	assert_cli_error(t, "option '--size-max' only applies with --send", "--recv", "--size-max",
			 "1472");
	assert_cli_error(t, "option '--seed' only applies with --send", "--recv", "--seed", "3");
	assert_cli_error(t, "option '--seed': invalid value '-1'", "--send", "--dst", "::1",
			 "--seed", "-1");
	/* Unset: every datagram --size bytes; the seed echoed all the same. */
	j = parse_ok(t, "--send", "--dst", "127.0.0.1", NULL);
	assert_string_equal(echo_str(j, "size_max_bytes"), "null");
	assert_string_equal(echo_str(j, "seed"), "1");
	json_object_put(j);
	j = parse_ok(t, "--send", "--dst", "127.0.0.1", "--size", "32", "--size-max", "1472",
		     "--seed", "0", NULL);
	assert_string_equal(echo_str(j, "size_bytes"), "32");
	assert_string_equal(echo_str(j, "size_max_bytes"), "1472");
	assert_string_equal(echo_str(j, "seed"), "0");
	json_object_put(j);
	j = parse_ok(t, "--send", "--dst", "::1", "--size-max=1400", "--seed=18446744073709551615",
		     NULL);
	assert_string_equal(echo_str(j, "size_max_bytes"), "1400");
	assert_string_equal(echo_str(j, "seed"), "18446744073709551615");
	json_object_put(j);
	j = parse_ok(t, "--recv", NULL);
	assert_false(json_object_object_get_ex(j, "size_max_bytes", NULL));
	assert_false(json_object_object_get_ex(j, "seed", NULL));
	json_object_put(j);
}

static void test_cli__udp_stream_defaults(void **state)
{
	struct json_object *j;
	char *err;

	(void)state;
	j = parse_ok(&udp_stream_tool, "--send", "--dst", "2001:2::2", NULL);
	assert_string_equal(echo_str(j, "duration_s"), "10.0");
	assert_string_equal(echo_str(j, "size_bytes"), "1400");
	assert_string_equal(echo_str(j, "port"), "5201");
	assert_false(json_object_object_get_ex(j, "rcvbuf_bytes", NULL));
	json_object_put(j);
	j = parse_ok(&udp_stream_tool, "--send", "--dst", "198.18.0.2", "--count", "5", NULL);
	assert_string_equal(echo_str(j, "duration_s"), "null");
	json_object_put(j);
	j = parse_ok(&udp_stream_tool, "--recv", "--rcvbuf", "4K", "--read-delay", "1000", NULL);
	assert_string_equal(echo_str(j, "rcvbuf_bytes"), "4096");
	assert_string_equal(echo_str(j, "idle_timeout_s"), "5.0");
	assert_false(json_object_object_get_ex(j, "size_bytes", NULL));
	json_object_put(j);
	assert_int_equal(parse(&udp_stream_tool, &err, &j, "--bogus", "--help", NULL), TTOOL_HELP);
}

static void test_cli__tcp_stream(void **state)
{
	const struct ttool *t = &tcp_stream_tool;
	struct json_object *j;

	(void)state;
	assert_cli_error(t, "give exactly one of --send and --recv", "--dst", "::1");
	assert_cli_error(t, "option '--bidir' only applies with --send", "--recv", "--bidir");
	assert_cli_error(t, "option '--duration' only applies with --send", "--recv", "--duration",
			 "3");
	assert_cli_error(t, "option '--dst' is required with --send", "--send", "--bidir");
	assert_cli_error(t, "option '--size': '0' is too small", "--recv", "--size", "0");
	assert_cli_error(t, "different address families", "--send", "--dst", "::1", "--bind",
			 "127.0.0.1");
	assert_cli_error(t, "option '--bind': invalid address 'any'", "--recv", "--bind", "any");
	j = parse_ok(t, "--send", "--dst", "127.0.0.1", "--bidir", "--cc", "reno", NULL);
	assert_string_equal(echo_str(j, "duration_s"), "10.0");
	assert_string_equal(echo_str(j, "bidir"), "true");
	assert_string_equal(echo_str(j, "cc"), "\"reno\"");
	assert_string_equal(echo_str(j, "size_bytes"), "131072");
	assert_string_equal(echo_str(j, "flows"), "1");
	json_object_put(j);
	assert_cli_error(t, "option '--flows': '0' is too small", "--recv", "--flows", "0");
	assert_cli_error(t, "option '--flows': '65' is too large", "--recv", "--flows", "65");
	assert_cli_error(t, "option '--listeners' only applies with --recv", "--send", "--dst",
			 "::1", "--listeners", "2");
	assert_cli_error(t, "option '--listeners': '17' is too large", "--recv", "--listeners",
			 "17");
	assert_cli_error(t, "options '--bidir' and '--flows 2' cannot be combined", "--send",
			 "--dst", "::1", "--bidir", "--flows", "2");
	j = parse_ok(t, "--recv", "--flows", "64", "--listeners", "16", NULL);
	assert_string_equal(echo_str(j, "flows"), "64");
	assert_string_equal(echo_str(j, "listeners"), "16");
	json_object_put(j);
}

static void test_cli__rr(void **state)
{
	const struct ttool *t = &rr_tool;
	struct json_object *j;

	(void)state;
	assert_cli_error(t, "give exactly one of --server and --client", "--proto", "udp");
	assert_cli_error(t, "option '--proto': invalid value 'sctp'", "--server", "--proto",
			 "sctp");
	assert_cli_error(t, "option '--req-size': 8 is out of range for --proto udp", "--client",
			 "--dst", "::1", "--proto", "udp", "--req-size", "8");
	assert_cli_error(t, "option '--resp-size': 70000 is out of range for --proto udp",
			 "--client", "--dst", "::1", "--proto", "udp", "--resp-size", "70000");
	assert_cli_error(t, "option '--timeout' applies to --proto udp only", "--client", "--dst",
			 "::1", "--timeout", "1");
	assert_cli_error(t, "option '--count' only applies with --client", "--server", "--count",
			 "3");
	assert_cli_error(t, "option '--dst': invalid address 'server'", "--client", "--dst",
			 "server");
	assert_cli_error(t, "different address families", "--client", "--dst", "198.18.0.2",
			 "--bind", "2001:2::1");
	j = parse_ok(t, "--client", "--dst", "::1", "--proto", "udp", NULL);
	assert_string_equal(echo_str(j, "req_size_bytes"), "32");
	assert_string_equal(echo_str(j, "resp_size_bytes"), "32");
	assert_string_equal(echo_str(j, "timeout_s"), "0.2");
	assert_string_equal(echo_str(j, "port"), "5202");
	json_object_put(j);
	j = parse_ok(t, "--client", "--dst", "::1", "--count", "100", "--resp-size", "1K", NULL);
	assert_string_equal(echo_str(j, "req_size_bytes"), "1");
	assert_string_equal(echo_str(j, "resp_size_bytes"), "1024");
	assert_string_equal(echo_str(j, "timeout_s"), "null");
	assert_string_equal(echo_str(j, "duration_s"), "null");
	assert_string_equal(echo_str(j, "crr"), "false");
	assert_string_equal(echo_str(j, "flows"), "1");
	json_object_put(j);
	assert_cli_error(t, "option '--crr' applies to --proto tcp only", "--client", "--dst", "::1",
			 "--proto", "udp", "--crr");
	assert_cli_error(t, "option '--flows' applies to --proto tcp only", "--client", "--dst",
			 "::1", "--proto", "udp", "--flows", "2");
	assert_cli_error(t, "option '--backlog' applies to --proto tcp only", "--server", "--proto",
			 "udp", "--backlog", "8");
	assert_cli_error(t, "option '--crr' only applies with --client", "--server", "--crr");
	assert_cli_error(t, "option '--backlog' only applies with --server", "--client", "--dst",
			 "::1", "--backlog", "8");
	assert_cli_error(t, "option '--flows': '65' is too large", "--client", "--dst", "::1",
			 "--flows", "65");
	j = parse_ok(t, "--client", "--dst", "::1", "--crr", "--flows", "8", NULL);
	assert_string_equal(echo_str(j, "crr"), "true");
	assert_string_equal(echo_str(j, "flows"), "8");
	json_object_put(j);
	j = parse_ok(t, "--server", "--backlog", "4", NULL);
	assert_string_equal(echo_str(j, "backlog"), "4");
	json_object_put(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cli__udp_stream_rejects_bad_usage),
		cmocka_unit_test(test_cli__udp_stream_defaults),
		cmocka_unit_test(test_cli__udp_stream_size_max_and_seed),
		cmocka_unit_test(test_cli__tcp_stream),
		cmocka_unit_test(test_cli__rr),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
