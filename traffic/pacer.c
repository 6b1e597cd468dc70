// SPDX-License-Identifier: GPL-2.0
/*
 * Rates and the absolute-schedule pacer: see pacer.h.
 */
#include <math.h>

#include "pacer.h"

/**
 * pacer_pps() - packets per second of a rate
 * @r: the rate
 * @size_bytes: payload bytes per packet, the mean if they vary (for bits/s)
 *
 * Return: packets/s, 0 for PACER_NONE.
 */
double pacer_pps(const struct pacer_rate *r, double size_bytes)
{
	switch (r->unit) {
	case PACER_PPS:
		return r->value;
	case PACER_BPS:
		return r->value / (8.0 * size_bytes);
	default:
		return 0;
	}
}

/**
 * pacer_period_ns() - time between bursts that yields a rate
 * @r: the rate
 * @size_bytes: payload bytes per packet, the mean if they vary
 * @burst: packets per burst
 *
 * Return: the period in ns, 0 for PACER_NONE (no pacing).
 */
double pacer_period_ns(const struct pacer_rate *r, double size_bytes, uint64_t burst)
{
	double pps = pacer_pps(r, size_bytes);

	return pps > 0 ? 1e9 * (double)burst / pps : 0;
}

void pacer_init(struct pacer *p, uint64_t start_ns, double period_ns)
{
	p->start_ns = start_ns;
	p->period_ns = period_ns;
	p->k = 0;
}

/* When the current burst is due, in CLOCK_MONOTONIC ns. */
uint64_t pacer_deadline(const struct pacer *p)
{
	return p->start_ns + (uint64_t)llround((double)p->k * p->period_ns);
}

void pacer_advance(struct pacer *p)
{
	p->k++;
}
