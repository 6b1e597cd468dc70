// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of traffic/topt.c: rate, byte, seconds and integer parsing, and
 * the table-driven parser's errors, each naming the option.
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

#include "topt.h"

static void assert_rate(const char *s, enum pacer_unit bare, enum pacer_unit unit, double v)
{
	struct pacer_rate r;

	if (topt_parse_rate(s, bare, &r))
		fail_msg("'%s' rejected", s);
	assert_int_equal(r.unit, unit);
	if (r.value != v)
		fail_msg("'%s': got %f, want %f", s, r.value, v);
}

static void assert_bad_rate(const char *s, int want)
{
	struct pacer_rate r;
	int ret = topt_parse_rate(s, PACER_PPS, &r);

	if (ret != want)
		fail_msg("'%s': got %d, want %d", s, ret, want);
}

static void test_topt__rate_accepts_pps_and_si_bits(void **state)
{
	(void)state;
	assert_rate("10000", PACER_PPS, PACER_PPS, 10000);
	assert_rate("20kpps", PACER_PPS, PACER_PPS, 20000);
	assert_rate("100M", PACER_PPS, PACER_BPS, 100e6);
	assert_rate("1G", PACER_PPS, PACER_BPS, 1e9);
	assert_rate("1500k", PACER_PPS, PACER_BPS, 1.5e6);
	assert_rate("1.5G", PACER_PPS, PACER_BPS, 1.5e9);
	assert_rate("100Mbps", PACER_PPS, PACER_BPS, 100e6);
	assert_rate("250bps", PACER_PPS, PACER_BPS, 250);
	assert_rate("2000000", PACER_BPS, PACER_BPS, 2e6); /* --bitrate */
	assert_rate("100m", PACER_PPS, PACER_BPS, 100e6);
}

static void test_topt__rate_rejects_bad_input(void **state)
{
	(void)state;
	assert_bad_rate("", -EINVAL);
	assert_bad_rate("abc", -EINVAL);
	assert_bad_rate("10X", -EINVAL);
	assert_bad_rate("-5", -EINVAL);
	assert_bad_rate("1e3", -EINVAL);
	assert_bad_rate(".5", -EINVAL);
	assert_bad_rate("5.", -EINVAL);
	assert_bad_rate("100 M", -EINVAL);
	assert_bad_rate("100MM", -EINVAL);
	assert_bad_rate("inf", -EINVAL);
	assert_bad_rate("0", -ERANGE);
	assert_bad_rate("0.0M", -ERANGE);
	assert_bad_rate("2000G", -ERANGE);
	assert_bad_rate("2Gpps", -ERANGE);
}

static void test_topt__bytes(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(topt_parse_bytes("4096", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(topt_parse_bytes("64K", &v), 0);
	assert_int_equal(v, 65536);
	assert_int_equal(topt_parse_bytes("1m", &v), 0);
	assert_int_equal(v, 1 << 20);
	assert_int_equal(topt_parse_bytes("2G", &v), 0);
	assert_int_equal(v, 2ull << 30);
	assert_int_equal(topt_parse_bytes("4096B", &v), -EINVAL);
	assert_int_equal(topt_parse_bytes("K", &v), -EINVAL);
	assert_int_equal(topt_parse_bytes("-1", &v), -EINVAL);
	assert_int_equal(topt_parse_bytes("1.5K", &v), -EINVAL);
	assert_int_equal(topt_parse_bytes("99999999999999999999", &v), -ERANGE);
	assert_int_equal(topt_parse_bytes("17179869184G", &v), -ERANGE);
}

static void test_topt__seconds_and_uint(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(topt_parse_seconds("2", &v), 0);
	assert_int_equal(v, 2000000000);
	assert_int_equal(topt_parse_seconds("0.5", &v), 0);
	assert_int_equal(v, 500000000);
	assert_int_equal(topt_parse_seconds("0.001", &v), 0);
	assert_int_equal(v, 1000000);
	assert_int_equal(topt_parse_seconds("2s", &v), -EINVAL);
	assert_int_equal(topt_parse_seconds("", &v), -EINVAL);
	assert_int_equal(topt_parse_seconds("1e3", &v), -EINVAL);
	assert_int_equal(topt_parse_uint("18446744073709551615", &v), 0);
	assert_int_equal(v, UINT64_MAX);
	assert_int_equal(topt_parse_uint("18446744073709551616", &v), -ERANGE);
	assert_int_equal(topt_parse_uint("12a", &v), -EINVAL);
	assert_int_equal(topt_parse_uint("+1", &v), -EINVAL);
}

/* A table exercising every kind of option. */
struct t_opts {
	bool a;
	bool b;
	const char *name;
	uint64_t n;
	uint64_t bytes;
	uint64_t secs;
	uint64_t us;
	struct pacer_rate rate;
	int choice;
};

static const char *const t_choices[] = { "tcp", "udp", NULL };

#define TOFF(f) offsetof(struct t_opts, f)
/* clang-format off */
static const struct topt t_table[] = {
	{ .name = "a", .kind = TOPT_FLAG, .off = TOFF(a), .help = "role a", .key = "a" },
	{ .name = "b", .kind = TOPT_FLAG, .off = TOFF(b), .help = "role b" },
	{ .name = "name", .kind = TOPT_STR, .off = TOFF(name), .arg = "S", .help = "a name",
	  .key = "name" },
	{ .name = "n", .kind = TOPT_UINT, .off = TOFF(n), .arg = "N", .min = 2, .max = 10,
	  .help = "a count", .key = "n" },
	{ .name = "bytes", .kind = TOPT_BYTES, .off = TOFF(bytes), .arg = "B", .only = "b",
	  .help = "b only", .key = "bytes_b" },
	{ .name = "secs", .kind = TOPT_SECONDS, .off = TOFF(secs), .arg = "SEC",
	  .min = 1000000, .help = "seconds", .key = "secs_s", .zero_unset = true },
	{ .name = "us", .kind = TOPT_USEC, .off = TOFF(us), .arg = "USEC", .help = "usec",
	  .key = "us_us" },
	{ .name = "rate", .kind = TOPT_RATE, .off = TOFF(rate), .arg = "R", .help = "rate",
	  .key = "rate" },
	{ .name = "bitrate", .kind = TOPT_BITRATE, .off = TOFF(rate), .arg = "R", .help = "bits" },
	{ .name = "proto", .kind = TOPT_CHOICE, .off = TOFF(choice), .arg = "P",
	  .choices = t_choices, .help = "proto", .key = "proto" },
	{ .name = NULL },
};
/* clang-format on */

static int parse(struct t_opts *o, char **err, ...)
{
	char *argv[32] = { "prog" };
	int argc = 1;
	va_list ap;
	uint64_t seen;
	int ret;

	memset(o, 0, sizeof(*o));
	va_start(ap, err);
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	free(*err);
	*err = NULL;
	ret = topt_parse(t_table, argc, argv, o, &seen, err);
	return ret ? ret : topt_check_only(t_table, o, seen, err);
}

/* Parsing fails with a message containing @needle. */
#define assert_parse_error(needle, ...)                                        \
	do {                                                                   \
		struct t_opts o;                                               \
		char *err = NULL;                                              \
		assert_int_equal(parse(&o, &err, __VA_ARGS__, NULL), -EINVAL); \
		assert_non_null(err);                                          \
		if (!strstr(err, needle))                                      \
			fail_msg("error '%s' lacks '%s'", err, needle);        \
		assert_non_null(strstr(err, "\nhint: "));                      \
		free(err);                                                     \
	} while (0)

static void test_topt__parses_every_kind(void **state)
{
	struct t_opts o;
	char *err = NULL;

	(void)state;
	assert_int_equal(parse(&o, &err, "--a", "--b", "--name", "x", "--n=7", "--bytes", "2K",
			       "--secs", "1.5", "--us", "250", "--bitrate", "10M", "--proto", "udp",
			       NULL),
			 0);
	assert_true(o.a && o.b);
	assert_string_equal(o.name, "x");
	assert_int_equal(o.n, 7);
	assert_int_equal(o.bytes, 2048);
	assert_int_equal(o.secs, 1500000000);
	assert_int_equal(o.us, 250000);
	assert_int_equal(o.rate.unit, PACER_BPS);
	assert_int_equal(o.choice, 1);
	free(err);
}

static void test_topt__errors_name_the_option(void **state)
{
	(void)state;
	assert_parse_error("unknown option '--nope'", "--nope");
	assert_parse_error("unknown option '--nope'", "--nope=3");
	assert_parse_error("unexpected argument 'stray'", "stray");
	assert_parse_error("unexpected argument '-n'", "-n", "3");
	assert_parse_error("option '--name' needs a value", "--name");
	assert_parse_error("option '--name' needs a value", "--name", "--a");
	assert_parse_error("option '--name': empty value", "--name=");
	assert_parse_error("option '--n': invalid value 'x'", "--n", "x");
	assert_parse_error("option '--n': '1' is too small (minimum 2)", "--n", "1");
	assert_parse_error("option '--n': '11' is too large (maximum 10)", "--n", "11");
	assert_parse_error("option '--secs': '0.0001' is too small (minimum 0.001 s)", "--secs",
			   "0.0001");
	assert_parse_error("option '--n' given twice", "--n", "3", "--n", "4");
	assert_parse_error("options '--rate' and '--bitrate' cannot be combined", "--rate", "10",
			   "--bitrate", "10M");
	assert_parse_error("option '--a' takes no value", "--a=1");
	assert_parse_error("option '--bytes' only applies with --b", "--bytes", "1");
	assert_parse_error("option '--proto': invalid value 'sctp'", "--proto", "sctp");
	assert_parse_error("choose one of: tcp, udp", "--proto", "sctp");
	assert_parse_error("option '--rate': out-of-range value '0'", "--rate", "0");
	assert_parse_error("option '--bitrate': invalid value '10pps'", "--bitrate", "10pps");
	assert_parse_error("option '--us': out-of-range value", "--us", "99999999999999999999");
}

static void test_topt__json_echo(void **state)
{
	struct t_opts o;
	struct json_object *j, *v;
	char *err = NULL;

	(void)state;
	assert_int_equal(parse(&o, &err, "--a", "--n", "3", "--rate", "20kpps", "--us", "7", NULL),
			 0);
	j = topt_to_json(t_table, &o);
	assert_true(json_object_object_get_ex(j, "n", &v));
	assert_int_equal(json_object_get_uint64(v), 3);
	assert_true(json_object_object_get_ex(j, "us_us", &v));
	assert_int_equal(json_object_get_uint64(v), 7);
	assert_true(json_object_object_get_ex(j, "secs_s", &v));
	assert_null(v); /* zero_unset */
	assert_true(json_object_object_get_ex(j, "rate", &v));
	assert_string_equal(json_object_get_string(json_object_object_get(v, "unit")), "pps");
	/* --bytes needs --b, which is not given: not echoed. */
	assert_false(json_object_object_get_ex(j, "bytes_b", &v));
	json_object_put(j);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_topt__rate_accepts_pps_and_si_bits),
		cmocka_unit_test(test_topt__rate_rejects_bad_input),
		cmocka_unit_test(test_topt__bytes),
		cmocka_unit_test(test_topt__seconds_and_uint),
		cmocka_unit_test(test_topt__parses_every_kind),
		cmocka_unit_test(test_topt__errors_name_the_option),
		cmocka_unit_test(test_topt__json_echo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
