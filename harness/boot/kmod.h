/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel modules for a kernel whose NIC drivers are modules (a distribution
 * kernel): `--modules DIR` names its lib/modules/VERSION tree (or a root
 * holding lib/modules/VERSION, as a .deb unpacked with dpkg -x). netlab puts
 * the modules the guest may need (the agent's virtio-serial port
 * (KMOD_WANTED_FIRST), every NIC model's modules (guest/nicmodel.c), the
 * qdiscs scenarios use and 9p (KMOD_WANTED_LAST)) with their dependencies, deps first, into the run's initramfs as
 * netlab/modules/NN-NAME.ko; the agent loads them in that order before it
 * opens its ports and brings up the NICs. A wanted module the tree lacks is
 * built in (or not built): skipped. Dependencies come from each module's
 * own .modinfo section ("depends="), so the tree needs no modules.dep.
 */
#ifndef NETLAB_KMOD_H
#define NETLAB_KMOD_H

#include <stddef.h>

#define KMOD_WANTED_FIRST "virtio_pci", "virtio_console"
#define KMOD_WANTED_LAST "sch_netem", "sch_tbf", "9pnet_virtio", "9p"

struct kmod {
	char *name; /* "e1000e" */
	char *path; /* its .ko file */
};

struct kmod_list {
	struct kmod *v; /* in load order: every module after its dependencies */
	size_t n;
	char *dir; /* the lib/modules/VERSION directory used */
	char *vermagic; /* the first module's vermagic ("6.1.0-56-amd64 SMP ...") */
};

/*
 * kmod_collect() - the wanted modules of a module tree, with dependencies
 * @dir: lib/modules/VERSION, or a directory holding lib/modules/VERSION
 * @out: the list (kmod_list_release() it)
 * @err: "modules DIR: ..." with what to do
 *
 * Return: 0; -ENOENT when @dir holds no module tree, -EINVAL for a module
 * that is not an ELF file with .modinfo, a compressed module (.ko.xz,
 * .ko.zst, .ko.gz) or a dependency the tree lacks; -errno otherwise.
 */
int kmod_collect(const char *dir, struct kmod_list *out, char **err);
void kmod_list_release(struct kmod_list *l);

/*
 * kmod_modinfo() - a field of a module file's .modinfo ("depends",
 * "vermagic", "name") in a buffer holding the whole ELF64 file. Returns
 * a pointer into @buf (NUL-terminated there) or NULL.
 */
const char *kmod_modinfo(const char *buf, size_t n, const char *field);

#endif /* NETLAB_KMOD_H */
