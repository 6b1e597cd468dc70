/* SPDX-License-Identifier: GPL-2.0 */
/* Identity of a kernel image: version string, hashes of image and .config. */
#ifndef NETLAB_KERNEL_H
#define NETLAB_KERNEL_H

struct kernel_id {
	char version[256];	/* from the bzImage setup header */
	char sha256[65];
	char config_sha256[65];	/* "" when no config was found beside the image */
	char *config_path;	/* owned; NULL when none */
};

/*
 * Read the identity of `bzimage`. Fails with -ENOENT/-EACCES when the file
 * cannot be read and -ENOEXEC when it is not an x86 bzImage; *err says which.
 */
int kernel_identify(const char *bzimage, struct kernel_id *id, char **err);
void kernel_id_release(struct kernel_id *id);

#endif /* NETLAB_KERNEL_H */
