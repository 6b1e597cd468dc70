// SPDX-License-Identifier: GPL-2.0
/*
 * netlab guest agent: the network. Sysctls (root namespace and each netns),
 * the NICs found by MAC and placed in their namespaces, addresses, links up
 * and waited for (see agent.c for the rest of the agent).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <poll.h>
#include <sys/reboot.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "agent-job.h"
#include "agent-int.h"
#include "agent-pci.h"
#include "netlab-proto.h"

#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP 0x10000	/* <linux/if.h>, which clashes with <net/if.h> */
#endif
#ifndef IF_OPER_UP
#define IF_OPER_UP 6
#endif

#define LINK_WAIT_MS 5000

/* ---- network namespaces and sysctls ------------------------------------ */

/* Switch the agent into netns @name (NULL or "": the root one). Return 0 or -errno. */
static int netns_enter(const struct agent *a, const char *name)
{
	char path[PATH_MAX];
	int fd, ret = 0;

	if (!name || !*name)
		return setns(a->root_netns, CLONE_NEWNET) ? -errno : 0;
	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (setns(fd, CLONE_NEWNET))
		ret = -errno;
	close(fd);
	return ret;
}

static int sysctl_write(const struct job_var *v)
{
	char path[PATH_MAX];
	size_t len = strlen(v->value);
	int fd, ret = 0;

	if (job_sysctl_path(v->name, path, sizeof(path)))
		return -EINVAL;	/* the parser already refused it */
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, v->value, len) != (ssize_t)len)
		ret = -errno;
	close(fd);
	return ret;
}

/* What bringing up the topology keeps track of. */
struct topo {
	const struct agent *a;
	char (*names)[IFNAMSIZ];	/* final interface name of each NIC */
	struct sysctl_state {
		bool root_pending;	/* not yet written in the root namespace */
		bool applied;		/* written in at least one namespace */
		int last_err;		/* errno of the last failed write */
	} *sysctls;			/* one per job sysctl */
	char err[ERRLEN];		/* what failed */
};

/*
 * Root namespace: write the sysctls not written yet. A missing file (ENOENT: it
 * may name an interface renamed or moved later) stays pending; any other error
 * fails the topology.
 */
static int sysctls_root(struct topo *t)
{
	const struct job *job = &t->a->job;
	size_t i;
	int ret;

	for (i = 0; i < job->n_sysctls; i++) {
		const struct job_var *v = &job->sysctls[i];
		struct sysctl_state *st = &t->sysctls[i];

		if (!st->root_pending)
			continue;
		ret = sysctl_write(v);
		if (ret == -ENOENT) {
			st->last_err = ENOENT;
			continue;
		}
		if (ret) {
			snprintf(t->err, ERRLEN, "sysctl %s=%s: %s", v->name, v->value,
				 strerror(-ret));
			return -1;
		}
		st->root_pending = false;
		st->applied = true;
		agent_say("sysctl %s=%s", v->name, v->value);
	}
	return 0;
}

/*
 * Namespace @netns: write the net.* sysctls there too, as they are per namespace.
 * Best effort: some (net.core.rmem_max...) exist only in the root namespace.
 */
static void sysctls_netns(struct topo *t, const char *netns, bool quiet)
{
	const struct job *job = &t->a->job;
	size_t i;
	int ret;

	ret = netns_enter(t->a, netns);
	if (ret) {
		agent_say("cannot enter netns '%s': %s", netns, strerror(-ret));
		return;
	}
	for (i = 0; i < job->n_sysctls; i++) {
		const struct job_var *v = &job->sysctls[i];

		if (strncmp(v->name, "net.", 4))
			continue;
		ret = sysctl_write(v);
		if (ret) {
			t->sysctls[i].last_err = -ret;
			if (ret != -ENOENT)
				agent_say("sysctl %s=%s not set in netns '%s': %s", v->name, v->value,
				    netns, strerror(-ret));
			continue;
		}
		t->sysctls[i].applied = true;
		if (!quiet)
			agent_say("sysctl %s=%s in netns '%s'", v->name, v->value, netns);
	}
	ret = netns_enter(t->a, NULL);
	if (ret)
		agent_say("cannot return to the root netns: %s", strerror(-ret));
}

/* Every sysctl must have been written somewhere. */
static int sysctls_check(struct topo *t)
{
	const struct job *job = &t->a->job;
	size_t i;

	for (i = 0; i < job->n_sysctls; i++) {
		if (t->sysctls[i].applied)
			continue;
		/* No such file in any namespace: the kernel has no such sysctl (bad input). */
		if (t->sysctls[i].last_err == ENOENT) {
			snprintf(t->err, ERRLEN, NETLAB_NO_SYSCTL "%s", job->sysctls[i].name);
			return -1;
		}
		snprintf(t->err, ERRLEN, "sysctl %s=%s: %s",
			 job->sysctls[i].name, job->sysctls[i].value,
			 strerror(t->sysctls[i].last_err));
		return -1;
	}
	return 0;
}

/* ---- topology ------------------------------------------------------------ */

/* Name of the root-namespace interface with MAC @mac into @name. Return 0 or -1. */
static int nic_find(const char *mac, char name[IFNAMSIZ])
{
	DIR *d = opendir("/sys/class/net");
	char path[PATH_MAX], addr[64];
	struct dirent *e;
	int ret = -1;

	if (!d)
		return -1;
	while (ret && (e = readdir(d))) {
		if (e->d_name[0] == '.' || strlen(e->d_name) >= IFNAMSIZ)
			continue;
		snprintf(path, sizeof(path), "/sys/class/net/%s/address", e->d_name);
		if (agent_read_small(path, addr, sizeof(addr)) > 0 && !strcasecmp(addr, mac)) {
			strcpy(name, e->d_name);
			ret = 0;
		}
	}
	closedir(d);
	return ret;
}

static bool iface_exists(const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/class/net/%s", name);
	return !access(path, F_OK);
}

/* A netlink socket of network namespace @netns (it stays bound to it). Return fd or -errno. */
static int netns_rtnl_socket(const struct agent *a, const char *netns)
{
	int s, ret;

	ret = netns_enter(a, netns);
	if (ret)
		return ret;
	s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	ret = s < 0 ? -errno : s;
	netns_enter(a, NULL);
	return ret;
}

/*
 * Send @req on a netlink socket of @netns and take one reply into @reply
 * (@size bytes). Return the reply's length or -errno; an NLMSG_ERROR reply
 * returns its error (0 for an acknowledgement).
 */
static int rtnl_request(const struct agent *a, const char *netns, struct nlmsghdr *req,
			char *reply, size_t size)
{
	struct nlmsghdr *nh = (struct nlmsghdr *)reply;
	int s, len;

	s = netns_rtnl_socket(a, netns);
	if (s < 0)
		return s;
	len = send(s, req, req->nlmsg_len, 0);
	if (len >= 0)
		len = recv(s, reply, size, 0);
	if (len < 0)
		len = -errno;
	close(s);
	if (len < 0 || !NLMSG_OK(nh, (unsigned int)len))
		return len < 0 ? len : -EPROTO;
	if (nh->nlmsg_type == NLMSG_ERROR)
		return ((struct nlmsgerr *)NLMSG_DATA(nh))->error;
	return len;
}

/* A link request: RTM_NEWLINK or RTM_GETLINK, with room for an IFLA_IFNAME and a u32. */
struct link_req {
	struct nlmsghdr nh;
	struct ifinfomsg ifi;
	char attr[RTA_SPACE(IFNAMSIZ) + RTA_SPACE(sizeof(uint32_t))];
};

/* Append attribute @type of @len bytes to @nh (room checked by the caller's struct). */
static void rta_add(struct nlmsghdr *nh, int type, const void *data, size_t len)
{
	struct rtattr *rta = (struct rtattr *)((char *)nh + NLMSG_ALIGN(nh->nlmsg_len));

	rta->rta_type = (unsigned short)type;
	rta->rta_len = (unsigned short)RTA_LENGTH(len);
	memcpy(RTA_DATA(rta), data, len);
	nh->nlmsg_len = NLMSG_ALIGN(nh->nlmsg_len) + RTA_ALIGN(rta->rta_len);
}

static void link_req_init(struct link_req *req, int type, int flags, int ifindex, const char *ifname)
{
	struct rtattr *rta = (struct rtattr *)req->attr;

	memset(req, 0, sizeof(*req));
	req->nh.nlmsg_len = NLMSG_LENGTH(sizeof(req->ifi));
	req->nh.nlmsg_type = type;
	req->nh.nlmsg_flags = NLM_F_REQUEST | flags;
	req->ifi.ifi_family = AF_UNSPEC;
	req->ifi.ifi_index = ifindex;
	(void)rta;
	if (ifname)
		rta_add(&req->nh, IFLA_IFNAME, ifname, strlen(ifname) + 1);
}

/*
 * Rename link @name to @newname (@newname NULL: set @name up), in @netns.
 * What `ip link set dev NAME name NEW` and `ip link set dev NAME up` do, by
 * rtnetlink from the agent itself: the first NIC's link goes up, and its PHY's
 * autonegotiation starts, without waiting for ip to be loaded and run (about
 * 13 ms each under TCG, more for the first). On failure @err names the step.
 */
static int link_set(struct topo *t, const char *netns, const char *name, const char *newname)
{
	struct link_req req;
	char reply[1024] __attribute__((aligned(NLMSG_ALIGNTO)));
	unsigned int ifindex = 0;
	int ret = 0;

	if (newname) {
		ret = netns_enter(t->a, netns);
		if (!ret) {
			ifindex = if_nametoindex(name);
			ret = ifindex ? 0 : -errno;
			netns_enter(t->a, NULL);
		}
	}
	if (!ret) {
		link_req_init(&req, RTM_NEWLINK, NLM_F_ACK, (int)ifindex, newname ? newname : name);
		if (!newname)
			req.ifi.ifi_flags = req.ifi.ifi_change = IFF_UP;
		ret = rtnl_request(t->a, netns, &req.nh, reply, sizeof(reply));
	}
	if (ret > 0)
		ret = -EPROTO;	/* a reply that is not the acknowledgement */
	if (!ret)
		return 0;
	if (newname)
		snprintf(t->err, ERRLEN, "renaming link %s to %s%s%s: %s", name, newname,
			 netns && *netns ? " in netns " : "", netns ? netns : "", strerror(-ret));
	else
		snprintf(t->err, ERRLEN, "setting link %s%s%s up: %s", name,
			 netns && *netns ? " in netns " : "", netns ? netns : "", strerror(-ret));
	agent_say("%s", t->err);
	return -1;
}

/*
 * What `ip netns add NAME` does, from the agent itself (an ip run costs about
 * 13 ms under TCG): a new network namespace, held by a bind mount of it on
 * /run/netns/NAME, where `ip netns exec` and `ip -n` find it.
 */
static int netns_add(struct topo *t, const char *netns, const char *path)
{
	int fd, ret = 0;

	if (mkdir("/run/netns", 0755) && errno != EEXIST)
		ret = -errno;
	fd = ret ? -1 : open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
	if (!ret && fd < 0)
		ret = -errno;
	if (fd >= 0)
		close(fd);
	if (!ret && unshare(CLONE_NEWNET))
		ret = -errno;
	if (!ret && mount("/proc/self/ns/net", path, "none", MS_BIND, NULL))
		ret = -errno;
	if (netns_enter(t->a, NULL) && !ret)
		ret = -EIO;
	if (!ret)
		return 0;
	if (fd >= 0)
		unlink(path);
	snprintf(t->err, ERRLEN, "creating netns %s: %s", netns, strerror(-ret));
	agent_say("%s", t->err);
	return -1;
}

static int netns_create(struct topo *t, const char *netns)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/run/netns/%s", netns);
	if (!access(path, F_OK))
		return 0;	/* another NIC made it */
	if (netns_add(t, netns, path) || link_set(t, netns, "lo", NULL))
		return -1;
	sysctls_netns(t, netns, true);	/* early, for conf.default.*; again later */
	return 0;
}

/* What `ip link set dev NAME netns NETNS` does, by rtnetlink. */
static int link_to_netns(struct topo *t, const char *name, const char *netns)
{
	struct link_req req;
	char path[PATH_MAX], reply[1024] __attribute__((aligned(NLMSG_ALIGNTO)));
	unsigned int ifindex = if_nametoindex(name);
	uint32_t fd;
	int nsfd, ret = ifindex ? 0 : -errno;

	snprintf(path, sizeof(path), "/run/netns/%s", netns);
	nsfd = ret ? -1 : open(path, O_RDONLY | O_CLOEXEC);
	if (!ret && nsfd < 0)
		ret = -errno;
	if (!ret) {
		link_req_init(&req, RTM_NEWLINK, NLM_F_ACK, (int)ifindex, NULL);
		fd = (uint32_t)nsfd;
		rta_add(&req.nh, IFLA_NET_NS_FD, &fd, sizeof(fd));
		ret = rtnl_request(t->a, NULL, &req.nh, reply, sizeof(reply));
		if (ret > 0)
			ret = -EPROTO;
	}
	if (nsfd >= 0)
		close(nsfd);
	if (!ret)
		return 0;
	snprintf(t->err, ERRLEN, "moving link %s to netns %s: %s", name, netns, strerror(-ret));
	agent_say("%s", t->err);
	return -1;
}

/*
 * Find NIC @i by MAC, rename it to its ifname (moving a holder of that name out
 * of the way) and move it into its netns. Its final name goes to t->names[i].
 */
static int nic_place(struct topo *t, size_t i)
{
	const struct job_nic *nic = &t->a->job.nics[i];
	char cur[IFNAMSIZ], tmp[IFNAMSIZ], *name = t->names[i];

	if (!nic->mac || nic_find(nic->mac, cur)) {
		char why[320];

		if (nic->mac && nic->model && agent_nic_unbound("/sys", nic->model, why, sizeof(why)) == 1)
			snprintf(t->err, ERRLEN,
				 "nic %s: no interface with MAC '%s': %s; hint: pass the kernel's modules (netlab run --modules DIR), or build the driver in (=y)",
				 nic->id, nic->mac, why);
		else
			snprintf(t->err, ERRLEN, "nic %s: no interface with MAC '%s'", nic->id,
				 nic->mac ? nic->mac : "(no nic.<ID>.mac key)");
		return -1;
	}
	if (nic->ifname && (!*nic->ifname || strlen(nic->ifname) >= IFNAMSIZ)) {
		snprintf(t->err, ERRLEN, "nic %s: bad ifname '%s'", nic->id, nic->ifname);
		return -1;
	}
	strcpy(name, nic->ifname ? nic->ifname : cur);
	if (strcmp(cur, name)) {
		snprintf(tmp, sizeof(tmp), "netlab%u", (unsigned int)(i % 1000));
		if (iface_exists(name) && link_set(t, NULL, name, tmp))
			return -1;
		if (link_set(t, NULL, cur, name))
			return -1;
	}
	if (!nic->netns || !*nic->netns)
		return 0;
	if (netns_create(t, nic->netns))
		return -1;
	return link_to_netns(t, name, nic->netns);
}

/*
 * What `ip [-n NETNS] addr add ADDR[/PLEN] dev NAME [nodad]` does, by
 * rtnetlink: @family AF_INET or AF_INET6 (IPv6 without DAD, usable at once).
 */
static int addr_add(struct topo *t, const char *netns, const char *name, int family,
		    const char *spec)
{
	struct {
		struct nlmsghdr nh;
		struct ifaddrmsg ifa;
		char attr[2 * RTA_SPACE(16)];
	} req;
	char addr[INET6_ADDRSTRLEN], reply[1024] __attribute__((aligned(NLMSG_ALIGNTO)));
	unsigned char bin[16];
	const char *slash = strchr(spec, '/');
	size_t alen = family == AF_INET ? 4 : 16, n = slash ? (size_t)(slash - spec) : strlen(spec);
	long plen = (long)alen * 8;
	char *end = NULL;
	unsigned int ifindex = 0;
	int ret = 0;

	if (slash)
		plen = strtol(slash + 1, &end, 10);
	if (n >= sizeof(addr) || (slash && (end == slash + 1 || *end || plen < 0 ||
					    plen > (long)alen * 8)))
		ret = -EINVAL;
	if (!ret) {
		memcpy(addr, spec, n);
		addr[n] = '\0';
		ret = inet_pton(family, addr, bin) == 1 ? 0 : -EINVAL;
	}
	if (!ret && !(ret = netns_enter(t->a, netns))) {
		ifindex = if_nametoindex(name);
		ret = ifindex ? 0 : -errno;
		netns_enter(t->a, NULL);
	}
	if (!ret) {
		memset(&req, 0, sizeof(req));
		req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.ifa));
		req.nh.nlmsg_type = RTM_NEWADDR;
		req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL;
		req.ifa.ifa_family = (unsigned char)family;
		req.ifa.ifa_prefixlen = (unsigned char)plen;
		req.ifa.ifa_flags = family == AF_INET6 ? IFA_F_NODAD : 0;
		req.ifa.ifa_index = ifindex;
		if (family == AF_INET)
			rta_add(&req.nh, IFA_LOCAL, bin, alen);
		rta_add(&req.nh, IFA_ADDRESS, bin, alen);
		ret = rtnl_request(t->a, netns, &req.nh, reply, sizeof(reply));
		if (ret > 0)
			ret = -EPROTO;
	}
	if (!ret)
		return 0;
	snprintf(t->err, ERRLEN, "adding address %s to %s%s%s: %s", spec, name,
		 netns && *netns ? " in netns " : "", netns ? netns : "", strerror(-ret));
	agent_say("%s", t->err);
	return -1;
}

/* Addresses (IPv6 without DAD, usable at once). */
static int nic_addresses(struct topo *t, const struct job_nic *nic, const char *name)
{
	if (nic->ipv4 && addr_add(t, nic->netns, name, AF_INET, nic->ipv4))
		return -1;
	if (nic->ipv6 && addr_add(t, nic->netns, name, AF_INET6, nic->ipv6))
		return -1;
	return 0;
}

/*
 * Does @name in @netns have carrier (IFF_LOWER_UP) and operstate UP? Return 1, 0
 * or -errno. (SIOCGIFFLAGS cannot tell: its IFF_RUNNING is also set while the
 * operstate is still UNKNOWN, and its flags are too short for IFF_LOWER_UP.)
 */
static int link_up(const struct agent *a, const char *netns, const char *name)
{
	struct link_req req;
	char reply[4096] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct nlmsghdr *nh = (struct nlmsghdr *)reply;
	struct ifinfomsg *ifi;
	struct rtattr *rta;
	int len, oper = -1;

	link_req_init(&req, RTM_GETLINK, 0, 0, name);
	len = rtnl_request(a, netns, &req.nh, reply, sizeof(reply));
	if (len <= 0)
		return len ? len : -EPROTO;
	ifi = NLMSG_DATA(nh);
	len = IFLA_PAYLOAD(nh);
	for (rta = IFLA_RTA(ifi); RTA_OK(rta, len); rta = RTA_NEXT(rta, len))
		if (rta->rta_type == IFLA_OPERSTATE)
			oper = *(unsigned char *)RTA_DATA(rta);
	return (ifi->ifi_flags & IFF_LOWER_UP) && oper == IF_OPER_UP;
}

static int links_wait(struct topo *t)
{
	const struct job *job = &t->a->job;
	long long start = agent_now_ms();
	size_t i = 0;
	int up;

	while (i < job->n_nics) {
		up = link_up(t->a, job->nics[i].netns, t->names[i]);
		if (up > 0) {
			agent_say("%s is up after %lld ms", t->names[i], agent_now_ms() - start);
			i++;
			continue;
		}
		if (up < 0 || agent_now_ms() - start >= LINK_WAIT_MS) {
			snprintf(t->err, ERRLEN, "nic %s (%s): %s", job->nics[i].id, t->names[i],
				 up < 0 ? strerror(-up) : "no carrier or operstate not up after 5 s");
			return -1;
		}
		agent_sleep_ms(20);
	}
	return 0;
}

/* Is NIC @i the first one in its (non-root) netns? */
static bool netns_first_use(const struct job *job, size_t i)
{
	const char *ns = job->nics[i].netns;
	size_t j;

	if (!ns || !*ns)
		return false;
	for (j = 0; j < i; j++)
		if (job->nics[j].netns && !strcmp(job->nics[j].netns, ns))
			return false;
	return true;
}

/*
 * Place NIC @i (found, renamed, moved), write the sysctls that name it now that
 * it has its name and namespace, then set its link up.
 */
static int nic_place_up(struct topo *t, size_t i)
{
	const struct job_nic *nic = &t->a->job.nics[i];

	if (nic_place(t, i) || sysctls_root(t))
		return -1;
	if (nic->netns && *nic->netns)
		sysctls_netns(t, nic->netns, true);
	return link_set(t, nic->netns, t->names[i], NULL);
}

/*
 * Root sysctls, then each NIC placed, its sysctls written and its link set up,
 * one NIC after the other; lo up, the namespaces' sysctls reported and checked,
 * addresses, carrier. A NIC goes up as soon as its own sysctls are in place,
 * before the next one is placed: an emulated PHY's autonegotiation (QEMU's e1000
 * and e1000e complete it 500 ms after the driver restarts it, in its open) then
 * runs while the rest is set up, instead of after it.
 */
static int topology_setup(struct topo *t)
{
	const struct job *job = &t->a->job;
	long long start = agent_now_ms(), up, addrs;
	size_t i;

	if (sysctls_root(t))
		return -1;
	for (i = 0; i < job->n_nics; i++)
		if (nic_place_up(t, i))
			return -1;
	up = agent_now_ms();
	if (link_set(t, NULL, "lo", NULL))
		return -1;
	for (i = 0; i < job->n_nics; i++)
		if (netns_first_use(job, i))
			sysctls_netns(t, job->nics[i].netns, false);
	if (sysctls_check(t))
		return -1;
	for (i = 0; i < job->n_nics; i++)
		if (nic_addresses(t, &job->nics[i], t->names[i]))
			return -1;
	addrs = agent_now_ms();
	if (links_wait(t))
		return -1;
	agent_say("topology: NICs placed and up %lld ms, addresses %lld ms, carrier %lld ms more",
		  up - start, addrs - up, agent_now_ms() - addrs);
	return 0;
}

/* Bring the topology up; report "topology ok" or "topology error <text>". */
int agent_topology_up(const struct agent *a)
{
	const char *kind = a->job.topology ? a->job.topology : "none";
	struct topo t = { .a = a };
	int ret = -1;
	size_t i;

	t.names = calloc(a->job.n_nics + 1, IFNAMSIZ);
	t.sysctls = calloc(a->job.n_sysctls + 1, sizeof(*t.sysctls));
	if (!t.names || !t.sysctls) {
		snprintf(t.err, ERRLEN, "%s", strerror(ENOMEM));
		goto out;
	}
	for (i = 0; i < a->job.n_sysctls; i++)
		t.sysctls[i].root_pending = true;
	if (!strcmp(kind, "none")) {	/* sysctls, and lo up: basic system setup */
		ret = sysctls_root(&t) || sysctls_check(&t) ||
		      link_set(&t, NULL, "lo", NULL) ? -1 : 0;
	} else {
		if (strcmp(kind, "loop"))
			agent_say("topology '%s' is not known here: configuring its NICs anyway", kind);
		ret = topology_setup(&t);
	}
out:
	if (ret)
		agent_status(a, "topology error %s", t.err);
	else
		agent_status(a, "topology ok");
	free(t.names);
	free(t.sysctls);
	return ret;
}
