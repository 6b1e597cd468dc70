// SPDX-License-Identifier: GPL-2.0
/*
 * tcp-stream: TCP goodput. The receiver (--recv) listens and serves exactly
 * one connection; the sender (--send) connects, sends a hello (wire.h) with
 * the duration and flags, writes for --duration, shuts down its sending side
 * and waits until the peer has acknowledged every byte (SIOCOUTQ = 0).
 *
 * Both directions: --send --bidir makes both ends send and receive at once,
 * on the one connection (a writer thread and a reader), for the sender's
 * --duration; each end then reports "tx" and "rx".
 *
 * Goodput: rx = bytes read * 8 / (last byte read - start of reading);
 * tx = bytes written * 8 / (all acknowledged - first write). TCP_INFO of the
 * sending side is sampled every TCPS_SAMPLE_NS.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <json-c/json.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "tclock.h"
#include "terr.h"
#include "tjson.h"
#include "tsock.h"
#include "ttool.h"
#include "gen_opts.h"
#include "tcps.h"
#include "wire.h"

static void tcps_init(void *p)
{
	struct tcps_opts *o = p;

	o->port = TCPS_DEFAULT_PORT;
	o->size = 128 * 1024;
	o->idle_timeout_ns = 10 * TCLOCK_S;
	o->flows = 1;
	o->listeners = 1;
}

static int tcps_check(void *p, char **err)
{
	struct tcps_opts *o = p;
	struct tsock_addr a;

	if (o->send == o->recv)
		return terr_fmt(
			err, -EINVAL,
			"give exactly one of --send and --recv\nhint: run '--recv' on one end, then '--send --dst ADDR' on the other");
	if (o->recv)
		return tsock_addr_opt("bind", o->bind, 0, &a, err);
	if (o->bidir && o->flows > 1)
		return terr_fmt(
			err, -EINVAL,
			"options '--bidir' and '--flows %llu' cannot be combined\nhint: --bidir runs both directions on one connection: drop --flows, or run a second sender from the other end",
			(unsigned long long)o->flows);
	if (!o->dst)
		return terr_fmt(
			err, -EINVAL,
			"option '--dst' is required with --send\nhint: --dst ADDR: the receiver's address, e.g. 198.18.0.2");
	if (!o->duration_ns)
		o->duration_ns = 10 * TCLOCK_S;
	return tsock_peer_opts(o->dst, o->bind, (uint16_t)o->port, &o->dst_addr, err);
}

static const char *tcps_role(const void *p)
{
	return ((const struct tcps_opts *)p)->send ? "send" : "recv";
}

void tcps_info_sample(int fd, struct tcps_info *s)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len))
		return;
	if (!s->samples || ti.tcpi_snd_cwnd < s->cwnd_min)
		s->cwnd_min = ti.tcpi_snd_cwnd;
	if (!s->samples || ti.tcpi_rtt < s->rtt_min)
		s->rtt_min = ti.tcpi_rtt;
	if (ti.tcpi_snd_cwnd > s->cwnd_max)
		s->cwnd_max = ti.tcpi_snd_cwnd;
	if (ti.tcpi_rtt > s->rtt_max)
		s->rtt_max = ti.tcpi_rtt;
	s->last = ti;
	s->samples++;
}

static void sample(struct tcps_dir *d)
{
	tcps_info_sample(d->fd, &d->info);
}

static void sample_if_due(struct tcps_dir *d, uint64_t now, uint64_t *next)
{
	if (now < *next)
		return;
	sample(d);
	while (*next <= now)
		*next += TCPS_SAMPLE_NS;
}

/* After shutdown(SHUT_WR): wait until the peer acknowledged all, FIN included. */
static int wait_acked(struct tcps_dir *d, uint64_t *next)
{
	uint64_t give_up = tclock_now() + d->o->idle_timeout_ns, now;
	int outq;

	for (;;) {
		if (ioctl(d->fd, SIOCOUTQ, &outq) || !outq || ttool_stopping())
			return 0;
		now = tclock_now();
		if (now >= give_up)
			break;
		sample_if_due(d, now, next);
		tclock_sleep_until(now + TCLOCK_MS);
	}
	d->phase = "ack";
	d->unacked = outq;
	return terr_fmt(
		&d->err, -ETIMEDOUT,
		"'%s' did not acknowledge the last %d bytes within %.1f s\nhint: the receiver stalled or the path drops everything: raise --idle-timeout or look at the receiver",
		d->peer, outq, tclock_seconds(d->o->idle_timeout_ns));
}

static int tx_loop(struct tcps_dir *d, const char *buf, uint64_t *next)
{
	uint64_t end = d->start_ns + d->duration_ns, progress = d->start_ns, now;
	ssize_t n;

	while ((now = tclock_now()) < end && !ttool_stopping()) {
		n = send(d->fd, buf, d->o->size, MSG_NOSIGNAL);
		now = tclock_now();
		if (n > 0) {
			d->bytes += (uint64_t)n;
			progress = now;
		} else if (errno != EAGAIN && errno != EINTR) {
			d->phase = "send";
			return terr_sys(&d->err, errno,
					"the receiver closed or reset the connection",
					"cannot send to '%s'", d->peer);
		} else if (now - progress >= d->o->idle_timeout_ns) {
			int outq = 0;

			d->phase = "send";
			if (!ioctl(d->fd, SIOCOUTQ, &outq))
				d->unacked = outq;
			return terr_fmt(
				&d->err, -ETIMEDOUT,
				"sending to '%s' stalled for %.1f s\nhint: the receiver stopped reading or the path drops everything",
				d->peer, tclock_seconds(d->o->idle_timeout_ns));
		}
		sample_if_due(d, now, next);
	}
	return 0;
}

static void *tx_run(void *arg)
{
	struct tcps_dir *d = arg;
	uint64_t next;
	char *buf = malloc(d->o->size);

	if (!buf) {
		d->ret = terr_sys(&d->err, ENOMEM, NULL, "cannot allocate the write buffer");
		return NULL;
	}
	memset(buf, 0x5a, d->o->size);
	tsock_set_timeout(d->fd, SO_SNDTIMEO, TCPS_TICK_NS);
	d->start_ns = tclock_now();
	next = d->start_ns + TCPS_SAMPLE_NS;
	d->ret = tx_loop(d, buf, &next);
	shutdown(d->fd, SHUT_WR);
	if (!d->ret)
		d->ret = wait_acked(d, &next);
	d->end_ns = tclock_now();
	sample(d);
	free(buf);
	return NULL;
}

static int rx_loop(struct tcps_dir *d, char *buf)
{
	uint64_t progress = d->start_ns, now;
	ssize_t n;

	for (;;) {
		n = recv(d->fd, buf, TCPS_RX_BUF, 0);
		now = tclock_now();
		if (n > 0) {
			d->bytes += (uint64_t)n;
			d->end_ns = now;
			progress = now;
		} else if (!n || ttool_stopping()) {
			return 0;
		} else if (errno != EAGAIN && errno != EINTR) {
			d->phase = "receive";
			return terr_sys(&d->err, errno, "the sender reset the connection",
					"cannot receive from '%s'", d->peer);
		} else if (now - progress >= d->o->idle_timeout_ns) {
			d->phase = "receive";
			return terr_fmt(
				&d->err, -ETIMEDOUT,
				"no data from '%s' for %.1f s\nhint: the sender stalled or the path drops everything: raise --idle-timeout or look at the sender",
				d->peer, tclock_seconds(d->o->idle_timeout_ns));
		}
	}
}

static void *rx_run(void *arg)
{
	struct tcps_dir *d = arg;
	char *buf = malloc(TCPS_RX_BUF);

	if (!buf) {
		d->ret = terr_sys(&d->err, ENOMEM, NULL, "cannot allocate the read buffer");
		return NULL;
	}
	tsock_set_timeout(d->fd, SO_RCVTIMEO, TCPS_TICK_NS);
	d->end_ns = d->start_ns;
	d->ret = rx_loop(d, buf);
	free(buf);
	return NULL;
}

/* Run @tx and/or @rx (NULL: not this direction), both at once if both. */
static int run_dirs(struct tcps_dir *tx, struct tcps_dir *rx, char **err)
{
	pthread_t th;
	int ret;

	/* Reading starts now, whenever the reader gets a CPU. */
	if (rx)
		rx->start_ns = tclock_now();
	if (tx && rx) {
		ret = pthread_create(&th, NULL, tx_run, tx);
		if (ret)
			return terr_sys(err, ret, NULL, "cannot start the writer thread");
		rx_run(rx);
		if (rx->ret)
			shutdown(rx->fd, SHUT_RDWR); /* unblock the writer */
		pthread_join(th, NULL);
	} else if (tx) {
		tx_run(tx);
	} else {
		rx_run(rx);
	}
	if (rx && rx->ret)
		return terr_fmt(err, rx->ret, "%s", rx->err);
	if (tx && tx->ret)
		return terr_fmt(err, tx->ret, "%s", tx->err);
	return 0;
}

static struct json_object *info_json(const struct tcps_info *s)
{
	struct json_object *o = json_object_new_object();

	tjson_u64(o, "total_retrans", s->last.tcpi_total_retrans);
	tjson_u64(o, "snd_cwnd", s->last.tcpi_snd_cwnd);
	tjson_u64(o, "snd_mss_bytes", s->last.tcpi_snd_mss);
	tjson_u64(o, "rtt_us", s->last.tcpi_rtt);
	tjson_u64(o, "rttvar_us", s->last.tcpi_rttvar);
	tjson_u64(o, "samples", s->samples);
	tjson_u64(o, "cwnd_min", s->cwnd_min);
	tjson_u64(o, "cwnd_max", s->cwnd_max);
	tjson_u64(o, "rtt_min_us", s->rtt_min);
	tjson_u64(o, "rtt_max_us", s->rtt_max);
	return o;
}

struct json_object *tcps_dir_json(const struct tcps_dir *d, bool is_tx)
{
	struct json_object *o = json_object_new_object();
	double secs = tclock_seconds(d->end_ns - d->start_ns);

	tjson_u64(o, "bytes", d->bytes);
	tjson_double(o, "duration_s", secs, 6);
	tjson_u64(o, "goodput_bps", secs > 0 ? (uint64_t)(8.0 * (double)d->bytes / secs) : 0);
	if (is_tx)
		json_object_object_add(o, "tcp_info", info_json(&d->info));
	return o;
}

/* The port of this end (@peer false) or of the other end of @fd. */
uint16_t tcps_sock_port(int fd, bool peer)
{
	struct tsock_addr a = { .len = sizeof(a.ss) };
	const struct sockaddr_in6 *s6 = (const void *)&a.ss;
	const struct sockaddr_in *s4 = (const void *)&a.ss;

	if ((peer ? getpeername : getsockname)(fd, (struct sockaddr *)&a.ss, &a.len))
		return 0;
	return ntohs(a.ss.ss_family == AF_INET ? s4->sin_port : s6->sin6_port);
}

/* A sender's flow in "flows": its source port, bytes written, TCP_INFO, CPU. */
struct json_object *tcps_tx_flow_json(unsigned int index, uint16_t sport, uint64_t bytes,
				      const struct tcps_info *s, int cpu)
{
	struct json_object *f = json_object_new_object(), *ti = json_object_new_object();

	tjson_u64(f, "index", index);
	tjson_u64(f, "sport", sport);
	tjson_u64(f, "bytes", bytes);
	tjson_u64(ti, "total_retrans", s->last.tcpi_total_retrans);
	tjson_u64(ti, "rtt_us", s->last.tcpi_rtt);
	tjson_u64(ti, "snd_cwnd", s->last.tcpi_snd_cwnd);
	json_object_object_add(f, "tcp_info", ti);
	json_object_object_add(f, "cpu", json_object_new_int(cpu));
	return f;
}

/* A receiver's flow in "flows": the sender's port, bytes read, goodput, CPU. */
struct json_object *tcps_rx_flow_json(unsigned int index, uint16_t sport, uint64_t bytes,
				      uint64_t span_ns, int cpu)
{
	struct json_object *f = json_object_new_object();
	double secs = tclock_seconds(span_ns);

	tjson_u64(f, "index", index);
	tjson_u64(f, "sport", sport);
	tjson_u64(f, "bytes", bytes);
	tjson_u64(f, "goodput_bps", secs > 0 ? (uint64_t)(8.0 * (double)bytes / secs) : 0);
	json_object_object_add(f, "cpu", json_object_new_int(cpu));
	return f;
}

/* "pid" and "cpu": this process, and the CPU it ended on. */
void tcps_add_process(struct json_object *out)
{
	tjson_u64(out, "pid", (uint64_t)getpid());
	json_object_object_add(out, "cpu", json_object_new_int(sched_getcpu()));
}

static void report(int fd, const struct tcps_dir *tx, const struct tcps_dir *rx,
		   struct json_object *out)
{
	struct json_object *flows = json_object_new_array();
	char cc[32] = "";
	socklen_t len = sizeof(cc) - 1;

	getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, &len);
	tjson_str(out, "congestion_control", cc);
	json_object_object_add(out, "bidir", json_object_new_boolean(tx && rx));
	json_object_object_add(out, "tx", tx ? tcps_dir_json(tx, true) : NULL);
	json_object_object_add(out, "rx", rx ? tcps_dir_json(rx, false) : NULL);
	/* The one connection as flow 0: the sender's end reports what it wrote. */
	if (tx && tx->o->send)
		json_object_array_add(flows,
				      tcps_tx_flow_json(0, tcps_sock_port(fd, false), tx->bytes,
							&tx->info, sched_getcpu()));
	else if (rx)
		json_object_array_add(flows,
				      tcps_rx_flow_json(0, tcps_sock_port(fd, true), rx->bytes,
							rx->end_ns - rx->start_ns, sched_getcpu()));
	if (!(tx && tx->o->send) && rx)
		tjson_u64(json_object_array_get_idx(flows, 0), "listener", 0);
	json_object_object_add(out, "flows", flows);
	tcps_add_process(out);
}

/*
 * After a failure of the path: what was measured until then, and where it
 * stopped ("stall": the failing direction's phase, its unacknowledged bytes
 * and the idle timeout), for ttool_main() to print.
 */
static void report_failure(int fd, const struct tcps_dir *tx, const struct tcps_dir *rx,
			   struct json_object *out)
{
	const struct tcps_dir *d = rx && rx->ret ? rx : tx;
	struct json_object *st = json_object_new_object();

	report(fd, tx, rx, out);
	tjson_str(st, "end", d == tx ? "tx" : "rx");
	tjson_str(st, "phase", d->phase ? d->phase : "connect");
	if (d == tx)
		tjson_u64(st, "unacked_bytes", (uint64_t)(d->unacked > 0 ? d->unacked : 0));
	tjson_u64(st, "bytes_before", d->bytes);
	tjson_double(st, "idle_s", tclock_seconds(d->o->idle_timeout_ns), 3);
	json_object_object_add(out, "stall", st);
}

/* A failure of the path before there was a connection to measure: where. */
static int phase_failure(int ret, const char *phase, const struct tcps_opts *o,
			 struct json_object *out)
{
	struct json_object *st;

	if (!ttool_path_failure(-ret))
		return ret;
	st = json_object_new_object();
	tjson_str(st, "phase", phase);
	tjson_double(st, "idle_s", tclock_seconds(o->idle_timeout_ns), 3);
	json_object_object_add(out, "stall", st);
	return ret;
}

static int run_send(const struct tcps_opts *o, struct json_object *out, char **err)
{
	char peer[TSOCK_ADDRSTRLEN], hello[WIRE_HELLO_LEN];
	struct wire_hello h = { .type = WIRE_HELLO_STREAM };
	struct tcps_dir tx = { .o = o, .peer = peer }, rx = { .o = o, .peer = peer };
	int fd, ret;

	ret = tsock_open_connected(SOCK_STREAM, &o->dst_addr, o->bind, o->idle_timeout_ns, o->cc,
				   &fd, err);
	if (ret)
		return phase_failure(ret, "connect", o, out);
	tsock_addr_str(&o->dst_addr, peer, sizeof(peer));
	h.flags = o->bidir ? WIRE_F_BIDIR : 0;
	h.duration_ms = (uint32_t)(o->duration_ns / TCLOCK_MS);
	wire_hello_encode(&h, hello);
	tsock_set_timeout(fd, SO_SNDTIMEO, TCPS_TICK_NS);
	ret = tsock_send_all(fd, hello, sizeof(hello), o->idle_timeout_ns, ttool_stopping);
	if (ret) {
		ret = phase_failure(terr_sys(err, -ret, NULL, "cannot send the hello to '%s'", peer),
				    "hello", o, out);
		goto out;
	}
	tx.fd = rx.fd = fd;
	tx.duration_ns = o->duration_ns;
	ret = run_dirs(&tx, o->bidir ? &rx : NULL, err);
	if (!ret)
		report(fd, &tx, o->bidir ? &rx : NULL, out);
	else if (ttool_path_failure(-ret))
		report_failure(fd, &tx, o->bidir ? &rx : NULL, out);
out:
	free(tx.err);
	free(rx.err);
	close(fd);
	return ret;
}

/* Accept the one client and read its hello. */
static int accept_client(const struct tcps_opts *o, int *fd, char *peer, struct wire_hello *h,
			 char **err)
{
	char buf[WIRE_HELLO_LEN];
	int ret;

	ret = tsock_accept_one(o->bind, (uint16_t)o->port, o->idle_timeout_ns, fd, peer, err);
	if (ret)
		return ret;
	tsock_set_timeout(*fd, SO_RCVTIMEO, TCPS_TICK_NS);
	ret = tsock_recv_all(*fd, buf, sizeof(buf), o->idle_timeout_ns, ttool_stopping);
	if (!ret && (wire_hello_decode(buf, sizeof(buf), h) || h->type != WIRE_HELLO_STREAM))
		ret = terr_fmt(
			err, -EPROTO,
			"'%s' is not a tcp-stream sender\nhint: another program connected to this port: choose another --port",
			peer);
	else if (ret)
		ret = terr_sys(err, -ret, NULL, "no hello from '%s'", peer);
	else if (h->flows > 1)
		ret = terr_fmt(
			err, -EPROTO,
			"'%s' opens %u flows, this receiver expects 1\nhint: give both ends the same --flows",
			peer, h->flows);
	if (ret)
		close(*fd);
	return ret;
}

/* "listeners" of the one-connection receiver: it accepted its client. */
static struct json_object *listener_json(void)
{
	struct json_object *ls = json_object_new_array(), *l = json_object_new_object();

	tjson_u64(l, "index", 0);
	tjson_u64(l, "accepted", 1);
	json_object_array_add(ls, l);
	return ls;
}

static int run_recv(const struct tcps_opts *o, struct json_object *out, char **err)
{
	char peer[TSOCK_ADDRSTRLEN];
	struct tcps_dir tx = { .o = o, .peer = peer }, rx = { .o = o, .peer = peer };
	struct wire_hello h;
	bool bidir;
	int fd, ret;

	ret = accept_client(o, &fd, peer, &h, err);
	if (ret)
		return phase_failure(ret, "accept", o, out);
	if (o->cc)
		ret = tsock_set_cc(fd, o->cc, err);
	if (ret)
		goto out;
	bidir = h.flags & WIRE_F_BIDIR;
	tx.fd = rx.fd = fd;
	tx.duration_ns = (uint64_t)h.duration_ms * TCLOCK_MS;
	ret = run_dirs(bidir ? &tx : NULL, &rx, err);
	if (!ret)
		report(fd, bidir ? &tx : NULL, &rx, out);
	else if (ttool_path_failure(-ret))
		report_failure(fd, bidir ? &tx : NULL, &rx, out);
	if (!ret || ttool_path_failure(-ret))
		json_object_object_add(out, "listeners", listener_json());
out:
	free(tx.err);
	free(rx.err);
	close(fd);
	return ret;
}

static int tcps_run(const void *p, struct json_object *out, char **err)
{
	const struct tcps_opts *o = p;

	if (o->flows > 1 || o->listeners > 1)
		return tcps_run_multi(o, out, err);
	return o->send ? run_send(o, out, err) : run_recv(o, out, err);
}

const struct ttool tcp_stream_tool = {
	.name = "tcp-stream",
	.usage = "Usage: tcp-stream --recv [--bind ADDR] [options]\n"
		 "       tcp-stream --send --dst ADDR [--bidir] [--duration SEC] [options]\n"
		 "\n"
		 "Measures TCP goodput. The receiver serves one sender, then exits. With --bidir\n"
		 "both ends send and receive at once, on one connection, and report both.\n"
		 "With --flows N (give both ends the same N) the sender opens N connections at\n"
		 "once and each is accounted on its own (\"flows\"); with --listeners M the\n"
		 "receiver accepts them on M sockets sharing the port (SO_REUSEPORT).\n",
	.opts = tcps_table,
	.opts_size = sizeof(struct tcps_opts),
	.common_off = offsetof(struct tcps_opts, common),
	.init = tcps_init,
	.check = tcps_check,
	.role = tcps_role,
	.run = tcps_run,
};
