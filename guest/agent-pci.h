/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netlab guest agent: why a NIC has no network interface. QEMU gave the
 * guest the NIC's PCI function; when no interface carries its MAC, the
 * usual cause is that no driver bound to it: the kernel lacks the driver,
 * or has it as a module that nothing loaded.
 */
#ifndef NETLAB_AGENT_PCI_H
#define NETLAB_AGENT_PCI_H

#include <stddef.h>

/*
 * agent_nic_unbound() - name a NIC model's PCI function that has no driver
 * @sysfs: the sysfs mount ("/sys"; a test passes a tree of its own)
 * @model: netlab's NIC model: "e1000", "e1000e" or "virtio-net"
 * @out:   "no driver bound to the e1000e device at 0000:00:04.0: the kernel
 *         lacks CONFIG_E1000E=y (or has it as a module nothing loaded)"
 *
 * For virtio-net, the PCI function bound to virtio-pci but its virtio
 * device without virtio_net is named too (CONFIG_VIRTIO_NET).
 *
 * Return: 1 when such a function was found (@out set), 0 when every
 * function of the model has its driver or there is none, -1 for a model
 * it does not know.
 */
int agent_nic_unbound(const char *sysfs, const char *model, char *out, size_t n);

#endif
