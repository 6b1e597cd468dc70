// SPDX-License-Identifier: GPL-2.0
/*
 * The guest agent's status port, as the host reads it: one word a line
 * ("agent", "exec N", "exit N", "poweroff", "timeout"; guest/netlab-proto.h).
 * Both backends and the verdict (run/result.c) read it through these.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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
