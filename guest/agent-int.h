/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netlab guest agent: what agent.c (boot, ports, the command, output),
 * agent-net.c (network namespaces, sysctls, the topology) and agent-util.c
 * (the console, the status port, the clock) share. agent.c calls
 * agent-net.c, both call agent-util.c: no file calls back up.
 */
#ifndef NETLAB_AGENT_INT_H
#define NETLAB_AGENT_INT_H

#include <stddef.h>

#include "agent-job.h"

#define ERRLEN 512

/* Everything the agent holds; ports are -1 when absent. */
struct agent {
	int status_fd;
	int stdout_fd;
	int stderr_fd;
	int files_fd;
	int root_netns;		/* fd of the initial network namespace */
	struct job job;
};

/* agent-util.c: below agent.c and agent-net.c, calling neither */
void agent_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A NETLAB_MARK_* line on the console, as it is (no prefix). */
void agent_mark(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* @n bytes of @buf to the console, best effort. */
void agent_console(const char *buf, size_t n);
void agent_status(const struct agent *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
long long agent_now_ms(void);
void agent_sleep_ms(long ms);
int agent_read_small(const char *path, char *buf, size_t size);

/* agent.c */
int agent_run_captured(const char *path, const char *const *argv, char *out, size_t size);

/* agent-net.c */
int agent_topology_up(const struct agent *a);

#endif
