/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-run initrd: an uncompressed newc cpio with the ACPI tables and the job
 * placed before the base initramfs. The kernel unpacks concatenated
 * archives in order, so the job files land in the guest's rootfs.
 */
#ifndef NETLAB_INITRD_H
#define NETLAB_INITRD_H

#include "lib/util.h"

struct cpio {
	struct sbuf buf;
	unsigned int ino;
};

/* The two magics of the cpio format the kernel unpacks (newc; with a checksum). */
#define CPIO_MAGIC_NEWC "070701"
#define CPIO_MAGIC_CRC "070702"

/*
 * initrd_check() - whether @path is an initramfs the kernel can unpack: a
 * newc cpio archive, as is or compressed (gzip, xz, zstd, lz4, bzip2, lzma:
 * the magic, then the start of what the codec's tool unpacks, when that tool
 * is installed). A cheap check: an empty or garbage file would boot and panic.
 * Return: 0; -EINVAL or -errno with *err saying what is wrong (not naming
 * @path: the caller does).
 */
int initrd_check(const char *path, char **err);

void cpio_init(struct cpio *c);
void cpio_release(struct cpio *c);
void cpio_add_dir(struct cpio *c, const char *name, unsigned int mode);
void cpio_add_file(struct cpio *c, const char *name, unsigned int mode, const void *data,
		   size_t len);
/* Append the trailer; the archive is then c->buf.s, c->buf.len bytes. */
void cpio_finish(struct cpio *c);

/*
 * Write `out` = job cpio (job text, exec script) followed by the bytes of
 * `base`. Returns 0 or -errno with *err naming the file.
 */
int initrd_assemble(const char *out, const char *job, const char *exec, const char *base,
		    char **err);

/*
 * initrd_assemble_with() - initrd_assemble() with entries ahead of the job
 * @early: a cpio the caller filled (ACPI tables under kernel/firmware/acpi/),
 *         not yet finished; its entries come first, then the job files, then
 *         one trailer. NULL for none. The caller still releases it.
 */
int initrd_assemble_with(const char *out, struct cpio *early, const char *job, const char *exec,
			 const char *base, char **err);

#endif /* NETLAB_INITRD_H */
