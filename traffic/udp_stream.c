// SPDX-License-Identifier: GPL-2.0
/*
 * udp-stream: paced UDP datagrams carrying a sequence number and a send
 * timestamp (--send), and their accounting where they arrive (--recv).
 *
 * Datagrams are --size bytes of UDP payload, or with --size-max each of a
 * size drawn from [--size, --size-max] by a function of --seed and its
 * sequence number (tsize.h), so that a run exercises every frame length in
 * the range and repeats exactly. The receiver copies only the header and
 * takes the length from MSG_TRUNC: it handles any size without knowing it.
 *
 * The sender ends with UDPS_END_COPIES END datagrams, UDPS_END_SPACING_NS
 * apart, each carrying the number of datagrams sent. The receiver ends on the
 * last END copy (or UDPFLOW_END_GRACE_NS after the first one it got), when
 * nothing arrived for --idle-timeout, after its own --duration, or on SIGINT/
 * SIGTERM; it then reports loss as sent - unique (seqacct.h).
 *
 * Several flows (--flows N): the sender sends round-robin from N sockets
 * (source ports --sport + i), each flow with its own ids, sequence numbers and
 * END copies; the receiver accounts each flow (udpflow.h) on --sockets M
 * sockets sharing the port (SO_REUSEPORT), or connected one per flow
 * (--connected), and ends when every flow ended. --procs splits either end
 * among processes (udps_procs.h).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "hist.h"
#include "netstat.h"
#include "pacer.h"
#include "seqacct.h"
#include "tclock.h"
#include "terr.h"
#include "tjson.h"
#include "tsize.h"
#include "tsock.h"
#include "ttool.h"
#include "gen_opts.h"
#include "udpflow.h"
#include "udps_procs.h"
#include "wire.h"

#define UDPS_END_COPIES 5
#define UDPS_END_SPACING_NS (10 * TCLOCK_MS)
#define UDPS_TICK_NS (100 * TCLOCK_MS)
#define UDPS_STALL_NS (5 * TCLOCK_S)
#define UDPS_BATCH 64

static void udps_init(void *p)
{
	struct udps_opts *o = p;

	o->port = UDPS_DEFAULT_PORT;
	o->size = 1400;
	o->seed = 1;
	o->burst = 1;
	o->idle_timeout_ns = 5 * TCLOCK_S;
	o->flows = 1;
	o->sockets = 1;
	o->procs = 1;
}

static int check_send(struct udps_opts *o, char **err)
{
	int ret;

	if (!o->dst)
		return terr_fmt(
			err, -EINVAL,
			"option '--dst' is required with --send\nhint: --dst ADDR: the receiver's address, e.g. 198.18.0.2");
	ret = tsock_peer_opts(o->dst, o->bind, (uint16_t)o->port, &o->dst_addr, err);
	if (ret)
		return ret;
	if (o->burst_gap_ns && o->rate.unit != PACER_NONE)
		return terr_fmt(
			err, -EINVAL,
			"options '--burst-gap' and '--rate'/'--bitrate' cannot be combined\nhint: the gap sets the rate: --burst N datagrams every --burst-gap USEC");
	if (o->size_max && o->size_max < o->size)
		return terr_fmt(
			err, -EINVAL,
			"option '--size-max': %llu is less than '--size' %llu\nhint: sizes are drawn from --size to --size-max: give --size-max %llu or more, or a smaller --size",
			(unsigned long long)o->size_max, (unsigned long long)o->size,
			(unsigned long long)o->size);
	if (o->flow_id && o->flow_id + o->flows - 1 > UINT32_MAX)
		return terr_fmt(
			err, -EINVAL,
			"option '--flow-id': ids %llu..%llu of --flows %llu go past %u\nhint: give a smaller --flow-id",
			(unsigned long long)o->flow_id,
			(unsigned long long)(o->flow_id + o->flows - 1),
			(unsigned long long)o->flows, UINT32_MAX);
	if (o->procs > o->flows)
		return terr_fmt(
			err, -EINVAL,
			"option '--procs': %llu processes for %llu flows\nhint: each process sends at least one flow: give --flows %llu or more, or fewer --procs",
			(unsigned long long)o->procs, (unsigned long long)o->flows,
			(unsigned long long)o->procs);
	if (!o->duration_ns && !o->count)
		o->duration_ns = 10 * TCLOCK_S;
	return 0;
}

static int check_connected(struct udps_opts *o, char **err)
{
	if (!o->peer || !o->sport)
		return terr_fmt(
			err, -EINVAL,
			"option '--connected' needs '--peer' and '--sport'\nhint: socket i is connected to --peer ADDR, port --sport PORT+i: the sender's address and its --sport");
	if (o->sockets != o->flows)
		return terr_fmt(
			err, -EINVAL,
			"option '--connected': --sockets %llu is not --flows %llu\nhint: one connected socket per flow: give --sockets %llu",
			(unsigned long long)o->sockets, (unsigned long long)o->flows,
			(unsigned long long)o->flows);
	return tsock_addr_opt("peer", o->peer, 0, &o->peer_addr, err);
}

static int check_recv(struct udps_opts *o, char **err)
{
	struct tsock_addr a;
	int ret = tsock_addr_opt("bind", o->bind, 0, &a, err);

	if (ret)
		return ret;
	if (o->connected) {
		ret = check_connected(o, err);
		if (ret)
			return ret;
	} else if (o->peer) {
		return terr_fmt(
			err, -EINVAL,
			"option '--peer' applies with --connected only\nhint: add --connected (and --sport), or drop --peer");
	}
	if (o->procs > o->sockets)
		return terr_fmt(
			err, -EINVAL,
			"option '--procs': %llu processes for %llu sockets\nhint: each process reads at least one socket: give --sockets %llu or more (with SO_REUSEPORT), or fewer --procs",
			(unsigned long long)o->procs, (unsigned long long)o->sockets,
			(unsigned long long)o->procs);
	return 0;
}

static int udps_check(void *p, char **err)
{
	struct udps_opts *o = p;

	if (o->send == o->recv)
		return terr_fmt(
			err, -EINVAL,
			"give exactly one of --send and --recv\nhint: run '--recv' where the datagrams arrive, '--send --dst ADDR' where they leave");
	if (o->sport && o->sport + o->flows - 1 > 65535)
		return terr_fmt(
			err, -EINVAL,
			"option '--sport': ports %llu..%llu of --flows %llu go past 65535\nhint: give a --sport of %llu or less",
			(unsigned long long)o->sport, (unsigned long long)(o->sport + o->flows - 1),
			(unsigned long long)o->flows, (unsigned long long)(65536 - o->flows));
	if (o->recv)
		return check_recv(o, err);
	return check_send(o, err);
}

static const char *udps_role(const void *p)
{
	return ((const struct udps_opts *)p)->send ? "send" : "recv";
}

static void add_or_null(struct json_object *out, const char *key, bool known, uint64_t v)
{
	if (known)
		tjson_u64(out, key, v);
	else
		tjson_null(out, key);
}

/* Sender */

/* The largest datagram: --size-max if given, else --size. */
static uint64_t max_size(const struct udps_opts *o)
{
	return o->size_max ? o->size_max : o->size;
}

/* Payload bytes of datagram @seq: a function of --seed and @seq only (tsize.h). */
static size_t datagram_size(const struct udps_opts *o, uint64_t seq)
{
	return tsize_draw(o->seed, seq, (uint32_t)o->size, (uint32_t)max_size(o));
}

/* One flow of the sender: its socket and its own sequence numbers. */
struct udps_txflow {
	int fd;
	uint32_t id;
	uint16_t sport;
	uint64_t sent;
	uint64_t bytes;
	uint64_t end_copies_sent;
};

/* The flows of one sending process: flows first, first + stride, ... of --flows. */
struct udps_tx {
	const struct udps_opts *o;
	struct udps_txflow *flows;
	unsigned int n;
	unsigned int next; /* round-robin: the flow of the next datagram */
	struct pacer_rate rate; /* this process's share of --rate */
	uint64_t count; /* and of --count (0: none) */
	uint64_t burst;
	uint8_t *buf;
	uint64_t sent;
	uint64_t bytes;
	uint64_t size_min_sent; /* 0 until one was sent */
	uint64_t size_max_sent;
	uint64_t start_ns;
	uint64_t end_ns;
	uint64_t last_ok_ns; /* last successful send */
	uint64_t end_copies_sent;
	uint64_t errs[TJSON_ERRNO_SLOTS];
	const char *end_reason;
};

/* ICMP errors queue up with IP_RECVERR: drop them, send() reported them. */
static void drain_errqueue(int fd)
{
	char ctl[512];
	struct msghdr m = { .msg_control = ctl, .msg_controllen = sizeof(ctl) };

	while (recvmsg(fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT) >= 0)
		m.msg_controllen = sizeof(ctl);
}

/* Send one datagram of @len bytes on @f; false if it failed (errno counted in @errs). */
static bool send_one(struct udps_tx *tx, struct udps_txflow *f, const struct wire_hdr *h,
		     size_t len, uint64_t *errs)
{
	struct wire_hdr w = *h;

	w.flow = f->id;
	w.ts_ns = tclock_now();
	wire_hdr_encode(&w, tx->buf);
	if (send(f->fd, tx->buf, len, 0) >= 0) {
		tx->last_ok_ns = w.ts_ns;
		return true;
	}
	if (errs && errno != EINTR)
		tjson_count_errno(errs, errno);
	drain_errqueue(f->fd);
	return false;
}

static void send_burst(struct udps_tx *tx)
{
	struct wire_hdr h = { .type = WIRE_DATA };
	struct udps_txflow *f;
	uint64_t i;
	size_t len;

	for (i = 0; i < tx->burst && !(tx->count && tx->sent >= tx->count); i++) {
		/* A datagram sent again after a failure keeps its flow, number and size. */
		f = &tx->flows[tx->next];
		h.seq = f->sent;
		len = datagram_size(tx->o, h.seq);
		if (!send_one(tx, f, &h, len, tx->errs))
			continue;
		f->sent++;
		f->bytes += len;
		tx->next = (tx->next + 1) % tx->n;
		tx->sent++;
		tx->bytes += len;
		if (!tx->size_min_sent || len < tx->size_min_sent)
			tx->size_min_sent = len;
		if (len > tx->size_max_sent)
			tx->size_max_sent = len;
	}
}

static double tx_period_ns(const struct udps_tx *tx)
{
	const struct udps_opts *o = tx->o;

	if (o->burst_gap_ns)
		return (double)o->burst_gap_ns;
	/* --bitrate with --size-max: the mean size, the sizes being uniform. */
	return pacer_period_ns(&tx->rate, (double)(o->size + max_size(o)) / 2, tx->burst);
}

/*
 * Bursts on the absolute schedule until --duration, --count, a signal, or
 * UDPS_STALL_NS without one datagram sent (so --count alone cannot hang).
 */
static void tx_loop(struct udps_tx *tx)
{
	const struct udps_opts *o = tx->o;
	uint64_t end = o->duration_ns ? tx->start_ns + o->duration_ns : UINT64_MAX, t;
	double period = tx_period_ns(tx);
	struct pacer p;

	pacer_init(&p, tx->start_ns, period);
	for (;;) {
		t = period ? pacer_deadline(&p) : tclock_now();
		if (tx->count && tx->sent >= tx->count)
			tx->end_reason = "count";
		else if (t >= end || tclock_now() >= end)
			/* The clock, not only the schedule: a sender that falls
			 * behind its rate still stops at --duration. */
			tx->end_reason = "duration";
		else if (ttool_stopping())
			tx->end_reason = "signal";
		else if (tclock_now() - tx->last_ok_ns > UDPS_STALL_NS)
			tx->end_reason = "send_failing";
		if (tx->end_reason)
			break;
		if (period && tclock_sleep_until(t))
			continue;
		send_burst(tx);
		pacer_advance(&p);
	}
	/* A paced run covers its schedule up to the next burst that was not sent. */
	tx->end_ns = tclock_now();
	if (period && t > tx->end_ns)
		tx->end_ns = t;
}

/* Each flow's END copies, the flows' copies UDPS_END_SPACING_NS apart. */
static void send_end(struct udps_tx *tx)
{
	struct wire_hdr h = { .type = WIRE_END, .copies = UDPS_END_COPIES };
	unsigned int i;

	for (h.copy = 0; h.copy < UDPS_END_COPIES; h.copy++) {
		if (h.copy)
			tclock_sleep_until(tclock_now() + UDPS_END_SPACING_NS);
		for (i = 0; i < tx->n; i++) {
			h.seq = tx->flows[i].sent;
			if (send_one(tx, &tx->flows[i], &h, WIRE_HDR_LEN, NULL)) {
				tx->flows[i].end_copies_sent++;
				tx->end_copies_sent++;
			}
		}
	}
}

static struct json_object *tx_flows_json(const struct udps_tx *tx, int cpu)
{
	struct json_object *arr = json_object_new_array(), *f;
	unsigned int i;

	for (i = 0; i < tx->n; i++) {
		f = json_object_new_object();
		tjson_u64(f, "id", tx->flows[i].id);
		tjson_u64(f, "sport", tx->flows[i].sport);
		tjson_u64(f, "sent", tx->flows[i].sent);
		tjson_u64(f, "bytes", tx->flows[i].bytes);
		tjson_u64(f, "end_copies_sent", tx->flows[i].end_copies_sent);
		tjson_u64(f, "pid", (uint64_t)getpid());
		add_or_null(f, "cpu", cpu >= 0, (uint64_t)cpu);
		json_object_array_add(arr, f);
	}
	return arr;
}

static void tx_report(const struct udps_tx *tx, struct json_object *out)
{
	double secs = tclock_seconds(tx->end_ns - tx->start_ns);
	double period = tx_period_ns(tx);
	int cpu = sched_getcpu();

	tjson_u64(out, "flow_id", tx->flows[0].id);
	tjson_str(out, "end_reason", tx->end_reason);
	tjson_u64(out, "sent", tx->sent);
	tjson_u64(out, "bytes", tx->bytes);
	add_or_null(out, "size_min_sent", tx->sent, tx->size_min_sent);
	add_or_null(out, "size_max_sent", tx->sent, tx->size_max_sent);
	tjson_u64(out, "send_errors_total", tjson_errno_total(tx->errs));
	json_object_object_add(out, "send_errors", tjson_errnos(tx->errs));
	tjson_u64(out, "end_copies_sent", tx->end_copies_sent);
	tjson_double(out, "duration_s", secs, 6);
	if (period)
		tjson_double(out, "target_pps", 1e9 * (double)tx->burst / period, 3);
	else
		tjson_null(out, "target_pps");
	tjson_double(out, "achieved_pps", secs > 0 ? (double)tx->sent / secs : 0, 3);
	tjson_double(out, "achieved_bps", secs > 0 ? 8.0 * (double)tx->bytes / secs : 0, 0);
	json_object_object_add(out, "flows", tx_flows_json(tx, cpu));
	tjson_u64(out, "pid", (uint64_t)getpid());
	add_or_null(out, "cpu", cpu >= 0, (uint64_t)cpu);
}

static int set_recverr(int fd, int family)
{
	int on = 1;

	if (family == AF_INET6)
		return setsockopt(fd, IPPROTO_IPV6, IPV6_RECVERR, &on, sizeof(on));
	return setsockopt(fd, IPPROTO_IP, IP_RECVERR, &on, sizeof(on));
}

/* A random first flow id, such that the --flows ids after it fit in 32 bits. */
static uint32_t random_flow(uint64_t flows)
{
	uint32_t v = 0;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != sizeof(v))
		v = (uint32_t)getpid() ^ (uint32_t)tclock_now();
	if (v > UINT32_MAX - (flows - 1))
		v -= (uint32_t)(flows - 1);
	return v ? v : 1;
}

static uint16_t local_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		return 0;
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

/* Datagrams of --count that flow @i sends, round-robin from flow 0. */
static uint64_t flow_count(const struct udps_opts *o, uint64_t i)
{
	return o->count / o->flows + (i < o->count % o->flows);
}

/*
 * The flows of process @part of --procs: flow i is in process i % procs,
 * with its share of --rate and --count (and of --burst, at least 1).
 */
static void tx_share(struct udps_tx *tx, uint32_t first_id, unsigned int part)
{
	const struct udps_opts *o = tx->o;
	unsigned int i;

	for (i = 0; i < tx->n; i++) {
		uint64_t g = part + (uint64_t)i * o->procs;

		tx->flows[i].id = first_id + (uint32_t)g;
		tx->count += flow_count(o, g);
	}
	if (!o->count)
		tx->count = 0;
	tx->rate = o->rate;
	tx->rate.value = o->rate.value * tx->n / (double)o->flows;
	tx->burst = o->procs == 1 ? o->burst : o->burst * tx->n / o->flows;
	if (!tx->burst)
		tx->burst = 1;
}

static int tx_open(struct udps_tx *tx, unsigned int part, char **err)
{
	const struct udps_opts *o = tx->o;
	unsigned int i;
	uint64_t g;
	int ret;

	for (i = 0; i < tx->n; i++) {
		g = part + (uint64_t)i * o->procs;
		ret = tsock_open_dgram_from(&o->dst_addr, o->bind,
					    o->sport ? (uint16_t)(o->sport + g) : 0,
					    &tx->flows[i].fd, err);
		if (ret)
			return ret;
		/* Without IP_RECVERR the kernel hides local drops (ENOBUFS) from UDP senders. */
		set_recverr(tx->flows[i].fd, o->dst_addr.ss.ss_family);
		tx->flows[i].sport = local_port(tx->flows[i].fd);
	}
	return 0;
}

/* Process @part of --procs: its flows, sent, reported into @out. */
static int send_part(const struct udps_opts *o, uint32_t first_id, unsigned int part,
		     struct json_object *out, char **err)
{
	struct udps_tx *tx = calloc(1, sizeof(*tx));
	unsigned int i;
	int ret = -ENOMEM;

	if (!tx)
		return terr_sys(err, ENOMEM, NULL, "cannot allocate the sender");
	tx->o = o;
	tx->n = (unsigned int)((o->flows - part + o->procs - 1) / o->procs);
	tx->flows = calloc(tx->n, sizeof(*tx->flows));
	for (i = 0; tx->flows && i < tx->n; i++)
		tx->flows[i].fd = -1;
	tx->buf = calloc(1, max_size(o));
	if (!tx->buf || !tx->flows) {
		ret = terr_sys(err, ENOMEM, NULL, "cannot allocate a %llu-byte datagram",
			       (unsigned long long)max_size(o));
		goto out;
	}
	tx_share(tx, first_id, part);
	ret = tx_open(tx, part, err);
	if (ret)
		goto out;
	tx->start_ns = tclock_now();
	tx->last_ok_ns = tx->start_ns;
	tx_loop(tx);
	send_end(tx);
	tx_report(tx, out);
out:
	for (i = 0; tx->flows && i < tx->n; i++)
		if (tx->flows[i].fd >= 0)
			close(tx->flows[i].fd);
	free(tx->flows);
	free(tx->buf);
	free(tx);
	return ret;
}

static int run_send(const struct udps_opts *o, struct json_object *out, char **err)
{
	uint32_t first_id = o->flow_id ? (uint32_t)o->flow_id : random_flow(o->flows);

	if (o->procs > 1)
		return udps_procs_run(o, first_id, send_part, out, err);
	return send_part(o, first_id, 0, out, err);
}

/* Receiver */

struct udps_rx {
	const struct udps_opts *o;
	int *fds; /* this process's sockets: socket first + i * procs of --sockets */
	uint64_t *sock_received;
	unsigned int nfds;
	unsigned int first;
	uint64_t start_ns;
	uint64_t activity_ns;
	const char *end_reason;
	struct udpflow_set flows;
};

static const char *rx_should_end(const struct udps_rx *rx, uint64_t now)
{
	const struct udps_opts *o = rx->o;

	if (udpflow_all_ended(&rx->flows, now) || udps_procs_all_ended(o))
		return "end";
	if (ttool_stopping())
		return "signal";
	if (o->duration_ns && now >= rx->start_ns + o->duration_ns)
		return "duration";
	if (now >= rx->activity_ns + o->idle_timeout_ns)
		return "idle_timeout";
	return NULL;
}

static uint16_t sockaddr_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)ss)->sin_port);
	return 0;
}

/* Global index of this process's socket @i. */
static unsigned int rx_sock_index(const struct udps_rx *rx, unsigned int i)
{
	return rx->first + i * (unsigned int)rx->o->procs;
}

/*
 * One batch of up to UDPS_BATCH datagrams (one with --read-delay) from socket
 * @i; only the header is copied, MSG_TRUNC gives the real length. All get the
 * time the batch was read as their receive time. Return: datagrams read, or
 * -errno.
 */
static int rx_batch(struct udps_rx *rx, unsigned int i, int flags)
{
	uint8_t bufs[UDPS_BATCH][WIRE_HDR_LEN];
	struct sockaddr_storage from[UDPS_BATCH];
	struct mmsghdr msgs[UDPS_BATCH] = { 0 };
	struct iovec iov[UDPS_BATCH];
	unsigned int k, vlen = rx->o->read_delay_ns ? 1 : UDPS_BATCH;
	struct udpflow_dgram d = { .sock = rx_sock_index(rx, i) };
	int n;

	for (k = 0; k < vlen; k++) {
		iov[k] = (struct iovec){ .iov_base = bufs[k], .iov_len = WIRE_HDR_LEN };
		msgs[k].msg_hdr = (struct msghdr){ .msg_iov = &iov[k],
						   .msg_iovlen = 1,
						   .msg_name = &from[k],
						   .msg_namelen = sizeof(from[k]) };
	}
	n = recvmmsg(rx->fds[i], msgs, vlen, flags | MSG_TRUNC, NULL);
	if (n < 0)
		return -errno;
	d.t_ns = tclock_now();
	d.cpu = sched_getcpu();
	for (k = 0; k < (unsigned int)n; k++) {
		d.buf = bufs[k];
		d.len = msgs[k].msg_len;
		d.src_port = sockaddr_port(&from[k]);
		if (udpflow_add(&rx->flows, &d) == UDPFLOW_NOMEM)
			return -ENOMEM;
	}
	rx->sock_received[i] += (uint64_t)n;
	return n;
}

/* One socket: block in recvmmsg (up to UDPS_TICK_NS, SO_RCVTIMEO), as always. */
static int rx_wait_one(struct udps_rx *rx)
{
	return rx_batch(rx, 0, MSG_WAITFORONE);
}

/* Several: poll them up to UDPS_TICK_NS, then a batch from each that is readable. */
static int rx_wait_many(struct udps_rx *rx)
{
	struct pollfd p[UDPS_MAX_SOCKETS];
	unsigned int i;
	int n, got = 0;

	for (i = 0; i < rx->nfds; i++)
		p[i] = (struct pollfd){ .fd = rx->fds[i], .events = POLLIN };
	n = poll(p, rx->nfds, (int)(UDPS_TICK_NS / TCLOCK_MS));
	if (n <= 0)
		return n < 0 ? -errno : -EAGAIN;
	for (i = 0; i < rx->nfds; i++) {
		if (!(p[i].revents & (POLLIN | POLLERR)))
			continue;
		n = rx_batch(rx, i, MSG_DONTWAIT);
		if (n < 0 && n != -EAGAIN && n != -EINTR)
			return n;
		got += n > 0 ? n : 0;
	}
	return got ? got : -EAGAIN;
}

/*
 * What a batch's result @n says: nonzero (the error set in @err) for a
 * failure, 0 for datagrams, none yet (EAGAIN) or a signal (EINTR).
 */
static int rx_failed(const struct udps_rx *rx, int n, char **err)
{
	if (n == -ENOMEM)
		return terr_sys(err, ENOMEM, NULL, "cannot allocate a flow");
	if (n < 0 && n != -EAGAIN && n != -EINTR)
		return terr_sys(err, -n, NULL, "cannot receive on port %llu",
				(unsigned long long)rx->o->port);
	return 0;
}

/*
 * What the sockets hold when the receiver stops is read too, not freed
 * unread at close: the kernel counts no drop for a datagram purged from a
 * closing socket's queue, so an END copy (or a late datagram) left there
 * would be missing from the loss identity. A datagram that arrives after
 * the close is counted (Udp NoPorts). Bounded, for a sender still sending.
 */
#define UDPS_DRAIN_BATCHES 256

static int rx_drain(struct udps_rx *rx, char **err)
{
	for (unsigned int i = 0; i < rx->nfds; i++) {
		for (int b = 0; b < UDPS_DRAIN_BATCHES; b++) {
			int n = rx_batch(rx, i, MSG_DONTWAIT), ret;

			if (n == -EAGAIN || n == -EWOULDBLOCK || n == 0)
				break;
			ret = rx_failed(rx, n, err);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static int rx_loop(struct udps_rx *rx, char **err)
{
	uint64_t t = tclock_now();
	int n, ret;

	while (!(rx->end_reason = rx_should_end(rx, t))) {
		n = rx->nfds == 1 ? rx_wait_one(rx) : rx_wait_many(rx);
		t = tclock_now();
		ret = rx_failed(rx, n, err);
		if (ret)
			return ret;
		if (n > 0)
			rx->activity_ns = t;
		if (n > 0 && rx->o->read_delay_ns)
			tclock_sleep_until(t + rx->o->read_delay_ns);
		udps_procs_note_ended(rx->o, &rx->flows, t);
	}
	return rx_drain(rx, err);
}

static void rx_report_counts(const struct udps_rx *rx, const struct udpflow_totals *t,
			     struct json_object *out)
{
	const struct udpflow_set *s = &rx->flows;
	uint32_t id = s->base_id;
	unsigned int i;

	/* The lowest id, as the sender's flow_id is the first of its ids. */
	for (i = 0; !s->base_id && i < s->n; i++)
		if (!id || s->flows[i]->id < id)
			id = s->flows[i]->id;

	add_or_null(out, "flow_id", id, id);
	tjson_str(out, "end_reason", rx->end_reason);
	add_or_null(out, "sent", t->sent_known, t->sent);
	tjson_u64(out, "received", t->received);
	tjson_u64(out, "unique", t->unique);
	add_or_null(out, "lost", t->sent_known, t->lost);
	tjson_u64(out, "reordered", t->reordered);
	tjson_u64(out, "duplicated", t->duplicated);
	tjson_u64(out, "late", t->late);
	add_or_null(out, "seq_highest", t->any, t->highest);
	tjson_u64(out, "bytes", t->bytes);
	tjson_u64(out, "invalid", s->invalid);
	tjson_u64(out, "foreign", s->foreign);
	add_or_null(out, "end_copies", t->sent_known, t->end_copies);
	tjson_u64(out, "end_copies_received", t->end_copies_received);
}

static struct json_object *rx_sockets_json(const struct udps_rx *rx)
{
	struct json_object *arr = json_object_new_array(), *o;
	unsigned int i;

	for (i = 0; i < rx->nfds; i++) {
		o = json_object_new_object();
		tjson_u64(o, "index", rx_sock_index(rx, i));
		tjson_u64(o, "port", local_port(rx->fds[i]));
		if (rx->o->connected)
			tjson_u64(o, "peer_port", rx->o->sport + rx_sock_index(rx, i));
		tjson_u64(o, "received", rx->sock_received[i]);
		tjson_u64(o, "pid", (uint64_t)getpid());
		json_object_array_add(arr, o);
	}
	return arr;
}

static void rx_report(const struct udps_rx *rx, const struct netstat_udp *before,
		      struct json_object *out)
{
	struct udpflow_totals t;
	struct json_object *ns = NULL;
	struct netstat_udp after;
	double secs, pps;
	int size = 0;
	socklen_t len = sizeof(size);

	udpflow_totals(&rx->flows, &t);
	secs = tclock_seconds(t.last_ns - t.first_ns);
	rx_report_counts(rx, &t, out);
	getsockopt(rx->fds[0], SOL_SOCKET, SO_RCVBUF, &size, &len);
	tjson_u64(out, "rcvbuf_bytes", (uint64_t)size);
	tjson_double(out, "duration_s", secs, 6);
	/* N arrivals span N - 1 intervals. */
	pps = secs > 0 ? (double)(t.received - 1) / secs : 0;
	tjson_double(out, "rx_pps", pps, 3);
	tjson_double(out, "rx_bps", pps ? pps * 8.0 * (double)t.bytes / (double)t.received : 0, 0);
	json_object_object_add(out, "latency_us", tjson_latency_us(&rx->flows.lat));
	tjson_u64(out, "latency_skipped", t.latency_skipped);
	if (before && !netstat_udp_read(&after)) {
		ns = json_object_new_object();
		tjson_u64(ns, "udp_rcvbuf_errors", after.rcvbuf_errors - before->rcvbuf_errors);
		tjson_u64(ns, "udp_in_errors", after.in_errors - before->in_errors);
	}
	json_object_object_add(out, "netstat_delta", ns);
	json_object_object_add(out, "flows", udpflow_array(&rx->flows, getpid()));
	json_object_object_add(out, "sockets", rx_sockets_json(rx));
	tjson_u64(out, "misdelivered", rx->flows.misdelivered);
	tjson_u64(out, "pid", (uint64_t)getpid());
}

/* --peer as an address of @fd's family (IPv4 as ::ffff:a.b.c.d on a dual-stack socket). */
static struct tsock_addr peer_for(const struct udps_opts *o, int fd, uint16_t port)
{
	struct tsock_addr a = o->peer_addr, local = { .len = sizeof(local.ss) };
	char mapped[INET6_ADDRSTRLEN + 8];

	getsockname(fd, (struct sockaddr *)&local.ss, &local.len);
	if (local.ss.ss_family == AF_INET6 && a.ss.ss_family == AF_INET) {
		snprintf(mapped, sizeof(mapped), "::ffff:%s", o->peer);
		tsock_addr_parse(mapped, port, &a);
	} else if (a.ss.ss_family == AF_INET6) {
		((struct sockaddr_in6 *)&a.ss)->sin6_port = htons(port);
	} else {
		((struct sockaddr_in *)&a.ss)->sin_port = htons(port);
	}
	return a;
}

/* Socket @i of this process: bound to --port, shared, maybe connected. */
static int rx_open_one(struct udps_rx *rx, unsigned int i, char **err)
{
	const struct udps_opts *o = rx->o;
	char s[TSOCK_ADDRSTRLEN];
	int ret, size = (int)o->rcvbuf, *fd = &rx->fds[i];
	bool share = o->reuseport || o->sockets > 1;
	struct tsock_addr peer;

	ret = share ? tsock_open_reuseport(SOCK_DGRAM, o->bind, (uint16_t)o->port, fd, err)
		    : tsock_open_bound(SOCK_DGRAM, o->bind, (uint16_t)o->port, fd, err);
	if (ret) {
		*fd = -1;
		return ret;
	}
	/* SO_RCVBUFFORCE (CAP_NET_ADMIN) is not capped by net.core.rmem_max. */
	if (o->rcvbuf && setsockopt(*fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) &&
	    setsockopt(*fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size)))
		return terr_sys(err, errno, NULL, "cannot set SO_RCVBUF to '%d'", size);
	if (o->connected) {
		peer = peer_for(o, *fd, (uint16_t)(o->sport + rx_sock_index(rx, i)));
		if (connect(*fd, (struct sockaddr *)&peer.ss, peer.len))
			return terr_sys(err, errno, "check --peer: an address of the sender",
					"cannot connect socket %u to '%s'", rx_sock_index(rx, i),
					tsock_addr_str(&peer, s, sizeof(s)));
	}
	tsock_set_timeout(*fd, SO_RCVTIMEO, UDPS_TICK_NS);
	return 0;
}

static void rx_close(struct udps_rx *rx)
{
	unsigned int i;

	for (i = 0; rx->fds && i < rx->nfds; i++)
		if (rx->fds[i] >= 0)
			close(rx->fds[i]);
	free(rx->fds);
	free(rx->sock_received);
}

/* Process @part of --procs: sockets part, part + procs, ... of --sockets. */
static int recv_part(const struct udps_opts *o, uint32_t first_id, unsigned int part,
		     struct json_object *out, char **err)
{
	struct udps_rx *rx = calloc(1, sizeof(*rx));
	struct netstat_udp before;
	bool have_netstat;
	unsigned int i;
	int ret = 0;

	(void)first_id;
	if (!rx)
		return terr_sys(err, ENOMEM, NULL, "cannot allocate the receiver");
	rx->o = o;
	rx->first = part;
	rx->nfds = (unsigned int)((o->sockets - part + o->procs - 1) / o->procs);
	rx->fds = calloc(rx->nfds, sizeof(*rx->fds));
	rx->sock_received = calloc(rx->nfds, sizeof(*rx->sock_received));
	udpflow_set_init(&rx->flows, (unsigned int)o->flows, (uint32_t)o->flow_id, o->connected,
			 (uint16_t)o->sport);
	if (!rx->fds || !rx->sock_received) {
		ret = terr_sys(err, ENOMEM, NULL, "cannot allocate the receiver's sockets");
		goto out;
	}
	for (i = 0; i < rx->nfds; i++)
		rx->fds[i] = -1;
	for (i = 0; !ret && i < rx->nfds; i++)
		ret = rx_open_one(rx, i, err);
	if (ret)
		goto out;
	have_netstat = !netstat_udp_read(&before);
	rx->start_ns = tclock_now();
	rx->activity_ns = rx->start_ns;
	ret = rx_loop(rx, err);
	if (!ret)
		rx_report(rx, have_netstat ? &before : NULL, out);
out:
	rx_close(rx);
	udpflow_set_release(&rx->flows);
	free(rx);
	return ret;
}

static int run_recv(const struct udps_opts *o, struct json_object *out, char **err)
{
	if (o->procs > 1)
		return udps_procs_run(o, 0, recv_part, out, err);
	return recv_part(o, 0, 0, out, err);
}

static int udps_run(const void *p, struct json_object *out, char **err)
{
	const struct udps_opts *o = p;

	return o->send ? run_send(o, out, err) : run_recv(o, out, err);
}

const struct ttool udp_stream_tool = {
	.name = "udp-stream",
	.usage =
		"Usage: udp-stream --send --dst ADDR [--rate RATE | --bitrate BITS] [options]\n"
		"       udp-stream --recv [--bind ADDR] [options]\n"
		"\n"
		"Sends UDP datagrams with a sequence number and a CLOCK_MONOTONIC send time, paced\n"
		"on an absolute schedule, then an END message with the count sent. The receiver\n"
		"reports loss, reordering, duplicates and one-way latency (same host or VM only).\n",
	.opts = udps_table,
	.opts_size = sizeof(struct udps_opts),
	.common_off = offsetof(struct udps_opts, common),
	.init = udps_init,
	.check = udps_check,
	.role = udps_role,
	.run = udps_run,
};
