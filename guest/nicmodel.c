// SPDX-License-Identifier: GPL-2.0
/*
 * The NIC models netlab emulates (nicmodel.h). Functions and fetch
 * arguments are those of Linux 6.1.192.
 */
#include <stdio.h>
#include <string.h>

#include "nicmodel.h"

#define ARGS_SKB(n) "skb=$arg" #n ":x64 len=+%2$u($arg" #n "):u32"

const struct nic_model nic_models[] = {
	{
		.name = "e1000",
		.summary = "Intel 82540EM (e1000): single queue, legacy interrupt",
		.qemu_device = "e1000", .qemu_props = "", .libvirt_model = "e1000",
		.driver = "e1000", .modules = { "e1000" }, .kconfig = "CONFIG_E1000",
		.pci_vendor = 0x8086, .pci_device = { 0x100e },
		.poll_func = "e1000_clean",
		.kprobes = {
			{ "poll", "p e1000_clean", "napi=$arg1:x64 budget=$arg2:s32" },
			{ "poll_ret", "r e1000_clean", "work=$retval:s32" },
			{ "irq", "p e1000_intr", "irq=$arg1:s32" },
			{ "xmit", "p e1000_xmit_frame", ARGS_SKB(1) },
			{ "refill", "p e1000_alloc_rx_buffers", "want=$arg3:s32" },
		},
		.rx_desc_lines = true, .rx_ring_max = 4096, .tx_ring_max = 4096, .queues_max = 1,
		.queues_why = "the 82540EM has one RX and one TX queue",
		.offloads = NIC_OFF_TX_CSUM | NIC_OFF_RX_CSUM | NIC_OFF_TSO,
		.coverage = "intel-legacy",
	},
	{
		.name = "e1000e",
		.summary = "Intel 82574L (e1000e): MSI-X, one RX and one TX queue",
		.qemu_device = "e1000e", .qemu_props = "", .libvirt_model = "e1000e",
		.driver = "e1000e", .modules = { "e1000e" }, .kconfig = "CONFIG_E1000E",
		.pci_vendor = 0x8086, .pci_device = { 0x10d3 },
		.poll_func = "e1000e_poll",
		.kprobes = {
			{ "poll", "p e1000e_poll", "napi=$arg1:x64 budget=$arg2:s32" },
			{ "poll_ret", "r e1000e_poll", "work=$retval:s32" },
			{ "irq_msix", "p e1000_intr_msix_rx", "irq=$arg1:s32" },
			{ "irq_tx_msix", "p e1000_intr_msix_tx", "irq=$arg1:s32" },
			{ "irq_msi", "p e1000_intr_msi", "irq=$arg1:s32" },
			{ "irq", "p e1000_intr", "irq=$arg1:s32" },
			{ "xmit", "p e1000_xmit_frame", ARGS_SKB(1) },
			{ "refill", "p e1000_alloc_rx_buffers", "want=$arg2:s32" },
			{ "rx", "p e1000_receive_skb", ARGS_SKB(3) },
		},
		.rx_desc_lines = true, .rx_ring_max = 4096, .tx_ring_max = 4096, .queues_max = 1,
		.queues_why = "QEMU's 82574L has two RSS queues, but Linux's e1000e driver uses one",
		.offloads = NIC_OFF_TX_CSUM | NIC_OFF_RX_CSUM | NIC_OFF_TSO,
		.coverage = "intel-msix",
		.gdb_helpers = "e1000e.gdb",
	},
	{
		.name = "virtio-net",
		.summary = "virtio-net (paravirtual): virtqueues, no descriptors in the trace",
		.qemu_device = "virtio-net-pci", .qemu_props = "", .libvirt_model = "virtio",
		.driver = "virtio_net", .modules = { "virtio_pci", "virtio_net" },
		.kconfig = "CONFIG_VIRTIO_PCI",
		.pci_vendor = 0x1af4, .pci_device = { 0x1000, 0x1041 }, .virtio = true,
		.virtio_kconfig = "CONFIG_VIRTIO_NET",
		.poll_func = "virtnet_poll",
		.kprobes = {
			{ "poll", "p virtnet_poll", "napi=$arg1:x64 budget=$arg2:s32" },
			{ "poll_ret", "r virtnet_poll", "work=$retval:s32" },
			{ "irq", "p skb_recv_done", "vq=$arg1:x64" },
			{ "irq_tx", "p skb_xmit_done", "vq=$arg1:x64" },
			{ "xmit", "p start_xmit", ARGS_SKB(1) },
			{ "refill", "p try_fill_recv", "rq=$arg2:x64" },
			{ "rx", "p receive_buf", "len=$arg4:u32" },
		},
		.rx_desc_lines = false, .rx_ring_max = 256, .tx_ring_max = 256, .queues_max = 1,
		.queues_why = "virtio-net multiqueue needs mq=on and a tap or vhost netdev with queues=N; netlab's links (hub ports, datagram sockets) carry one queue",
		.offloads = NIC_OFF_TX_CSUM | NIC_OFF_RX_CSUM | NIC_OFF_TSO,
		.coverage = "paravirt",
	},
	{
		.name = "igb",
		.summary = "Intel 82576 (igb): MSI-X, RSS, up to 8 RX/TX queue pairs",
		.qemu_device = "igb", .qemu_props = "", .libvirt_model = "igb",
		.driver = "igb", .modules = { "igb" }, .kconfig = "CONFIG_IGB",
		.pci_vendor = 0x8086, .pci_device = { 0x10c9 },
		.poll_func = "igb_poll",
		.kprobes = {
			{ "poll", "p igb_poll", "napi=$arg1:x64 budget=$arg2:s32" },
			{ "poll_ret", "r igb_poll", "work=$retval:s32" },
			{ "irq_msix", "p igb_msix_ring", "irq=$arg1:s32" },
			{ "irq_msi", "p igb_intr_msi", "irq=$arg1:s32" },
			{ "irq", "p igb_intr", "irq=$arg1:s32" },
			{ "xmit", "p igb_xmit_frame_ring", ARGS_SKB(1) },
			{ "refill", "p igb_alloc_rx_buffers", "want=$arg2:u16" },
		},
		.rx_desc_lines = true, .rx_ring_max = 4096, .tx_ring_max = 4096, .queues_max = 8,
		.queues_why = "QEMU's igb has 16 queues; Linux's igb driver takes at most 8 RSS queues on an 82576",
		.offloads = NIC_OFF_TX_CSUM | NIC_OFF_RX_CSUM | NIC_OFF_TSO | NIC_OFF_RSS,
		.coverage = "intel-msix",
	},
};

const size_t nic_models_n = sizeof(nic_models) / sizeof(nic_models[0]);

_Static_assert(sizeof(nic_models) / sizeof(nic_models[0]) <= NIC_MODELS_MAX,
	       "raise NIC_MODELS_MAX");

const struct nic_model *nic_model_find(const char *name)
{
	for (size_t i = 0; i < nic_models_n; i++)
		if (!strcmp(nic_models[i].name, name))
			return &nic_models[i];
	return NULL;
}

const struct nic_model *nic_model_by_driver(const char *driver)
{
	for (size_t i = 0; i < nic_models_n; i++)
		if (!strcmp(nic_models[i].driver, driver))
			return &nic_models[i];
	return NULL;
}

const char *nic_model_list(void)
{
	static char list[256];

	if (!list[0])
		for (size_t i = 0, n = 0; i < nic_models_n && n < sizeof(list); i++)
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "",
					      nic_models[i].name);
	return list;
}
