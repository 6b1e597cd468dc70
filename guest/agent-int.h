/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netlab guest agent: what agent.c (boot, ports, the command, output) and
 * agent-net.c (network namespaces, sysctls, the topology) share.
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

/* agent.c */
void agent_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void agent_status(const struct agent *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
long long agent_now_ms(void);
void agent_sleep_ms(long ms);
int agent_read_small(const char *path, char *buf, size_t size);
int agent_run_captured(const char *path, const char *const *argv, char *out, size_t size);

/* agent-net.c */
int agent_topology_up(const struct agent *a);

#endif
