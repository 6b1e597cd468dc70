// SPDX-License-Identifier: GPL-2.0
/*
 * netlab guest agent: why a NIC has no network interface (agent-pci.h).
 * Reads sysfs only: /sys/bus/pci/devices/ADDR/{vendor,device,driver} and,
 * for virtio, ADDR/virtioN/driver.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent-pci.h"
#include "nicmodel.h"

/* A hex number from a sysfs file ("0x8086\n"); -1 when unreadable. */
static long read_hex(const char *dir, const char *name)
{
	char path[PATH_MAX], buf[32];
	FILE *f;
	long v = -1;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f))
		v = strtol(buf, NULL, 16);
	fclose(f);
	return v;
}

static int has_driver(const char *dir)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/driver", dir) >= (int)sizeof(path))
		return 1; /* cannot say: not the cause named */
	return !access(path, F_OK);
}

/* 1 and the name of a virtio device under @dir without a driver; else 0. */
static int virtio_unbound(const char *dir, char *name, size_t n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int ret = 0;

	if (!d)
		return 0;
	while (!ret && (e = readdir(d))) {
		char sub[PATH_MAX];

		if (strncmp(e->d_name, "virtio", 6) || !e->d_name[6])
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) >= (int)sizeof(sub))
			continue;
		if (!has_driver(sub) && snprintf(name, n, "%s", e->d_name) >= 0)
			ret = 1;
	}
	closedir(d);
	return ret;
}

int agent_nic_unbound(const char *sysfs, const char *model, char *out, size_t n)
{
	char base[PATH_MAX];
	struct dirent *e;
	const struct nic_model *m = nic_model_find(model);
	DIR *d;
	int ret = 0;

	if (!m)
		return -1;
	snprintf(base, sizeof(base), "%s/bus/pci/devices", sysfs);
	d = opendir(base);
	if (!d)
		return 0;
	while (!ret && (e = readdir(d))) {
		char dir[PATH_MAX], vdev[NAME_MAX + 1];
		long vendor, device;

		if (e->d_name[0] == '.')
			continue;
		if (snprintf(dir, sizeof(dir), "%s/%s", base, e->d_name) >= (int)sizeof(dir))
			continue;
		vendor = read_hex(dir, "vendor");
		device = read_hex(dir, "device");
		if (vendor != (long)m->pci_vendor ||
		    (device != (long)m->pci_device[0] &&
		     (!m->pci_device[1] || device != (long)m->pci_device[1])))
			continue;
		if (!has_driver(dir)) {
			snprintf(out, n,
				 "no driver bound to the %s device at %s: the kernel lacks %s=y (or has it as a module nothing loaded)",
				 model, e->d_name, m->kconfig);
			ret = 1;
		} else if (m->virtio && virtio_unbound(dir, vdev, sizeof(vdev))) {
			snprintf(out, n,
				 "no driver bound to the virtio device %s of the %s device at %s: the kernel lacks %s=y (or has it as a module nothing loaded)",
				 vdev, model, e->d_name, m->virtio_kconfig);
			ret = 1;
		}
	}
	closedir(d);
	return ret;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int is_ko(const struct dirent *e)
{
	size_t n = strlen(e->d_name);

	return n > 3 && !strcmp(e->d_name + n - 3, ".ko");
}

int agent_modules_load(const char *dir, int (*load)(int fd),
		       void (*say)(const char *fmt, ...) __attribute__((format(printf, 1, 2))))
{
	struct dirent **v = NULL;
	int n = scandir(dir, &v, is_ko, by_name), loaded = 0;

	for (int i = 0; i < n; i++) {
		char path[PATH_MAX];
		int fd, ret;

		if (snprintf(path, sizeof(path), "%s/%s", dir, v[i]->d_name) >= (int)sizeof(path)) {
			free(v[i]);
			continue;
		}
		fd = open(path, O_RDONLY | O_CLOEXEC);
		ret = fd < 0 ? -errno : load(fd);
		if (fd >= 0)
			close(fd);
		if (!ret || ret == -EEXIST)
			loaded++;
		else
			say("module %s: %s", v[i]->d_name, strerror(-ret));
		free(v[i]);
	}
	free(v);
	return loaded;
}
