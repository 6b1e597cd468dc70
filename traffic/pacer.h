/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rates and pacing on an absolute schedule.
 *
 * A rate is packets/s or bits/s. Syntax (topt_parse_rate()):
 *   NUMBER [PREFIX] [UNIT]   NUMBER = digits with an optional fraction,
 *   PREFIX = k/K (1e3), m/M (1e6), g/G (1e9), UNIT = "pps" or "bps".
 * A number with a unit is what the unit says. Without a unit, a number with
 * an SI prefix is bits/s (100M, 1G, 1500k, as iperf3 -b); a bare number is
 * what the caller asks (--rate: packets/s, --bitrate: bits/s). Bits count UDP
 * payload bytes, as iperf3 does; packets of varying size are paced by their
 * mean size.
 *
 * The pacer sends bursts: burst k is due at start + k * period, computed from
 * k each time (never by adding up periods), so rounding never accumulates and
 * a late burst does not shift the ones after it: the sender catches up.
 */
#ifndef TRAFFIC_PACER_H
#define TRAFFIC_PACER_H

#include <stdint.h>

enum pacer_unit {
	PACER_NONE, /* no rate: as fast as possible */
	PACER_PPS,
	PACER_BPS,
};

struct pacer_rate {
	enum pacer_unit unit;
	double value;
};

/* Largest rate accepted, per unit: 1e9 pps, 1e12 bits/s. */
#define PACER_MAX_PPS 1e9
#define PACER_MAX_BPS 1e12

double pacer_period_ns(const struct pacer_rate *r, double size_bytes, uint64_t burst);
double pacer_pps(const struct pacer_rate *r, double size_bytes);

struct pacer {
	uint64_t start_ns;
	double period_ns;
	uint64_t k;
};

void pacer_init(struct pacer *p, uint64_t start_ns, double period_ns);
uint64_t pacer_deadline(const struct pacer *p);
void pacer_advance(struct pacer *p);

#endif /* TRAFFIC_PACER_H */
