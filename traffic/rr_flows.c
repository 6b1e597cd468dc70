// SPDX-License-Identifier: GPL-2.0
/*
 * rr over several TCP connections: --crr (a connection per transaction,
 * netperf TCP_CRR) and --flows N (N connections or N --crr loops at once, a
 * thread each, each accounted on its own), and the TCP server, which serves
 * one client, a --crr client's connections one after the other, or the N
 * connections of --flows at once, as the first client's hello says.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hist.h"
#include "rr.h"
#include "tclock.h"
#include "terr.h"
#include "tjson.h"
#include "tsock.h"
#include "ttool.h"
#include "wire.h"

/* TCP client with --crr or --flows: a thread per flow, each with its own rr_state */

/* The hello and the request of a --crr connection, sent as one write. */
static int crr_bufs(struct rr_state *s, char **err)
{
	struct wire_hello h = {
		.type = WIRE_HELLO_RR,
		.flags = WIRE_F_CRR,
		.req_size = (uint32_t)s->o->req_size,
		.resp_size = (uint32_t)s->o->resp_size,
	};

	s->crr_len = WIRE_HELLO_LEN + s->req_len;
	s->crr_buf = calloc(1, s->crr_len);
	if (!s->crr_buf)
		return terr_sys(err, ENOMEM, NULL, "cannot allocate %zu bytes", s->crr_len);
	wire_hello_encode(&h, s->crr_buf);
	return 0;
}

/*
 * One --crr transaction: connect, hello and request, the whole response,
 * close; its latency spans all of it. A failed connect is counted and
 * retried; only --idle-timeout of them without a transaction ends the run.
 */
static int crr_txn(struct rr_state *s, char **err)
{
	const struct rr_opts *o = s->o;
	uint64_t t0 = tclock_now(), idle = o->idle_timeout_ns;
	char *cerr = NULL;
	int fd, ret;

	s->phase = "connect";
	ret = tsock_open_connected(SOCK_STREAM, &o->dst_addr, o->bind, idle, NULL, &fd, &cerr);
	if (ret) {
		s->connect_errors++;
		tjson_count_errno(s->errs, -ret);
		if (tclock_now() - s->progress_ns >= idle || ret == -EINTR) {
			*err = cerr;
			return ret;
		}
		free(cerr);
		tclock_sleep_until(tclock_now() + TCLOCK_MS);
		return 0;
	}
	s->connections++;
	rr_tcp_setup(fd);
	s->phase = "transaction";
	ret = tsock_send_all(fd, s->crr_buf, s->crr_len, idle, ttool_stopping);
	if (!ret)
		ret = tsock_recv_all(fd, s->resp, s->resp_len, idle, ttool_stopping);
	close(fd);
	if (ret == -EINTR)
		return 0;
	if (ret)
		return rr_tcp_fail(s, ret, "a transaction", err);
	s->progress_ns = tclock_now();
	hist_record(&s->lat, s->progress_ns - t0);
	s->transactions++;
	s->cpu = sched_getcpu();
	return 0;
}

static int crr_client(struct rr_state *s, char **err)
{
	int ret = crr_bufs(s, err);

	s->start_ns = s->progress_ns = tclock_now();
	while (!ret && !(s->end_reason = rr_client_should_end(s)))
		ret = crr_txn(s, err);
	s->end_ns = tclock_now();
	return ret;
}

static void *flow_main(void *arg)
{
	struct rr_state *s = arg;

	s->cpu = sched_getcpu();
	s->ret = s->o->crr ? crr_client(s, &s->err) : rr_tcp_client(s, &s->err);
	return NULL;
}

/* After the --crr loops: one more connection, whose hello tells the server to end. */
static void crr_end_server(const struct rr_opts *o)
{
	struct wire_hello h = {
		.type = WIRE_HELLO_RR,
		.flags = WIRE_F_CRR | WIRE_F_END,
		.req_size = 1,
		.resp_size = 1,
	};
	uint8_t buf[WIRE_HELLO_LEN];
	char *e = NULL;
	int fd;

	if (tsock_open_connected(SOCK_STREAM, &o->dst_addr, o->bind, o->idle_timeout_ns, NULL, &fd,
				 &e)) {
		free(e);
		return;
	}
	rr_tcp_setup(fd);
	wire_hello_encode(&h, buf);
	/* Then wait for the server's close, so that it has seen the end. */
	if (!tsock_send_all(fd, buf, sizeof(buf), o->idle_timeout_ns, ttool_stopping) &&
	    !shutdown(fd, SHUT_WR))
		tsock_recv_all(fd, buf, 1, o->idle_timeout_ns, ttool_stopping);
	close(fd);
}

/* Add histogram @s into @d. */
static void lat_add(struct hist *d, const struct hist *s)
{
	if (!s->count)
		return;
	for (unsigned int i = 0; i < HIST_BUCKETS; i++)
		d->buckets[i] += s->buckets[i];
	if (s->min < d->min)
		d->min = s->min;
	if (s->max > d->max)
		d->max = s->max;
	d->count += s->count;
	d->sum += s->sum;
}

/* The flows' sums into @sum; the span is from the first start to the last end. */
static void flows_sum(struct rr_state *sum, struct rr_state *const *fl, unsigned int n)
{
	sum->start_ns = fl[0]->start_ns;
	sum->end_reason = fl[0]->end_reason;
	for (unsigned int i = 0; i < n; i++) {
		const struct rr_state *f = fl[i];

		sum->transactions += f->transactions;
		sum->lost += f->lost;
		sum->stale += f->stale;
		sum->invalid += f->invalid;
		sum->connections += f->connections;
		sum->connect_errors += f->connect_errors;
		for (unsigned int k = 0; k < TJSON_ERRNO_SLOTS; k++)
			sum->errs[k] += f->errs[k];
		lat_add(&sum->lat, &f->lat);
		if (f->start_ns && (!sum->start_ns || f->start_ns < sum->start_ns))
			sum->start_ns = f->start_ns;
		if (f->end_ns > sum->end_ns)
			sum->end_ns = f->end_ns;
	}
}

/* A flow in the client's "flows". */
static struct json_object *flow_json(const struct rr_state *f)
{
	struct json_object *o = json_object_new_object();

	tjson_u64(o, "index", f->index);
	tjson_u64(o, "transactions", f->transactions);
	tjson_u64(o, "lost", f->lost);
	json_object_object_add(o, "latency_us", tjson_latency_us(&f->lat));
	if (f->o->crr) {
		tjson_u64(o, "connections", f->connections);
		tjson_u64(o, "connect_errors", f->connect_errors);
	}
	json_object_object_add(o, "cpu", json_object_new_int(f->cpu));
	return o;
}

void rr_add_flows(struct rr_state *const *fl, unsigned int n, struct json_object *out)
{
	struct json_object *a = json_object_new_array();

	for (unsigned int i = 0; i < n; i++)
		json_object_array_add(a, flow_json(fl[i]));
	json_object_object_add(out, "flows", a);
	tjson_u64(out, "pid", (uint64_t)getpid());
}

/* Start the flows' threads and wait for them; 0, or the error of the first that failed. */
static int flows_run(const struct rr_opts *o, struct rr_state **fl, unsigned int n, char **err)
{
	pthread_t th[RR_MAX_FLOWS];
	unsigned int started = 0;
	int ret = 0, e;

	for (; started < n; started++) {
		e = pthread_create(&th[started], NULL, flow_main, fl[started]);
		if (e) {
			ret = terr_sys(err, e, NULL, "cannot start the thread of flow %u", started);
			break;
		}
	}
	for (unsigned int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	for (unsigned int i = 0; i < started && !ret; i++)
		if (fl[i]->ret)
			ret = terr_fmt(err, fl[i]->ret, "flow %u: %s", i, fl[i]->err);
	if (o->crr && !ret)
		crr_end_server(o);
	return ret;
}

int rr_run_client_flows(const struct rr_opts *o, struct json_object *out, char **err)
{
	unsigned int n = (unsigned int)o->flows;
	struct rr_state *fl[RR_MAX_FLOWS] = { NULL }, *sum = rr_state_new(o);
	struct json_object *st, *which;
	int ret = sum ? 0 : terr_sys(err, ENOMEM, NULL, "cannot allocate the client");

	for (unsigned int i = 0; i < n && !ret; i++) {
		fl[i] = rr_state_new(o);
		if (!fl[i]) {
			ret = terr_sys(err, ENOMEM, NULL, "cannot allocate flow %u", i);
			break;
		}
		fl[i]->index = i;
		fl[i]->nflows = o->crr ? 0 : n;
		tsock_addr_str(&o->dst_addr, fl[i]->peer, sizeof(fl[i]->peer));
		ret = rr_state_bufs(fl[i], o->req_size, o->resp_size, err);
	}
	if (!ret)
		ret = flows_run(o, fl, n, err);
	if (sum && fl[n - 1])
		flows_sum(sum, fl, n);
	if (!ret) {
		rr_report(sum, out);
	} else if (ttool_path_failure(-ret) && fl[n - 1]) {
		for (unsigned int i = 0; i < n; i++)
			if (fl[i]->ret && !sum->phase)
				sum->phase = fl[i]->phase;
		rr_report_failure(sum, out);
		which = json_object_new_array();
		for (unsigned int i = 0; i < n; i++)
			if (fl[i]->ret)
				json_object_array_add(which, json_object_new_int((int)i));
		if (json_object_object_get_ex(out, "stall", &st))
			json_object_object_add(st, "flows_stalled", which);
		else
			json_object_put(which);
	}
	if ((!ret || ttool_path_failure(-ret)) && fl[n - 1])
		rr_add_flows(fl, n, out);
	for (unsigned int i = 0; i < n; i++)
		rr_state_free(fl[i]);
	rr_state_free(sum);
	return ret;
}

/* TCP server */

/* Accept a client on @lfd (non-blocking) within --idle-timeout; its address in s->peer. */
static int accept_within(struct rr_state *s, int lfd, char **err)
{
	struct tsock_addr a = { .len = sizeof(a.ss) };
	struct pollfd p = { .fd = lfd, .events = POLLIN };
	uint64_t idle = s->o->idle_timeout_ns, end = tclock_now() + idle, now;
	char local[TSOCK_ADDRSTRLEN];

	while ((now = tclock_now()) < end) {
		if (ttool_stopping())
			return terr_fmt(err, -EINTR,
					"stopped while accepting\nhint: a signal ended the run");
		if (poll(&p, 1, (int)((end - now) / TCLOCK_MS) + 1) <= 0)
			continue;
		a.len = sizeof(a.ss);
		s->fd = accept4(lfd, (struct sockaddr *)&a.ss, &a.len, SOCK_CLOEXEC);
		if (s->fd >= 0) {
			tsock_addr_str(&a, s->peer, sizeof(s->peer));
			return 0;
		}
		if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
			return terr_sys(err, errno, NULL, "cannot accept a client on port %llu",
					(unsigned long long)s->o->port);
	}
	a.len = sizeof(a.ss);
	getsockname(lfd, (struct sockaddr *)&a.ss, &a.len);
	return terr_fmt(
		err, -ETIMEDOUT,
		"no client connected to '%s' within %.1f s\nhint: start the client towards this address and port, or raise --idle-timeout",
		tsock_addr_str(&a, local, sizeof(local)), tclock_seconds(idle));
}

static int read_hello(struct rr_state *s, struct wire_hello *h, char **err)
{
	uint8_t buf[WIRE_HELLO_LEN];
	int ret;

	rr_tcp_setup(s->fd);
	ret = tsock_recv_all(s->fd, buf, sizeof(buf), s->o->idle_timeout_ns, ttool_stopping);
	if (ret)
		return rr_tcp_fail(s, ret, "the hello", err);
	if (wire_hello_decode(buf, sizeof(buf), h) || h->type != WIRE_HELLO_RR || !h->req_size ||
	    !h->resp_size || h->req_size > RR_TCP_MAX || h->resp_size > RR_TCP_MAX)
		return terr_fmt(
			err, -EPROTO,
			"'%s' is not an rr client\nhint: another program connected to this port: choose another --port",
			s->peer);
	return 0;
}

static int tcp_accept(struct rr_state *s, int lfd, struct wire_hello *h, char **err)
{
	int ret;

	s->phase = "accept";
	ret = accept_within(s, lfd, err);
	return ret ? ret : read_hello(s, h, err);
}

/* Serve until the client closes between transactions. */
static int tcp_serve(struct rr_state *s, char **err)
{
	uint64_t idle = s->o->idle_timeout_ns;
	int ret;

	s->start_ns = tclock_now();
	s->phase = "transaction";
	for (;;) {
		if (s->o->duration_ns && tclock_now() >= s->start_ns + s->o->duration_ns) {
			s->end_reason = "duration";
			break;
		}
		ret = tsock_recv_all(s->fd, s->req, s->req_len, idle, ttool_stopping);
		if (!ret)
			ret = tsock_send_all(s->fd, s->resp, s->resp_len, idle, ttool_stopping);
		if (ret == -ENODATA || ret == -EINTR) {
			s->end_reason = ret == -EINTR ? "signal" : "end";
			break;
		}
		if (ret)
			return rr_tcp_fail(s, ret, "a transaction", err);
		s->transactions++;
	}
	s->end_ns = tclock_now();
	return 0;
}

/* One --crr connection whose hello was read: its request, the response, the client's close. */
static void crr_serve_one(struct rr_state *s, const struct wire_hello *h)
{
	uint64_t idle = s->o->idle_timeout_ns;
	uint8_t c;
	int ret;

	if (!(h->flags & WIRE_F_CRR) || h->req_size != s->req_len || h->resp_size != s->resp_len) {
		s->invalid++;
		return;
	}
	s->connections++;
	ret = tsock_recv_all(s->fd, s->req, s->req_len, idle, ttool_stopping);
	if (!ret)
		ret = tsock_send_all(s->fd, s->resp, s->resp_len, idle, ttool_stopping);
	if (!ret) {
		s->transactions++;
		/* The client closes first: the TIME_WAIT stays on its end, as with netperf. */
		tsock_recv_all(s->fd, &c, 1, idle, ttool_stopping);
	} else if (ret != -EINTR) {
		tjson_count_errno(s->errs, -ret);
	}
}

/*
 * --crr: a transaction per connection, one connection after the other (the
 * others wait in the listen backlog), until the client's END hello, --duration,
 * or no client for --idle-timeout.
 */
static int crr_serve(struct rr_state *s, int lfd, const struct wire_hello *first, char **err)
{
	struct wire_hello h = *first;
	int ret;

	s->start_ns = tclock_now();
	s->phase = "transaction";
	while (!(h.flags & WIRE_F_END)) {
		crr_serve_one(s, &h);
		close(s->fd);
		s->fd = -1;
		if (ttool_stopping())
			s->end_reason = "signal";
		else if (s->o->duration_ns && tclock_now() >= s->start_ns + s->o->duration_ns)
			s->end_reason = "duration";
		if (s->end_reason)
			break;
		ret = accept_within(s, lfd, err);
		if (ret == -ETIMEDOUT || ret == -EINTR) {
			free(*err);
			*err = NULL;
			s->end_reason = ret == -EINTR ? "signal" : "idle_timeout";
			break;
		}
		if (ret)
			return ret;
		ret = read_hello(s, &h, err);
		if (ret) {
			/* A client that went away before its hello: count it, serve the next. */
			tjson_count_errno(s->errs, -ret);
			free(*err);
			*err = NULL;
			h.flags = 0;
		}
	}
	if (!s->end_reason)
		s->end_reason = "end";
	s->end_ns = tclock_now();
	return 0;
}

static void *serve_main(void *arg)
{
	struct rr_state *s = arg;

	s->cpu = sched_getcpu();
	s->ret = tcp_serve(s, &s->err);
	close(s->fd);
	s->fd = -1;
	return NULL;
}

/* The --flows N connections' hellos, after the first: each flow once. */
static int flows_accept(struct rr_state *s, int lfd, struct wire_hello *h, struct rr_state **fl,
			char **err)
{
	unsigned int got = 0;
	int ret;

	for (;;) {
		struct rr_state *f;

		if (h->flows != s->nflows || h->flow >= s->nflows || fl[h->flow] ||
		    (h->flags & WIRE_F_CRR))
			return terr_fmt(
				err, -EPROTO,
				"'%s' sent flow %u of %u, out of range or twice\nhint: two clients connected to this port: give each its own --port",
				s->peer, h->flow, h->flows);
		f = fl[h->flow] = rr_state_new(s->o);
		if (!f)
			return terr_sys(err, ENOMEM, NULL, "cannot allocate flow %u", h->flow);
		f->fd = s->fd;
		s->fd = -1;
		f->index = h->flow;
		memcpy(f->peer, s->peer, sizeof(f->peer));
		ret = rr_state_bufs(f, h->req_size, h->resp_size, err);
		if (ret || ++got == s->nflows)
			return ret;
		ret = tcp_accept(s, lfd, h, err);
		if (ret)
			return ret;
	}
}

/* --flows N without --crr: accept all N, then serve each in a thread of its own. */
static int flows_serve(struct rr_state *s, int lfd, struct wire_hello *h,
		       struct json_object **flows, char **err)
{
	struct rr_state *fl[RR_MAX_FLOWS] = { NULL };
	pthread_t th[RR_MAX_FLOWS];
	unsigned int started = 0, n;
	int ret, e;

	s->nflows = n = h->flows > RR_MAX_FLOWS ? RR_MAX_FLOWS : h->flows;
	ret = flows_accept(s, lfd, h, fl, err);
	for (; !ret && started < n; started++) {
		e = pthread_create(&th[started], NULL, serve_main, fl[started]);
		if (e)
			ret = terr_sys(err, e, NULL, "cannot start the thread of flow %u", started);
	}
	for (unsigned int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	*flows = json_object_new_array();
	for (unsigned int i = 0; i < n && fl[i]; i++) {
		struct json_object *o = json_object_new_object();

		if (!ret && fl[i]->ret)
			ret = terr_fmt(err, fl[i]->ret, "flow %u: %s", i, fl[i]->err);
		s->transactions += fl[i]->transactions;
		s->connections++;
		if (!s->start_ns || fl[i]->start_ns < s->start_ns)
			s->start_ns = fl[i]->start_ns;
		if (fl[i]->end_ns > s->end_ns)
			s->end_ns = fl[i]->end_ns;
		tjson_u64(o, "index", i);
		tjson_u64(o, "transactions", fl[i]->transactions);
		json_object_object_add(o, "cpu", json_object_new_int(fl[i]->cpu));
		json_object_array_add(*flows, o);
	}
	s->end_reason = fl[0] && fl[0]->end_reason ? fl[0]->end_reason : "end";
	s->phase = "transaction";
	for (unsigned int i = 0; i < n; i++)
		rr_state_free(fl[i]);
	return ret;
}

/* TCP: listen; the first client's hello says how to serve (one connection, --crr, --flows). */
int rr_tcp_server(struct rr_state *s, struct json_object **flows, char **err)
{
	const struct rr_opts *o = s->o;
	struct wire_hello h;
	int lfd, ret;

	s->phase = "accept";
	ret = tsock_listen(o->bind, (uint16_t)o->port,
			   o->backlog ? (int)o->backlog : RR_DEFAULT_BACKLOG, false, &lfd, err);
	if (ret)
		return ret;
	fcntl(lfd, F_SETFL, fcntl(lfd, F_GETFL) | O_NONBLOCK);
	ret = tcp_accept(s, lfd, &h, err);
	/* The sizes come with the client's hello. */
	if (!ret)
		ret = rr_state_bufs(s, h.req_size, h.resp_size, err);
	if (!ret && (h.flags & WIRE_F_CRR)) {
		ret = crr_serve(s, lfd, &h, err);
	} else if (!ret && h.flows > 1) {
		ret = flows_serve(s, lfd, &h, flows, err);
	} else if (!ret) {
		/* One client, as without --flows: nobody else may connect. */
		close(lfd);
		lfd = -1;
		s->connections = 1;
		ret = tcp_serve(s, err);
	}
	if (lfd >= 0)
		close(lfd);
	return ret;
}
