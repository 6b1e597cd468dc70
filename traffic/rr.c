// SPDX-License-Identifier: GPL-2.0
/*
 * rr: request/response latency, like netperf TCP_RR/UDP_RR, one transaction
 * in flight. A transaction is: the client sends --req-size bytes, the server
 * answers --resp-size bytes; its latency is the client's time from before the
 * send to after the whole response arrived (CLOCK_MONOTONIC).
 *
 * TCP: the client connects and sends a hello (wire.h) with both sizes; the
 * server serves that one client until it closes, then exits.
 * UDP: every request and response starts with the datagram header (wire.h;
 * the request carries the response size). A response not back within
 * --timeout makes the transaction lost; a response that comes later is
 * counted as stale and ignored. The client ends with RR_UDP_END_COPIES END
 * datagrams; the server ends on one of them, --idle-timeout or --duration.
 *
 * TCP --crr and --flows N (several connections, each accounted on its own in
 * "flows"), and the TCP server that serves them: rr_flows.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <json-c/json.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hist.h"
#include "tclock.h"
#include "terr.h"
#include "tjson.h"
#include "tsock.h"
#include "ttool.h"
#include "gen_opts.h"
#include "rr.h"
#include "wire.h"

#define RR_UDP_END_COPIES 3
#define RR_UDP_END_SPACING_NS (10 * TCLOCK_MS)

static void rr_init(void *p)
{
	struct rr_opts *o = p;

	o->port = RR_DEFAULT_PORT;
	o->idle_timeout_ns = 10 * TCLOCK_S;
	o->flows = 1;
}

static int check_size(const struct rr_opts *o, uint64_t *size, const char *name, char **err)
{
	uint64_t min = o->proto == RR_UDP ? WIRE_HDR_LEN : 1;
	uint64_t max = o->proto == RR_UDP ? RR_UDP_MAX : RR_TCP_MAX;

	if (!*size)
		*size = min;
	if (*size < min || *size > max)
		return terr_fmt(
			err, -EINVAL,
			"option '--%s': %llu is out of range for --proto %s\nhint: give %llu to %llu bytes (a UDP request or response carries a %d-byte header)",
			name, (unsigned long long)*size, rr_protos[o->proto],
			(unsigned long long)min, (unsigned long long)max, WIRE_HDR_LEN);
	return 0;
}

static int check_client(struct rr_opts *o, char **err)
{
	int ret;

	if (!o->dst)
		return terr_fmt(
			err, -EINVAL,
			"option '--dst' is required with --client\nhint: --dst ADDR: the server's address, e.g. 198.18.0.2");
	ret = tsock_peer_opts(o->dst, o->bind, (uint16_t)o->port, &o->dst_addr, err);
	if (ret)
		return ret;
	if (o->proto == RR_UDP && (o->crr || o->flows > 1))
		return terr_fmt(
			err, -EINVAL,
			"option '%s' applies to --proto tcp only\nhint: --crr and --flows open TCP connections: drop them, or use --proto tcp",
			o->crr ? "--crr" : "--flows");
	if (o->timeout_ns && o->proto != RR_UDP)
		return terr_fmt(
			err, -EINVAL,
			"option '--timeout' applies to --proto udp only\nhint: TCP does not lose transactions; --idle-timeout bounds a stalled one");
	if (!o->timeout_ns && o->proto == RR_UDP)
		o->timeout_ns = 200 * TCLOCK_MS;
	ret = check_size(o, &o->req_size, "req-size", err);
	if (!ret)
		ret = check_size(o, &o->resp_size, "resp-size", err);
	if (!ret && !o->duration_ns && !o->count)
		o->duration_ns = 10 * TCLOCK_S;
	return ret;
}

static int rr_check(void *p, char **err)
{
	struct rr_opts *o = p;
	struct tsock_addr a;

	if (o->server == o->client)
		return terr_fmt(
			err, -EINVAL,
			"give exactly one of --server and --client\nhint: run '--server' on one end, then '--client --dst ADDR' on the other");
	if (o->server && o->backlog && o->proto == RR_UDP)
		return terr_fmt(
			err, -EINVAL,
			"option '--backlog' applies to --proto tcp only\nhint: a UDP server does not listen: drop --backlog");
	if (o->server)
		return tsock_addr_opt("bind", o->bind, 0, &a, err);
	return check_client(o, err);
}

static const char *rr_role(const void *p)
{
	return ((const struct rr_opts *)p)->client ? "client" : "server";
}

struct rr_state *rr_state_new(const struct rr_opts *o)
{
	struct rr_state *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->o = o;
	s->fd = -1;
	hist_init(&s->lat);
	return s;
}

/* Request and response buffers; -ENOMEM with *err set. */
int rr_state_bufs(struct rr_state *s, size_t req_len, size_t resp_len, char **err)
{
	s->req_len = req_len;
	s->resp_len = resp_len;
	s->req = calloc(1, req_len);
	s->resp = calloc(1, resp_len);
	if (s->req && s->resp)
		return 0;
	return terr_sys(err, ENOMEM, NULL, "cannot allocate %zu + %zu bytes of buffers", req_len,
			resp_len);
}

void rr_state_free(struct rr_state *s)
{
	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd);
	free(s->req);
	free(s->resp);
	free(s->crr_buf);
	free(s->err);
	free(s);
}

void rr_report(const struct rr_state *s, struct json_object *out)
{
	double secs = tclock_seconds(s->end_ns - s->start_ns);

	tjson_str(out, "end_reason", s->end_reason);
	tjson_u64(out, "transactions", s->transactions);
	if (s->o->client) {
		tjson_u64(out, "lost", s->lost);
		tjson_u64(out, "stale_responses", s->stale);
	}
	tjson_u64(out, "invalid", s->invalid);
	tjson_u64(out, "errors_total", tjson_errno_total(s->errs));
	json_object_object_add(out, "errors", tjson_errnos(s->errs));
	tjson_double(out, "duration_s", secs, 6);
	tjson_double(out, "transactions_per_s", secs > 0 ? (double)s->transactions / secs : 0, 3);
	if (s->o->client)
		json_object_object_add(out, "latency_us", tjson_latency_us(&s->lat));
	if (s->o->proto == RR_TCP && (s->o->server || s->o->crr))
		tjson_u64(out, "connections", s->connections);
	if (s->o->client && s->o->crr)
		tjson_u64(out, "connect_errors", s->connect_errors);
}

/* Whether the client should stop before its next transaction. */
const char *rr_client_should_end(const struct rr_state *s)
{
	const struct rr_opts *o = s->o;

	if (o->count && s->transactions + s->lost >= o->count)
		return "count";
	if (o->duration_ns && tclock_now() >= s->start_ns + o->duration_ns)
		return "duration";
	return ttool_stopping() ? "signal" : NULL;
}

/* UDP client */

/* Wait up to @deadline for the response to @seq; false if lost. */
static bool udp_wait_resp(struct rr_state *s, uint64_t seq, uint64_t deadline)
{
	struct pollfd p = { .fd = s->fd, .events = POLLIN };
	struct timespec ts;
	struct wire_hdr h;
	uint64_t now;
	ssize_t n;

	while ((now = tclock_now()) < deadline && !ttool_stopping()) {
		ts.tv_sec = (time_t)((deadline - now) / TCLOCK_S);
		ts.tv_nsec = (long)((deadline - now) % TCLOCK_S);
		if (ppoll(&p, 1, &ts, NULL) <= 0)
			continue;
		n = recv(s->fd, s->resp, s->resp_len, MSG_DONTWAIT);
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				tjson_count_errno(s->errs, errno);
			continue;
		}
		if (wire_hdr_decode(s->resp, (size_t)n, &h) || h.type != WIRE_RR_RESP) {
			s->invalid++;
			continue;
		}
		if (h.seq == seq)
			return true;
		s->stale++;
	}
	return false;
}

static void udp_txn(struct rr_state *s, uint64_t seq)
{
	struct wire_hdr h = { .type = WIRE_RR_REQ, .seq = seq, .arg = (uint32_t)s->o->resp_size };
	uint64_t t0 = tclock_now();

	h.ts_ns = t0;
	wire_hdr_encode(&h, s->req);
	if (send(s->fd, s->req, s->req_len, 0) < 0 && errno != EINTR)
		tjson_count_errno(s->errs, errno);
	/* Even when send failed: wait, so that a missing server is no busy loop. */
	if (udp_wait_resp(s, seq, t0 + s->o->timeout_ns)) {
		hist_record(&s->lat, tclock_now() - t0);
		s->transactions++;
	} else if (!ttool_stopping()) {
		s->lost++;
	}
}

static void udp_send_end(struct rr_state *s)
{
	struct wire_hdr h = { .type = WIRE_RR_END, .copies = RR_UDP_END_COPIES };

	for (h.copy = 0; h.copy < RR_UDP_END_COPIES; h.copy++) {
		if (h.copy)
			tclock_sleep_until(tclock_now() + RR_UDP_END_SPACING_NS);
		h.ts_ns = tclock_now();
		wire_hdr_encode(&h, s->req);
		send(s->fd, s->req, WIRE_HDR_LEN, 0);
	}
}

static int udp_client(struct rr_state *s, char **err)
{
	uint64_t seq;
	int ret;

	ret = tsock_open_connected(SOCK_DGRAM, &s->o->dst_addr, s->o->bind, 0, NULL, &s->fd, err);
	if (ret)
		return ret;
	s->start_ns = tclock_now();
	for (seq = 0; !(s->end_reason = rr_client_should_end(s)); seq++)
		udp_txn(s, seq);
	s->end_ns = tclock_now();
	udp_send_end(s);
	return 0;
}

/* TCP client */

int rr_tcp_setup(int fd)
{
	int on = 1;

	tsock_set_timeout(fd, SO_RCVTIMEO, RR_TICK_NS);
	tsock_set_timeout(fd, SO_SNDTIMEO, RR_TICK_NS);
	return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
}

int rr_tcp_fail(struct rr_state *s, int ret, const char *what, char **err)
{
	if (ret == -ENODATA || ret == -EPIPE)
		return terr_fmt(
			err, -EPIPE,
			"'%s' closed the connection during %s\nhint: look at the server's error output",
			s->peer, what);
	if (ret == -ETIMEDOUT)
		return terr_fmt(
			err, ret,
			"%s with '%s' stalled for %.1f s\nhint: the peer stopped or the path drops everything: raise --idle-timeout or look at the peer",
			what, s->peer, tclock_seconds(s->o->idle_timeout_ns));
	return terr_sys(err, -ret, NULL, "%s with '%s' failed", what, s->peer);
}

static int tcp_hello(struct rr_state *s, char **err)
{
	s->phase = "hello";

	struct wire_hello h = {
		.type = WIRE_HELLO_RR,
		.req_size = (uint32_t)s->o->req_size,
		.resp_size = (uint32_t)s->o->resp_size,
		.flows = (uint16_t)s->nflows,
		.flow = (uint16_t)s->index,
	};
	uint8_t buf[WIRE_HELLO_LEN];
	int ret;

	wire_hello_encode(&h, buf);
	ret = tsock_send_all(s->fd, buf, sizeof(buf), s->o->idle_timeout_ns, ttool_stopping);
	return ret ? rr_tcp_fail(s, ret, "the hello", err) : 0;
}

static int tcp_txn(struct rr_state *s, char **err)
{
	uint64_t t0 = tclock_now(), idle = s->o->idle_timeout_ns;
	int ret;

	s->phase = "transaction";
	ret = tsock_send_all(s->fd, s->req, s->req_len, idle, ttool_stopping);
	if (!ret)
		ret = tsock_recv_all(s->fd, s->resp, s->resp_len, idle, ttool_stopping);
	if (ret == -EINTR)
		return 0;
	if (ret)
		return rr_tcp_fail(s, ret, "a transaction", err);
	hist_record(&s->lat, tclock_now() - t0);
	s->transactions++;
	s->cpu = sched_getcpu();
	return 0;
}

int rr_tcp_client(struct rr_state *s, char **err)
{
	const struct rr_opts *o = s->o;
	uint8_t c;
	int ret;

	s->phase = "connect";
	ret = tsock_open_connected(SOCK_STREAM, &o->dst_addr, o->bind, o->idle_timeout_ns, NULL,
				   &s->fd, err);
	if (ret)
		return ret;
	rr_tcp_setup(s->fd);
	ret = tcp_hello(s, err);
	s->start_ns = tclock_now();
	while (!ret && !(s->end_reason = rr_client_should_end(s)))
		ret = tcp_txn(s, err);
	s->end_ns = tclock_now();
	if (ret)
		return ret;
	/* Let the server see the end and finish before this end closes. */
	shutdown(s->fd, SHUT_WR);
	tsock_recv_all(s->fd, &c, 1, o->idle_timeout_ns, ttool_stopping);
	return 0;
}

/*
 * After a failure of the path: the transactions until then, and where it
 * stopped ("stall", moved into "failure" by ttool_main()).
 */
void rr_report_failure(struct rr_state *s, struct json_object *out)
{
	struct json_object *st = json_object_new_object();

	if (!s->end_ns)
		s->end_ns = tclock_now();
	if (!s->start_ns)
		s->start_ns = s->end_ns;
	s->end_reason = "failure";
	rr_report(s, out);
	tjson_str(st, "phase", s->phase ? s->phase : "connect");
	tjson_u64(st, "transactions_before", s->transactions);
	tjson_double(st, "idle_s", tclock_seconds(s->o->idle_timeout_ns), 3);
	json_object_object_add(out, "stall", st);
}

static int run_client(const struct rr_opts *o, struct json_object *out, char **err)
{
	struct rr_state *s;
	int ret;

	if (o->proto == RR_TCP && (o->crr || o->flows > 1))
		return rr_run_client_flows(o, out, err);
	s = rr_state_new(o);
	if (!s)
		return terr_sys(err, ENOMEM, NULL, "cannot allocate the client");
	tsock_addr_str(&o->dst_addr, s->peer, sizeof(s->peer));
	ret = rr_state_bufs(s, o->req_size, o->resp_size, err);
	if (!ret)
		ret = o->proto == RR_UDP ? udp_client(s, err) : rr_tcp_client(s, err);
	if (!ret)
		rr_report(s, out);
	else if (ttool_path_failure(-ret))
		rr_report_failure(s, out);
	s->cpu = sched_getcpu();
	if (!ret || ttool_path_failure(-ret))
		rr_add_flows(&s, 1, out);
	rr_state_free(s);
	return ret;
}

/* UDP server */

/* Answer a request received at @now; the run spans first to last request. */
static void udp_answer(struct rr_state *s, const struct wire_hdr *req,
		       const struct tsock_addr *from, uint64_t now)
{
	struct wire_hdr h = *req;
	size_t len = req->arg < WIRE_HDR_LEN ? WIRE_HDR_LEN : req->arg;

	h.type = WIRE_RR_RESP;
	wire_hdr_encode(&h, s->resp);
	if (sendto(s->fd, s->resp, len > RR_UDP_MAX ? RR_UDP_MAX : len, 0,
		   (const struct sockaddr *)&from->ss, from->len) < 0)
		tjson_count_errno(s->errs, errno);
	else
		s->transactions++;
	if (!s->start_ns)
		s->start_ns = now;
	s->end_ns = now;
}

static const char *udp_server_should_end(const struct rr_state *s, uint64_t now, uint64_t activity)
{
	if (ttool_stopping())
		return "signal";
	if (s->o->duration_ns && now >= s->opened_ns + s->o->duration_ns)
		return "duration";
	return now >= activity + s->o->idle_timeout_ns ? "idle_timeout" : NULL;
}

static int udp_server(struct rr_state *s, char **err)
{
	struct tsock_addr from;
	struct wire_hdr h;
	uint64_t now, activity;
	ssize_t n;
	int ret;

	ret = tsock_open_bound(SOCK_DGRAM, s->o->bind, (uint16_t)s->o->port, &s->fd, err);
	if (ret)
		return ret;
	tsock_set_timeout(s->fd, SO_RCVTIMEO, RR_TICK_NS);
	s->opened_ns = activity = now = tclock_now();
	while (!(s->end_reason = udp_server_should_end(s, now, activity))) {
		from.len = sizeof(from.ss);
		n = recvfrom(s->fd, s->req, s->req_len, 0, (struct sockaddr *)&from.ss, &from.len);
		now = tclock_now();
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return terr_sys(err, errno, NULL, "cannot receive on port %llu",
					(unsigned long long)s->o->port);
		if (n < 0)
			continue;
		activity = now;
		if (wire_hdr_decode(s->req, (size_t)n, &h) ||
		    (h.type != WIRE_RR_REQ && h.type != WIRE_RR_END)) {
			s->invalid++;
			continue;
		}
		if (h.type == WIRE_RR_END)
			break;
		udp_answer(s, &h, &from, now);
	}
	if (!s->end_reason)
		s->end_reason = "end";
	return 0;
}

static int run_server(const struct rr_opts *o, struct json_object *out, char **err)
{
	struct rr_state *s = rr_state_new(o);
	struct json_object *flows = NULL;
	int ret;

	if (!s)
		return terr_sys(err, ENOMEM, NULL, "cannot allocate the server");
	if (o->proto == RR_UDP) {
		ret = rr_state_bufs(s, RR_UDP_MAX + 1, RR_UDP_MAX, err);
		if (!ret)
			ret = udp_server(s, err);
	} else {
		ret = rr_tcp_server(s, &flows, err);
	}
	if (!ret)
		rr_report(s, out);
	else if (ttool_path_failure(-ret))
		rr_report_failure(s, out);
	if (flows && (!ret || ttool_path_failure(-ret)))
		json_object_object_add(out, "flows", flows);
	else
		json_object_put(flows);
	rr_state_free(s);
	return ret;
}

static int rr_run(const void *p, struct json_object *out, char **err)
{
	const struct rr_opts *o = p;

	return o->client ? run_client(o, out, err) : run_server(o, out, err);
}

const struct ttool rr_tool = {
	.name = "rr",
	.usage =
		"Usage: rr --server [--proto tcp|udp] [--bind ADDR] [options]\n"
		"       rr --client --dst ADDR [--proto tcp|udp] [--req-size B] [--resp-size B] [options]\n"
		"\n"
		"Request/response latency with one transaction in flight (like netperf TCP_RR and\n"
		"UDP_RR). The server serves one client, then exits.\n"
		"TCP: --crr makes a connection per transaction (like TCP_CRR); --flows N runs N\n"
		"connections (or --crr loops) at once, each with its own --count, and reports\n"
		"each in \"flows\".\n",
	.opts = rr_table,
	.opts_size = sizeof(struct rr_opts),
	.common_off = offsetof(struct rr_opts, common),
	.init = rr_init,
	.check = rr_check,
	.role = rr_role,
	.run = rr_run,
};
