/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel flavours: kconfigs/flavours/NAME/, fragments merged after
 * the common fragments of kconfigs/ by harness/kbuild-flavour.sh. `default` has none: its
 * kernel is the one kbuild.sh has always built, with the same cache key.
 * `make kernel FLAVOUR=NAME` links it as build/kernel-NAME.
 */
#ifndef NETLAB_FLAVOUR_H
#define NETLAB_FLAVOUR_H

#include <stdbool.h>

#define FLAVOUR_DEFAULT "default"

/* kconfigs/flavours/ of the tree the netlab binary was built in. Caller frees. */
char *flavour_dir(void);
/* A flavour's name: letters, digits, '_', '-', '.', not starting with '.'. */
bool flavour_name_ok(const char *name);
/* The flavours of dir (its subdirectories), sorted, ", " between. Caller frees. */
char *flavour_list(const char *dir);
/*
 * flavour_check() - is @name a flavour of @dir (a directory dir/NAME)?
 * Return: 0; -EINVAL with *@err "unknown kernel flavour 'X': no directory
 * kconfigs/flavours/X" and a hint listing the flavours.
 */
int flavour_check(const char *dir, const char *name, char **err);
/* NULL or "" is the default flavour. */
bool flavour_is_default(const char *name);
/*
 * The bzImage of flavour @name below @build_dir (the netlab binary's
 * directory): BUILD/kernel/bzImage for the default flavour, else
 * BUILD/kernel-NAME/bzImage. Caller frees.
 */
char *flavour_kernel(const char *build_dir, const char *name);

#endif /* NETLAB_FLAVOUR_H */
