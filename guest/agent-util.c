// SPDX-License-Identifier: GPL-2.0
/*
 * netlab guest agent: what agent.c (boot, ports, the command, output) and
 * agent-net.c (the topology) both use -- the console, the status port, the
 * clock, small files. It calls neither of them.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent-int.h"
#include "netlab-proto.h"

/* Best effort: a console that fails has no one to complain to. */
void agent_console(const char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(STDERR_FILENO, buf, n);

		if (w <= 0)
			return;
		buf += w;
		n -= w;
	}
}

/* Format one line into @buf, newline added, truncated to fit; return its length. */
static int vline(char *buf, size_t size, const char *fmt, va_list ap)
{
	int n = vsnprintf(buf, size - 1, fmt, ap);

	n = n < 0 ? 0 : n > (int)size - 2 ? (int)size - 2 : n;
	buf[n++] = '\n';
	return n;
}

/* A message on the console: "netlab-agent: <text>". */
void agent_say(const char *fmt, ...)
{
	static const char prefix[] = "netlab-agent: ";
	char buf[1024];
	va_list ap;
	int n;

	memcpy(buf, prefix, sizeof(prefix) - 1);
	va_start(ap, fmt);
	n = vline(buf + sizeof(prefix) - 1, sizeof(buf) - sizeof(prefix) + 1, fmt, ap);
	va_end(ap);
	agent_console(buf, sizeof(prefix) - 1 + n);
}

/* A NETLAB_MARK_* line on the console (the markers carry their own prefix). */
void agent_mark(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vline(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	agent_console(buf, n);
}

/* One line on the status port (if any), echoed on the console. */
void agent_status(const struct agent *a, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vline(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	agent_say("status: %.*s", n - 1, buf);
	if (a->status_fd >= 0 && write(a->status_fd, buf, n) != n)
		agent_say("cannot write to port '%s': %s", NETLAB_PORT_STATUS, strerror(errno));
}

long long agent_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

void agent_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Read a small file into @buf, trailing newline stripped. Return length or -errno. */
int agent_read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return n;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		n--;
	buf[n] = '\0';
	return n;
}
