// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of traffic/pacer.c: periods from rates, and the absolute
 * schedule that never accumulates rounding (no drift).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "pacer.h"

static void test_pacer__period_from_rates(void **state)
{
	struct pacer_rate pps = { PACER_PPS, 20000 }, bps = { PACER_BPS, 100e6 };
	struct pacer_rate none = { PACER_NONE, 0 };

	(void)state;
	assert_true(pacer_period_ns(&pps, 1400, 1) == 50000);
	assert_true(pacer_period_ns(&pps, 1400, 10) == 500000);
	/* 100 Mbit/s of 1250-byte payloads: 10000 datagrams/s. */
	assert_true(pacer_pps(&bps, 1250) == 10000);
	assert_true(pacer_period_ns(&bps, 1250, 1) == 100000);
	assert_true(pacer_period_ns(&none, 1400, 1) == 0);
}

static void test_pacer__bitrate_paces_by_a_fractional_mean_size(void **state)
{
	struct pacer_rate bps = { PACER_BPS, 1000 }, pps = { PACER_PPS, 20000 };

	(void)state;
	/* Sizes 32..93 (udp-stream --size-max): mean 62.5 bytes, 500 bits: 2/s. */
	assert_true(pacer_pps(&bps, (32 + 93) / 2.0) == 2);
	assert_true(pacer_period_ns(&bps, (32 + 93) / 2.0, 1) == 5e8);
	assert_true(pacer_period_ns(&pps, (32 + 93) / 2.0, 1) == 50000);
}

static void test_pacer__absolute_schedule_does_not_drift(void **state)
{
	struct pacer p;
	uint64_t k, start = 1000000007;

	(void)state;
	/* 3 per second: the period, 333333333.33 ns, is not an integer. */
	pacer_init(&p, start, 1e9 / 3);
	for (k = 0; k < 3000000; k++)
		pacer_advance(&p);
	/* Adding up a rounded period would be 1 ms off by now. */
	assert_int_equal(pacer_deadline(&p), start + 1000000ull * 1000000000ull);
	pacer_init(&p, start, 1e9 / 3);
	pacer_advance(&p);
	assert_int_equal(pacer_deadline(&p), start + 333333333);
	pacer_advance(&p);
	assert_int_equal(pacer_deadline(&p), start + 666666667);
}

static void test_pacer__first_burst_is_due_at_start(void **state)
{
	struct pacer p;

	(void)state;
	pacer_init(&p, 42, 50000);
	assert_int_equal(pacer_deadline(&p), 42);
	pacer_init(&p, 42, 0);
	pacer_advance(&p);
	assert_int_equal(pacer_deadline(&p), 42);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pacer__period_from_rates),
		cmocka_unit_test(test_pacer__bitrate_paces_by_a_fractional_mean_size),
		cmocka_unit_test(test_pacer__absolute_schedule_does_not_drift),
		cmocka_unit_test(test_pacer__first_burst_is_due_at_start),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
