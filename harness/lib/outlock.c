// SPDX-License-Identifier: GPL-2.0
/*
 * One writer per output directory (outlock.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "lib/outlock.h"
#include "lib/util.h"

/* The pid the holder wrote into the lock file, or 0 when unread. */
static long holder_pid(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	char *end;
	long pid;

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	pid = strtol(buf, &end, 10);
	return end != buf && pid > 0 ? pid : 0;
}

int outlock_take(const char *dir, char **err)
{
	char *path = xasprintf("%s/" OUTLOCK_NAME, dir), pid[32];
	int ret = mkdir_p(dir, 0755), fd = -1;

	if (ret) {
		err_set(err, "cannot create '%s': %s", dir, strerror(-ret));
		goto out;
	}
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		ret = -errno;
		err_set(err, "cannot create the lock file '%s': %s", path, strerror(errno));
		goto out;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		long holder = 0;

		ret = errno == EWOULDBLOCK ? -EBUSY : -errno;
		/* The holder writes its pid just after it locks: look twice. */
		for (int i = 0; i < 20 && ret == -EBUSY && !(holder = holder_pid(fd)); i++)
			usleep(10000);
		if (ret != -EBUSY)
			err_set(err, "cannot lock '%s': %s", path, strerror(-ret));
		else if (holder)
			err_set(err, "'%s' is in use by another netlab command (pid %ld)\nhint: wait for it, or pass another --out DIR", dir, holder);
		else
			err_set(err, "'%s' is in use by another netlab command\nhint: wait for it, or pass another --out DIR", dir);
		close(fd);
		fd = -1;
		goto out;
	}
	snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, pid, strlen(pid), 0) != (ssize_t)strlen(pid)) {
		ret = -errno;
		err_set(err, "cannot write the lock file '%s': %s", path, strerror(errno));
		close(fd);
		fd = -1;
		goto out;
	}
	ret = fd;
out:
	free(path);
	return ret;
}

void outlock_release(int fd)
{
	if (fd >= 0)
		close(fd);
}
