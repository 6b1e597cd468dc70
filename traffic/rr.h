/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rr's insides, shared by its one-connection code (rr.c) and its
 * several-connections code (rr_flows.c: --crr, --flows). Not used by other
 * tools.
 */
#ifndef TRAFFIC_RR_H
#define TRAFFIC_RR_H

#include <stddef.h>
#include <stdint.h>

#include "gen_opts.h"
#include "hist.h"
#include "tjson.h"
#include "tsock.h"

#define RR_TICK_NS (100 * TCLOCK_MS)

struct json_object;

/* State of one run, either role. */
struct rr_state {
	const struct rr_opts *o;
	int fd;
	char peer[TSOCK_ADDRSTRLEN];
	uint8_t *req;
	uint8_t *resp;
	size_t req_len;
	size_t resp_len;
	uint64_t transactions;
	uint64_t lost;
	uint64_t stale;
	uint64_t invalid;
	uint64_t opened_ns; /* UDP server: when it started listening */
	uint64_t start_ns; /* the span transactions_per_s is over */
	uint64_t end_ns;
	const char *end_reason;
	const char *phase; /* where a failure of the path stopped it: connect, hello, transaction */
	uint64_t errs[TJSON_ERRNO_SLOTS];
	struct hist lat;
	/* TCP with --crr or --flows: this flow, and how it went */
	unsigned int index;
	unsigned int nflows; /* in the hello: 0 for the one connection, and with --crr */
	uint64_t connections; /* opened (client) or served (server) */
	uint64_t connect_errors;
	uint64_t progress_ns; /* --crr client: the last transaction (or the start) */
	uint8_t *crr_buf; /* --crr client: the hello and the request, one write */
	size_t crr_len;
	int cpu; /* the CPU of its last transaction */
	int ret; /* a flow's thread: its result, and *err */
	char *err;
};

struct rr_state *rr_state_new(const struct rr_opts *o);
int rr_state_bufs(struct rr_state *s, size_t req_len, size_t resp_len, char **err);
void rr_state_free(struct rr_state *s);
void rr_report(const struct rr_state *s, struct json_object *out);
void rr_report_failure(struct rr_state *s, struct json_object *out);
const char *rr_client_should_end(const struct rr_state *s);
int rr_tcp_setup(int fd);
int rr_tcp_fail(struct rr_state *s, int ret, const char *what, char **err);
int rr_tcp_client(struct rr_state *s, char **err);

/* rr_flows.c */
int rr_run_client_flows(const struct rr_opts *o, struct json_object *out, char **err);
void rr_add_flows(struct rr_state *const *fl, unsigned int n, struct json_object *out);
/* TCP server: the first client's hello says how (one connection, --crr, --flows). */
int rr_tcp_server(struct rr_state *s, struct json_object **flows, char **err);

#endif /* TRAFFIC_RR_H */
