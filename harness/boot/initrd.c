// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot/initrd.h"
#include "lib/proc.h"
#include "netlab-proto.h"

void cpio_init(struct cpio *c)
{
	sbuf_init(&c->buf);
	c->ino = 1;
}

void cpio_release(struct cpio *c)
{
	sbuf_release(&c->buf);
}

static void cpio_pad4(struct cpio *c)
{
	static const char zero[4];

	if (c->buf.len % 4)
		sbuf_add(&c->buf, zero, 4 - c->buf.len % 4);
}

/* One newc ("070701") entry; mtime 0 keeps archives reproducible. */
static void cpio_entry(struct cpio *c, const char *name, unsigned int mode, unsigned int nlink,
		       const void *data, size_t len)
{
	sbuf_addf(&c->buf, "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X",
		  c->ino++, mode, 0u, 0u, nlink, 0u, len, 0u, 0u, 0u, 0u, strlen(name) + 1, 0u);
	sbuf_add(&c->buf, name, strlen(name) + 1);
	cpio_pad4(c);
	if (len) {
		sbuf_add(&c->buf, data, len);
		cpio_pad4(c);
	}
}

void cpio_add_dir(struct cpio *c, const char *name, unsigned int mode)
{
	cpio_entry(c, name, S_IFDIR | (mode & 07777), 2, NULL, 0);
}

void cpio_add_file(struct cpio *c, const char *name, unsigned int mode, const void *data,
		   size_t len)
{
	cpio_entry(c, name, S_IFREG | (mode & 07777), 1, data, len);
}

void cpio_finish(struct cpio *c)
{
	cpio_entry(c, "TRAILER!!!", 0, 1, NULL, 0);
}

/* The compressions the kernel unpacks an initramfs from, by magic (lib/decompress.c). */
static const struct initrd_codec {
	const char *name;
	unsigned char magic[6];
	size_t n;
	const char *tool;	/* decompresses stdin to stdout */
} initrd_codecs[] = {
	{ "gzip", { 0x1f, 0x8b }, 2, "gzip" },
	{ "gzip", { 0x1f, 0x9e }, 2, "gzip" },
	{ "xz", { 0xfd, '7', 'z', 'X', 'Z', 0 }, 6, "xz" },
	{ "zstd", { 0x28, 0xb5, 0x2f, 0xfd }, 4, "zstd" },
	{ "lz4", { 0x02, 0x21, 0x4c, 0x18 }, 4, "lz4" },
	{ "bzip2", { 'B', 'Z', 'h' }, 3, "bzip2" },
	{ "lzma", { 0x5d, 0, 0 }, 3, "lzma" },
};

static bool is_cpio(const char *p, size_t n)
{
	return n >= 6 && (!memcmp(p, CPIO_MAGIC_NEWC, 6) || !memcmp(p, CPIO_MAGIC_CRC, 6));
}

/*
 * The first *@n bytes @path decompresses to, with the codec's own tool, which
 * is ended once they are in. -ENOENT when it cannot run here.
 */
static int codec_start(const struct initrd_codec *c, const char *path, char *buf, size_t *n)
{
	const char *argv[] = { c->tool, "-dc", NULL };
	double end = now_s() + 60;
	struct proc p;
	char *why = NULL;
	int ret;

	proc_init(&p, argv);
	p.stdin_mode = PROC_FILE;
	p.stdin_path = path;
	p.stdout_mode = PROC_CAPTURE;
	p.stderr_mode = PROC_NULL;
	p.capture_max = *n;
	ret = proc_start(&p, &why);
	if (!ret) {
		while (p.output.len < *n && !proc_wait(&p, 20) && now_s() < end)
			;
		proc_kill(&p, 0);
		*n = p.output.len;
		memcpy(buf, p.output.s ? p.output.s : "", *n);
	}
	free(why);
	proc_release(&p);
	return ret ? -ENOENT : 0;
}

int initrd_check(const char *path, char **err)
{
	char head[8], start[8];
	size_t n = sizeof(start);
	ssize_t got;
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;

	if (fd < 0) {
		e = errno;
		err_set(err, "cannot read it: %s", strerror(e));
		return -e;
	}
	got = read(fd, head, sizeof(head));
	e = errno;
	close(fd);
	if (got < 0) {
		err_set(err, "cannot read it: %s", strerror(e));
		return -e;
	}
	if (got == 0) {
		err_set(err, "it is empty, not an initramfs");
		return -EINVAL;
	}
	if (is_cpio(head, (size_t)got))
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(initrd_codecs); i++) {
		const struct initrd_codec *c = &initrd_codecs[i];

		if ((size_t)got < c->n || memcmp(head, c->magic, c->n))
			continue;
		if (codec_start(c, path, start, &n) == -ENOENT || is_cpio(start, n))
			return 0;
		err_set(err, "%s data that does not unpack to a cpio archive (newc, " CPIO_MAGIC_NEWC
			     "): %s", c->name, n ? "it holds something else" : "it is damaged or cut short");
		return -EINVAL;
	}
	err_set(err, "not an initramfs: neither a cpio archive (newc, " CPIO_MAGIC_NEWC ") nor "
		     "gzip, xz, zstd, lz4, bzip2 or lzma data");
	return -EINVAL;
}

static int append_file(int out, const char *path, char **err)
{
	struct stat st;
	off_t off = 0;
	int in = open(path, O_RDONLY | O_CLOEXEC);

	if (in < 0 || fstat(in, &st) < 0) {
		int e = errno;

		err_set(err, "cannot read initramfs '%s': %s", path, strerror(e));
		if (in >= 0)
			close(in);
		return -e;
	}
	while (off < st.st_size) {
		ssize_t n = sendfile(out, in, &off, (size_t)(st.st_size - off));

		if (n <= 0) {
			int e = n < 0 ? errno : EIO;

			close(in);
			err_set(err, "cannot copy initramfs '%s': %s", path, strerror(e));
			return -e;
		}
	}
	close(in);
	return 0;
}

int initrd_assemble(const char *out, const char *job, const char *exec, const char *base,
		    char **err)
{
	return initrd_assemble_with(out, NULL, job, exec, base, err);
}

int initrd_assemble_with(const char *out, struct cpio *early, const char *job, const char *exec,
			 const char *base, char **err)
{
	struct cpio own, *c = early ? early : &own;
	const char *p;
	size_t left;
	int fd, ret = 0;

	if (!early)
		cpio_init(&own);
	cpio_add_dir(c, NETLAB_JOB_DIR + 1, 0755);
	cpio_add_dir(c, NETLAB_GUEST_OUTDIR + 1, 0755);
	cpio_add_file(c, NETLAB_JOB_FILE + 1, 0644, job, strlen(job));
	cpio_add_file(c, NETLAB_EXEC_FILE + 1, 0755, exec, strlen(exec));
	cpio_finish(c);

	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		err_set(err, "cannot create '%s': %s", out, strerror(errno));
		goto out_cpio;
	}
	for (p = c->buf.s, left = c->buf.len; left;) {
		ssize_t n = write(fd, p, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			err_set(err, "cannot write '%s': %s", out, strerror(errno));
			goto out_fd;
		}
		p += n;
		left -= (size_t)n;
	}
	ret = append_file(fd, base, err);
out_fd:
	if (close(fd) < 0 && !ret) {
		ret = -errno;
		err_set(err, "cannot write '%s': %s", out, strerror(errno));
	}
out_cpio:
	if (!early)
		cpio_release(&own);
	return ret;
}
