// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of traffic/hist.c: percentiles within the documented relative
 * error (1/256) on known distributions, exact min/max/mean, fixed memory.
 * Link with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc (allocation count).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "hist.h"

static unsigned long allocations;

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);

void *__wrap_malloc(size_t n)
{
	allocations++;
	return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t m)
{
	allocations++;
	return __real_calloc(n, m);
}

void *__wrap_realloc(void *p, size_t n)
{
	allocations++;
	return __real_realloc(p, n);
}

/* The bound hist.h promises, written out: a change to it must show here. */
#define DOCUMENTED_REL_ERROR_DIV 256

/* |got - want| <= want / 256. */
static void assert_within_bound(uint64_t got, uint64_t want)
{
	uint64_t diff = got > want ? got - want : want - got;

	if ((unsigned __int128)diff * DOCUMENTED_REL_ERROR_DIV > want)
		fail_msg("got %llu, want %llu (+-1/%d)", (unsigned long long)got,
			 (unsigned long long)want, DOCUMENTED_REL_ERROR_DIV);
}

static void test_hist__single_value_is_exact(void **state)
{
	struct hist *h = hist_new();
	int i;

	(void)state;
	for (i = 0; i < 1000; i++)
		hist_record(h, 123456789);
	assert_int_equal(h->count, 1000);
	assert_int_equal(hist_percentile(h, 50), 123456789);
	assert_int_equal(hist_percentile(h, 99.9), 123456789);
	assert_int_equal(hist_percentile(h, 0), 123456789);
	assert_int_equal(hist_percentile(h, 100), 123456789);
	assert_true(hist_mean(h) == 123456789.0);
	hist_free(h);
}

static void test_hist__uniform_percentiles_within_bound(void **state)
{
	struct hist *h = hist_new();
	uint64_t v;

	(void)state;
	for (v = 1; v <= 1000000; v++)
		hist_record(h, v);
	/* Nearest rank: the p-th percentile of 1..N is ceil(p/100 * N). */
	assert_within_bound(hist_percentile(h, 50), 500000);
	assert_within_bound(hist_percentile(h, 90), 900000);
	assert_within_bound(hist_percentile(h, 99), 990000);
	assert_within_bound(hist_percentile(h, 99.9), 999000);
	assert_within_bound(hist_percentile(h, 12.5), 125000);
	assert_int_equal(h->min, 1);
	assert_int_equal(h->max, 1000000);
	assert_int_equal(hist_percentile(h, 100), 1000000);
	assert_true(hist_mean(h) == 500000.5);
	hist_free(h);
}

static void test_hist__small_values_are_exact(void **state)
{
	struct hist *h = hist_new();
	uint64_t v;

	(void)state;
	for (v = 0; v < 200; v++)
		hist_record(h, v);
	assert_int_equal(hist_percentile(h, 50), 99);
	assert_int_equal(hist_percentile(h, 90), 179);
	assert_int_equal(hist_percentile(h, 0.5), 0);
	hist_free(h);
}

static void test_hist__two_point_distribution(void **state)
{
	struct hist *h = hist_new();
	int i;

	(void)state;
	for (i = 0; i < 900; i++)
		hist_record(h, 100000); /* 100 us */
	for (i = 0; i < 100; i++)
		hist_record(h, 10000000); /* 10 ms */
	assert_within_bound(hist_percentile(h, 50), 100000);
	assert_within_bound(hist_percentile(h, 90), 100000);
	assert_within_bound(hist_percentile(h, 90.1), 10000000);
	assert_within_bound(hist_percentile(h, 99), 10000000);
	assert_within_bound(hist_percentile(h, 99.9), 10000000);
	assert_within_bound(hist_percentile(h, 1), 100000);
	assert_true(hist_mean(h) == 1090000.0);
	hist_free(h);
}

static void test_hist__huge_values(void **state)
{
	struct hist *h = hist_new();

	(void)state;
	hist_record(h, UINT64_MAX);
	hist_record(h, UINT64_MAX - 1);
	hist_record(h, 1ull << 63);
	hist_record(h, (1ull << 40) + 12345);
	assert_int_equal(h->max, UINT64_MAX);
	assert_int_equal(hist_percentile(h, 100), UINT64_MAX);
	assert_within_bound(hist_percentile(h, 25), (1ull << 40) + 12345);
	assert_within_bound(hist_percentile(h, 50), 1ull << 63);
	assert_within_bound(hist_percentile(h, 75), UINT64_MAX - 1);
	/* The sum overflows u64: the mean must not. */
	assert_true(hist_mean(h) > 1e19 && hist_mean(h) < 1.5e19);
	hist_free(h);
}

static void check_value(uint64_t v, unsigned int *last_idx)
{
	unsigned int idx = hist_index(v);
	uint64_t lo = hist_bucket_lo(idx), rep = hist_bucket_value(idx);

	assert_true(idx < HIST_BUCKETS);
	assert_true(idx >= *last_idx);
	assert_true(lo <= v && v - lo < hist_bucket_width(idx));
	assert_within_bound(rep, v);
	*last_idx = idx;
}

static void test_hist__every_bucket_within_bound(void **state)
{
	unsigned int e, j, last = 0;
	uint64_t base, step;

	(void)state;
	for (base = 0; base < 1024; base++)
		check_value(base, &last);
	/* 4096 increasing values per power of two, off the bucket edges too. */
	for (e = 10; e < 64; e++) {
		base = 1ull << e;
		step = base >> 12;
		for (j = 0; j < 4096; j++)
			check_value(base + step * j + (step > 7 ? j % 7 : 0), &last);
	}
	check_value(UINT64_MAX, &last);
	assert_int_equal(hist_index(UINT64_MAX), HIST_BUCKETS - 1);
}

static void test_hist__record_never_allocates(void **state)
{
	struct hist *h = hist_new();
	unsigned long before = allocations;
	uint64_t i;

	(void)state;
	for (i = 0; i < 2000000; i++)
		hist_record(h, i * 7919 + (i << 20));
	hist_percentile(h, 99.9);
	assert_int_equal(allocations, before);
	assert_true(sizeof(struct hist) <= HIST_BUCKETS * sizeof(uint64_t) + 64);
	hist_free(h);
}

static void test_hist__empty(void **state)
{
	struct hist h;

	(void)state;
	hist_init(&h);
	assert_int_equal(hist_percentile(&h, 50), 0);
	assert_true(hist_mean(&h) == 0);
	assert_int_equal(h.count, 0);
}

static void test_hist__summary(void **state)
{
	struct hist *h = hist_new();
	struct hist_summary s;

	(void)state;
	hist_summarize(NULL, &s);
	assert_int_equal(s.count, 0);
	assert_int_equal(s.max, 0);
	hist_summarize(h, &s);
	assert_int_equal(s.count, 0);
	for (uint64_t v = 1; v <= 100; v++)
		hist_record(h, v);
	hist_summarize(h, &s);
	assert_int_equal(s.count, 100);
	assert_int_equal(s.min, 1);
	assert_int_equal(s.max, 100);
	assert_int_equal(s.p50, hist_percentile(h, 50));
	assert_int_equal(s.p90, 90);
	assert_int_equal(s.p99, 99);
	assert_true(s.mean > 50.49 && s.mean < 50.51);
	hist_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist__single_value_is_exact),
		cmocka_unit_test(test_hist__uniform_percentiles_within_bound),
		cmocka_unit_test(test_hist__small_values_are_exact),
		cmocka_unit_test(test_hist__two_point_distribution),
		cmocka_unit_test(test_hist__huge_values),
		cmocka_unit_test(test_hist__every_bucket_within_bound),
		cmocka_unit_test(test_hist__record_never_allocates),
		cmocka_unit_test(test_hist__empty),
		cmocka_unit_test(test_hist__summary),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
