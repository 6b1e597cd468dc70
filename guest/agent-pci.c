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

static const struct {
	const char *model;
	unsigned int vendor, device[2];
	const char *config; /* the PCI driver's */
} models[] = {
	{ "e1000", 0x8086, { 0x100e }, "CONFIG_E1000" },
	{ "e1000e", 0x8086, { 0x10d3 }, "CONFIG_E1000E" },
	{ "virtio-net", 0x1af4, { 0x1000, 0x1041 }, "CONFIG_VIRTIO_PCI" },
};

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
	size_t m;
	DIR *d;
	int ret = 0;

	for (m = 0; m < sizeof(models) / sizeof(models[0]); m++)
		if (!strcmp(models[m].model, model))
			break;
	if (m == sizeof(models) / sizeof(models[0]))
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
		if (vendor != (long)models[m].vendor ||
		    (device != (long)models[m].device[0] &&
		     (!models[m].device[1] || device != (long)models[m].device[1])))
			continue;
		if (!has_driver(dir)) {
			snprintf(out, n,
				 "no driver bound to the %s device at %s: the kernel lacks %s=y (or has it as a module nothing loaded)",
				 model, e->d_name, models[m].config);
			ret = 1;
		} else if (!strcmp(model, "virtio-net") && virtio_unbound(dir, vdev, sizeof(vdev))) {
			snprintf(out, n,
				 "no driver bound to the virtio device %s of the virtio-net device at %s: the kernel lacks CONFIG_VIRTIO_NET=y (or has it as a module nothing loaded)",
				 vdev, e->d_name);
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
