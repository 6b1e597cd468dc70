/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CLOCK_MONOTONIC in ns: the clock of every timestamp and deadline in the
 * traffic tools. Shared by all processes of one (virtual) machine, whatever
 * their network namespace, so sender and receiver in one VM can compare.
 */
#ifndef TRAFFIC_TCLOCK_H
#define TRAFFIC_TCLOCK_H

#include <errno.h>
#include <stdint.h>
#include <time.h>

#define TCLOCK_MS 1000000ull
#define TCLOCK_S 1000000000ull

static inline uint64_t tclock_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * TCLOCK_S + (uint64_t)ts.tv_nsec;
}

/* Sleep until CLOCK_MONOTONIC reaches @t; 0, or -EINTR if a signal came. */
static inline int tclock_sleep_until(uint64_t t)
{
	struct timespec ts = {
		.tv_sec = (time_t)(t / TCLOCK_S),
		.tv_nsec = (long)(t % TCLOCK_S),
	};

	return -clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static inline double tclock_seconds(uint64_t ns)
{
	return (double)ns / (double)TCLOCK_S;
}

#endif /* TRAFFIC_TCLOCK_H */
