/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The traffic generators as a scenario sees them, described once: each
 * tool's own option table (the one its command line is parsed with, in
 * generators.c) and which of those options a scenario's [traffic] section may
 * set. The harness links generators.c and derives from these its [traffic]
 * key checks, the generators' command lines and the list of generators; the
 * tools link it for their tables.
 *
 * Pure data plus lookups: no I/O, nothing to free.
 */
#ifndef TRAFFIC_GENERATORS_H
#define TRAFFIC_GENERATORS_H

#include <stdbool.h>

#include "topt.h"

/* How a [traffic] key reaches the generator: which end, or neither. */
enum tgen_role {
	TGEN_TX = 1,			/* the sender / client (option .only = tx_flag) */
	TGEN_RX = 2,			/* the receiver / server (.only = rx_flag) */
	TGEN_BOTH = TGEN_TX | TGEN_RX,	/* an option of either end (no .only) */
	TGEN_ADDR = 4,			/* family, v6_key: pick the address family, not an option */
};

/*
 * The [traffic] key every generator has for its address family: 4 or 6
 * (udp-stream's v6_key, dst-ipv6 = yes, is a synonym of 6).
 */
#define TGEN_FAMILY_KEY "family"

struct tgen {
	const char *name;		/* the tool's binary, and [traffic] generator = NAME */
	const struct topt *opts;	/* the tool's option table */
	/* The options [traffic] may set, in the order error messages list them. */
	const char *const *keys;
	const char *v6_key;		/* [traffic] key for IPv6 addresses, or NULL */
	const char *tx_flag, *rx_flag;	/* the role flags: send/recv, client/server */
	const char *tx_out, *rx_out;	/* the files the harness keeps each end's JSON in */
	const char *proto_opt;		/* the option that switches tcp/udp, or NULL */
	const char *default_proto;
	unsigned int default_port;	/* the tool's --port default */
	const char *metric;		/* its metrics' first component: udp, tcp, rr */
	/*
	 * Whether its flow can stall: an end that waits for the other (TCP's
	 * acknowledgements, rr's responses) ends with TTOOL_EXIT_PATH when the
	 * path stops carrying data, and the scenario gets METRIC.stalled.
	 * udp-stream's sender never waits: the path's failures are its losses.
	 */
	bool can_stall;
};

/* The generators, ended by a NULL name. */
extern const struct tgen tgen_all[];

/* The generator called @name, or NULL. */
const struct tgen *tgen_find(const char *name);
/*
 * The option [traffic] key @key sets, or NULL: for a key that is no option
 * of @g's scenario keys, and for family and its v6_key (see tgen_key_role()).
 */
const struct topt *tgen_key_opt(const struct tgen *g, const char *key);
/* Whether @key is one of @g's [traffic] keys (options, family or v6_key). */
bool tgen_key_ok(const struct tgen *g, const char *key);
/* Which end a [traffic] key goes to; 0 when it is none of @g's keys. */
enum tgen_role tgen_key_role(const struct tgen *g, const char *key);

#endif /* TRAFFIC_GENERATORS_H */
