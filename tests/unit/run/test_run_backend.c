// SPDX-License-Identifier: GPL-2.0
/* --backend NAME: enum run_backend <-> the VM backend table (vm/backend.h). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "run/run.h"
#include "vm/backend.h"

static void test_run_backend__names_are_the_tables(void **state)
{
	assert_string_equal(run_backend_name(RUN_BACKEND_QEMU), vm_backend_qemu.name);
	assert_string_equal(run_backend_name(RUN_BACKEND_LIBVIRT), vm_backend_libvirt.name);
}

static void test_run_backend__parse_round_trips(void **state)
{
	enum run_backend b = RUN_BACKEND_QEMU;

	assert_int_equal(run_backend_parse("libvirt", &b), 0);
	assert_int_equal(b, RUN_BACKEND_LIBVIRT);
	assert_int_equal(run_backend_parse("qemu", &b), 0);
	assert_int_equal(b, RUN_BACKEND_QEMU);
	assert_string_equal(run_backend_name(b), "qemu");
}

static void test_run_backend__parse_refuses_unknown_names(void **state)
{
	enum run_backend b = RUN_BACKEND_LIBVIRT;

	assert_int_equal(run_backend_parse("kvm", &b), -EINVAL);
	assert_int_equal(run_backend_parse("", &b), -EINVAL);
	assert_int_equal(run_backend_parse("QEMU", &b), -EINVAL);
	assert_int_equal(b, RUN_BACKEND_LIBVIRT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_backend__names_are_the_tables),
		cmocka_unit_test(test_run_backend__parse_round_trips),
		cmocka_unit_test(test_run_backend__parse_refuses_unknown_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
