// SPDX-License-Identifier: GPL-2.0
/*
 * agent_nic_unbound(): a NIC model's PCI function without a driver, read
 * from a sysfs tree made here (the layout of /sys/bus/pci/devices).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "agent-pci.h"

static char root[] = "/tmp/netlab-test-agent-pci-XXXXXX";

static void put(const char *rel, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void mkdirs(const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	mkdir(path, 0755);
}

/* A PCI function ADDR with VENDOR:DEVICE, bound to DRIVER (NULL: none). */
static void pci_dev(const char *addr, const char *vendor, const char *device, const char *driver)
{
	char rel[256], target[PATH_MAX], link[PATH_MAX];

	snprintf(rel, sizeof(rel), "bus/pci/devices/%s", addr);
	mkdirs(rel);
	snprintf(rel, sizeof(rel), "bus/pci/devices/%s/vendor", addr);
	put(rel, vendor);
	snprintf(rel, sizeof(rel), "bus/pci/devices/%s/device", addr);
	put(rel, device);
	if (driver) {
		snprintf(rel, sizeof(rel), "bus/pci/drivers/%s", driver);
		mkdirs(rel);
		snprintf(target, sizeof(target), "%s/%s", root, rel);
		snprintf(link, sizeof(link), "%s/bus/pci/devices/%s/driver", root, addr);
		assert_int_equal(symlink(target, link), 0);
	}
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void test_agent_pci__names_the_unbound_function_and_its_config(void **state)
{
	char why[320] = "";

	(void)state;
	pci_dev("0000:00:00.0", "0x8086\n", "0x1237\n", NULL); /* the host bridge: not a NIC */
	pci_dev("0000:00:03.0", "0x8086\n", "0x100e\n", "e1000");
	pci_dev("0000:00:04.0", "0x8086\n", "0x10d3\n", NULL);
	assert_int_equal(agent_nic_unbound(root, "e1000e", why, sizeof(why)), 1);
	assert_string_equal(why, "no driver bound to the e1000e device at 0000:00:04.0: the kernel lacks CONFIG_E1000E=y (or has it as a module nothing loaded)");
	/* e1000's function has its driver */
	assert_int_equal(agent_nic_unbound(root, "e1000", why, sizeof(why)), 0);
	/* no virtio-net function at all */
	assert_int_equal(agent_nic_unbound(root, "virtio-net", why, sizeof(why)), 0);
	assert_int_equal(agent_nic_unbound(root, "rtl8139", why, sizeof(why)), -1);
	/* igb (82576): its ids and config come from its row of guest/nicmodel.c */
	pci_dev("0000:00:07.0", "0x8086\n", "0x10c9\n", NULL);
	assert_int_equal(agent_nic_unbound(root, "igb", why, sizeof(why)), 1);
	assert_string_equal(why, "no driver bound to the igb device at 0000:00:07.0: the kernel lacks CONFIG_IGB=y (or has it as a module nothing loaded)");
}

static void test_agent_pci__virtio_net_without_its_virtio_driver(void **state)
{
	char why[320] = "";

	(void)state;
	pci_dev("0000:00:05.0", "0x1af4\n", "0x1000\n", "virtio-pci");
	mkdirs("bus/pci/devices/0000:00:05.0/virtio2");
	assert_int_equal(agent_nic_unbound(root, "virtio-net", why, sizeof(why)), 1);
	assert_non_null(strstr(why, "virtio device virtio2 of the virtio-net device at 0000:00:05.0"));
	assert_non_null(strstr(why, "CONFIG_VIRTIO_NET=y"));
	/* a modern (1041) function without virtio-pci: the PCI driver is named */
	pci_dev("0000:00:06.0", "0x1af4\n", "0x1041\n", NULL);
	mkdirs("bus/virtio/drivers/virtio_net");
	{
		char t[PATH_MAX], l[PATH_MAX];

		snprintf(t, sizeof(t), "%s/bus/virtio/drivers/virtio_net", root);
		snprintf(l, sizeof(l), "%s/bus/pci/devices/0000:00:05.0/virtio2/driver", root);
		assert_int_equal(symlink(t, l), 0);
	}
	assert_int_equal(agent_nic_unbound(root, "virtio-net", why, sizeof(why)), 1);
	assert_non_null(strstr(why, "virtio-net device at 0000:00:06.0: the kernel lacks CONFIG_VIRTIO_PCI=y"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_agent_pci__names_the_unbound_function_and_its_config),
		cmocka_unit_test(test_agent_pci__virtio_net_without_its_virtio_driver),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
