// SPDX-License-Identifier: GPL-2.0
/*
 * What a run directory must be before anything is made in it: see
 * run_dir_check() in run.h.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "run/run.h"
#include "vm/vmcfg.h"

int run_dir_check(const char *what, const char *dir, const char *below, char **err)
{
	struct stat st;
	size_t n;
	int e;

	if (!dir || !*dir) {
		err_set(err, "%s is empty\nhint: name a new directory", what);
		return -EINVAL;
	}
	if (qemu_sock_path_check(what, dir, err))
		return -EINVAL;
	e = stat(dir, &st) ? errno : 0;
	if (e == ENOTDIR || (!e && !S_ISDIR(st.st_mode))) {
		err_set(err, "%s '%s': %s\nhint: pass a new directory, or an empty one", what, dir,
			e ? "a component of it is a file, not a directory"
			  : "it exists and is not a directory");
		return -EINVAL;
	}
	below = below ? below : "";
	n = strlen(dir) + strlen(below) + strlen(RUN_SOCK_TAIL);
	if (n >= RUN_SUN_PATH) {
		err_set(err,
			"%s '%s' is too long: netlab makes unix sockets under it, the longest "
			"'%s%s" RUN_SOCK_TAIL "' (%zu bytes), and a unix socket path must be "
			"shorter than %d bytes (sun_path)\nhint: use a directory path of at "
			"most %zu bytes",
			what, dir, dir, below, n, RUN_SUN_PATH,
			RUN_SUN_PATH - 1 - strlen(below) - strlen(RUN_SOCK_TAIL));
		return -EINVAL;
	}
	return 0;
}
