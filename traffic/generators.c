// SPDX-License-Identifier: GPL-2.0
/*
 * The traffic tools' option tables and their descriptors (generators.h).
 * Linked by every tool and by the harness.
 */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gen_opts.h"
#include "generators.h"
#include "tclock.h"
#include "ttool.h"
#include "wire.h"

const char *const rr_protos[] = { "tcp", "udp", NULL };

#define OFF(field) offsetof(struct udps_opts, field)

/* clang-format off */
const struct topt udps_table[] = {
	{ .name = "send", .kind = TOPT_FLAG, .off = OFF(send),
	  .help = "send datagrams to --dst" },
	{ .name = "recv", .kind = TOPT_FLAG, .off = OFF(recv),
	  .help = "receive datagrams and account for them" },
	{ .name = "dst", .kind = TOPT_STR, .off = OFF(dst), .arg = "ADDR", .key = "dst",
	  .only = "send", .help = "send: destination, a numeric IPv4 or IPv6 address" },
	{ .name = "port", .kind = TOPT_UINT, .off = OFF(port), .arg = "PORT", .key = "port",
	  .min = 1, .max = 65535, .help = "UDP port (default 5201)" },
	{ .name = "bind", .kind = TOPT_STR, .off = OFF(bind), .arg = "ADDR", .key = "bind",
	  .help = "send: source address; recv: local address (default: any, IPv6 and IPv4)" },
	{ .name = "rate", .kind = TOPT_RATE, .off = OFF(rate), .arg = "RATE", .key = "rate",
	  .only = "send",
	  .help = "send: packets/s (20000, 20kpps) or bits/s (100M, 1G); default: flat out" },
	{ .name = "bitrate", .kind = TOPT_BITRATE, .off = OFF(rate), .arg = "BITS",
	  .only = "send", .help = "send: bits/s of UDP payload (100M, 1G, 1500k)" },
	{ .name = "size", .kind = TOPT_BYTES, .off = OFF(size), .arg = "BYTES",
	  .key = "size_bytes", .min = WIRE_HDR_LEN, .max = UDPS_MAX_SIZE, .only = "send",
	  .help = "send: UDP payload bytes per datagram (default 1400, minimum 32)" },
	{ .name = "size-max", .kind = TOPT_BYTES, .off = OFF(size_max), .arg = "BYTES",
	  .key = "size_max_bytes", .zero_unset = true, .min = WIRE_HDR_LEN, .max = UDPS_MAX_SIZE,
	  .only = "send", .help = "send: vary the size, uniform from --size to BYTES (inclusive)" },
	{ .name = "seed", .kind = TOPT_UINT, .off = OFF(seed), .arg = "N", .key = "seed",
	  .only = "send",
	  .help = "send: seed of the --size-max sizes (default 1; same seed, same sizes)" },
	{ .name = "burst", .kind = TOPT_UINT, .off = OFF(burst), .arg = "N", .key = "burst",
	  .min = 1, .max = 1000000, .only = "send",
	  .help = "send: datagrams sent back-to-back per burst (default 1)" },
	{ .name = "burst-gap", .kind = TOPT_USEC, .off = OFF(burst_gap_ns), .arg = "USEC",
	  .key = "burst_gap_us", .zero_unset = true, .min = 1000, .max = 60 * TCLOCK_S,
	  .only = "send", .help = "send: time from one burst's start to the next (sets the rate)" },
	{ .name = "duration", .kind = TOPT_SECONDS, .off = OFF(duration_ns), .arg = "SEC",
	  .key = "duration_s", .zero_unset = true, .min = TCLOCK_MS,
	  .help = "send: how long (default 10 unless --count); recv: end after SEC" },
	{ .name = "count", .kind = TOPT_UINT, .off = OFF(count), .arg = "N", .key = "count",
	  .zero_unset = true, .min = 1, .only = "send", .help = "send: end after N datagrams" },
	{ .name = "flow-id", .kind = TOPT_UINT, .off = OFF(flow_id), .arg = "ID",
	  .key = "flow_id", .zero_unset = true, .min = 1, .max = UINT32_MAX,
	  .help = "send: flow id (default random); recv: count only it (default: first seen)" },
	{ .name = "rcvbuf", .kind = TOPT_BYTES, .off = OFF(rcvbuf), .arg = "BYTES",
	  .key = "rcvbuf_bytes", .zero_unset = true, .min = 1, .max = INT_MAX / 2,
	  .only = "recv", .help = "recv: socket receive buffer (the kernel doubles it)" },
	{ .name = "read-delay", .kind = TOPT_USEC, .off = OFF(read_delay_ns), .arg = "USEC",
	  .key = "read_delay_us", .max = 10 * TCLOCK_S, .only = "recv",
	  .help = "recv: sleep USEC between reads, to overflow the socket buffer" },
	{ .name = "idle-timeout", .kind = TOPT_SECONDS, .off = OFF(idle_timeout_ns),
	  .arg = "SEC", .key = "idle_timeout_s", .min = TCLOCK_MS, .only = "recv",
	  .help = "recv: end when nothing arrived for SEC (default 5)" },
	{ .name = "flows", .kind = TOPT_UINT, .off = OFF(flows), .arg = "N", .key = "flows",
	  .min = 1, .max = UDPS_MAX_FLOWS,
	  .help = "send: N sockets, flow ids ID..ID+N-1, round-robin; recv: account N flows (default 1)" },
	{ .name = "sockets", .kind = TOPT_UINT, .off = OFF(sockets), .arg = "M", .key = "sockets",
	  .min = 1, .max = UDPS_MAX_SOCKETS, .only = "recv",
	  .help = "recv: M sockets on --port, with SO_REUSEPORT when M > 1 (default 1)" },
	{ .name = "sport", .kind = TOPT_UINT, .off = OFF(sport), .arg = "PORT", .key = "sport",
	  .zero_unset = true, .min = 1, .max = 65535,
	  .help = "send: flow i's source port is PORT+i (default: ephemeral); recv: with --connected" },
	{ .name = "reuseport", .kind = TOPT_FLAG, .off = OFF(reuseport), .key = "reuseport",
	  .only = "recv", .help = "recv: set SO_REUSEPORT even on one socket" },
	{ .name = "connected", .kind = TOPT_FLAG, .off = OFF(connected), .key = "connected",
	  .only = "recv",
	  .help = "recv: with --peer and --sport, socket i is connect()ed to the port --sport+i" },
	{ .name = "peer", .kind = TOPT_STR, .off = OFF(peer), .arg = "ADDR", .key = "peer",
	  .only = "recv", .help = "recv: the sender's address, for --connected" },
	{ .name = "procs", .kind = TOPT_UINT, .off = OFF(procs), .arg = "P", .key = "procs",
	  .min = 1, .max = UDPS_MAX_PROCS,
	  .help = "send: flow i in process i % P; recv: socket i in process i % P (default 1)" },
	TTOOL_COMMON_OPTS(struct udps_opts),
	{ .name = NULL },
};
/* clang-format on */

#undef OFF

#define OFF(field) offsetof(struct tcps_opts, field)

/* clang-format off */
const struct topt tcps_table[] = {
	{ .name = "send", .kind = TOPT_FLAG, .off = OFF(send),
	  .help = "connect to --dst and send" },
	{ .name = "recv", .kind = TOPT_FLAG, .off = OFF(recv),
	  .help = "accept one connection and receive (and send, if the sender asks --bidir)" },
	{ .name = "bidir", .kind = TOPT_FLAG, .off = OFF(bidir), .key = "bidir", .only = "send",
	  .help = "send: both ends send and receive at once, on the one connection" },
	{ .name = "dst", .kind = TOPT_STR, .off = OFF(dst), .arg = "ADDR", .key = "dst",
	  .only = "send", .help = "send: the receiver, a numeric IPv4 or IPv6 address" },
	{ .name = "port", .kind = TOPT_UINT, .off = OFF(port), .arg = "PORT", .key = "port",
	  .min = 1, .max = 65535, .help = "TCP port (default 5201)" },
	{ .name = "bind", .kind = TOPT_STR, .off = OFF(bind), .arg = "ADDR", .key = "bind",
	  .help = "send: source address; recv: local address (default: any, IPv6 and IPv4)" },
	{ .name = "duration", .kind = TOPT_SECONDS, .off = OFF(duration_ns), .arg = "SEC",
	  .key = "duration_s", .min = TCLOCK_MS, .max = TCPS_MAX_DURATION, .only = "send",
	  .help = "send: how long to send (default 10); the receiver follows" },
	{ .name = "size", .kind = TOPT_BYTES, .off = OFF(size), .arg = "BYTES",
	  .key = "size_bytes", .min = 1, .max = 64 << 20,
	  .help = "bytes per write() (default 128K)" },
	{ .name = "cc", .kind = TOPT_STR, .off = OFF(cc), .arg = "NAME", .key = "cc",
	  .help = "TCP congestion control of this end's sending (default: the system's)" },
	{ .name = "idle-timeout", .kind = TOPT_SECONDS, .off = OFF(idle_timeout_ns),
	  .arg = "SEC", .key = "idle_timeout_s", .min = TCLOCK_MS,
	  .help = "give up when connecting, accepting or the transfer stalls for SEC (default 10)" },
	{ .name = "flows", .kind = TOPT_UINT, .off = OFF(flows), .arg = "N", .key = "flows",
	  .min = 1, .max = TCPS_MAX_FLOWS,
	  .help = "connections at once, from one process (default 1); give both ends the same N" },
	{ .name = "listeners", .kind = TOPT_UINT, .off = OFF(listeners), .arg = "M",
	  .key = "listeners", .min = 1, .max = TCPS_MAX_LISTENERS, .only = "recv",
	  .help = "recv: sockets listening on --port (SO_REUSEPORT), accepting from all (default 1)" },
	TTOOL_COMMON_OPTS(struct tcps_opts),
	{ .name = NULL },
};
/* clang-format on */

#undef OFF

#define OFF(field) offsetof(struct rr_opts, field)

/* clang-format off */
const struct topt rr_table[] = {
	{ .name = "server", .kind = TOPT_FLAG, .off = OFF(server),
	  .help = "answer the requests of one client" },
	{ .name = "client", .kind = TOPT_FLAG, .off = OFF(client),
	  .help = "send requests to --dst, one at a time, and time them" },
	{ .name = "proto", .kind = TOPT_CHOICE, .off = OFF(proto), .arg = "tcp|udp",
	  .key = "proto", .choices = rr_protos, .help = "transport (default tcp)" },
	{ .name = "dst", .kind = TOPT_STR, .off = OFF(dst), .arg = "ADDR", .key = "dst",
	  .only = "client", .help = "client: the server, a numeric IPv4 or IPv6 address" },
	{ .name = "port", .kind = TOPT_UINT, .off = OFF(port), .arg = "PORT", .key = "port",
	  .min = 1, .max = 65535, .help = "port (default 5202)" },
	{ .name = "bind", .kind = TOPT_STR, .off = OFF(bind), .arg = "ADDR", .key = "bind",
	  .help = "client: source address; server: local address (default: any)" },
	{ .name = "req-size", .kind = TOPT_BYTES, .off = OFF(req_size), .arg = "BYTES",
	  .key = "req_size_bytes", .min = 1, .max = RR_TCP_MAX, .only = "client",
	  .help = "client: request bytes (default and minimum: tcp 1, udp 32)" },
	{ .name = "resp-size", .kind = TOPT_BYTES, .off = OFF(resp_size), .arg = "BYTES",
	  .key = "resp_size_bytes", .min = 1, .max = RR_TCP_MAX, .only = "client",
	  .help = "client: response bytes (default and minimum: tcp 1, udp 32)" },
	{ .name = "duration", .kind = TOPT_SECONDS, .off = OFF(duration_ns), .arg = "SEC",
	  .key = "duration_s", .zero_unset = true, .min = TCLOCK_MS,
	  .help = "client: how long (default 10 unless --count); server: end after SEC" },
	{ .name = "count", .kind = TOPT_UINT, .off = OFF(count), .arg = "N", .key = "count",
	  .zero_unset = true, .min = 1, .only = "client",
	  .help = "client: end after N transactions (lost ones included)" },
	{ .name = "timeout", .kind = TOPT_SECONDS, .off = OFF(timeout_ns), .arg = "SEC",
	  .key = "timeout_s", .zero_unset = true, .min = TCLOCK_MS, .max = 60 * TCLOCK_S,
	  .only = "client",
	  .help = "client, udp: a response not back after SEC is lost (default 0.2)" },
	{ .name = "idle-timeout", .kind = TOPT_SECONDS, .off = OFF(idle_timeout_ns),
	  .arg = "SEC", .key = "idle_timeout_s", .min = TCLOCK_MS,
	  .help = "give up when connecting, accepting or a transfer stalls for SEC (default 10)" },
	{ .name = "crr", .kind = TOPT_FLAG, .off = OFF(crr), .key = "crr", .only = "client",
	  .help = "client, tcp: connect, request, response, close per transaction (netperf TCP_CRR)" },
	{ .name = "backlog", .kind = TOPT_UINT, .off = OFF(backlog), .arg = "N", .key = "backlog",
	  .zero_unset = true, .min = 1, .max = 65535, .only = "server",
	  .help = "server, tcp: listen backlog (default 128; the kernel caps it at somaxconn)" },
	{ .name = "flows", .kind = TOPT_UINT, .off = OFF(flows), .arg = "N", .key = "flows",
	  .min = 1, .max = RR_MAX_FLOWS, .only = "client",
	  .help = "client, tcp: N connections (with --crr: N loops) at once, one thread each (default 1)" },
	TTOOL_COMMON_OPTS(struct rr_opts),
	{ .name = NULL },
};
/* clang-format on */

#undef OFF

static const char *const udps_keys[] = {
	"rate", "bitrate", "size", "size-max", "seed", "burst", "burst-gap", "count", "rcvbuf",
	"flows", "sockets", "sport", "reuseport", "connected", "procs", "read-delay", "port", NULL,
};
static const char *const tcps_keys[] = {
	"size", "port", "cc", "bidir", "flows", "listeners", NULL
};
static const char *const rr_keys[] = {
	"proto", "req-size", "resp-size", "count", "port", "crr", "backlog", "flows", NULL,
};

const struct tgen tgen_all[] = {
	{ .name = "udp-stream", .opts = udps_table, .keys = udps_keys, .v6_key = "dst-ipv6",
	  .tx_flag = "send", .rx_flag = "recv", .tx_out = "send.json", .rx_out = "recv.json",
	  .default_proto = "udp", .default_port = UDPS_DEFAULT_PORT, .metric = "udp" },
	{ .name = "tcp-stream", .opts = tcps_table, .keys = tcps_keys,
	  .tx_flag = "send", .rx_flag = "recv", .tx_out = "send.json", .rx_out = "recv.json",
	  .default_proto = "tcp", .default_port = TCPS_DEFAULT_PORT, .metric = "tcp",
	  .can_stall = true },
	{ .name = "rr", .opts = rr_table, .keys = rr_keys,
	  .tx_flag = "client", .rx_flag = "server", .tx_out = "client.json",
	  .rx_out = "server.json", .proto_opt = "proto", .default_proto = "tcp",
	  .default_port = RR_DEFAULT_PORT, .metric = "rr", .can_stall = true },
	{ .name = NULL },
};

const struct tgen *tgen_find(const char *name)
{
	for (const struct tgen *g = tgen_all; g->name; g++)
		if (!strcmp(g->name, name))
			return g;
	return NULL;
}

const struct topt *tgen_key_opt(const struct tgen *g, const char *key)
{
	const char *const *k;

	for (k = g->keys; *k && strcmp(*k, key); k++)
		;
	if (!*k)
		return NULL;
	for (const struct topt *o = g->opts; o->name; o++)
		if (!strcmp(o->name, key))
			return o;
	return NULL;
}

bool tgen_key_ok(const struct tgen *g, const char *key)
{
	return tgen_key_opt(g, key) || !strcmp(key, TGEN_FAMILY_KEY) ||
	       (g->v6_key && !strcmp(g->v6_key, key));
}

enum tgen_role tgen_key_role(const struct tgen *g, const char *key)
{
	const struct topt *o = tgen_key_opt(g, key);

	if (!o)
		return !strcmp(key, TGEN_FAMILY_KEY) || (g->v6_key && !strcmp(g->v6_key, key)) ?
			       TGEN_ADDR : 0;
	if (!o->only)
		return TGEN_BOTH;
	return !strcmp(o->only, g->tx_flag) ? TGEN_TX : TGEN_RX;
}
