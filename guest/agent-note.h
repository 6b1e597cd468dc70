/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Notes: the command's script (netlab's generated scenario script) reports
 * what it measured about itself (an [exec] command's exit status, trace-cmd's,
 * the traffic tools') on a pipe the agent gives it as NETLAB_NOTE_FD, which
 * the user's own commands do not inherit. The agent forwards each well-formed
 * line as a "note KEY VALUE" status line (guest/netlab-proto.h): a file in
 * /netlab/out can be written by any guest process, this channel cannot by
 * accident.
 */
#ifndef NETLAB_AGENT_NOTE_H
#define NETLAB_AGENT_NOTE_H

#include <stdbool.h>
#include <stddef.h>

#define NOTE_KEY_MAX 64
#define NOTE_VALUE_MAX 200
#define NOTE_MAX_LINES 64	/* more are dropped: notes are a handful of numbers */

struct note_reader {
	char buf[NOTE_KEY_MAX + NOTE_VALUE_MAX + 4];
	size_t len;
	bool overlong;		/* inside a line too long (or with a NUL): skip to its end */
	unsigned int lines;	/* forwarded */
	unsigned int bad;	/* malformed or over NOTE_MAX_LINES, dropped */
};

/*
 * note_valid() - is @line ("KEY VALUE", no newline) a note? KEY: 1..64 of
 * [a-z0-9._-]; VALUE: 1..200 printable ASCII characters (spaces included).
 */
bool note_valid(const char *line);

/*
 * note_feed() - add @n bytes read from the note pipe; call @emit for each
 * complete, valid line (without its newline), at most NOTE_MAX_LINES times.
 */
void note_feed(struct note_reader *r, const char *data, size_t n,
	       void (*emit)(const char *line, void *arg), void *arg);

#endif
