/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers shared by the harness library: error strings, a growable
 * argv, a string buffer, and file helpers. Library code reports errors by
 * returning a negative errno and, where the caller passes `char **err`, a
 * heap-allocated detail that the caller frees.
 */
#ifndef NETLAB_UTIL_H
#define NETLAB_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Exit codes of every netlab command (see README). */
enum {
	NL_EXIT_OK = 0,
	NL_EXIT_FAIL = 1,
	NL_EXIT_USAGE = 2,
	NL_EXIT_CANNOT_TEST = 125,
	NL_EXIT_INTERRUPTED = 130,
};

/* Set *err (if err is non-NULL and *err is NULL) to a formatted message. */
void err_set(char **err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Growable, NULL-terminated argument vector. */
struct argv {
	char **v;
	size_t n, cap;
};

void argv_init(struct argv *a);
void argv_release(struct argv *a);
void argv_add(struct argv *a, const char *s);
void argv_addf(struct argv *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Growable string buffer, always NUL-terminated. */
struct sbuf {
	char *s;
	size_t len, cap;
};

void sbuf_init(struct sbuf *b);
void sbuf_release(struct sbuf *b);
void sbuf_add(struct sbuf *b, const void *data, size_t n);
void sbuf_adds(struct sbuf *b, const char *s);
void sbuf_addf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sbuf_vaddf(struct sbuf *b, const char *fmt, va_list ap);
/* Hand the string to the caller (who frees it) and reset the buffer. */
char *sbuf_detach(struct sbuf *b);

char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *xzalloc(size_t n);
/* A zeroed array of @n elements of @size bytes; aborts on overflow or out of memory. */
void *xcalloc(size_t n, size_t size);
/* The first @n bytes of @s (fewer when it ends sooner), NUL-terminated. */
char *xstrndup(const char *s, size_t n);
/* realloc @p to @n elements of @size bytes; aborts on overflow or out of memory. */
void *xrealloc_array(void *p, size_t n, size_t size);
/*
 * xgrow_array() - make the array *@pp (of @size-byte elements, *@cap of them
 * allocated) hold at least @need, doubling from 8. Like every x-helper it
 * returns only on success: out of memory or a size that overflows aborts,
 * so a caller may write (*pp)[need - 1] right after it. The one way an array
 * grows in netlab (no raw malloc family call outside lib/, t20).
 */
void xgrow_array(void *pp, size_t *cap, size_t need, size_t size);

/*
 * Ignore SIGPIPE from here on: for a process that talks to a daemon over a
 * socket (libvirtd, QEMU's QMP), a peer that dies while netlab writes must
 * be a write error (EPIPE) netlab reports, not netlab's death.
 */
void sigpipe_ignore(void);

/* Whole-file helpers. Return 0 or -errno. */
int file_read(const char *path, char **data, size_t *len);
/*
 * file_read_max() - file_read(), refusing a file of more than @max bytes
 * (a regular file by its size, before reading; anything else once @max + 1
 * bytes came): -EFBIG, *data untouched, *len the bytes seen.
 */
int file_read_max(const char *path, size_t max, char **data, size_t *len);
/*
 * The last line of the file at @path that starts with @prefix ("" for the
 * last line that is not blank), without its newline (what a tool said last
 * in its log: the bytes as they are, escape them where they go, lib/esc.h).
 * NULL when none or the file cannot be read.
 */
char *file_last_line(const char *path, const char *prefix);
/* file_write(): whole or not at all (a temporary file renamed over path);
 * file_write_sync() also fsyncs it before the rename. */
int file_write(const char *path, const void *data, size_t len);
int file_write_sync(const char *path, const void *data, size_t len);
int file_writef(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * Free space where `path` lives (the nearest existing parent when `path`
 * does not exist yet): bytes an unprivileged writer may still use
 * (statvfs f_bavail), the device and the mount point (from
 * /proc/self/mountinfo; "?" when not found). 0 or -errno.
 */
struct disk_space {
	unsigned long long avail;
	char dev[256], mnt[1024];
};
int disk_space(const char *path, struct disk_space *ds);
/* disk_space()'s free bytes alone, without reading the mount table. */
int disk_avail(const char *path, unsigned long long *avail);
/* Below this a run stops at once: writes are failing or about to (1 MiB). */
#define DISK_FLOOR (1ULL << 20)
/*
 * "no space left on DEV (mounted at MNT): F MB free, needed about N MB"
 * for `path`, or NULL when at least `needed` bytes (and DISK_FLOOR) are
 * free there or it cannot be told. Caller frees.
 */
char *disk_short(const char *path, unsigned long long needed);
/*
 * disk_reserve() - a file of @bytes at @path (allocated: fallocate, else
 * zeros), to unlink() when the room is needed for what must be written
 * whatever fills the disk meanwhile. 0 or -errno (best effort).
 */
int disk_reserve(const char *path, unsigned long long bytes);
/* mkdir -p. */
int mkdir_p(const char *path, mode_t mode);
/* rm -rf: remove `path` and all below it, not following symlinks. */
int rm_rf(const char *path);
/* write(2) of all @n bytes (again after EINTR or a short write): 0, or -1 with errno. */
int fd_write_all(int fd, const void *p, size_t n);
/*
 * tree_link_copy() - the tree @src again at @dst (which must not exist):
 * directories made, files hard-linked, or copied where a link cannot be
 * made (another file system), symbolic links as they are. 0 or -errno.
 */
int tree_link_copy(const char *src, const char *dst);
/* Directory of the running executable; caller frees. */
char *exe_dir(void);
/* ${NETLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/netlab}; caller frees. */
char *cache_dir(void);
/* Monotonic clock in seconds. */
double now_s(void);
/* Parse a non-negative decimal integer in [min, max]; -EINVAL on junk. */
int parse_uint(const char *s, unsigned long min, unsigned long max, unsigned long *out);
/* Hex SHA-256 of a file (65 bytes incl. NUL). */
int sha256_file(const char *path, char hex[65]);

#endif /* NETLAB_UTIL_H */
