// SPDX-License-Identifier: GPL-2.0
/*
 * The guest agent's status port, as the host reads it: one word a line
 * ("agent", "exec N", "exit N", "poweroff", "timeout"; guest/netlab-proto.h).
 * Both backends and the verdict (run/result.c) read it through these.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

#include "vm/backend.h"

int vm_status_exit(const char *status)
{
	const char *p = status;

	while (p && (p = strstr(p, "exit ")) != NULL) {
		if (p == status || p[-1] == '\n')
			return atoi(p + 5);
		p += 5;
	}
	return -1;
}

bool vm_status_has(const char *status, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = status; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, word, n) && (p[n] == '\n' || p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

char *vm_status_note(const char *status, const char *key)
{
	size_t n = strlen(key);

	for (const char *p = status; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, "note ", 5) && !strncmp(p + 5, key, n) && p[5 + n] == ' ')
			return xasprintf("%.*s", (int)strcspn(p + 6 + n, "\n"), p + 6 + n);
	return NULL;
}

int vm_status_note_int(const char *status, const char *key, long lo, long hi, long *out,
		       char **text)
{
	char *v = vm_status_note(status, key), *end;
	long x;

	if (!v)
		return -ENOENT;
	errno = 0;
	x = strtol(v, &end, 10);
	if (end == v || *end || errno || x < lo || x > hi) {
		*text = v;
		return -ERANGE;
	}
	free(v);
	*out = x;
	return 0;
}
