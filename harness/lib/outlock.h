/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One writer per output directory: every command that writes an --out
 * directory holds an exclusive flock(2) on OUT/.netlab.lock for its whole
 * life, so a second command on the same directory stops at once instead
 * of overwriting the first one's summary, JUnit, KTAP and pages.
 */
#ifndef NETLAB_OUTLOCK_H
#define NETLAB_OUTLOCK_H

/* The lock file's name in the directory; run directories ignore it. */
#define OUTLOCK_NAME ".netlab.lock"

/*
 * outlock_take() - create @dir (and parents) when missing and lock it.
 * Returns the lock's file descriptor (close-on-exec; outlock_release() or
 * the process's exit drops it), -EBUSY with *err naming @dir and the
 * holder's pid when another process holds it, or another -errno with
 * *err (-ENOSPC: the disk is full).
 */
int outlock_take(const char *dir, char **err);
/* Drop the lock taken by outlock_take() (fd < 0: nothing). */
void outlock_release(int fd);

#endif /* NETLAB_OUTLOCK_H */
