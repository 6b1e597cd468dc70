/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One streaming pass over a trace.dat for several analyses (tracedrops,
 * pktpath, netrx, drvring): the file is opened once, each analysis that is
 * wanted attaches (it resolves its events on tp->tf and adds a slot with its
 * per-record callback), the records are read once and handed to every slot
 * in the order attached, then each analysis finishes with what the pass left
 * in its slot.
 *
 * A caller handles the results in the order it attached them and stops at
 * the first error, as separate passes one after the other did. So when a
 * slot's callback fails, that slot and every slot attached after it leave
 * the pass there (those after it get -ECANCELED); the slots before it go on.
 * When the library fails mid-file, every slot still in the pass gets its
 * error. An analysis alone in a pass sees exactly what tracefile_iterate()
 * gave it.
 */
#ifndef NETLAB_TRACEPASS_H
#define NETLAB_TRACEPASS_H

#include <stdbool.h>

#include "trace/tracefile.h"

#define TRACEPASS_MAX 6

struct tracepass_slot {
	tracefile_cb cb;
	void *ctx;
	/* After the pass: 0, the callback's nonzero return, -ECANCELED, or -EINVAL. */
	int rc;
	char *err;	/* with the library's -EINVAL: its message, the slot's to take */
	bool out;	/* left the pass */
};

struct tracepass {
	const char *path;
	struct tracefile tf;
	bool open;
	struct tracepass_slot *slot[TRACEPASS_MAX];
	int n, live;
};

void tracepass_init(struct tracepass *tp, const char *path);

/*
 * For an analysis attaching: the first call opens the file, tracefile_open()
 * with the analysis's @hint (so a damaged file gets the message the first
 * analysis alone would have given); later calls return 0.
 */
int tracepass_open(struct tracepass *tp, const char *hint, char **err);

/* Attach @s (its cb and ctx set) for the next pass; at most TRACEPASS_MAX. */
void tracepass_add(struct tracepass *tp, struct tracepass_slot *s);

/*
 * Read every record once (nothing when no slot is attached). With
 * NETLAB_DEBUG_DECODES=FILE in the environment, each pass appends the line
 * "decode PID PATH" to FILE: tests count the decodes of a run with it.
 */
void tracepass_run(struct tracepass *tp);

/* Close the file; each analysis has taken its slot's result (or freed it). */
void tracepass_close(struct tracepass *tp);

/* The slot's result: its rc, moving its error (if any) into @err (freed). */
int tracepass_result(struct tracepass_slot *s, char **err);

#endif /* NETLAB_TRACEPASS_H */
