// SPDX-License-Identifier: GPL-2.0
/*
 * Several connections at once (--flows N, and the receiver's --listeners M):
 * one thread drives them all with poll(), each accounted on its own. The
 * hello of each connection carries N and its index; the receiver reports
 * its flows by those indexes, so both ends' "flows" line up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <linux/sockios.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "tclock.h"
#include "tcps.h"
#include "terr.h"
#include "tjson.h"
#include "tsock.h"
#include "ttool.h"
#include "wire.h"

struct tcps_flow {
	int fd;
	unsigned int listener; /* recv: the listening socket that accepted it */
	uint16_t port; /* send: its source port; recv: the sender's */
	uint64_t bytes;
	uint64_t start_ns; /* recv: when its hello was read */
	uint64_t end_ns; /* recv: its last byte read */
	uint64_t progress_ns;
	int cpu; /* the CPU this process was on at its last read or write */
	int unacked; /* send: bytes unacknowledged when it stalled */
	bool done; /* send: all acknowledged; recv: the sender closed */
	bool failed; /* stalled or reset */
	struct tcps_info info; /* send */
};

struct tcps_multi {
	const struct tcps_opts *o;
	char peer[TSOCK_ADDRSTRLEN];
	unsigned int n;
	unsigned int nlisten;
	struct tcps_flow flows[TCPS_MAX_FLOWS];
	int lfd[TCPS_MAX_LISTENERS];
	uint64_t accepted[TCPS_MAX_LISTENERS];
	uint64_t start_ns;
	uint64_t end_ns;
	const char *phase; /* where a failure of the path stopped it */
};

static struct tcps_multi *multi_new(const struct tcps_opts *o)
{
	struct tcps_multi *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->o = o;
	m->n = (unsigned int)o->flows;
	m->nlisten = o->recv ? (unsigned int)o->listeners : 0;
	for (unsigned int i = 0; i < TCPS_MAX_FLOWS; i++)
		m->flows[i].fd = -1;
	for (unsigned int j = 0; j < TCPS_MAX_LISTENERS; j++)
		m->lfd[j] = -1;
	return m;
}

static void multi_free(struct tcps_multi *m)
{
	for (unsigned int i = 0; i < TCPS_MAX_FLOWS; i++)
		if (m->flows[i].fd >= 0)
			close(m->flows[i].fd);
	for (unsigned int j = 0; j < TCPS_MAX_LISTENERS; j++)
		if (m->lfd[j] >= 0)
			close(m->lfd[j]);
	free(m);
}

static void multi_sample(struct tcps_multi *m)
{
	for (unsigned int i = 0; i < m->n; i++)
		if (m->flows[i].fd >= 0)
			tcps_info_sample(m->flows[i].fd, &m->flows[i].info);
}

static void multi_sample_if_due(struct tcps_multi *m, uint64_t now, uint64_t *next)
{
	if (now < *next)
		return;
	multi_sample(m);
	while (*next <= now)
		*next += TCPS_SAMPLE_NS;
}

/* Milliseconds for poll(): a tick, or less if @end comes sooner. */
static int poll_ms(uint64_t now, uint64_t end)
{
	uint64_t left = end > now ? end - now : 0;

	if (left > TCPS_TICK_NS)
		left = TCPS_TICK_NS;
	return (int)(left / TCLOCK_MS) + 1;
}

/*
 * The flows that made no progress for --idle-timeout are failed, and so is
 * the run: -ETIMEDOUT with *err naming how many and the first, or 0.
 */
static int multi_idle(struct tcps_multi *m, uint64_t now, char **err)
{
	uint64_t idle = m->o->idle_timeout_ns;
	unsigned int stalled = 0, first = 0;

	for (unsigned int i = 0; i < m->n; i++) {
		struct tcps_flow *f = &m->flows[i];

		if (f->fd < 0 || f->done || f->failed || now - f->progress_ns < idle)
			continue;
		if (!stalled++)
			first = i;
		f->failed = true;
		if (m->o->send)
			ioctl(f->fd, SIOCOUTQ, &f->unacked);
	}
	if (!stalled)
		return 0;
	if (m->o->send)
		return terr_fmt(
			err, -ETIMEDOUT,
			"sending to '%s' stalled for %.1f s on %u of %u flows (flow %u first)\nhint: the receiver stopped reading or the path drops everything",
			m->peer, tclock_seconds(idle), stalled, m->n, first);
	return terr_fmt(
		err, -ETIMEDOUT,
		"no data from '%s' for %.1f s on %u of %u flows (flow %u first)\nhint: the sender stalled or the path drops everything: raise --idle-timeout or look at the sender",
		m->peer, tclock_seconds(idle), stalled, m->n, first);
}

/* Sender: connect the N flows, one hello each. */
static int multi_connect(struct tcps_multi *m, char **err)
{
	const struct tcps_opts *o = m->o;
	struct wire_hello h = { .type = WIRE_HELLO_STREAM, .flows = (uint16_t)m->n };
	char hello[WIRE_HELLO_LEN];
	int ret;

	h.duration_ms = (uint32_t)(o->duration_ns / TCLOCK_MS);
	for (unsigned int i = 0; i < m->n; i++) {
		struct tcps_flow *f = &m->flows[i];

		m->phase = "connect";
		ret = tsock_open_connected(SOCK_STREAM, &o->dst_addr, o->bind, o->idle_timeout_ns,
					   o->cc, &f->fd, err);
		if (ret) {
			f->fd = -1;
			f->failed = true;
			return ret;
		}
		f->port = tcps_sock_port(f->fd, false);
		f->cpu = sched_getcpu();
		h.flow = (uint16_t)i;
		wire_hello_encode(&h, hello);
		m->phase = "hello";
		tsock_set_timeout(f->fd, SO_SNDTIMEO, TCPS_TICK_NS);
		ret = tsock_send_all(f->fd, hello, sizeof(hello), o->idle_timeout_ns,
				     ttool_stopping);
		if (ret) {
			f->failed = true;
			return terr_sys(err, -ret, NULL, "cannot send the hello of flow %u to '%s'",
					i, m->peer);
		}
		fcntl(f->fd, F_SETFL, fcntl(f->fd, F_GETFL) | O_NONBLOCK);
	}
	return 0;
}

/* Sender: write --size chunks to whichever flow can take them, for --duration. */
static int multi_tx(struct tcps_multi *m, const char *buf, uint64_t *next, char **err)
{
	struct pollfd p[TCPS_MAX_FLOWS];
	uint64_t end, now;
	ssize_t k;
	int ret;

	m->phase = "send";
	m->start_ns = now = tclock_now();
	end = m->start_ns + m->o->duration_ns;
	for (unsigned int i = 0; i < m->n; i++) {
		p[i] = (struct pollfd){ .fd = m->flows[i].fd, .events = POLLOUT };
		m->flows[i].progress_ns = now;
	}
	while ((now = tclock_now()) < end && !ttool_stopping()) {
		poll(p, m->n, poll_ms(now, end));
		now = tclock_now();
		for (unsigned int i = 0; i < m->n; i++) {
			struct tcps_flow *f = &m->flows[i];

			if (!p[i].revents)
				continue;
			k = send(f->fd, buf, m->o->size, MSG_NOSIGNAL);
			if (k > 0) {
				f->bytes += (uint64_t)k;
				f->progress_ns = now;
				f->cpu = sched_getcpu();
			} else if (errno != EAGAIN && errno != EINTR) {
				f->failed = true;
				return terr_sys(err, errno,
						"the receiver closed or reset the connection",
						"cannot send flow %u to '%s'", i, m->peer);
			}
		}
		ret = multi_idle(m, now, err);
		if (ret)
			return ret;
		multi_sample_if_due(m, now, next);
	}
	return 0;
}

/* Sender, after shutdown(SHUT_WR) of every flow: wait until the peer acknowledged all. */
static int multi_wait_acked(struct tcps_multi *m, uint64_t *next, char **err)
{
	uint64_t give_up = tclock_now() + m->o->idle_timeout_ns, now;
	unsigned int left = 0, first = 0;
	int outq, unacked = 0;

	m->phase = "ack";
	for (;;) {
		left = 0;
		for (unsigned int i = 0; i < m->n; i++) {
			struct tcps_flow *f = &m->flows[i];

			if (f->done)
				continue;
			if (ioctl(f->fd, SIOCOUTQ, &outq) || !outq) {
				f->done = true;
				continue;
			}
			f->unacked = outq;
			if (!left++)
				first = i;
		}
		if (!left || ttool_stopping())
			return 0;
		now = tclock_now();
		if (now >= give_up)
			break;
		multi_sample_if_due(m, now, next);
		tclock_sleep_until(now + TCLOCK_MS);
	}
	for (unsigned int i = 0; i < m->n; i++)
		if (!m->flows[i].done) {
			m->flows[i].failed = true;
			unacked += m->flows[i].unacked;
		}
	return terr_fmt(
		err, -ETIMEDOUT,
		"'%s' did not acknowledge the last %d bytes of %u of %u flows (flow %u first) within %.1f s\nhint: the receiver stalled or the path drops everything: raise --idle-timeout or look at the receiver",
		m->peer, unacked, left, m->n, first, tclock_seconds(m->o->idle_timeout_ns));
}

static int multi_send(struct tcps_multi *m, char **err)
{
	char *buf = malloc(m->o->size);
	uint64_t next;
	int ret;

	if (!buf)
		return terr_sys(err, ENOMEM, NULL, "cannot allocate the write buffer");
	memset(buf, 0x5a, m->o->size);
	ret = multi_connect(m, err);
	if (!ret) {
		next = tclock_now() + TCPS_SAMPLE_NS;
		ret = multi_tx(m, buf, &next, err);
		for (unsigned int i = 0; i < m->n; i++)
			shutdown(m->flows[i].fd, SHUT_WR);
		if (!ret)
			ret = multi_wait_acked(m, &next, err);
		m->end_ns = tclock_now();
		multi_sample(m);
	}
	free(buf);
	return ret;
}

/* Receiver: read the hello of a connection accepted on listener @j; it becomes its flow. */
static int multi_hello(struct tcps_multi *m, int fd, unsigned int j, char **err)
{
	char buf[WIRE_HELLO_LEN], peer[TSOCK_ADDRSTRLEN];
	struct tsock_addr a = { .len = sizeof(a.ss) };
	struct tcps_flow *f;
	struct wire_hello h;
	int ret;

	getpeername(fd, (struct sockaddr *)&a.ss, &a.len);
	tsock_addr_str(&a, peer, sizeof(peer));
	if (!m->peer[0])
		memcpy(m->peer, peer, sizeof(peer));
	tsock_set_timeout(fd, SO_RCVTIMEO, TCPS_TICK_NS);
	ret = tsock_recv_all(fd, buf, sizeof(buf), m->o->idle_timeout_ns, ttool_stopping);
	if (ret)
		return terr_sys(err, -ret, NULL, "no hello from '%s'", peer);
	if (wire_hello_decode(buf, sizeof(buf), &h) || h.type != WIRE_HELLO_STREAM)
		return terr_fmt(
			err, -EPROTO,
			"'%s' is not a tcp-stream sender\nhint: another program connected to this port: choose another --port",
			peer);
	if ((h.flows ? h.flows : 1) != m->n)
		return terr_fmt(
			err, -EPROTO,
			"'%s' opens %u flows, this receiver expects %u\nhint: give both ends the same --flows",
			peer, h.flows ? h.flows : 1, m->n);
	if (h.flags & WIRE_F_BIDIR)
		return terr_fmt(
			err, -EPROTO,
			"'%s' asks for --bidir, which this receiver cannot do with --listeners\nhint: drop --listeners, or --bidir at the sender",
			peer);
	if (h.flow >= m->n || m->flows[h.flow].fd >= 0)
		return terr_fmt(
			err, -EPROTO,
			"'%s' sent flow %u, which is out of range or came twice\nhint: two senders connected to this port: give each its own --port",
			peer, h.flow);
	if (m->o->cc) {
		ret = tsock_set_cc(fd, m->o->cc, err);
		if (ret)
			return ret;
	}
	f = &m->flows[h.flow];
	f->fd = fd;
	f->listener = j;
	f->port = tcps_sock_port(fd, true);
	f->cpu = sched_getcpu();
	f->start_ns = f->end_ns = f->progress_ns = tclock_now();
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return 0;
}

/* Receiver: listen on M sockets, accept N flows from whichever gets them. */
static int multi_accept(struct tcps_multi *m, char **err)
{
	const struct tcps_opts *o = m->o;
	struct pollfd p[TCPS_MAX_LISTENERS];
	uint64_t now, deadline;
	unsigned int got = 0;
	int fd, ret;

	m->phase = "accept";
	for (unsigned int j = 0; j < m->nlisten; j++) {
		ret = tsock_listen(o->bind, (uint16_t)o->port, (int)m->n, m->nlisten > 1,
				   &m->lfd[j], err);
		if (ret)
			return ret;
		fcntl(m->lfd[j], F_SETFL, fcntl(m->lfd[j], F_GETFL) | O_NONBLOCK);
		p[j] = (struct pollfd){ .fd = m->lfd[j], .events = POLLIN };
	}
	deadline = tclock_now() + o->idle_timeout_ns;
	while (got < m->n) {
		now = tclock_now();
		if (ttool_stopping())
			return terr_fmt(err, -EINTR,
					"stopped while accepting\nhint: a signal ended the run");
		if (now >= deadline)
			return terr_fmt(
				err, -ETIMEDOUT,
				"%u of %u flows connected to port %llu within %.1f s\nhint: start the sender with the same --flows towards this address and port, or raise --idle-timeout",
				got, m->n, (unsigned long long)o->port,
				tclock_seconds(o->idle_timeout_ns));
		poll(p, m->nlisten, poll_ms(now, deadline));
		for (unsigned int j = 0; j < m->nlisten && got < m->n; j++) {
			if (!p[j].revents)
				continue;
			fd = accept4(m->lfd[j], NULL, NULL, SOCK_CLOEXEC);
			if (fd < 0)
				continue;
			ret = multi_hello(m, fd, j, err);
			if (ret) {
				close(fd);
				return ret;
			}
			m->accepted[j]++;
			got++;
			deadline = tclock_now() + o->idle_timeout_ns;
		}
	}
	return 0;
}

/* Receiver: read every flow until its sender closes it. */
static int multi_rx(struct tcps_multi *m, char **err)
{
	struct pollfd p[TCPS_MAX_FLOWS];
	unsigned int open = m->n;
	char *buf = malloc(TCPS_RX_BUF);
	uint64_t now;
	ssize_t k;
	int ret = 0;

	if (!buf)
		return terr_sys(err, ENOMEM, NULL, "cannot allocate the read buffer");
	m->phase = "receive";
	m->start_ns = m->flows[0].start_ns;
	for (unsigned int i = 0; i < m->n; i++) {
		p[i] = (struct pollfd){ .fd = m->flows[i].fd, .events = POLLIN };
		if (m->flows[i].start_ns < m->start_ns)
			m->start_ns = m->flows[i].start_ns;
	}
	while (open && !ttool_stopping() && !ret) {
		poll(p, m->n, poll_ms(0, TCPS_TICK_NS));
		now = tclock_now();
		for (unsigned int i = 0; i < m->n && !ret; i++) {
			struct tcps_flow *f = &m->flows[i];

			if (p[i].fd < 0 || !p[i].revents)
				continue;
			k = recv(f->fd, buf, TCPS_RX_BUF, 0);
			if (k > 0) {
				f->bytes += (uint64_t)k;
				f->end_ns = f->progress_ns = now;
				f->cpu = sched_getcpu();
			} else if (!k) {
				f->done = true;
				p[i].fd = -1;
				open--;
			} else if (errno != EAGAIN && errno != EINTR) {
				f->failed = true;
				ret = terr_sys(err, errno, "the sender reset the connection",
					       "cannot receive flow %u from '%s'", i, m->peer);
			}
		}
		if (!ret)
			ret = multi_idle(m, now, err);
	}
	m->end_ns = m->start_ns;
	for (unsigned int i = 0; i < m->n; i++)
		if (m->flows[i].end_ns > m->end_ns)
			m->end_ns = m->flows[i].end_ns;
	free(buf);
	return ret;
}

/* The sum of the flows, as "tx" or "rx"; tcp_info: flow 0's, with the sums and extremes of all. */
static struct json_object *multi_dir_json(const struct tcps_multi *m)
{
	struct tcps_dir d = { .o = m->o, .start_ns = m->start_ns, .end_ns = m->end_ns };
	uint32_t retrans = 0;

	d.info = m->flows[0].info;
	for (unsigned int i = 0; i < m->n; i++) {
		const struct tcps_info *s = &m->flows[i].info;

		d.bytes += m->flows[i].bytes;
		retrans += s->last.tcpi_total_retrans;
		if (s->samples && s->cwnd_min < d.info.cwnd_min)
			d.info.cwnd_min = s->cwnd_min;
		if (s->cwnd_max > d.info.cwnd_max)
			d.info.cwnd_max = s->cwnd_max;
		if (s->samples && s->rtt_min < d.info.rtt_min)
			d.info.rtt_min = s->rtt_min;
		if (s->rtt_max > d.info.rtt_max)
			d.info.rtt_max = s->rtt_max;
	}
	d.info.last.tcpi_total_retrans = retrans;
	return tcps_dir_json(&d, m->o->send);
}

static void multi_report(const struct tcps_multi *m, struct json_object *out)
{
	struct json_object *flows = json_object_new_array(), *ls;
	char cc[32] = "";
	socklen_t len = sizeof(cc) - 1;

	if (m->flows[0].fd >= 0)
		getsockopt(m->flows[0].fd, IPPROTO_TCP, TCP_CONGESTION, cc, &len);
	tjson_str(out, "congestion_control", cc);
	json_object_object_add(out, "bidir", json_object_new_boolean(false));
	json_object_object_add(out, "tx", m->o->send ? multi_dir_json(m) : NULL);
	json_object_object_add(out, "rx", m->o->send ? NULL : multi_dir_json(m));
	for (unsigned int i = 0; i < m->n; i++) {
		const struct tcps_flow *f = &m->flows[i];
		struct json_object *fj;

		if (m->o->send) {
			fj = tcps_tx_flow_json(i, f->port, f->bytes, &f->info, f->cpu);
		} else {
			fj = tcps_rx_flow_json(i, f->port, f->bytes, f->end_ns - f->start_ns,
					       f->cpu);
			if (f->fd >= 0)
				tjson_u64(fj, "listener", f->listener);
		}
		json_object_array_add(flows, fj);
	}
	json_object_object_add(out, "flows", flows);
	if (m->o->recv) {
		ls = json_object_new_array();
		for (unsigned int j = 0; j < m->nlisten; j++) {
			struct json_object *l = json_object_new_object();

			tjson_u64(l, "index", j);
			tjson_u64(l, "accepted", m->accepted[j]);
			json_object_array_add(ls, l);
		}
		json_object_object_add(out, "listeners", ls);
	}
	tcps_add_process(out);
}

/* After a failure of the path: what was measured, and which flows stopped it ("stall"). */
static void multi_report_failure(const struct tcps_multi *m, struct json_object *out)
{
	struct json_object *st = json_object_new_object(), *which = json_object_new_array();
	uint64_t bytes = 0, unacked = 0;

	multi_report(m, out);
	for (unsigned int i = 0; i < m->n; i++) {
		bytes += m->flows[i].bytes;
		if (!m->flows[i].failed)
			continue;
		json_object_array_add(which, json_object_new_int((int)i));
		if (m->flows[i].unacked > 0)
			unacked += (uint64_t)m->flows[i].unacked;
	}
	tjson_str(st, "end", m->o->send ? "tx" : "rx");
	tjson_str(st, "phase", m->phase ? m->phase : "connect");
	if (m->o->send)
		tjson_u64(st, "unacked_bytes", unacked);
	tjson_u64(st, "bytes_before", bytes);
	tjson_double(st, "idle_s", tclock_seconds(m->o->idle_timeout_ns), 3);
	json_object_object_add(st, "flows_stalled", which);
	json_object_object_add(out, "stall", st);
}

int tcps_run_multi(const struct tcps_opts *o, struct json_object *out, char **err)
{
	struct tcps_multi *m = multi_new(o);
	int ret;

	if (!m)
		return terr_sys(err, ENOMEM, NULL, "cannot allocate %llu flows",
				(unsigned long long)o->flows);
	if (o->send) {
		tsock_addr_str(&o->dst_addr, m->peer, sizeof(m->peer));
		ret = multi_send(m, err);
	} else {
		ret = multi_accept(m, err);
		if (!ret)
			ret = multi_rx(m, err);
	}
	if (!ret)
		multi_report(m, out);
	else if (ttool_path_failure(-ret))
		multi_report_failure(m, out);
	multi_free(m);
	return ret;
}
