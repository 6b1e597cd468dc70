// SPDX-License-Identifier: GPL-2.0
/*
 * A run directory: created and locked for one run, room kept for its
 * result.json, a provisional result.json from the start, and the guest's
 * files.tar unpacked (rundir.h); and what a run directory must be before
 * anything is made in it (run_dir_check() in run.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/jsonout.h"
#include "lib/outlock.h"
#include "lib/proc.h"
#include "lib/provenance.h"
#include "lib/util.h"
#include "run/rundir.h"
#include "vm/vmcfg.h"

/*
 * Create `dir` (and parents) and, with @lock_fd, lock it for this run: it must
 * be new or empty (but for the lock file), and no other command's.
 */
int run_dir_prepare(const char *dir, int *lock_fd, char **err)
{
	DIR *d;
	struct dirent *e;
	int ret = mkdir_p(dir, 0755);

	if (ret) {
		err_set(err, "cannot create run directory '%s': %s", dir, strerror(-ret));
		return ret;
	}
	if (lock_fd) {
		ret = outlock_take(dir, err);
		if (ret < 0)
			return ret == -EBUSY ? -EINVAL : ret;
		*lock_fd = ret;
	}
	d = opendir(dir);
	if (!d) {
		ret = -errno;
		err_set(err, "cannot open run directory '%s': %s", dir, strerror(errno));
		return ret;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    strcmp(e->d_name, OUTLOCK_NAME)) {
			closedir(d);
			err_set(err, "run directory '%s' is not empty\nhint: pass a new --out DIR, or remove it",
				dir);
			return -EINVAL;
		}
	}
	closedir(d);
	return 0;
}

int run_unpack_files(const char *dir)
{
	char *tar = xasprintf("%s/files.tar", dir);
	char *files = xasprintf("%s/files", dir);
	struct stat st;
	int ret = -ENOENT;

	if (stat(tar, &st) == 0 && st.st_size > 0 && (ret = mkdir_p(files, 0755)) == 0) {
		/* -m: the guest's clock (under -icount) is not the host's. An
		 * argv, never a shell: the directory's name is anybody's. */
		const char *const args[] = { "tar", "-xmf", tar, "-C", files, NULL };
		struct proc p;

		proc_init(&p, args);
		p.stdin_mode = PROC_NULL;
		ret = proc_run(&p, 0, NULL);	/* tar's exit code, or -errno */
		if (ret > 0)
			ret = -EIO;
		proc_release(&p);
	}
	free(tar);
	free(files);
	return ret;
}

/*
 * DIR/files.tar into DIR/files/. On a full disk that is the run's verdict
 * (infra-error naming the directory and the disk), unless it panicked;
 * files.tar and whatever was unpacked stay.
 */
void run_unpack_outcome(const char *dir, bool no_space, struct run_result *res)
{
	char *tar = xasprintf("%s/files.tar", dir), *files, *why;
	struct stat st;
	int ret = run_unpack_files(dir);

	/* A run ended for a full disk says so already (run_loop()). */
	if (ret == 0 || ret == -ENOENT || no_space || stat(tar, &st)) {
		free(tar);
		return;
	}
	free(tar);
	/* tar said why on its stderr; the disk tells whether it was full. */
	why = disk_short(dir, (unsigned long long)st.st_size);
	if (!why)
		return;
	files = xasprintf("%s/files", dir);
	if (res->verdict != RV_PANIC) {
		res->verdict = RV_INFRA;
		free(res->reason);
		res->reason = xasprintf("disk full: cannot unpack the guest's files.tar into '%s': %s", files, why);
	}
	free(files);
	free(why);
}

/*
 * Room for the run's result.json whatever fills the disk later: a file of
 * RUN_RESERVE bytes in the run directory, removed just before result.json
 * is written for good.
 */
#define RUN_RESERVE (256u << 10)
#define RUN_RESERVE_NAME ".result-reserve"

void run_reserve(const char *dir)
{
	char *p = xasprintf("%s/" RUN_RESERVE_NAME, dir);

	disk_reserve(p, RUN_RESERVE);
	free(p);
}

void run_reserve_release(const char *dir)
{
	char *p = xasprintf("%s/" RUN_RESERVE_NAME, dir);

	unlink(p);
	free(p);
}

/*
 * The first result.json, written as the guests start: whatever happens
 * after (netlab killed, the disk full), the run has a verdict. write_outcome()
 * replaces it (atomically: file_write()).
 */
void run_write_provisional(const char *dir)
{
	struct json_object *o = json_object_new_object();
	char *path = xasprintf("%s/result.json", dir);

	run_reserve(dir);
	provenance_add(o);
	json_object_object_add(o, "verdict", json_object_new_string(run_verdict_name(RV_INFRA)));
	json_object_object_add(o, "exit_status", NULL);
	json_object_object_add(o, "reason", json_object_new_string(
		"the run did not end: netlab stopped before it wrote the run's result"));
	json_object_object_add(o, "provisional", json_object_new_boolean(true));
	json_file_write(path, o);
	json_object_put(o);
	free(path);
}

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
