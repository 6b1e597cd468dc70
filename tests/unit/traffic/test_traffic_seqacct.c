// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of traffic/seqacct.c on synthetic sequences: in order, loss,
 * duplicates, reordering, the window sliding and wrapping, late arrivals.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "seqacct.h"

static struct seqacct *acct(void)
{
	struct seqacct *s = malloc(sizeof(*s));

	assert_non_null(s);
	seqacct_init(s);
	return s;
}

static void assert_counts(const struct seqacct *s, uint64_t received, uint64_t unique,
			  uint64_t duplicated, uint64_t reordered, uint64_t late)
{
	assert_int_equal(s->received, received);
	assert_int_equal(s->unique, unique);
	assert_int_equal(s->duplicated, duplicated);
	assert_int_equal(s->reordered, reordered);
	assert_int_equal(s->late, late);
}

static void test_seqacct__in_order(void **state)
{
	struct seqacct *s = acct();
	uint64_t i;

	(void)state;
	for (i = 0; i < 100000; i++)
		assert_int_equal(seqacct_add(s, i), SEQACCT_NEW);
	assert_counts(s, 100000, 100000, 0, 0, 0);
	assert_int_equal(s->highest, 99999);
	assert_int_equal(seqacct_lost(s, 100000), 0);
	free(s);
}

static void test_seqacct__loss(void **state)
{
	struct seqacct *s = acct();
	uint64_t i;

	(void)state;
	for (i = 0; i < 1000; i++) {
		if (i % 10 != 3)
			seqacct_add(s, i);
	}
	assert_counts(s, 900, 900, 0, 0, 0);
	assert_int_equal(seqacct_lost(s, 1000), 100);
	/* Tail loss: only the sender's count reveals it. */
	assert_int_equal(seqacct_lost(s, 1010), 110);
	free(s);
}

static void test_seqacct__duplicates(void **state)
{
	struct seqacct *s = acct();
	uint64_t i;

	(void)state;
	for (i = 0; i < 1000; i++) {
		assert_int_equal(seqacct_add(s, i), SEQACCT_NEW);
		assert_int_equal(seqacct_add(s, i), SEQACCT_DUPLICATE);
	}
	assert_int_equal(seqacct_add(s, 500), SEQACCT_DUPLICATE);
	assert_counts(s, 2001, 1000, 1001, 0, 0);
	assert_int_equal(seqacct_lost(s, 1000), 0);
	free(s);
}

static void test_seqacct__reorder_is_lower_than_highest_first_copy(void **state)
{
	struct seqacct *s = acct();
	uint64_t i;

	(void)state;
	/* 1 0 3 2 5 4 ...: every even one arrives after a higher one. */
	for (i = 0; i < 1000; i += 2) {
		assert_int_equal(seqacct_add(s, i + 1), SEQACCT_NEW);
		assert_int_equal(seqacct_add(s, i), SEQACCT_REORDERED);
	}
	assert_counts(s, 1000, 1000, 0, 500, 0);
	/* A second copy of a reordered one is a duplicate, not reordered again. */
	assert_int_equal(seqacct_add(s, 10), SEQACCT_DUPLICATE);
	assert_counts(s, 1001, 1000, 1, 500, 0);
	assert_int_equal(seqacct_lost(s, 1000), 0);
	free(s);
}

static void test_seqacct__gap_filled_later(void **state)
{
	struct seqacct *s = acct();

	(void)state;
	seqacct_add(s, 0);
	seqacct_add(s, 5); /* 1..4 skipped */
	assert_int_equal(seqacct_add(s, 3), SEQACCT_REORDERED);
	assert_int_equal(seqacct_add(s, 3), SEQACCT_DUPLICATE);
	assert_int_equal(seqacct_add(s, 5), SEQACCT_DUPLICATE);
	assert_counts(s, 5, 3, 2, 1, 0);
	assert_int_equal(seqacct_lost(s, 6), 3);
	free(s);
}

static void test_seqacct__window_wraps(void **state)
{
	struct seqacct *s = acct();
	uint64_t i, top = 3 * SEQACCT_WINDOW + 123;

	(void)state;
	/* Several times around the bitmap, with two holes. */
	for (i = 0; i <= top; i++) {
		if (i != 7 && i != top - SEQACCT_WINDOW + 1)
			seqacct_add(s, i);
	}
	assert_counts(s, top - 1, top - 1, 0, 0, 0);
	/* Slots reused by the wrap must not say "seen" for old numbers' slots. */
	assert_int_equal(seqacct_add(s, top - SEQACCT_WINDOW + 1), SEQACCT_REORDERED);
	/* The oldest number inside the window, already seen: a duplicate. */
	assert_int_equal(seqacct_add(s, top - SEQACCT_WINDOW + 2), SEQACCT_DUPLICATE);
	/* Just outside the window: late, whether or not it was seen. */
	assert_int_equal(seqacct_add(s, top - SEQACCT_WINDOW), SEQACCT_LATE);
	assert_int_equal(seqacct_add(s, 7), SEQACCT_LATE);
	assert_counts(s, top + 3, top + 2, 1, 3, 2);
	free(s);
}

static void test_seqacct__jump_beyond_window(void **state)
{
	struct seqacct *s = acct();
	uint64_t far = 10 * SEQACCT_WINDOW;

	(void)state;
	seqacct_add(s, 0);
	seqacct_add(s, 1);
	assert_int_equal(seqacct_add(s, far), SEQACCT_NEW);
	/* The slots of 0 and 1 were cleared: far - 1 is new to the window. */
	assert_int_equal(seqacct_add(s, far - SEQACCT_WINDOW + 1), SEQACCT_REORDERED);
	assert_int_equal(seqacct_add(s, far - 1), SEQACCT_REORDERED);
	assert_int_equal(seqacct_add(s, far), SEQACCT_DUPLICATE);
	assert_int_equal(seqacct_add(s, 1), SEQACCT_LATE);
	assert_counts(s, 7, 6, 1, 3, 1);
	free(s);
}

static void test_seqacct__first_arrival_need_not_be_zero(void **state)
{
	struct seqacct *s = acct();

	(void)state;
	assert_int_equal(seqacct_add(s, 10), SEQACCT_NEW);
	assert_int_equal(seqacct_add(s, 9), SEQACCT_REORDERED);
	assert_int_equal(seqacct_lost(s, 11), 9);
	/* More unique than sent (a wrong count): no wrap-around to 2^64. */
	assert_int_equal(seqacct_lost(s, 1), 0);
	free(s);
}

static void test_seqacct__memory_is_fixed(void **state)
{
	(void)state;
	/* One bit per sequence number of the window, plus a few counters. */
	assert_true(sizeof(struct seqacct) <= SEQACCT_WINDOW / 8 + 128);
	assert_true(SEQACCT_WINDOW >= 65536);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seqacct__in_order),
		cmocka_unit_test(test_seqacct__loss),
		cmocka_unit_test(test_seqacct__duplicates),
		cmocka_unit_test(test_seqacct__reorder_is_lower_than_highest_first_copy),
		cmocka_unit_test(test_seqacct__gap_filled_later),
		cmocka_unit_test(test_seqacct__window_wraps),
		cmocka_unit_test(test_seqacct__jump_beyond_window),
		cmocka_unit_test(test_seqacct__first_arrival_need_not_be_zero),
		cmocka_unit_test(test_seqacct__memory_is_fixed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
