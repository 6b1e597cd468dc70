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
