// SPDX-License-Identifier: GPL-2.0
/*
 * Host files in the guest: --share directories (virtio-9p) and --add files
 * (an initrd cpio). See share.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "vm/share.h"

/* What the agent mounts or owns, then what it runs from (a share would hide it). */
static const char *const agent_paths[] = {
	"/proc", "/sys", "/dev", "/run", "/tmp", "/netlab", "/init",
	"/bin", "/sbin", "/usr", "/lib", "/lib64", "/etc",
};
#define AGENT_OWN_PATHS 7	/* the first ones: no added file either */

static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

int share_guest_path_check(const char *path, bool file, char **err)
{
	const char *ok = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-/";
	size_t n = strlen(path);

	if (path[0] != '/') {
		err_set(err, "guest path '%s' is not absolute\nhint: write it from the guest's /, "
			     "e.g. " SHARE_GUEST_DIR "/data", path);
		return -EINVAL;
	}
	if (strspn(path, ok) != n || strstr(path, "//") || strstr(path, "/./") ||
	    strstr(path, "/../") || (n >= 2 && !strcmp(path + n - 2, "/.")) ||
	    (n >= 3 && !strcmp(path + n - 3, "/..")) || (n > 1 && path[n - 1] == '/')) {
		err_set(err, "guest path '%s': expected /-separated names of letters, digits, "
			     "'.', '_', '+' or '-', without '.' or '..' components\n"
			     "hint: e.g. " SHARE_GUEST_DIR "/data", path);
		return -EINVAL;
	}
	if (n == 1) {
		err_set(err, "guest path '/' would hide the guest's root file system\n"
			     "hint: pick a directory such as " SHARE_GUEST_DIR "/data");
		return -EINVAL;
	}
	for (size_t i = 0; i < (file ? AGENT_OWN_PATHS : ARRAY_SIZE(agent_paths)); i++)
		if (under(path, agent_paths[i])) {
			err_set(err, "guest path '%s' is inside '%s', which the guest agent uses\n"
				     "hint: pick a path outside /proc, /sys, /dev, /run, /tmp, "
				     "/netlab%s, e.g. %s/data", path, agent_paths[i],
				file ? "" : ", /bin, /sbin, /usr, /lib, /etc",
				file ? ADD_GUEST_DIR : SHARE_GUEST_DIR);
			return -EINVAL;
		}
	return 0;
}

/* HOST against @base, made absolute and checked to be a directory or a file. */
static int host_path(const char *host, const char *base, bool dir, char **out, char **err)
{
	char *joined = host[0] == '/' || !base ? xstrdup(host) : xasprintf("%s/%s", base, host);
	char *real = realpath(joined, NULL);
	struct stat st;
	int e = errno;

	if (!real || stat(real, &st)) {
		err_set(err, "no %s '%s': %s\nhint: give an existing %s; a relative path is "
			     "taken from %s", dir ? "directory" : "file", joined,
			strerror(real ? errno : e), dir ? "directory" : "file",
			base ? "the scenario's directory" : "the current directory");
		goto bad;
	}
	if (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) {
		err_set(err, "'%s' is not a %s\nhint: %s", real, dir ? "directory" : "regular file",
			dir ? "--add FILE puts a single file in the guest" :
			      "--share DIR shares a whole directory");
		goto bad;
	}
	if (access(real, dir ? R_OK | X_OK : R_OK)) {
		err_set(err, "cannot read '%s': %s", real, strerror(errno));
		goto bad;
	}
	if (strchr(real, ',')) {
		err_set(err, "host path '%s' has a ',', which QEMU's option syntax cannot carry\n"
			     "hint: share a directory whose path has no ','", real);
		goto bad;
	}
	free(joined);
	*out = real;
	return 0;
bad:
	free(real);
	free(joined);
	return -EINVAL;
}

/* Split SPEC into host, optional guest path and, if @mode, an optional ":rw"/":ro". */
static int split_spec(const char *spec, bool mode, char **host, char **guest, bool *rw,
		      char **err)
{
	char *copy = xstrdup(spec), *colon;

	*rw = false;
	*guest = NULL;
	colon = strrchr(copy, ':');
	if (mode && colon && (!strcmp(colon + 1, "rw") || !strcmp(colon + 1, "ro"))) {
		*rw = !strcmp(colon + 1, "rw");
		*colon = '\0';
		colon = strrchr(copy, ':');
	}
	if (colon) {
		*colon = '\0';
		*guest = xstrdup(colon + 1);
	}
	if (!copy[0] || strchr(copy, ':') || (*guest && !**guest)) {
		err_set(err, "expected %s\nhint: e.g. ./data:" SHARE_GUEST_DIR "/data%s",
			mode ? "HOSTDIR[:GUESTPATH][:rw]" : "FILE[:GUESTPATH]", mode ? ":rw" : "");
		free(copy);
		free(*guest);
		*guest = NULL;
		return -EINVAL;
	}
	*host = copy;
	return 0;
}

/*
 * Whether SPEC's host path holds a ':' (which splits SPEC into its fields):
 * the longest prefix of SPEC, cut at a ':', that exists with a ':' in it.
 * Owned by the caller; NULL when there is none.
 */
static char *colon_host(const char *spec, const char *base)
{
	char *copy = xstrdup(spec), *found = NULL;
	size_t n = strlen(copy);

	for (;;) {
		char *p = copy[0] == '/' || !base ? xstrdup(copy) : xasprintf("%s/%s", base, copy);

		if (strchr(copy, ':') && !access(p, F_OK)) {
			free(p);
			found = xstrdup(copy);
			break;
		}
		free(p);
		while (n && copy[n - 1] != ':')
			n--;
		if (!n)
			break;
		copy[--n] = '\0';
	}
	free(copy);
	return found;
}

static int parse_spec(const char *spec, const char *base, bool dir, struct vm_share *out,
		      char **err)
{
	char *host = NULL, *guest = NULL;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = split_spec(spec, dir, &host, &guest, &out->rw, err);
	if (!ret)
		ret = host_path(host, base, dir, &out->host, err);
	if (!ret && !guest) {
		const char *slash = strrchr(out->host, '/');

		guest = xasprintf("%s/%s", dir ? SHARE_GUEST_DIR : ADD_GUEST_DIR,
				  slash[1] ? slash + 1 : "root");
	}
	if (!ret)
		ret = share_guest_path_check(guest, !dir, err);
	free(host);
	if (ret) {
		free(guest);
		share_release(out);
		return -EINVAL;
	}
	out->guest = guest;
	return 0;
}

static int parse_any(const char *spec, const char *base, bool dir, struct vm_share *out,
		     char **err)
{
	char *colon = colon_host(spec, base);

	if (colon) {
		err_set(err, "host path '%s' holds a ':', which separates the fields of %s\n"
			     "hint: %s whose path has no ':' (rename it, or %s)", colon,
			dir ? "HOSTDIR[:GUESTPATH][:rw]" : "FILE[:GUESTPATH]",
			dir ? "share a directory" : "add a file",
			dir ? "share a parent directory" : "copy it");
		free(colon);
		return -EINVAL;
	}
	return parse_spec(spec, base, dir, out, err);
}

int share_parse(const char *spec, const char *base, struct vm_share *out, char **err)
{
	return parse_any(spec, base, true, out, err);
}

int add_parse(const char *spec, const char *base, struct vm_share *out, char **err)
{
	return parse_any(spec, base, false, out, err);
}

int share_list_check(struct vm_share *shares, size_t n, const struct vm_share *adds,
		     size_t n_adds, char **err)
{
	if (n > SHARE_MAX) {
		err_set(err, "%zu shares: at most %d\nhint: share a common parent directory", n,
			SHARE_MAX);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		snprintf(shares[i].tag, sizeof(shares[i].tag), "netlab%zu", i);
		for (size_t k = 0; k < n + n_adds; k++) {
			const char *g = k < n ? shares[k].guest : adds[k - n].guest;

			if (k == i || !(under(g, shares[i].guest) || (k < n && under(shares[i].guest, g))))
				continue;
			err_set(err, "guest path '%s' of '%s' clashes with '%s'\nhint: give each "
				     "share its own GUESTPATH (HOSTDIR:GUESTPATH)", g,
				k < n ? shares[k].host : adds[k - n].host, shares[i].guest);
			return -EINVAL;
		}
	}
	return 0;
}

int share_merge(const struct vm_share *a, size_t na, const struct vm_share *b, size_t nb,
		const struct vm_share *adds, size_t n_adds, struct vm_share **out, size_t *n,
		char **err)
{
	*n = na + nb;
	*out = xzalloc((*n + 1) * sizeof(**out));
	if (na)
		memcpy(*out, a, na * sizeof(*a));
	if (nb)
		memcpy(*out + na, b, nb * sizeof(*b));
	return share_list_check(*out, *n, adds, n_adds, err);
}

void share_job_line(const struct vm_share *s, struct sbuf *out)
{
	sbuf_addf(out, "share.%s=%s %s\n", s->tag, s->rw ? "rw" : "ro", s->guest);
}

/* Every parent of @path ("a", "a/b" of "a/b/c"), once per archive. */
static void add_parents(struct cpio *c, const char *path, struct sbuf *done)
{
	for (const char *p = strchr(path, '/'); p; p = strchr(p + 1, '/')) {
		char *dir = xasprintf("\n%.*s\n", (int)(p - path), path);

		if (!strstr(done->s, dir)) {
			sbuf_adds(done, dir + 1);
			dir[strlen(dir) - 1] = '\0';
			cpio_add_dir(c, dir + 1, 0755);
		}
		free(dir);
	}
}

int share_adds_cpio(const struct vm_share *adds, size_t n, struct cpio *c, char **err)
{
	struct sbuf done;
	int ret = 0;

	sbuf_init(&done);
	sbuf_adds(&done, "\n");
	for (size_t i = 0; i < n && !ret; i++) {
		struct stat st;
		char *data = NULL;
		size_t len = 0;

		ret = file_read(adds[i].host, &data, &len);
		if (ret) {
			err_set(err, "cannot read '%s': %s", adds[i].host, strerror(-ret));
			break;
		}
		add_parents(c, adds[i].guest + 1, &done);
		cpio_add_file(c, adds[i].guest + 1,
			      stat(adds[i].host, &st) ? 0644 : (st.st_mode & 0777), data, len);
		free(data);
	}
	cpio_finish(c);
	sbuf_release(&done);
	return ret;
}

static int write_all(int fd, const char *p, size_t left)
{
	while (left) {
		ssize_t n = write(fd, p, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		left -= (size_t)n;
	}
	return 0;
}

int share_adds_append(const char *path, const struct vm_share *adds, size_t n, char **err)
{
	struct cpio c;
	int fd, ret;

	cpio_init(&c);
	ret = share_adds_cpio(adds, n, &c, err);
	fd = ret ? -1 : open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (!ret && fd < 0) {
		ret = -errno;
		err_set(err, "cannot open '%s': %s", path, strerror(errno));
	}
	/* The kernel looks for the next archive's header at a multiple of 4
	 * bytes, skipping zeros (init/initramfs.c); the base ends anywhere. */
	if (!ret && (write_all(fd, "\0\0\0", (4 - lseek(fd, 0, SEEK_END) % 4) % 4) ||
		     write_all(fd, c.buf.s, c.buf.len))) {
		ret = -EIO;
		err_set(err, "cannot write '%s': %s", path, strerror(errno));
	}
	if (fd >= 0)
		close(fd);
	cpio_release(&c);
	return ret;
}

void share_release(struct vm_share *s)
{
	free(s->host);
	free(s->guest);
	s->host = s->guest = NULL;
}

void share_array_free(struct vm_share *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		share_release(&v[i]);
	free(v);
}

const char *share_security_model(const struct vm_share *s)
{
	static const char probe[] = "user.netlab.probe";

	if (!s->rw)
		return "none";
	if (setxattr(s->host, probe, "1", 1, 0) && errno == ENOTSUP)
		return "mapped-file";
	(void)removexattr(s->host, probe);
	return "mapped-xattr";
}
