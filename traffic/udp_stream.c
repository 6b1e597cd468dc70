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
 * last END copy (or UDPS_END_GRACE_NS after the first one it got), when
 * nothing arrived for --idle-timeout, after its own --duration, or on SIGINT/
 * SIGTERM; it then reports loss as sent - unique (seqacct.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
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
#include "wire.h"

#define UDPS_END_COPIES 5
#define UDPS_END_SPACING_NS (10 * TCLOCK_MS)
#define UDPS_END_GRACE_NS (200 * TCLOCK_MS)
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
	if (!o->duration_ns && !o->count)
		o->duration_ns = 10 * TCLOCK_S;
	return 0;
}

static int udps_check(void *p, char **err)
{
	struct udps_opts *o = p;
	struct tsock_addr a;

	if (o->send == o->recv)
		return terr_fmt(
			err, -EINVAL,
			"give exactly one of --send and --recv\nhint: run '--recv' where the datagrams arrive, '--send --dst ADDR' where they leave");
	if (o->recv)
		return tsock_addr_opt("bind", o->bind, 0, &a, err);
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

struct udps_tx {
	const struct udps_opts *o;
	int fd;
	uint8_t *buf;
	uint32_t flow;
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

/* Send one datagram of @len bytes; false if it failed (errno counted in @errs). */
static bool send_one(struct udps_tx *tx, const struct wire_hdr *h, size_t len, uint64_t *errs)
{
	struct wire_hdr w = *h;

	w.flow = tx->flow;
	w.ts_ns = tclock_now();
	wire_hdr_encode(&w, tx->buf);
	if (send(tx->fd, tx->buf, len, 0) >= 0) {
		tx->last_ok_ns = w.ts_ns;
		return true;
	}
	if (errs && errno != EINTR)
		tjson_count_errno(errs, errno);
	drain_errqueue(tx->fd);
	return false;
}

static void send_burst(struct udps_tx *tx)
{
	struct wire_hdr h = { .type = WIRE_DATA };
	uint64_t i;
	size_t len;

	for (i = 0; i < tx->o->burst && !(tx->o->count && tx->sent >= tx->o->count); i++) {
		/* A datagram sent again after a failure keeps its number and size. */
		h.seq = tx->sent;
		len = datagram_size(tx->o, h.seq);
		if (!send_one(tx, &h, len, tx->errs))
			continue;
		tx->sent++;
		tx->bytes += len;
		if (!tx->size_min_sent || len < tx->size_min_sent)
			tx->size_min_sent = len;
		if (len > tx->size_max_sent)
			tx->size_max_sent = len;
	}
}

static double tx_period_ns(const struct udps_opts *o)
{
	if (o->burst_gap_ns)
		return (double)o->burst_gap_ns;
	/* --bitrate with --size-max: the mean size, the sizes being uniform. */
	return pacer_period_ns(&o->rate, (double)(o->size + max_size(o)) / 2, o->burst);
}

/*
 * Bursts on the absolute schedule until --duration, --count, a signal, or
 * UDPS_STALL_NS without one datagram sent (so --count alone cannot hang).
 */
static void tx_loop(struct udps_tx *tx)
{
	const struct udps_opts *o = tx->o;
	uint64_t end = o->duration_ns ? tx->start_ns + o->duration_ns : UINT64_MAX, t;
	double period = tx_period_ns(o);
	struct pacer p;

	pacer_init(&p, tx->start_ns, period);
	for (;;) {
		t = period ? pacer_deadline(&p) : tclock_now();
		if (o->count && tx->sent >= o->count)
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

static void send_end(struct udps_tx *tx)
{
	struct wire_hdr h = { .type = WIRE_END, .copies = UDPS_END_COPIES, .seq = tx->sent };

	for (h.copy = 0; h.copy < UDPS_END_COPIES; h.copy++) {
		if (h.copy)
			tclock_sleep_until(tclock_now() + UDPS_END_SPACING_NS);
		if (send_one(tx, &h, WIRE_HDR_LEN, NULL))
			tx->end_copies_sent++;
	}
}

static void tx_report(const struct udps_tx *tx, struct json_object *out)
{
	double secs = tclock_seconds(tx->end_ns - tx->start_ns);
	double period = tx_period_ns(tx->o);

	tjson_u64(out, "flow_id", tx->flow);
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
		tjson_double(out, "target_pps", 1e9 * (double)tx->o->burst / period, 3);
	else
		tjson_null(out, "target_pps");
	tjson_double(out, "achieved_pps", secs > 0 ? (double)tx->sent / secs : 0, 3);
	tjson_double(out, "achieved_bps", secs > 0 ? 8.0 * (double)tx->bytes / secs : 0, 0);
}

static int set_recverr(int fd, int family)
{
	int on = 1;

	if (family == AF_INET6)
		return setsockopt(fd, IPPROTO_IPV6, IPV6_RECVERR, &on, sizeof(on));
	return setsockopt(fd, IPPROTO_IP, IP_RECVERR, &on, sizeof(on));
}

static uint32_t random_flow(void)
{
	uint32_t v = 0;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != sizeof(v))
		v = (uint32_t)getpid() ^ (uint32_t)tclock_now();
	return v ? v : 1;
}

static int run_send(const struct udps_opts *o, struct json_object *out, char **err)
{
	struct udps_tx *tx = calloc(1, sizeof(*tx));
	int ret = -ENOMEM;

	if (!tx)
		return terr_sys(err, ENOMEM, NULL, "cannot allocate the sender");
	tx->o = o;
	tx->flow = o->flow_id ? (uint32_t)o->flow_id : random_flow();
	tx->buf = calloc(1, max_size(o));
	if (!tx->buf) {
		ret = terr_sys(err, ENOMEM, NULL, "cannot allocate a %llu-byte datagram",
			       (unsigned long long)max_size(o));
		goto out;
	}
	ret = tsock_open_connected(SOCK_DGRAM, &o->dst_addr, o->bind, 0, NULL, &tx->fd, err);
	if (ret)
		goto out;
	/* Without IP_RECVERR the kernel hides local drops (ENOBUFS) from UDP senders. */
	set_recverr(tx->fd, o->dst_addr.ss.ss_family);
	tx->start_ns = tclock_now();
	tx->last_ok_ns = tx->start_ns;
	tx_loop(tx);
	send_end(tx);
	tx_report(tx, out);
	close(tx->fd);
out:
	free(tx->buf);
	free(tx);
	return ret;
}

/* Receiver */

struct udps_rx {
	const struct udps_opts *o;
	int fd;
	uint32_t flow;
	bool locked;
	bool end_seen;
	bool last_copy;
	uint64_t sent;
	uint64_t end_copies;
	uint64_t end_copies_received;
	uint64_t bytes;
	uint64_t invalid;
	uint64_t foreign;
	uint64_t latency_skipped;
	uint64_t start_ns;
	uint64_t first_ns;
	uint64_t last_ns;
	uint64_t activity_ns;
	uint64_t end_deadline_ns;
	const char *end_reason;
	struct seqacct acct;
	struct hist lat;
};

static void rx_end(struct udps_rx *rx, const struct wire_hdr *h, uint64_t t)
{
	if (!rx->end_seen) {
		rx->end_seen = true;
		rx->sent = h->seq;
		rx->end_copies = h->copies;
		rx->end_deadline_ns = t + UDPS_END_GRACE_NS;
	}
	rx->end_copies_received++;
	if (h->copy + 1 >= h->copies)
		rx->last_copy = true;
}

/* Account one datagram of @len bytes received at @t. */
static void rx_datagram(struct udps_rx *rx, const void *buf, size_t len, uint64_t t)
{
	struct wire_hdr h;

	if (wire_hdr_decode(buf, len, &h) || (h.type != WIRE_DATA && h.type != WIRE_END)) {
		rx->invalid++;
		return;
	}
	if (!rx->locked) {
		rx->flow = h.flow;
		rx->locked = true;
	}
	if (h.flow != rx->flow) {
		rx->foreign++;
		return;
	}
	if (h.type == WIRE_END) {
		rx_end(rx, &h, t);
		return;
	}
	seqacct_add(&rx->acct, h.seq);
	rx->bytes += len;
	if (!rx->first_ns)
		rx->first_ns = t;
	rx->last_ns = t;
	if (t >= h.ts_ns)
		hist_record(&rx->lat, t - h.ts_ns);
	else
		rx->latency_skipped++;
}

static const char *rx_should_end(const struct udps_rx *rx, uint64_t now)
{
	const struct udps_opts *o = rx->o;

	if (rx->last_copy || (rx->end_seen && now >= rx->end_deadline_ns))
		return "end";
	if (ttool_stopping())
		return "signal";
	if (o->duration_ns && now >= rx->start_ns + o->duration_ns)
		return "duration";
	if (now >= rx->activity_ns + o->idle_timeout_ns)
		return "idle_timeout";
	return NULL;
}

/*
 * Batches of up to UDPS_BATCH datagrams (one with --read-delay); only the
 * header is copied, MSG_TRUNC gives the real length. All datagrams of a batch
 * get the time the batch was read as their receive time.
 */
static int rx_loop(struct udps_rx *rx, char **err)
{
	uint8_t bufs[UDPS_BATCH][WIRE_HDR_LEN];
	struct mmsghdr msgs[UDPS_BATCH] = { 0 };
	struct iovec iov[UDPS_BATCH];
	unsigned int i, vlen = rx->o->read_delay_ns ? 1 : UDPS_BATCH;
	uint64_t t = tclock_now();
	int n;

	for (i = 0; i < UDPS_BATCH; i++) {
		iov[i] = (struct iovec){ .iov_base = bufs[i], .iov_len = WIRE_HDR_LEN };
		msgs[i].msg_hdr = (struct msghdr){ .msg_iov = &iov[i], .msg_iovlen = 1 };
	}
	while (!(rx->end_reason = rx_should_end(rx, t))) {
		n = recvmmsg(rx->fd, msgs, vlen, MSG_WAITFORONE | MSG_TRUNC, NULL);
		t = tclock_now();
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return terr_sys(err, errno, NULL, "cannot receive on port %llu",
					(unsigned long long)rx->o->port);
		for (i = 0; n > 0 && i < (unsigned int)n; i++)
			rx_datagram(rx, bufs[i], msgs[i].msg_len, t);
		if (n > 0)
			rx->activity_ns = t;
		if (n > 0 && rx->o->read_delay_ns)
			tclock_sleep_until(t + rx->o->read_delay_ns);
	}
	return 0;
}

static void rx_report_counts(const struct udps_rx *rx, struct json_object *out)
{
	const struct seqacct *a = &rx->acct;

	add_or_null(out, "flow_id", rx->locked, rx->flow);
	tjson_str(out, "end_reason", rx->end_reason);
	add_or_null(out, "sent", rx->end_seen, rx->sent);
	tjson_u64(out, "received", a->received);
	tjson_u64(out, "unique", a->unique);
	add_or_null(out, "lost", rx->end_seen, seqacct_lost(a, rx->sent));
	tjson_u64(out, "reordered", a->reordered);
	tjson_u64(out, "duplicated", a->duplicated);
	tjson_u64(out, "late", a->late);
	add_or_null(out, "seq_highest", a->any, a->highest);
	tjson_u64(out, "bytes", rx->bytes);
	tjson_u64(out, "invalid", rx->invalid);
	tjson_u64(out, "foreign", rx->foreign);
	add_or_null(out, "end_copies", rx->end_seen, rx->end_copies);
	tjson_u64(out, "end_copies_received", rx->end_copies_received);
}

static void rx_report(const struct udps_rx *rx, const struct netstat_udp *before,
		      struct json_object *out)
{
	double secs = tclock_seconds(rx->last_ns - rx->first_ns), pps;
	struct json_object *ns = NULL;
	struct netstat_udp after;
	int size = 0;
	socklen_t len = sizeof(size);

	rx_report_counts(rx, out);
	getsockopt(rx->fd, SOL_SOCKET, SO_RCVBUF, &size, &len);
	tjson_u64(out, "rcvbuf_bytes", (uint64_t)size);
	tjson_double(out, "duration_s", secs, 6);
	/* N arrivals span N - 1 intervals. */
	pps = secs > 0 ? (double)(rx->acct.received - 1) / secs : 0;
	tjson_double(out, "rx_pps", pps, 3);
	tjson_double(out, "rx_bps",
		     pps ? pps * 8.0 * (double)rx->bytes / (double)rx->acct.received : 0, 0);
	json_object_object_add(out, "latency_us", tjson_latency_us(&rx->lat));
	tjson_u64(out, "latency_skipped", rx->latency_skipped);
	if (before && !netstat_udp_read(&after)) {
		ns = json_object_new_object();
		tjson_u64(ns, "udp_rcvbuf_errors", after.rcvbuf_errors - before->rcvbuf_errors);
		tjson_u64(ns, "udp_in_errors", after.in_errors - before->in_errors);
	}
	json_object_object_add(out, "netstat_delta", ns);
}

static int rx_open(struct udps_rx *rx, char **err)
{
	const struct udps_opts *o = rx->o;
	int ret, size = (int)o->rcvbuf;

	ret = tsock_open_bound(SOCK_DGRAM, o->bind, (uint16_t)o->port, &rx->fd, err);
	if (ret)
		return ret;
	/* SO_RCVBUFFORCE (CAP_NET_ADMIN) is not capped by net.core.rmem_max. */
	if (o->rcvbuf && setsockopt(rx->fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) &&
	    setsockopt(rx->fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size))) {
		ret = terr_sys(err, errno, NULL, "cannot set SO_RCVBUF to '%d'", size);
		close(rx->fd);
		return ret;
	}
	tsock_set_timeout(rx->fd, SO_RCVTIMEO, UDPS_TICK_NS);
	return 0;
}

static int run_recv(const struct udps_opts *o, struct json_object *out, char **err)
{
	struct udps_rx *rx = calloc(1, sizeof(*rx));
	struct netstat_udp before;
	bool have_netstat;
	int ret;

	if (!rx)
		return terr_sys(err, ENOMEM, NULL, "cannot allocate the receiver");
	rx->o = o;
	seqacct_init(&rx->acct);
	hist_init(&rx->lat);
	rx->flow = (uint32_t)o->flow_id;
	rx->locked = o->flow_id != 0;
	ret = rx_open(rx, err);
	if (ret)
		goto out;
	have_netstat = !netstat_udp_read(&before);
	rx->start_ns = tclock_now();
	rx->activity_ns = rx->start_ns;
	ret = rx_loop(rx, err);
	if (!ret)
		rx_report(rx, have_netstat ? &before : NULL, out);
	close(rx->fd);
out:
	free(rx);
	return ret;
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
