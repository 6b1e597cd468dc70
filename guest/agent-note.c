// SPDX-License-Identifier: GPL-2.0
/* The note pipe's lines, validated; see agent-note.h. No libc beyond string.h. */
#include <string.h>

#include "agent-note.h"

bool note_valid(const char *line)
{
	const char *sp = strchr(line, ' ');
	size_t k, v;

	if (!sp)
		return false;
	k = (size_t)(sp - line);
	v = strlen(sp + 1);
	if (!k || k > NOTE_KEY_MAX || !v || v > NOTE_VALUE_MAX)
		return false;
	for (size_t i = 0; i < k; i++) {
		char c = line[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		      c == '-'))
			return false;
	}
	for (const char *p = sp + 1; *p; p++)
		if (*p < 0x20 || *p > 0x7e)
			return false;
	return true;
}

static void line_end(struct note_reader *r, void (*emit)(const char *, void *), void *arg)
{
	r->buf[r->len] = '\0';
	if (r->overlong || !note_valid(r->buf) || r->lines >= NOTE_MAX_LINES) {
		r->bad++;
	} else {
		r->lines++;
		emit(r->buf, arg);
	}
	r->len = 0;
	r->overlong = false;
}

void note_feed(struct note_reader *r, const char *data, size_t n,
	       void (*emit)(const char *line, void *arg), void *arg)
{
	for (size_t i = 0; i < n; i++) {
		if (data[i] == '\n') {
			line_end(r, emit, arg);
		} else if (data[i] == '\0' || r->len + 1 >= sizeof(r->buf)) {
			r->overlong = true;
		} else if (!r->overlong) {
			r->buf[r->len++] = data[i];
		}
	}
}
