// SPDX-License-Identifier: GPL-2.0
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		/* Out of memory in a short-lived CLI: nothing sensible to recover. */
		fputs("netlab: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *xrealloc_array(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size) {
		fputs("netlab: out of memory\n", stderr);
		abort();
	}
	return xrealloc(p, n && size ? n * size : 1);
}

void *xzalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p) {
		fputs("netlab: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size) {
		fputs("netlab: out of memory\n", stderr);
		abort();
	}
	return xzalloc(n * size);
}

char *xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = xrealloc(NULL, len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xrealloc(NULL, n), s, n);
}

char *xasprintf(const char *fmt, ...)
{
	struct sbuf b;
	va_list ap;

	sbuf_init(&b);
	va_start(ap, fmt);
	sbuf_vaddf(&b, fmt, ap);
	va_end(ap);
	return sbuf_detach(&b);
}

void err_set(char **err, const char *fmt, ...)
{
	struct sbuf b;
	va_list ap;

	if (!err || *err)
		return;
	sbuf_init(&b);
	va_start(ap, fmt);
	sbuf_vaddf(&b, fmt, ap);
	va_end(ap);
	*err = sbuf_detach(&b);
}

void sbuf_init(struct sbuf *b)
{
	b->cap = 64;
	b->len = 0;
	b->s = xrealloc(NULL, b->cap);
	b->s[0] = '\0';
}

void sbuf_release(struct sbuf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

static void sbuf_grow(struct sbuf *b, size_t extra)
{
	if (b->len + extra + 1 <= b->cap)
		return;
	while (b->len + extra + 1 > b->cap)
		b->cap *= 2;
	b->s = xrealloc(b->s, b->cap);
}

void sbuf_add(struct sbuf *b, const void *data, size_t n)
{
	sbuf_grow(b, n);
	memcpy(b->s + b->len, data, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void sbuf_adds(struct sbuf *b, const char *s)
{
	sbuf_add(b, s, strlen(s));
}

void sbuf_vaddf(struct sbuf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	sbuf_grow(b, (size_t)n);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void sbuf_addf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sbuf_vaddf(b, fmt, ap);
	va_end(ap);
}

char *sbuf_detach(struct sbuf *b)
{
	char *s = b->s;

	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}

void argv_init(struct argv *a)
{
	a->n = 0;
	a->cap = 16;
	a->v = xzalloc(a->cap * sizeof(*a->v));
}

void argv_release(struct argv *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	a->v = NULL;
	a->n = a->cap = 0;
}

void argv_add(struct argv *a, const char *s)
{
	if (a->n + 2 > a->cap) {
		a->cap *= 2;
		a->v = xrealloc(a->v, a->cap * sizeof(*a->v));
	}
	a->v[a->n++] = xstrdup(s);
	a->v[a->n] = NULL;
}

void argv_addf(struct argv *a, const char *fmt, ...)
{
	struct sbuf b;
	va_list ap;

	sbuf_init(&b);
	va_start(ap, fmt);
	sbuf_vaddf(&b, fmt, ap);
	va_end(ap);
	argv_add(a, b.s);
	sbuf_release(&b);
}

int file_read(const char *path, char **data, size_t *len)
{
	return file_read_max(path, SIZE_MAX - 1, data, len);
}

int file_read_max(const char *path, size_t max, char **data, size_t *len)
{
	struct sbuf b;
	char chunk[65536];
	ssize_t n;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && (unsigned long long)st.st_size > max) {
		close(fd);
		if (len)
			*len = (size_t)st.st_size;
		return -EFBIG;
	}
	sbuf_init(&b);
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n > 0 && b.len + (size_t)n > max) {
			close(fd);
			if (len)
				*len = b.len + (size_t)n;
			sbuf_release(&b);
			return -EFBIG;
		}
		if (n < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			close(fd);
			sbuf_release(&b);
			return -e;
		}
		sbuf_add(&b, chunk, (size_t)n);
	}
	close(fd);
	if (len)
		*len = b.len;
	*data = sbuf_detach(&b);
	return 0;
}

void sigpipe_ignore(void)
{
	signal(SIGPIPE, SIG_IGN);
}

static bool blank(const char *s)
{
	return !s[strspn(s, " \t\r")];
}

char *file_last_line(const char *path, const char *prefix)
{
	char *text = NULL, *found = NULL, *line, *save = NULL;

	if (file_read(path, &text, NULL))
		return NULL;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, prefix, strlen(prefix)) && !blank(line))
			found = line;
	if (found) {
		char *end = found + strlen(found);

		while (end > found && strchr(" \t\r", end[-1]))
			*--end = 0;
		found = xstrdup(found);
	}
	free(text);
	return found;
}

/*
 * Written to a temporary file beside path (fsynced if asked), then renamed
 * over it: a reader (or a crash, or a full disk) sees the old file or the
 * new one whole, never a truncated one.
 */
static int write_whole(const char *path, const void *data, size_t len, bool sync)
{
	char *tmp = xasprintf("%s.tmpXXXXXX", path);
	const char *p = data;
	int fd = mkostemp(tmp, O_CLOEXEC), ret = 0;

	if (fd < 0) {
		ret = -errno;
		free(tmp);
		return ret;
	}
	while (len && !ret) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno != EINTR)
			ret = -errno;
		if (n > 0) {
			p += n;
			len -= (size_t)n;
		}
	}
	if (!ret && fchmod(fd, 0644) < 0)
		ret = -errno;
	if (!ret && sync && fsync(fd) < 0)
		ret = -errno;
	if (close(fd) < 0 && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path) < 0)
		ret = -errno;
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}

int file_write(const char *path, const void *data, size_t len)
{
	return write_whole(path, data, len, false);
}

int file_write_sync(const char *path, const void *data, size_t len)
{
	return write_whole(path, data, len, true);
}

int file_writef(const char *path, const char *fmt, ...)
{
	struct sbuf b;
	va_list ap;
	int ret;

	sbuf_init(&b);
	va_start(ap, fmt);
	sbuf_vaddf(&b, fmt, ap);
	va_end(ap);
	ret = file_write(path, b.s, b.len);
	sbuf_release(&b);
	return ret;
}

/* The mount of device `dev`: its source and mount point, from mountinfo. */
static void mount_of(dev_t dev, struct disk_space *ds)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];

	snprintf(ds->dev, sizeof(ds->dev), "?");
	snprintf(ds->mnt, sizeof(ds->mnt), "?");
	if (!f)
		return;
	/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [TAGS...] - FSTYPE SOURCE SUPER */
	while (fgets(line, sizeof(line), f)) {
		unsigned int maj, min;
		char mnt[1024], *sep;
		char src[256] = "?";

		if (sscanf(line, "%*u %*u %u:%u %*s %1023s", &maj, &min, mnt) != 3 ||
		    makedev(maj, min) != dev)
			continue;
		sep = strstr(line, " - ");
		if (sep)
			sscanf(sep + 3, "%*s %255s", src);
		/* The last match is the one on top. */
		snprintf(ds->dev, sizeof(ds->dev), "%s", src);
		snprintf(ds->mnt, sizeof(ds->mnt), "%s", mnt);
	}
	fclose(f);
}

/* Free bytes and the device where `path`, or its nearest existing parent, lives. */
static int space_at(const char *path, unsigned long long *avail, dev_t *dev)
{
	char *p = xstrdup(path && *path ? path : ".");
	struct statvfs vfs;
	struct stat st;
	int ret = 0;

	/* A run directory may not exist yet: ask its nearest existing parent. */
	while (stat(p, &st) < 0) {
		char *slash = strrchr(p, '/');

		if (errno != ENOENT || !slash) {
			if (errno == ENOENT && !slash) {	/* relative, first component */
				free(p);
				p = xstrdup(".");
				continue;
			}
			ret = -errno;
			goto out;
		}
		if (slash == p)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	if (statvfs(p, &vfs) < 0) {
		ret = -errno;
		goto out;
	}
	*avail = (unsigned long long)vfs.f_bavail * vfs.f_frsize;
	*dev = st.st_dev;
out:
	free(p);
	return ret;
}

int disk_avail(const char *path, unsigned long long *avail)
{
	dev_t dev;

	return space_at(path, avail, &dev);
}

int disk_space(const char *path, struct disk_space *ds)
{
	dev_t dev;
	int ret = space_at(path, &ds->avail, &dev);

	if (!ret)
		mount_of(dev, ds);
	return ret;
}

char *disk_short(const char *path, unsigned long long needed)
{
	struct disk_space ds;

	if (needed < DISK_FLOOR)
		needed = DISK_FLOOR;
	if (disk_space(path, &ds) || ds.avail >= needed)
		return NULL;
	return xasprintf("no space left on %s (mounted at %s): %.1f MB free, needed about %.0f MB",
			 ds.dev, ds.mnt, ds.avail / 1e6, (needed + 999999) / 1e6);
}

int mkdir_p(const char *path, mode_t mode)
{
	char *p = xstrdup(path);
	int ret = 0;

	for (char *s = p + 1; ; s++) {
		char c = *s;

		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST) {
			ret = -errno;
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return ret;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path) < 0 ? -errno : 0;
}

int rm_rf(const char *path)
{
	return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* tree_link_copy()'s state: nftw() has no context argument. */
static const char *tlc_src, *tlc_dst;

int fd_write_all(int fd, const void *p, size_t n)
{
	const char *buf = p;

	while (n) {
		ssize_t w = write(fd, buf, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

static int copy_bytes(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out, ret = 0;
	ssize_t n;

	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode & 07777);
	if (out < 0) {
		ret = -errno;
		close(in);
		return ret;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (fd_write_all(out, buf, (size_t)n)) {
			ret = -errno;
			break;
		}
	if (n < 0)
		ret = -errno;
	if (close(out) && !ret)
		ret = -errno;
	close(in);
	return ret;
}

static int tlc_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	char *to = xasprintf("%s%s", tlc_dst, path + strlen(tlc_src));
	int ret = 0;

	if (flag == FTW_D)
		ret = mkdir(to, st->st_mode & 07777) && errno != EEXIST ? -errno : 0;
	else if (flag == FTW_SL) {
		char target[PATH_MAX];
		ssize_t n = readlink(path, target, sizeof(target) - 1);

		if (n >= 0) {
			target[n] = '\0';
			ret = symlink(target, to) ? -errno : 0;
		}
	} else if (flag == FTW_F)
		ret = link(path, to) ? copy_bytes(path, to, st->st_mode) : 0;
	free(to);
	return ret;
}

int tree_link_copy(const char *src, const char *dst)
{
	int ret;

	tlc_src = src;
	tlc_dst = dst;
	ret = nftw(src, tlc_one, 16, FTW_PHYS);
	if (ret == -1)
		ret = -errno;
	tlc_src = tlc_dst = NULL;
	return ret;
}

char *exe_dir(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	char *slash;

	if (n <= 0)
		return xstrdup(".");
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (slash)
		*slash = '\0';
	return xstrdup(buf);
}

char *cache_dir(void)
{
	const char *c = getenv("NETLAB_CACHE");
	const char *x = getenv("XDG_CACHE_HOME");
	const char *h = getenv("HOME");

	if (c && *c)
		return xstrdup(c);
	if (x && *x)
		return xasprintf("%s/netlab", x);
	return xasprintf("%s/.cache/netlab", h && *h ? h : "/tmp");
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int parse_uint(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int sha256_file(const char *path, char hex[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	unsigned char buf[65536];
	EVP_MD_CTX *ctx;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return -errno;
	ctx = EVP_MD_CTX_new();
	EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		EVP_DigestUpdate(ctx, buf, (size_t)n);
	if (n < 0)
		ret = -errno;
	EVP_DigestFinal_ex(ctx, md, &mdlen);
	EVP_MD_CTX_free(ctx);
	close(fd);
	for (unsigned int i = 0; i < mdlen && i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	hex[64] = '\0';
	return ret;
}

void xgrow_array(void *pp, size_t *cap, size_t need, size_t size)
{
	void **p = pp;
	size_t n = *cap ? *cap : 8;

	if (need <= *cap)
		return;
	if (size && need > SIZE_MAX / size) {
		fputs("netlab: out of memory\n", stderr);
		abort();
	}
	while (n < need)
		n = n > SIZE_MAX / 2 / (size ? size : 1) ? need : n * 2;
	*p = xrealloc_array(*p, n, size);
	*cap = n;
}

int disk_reserve(const char *path, unsigned long long bytes)
{
	static const char zero[4096];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600), ret = 0;

	if (fd < 0)
		return -errno;
	if (posix_fallocate(fd, 0, (off_t)bytes)) {
		for (unsigned long long n = 0; n < bytes && !ret; n += sizeof(zero))
			if (write(fd, zero, sizeof(zero)) != (ssize_t)sizeof(zero))
				ret = -ENOSPC;
	}
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}
