/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sockets for the traffic tools: numeric addresses, bind/connect/accept with
 * timeouts, and error messages that name the address and say what to do.
 * Functions return 0 or -errno and, on error, set *err (see terr.h).
 */
#ifndef TRAFFIC_TSOCK_H
#define TRAFFIC_TSOCK_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <netinet/in.h>
#include <stdint.h>
#include <sys/socket.h>

struct tsock_addr {
	struct sockaddr_storage ss;
	socklen_t len;
};

/* "[ffff:...:ffff%ifname]:65535" */
#define TSOCK_ADDRSTRLEN (INET6_ADDRSTRLEN + IF_NAMESIZE + 10)

int tsock_addr_parse(const char *host, uint16_t port, struct tsock_addr *a);
int tsock_addr_opt(const char *opt, const char *host, uint16_t port, struct tsock_addr *a,
		   char **err);
int tsock_peer_opts(const char *dst, const char *bind, uint16_t port, struct tsock_addr *dst_addr,
		    char **err);
const char *tsock_addr_str(const struct tsock_addr *a, char *buf, size_t n);

int tsock_open_bound(int type, const char *host, uint16_t port, int *fd, char **err);
int tsock_open_reuseport(int type, const char *host, uint16_t port, int *fd, char **err);
int tsock_open_connected(int type, const struct tsock_addr *dst, const char *src,
			 uint64_t timeout_ns, const char *cc, int *fd, char **err);
int tsock_open_dgram_from(const struct tsock_addr *dst, const char *src, uint16_t sport, int *fd,
			  char **err);
int tsock_accept_one(const char *host, uint16_t port, uint64_t timeout_ns, int *fd, char *peer,
		     char **err);
int tsock_listen(const char *host, uint16_t port, int backlog, bool reuseport, int *fd,
		 char **err);
int tsock_set_timeout(int fd, int optname, uint64_t ns);
int tsock_set_cc(int fd, const char *cc, char **err);
int tsock_send_all(int fd, const void *buf, size_t len, uint64_t idle_ns, bool (*stop)(void));
int tsock_recv_all(int fd, void *buf, size_t len, uint64_t idle_ns, bool (*stop)(void));

#endif /* TRAFFIC_TSOCK_H */
