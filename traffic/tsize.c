// SPDX-License-Identifier: GPL-2.0
/*
 * Reproducible datagram sizes: see tsize.h.
 */
#include "tsize.h"

/**
 * tsize_mix64() - SplitMix64's output function
 * @x: the generator's state after its increment
 *
 * Return: a 64-bit value that looks random even for consecutive @x.
 */
uint64_t tsize_mix64(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* floor(r * span / 2^64) for span <= 2^32, in 64-bit arithmetic. */
static uint64_t scale(uint64_t r, uint64_t span)
{
	uint64_t hi = (r >> 32) * span, lo = (r & 0xffffffffull) * span;

	return (hi + (lo >> 32)) >> 32;
}

/**
 * tsize_draw() - the size of one datagram
 * @seed: the run's seed (--seed)
 * @seq: the datagram's sequence number
 * @min: the smallest size (--size)
 * @max: the largest size (--size-max), inclusive
 *
 * Return: a size in [@min, @max], uniform over the range; @min if @max <= @min.
 */
uint32_t tsize_draw(uint64_t seed, uint64_t seq, uint32_t min, uint32_t max)
{
	uint64_t span = (uint64_t)max - min + 1;

	if (max <= min)
		return min;
	return min + (uint32_t)scale(tsize_mix64(seed + (seq + 1) * TSIZE_GAMMA), span);
}
