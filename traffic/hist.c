// SPDX-License-Identifier: GPL-2.0
/*
 * Log-linear histogram: see hist.h for the layout and the error bound.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"

/**
 * hist_init() - empty an embedded histogram
 * @h: the histogram
 */
void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

/**
 * hist_new() - allocate an empty histogram
 *
 * Return: the histogram, to be freed with hist_free(), or NULL (ENOMEM).
 */
struct hist *hist_new(void)
{
	struct hist *h = malloc(sizeof(*h));

	if (h)
		hist_init(h);
	return h;
}

void hist_free(struct hist *h)
{
	free(h);
}

/**
 * hist_index() - bucket of a value
 * @v: the value
 *
 * Return: an index below HIST_BUCKETS.
 */
unsigned int hist_index(uint64_t v)
{
	unsigned int e, shift;

	if (v < HIST_SUB_COUNT)
		return (unsigned int)v;
	e = 63 - __builtin_clzll(v);
	shift = e - HIST_SUB_BITS;
	return (shift + 1) * HIST_SUB_COUNT + (unsigned int)((v >> shift) - HIST_SUB_COUNT);
}

static unsigned int bucket_shift(unsigned int idx)
{
	return idx < HIST_SUB_COUNT ? 0 : idx / HIST_SUB_COUNT - 1;
}

/* Smallest value that falls into bucket @idx. */
uint64_t hist_bucket_lo(unsigned int idx)
{
	if (idx < HIST_SUB_COUNT)
		return idx;
	return (uint64_t)(idx % HIST_SUB_COUNT + HIST_SUB_COUNT) << bucket_shift(idx);
}

/* Number of distinct values that fall into bucket @idx. */
uint64_t hist_bucket_width(unsigned int idx)
{
	return 1ull << bucket_shift(idx);
}

/* The value reported for bucket @idx: the midpoint of its range. */
uint64_t hist_bucket_value(unsigned int idx)
{
	return hist_bucket_lo(idx) + (hist_bucket_width(idx) - 1) / 2;
}

/**
 * hist_record() - count one value; O(1), never allocates
 * @h: the histogram
 * @v: the value
 */
void hist_record(struct hist *h, uint64_t v)
{
	h->buckets[hist_index(v)]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

/**
 * hist_percentile() - nearest-rank percentile
 * @h: the histogram
 * @p: percentile in [0, 100], resolution 0.001
 *
 * The result is the bucket value of the smallest recorded value v such that
 * at least @p percent of the values are <= v, clamped to [min, max]: within
 * 1/256 of that recorded value. p = 0 gives min, p = 100 gives max exactly.
 *
 * Return: the percentile, or 0 when the histogram is empty.
 */
uint64_t hist_percentile(const struct hist *h, double p)
{
	uint64_t milli, rank, seen = 0, v;
	unsigned int i;

	if (!h->count)
		return 0;
	if (p <= 0)
		return h->min;
	if (p >= 100)
		return h->max;
	milli = (uint64_t)llround(p * 1000);
	rank = (uint64_t)(((unsigned __int128)h->count * milli + 99999) / 100000);
	for (i = 0; i < HIST_BUCKETS; i++) {
		seen += h->buckets[i];
		if (seen >= rank)
			break;
	}
	v = hist_bucket_value(i < HIST_BUCKETS ? i : HIST_BUCKETS - 1);
	if (v < h->min)
		return h->min;
	return v > h->max ? h->max : v;
}

/* Exact arithmetic mean, 0 when empty. */
double hist_mean(const struct hist *h)
{
	if (!h->count)
		return 0;
	return (double)(h->sum / h->count) + (double)(h->sum % h->count) / (double)h->count;
}

void hist_summarize(const struct hist *h, struct hist_summary *s)
{
	memset(s, 0, sizeof(*s));
	if (!h || !h->count)
		return;
	s->count = h->count;
	s->min = h->min;
	s->max = h->max;
	s->p50 = hist_percentile(h, 50);
	s->p90 = hist_percentile(h, 90);
	s->p99 = hist_percentile(h, 99);
	s->mean = hist_mean(h);
}
