/* SPDX-License-Identifier: GPL-2.0 */
/*
 * UDP counters of the calling process's network namespace, from
 * /proc/net/snmp (Udp:) plus /proc/net/snmp6 (Udp6*) when IPv6 is there.
 * IPv4 datagrams count under Udp even when a dual-stack IPv6 socket gets
 * them, so the sum covers both.
 */
#ifndef TRAFFIC_NETSTAT_H
#define TRAFFIC_NETSTAT_H

#include <stdint.h>

struct netstat_udp {
	uint64_t rcvbuf_errors; /* RcvbufErrors: dropped, socket receive buffer full */
	uint64_t in_errors; /* InErrors: every receive drop, rcvbuf ones included */
};

int netstat_udp_read(struct netstat_udp *s);
int netstat_parse_snmp(const char *text, const char *proto, const char *name, uint64_t *v);
int netstat_parse_snmp6(const char *text, const char *name, uint64_t *v);

#endif /* TRAFFIC_NETSTAT_H */
