/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netlab guest agent: the job file parser (NETLAB_JOB_FILE, see netlab-proto.h).
 *
 * Pure: it reads a string and fills a struct; it does no I/O and never
 * exits, so it is unit-tested on the host (tests/unit/guest/test_agent_job.c).
 *
 * Syntax, one "key=value" per line:
 *   - trailing blanks and CR are stripped; blank lines are skipped;
 *   - a line whose first non-blank character is '#' is a comment ('#'
 *     elsewhere is part of the value);
 *   - the key is the text before the first '=', blanks around it trimmed;
 *     the value is everything after it, leading blanks trimmed; it may
 *     contain '=', '#' and spaces;
 *   - a line without '=' or with an empty key is malformed: reported
 *     through the warn callback, then skipped;
 *   - unknown keys are ignored; a repeated key replaces the earlier value.
 *
 * Known keys: version, topology, timeout, nic.<ID>.<field> (any number of
 * NICs, in order of first appearance; fields mac, model, netns, ifname, ipv4,
 * ipv6), sysctl.<dotted.name>, env.<NAME> and share.<TAG> (all in order of
 * first appearance; share's value is "ro PATH" or "rw PATH").
 */
#ifndef NETLAB_AGENT_JOB_H
#define NETLAB_AGENT_JOB_H

#include <stddef.h>

/* One NIC of the topology. Every string is NULL when its key is absent. */
struct job_nic {
	char *id;	/* "A" in nic.A.mac */
	char *mac;
	char *model;
	char *netns;	/* NULL or "" = root namespace */
	char *ifname;
	char *ipv4;
	char *ipv6;
};

/* A name=value pair: sysctl (name dotted, as in the key) or env variable. */
struct job_var {
	char *name;
	char *value;
};

struct job {
	int version;		/* 0 when absent */
	char *topology;		/* NULL when absent */
	unsigned int timeout;	/* seconds, 0 = none */
	unsigned int ack;	/* nonzero: wait for the host's ack at poweroff */
	struct job_nic *nics;
	size_t n_nics;
	struct job_var *sysctls;
	size_t n_sysctls;
	struct job_var *envs;
	size_t n_envs;
	struct job_var *shares;	/* name: the 9p mount tag; value: "ro|rw PATH" */
	size_t n_shares;
};

/* Called once per malformed line; @lineno counts from 1. */
typedef void (*job_warn_fn)(void *ctx, unsigned int lineno, const char *msg);

/**
 * job_parse() - parse the text of a job file into @job.
 * @job:  zeroed by job_parse(); release it with job_release() in all cases.
 * @text: NUL-terminated file contents.
 * @warn: receives malformed lines (may be NULL).
 * @ctx:  passed to @warn.
 *
 * Return: 0, or -ENOMEM. Malformed lines are not errors.
 */
int job_parse(struct job *job, const char *text, job_warn_fn warn, void *ctx);

/* job_release() - free everything job_parse() allocated; @job is zeroed. */
void job_release(struct job *job);

/**
 * job_sysctl_path() - /proc/sys path of a dotted sysctl name.
 * @name: "net.ipv4.ip_forward"; as in sysctl(8), '.' and '/' swap roles, so
 *        "net.ipv4.conf.eth0/100.rp_filter" names interface "eth0.100".
 * @buf, @size: output, e.g. "/proc/sys/net/ipv4/ip_forward".
 *
 * Return: 0, -EINVAL for a name with an empty or ".." component or other
 * characters than [A-Za-z0-9_.-/], -ENAMETOOLONG if @buf is too small.
 */
int job_sysctl_path(const char *name, char *buf, size_t size);

#endif /* NETLAB_AGENT_JOB_H */
