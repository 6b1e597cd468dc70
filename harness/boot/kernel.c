// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/esc.h"
#include "boot/kernel.h"
#include "lib/util.h"

/* x86 boot protocol: "HdrS" at 0x202, kernel_version pointer at 0x20e. */
#define SETUP_MAGIC_OFF 0x202
#define SETUP_VERSION_OFF 0x20e

static int read_at(int fd, off_t off, void *buf, size_t n)
{
	ssize_t r = pread(fd, buf, n, off);

	return r == (ssize_t)n ? 0 : -1;
}

static int bzimage_version(int fd, char *out, size_t n)
{
	char magic[4];
	uint16_t ptr;

	if (read_at(fd, SETUP_MAGIC_OFF, magic, 4) || memcmp(magic, "HdrS", 4))
		return -ENOEXEC;
	if (read_at(fd, SETUP_VERSION_OFF, &ptr, 2) || !ptr)
		return -ENOEXEC;
	memset(out, 0, n);
	if (pread(fd, out, n - 1, (off_t)ptr + 0x200) <= 0)
		return -ENOEXEC;
	out[strcspn(out, "\n")] = '\0';
	return 0;
}

/* The build's .config beside the image: "config" (netlab cache) or ".config". */
static char *find_config(const char *bzimage)
{
	static const char *const names[] = { "config", ".config", "../../../.config" };
	char *dir = xstrdup(bzimage);
	char *slash = strrchr(dir, '/');

	if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char *p = xasprintf("%s/%s", dir, names[i]);

		if (access(p, R_OK) == 0) {
			free(dir);
			return p;
		}
		free(p);
	}
	free(dir);
	return NULL;
}

/* The first line of dir/name into out; "" when it cannot be read. */
static void read_line(const char *dir, const char *name, char *out, size_t n)
{
	char *p = xasprintf("%s/%s", dir, name), *text = NULL;

	out[0] = '\0';
	if (file_read(p, &text, NULL) == 0) {
		text[strcspn(text, "\r\n")] = '\0';
		snprintf(out, n, "%s", text);
	}
	free(text);
	free(p);
}

/* An image of netlab's kernel cache: CACHE/kernels/KEY/bzImage beside "source". */
static void cache_identity(const char *bzimage, struct kernel_id *id)
{
	/* build/kernel is a link to the cache directory: resolve it. */
	char *dir = realpath(bzimage, NULL), *slash, *key, *parent;

	if (!dir)
		return;
	slash = strrchr(dir, '/');
	if (!slash)
		goto out;
	*slash = '\0';
	read_line(dir, "source", id->source, sizeof(id->source));
	read_line(dir, "release", id->release, sizeof(id->release));
	read_line(dir, "flavour", id->flavour, sizeof(id->flavour));
	key = strrchr(dir, '/');
	if (!id->source[0] || !key)
		goto out;
	*key++ = '\0';
	parent = strrchr(dir, '/');
	if (!strcmp(parent ? parent + 1 : dir, "kernels"))
		snprintf(id->cache_key, sizeof(id->cache_key), "%s", key);
out:
	free(dir);
}

int kernel_identify(const char *bzimage, struct kernel_id *id, char **err)
{
	int fd, ret;

	memset(id, 0, sizeof(*id));
	fd = open(bzimage, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		err_set(err, "cannot read kernel '%s': %s", bzimage, strerror(errno));
		return ret;
	}
	ret = bzimage_version(fd, id->version, sizeof(id->version));
	close(fd);
	if (ret) {
		err_set(err, "kernel '%s' is not an x86 bzImage (no boot protocol header)",
			bzimage);
		return ret;
	}
	ret = sha256_file(bzimage, id->sha256);
	if (ret) {
		err_set(err, "cannot read kernel '%s': %s", bzimage, strerror(-ret));
		return ret;
	}
	id->config_path = find_config(bzimage);
	if (id->config_path && sha256_file(id->config_path, id->config_sha256))
		id->config_sha256[0] = '\0';
	cache_identity(bzimage, id);
	return 0;
}

static struct json_object *str_or_null(const char *s)
{
	char *clean;
	struct json_object *o;

	if (!s || !*s)
		return NULL;
	clean = esc_utf8_fix(s);
	o = json_object_new_string(clean);
	free(clean);
	return o;
}

struct json_object *kernel_id_to_json(const struct kernel_id *id, const char *path)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "path", str_or_null(path));
	json_object_object_add(o, "version", str_or_null(id ? id->version : NULL));
	json_object_object_add(o, "release", str_or_null(id ? id->release : NULL));
	json_object_object_add(o, "sha256", str_or_null(id ? id->sha256 : NULL));
	json_object_object_add(o, "config_sha256", str_or_null(id ? id->config_sha256 : NULL));
	json_object_object_add(o, "cache_key", str_or_null(id ? id->cache_key : NULL));
	json_object_object_add(o, "source", str_or_null(id ? id->source : NULL));
	json_object_object_add(o, "flavour", str_or_null(id ? id->flavour : NULL));
	return o;
}

void kernel_id_release(struct kernel_id *id)
{
	free(id->config_path);
	id->config_path = NULL;
}
