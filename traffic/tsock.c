// SPDX-License-Identifier: GPL-2.0
/*
 * Socket helpers: see tsock.h.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tclock.h"
#include "terr.h"
#include "tsock.h"

/**
 * tsock_addr_parse() - a numeric IPv4 or IPv6 address and a port
 * @host: "198.18.0.2", "2001:2::2", "fe80::1%eth0"; no name lookups
 * @port: the port
 * @a: the result
 *
 * Return: 0, or -EINVAL if @host is not a numeric address.
 */
int tsock_addr_parse(const char *host, uint16_t port, struct tsock_addr *a)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST, .ai_family = AF_UNSPEC };
	struct addrinfo *res;

	if (getaddrinfo(host, NULL, &hints, &res))
		return -EINVAL;
	memset(a, 0, sizeof(*a));
	memcpy(&a->ss, res->ai_addr, res->ai_addrlen);
	a->len = res->ai_addrlen;
	freeaddrinfo(res);
	if (a->ss.ss_family == AF_INET)
		((struct sockaddr_in *)&a->ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)&a->ss)->sin6_port = htons(port);
	return 0;
}

/**
 * tsock_addr_opt() - check the value of an address option and parse it
 * @opt: the option's name, without "--" ("dst", "bind")
 * @host: its value; NULL (not given) is fine
 * @port: the port to put into @a
 * @a: the result, unchanged if @host is NULL
 * @err: "option '--dst': invalid address 'x'", with a hint
 *
 * Return: 0, or -EINVAL.
 */
int tsock_addr_opt(const char *opt, const char *host, uint16_t port, struct tsock_addr *a,
		   char **err)
{
	if (!host || !tsock_addr_parse(host, port, a))
		return 0;
	return terr_fmt(
		err, -EINVAL,
		"option '--%s': invalid address '%s'\nhint: give a numeric IPv4 or IPv6 address (198.18.0.2, 2001:2::2)",
		opt, host);
}

/**
 * tsock_peer_opts() - check --dst and --bind of a sender or client
 * @dst: --dst, not NULL
 * @bind: --bind, or NULL
 * @port: --port, put into @dst_addr
 * @dst_addr: the parsed destination
 * @err: the message, naming the option
 *
 * Return: 0, or -EINVAL if one is not a numeric address or their families differ.
 */
int tsock_peer_opts(const char *dst, const char *bind, uint16_t port, struct tsock_addr *dst_addr,
		    char **err)
{
	struct tsock_addr src;
	int ret = tsock_addr_opt("dst", dst, port, dst_addr, err);

	if (!ret)
		ret = tsock_addr_opt("bind", bind, 0, &src, err);
	if (ret || !bind || src.ss.ss_family == dst_addr->ss.ss_family)
		return ret;
	return terr_fmt(
		err, -EINVAL,
		"options '--bind' and '--dst': '%s' and '%s' are of different address families\nhint: bind an address of the destination's family",
		bind, dst);
}

/**
 * tsock_addr_str() - "198.18.0.2:5201" or "[2001:2::2]:5201"
 * @a: the address
 * @buf: where to write, TSOCK_ADDRSTRLEN bytes are enough
 * @n: size of @buf
 *
 * Return: @buf.
 */
const char *tsock_addr_str(const struct tsock_addr *a, char *buf, size_t n)
{
	const struct sockaddr_in6 *s6 = (const void *)&a->ss;
	const struct sockaddr_in *s4 = (const void *)&a->ss;
	char host[INET6_ADDRSTRLEN] = "?", scope[IF_NAMESIZE + 1] = "";

	if (a->ss.ss_family == AF_INET) {
		inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
		snprintf(buf, n, "%s:%u", host, ntohs(s4->sin_port));
		return buf;
	}
	inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
	if (s6->sin6_scope_id && if_indextoname(s6->sin6_scope_id, scope + 1))
		scope[0] = '%';
	snprintf(buf, n, "[%s%s]:%u", host, scope, ntohs(s6->sin6_port));
	return buf;
}

static const char *bind_hint(int e)
{
	switch (e) {
	case EADDRNOTAVAIL:
		return "no interface in this network namespace has that address: check 'ip addr' (NIC B lives in namespace 'b': run the tool under 'ip netns exec b')";
	case EADDRINUSE:
		return "another socket already uses that port: choose another --port or stop the other process";
	case EACCES:
		return "ports below 1024 need CAP_NET_BIND_SERVICE: choose a --port of 1024 or more";
	case EAFNOSUPPORT:
		return "this kernel lacks that address family (IPv6 disabled?): use an address of the other family";
	default:
		return "check --bind and --port";
	}
}

static const char *connect_hint(int e)
{
	switch (e) {
	case ECONNREFUSED:
		return "nothing listens there: start the receiver first (--recv; rr: --server with the same --proto), on the same --port";
	case ENETUNREACH:
	case EHOSTUNREACH:
		return "no route to that address from this network namespace: check 'ip addr' and 'ip route'";
	case ETIMEDOUT:
		return "no answer: check that the receiver runs and that the address answers ping";
	case EADDRNOTAVAIL:
	case EINVAL:
		return "--bind and --dst must be of the same family, and --bind an address of this host";
	default:
		return "check --dst and --port";
	}
}

static int new_socket(int family, int type, int *fd, char **err)
{
	*fd = socket(family, type | SOCK_CLOEXEC, 0);
	if (*fd < 0)
		return terr_sys(err, errno, family == AF_INET6 ? bind_hint(EAFNOSUPPORT) : NULL,
				"cannot create %s socket", type == SOCK_STREAM ? "TCP" : "UDP");
	return 0;
}

/* A socket of @type on the wildcard address: IPv6 and IPv4, or IPv4 only. */
static int open_any(int type, uint16_t port, struct tsock_addr *a, int *fd, char **err)
{
	int off = 0;

	tsock_addr_parse("::", port, a);
	*fd = socket(AF_INET6, type | SOCK_CLOEXEC, 0);
	if (*fd >= 0) {
		setsockopt(*fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
		return 0;
	}
	if (errno != EAFNOSUPPORT)
		return terr_sys(err, errno, NULL, "cannot create socket");
	tsock_addr_parse("0.0.0.0", port, a);
	return new_socket(AF_INET, type, fd, err);
}

/*
 * A socket bound to @host (NULL: any) and @port; SO_REUSEPORT first if
 * @reuseport; a stream socket listens with @backlog.
 */
static int open_bound(int type, const char *host, uint16_t port, int backlog, bool reuseport,
		      int *fd, char **err)
{
	char s[TSOCK_ADDRSTRLEN];
	struct tsock_addr a;
	int ret, on = 1;

	ret = tsock_addr_opt("bind", host, port, &a, err);
	if (ret)
		return ret;
	ret = host ? new_socket(a.ss.ss_family, type, fd, err) : open_any(type, port, &a, fd, err);
	if (ret)
		return ret;
	if (type == SOCK_STREAM)
		setsockopt(*fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (reuseport && setsockopt(*fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof(on))) {
		ret = errno;
		close(*fd);
		return terr_sys(err, ret, "this kernel lacks SO_REUSEPORT: use one socket",
				"cannot set SO_REUSEPORT");
	}
	if (bind(*fd, (struct sockaddr *)&a.ss, a.len) ||
	    (type == SOCK_STREAM && listen(*fd, backlog))) {
		ret = errno;
		close(*fd);
		return terr_sys(err, ret, bind_hint(ret), "cannot bind '%s'",
				tsock_addr_str(&a, s, sizeof(s)));
	}
	return 0;
}

/**
 * tsock_open_bound() - a socket bound to a local address (receivers, servers)
 * @type: SOCK_DGRAM, or SOCK_STREAM (then also listening, backlog 1)
 * @host: numeric local address, or NULL for any (IPv6 and IPv4)
 * @port: local port
 * @fd: the socket, for the caller to close
 * @err: error message
 *
 * Return: 0 or -errno.
 */
int tsock_open_bound(int type, const char *host, uint16_t port, int *fd, char **err)
{
	return open_bound(type, host, port, 1, false, fd, err);
}

/**
 * tsock_open_reuseport() - tsock_open_bound() with SO_REUSEPORT set before bind
 * @type: SOCK_DGRAM, or SOCK_STREAM
 * @host: numeric local address, or NULL for any (IPv6 and IPv4)
 * @port: local port, shared with the other sockets of the same user that set it
 * @fd: the socket, for the caller to close
 * @err: error message
 *
 * Return: 0 or -errno.
 */
int tsock_open_reuseport(int type, const char *host, uint16_t port, int *fd, char **err)
{
	return open_bound(type, host, port, 1, true, fd, err);
}

static int wait_fd(int fd, short events, uint64_t timeout_ns)
{
	struct pollfd p = { .fd = fd, .events = events };
	int n = poll(&p, 1, (int)(timeout_ns / 1000000));

	if (n < 0)
		return -errno;
	return n ? 0 : -ETIMEDOUT;
}

/* Non-blocking connect, bounded by @timeout_ns. */
static int connect_timeout(int fd, const struct tsock_addr *dst, uint64_t timeout_ns)
{
	int flags = fcntl(fd, F_GETFL), ret = 0;
	socklen_t len = sizeof(ret);

	fcntl(fd, F_SETFL, flags | O_NONBLOCK);
	if (connect(fd, (const struct sockaddr *)&dst->ss, dst->len)) {
		if (errno != EINPROGRESS)
			return -errno;
		ret = wait_fd(fd, POLLOUT, timeout_ns);
		if (!ret && getsockopt(fd, SOL_SOCKET, SO_ERROR, &ret, &len))
			ret = errno;
		ret = ret > 0 ? -ret : ret;
	}
	fcntl(fd, F_SETFL, flags);
	return ret;
}

/* Bind @src (NULL: the wildcard of @dst's family) and @port (0: ephemeral). */
static int bind_src(int fd, const struct tsock_addr *dst, const char *src, uint16_t port,
		    char **err)
{
	char s[TSOCK_ADDRSTRLEN];
	struct tsock_addr a;
	int e;

	if (!src)
		src = dst->ss.ss_family == AF_INET6 ? "::" : "0.0.0.0";
	e = tsock_addr_opt("bind", src, port, &a, err);
	if (e)
		return e;
	if (a.ss.ss_family != dst->ss.ss_family)
		return terr_fmt(err, -EINVAL,
				"cannot bind '%s': not the family of the destination\nhint: %s",
				src, connect_hint(EINVAL));
	if (!bind(fd, (struct sockaddr *)&a.ss, a.len))
		return 0;
	e = errno;
	return terr_sys(err, e, bind_hint(e), "cannot bind '%s'", tsock_addr_str(&a, s, sizeof(s)));
}

/**
 * tsock_open_connected() - a socket connected to @dst (senders, clients)
 * @type: SOCK_DGRAM or SOCK_STREAM
 * @dst: the peer
 * @src: numeric local address to bind first, or NULL
 * @timeout_ns: how long a TCP connect may take
 * @cc: TCP congestion control to set before connecting, or NULL
 * @fd: the socket, for the caller to close
 * @err: error message
 *
 * Return: 0 or -errno.
 */
int tsock_open_connected(int type, const struct tsock_addr *dst, const char *src,
			 uint64_t timeout_ns, const char *cc, int *fd, char **err)
{
	char s[TSOCK_ADDRSTRLEN];
	int ret = new_socket(dst->ss.ss_family, type, fd, err);

	if (ret)
		return ret;
	if (cc)
		ret = tsock_set_cc(*fd, cc, err);
	if (!ret && src)
		ret = bind_src(*fd, dst, src, 0, err);
	if (ret)
		goto fail;
	ret = connect_timeout(*fd, dst, timeout_ns);
	if (!ret)
		return 0;
	ret = terr_sys(err, -ret, connect_hint(-ret), "cannot connect to '%s'",
		       tsock_addr_str(dst, s, sizeof(s)));
fail:
	close(*fd);
	return ret;
}

/**
 * tsock_open_dgram_from() - a UDP socket bound to a source port, connected to @dst
 * @dst: the peer
 * @src: numeric local address, or NULL (the wildcard of @dst's family)
 * @sport: local port, or 0 (ephemeral; then nothing is bound unless @src)
 * @fd: the socket, for the caller to close
 * @err: error message
 *
 * Return: 0 or -errno.
 */
int tsock_open_dgram_from(const struct tsock_addr *dst, const char *src, uint16_t sport, int *fd,
			  char **err)
{
	char s[TSOCK_ADDRSTRLEN];
	int ret;

	if (!sport)
		return tsock_open_connected(SOCK_DGRAM, dst, src, 0, NULL, fd, err);
	ret = new_socket(dst->ss.ss_family, SOCK_DGRAM, fd, err);
	if (ret)
		return ret;
	ret = bind_src(*fd, dst, src, sport, err);
	if (ret)
		goto fail;
	if (!connect(*fd, (const struct sockaddr *)&dst->ss, dst->len))
		return 0;
	ret = errno;
	ret = terr_sys(err, ret, connect_hint(ret), "cannot connect to '%s'",
		       tsock_addr_str(dst, s, sizeof(s)));
fail:
	close(*fd);
	return ret;
}

/* Accept one connection on @lfd within @timeout_ns. */
static int accept_timeout(int lfd, uint64_t timeout_ns, int *fd, char **err)
{
	char s[TSOCK_ADDRSTRLEN];
	struct tsock_addr a = { .len = sizeof(a.ss) };
	int ret;

	getsockname(lfd, (struct sockaddr *)&a.ss, &a.len);
	tsock_addr_str(&a, s, sizeof(s));
	ret = wait_fd(lfd, POLLIN, timeout_ns);
	if (ret == -ETIMEDOUT)
		return terr_fmt(
			err, ret,
			"no client connected to '%s' within %.1f s\nhint: start the client towards this address and port, or raise --idle-timeout",
			s, (double)timeout_ns / 1e9);
	if (!ret) {
		*fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		ret = *fd < 0 ? -errno : 0;
	}
	if (ret)
		return terr_sys(err, -ret, NULL, "cannot accept a client on '%s'", s);
	return 0;
}

/**
 * tsock_accept_one() - listen, accept one client, stop listening (servers)
 * @host: numeric local address, or NULL for any (IPv6 and IPv4)
 * @port: local port
 * @timeout_ns: how long to wait for the client
 * @fd: the connection, for the caller to close
 * @peer: the client's address as text, TSOCK_ADDRSTRLEN bytes
 * @err: error message
 *
 * Return: 0, -ETIMEDOUT, -EINTR (a signal), or another -errno.
 */
int tsock_accept_one(const char *host, uint16_t port, uint64_t timeout_ns, int *fd, char *peer,
		     char **err)
{
	struct tsock_addr a = { .len = sizeof(a.ss) };
	int lfd, ret;

	ret = tsock_open_bound(SOCK_STREAM, host, port, &lfd, err);
	if (ret)
		return ret;
	ret = accept_timeout(lfd, timeout_ns, fd, err);
	close(lfd);
	if (ret)
		return ret;
	getpeername(*fd, (struct sockaddr *)&a.ss, &a.len);
	tsock_addr_str(&a, peer, TSOCK_ADDRSTRLEN);
	return 0;
}

/* Set SO_RCVTIMEO or SO_SNDTIMEO (@optname) to @ns. */
int tsock_set_timeout(int fd, int optname, uint64_t ns)
{
	struct timeval tv = {
		.tv_sec = (time_t)(ns / 1000000000),
		.tv_usec = (suseconds_t)(ns % 1000000000 / 1000),
	};

	return setsockopt(fd, SOL_SOCKET, optname, &tv, sizeof(tv)) ? -errno : 0;
}

/**
 * tsock_set_cc() - choose the TCP congestion control of a socket
 * @fd: the socket
 * @cc: algorithm name ("cubic", "reno", "bbr")
 * @err: error message
 *
 * Return: 0 or -errno.
 */
int tsock_set_cc(int fd, const char *cc, char **err)
{
	int e;

	if (!setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, (socklen_t)strlen(cc)))
		return 0;
	e = errno;
	return terr_sys(
		err, e,
		e == EPERM ?
			"it is not in /proc/sys/net/ipv4/tcp_allowed_congestion_control" :
			"see /proc/sys/net/ipv4/tcp_available_congestion_control; the kernel may need CONFIG_TCP_CONG_<NAME>",
		"cannot use congestion control '%s'", cc);
}

/*
 * Whether a stalled transfer should give up: @since is when the stall began
 * (0: it just began). Needs SO_RCVTIMEO/SO_SNDTIMEO set to a short tick.
 */
static int stalled(uint64_t *since, uint64_t idle_ns, bool (*stop)(void))
{
	uint64_t now = tclock_now();

	if (stop && stop())
		return -EINTR;
	if (!*since)
		*since = now;
	return now - *since >= idle_ns ? -ETIMEDOUT : 0;
}

/**
 * tsock_send_all() - send exactly @len bytes on a stream socket
 * @fd: the socket, with SO_SNDTIMEO set to a short tick
 * @buf: the bytes
 * @len: how many
 * @idle_ns: give up after this long without progress
 * @stop: checked on each tick and signal; true ends with -EINTR (may be NULL)
 *
 * Return: 0, -ETIMEDOUT, -EINTR, or the -errno of send().
 */
int tsock_send_all(int fd, const void *buf, size_t len, uint64_t idle_ns, bool (*stop)(void))
{
	const char *p = buf;
	uint64_t since = 0;
	ssize_t n;
	int ret;

	while (len) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			since = 0;
			continue;
		}
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
		ret = stalled(&since, idle_ns, stop);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * tsock_recv_all() - receive exactly @len bytes from a stream socket
 * @fd: the socket, with SO_RCVTIMEO set to a short tick
 * @buf: where to put them
 * @len: how many
 * @idle_ns: give up after this long without progress
 * @stop: checked on each tick and signal; true ends with -EINTR (may be NULL)
 *
 * Return: 0, -ENODATA if the peer closed before the first byte, -EPIPE if it
 * closed part-way, -ETIMEDOUT, -EINTR, or the -errno of recv().
 */
int tsock_recv_all(int fd, void *buf, size_t len, uint64_t idle_ns, bool (*stop)(void))
{
	size_t got = 0;
	uint64_t since = 0;
	ssize_t n;
	int ret;

	while (got < len) {
		n = recv(fd, (char *)buf + got, len - got, 0);
		if (n > 0) {
			got += (size_t)n;
			since = 0;
			continue;
		}
		if (!n)
			return got ? -EPIPE : -ENODATA;
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
		ret = stalled(&since, idle_ns, stop);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * tsock_listen() - a listening TCP socket (servers with several clients)
 * @host: numeric local address, or NULL for any (IPv6 and IPv4)
 * @port: local port
 * @backlog: listen() backlog
 * @reuseport: set SO_REUSEPORT before binding, so that several sockets can
 *	listen on @port and the kernel spreads the connections among them
 * @fd: the socket, for the caller to close
 * @err: error message
 *
 * Return: 0 or -errno.
 */
int tsock_listen(const char *host, uint16_t port, int backlog, bool reuseport, int *fd,
		 char **err)
{
	return open_bound(SOCK_STREAM, host, port, backlog, reuseport, fd, err);
}
