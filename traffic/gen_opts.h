/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The traffic tools' options structs, filled by topt_parse() from their
 * tables in generators.c (which the harness links too, see generators.h).
 */
#ifndef TRAFFIC_GEN_OPTS_H
#define TRAFFIC_GEN_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "pacer.h"
#include "tclock.h"
#include "tsock.h"
#include "ttool.h"

/* The tools' --port defaults. */
#define UDPS_DEFAULT_PORT 5201
#define TCPS_DEFAULT_PORT 5201
#define RR_DEFAULT_PORT 5202

#define UDPS_MAX_SIZE 65507
#define UDPS_MAX_FLOWS 256
#define UDPS_MAX_SOCKETS 64
#define UDPS_MAX_PROCS 16
#define TCPS_MAX_DURATION (86400 * TCLOCK_S)
#define TCPS_MAX_FLOWS 64
#define TCPS_MAX_LISTENERS 16
#define RR_UDP_MAX 65507
#define RR_TCP_MAX (64u << 20)
#define RR_MAX_FLOWS 64
#define RR_DEFAULT_BACKLOG 128

enum rr_proto { RR_TCP, RR_UDP };

/* rr --proto's choices, indexed by enum rr_proto. */
extern const char *const rr_protos[];

struct udps_opts {
	struct ttool_common common;
	bool send;
	bool recv;
	const char *dst;
	const char *bind;
	uint64_t port;
	struct pacer_rate rate;
	uint64_t size;
	uint64_t size_max; /* 0: every datagram is --size bytes */
	uint64_t seed;
	uint64_t burst;
	uint64_t burst_gap_ns;
	uint64_t duration_ns;
	uint64_t count;
	uint64_t flow_id;
	uint64_t rcvbuf;
	uint64_t read_delay_ns;
	uint64_t idle_timeout_ns;
	uint64_t flows; /* send: sockets, one flow each; recv: flows accounted */
	uint64_t sockets; /* recv: sockets on --port */
	uint64_t sport; /* flow i's source port is sport + i; 0: ephemeral */
	uint64_t procs; /* processes the flows (send) or sockets (recv) are split among */
	bool reuseport; /* recv: SO_REUSEPORT (implied by --sockets > 1) */
	bool connected; /* recv: socket i connect()ed to --peer, port sport + i */
	const char *peer; /* recv: the sender's address, for --connected */
	struct tsock_addr dst_addr; /* --dst and --port, set by check */
	struct tsock_addr peer_addr; /* --peer, set by check */
};

struct tcps_opts {
	struct ttool_common common;
	bool send;
	bool recv;
	bool bidir;
	const char *dst;
	const char *bind;
	const char *cc;
	uint64_t port;
	uint64_t duration_ns;
	uint64_t size;
	uint64_t idle_timeout_ns;
	uint64_t flows; /* connections at once (both ends) */
	uint64_t listeners; /* recv: sockets listening on --port (SO_REUSEPORT) */
	struct tsock_addr dst_addr; /* --dst and --port, set by check */
};

struct rr_opts {
	struct ttool_common common;
	bool server;
	bool client;
	int proto;
	const char *dst;
	const char *bind;
	uint64_t port;
	uint64_t req_size;
	uint64_t resp_size;
	uint64_t duration_ns;
	uint64_t count;
	uint64_t timeout_ns;
	uint64_t idle_timeout_ns;
	bool crr; /* client: a connection per transaction */
	uint64_t backlog; /* server: listen backlog; 0: RR_DEFAULT_BACKLOG */
	uint64_t flows; /* client: connections (or crr loops) at once */
	struct tsock_addr dst_addr; /* --dst and --port, set by check */
};

extern const struct topt udps_table[];
extern const struct topt tcps_table[];
extern const struct topt rr_table[];

#endif /* TRAFFIC_GEN_OPTS_H */
