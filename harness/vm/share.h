/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host files in the guest: directories shared over virtio-9p (--share,
 * scenario key share) and single files added to the initramfs (--add).
 *
 * A share is "HOSTDIR[:GUESTPATH][:rw]": read-only unless ":rw", mounted by
 * the agent at GUESTPATH (default SHARE_GUEST_DIR/<basename of HOSTDIR>)
 * before the command runs. An added file is "FILE[:GUESTPATH]" (default
 * ADD_GUEST_DIR/<basename>), in a cpio appended to the per-run initrd.
 *
 * Ownership: share_parse() and add_parse() fill caller-owned structs whose
 * strings they allocate; release them with share_release().
 */
#ifndef NETLAB_SHARE_H
#define NETLAB_SHARE_H

#include <stdbool.h>
#include <stddef.h>

#include "boot/initrd.h"

#define SHARE_GUEST_DIR "/mnt/share"
#define ADD_GUEST_DIR "/mnt/add"
/* At most this many shares per run (the 9p mount tags netlab0..). */
#define SHARE_MAX 8

struct vm_share {
	char *host;		/* absolute path of a directory (a file, for --add) */
	char *guest;		/* absolute path in the guest */
	bool rw;
	char tag[16];		/* 9p mount tag, "netlab<N>"; "" for an added file */
};

/**
 * share_parse() - "HOSTDIR[:GUESTPATH][:rw]" into @out
 * @spec: as the user wrote it
 * @base: directory a relative HOSTDIR is taken against (NULL: the cwd)
 * @out:  filled on success (tag left empty: share_tag() numbers them)
 * @err:  what is wrong, with a "hint:" line
 *
 * HOSTDIR must be a directory; ":ro" is accepted as the default.
 * Return: 0, or -EINVAL.
 */
int share_parse(const char *spec, const char *base, struct vm_share *out, char **err);

/* add_parse() - "FILE[:GUESTPATH]": FILE must be a readable regular file. */
int add_parse(const char *spec, const char *base, struct vm_share *out, char **err);

/**
 * share_guest_path_check() - whether @path may be a share's mount point
 * (@file false) or an added file (@file true) in the guest: absolute, of
 * [A-Za-z0-9._+-/] only, no "." or ".." component, not /, nor at or under
 * what the agent mounts or owns (/proc, /sys, /dev, /run, /tmp, /netlab,
 * /init) or, for a mount point, what it runs from (/bin, /sbin, /usr,
 * /lib, /lib64, /etc), which a mount would hide.
 * Return: 0, or -EINVAL with *err saying why.
 */
int share_guest_path_check(const char *path, bool file, char **err);

/*
 * share_list_check() - the shares and files of one run together: at most
 * SHARE_MAX shares, no two with the same guest path, none inside another.
 * Numbers the shares' tags. Return: 0, or -EINVAL with *err.
 */
int share_list_check(struct vm_share *shares, size_t n, const struct vm_share *adds,
		     size_t n_adds, char **err);

/*
 * share_merge() - the shares `a` then `b` (a scenario's, then --share's) in
 * one new array *out of *n (the strings stay a's and b's: free only the
 * array), checked together with `adds` (share_list_check(), which numbers
 * the tags). *out is set in all cases. 0, or -EINVAL with *err.
 */
int share_merge(const struct vm_share *a, size_t na, const struct vm_share *b, size_t nb,
		const struct vm_share *adds, size_t n_adds, struct vm_share **out, size_t *n,
		char **err);

/* The job line of share @s ("share.netlab0=ro /mnt/share/x"), into @out. */
void share_job_line(const struct vm_share *s, struct sbuf *out);

/*
 * share_adds_cpio() - the added files, with their parent directories, as a
 * finished newc archive in @c (cpio_init()ed by the caller). 0, or -errno
 * with *err when a file cannot be read.
 */
int share_adds_cpio(const struct vm_share *adds, size_t n, struct cpio *c, char **err);

/*
 * share_adds_append() - the files `adds` as one more newc archive at the
 * end of the initrd `path`, after the base initramfs, so that they win over
 * its files of the same name. 0, or -errno with *err.
 */
int share_adds_append(const char *path, const struct vm_share *adds, size_t n, char **err);

/*
 * share_security_model() - QEMU's 9p security_model for @s. Read-only:
 * "none" (the guest sees the host's owners and modes, and changes nothing).
 * Read-write: "mapped-xattr", or "mapped-file" where the host file system
 * has no user xattrs: the guest's owners, modes, setuid bits and device
 * nodes live in metadata, and every file it makes is a plain file of the
 * user QEMU runs as, mode 0600 (0700 for a directory), on the host. With
 * "none" a guest's root could plant a setuid-root binary or /dev/mem's node
 * in the host directory whenever QEMU runs as root.
 */
const char *share_security_model(const struct vm_share *s);
void share_release(struct vm_share *s);
/* share_release() each of the @n in @v, then free @v (NULL: nothing). */
void share_array_free(struct vm_share *v, size_t n);

#endif /* NETLAB_SHARE_H */
