/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Topologies as data: a topology file (harness/vm/topologies/NAME.topo, or a
 * path) describes one VM's NICs, the QEMU links (hubs) they plug into, the
 * network namespaces they sit in, what each namespace builds with iproute2
 * (bridges, VLANs, veth pairs, tunnels), its routes and forwarding, the
 * hops a packet crosses, and where each end of the traffic lives.
 * Format and keys: Documentation/netlab-topology.txt.
 */
#ifndef NETLAB_TOPOFILE_H
#define NETLAB_TOPOFILE_H

#include <stdbool.h>

#include "vm/vmcfg.h"

#define TOPO_MAX_LINKS 8
#define TOPO_MAX_HOPS 4

struct topo_nic_spec {
	char label;
	bool given;
	char netns[16];
	unsigned int link;		/* QEMU hub */
	char ipv4[48], ipv6[64];
	const char *model;		/* default model name */
};

/* A namespace: created, then forwarding, then its ip commands, then its routes. */
struct topo_netns {
	char name[16];			/* "" = the root namespace ([netns.root]) */
	bool forwarding;
	char **ip;			/* iproute2 argument lines, in order */
	size_t n_ip, cap_ip;
	char **route;			/* "ip route add" arguments ("-6" added for IPv6) */
	size_t n_route, cap_route;
};

/* A hop between the two ends: frames in on NIC `in`, out on NIC `out`. */
struct topo_hop {
	char name[16];
	char in, out;
	bool bridge;			/* layer = bridge; else forwarding */
};

/*
 * The addresses of one end of the traffic when they are not its NIC's (a
 * VLAN device, a bridge): the end stays in the NIC's namespace, whose
 * counters are the end's stack's (snmp.L, ...).
 */
struct topo_endpoint {
	bool given;
	char ipv4[48], ipv6[64];
};

struct topo_data {
	char *path;
	/*
	 * [topology] tunnel = yes: the ends talk through a tunnel over NICs A
	 * and B. Their IP layers then count each packet twice (the outer one
	 * and the one it carried), so the NIC/driver layer of the loss story
	 * (nicrx) is not measured.
	 */
	bool tunnel;
	struct topo_nic_spec nics[VM_MAX_NICS];
	unsigned int n_nics;
	struct topo_netns *ns;
	size_t n_ns, cap_ns;
	struct topo_hop hops[TOPO_MAX_HOPS];
	unsigned int n_hops;
	struct topo_endpoint ep[2];	/* ends A and B */
};

/**
 * topo_file_load() - parse topology file @path into a topology named @name.
 * Returns a topology that lives until exit, or NULL with *err naming the
 * file, the line and what to do.
 */
const struct topology *topo_file_load(const char *name, const char *path, char **err);

/* The directory of the shipped topology files (next to the binary's tree). */
char *topo_file_dir(void);

/* The shell lines that build @t's namespaces, devices and routes in VM `vm`. */
void topo_setup_script(const struct topology *t, unsigned int vm, struct sbuf *o);

#endif
