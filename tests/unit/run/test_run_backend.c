// SPDX-License-Identifier: GPL-2.0
/*
 * run/ asks the backend of its options (vm/backend.h) and never which one it
 * is: the default is the table's first, --print-xml is the describe op (or a
 * clear refusal), the accelerator its accel op.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/util.h"
#include "run/run.h"
#include "vm/backend.h"

static void test_run_backend__default_is_the_tables_first(void **state)
{
	struct run_opts o;

	run_opts_init(&o);
	assert_ptr_equal(o.backend, vm_backend_default());
	assert_ptr_equal(o.backend, &vm_backend_qemu);
}

/* A backend without a describe op: -EINVAL naming the option and who can. */
static void test_run_backend__print_xml_needs_the_describe_op(void **state)
{
	struct run_opts o;
	struct sbuf out;
	char *err = NULL;

	run_opts_init(&o);
	o.kernel = "/k/bzImage";
	sbuf_init(&out);
	assert_int_equal(run_print_xml(&o, &out, &err), -EINVAL);
	assert_string_equal(err, "--print-xml needs --backend libvirt, not qemu");
	assert_int_equal(out.len, 0);
	free(err);
	sbuf_release(&out);
}

static void test_run_backend__print_xml_through_the_op(void **state)
{
	struct run_opts o;
	struct sbuf out;
	char *err = NULL;

	run_opts_init(&o);
	o.backend = &vm_backend_libvirt;
	o.kernel = "/k/bzImage";
	o.topology = "pair";
	o.domain_name = "unit-pair";
	sbuf_init(&out);
	assert_int_equal(run_print_xml(&o, &out, &err), 0);
	assert_null(err);
	assert_non_null(strstr(out.s, "<name>unit-pair-a</name>"));
	assert_non_null(strstr(out.s, "<name>unit-pair-b</name>"));
	sbuf_release(&out);
}

/* The accelerator through the op: libvirt's without a probe, its own reason. */
static void test_run_backend__accel_through_the_op(void **state)
{
	enum vm_accel accel = VM_ACCEL_AUTO;
	struct run_opts o;
	char *why = NULL, *err = NULL;

	run_opts_init(&o);
	o.backend = &vm_backend_libvirt;
	o.kernel = "/k/bzImage";
	assert_int_equal(accel_resolve(&o, &accel, &why, &err), 0);
	assert_int_equal(accel, VM_ACCEL_TCG);
	assert_non_null(strstr(why, "libvirt backend: domain type 'qemu'"));
	free(why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_backend__default_is_the_tables_first),
		cmocka_unit_test(test_run_backend__print_xml_needs_the_describe_op),
		cmocka_unit_test(test_run_backend__print_xml_through_the_op),
		cmocka_unit_test(test_run_backend__accel_through_the_op),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
