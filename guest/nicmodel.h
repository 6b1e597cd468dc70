/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The NIC models netlab emulates: one descriptor each, in one table
 * (guest/nicmodel.c). The guest agent and the harness both read it, as
 * they share netlab-proto.h: QEMU's device and libvirt's model name,
 * the guest driver, its modules and kernel config symbol, the PCI ids,
 * the kprobe fallback for a kernel without netlab's driver patches,
 * ring and queue limits, offloads, the coverage class.
 *
 * Adding a model: a row in nic_models[] (Documentation/contributing.md),
 * its driver-patches/ series, its kconfigs/ line and the scenario matrices.
 */
#ifndef NETLAB_NICMODEL_H
#define NETLAB_NICMODEL_H

#include <stdbool.h>
#include <stddef.h>

#define NIC_MODELS_MAX 8	/* rows nic_models[] may hold (index arrays size) */
#define NIC_KPROBES_MAX 10
#define NIC_MODULES_MAX 3

/* One kprobe of a driver's fallback set (no netlab_drv lines in the kernel). */
struct nic_kprobe {
	/* netlab:drv_DRIVER_ROLE; roles: poll, poll_ret, irq[_VARIANT] (receive),
	 * irq_tx[_VARIANT] (transmit), xmit, refill, rx */
	const char *role;
	const char *type_func;	/* "p FUNCTION" or "r FUNCTION" (as in 6.1.192) */
	const char *args;	/* fetch args; %2$u is skb->len's offset */
};

/* What the model's NIC does in hardware (ethtool -k's view of it). */
enum {
	NIC_OFF_TX_CSUM = 1 << 0,
	NIC_OFF_RX_CSUM = 1 << 1,
	NIC_OFF_TSO = 1 << 2,
	NIC_OFF_RSS = 1 << 3,
};

struct nic_model {
	const char *name;		/* the scenario's nic.L = NAME */
	const char *summary;		/* one line, for help */
	const char *qemu_device;	/* -device NAME */
	const char *qemu_props;		/* ",prop=value..." after the device, or "" */
	const char *libvirt_model;	/* <model type='...'/> */
	const char *driver;		/* guest driver: netlab_drv lines' <driver>, kprobes */
	const char *modules[NIC_MODULES_MAX]; /* its modules, deps first; NULL-ended */
	const char *kconfig;		/* the PCI driver's config symbol */
	unsigned int pci_vendor, pci_device[2]; /* device 0: unused */
	bool virtio;			/* the netdev hangs off a virtio device, */
	const char *virtio_kconfig;	/* whose driver's config symbol this is */
	const char *poll_func;		/* NAPI poll: unique, the anchor of its kprobes */
	struct nic_kprobe kprobes[NIC_KPROBES_MAX]; /* role NULL ends */
	bool rx_desc_lines;		/* its series writes rx_desc lines */
	unsigned int rx_ring_max, tx_ring_max; /* descriptors (ethtool -G) */
	unsigned int queues_max;	/* RX/TX queue pairs the model offers */
	/* Why queues_max is what it is, for the scenario's queues.L error. */
	const char *queues_why;
	unsigned int offloads;		/* NIC_OFF_* */
	const char *coverage;		/* coverage class: "intel-legacy", ... */
	/* gdb commands for its driver (harness/gdb/FILE, sourced by netlab gdb);
	 * the first NIC with some picks the VM gdb attaches to by default */
	const char *gdb_helpers;
};

extern const struct nic_model nic_models[];
extern const size_t nic_models_n;

/* The model named @name, or NULL. */
const struct nic_model *nic_model_find(const char *name);
/* The model whose guest driver is @driver ("e1000e", "virtio_net"), or NULL. */
const struct nic_model *nic_model_by_driver(const char *driver);
/* "e1000, e1000e, virtio-net, igb": for hints. Static storage. */
const char *nic_model_list(void);
/* The index of @m in nic_models[]. */
static inline unsigned int nic_model_index(const struct nic_model *m)
{
	return (unsigned int)(m - nic_models);
}

#endif
