// SPDX-License-Identifier: GPL-2.0
/*
 * The libvirt backend's staged files: volumes of the staging pool, uploaded
 * (kernel, initrd) and downloaded (captures).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vm/libvirt-int.h"

static int src_read(virStreamPtr st, char *buf, size_t n, void *opaque)
{
	ssize_t r;

	do
		r = read(*(int *)opaque, buf, n);
	while (r < 0 && errno == EINTR);
	return (int)r;
}

int lv_sink_write(virStreamPtr st, const char *buf, size_t n, void *opaque)
{
	size_t done = 0;

	while (done < n) {
		ssize_t w = write(*(int *)opaque, buf + done, n - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		done += (size_t)w;
	}
	return (int)n;
}

/* Upload local file `path` as volume NAME.WHAT; *staged = its host path. */
int lv_upload(struct lv_vm *v, const char *what, const char *path, char **staged, char **err)
{
	char *vname = xasprintf("%s.%s", v->name, what), *xml = NULL;
	virStorageVolPtr vol = NULL;
	virStreamPtr st = NULL;
	struct stat sb;
	int fd, ret = -EIO;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb)) {
		ret = -errno;
		err_set(err, "cannot read '%s': %s", path, strerror(errno));
		goto out;
	}
	xml = xasprintf("<volume><name>%s</name><capacity unit='bytes'>%lld</capacity>"
			"<allocation>0</allocation><target><format type='raw'/>"
			"<permissions><mode>0644</mode></permissions></target></volume>",
			vname, (long long)sb.st_size);
	vol = virStorageVolCreateXML(v->c->pool, xml, 0);
	if (!vol) {
		err_set(err, "libvirt at '%s': cannot create volume '%s': %s", v->c->uri, vname,
			lv_msg());
		goto out;
	}
	st = virStreamNew(v->c->conn, 0);
	if (!st || virStorageVolUpload(vol, st, 0, (unsigned long long)sb.st_size, 0) < 0 ||
	    virStreamSendAll(st, src_read, &fd) < 0 || virStreamFinish(st) < 0) {
		err_set(err, "libvirt at '%s': cannot upload '%s' to '%s': %s", v->c->uri, path,
			vname, lv_msg());
		if (st)
			virStreamAbort(st);
		goto out;
	}
	*staged = virStorageVolGetPath(vol);
	ret = *staged ? 0 : -EIO;
	if (ret)
		err_set(err, "libvirt at '%s': volume '%s' has no path: %s", v->c->uri, vname, lv_msg());
out:
	if (st)
		virStreamFree(st);
	if (vol)
		virStorageVolFree(vol);
	if (fd >= 0)
		close(fd);
	free(xml);
	free(vname);
	return ret;
}

/* Download volume NAME.WHAT to `path`; -ENOENT when there is none. */
int lv_download(struct lv_vm *v, const char *what, const char *path, char **err)
{
	char *vname = xasprintf("%s.%s", v->name, what);
	virStorageVolPtr vol = virStorageVolLookupByName(v->c->pool, vname);
	virStreamPtr st = NULL;
	int fd = -1, ret = -EIO;

	if (!vol) {
		ret = -ENOENT;
		err_set(err, "libvirt at '%s': no '%s' in pool '%s': %s", v->c->uri, vname,
			LV_POOL_NAME, lv_msg());
		goto out;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		err_set(err, "cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	st = virStreamNew(v->c->conn, 0);
	if (!st || virStorageVolDownload(vol, st, 0, 0, 0) < 0 ||
	    virStreamRecvAll(st, lv_sink_write, &fd) < 0 || virStreamFinish(st) < 0) {
		err_set(err, "libvirt at '%s': cannot download '%s': %s", v->c->uri, vname, lv_msg());
		if (st)
			virStreamAbort(st);
		goto out;
	}
	ret = 0;
out:
	if (st)
		virStreamFree(st);
	if (vol)
		virStorageVolFree(vol);
	if (fd >= 0)
		close(fd);
	free(vname);
	return ret;
}

/* Delete every volume NAME.* of the domain (the pool refreshed by the caller). */
void lv_delete_staged(struct lv_vm *v)
{
	virStorageVolPtr *vols = NULL;
	size_t plen = strlen(v->name);
	int n;

	n = virStoragePoolListAllVolumes(v->c->pool, &vols, 0);
	for (int i = 0; i < n; i++) {
		const char *vn = virStorageVolGetName(vols[i]);

		if (vn && !strncmp(vn, v->name, plen) && vn[plen] == '.')
			virStorageVolDelete(vols[i], 0);
		virStorageVolFree(vols[i]);
	}
	free(vols);
}
