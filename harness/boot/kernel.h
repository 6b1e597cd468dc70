/* SPDX-License-Identifier: GPL-2.0 */
/* Identity of a kernel image: version string, hashes of image and .config. */
#ifndef NETLAB_KERNEL_H
#define NETLAB_KERNEL_H

struct kernel_id {
	char version[256];	/* from the bzImage setup header */
	char sha256[65];
	char config_sha256[65];	/* "" when no config was found beside the image */
	char *config_path;	/* owned; NULL when none */
	/* From netlab's kernel cache (harness/kbuild.sh), "" for an image elsewhere: */
	char cache_key[64];	/* the cache directory's name: hash of source, fragments, patches */
	char source[256];	/* its "source": "debian-linux-source-6.1-VERSION", "git-HEAD-DIRTY" */
	char release[128];	/* its "release" (make kernelrelease) */
	char flavour[64];	/* its "flavour" (harness/kbuild-flavour.sh), "" when none */
};

/*
 * Read the identity of `bzimage`. Fails with -ENOENT/-EACCES when the file
 * cannot be read and -ENOEXEC when it is not an x86 bzImage; *err says which.
 */
int kernel_identify(const char *bzimage, struct kernel_id *id, char **err);
void kernel_id_release(struct kernel_id *id);

struct json_object;
/*
 * The identity as JSON: { "path", "version", "release", "sha256",
 * "config_sha256", "cache_key", "source", "flavour" }, a string or null each (null for
 * what is unknown). A NULL id: path only.
 */
struct json_object *kernel_id_to_json(const struct kernel_id *id, const char *path);

#endif /* NETLAB_KERNEL_H */
