/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcp-stream's insides, shared by its one-connection code (tcp_stream.c)
 * and its several-connections code (tcps_flows.c). Not used by other tools.
 */
#ifndef TRAFFIC_TCPS_H
#define TRAFFIC_TCPS_H

#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdint.h>

#include "gen_opts.h"
#include "tclock.h"

struct json_object;

#define TCPS_SAMPLE_NS (100 * TCLOCK_MS)
#define TCPS_TICK_NS (50 * TCLOCK_MS)
#define TCPS_RX_BUF (256 * 1024)

struct tcps_info {
	struct tcp_info last;
	uint64_t samples;
	uint32_t cwnd_min;
	uint32_t cwnd_max;
	uint32_t rtt_min;
	uint32_t rtt_max;
};

/* One direction of the connection, as seen from this end. */
struct tcps_dir {
	const struct tcps_opts *o;
	int fd;
	const char *peer;
	uint64_t duration_ns; /* tx: how long to write */
	uint64_t bytes;
	uint64_t start_ns;
	uint64_t end_ns;
	struct tcps_info info; /* tx only */
	int ret;
	char *err;
	/* How a failure of the path ended it (the result's "stall"): where, and what was unacked.
	 */
	const char *phase;
	int unacked;
};

void tcps_info_sample(int fd, struct tcps_info *s);
struct json_object *tcps_dir_json(const struct tcps_dir *d, bool is_tx);
uint16_t tcps_sock_port(int fd, bool peer);
struct json_object *tcps_tx_flow_json(unsigned int index, uint16_t sport, uint64_t bytes,
				      const struct tcps_info *s, int cpu);
struct json_object *tcps_rx_flow_json(unsigned int index, uint16_t sport, uint64_t bytes,
				      uint64_t span_ns, int cpu);
void tcps_add_process(struct json_object *out);
/* --flows N or --listeners M: every connection at once, from one thread (tcps_flows.c). */
int tcps_run_multi(const struct tcps_opts *o, struct json_object *out, char **err);

#endif /* TRAFFIC_TCPS_H */
