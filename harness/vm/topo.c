// SPDX-License-Identifier: GPL-2.0
/*
 * NIC models and topologies.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm/vmcfg.h"
#include "netlab-proto.h"

unsigned int vm_gdb_default(const struct vm_config *cfg)
{
	for (unsigned int i = 0; i < cfg->n_nics; i++)
		if (cfg->nics[i].model->gdb_helpers)
			return cfg->nics[i].vm;
	return 0;
}

int vm_nic_index(char label)
{
	if (label < 'A' || label >= 'A' + VM_MAX_NICS)
		return -1;
	return label - 'A';
}

const char *vm_accel_name(enum vm_accel a)
{
	switch (a) {
	case VM_ACCEL_KVM:
		return "kvm";
	case VM_ACCEL_TCG:
		return "tcg";
	default:
		return "auto";
	}
}

int vm_accel_parse(const char *s, enum vm_accel *out)
{
	static const enum vm_accel all[] = { VM_ACCEL_AUTO, VM_ACCEL_KVM, VM_ACCEL_TCG };

	for (size_t i = 0; i < ARRAY_SIZE(all); i++) {
		if (!strcmp(s, vm_accel_name(all[i]))) {
			*out = all[i];
			return 0;
		}
	}
	return -EINVAL;
}

/* Fill NIC `label` with the conventions shared by every topology. */
static struct vm_nic *nic_add(struct vm_config *cfg, char label, const char *def_model)
{
	int i = vm_nic_index(label);
	struct vm_nic *n = &cfg->nics[cfg->n_nics++];


	memset(n, 0, sizeof(*n));
	n->label = label;
	n->model = cfg->want_model[i] ? cfg->want_model[i] : nic_model_find(def_model);
	snprintf(n->mac, sizeof(n->mac), "52:54:00:4e:4c:%02x", 0x0a + i);
	snprintf(n->ifname, sizeof(n->ifname), "eth%c", label);
	return n;
}

void vm_nic_traffic_default(struct vm_nic *n)
{
	_Static_assert(sizeof(n->tr_netns) == sizeof(n->netns) && sizeof(n->tr_ipv4) == sizeof(n->ipv4) &&
		       sizeof(n->tr_ipv6) == sizeof(n->ipv6), "traffic end fields");
	memcpy(n->tr_netns, n->netns, sizeof(n->tr_netns));
	memcpy(n->tr_ipv4, n->ipv4, sizeof(n->tr_ipv4));
	memcpy(n->tr_ipv6, n->ipv6, sizeof(n->tr_ipv6));
}

/* Reject a model asked for a NIC the topology does not have. */
static int check_extra_models(const struct vm_config *cfg, char **err)
{
	for (int i = 0; i < VM_MAX_NICS; i++) {
		if (cfg->want_model[i] && i >= (int)cfg->n_nics) {
			err_set(err, "topology '%s' has no NIC %c", cfg->topo->name, 'A' + i);
			return -EINVAL;
		}
	}
	return 0;
}

/* NIC A (e1000e) and NIC B (virtio-net) with their addresses; returns B. */
static struct vm_nic *add_a_and_b(struct vm_config *cfg)
{
	struct vm_nic *a, *b;

	cfg->n_nics = 0;
	a = nic_add(cfg, 'A', "e1000e");
	snprintf(a->ipv4, sizeof(a->ipv4), "%s", NETLAB_LOOP_A_IPV4);
	snprintf(a->ipv6, sizeof(a->ipv6), "%s", NETLAB_LOOP_A_IPV6);
	b = nic_add(cfg, 'B', "virtio-net");
	snprintf(b->ipv4, sizeof(b->ipv4), "%s", NETLAB_LOOP_B_IPV4);
	snprintf(b->ipv6, sizeof(b->ipv6), "%s", NETLAB_LOOP_B_IPV6);
	vm_nic_traffic_default(a);
	vm_nic_traffic_default(b);
	return b;
}

/* loop: both NICs in one VM, B in its own namespace so traffic crosses the hub. */
static int loop_setup(struct vm_config *cfg, char **err)
{
	struct vm_nic *b = add_a_and_b(cfg);

	snprintf(b->netns, sizeof(b->netns), "%s", NETLAB_LOOP_B_NETNS);
	vm_nic_traffic_default(b);
	return check_extra_models(cfg, err);
}

void qemu_hubport_args(const struct vm_nic *n, struct argv *a)
{
	argv_add(a, "-netdev");
	argv_addf(a, "hubport,id=net%c,hubid=%u", n->label, n->hub);
}

void qemu_nic_device_args(const struct vm_nic *n, const char *netdev, unsigned int slot,
			  struct argv *a)
{
	argv_add(a, "-device");
	if (slot)
		argv_addf(a, "%s%s,netdev=%s,mac=%s,romfile=,bus=pci.0,addr=0x%x",
			  n->model->qemu_device, n->model->qemu_props, netdev, n->mac, slot);
	else
		argv_addf(a, "%s%s,netdev=%s,mac=%s,romfile=", n->model->qemu_device,
			  n->model->qemu_props, netdev, n->mac);
}

void qemu_nic_dump_args(const struct vm_nic *n, const char *netdev, const char *path,
			unsigned int snaplen, struct argv *a)
{
	argv_add(a, "-object");
	if (snaplen)
		argv_addf(a, "filter-dump,id=dump%c,netdev=%s,file=%s,maxlen=%u", n->label, netdev,
			  path, snaplen);
	else
		argv_addf(a, "filter-dump,id=dump%c,netdev=%s,file=%s", n->label, netdev, path);
}

/*
 * A QEMU hub reorders frames when the receiving NIC runs out of buffers.
 * The NIC takes a frame (can_receive) and then refuses it (no room for
 * its size: virtio-net, e1000e): QEMU queues that frame X in the NIC's
 * own queue and marks the NIC "receive disabled", so the hub stops
 * taking frames and the sender's next ones, Y and Z, wait in the
 * sender's hub port. When the guest gives the NIC buffers again, QEMU
 * flushes the hub's queues before the NIC's own: Y and Z reach the guest
 * before X. The captures (taken as frames leave the hub) show them in
 * order; the receiver's TCP sees them out of order, and the sender
 * retransmits for nothing (measured, tcp-stream over 10 runs: up to
 * 1,875 spurious fast retransmits a run, every one D-SACKed, 0 to 480
 * TcpExt.TCPOFOQueue at the receiver, while the wire held no hole).
 *
 * filter-buffer on the frames the link hands to the NIC (queue=tx: "sent
 * by the netdev") takes each frame as it leaves the hub and passes the
 * frames it holds, in order, at each RELEASE_US tick of the virtual
 * clock into the NIC's queue, behind any frame already waiting there. A
 * hub flush then meets the filter, never the NIC. With it: 0 TCPOFOQueue
 * and at most 1 retransmit in 14 runs. Under -icount the ticks are
 * virtual time, so runs stay reproducible; an idle guest now wakes for
 * a frame within RELEASE_US rather than at its next timer, so
 * request/response latency below the tick shows (tcp-rr p90 2.4 ms ->
 * 1.25 ms). Costs: up to RELEASE_US more latency per frame, and host
 * time to step an idle guest through the ticks (netlab-run(1), "Topology
 * loop").
 */
void qemu_release_filter_args(const struct vm_nic *n, const char *id, const char *netdev,
			      const char *queue, struct argv *a)
{
	argv_add(a, "-object");
	argv_addf(a, "filter-buffer,id=%s%c,netdev=%s,queue=%s,interval=%u", id, n->label, netdev,
		  queue, RELEASE_US);
}

void qemu_hub_order_args(const struct vm_nic *n, const char *netdev, struct argv *a)
{
	qemu_release_filter_args(n, "order", netdev, "tx", a);
}

/* The NIC's device and a host-side capture of its link, on netdev "net<label>". */
static void nic_device_args(const struct vm_config *cfg, const struct vm_nic *n, struct argv *a)
{
	char netdev[8], *pcap = xasprintf("%s/nic-%c.pcap", cfg->rundir, n->label);

	snprintf(netdev, sizeof(netdev), "net%c", n->label);
	qemu_nic_device_args(n, netdev, 0, a);
	qemu_nic_dump_args(n, netdev, pcap, cfg->snaplen, a);
	free(pcap);
}

/* Each NIC on a hub port. */
void vm_hub_nics_qemu_args(const struct vm_config *cfg, unsigned int vm, struct argv *a)
{
	for (unsigned int i = 0; i < cfg->n_nics; i++) {
		const struct vm_nic *n = &cfg->nics[i];
		char netdev[8];

		if (n->vm != vm)
			continue;
		snprintf(netdev, sizeof(netdev), "net%c", n->label);
		qemu_hubport_args(n, a);
		nic_device_args(cfg, n, a);
		qemu_hub_order_args(n, netdev, a);
	}
}

/*
 * pair: VM 0 has NIC A, VM 1 has NIC B, joined by unix datagram sockets
 * between the two QEMU processes. Frames can be lost between them (each
 * QEMU's socket buffer), which is what this topology is for.
 */
static int pair_setup(struct vm_config *cfg, char **err)
{
	add_a_and_b(cfg)->vm = 1;
	return check_extra_models(cfg, err);
}

static void pair_qemu_args(const struct vm_config *cfg, unsigned int vm, struct argv *a)
{
	for (unsigned int i = 0; i < cfg->n_nics; i++) {
		const struct vm_nic *n = &cfg->nics[i];
		char other = n->label == 'A' ? 'B' : 'A';

		if (n->vm != vm)
			continue;
		argv_add(a, "-netdev");
		argv_addf(a, "dgram,id=net%c,local.type=unix,local.path=%s/%c.sock,"
			     "remote.type=unix,remote.path=%s/%c.sock",
			  n->label, cfg->sock_dir, n->label, cfg->sock_dir, other);
		nic_device_args(cfg, n, a);
	}
}

static int none_setup(struct vm_config *cfg, char **err)
{
	cfg->n_nics = 0;
	return check_extra_models(cfg, err);
}

static void none_qemu_args(const struct vm_config *cfg, unsigned int vm, struct argv *a)
{
}

static const struct topology topologies[] = {
	{ "loop", "one VM, NIC A (e1000e) and NIC B (virtio-net, netns b) on a QEMU hub", 1,
	  loop_setup, vm_hub_nics_qemu_args, NULL },
	{ "pair", "two VMs: NIC A (e1000e) in one, NIC B (virtio-net) in the other, wired by "
		  "datagram sockets", 2, pair_setup, pair_qemu_args, NULL },
	{ "none", "one VM without NICs", 1, none_setup, none_qemu_args, NULL },
};

const struct topology *topology_builtin(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(topologies); i++)
		if (!strcmp(topologies[i].name, name))
			return &topologies[i];
	return NULL;
}

const struct nic_model *topology_default_model(char label)
{
	return nic_model_find(label == 'B' ? "virtio-net" : "e1000e");
}
