// SPDX-License-Identifier: GPL-2.0
/*
 * Sequence accounting with a sliding bitmap window: see seqacct.h.
 */
#include <string.h>

#include "seqacct.h"

#define SLOT(seq) ((seq) % SEQACCT_WINDOW)

static bool test_bit(const struct seqacct *s, uint64_t seq)
{
	return s->bits[SLOT(seq) / 64] & (1ull << (SLOT(seq) % 64));
}

static void set_bit(struct seqacct *s, uint64_t seq)
{
	s->bits[SLOT(seq) / 64] |= 1ull << (SLOT(seq) % 64);
}

static void clear_bit(struct seqacct *s, uint64_t seq)
{
	s->bits[SLOT(seq) / 64] &= ~(1ull << (SLOT(seq) % 64));
}

void seqacct_init(struct seqacct *s)
{
	memset(s, 0, sizeof(*s));
}

/* Move the window's top to @seq > highest: forget what the slots held. */
static void advance(struct seqacct *s, uint64_t seq)
{
	uint64_t x;

	if (!s->any || seq - s->highest > SEQACCT_WINDOW) {
		memset(s->bits, 0, sizeof(s->bits));
	} else {
		for (x = s->highest + 1; x < seq; x++)
			clear_bit(s, x);
	}
	set_bit(s, seq);
	s->highest = seq;
	s->any = true;
}

/**
 * seqacct_add() - account one arrival
 * @s: the accounting state
 * @seq: its sequence number
 *
 * Return: how the arrival was classified (see seqacct.h).
 */
enum seqacct_class seqacct_add(struct seqacct *s, uint64_t seq)
{
	s->received++;
	if (!s->any || seq > s->highest) {
		advance(s, seq);
		s->unique++;
		return SEQACCT_NEW;
	}
	if (s->highest - seq >= SEQACCT_WINDOW) {
		s->late++;
		s->reordered++;
		s->unique++;
		return SEQACCT_LATE;
	}
	if (test_bit(s, seq)) {
		s->duplicated++;
		return SEQACCT_DUPLICATE;
	}
	set_bit(s, seq);
	s->reordered++;
	s->unique++;
	return SEQACCT_REORDERED;
}

/**
 * seqacct_lost() - datagrams sent that never arrived
 * @s: the accounting state
 * @sent: how many the sender sent (sequence numbers 0 .. sent - 1)
 *
 * Return: sent - unique, or 0 if more unique ones arrived than were sent.
 */
uint64_t seqacct_lost(const struct seqacct *s, uint64_t sent)
{
	return sent > s->unique ? sent - s->unique : 0;
}
