/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sequence accounting for one flow of u64 sequence numbers, bounded memory.
 *
 * A bitmap remembers which of the SEQACCT_WINDOW sequence numbers ending at
 * the highest one seen so far ("highest") have arrived. Each arrival of seq
 * is classified as exactly one of:
 *   new        seq > highest (or the first arrival): a first copy, in order.
 *              Skipped numbers in between are simply not (yet) seen.
 *   reordered  seq < highest, within the window, first copy: it arrived after
 *              a higher sequence number did.
 *   duplicate  seq within the window (seq == highest included) and already
 *              seen.
 *   late       seq <= highest - SEQACCT_WINDOW: too old to tell whether it is a
 *              duplicate. A late arrival is assumed to be a first copy (a
 *              duplicate that old is implausible, a delayed packet is not), so
 *              it also counts as unique and as reordered.
 * Counters: received = every arrival = unique + duplicated;
 * unique = new + reordered (late included). With the sender's count of
 * datagrams sent: lost = sent - unique (seqacct_lost()).
 */
#ifndef TRAFFIC_SEQACCT_H
#define TRAFFIC_SEQACCT_H

#include <stdbool.h>
#include <stdint.h>

#define SEQACCT_WINDOW 65536u

enum seqacct_class {
	SEQACCT_NEW,
	SEQACCT_REORDERED,
	SEQACCT_DUPLICATE,
	SEQACCT_LATE,
};

struct seqacct {
	bool any;
	uint64_t highest;
	uint64_t received;
	uint64_t unique;
	uint64_t duplicated;
	uint64_t reordered;
	uint64_t late;
	uint64_t bits[SEQACCT_WINDOW / 64];
};

void seqacct_init(struct seqacct *s);
enum seqacct_class seqacct_add(struct seqacct *s, uint64_t seq);
uint64_t seqacct_lost(const struct seqacct *s, uint64_t sent);

#endif /* TRAFFIC_SEQACCT_H */
