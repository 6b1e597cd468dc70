/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Datagram sizes drawn from a range, reproducibly.
 *
 * The size of datagram number seq is a pure function of (seed, seq, min, max):
 * a run repeats with the same seed, and the size of any datagram can be
 * recomputed from the sequence number in its header (by whoever reads a
 * capture, say). A datagram that failed to send and is sent again keeps its
 * size, since it keeps its sequence number.
 *
 * The generator is SplitMix64 (Steele, Lea, Flood 2014; the generator that
 * seeds xoshiro): output n (from 0) of seed s is
 * tsize_mix64(s + (n + 1) * TSIZE_GAMMA). Every seed, 0 included, is fine.
 * The 64-bit output is scaled to the range by a multiply and shift (Lemire),
 * which favours no size by more than (max - min + 1) / 2^64, and needs no
 * rejection loop that would make one size depend on the draws before it.
 */
#ifndef TRAFFIC_TSIZE_H
#define TRAFFIC_TSIZE_H

#include <stdint.h>

#define TSIZE_GAMMA 0x9e3779b97f4a7c15ull

uint64_t tsize_mix64(uint64_t x);
uint32_t tsize_draw(uint64_t seed, uint64_t seq, uint32_t min, uint32_t max);

#endif /* TRAFFIC_TSIZE_H */
