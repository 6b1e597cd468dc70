/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Log-linear (HDR-style) histogram of u64 values, used for latencies in ns.
 *
 * Values below 2 * HIST_SUB_COUNT (256) have a bucket each (exact). Above
 * that, every power of two [2^e, 2^(e+1)) is split into HIST_SUB_COUNT (128)
 * equal buckets of width 2^(e-7). A bucket's lower bound is >= 2^e, so its
 * width is at most 1/128 of any value in it, and the value reported for a
 * bucket (its midpoint) is within 1/256 (0.39%) of every value recorded into
 * it: |reported - true| <= true / 256. Percentiles are further clamped to the
 * exact min and max. Memory is fixed (HIST_BUCKETS u64 counters, ~58 KiB),
 * hist_record() is O(1) and never allocates, a percentile walks the buckets.
 */
#ifndef TRAFFIC_HIST_H
#define TRAFFIC_HIST_H

#include <stdint.h>

#define HIST_SUB_BITS 7
#define HIST_SUB_COUNT (1u << HIST_SUB_BITS)
#define HIST_BUCKETS ((64 - HIST_SUB_BITS + 1) * HIST_SUB_COUNT)
/* Bound on |reported - true| / true for any percentile: 1/256. */
#define HIST_REL_ERROR_DIV (2 * HIST_SUB_COUNT)

struct hist {
	uint64_t count;
	uint64_t min;
	uint64_t max;
	unsigned __int128 sum;
	uint64_t buckets[HIST_BUCKETS];
};

void hist_init(struct hist *h);
struct hist *hist_new(void);
void hist_free(struct hist *h);

void hist_record(struct hist *h, uint64_t v);
uint64_t hist_percentile(const struct hist *h, double p);
double hist_mean(const struct hist *h);

/* What a report says of a distribution; all zero for no values. */
struct hist_summary {
	uint64_t count;
	uint64_t min, p50, p90, p99, max;
	double mean;
};

/* @h may be NULL (no values). */
void hist_summarize(const struct hist *h, struct hist_summary *s);

unsigned int hist_index(uint64_t v);
uint64_t hist_bucket_lo(unsigned int idx);
uint64_t hist_bucket_width(unsigned int idx);
uint64_t hist_bucket_value(unsigned int idx);

#endif /* TRAFFIC_HIST_H */
