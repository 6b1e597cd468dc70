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

/*
 * agent_modules_load() - load the modules netlab put in the initramfs
 * @dir:  "/netlab/modules": NN-NAME.ko files, loaded in name order (the
 *        host sorted them, dependencies first: harness/boot/kmod.h)
 * @load: loads one open module file (finit_module); returns 0 or -errno
 * @say:  a line for the console per module that failed
 *
 * A module already loaded (-EEXIST) counts as loaded. Returns the number
 * loaded, 0 when @dir does not exist.
 */
int agent_modules_load(const char *dir, int (*load)(int fd),
		       void (*say)(const char *fmt, ...) __attribute__((format(printf, 1, 2))));

#endif
