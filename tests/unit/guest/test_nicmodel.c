// SPDX-License-Identifier: GPL-2.0
/*
 * guest/nicmodel.c: every row of the NIC-model table is complete and
 * consistent, so that a model added there works in every place that reads
 * it (the agent, the QEMU and libvirt command lines, kmod, the trace sets,
 * drvring, coverage, gdb).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "nicmodel.h"

static bool role_known(const char *r)
{
	static const char *const roles[] = { "poll", "poll_ret", "xmit", "refill", "rx" };

	if (!strncmp(r, "irq_tx", 6) && (!r[6] || r[6] == '_'))
		return true;
	if (!strncmp(r, "irq", 3) && (!r[3] || r[3] == '_'))
		return true;
	for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++)
		if (!strcmp(r, roles[i]))
			return true;
	return false;
}

static void test_nicmodel__every_row_complete(void **state)
{
	(void)state;
	assert_true(nic_models_n >= 4);
	assert_true(nic_models_n <= NIC_MODELS_MAX);
	for (size_t i = 0; i < nic_models_n; i++) {
		const struct nic_model *m = &nic_models[i];
		bool poll = false, poll_ret = false;

		assert_non_null(m->name);
		assert_non_null(m->summary);
		assert_non_null(m->qemu_device);
		assert_non_null(m->qemu_props);
		assert_true(!m->qemu_props[0] || m->qemu_props[0] == ',');
		assert_non_null(m->libvirt_model);
		assert_non_null(m->driver);
		assert_true(strlen(m->driver) < 16); /* drvring_line.driver */
		assert_non_null(m->modules[0]);
		assert_int_equal(strncmp(m->kconfig, "CONFIG_", 7), 0);
		assert_true(m->pci_vendor && m->pci_device[0]);
		assert_true(!m->virtio || (m->virtio_kconfig && !strncmp(m->virtio_kconfig, "CONFIG_", 7)));
		assert_non_null(m->poll_func);
		assert_true(m->rx_ring_max && m->tx_ring_max && m->queues_max);
		assert_non_null(m->coverage);
		for (size_t k = 0; k < NIC_KPROBES_MAX && m->kprobes[k].role; k++) {
			const struct nic_kprobe *p = &m->kprobes[k];

			if (!role_known(p->role))
				fail_msg("%s: kprobe role '%s' unknown", m->name, p->role);
			assert_true(p->type_func[0] == 'p' || p->type_func[0] == 'r');
			assert_int_equal(p->type_func[1], ' ');
			assert_non_null(p->args);
			poll |= !strcmp(p->role, "poll") && !strcmp(p->type_func + 2, m->poll_func);
			poll_ret |= !strcmp(p->role, "poll_ret");
		}
		/* the NAPI poll is the anchor of the fallback probes */
		assert_true(poll && poll_ret);
	}
}

static void test_nicmodel__names_and_drivers_unique_and_found(void **state)
{
	(void)state;
	for (size_t i = 0; i < nic_models_n; i++) {
		assert_ptr_equal(nic_model_find(nic_models[i].name), &nic_models[i]);
		assert_ptr_equal(nic_model_by_driver(nic_models[i].driver), &nic_models[i]);
		assert_int_equal(nic_model_index(&nic_models[i]), i);
		for (size_t j = i + 1; j < nic_models_n; j++) {
			assert_string_not_equal(nic_models[i].name, nic_models[j].name);
			assert_string_not_equal(nic_models[i].driver, nic_models[j].driver);
		}
	}
	assert_null(nic_model_find("rtl8139"));
	assert_null(nic_model_by_driver("8139too"));
	assert_string_equal(nic_model_list(), "e1000, e1000e, virtio-net, igb");
}

/* QEMU's igb (82576, 8086:10c9), the model issue 33 added through the table alone. */
static void test_nicmodel__igb(void **state)
{
	const struct nic_model *m = nic_model_find("igb");

	(void)state;
	assert_non_null(m);
	assert_string_equal(m->qemu_device, "igb");
	assert_string_equal(m->driver, "igb");
	assert_string_equal(m->kconfig, "CONFIG_IGB");
	assert_int_equal(m->pci_vendor, 0x8086);
	assert_int_equal(m->pci_device[0], 0x10c9);
	assert_true(m->queues_max > 1);
	assert_true(m->offloads & NIC_OFF_RSS);
	assert_true(m->rx_desc_lines);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nicmodel__every_row_complete),
		cmocka_unit_test(test_nicmodel__names_and_drivers_unique_and_found),
		cmocka_unit_test(test_nicmodel__igb),
	};

	return cmocka_run_group_tests_name("nicmodel", tests, NULL, NULL);
}
