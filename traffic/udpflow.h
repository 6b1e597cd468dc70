/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udp-stream's receiver, per flow: which flow a datagram belongs to, whether
 * it reached the socket it should have, and each flow's sequence accounting
 * (seqacct.h), END messages and latency. No sockets here: the receiver hands
 * in what it read (struct udpflow_dgram), so the rules are unit-tested alone.
 *
 * A set accounts up to @max flows: ids base..base+max-1 with --flow-id, else
 * the first @max distinct ids seen. Any other id is "foreign".
 *
 * Misdelivery (a datagram on the wrong socket is a loss of its flow): with
 * connected sockets, a datagram on socket i whose source port is not
 * sport_base + i; otherwise a datagram of flow F on another socket than the
 * one that first received F. A misdelivered DATA datagram counts in its
 * flow's "misdelivered" only, not in received/unique: sent - unique counts it
 * lost. END messages are taken from any socket (they carry the count sent).
 */
#ifndef TRAFFIC_UDPFLOW_H
#define TRAFFIC_UDPFLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "seqacct.h"

#define UDPFLOW_MAX 256
#define UDPFLOW_END_GRACE_NS (200 * 1000000ull)

struct json_object;

struct udpflow {
	uint32_t id;
	uint16_t sport; /* source port of its first datagram */
	unsigned int sock; /* index of the socket that first received it */
	int cpu; /* CPU that read its last datagram; -1: unknown */
	bool end_seen;
	bool last_copy;
	uint64_t sent; /* from its END */
	uint64_t end_copies;
	uint64_t end_copies_received;
	uint64_t bytes;
	uint64_t misdelivered;
	uint64_t latency_skipped;
	uint64_t first_ns;
	uint64_t last_ns;
	uint64_t end_deadline_ns;
	struct seqacct acct;
	struct hist lat;
};

struct udpflow_set {
	unsigned int max; /* flows accounted */
	unsigned int n; /* flows seen, in flows[] in the order first seen */
	uint32_t base_id; /* 0: the first ids seen */
	bool connected;
	uint16_t sport_base; /* connected: socket i's peer port is sport_base + i */
	uint64_t invalid;
	uint64_t foreign;
	uint64_t misdelivered;
	struct udpflow *flows[UDPFLOW_MAX];
	struct hist lat; /* every flow's latencies */
};

/* One datagram as read: its first bytes, its length, where and when. */
struct udpflow_dgram {
	const void *buf;
	size_t len;
	unsigned int sock;
	uint16_t src_port;
	uint64_t t_ns;
	int cpu;
};

enum udpflow_verdict {
	UDPFLOW_DATA,
	UDPFLOW_END,
	UDPFLOW_INVALID,
	UDPFLOW_FOREIGN,
	UDPFLOW_MISDELIVERED,
	UDPFLOW_NOMEM,
};

void udpflow_set_init(struct udpflow_set *s, unsigned int max, uint32_t base_id, bool connected,
		      uint16_t sport_base);
void udpflow_set_release(struct udpflow_set *s);
enum udpflow_verdict udpflow_add(struct udpflow_set *s, const struct udpflow_dgram *d);
bool udpflow_ended(const struct udpflow *f, uint64_t now);
bool udpflow_all_ended(const struct udpflow_set *s, uint64_t now);

/* The set's sums; sent, lost and end_copies are known once every flow's END is. */
struct udpflow_totals {
	bool sent_known;
	bool any; /* a DATA datagram was accounted */
	uint64_t sent;
	uint64_t lost;
	uint64_t end_copies;
	uint64_t end_copies_received;
	uint64_t received;
	uint64_t unique;
	uint64_t reordered;
	uint64_t duplicated;
	uint64_t late;
	uint64_t highest;
	uint64_t bytes;
	uint64_t latency_skipped;
	uint64_t first_ns;
	uint64_t last_ns;
};

void udpflow_totals(const struct udpflow_set *s, struct udpflow_totals *t);
struct json_object *udpflow_array(const struct udpflow_set *s, int pid);

#endif /* TRAFFIC_UDPFLOW_H */
