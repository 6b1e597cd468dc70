// SPDX-License-Identifier: GPL-2.0
/* `netlab run` option parsing. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cmd/cmd.h"
#include "vm/backend.h"

static int parse(struct run_cmd *rc, char **err, int argc, char **argv)
{
	return run_cmd_parse(argc, argv, rc, err);
}

#define PARSE(rc, err, ...)                                                                     \
	parse(rc, err, (int)(sizeof((char *[]){ "run", __VA_ARGS__ }) / sizeof(char *)),         \
	      (char *[]){ "run", __VA_ARGS__, NULL })

static void test_run_opts__defaults(void **state)
{
	struct run_cmd rc;
	char *err = NULL;

	unsetenv("KERNEL");
	unsetenv("INITRD");
	assert_int_equal(run_cmd_parse(1, (char *[]){ "run", NULL }, &rc, &err), 0);
	assert_int_equal(rc.opts.accel, VM_ACCEL_AUTO);
	assert_int_equal(rc.opts.timeout_s, 300);
	assert_int_equal(rc.opts.snaplen, RUN_SNAPLEN);
	assert_string_equal(rc.opts.topology, "loop");
	assert_non_null(strstr(rc.opts.kernel, "/kernel/bzImage"));
	assert_non_null(strstr(rc.opts.out, "runs/run-"));
	assert_non_null(rc.opts.exec);
	run_cmd_release(&rc);
}

static void test_run_opts__all_options_land_in_struct(void **state)
{
	struct run_cmd rc;
	char *err = NULL;

	assert_int_equal(PARSE(&rc, &err, "--exec", "ping -c1 x", "--kernel", "/k", "--initrd", "/i",
			       "--accel", "tcg", "--timeout", "17", "--out", "/o", "--nic", "A=e1000",
			       "--nic", "B=e1000e", "--append", "nokaslr", "--mem", "512", "--smp", "2",
			       "--snaplen", "0", "-v", "-q"),
			 0);
	assert_string_equal(rc.opts.exec, "ping -c1 x");
	assert_string_equal(rc.opts.kernel, "/k");
	assert_string_equal(rc.opts.initrd, "/i");
	assert_int_equal(rc.opts.accel, VM_ACCEL_TCG);
	assert_int_equal(rc.opts.timeout_s, 17);
	assert_string_equal(rc.opts.out, "/o");
	assert_string_equal(rc.opts.nic_model[0], "e1000");
	assert_string_equal(rc.opts.nic_model[1], "e1000e");
	assert_string_equal(rc.opts.append, "nokaslr");
	assert_int_equal(rc.opts.mem_mb, 512);
	assert_int_equal(rc.opts.smp, 2);
	assert_int_equal(rc.opts.snaplen, 0);
	assert_true(rc.opts.stream_console);
	assert_true(rc.quiet);
	run_cmd_release(&rc);
}

static void expect_error(const char *needle, int argc, char **argv)
{
	struct run_cmd rc;
	char *err = NULL;

	assert_int_equal(run_cmd_parse(argc, argv, &rc, &err), -22);
	assert_non_null(err);
	if (!strstr(err, needle))
		fail_msg("error '%s' does not mention '%s'", err, needle);
	free(err);
	run_cmd_release(&rc);
}

static void test_run_opts__rejects_bad_input_naming_it(void **state)
{
	expect_error("--accel 'fast'", 3, (char *[]){ "run", "--accel", "fast", NULL });
	expect_error("--timeout 'soon'", 3, (char *[]){ "run", "--timeout", "soon", NULL });
	expect_error("--timeout '0'", 3, (char *[]){ "run", "--timeout", "0", NULL });
	expect_error("--timeout '-5'", 3, (char *[]){ "run", "--timeout", "-5", NULL });
	expect_error("unknown NIC model 'rtl8139'", 3, (char *[]){ "run", "--nic", "A=rtl8139", NULL });
	expect_error("expected L=MODEL", 3, (char *[]){ "run", "--nic", "e1000", NULL });
	expect_error("unknown topology", 3, (char *[]){ "run", "--topology", "star", NULL });
	expect_error("--mem '12'", 3, (char *[]){ "run", "--mem", "12", NULL });
	expect_error("--snaplen '20': expected 0 (whole frames) or a number of bytes from 64", 3,
		     (char *[]){ "run", "--snaplen", "20", NULL });
	expect_error("--snaplen '70000'", 3, (char *[]){ "run", "--snaplen", "70000", NULL });
	expect_error("bad option '--frobnicate'", 2, (char *[]){ "run", "--frobnicate", NULL });
	expect_error("unexpected argument 'ls'", 2, (char *[]){ "run", "ls", NULL });
	expect_error("expected NAME=VALUE", 3, (char *[]){ "run", "--sysctl", "net.core.rmem_max", NULL });
	expect_error("expected NAME=VALUE", 3, (char *[]){ "run", "--sysctl", "Bad Name=1", NULL });
}

static void test_run_opts__sysctl_becomes_job_line(void **state)
{
	struct run_cmd rc;
	char *err = NULL;

	assert_int_equal(PARSE(&rc, &err, "--sysctl", "net.core.rmem_max=4194304", "--sysctl",
			       "net.ipv4.tcp_rmem=4096 87380 6291456"), 0);
	assert_int_equal(rc.opts.n_job_lines, 2);
	assert_string_equal(rc.opts.job_lines[0], "sysctl.net.core.rmem_max=4194304");
	assert_string_equal(rc.opts.job_lines[1], "sysctl.net.ipv4.tcp_rmem=4096 87380 6291456");
	run_cmd_release(&rc);
}

static void test_run_opts__acpi_is_repeatable_in_order(void **state)
{
	struct run_cmd rc;
	char *err = NULL;

	assert_int_equal(PARSE(&rc, &err, "--acpi", "a.asl", "--acpi", "b.aml"), 0);
	assert_int_equal(rc.opts.n_acpi, 2);
	assert_string_equal(rc.opts.acpi[0], "a.asl");
	assert_string_equal(rc.opts.acpi[1], "b.aml");
	run_cmd_release(&rc);
	assert_int_equal(PARSE(&rc, &err, "--acpi", ""), -EINVAL);
	assert_non_null(strstr(err, "--acpi"));
	free(err);
	run_cmd_release(&rc);
}

static void test_run_opts__record_every_vm_or_one(void **state)
{
	struct run_cmd rc;
	char *err = NULL;

	assert_int_equal(PARSE(&rc, &err, "--accel", "tcg"), 0);
	assert_int_equal(rc.opts.debug.rr, VM_RR_OFF);
	run_cmd_release(&rc);
	assert_int_equal(PARSE(&rc, &err, "--record"), 0);
	assert_int_equal(rc.opts.debug.rr, VM_RR_RECORD);
	assert_int_equal(rc.opts.debug.rr_vm, -1);
	run_cmd_release(&rc);
	assert_int_equal(PARSE(&rc, &err, "--record=b", "--topology", "pair"), 0);
	assert_int_equal(rc.opts.debug.rr, VM_RR_RECORD);
	assert_int_equal(rc.opts.debug.rr_vm, 1);
	run_cmd_release(&rc);
	assert_int_equal(PARSE(&rc, &err, "--record=c"), -EINVAL);
	assert_non_null(strstr(err, "--record='c'"));
	free(err);
	run_cmd_release(&rc);
}

static void test_run_opts__env_kernel_is_default(void **state)
{
	struct run_cmd rc;
	char *err = NULL;

	setenv("KERNEL", "/env/bzImage", 1);
	assert_int_equal(run_cmd_parse(1, (char *[]){ "run", NULL }, &rc, &err), 0);
	assert_string_equal(rc.opts.kernel, "/env/bzImage");
	run_cmd_release(&rc);
	unsetenv("KERNEL");
}

static void test_run_opts__libvirt_backend_options(void **state)
{
	struct run_cmd rc;
	char *err = NULL;

	assert_int_equal(PARSE(&rc, &err, "--backend", "libvirt", "--domain-name", "t-1.x_y"), 0);
	assert_ptr_equal(rc.opts.backend, &vm_backend_libvirt);
	assert_null(rc.opts.connect);
	assert_string_equal(rc.opts.domain_name, "t-1.x_y");
	assert_false(rc.print_xml);
	run_cmd_release(&rc);

	/* --connect implies the backend; --print-xml too. */
	assert_int_equal(PARSE(&rc, &err, "--connect", "qemu+ssh://h/system"), 0);
	assert_ptr_equal(rc.opts.backend, &vm_backend_libvirt);
	assert_string_equal(rc.opts.connect, "qemu+ssh://h/system");
	run_cmd_release(&rc);
	assert_int_equal(PARSE(&rc, &err, "--print-xml"), 0);
	assert_true(rc.print_xml);
	assert_ptr_equal(rc.opts.backend, &vm_backend_libvirt);
	run_cmd_release(&rc);
	assert_int_equal(PARSE(&rc, &err, "--backend", "qemu"), 0);
	assert_ptr_equal(rc.opts.backend, &vm_backend_qemu);
	run_cmd_release(&rc);
	assert_int_equal(PARSE(&rc, &err, "--exec", "true"), 0);
	assert_ptr_equal(rc.opts.backend, &vm_backend_qemu);
	run_cmd_release(&rc);
}

static void test_run_opts__libvirt_bad_options(void **state)
{
	static const char *const bad[][3] = {
		{ "--backend", "xen", "--backend 'xen': unknown backend\nhint: choose one of: qemu, libvirt" },
		{ "--domain-name", "a b", "--domain-name 'a b'" },
		{ "--domain-name", "-x", "not starting with" },
		{ "--domain-name", "", "--domain-name ''" },
		{ "--domain-name", "0123456789012345678901234567890123456789012345678",
		  "1 to 48" },
	};
	struct run_cmd rc;
	char *err = NULL;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(PARSE(&rc, &err, (char *)bad[i][0], (char *)bad[i][1]), -EINVAL);
		assert_non_null(strstr(err, bad[i][2]));
		free(err);
		err = NULL;
		run_cmd_release(&rc);
	}
	assert_int_equal(PARSE(&rc, &err, "--connect", "qemu:///system", "--backend", "qemu"),
			 -EINVAL);
	assert_non_null(strstr(err, "--connect needs --backend libvirt"));
	free(err);
	run_cmd_release(&rc);
	/* Whatever the order, an explicit --backend that lacks the op is refused. */
	err = NULL;
	assert_int_equal(PARSE(&rc, &err, "--backend", "qemu", "--connect", "qemu:///system"),
			 -EINVAL);
	assert_string_equal(err, "--connect needs --backend libvirt, not qemu");
	free(err);
	run_cmd_release(&rc);
	err = NULL;
	assert_int_equal(PARSE(&rc, &err, "--backend", "qemu", "--print-xml"), -EINVAL);
	assert_string_equal(err, "--print-xml needs --backend libvirt, not qemu");
	free(err);
	run_cmd_release(&rc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_opts__defaults),
		cmocka_unit_test(test_run_opts__all_options_land_in_struct),
		cmocka_unit_test(test_run_opts__rejects_bad_input_naming_it),
		cmocka_unit_test(test_run_opts__sysctl_becomes_job_line),
		cmocka_unit_test(test_run_opts__acpi_is_repeatable_in_order),
		cmocka_unit_test(test_run_opts__record_every_vm_or_one),
		cmocka_unit_test(test_run_opts__env_kernel_is_default),
		cmocka_unit_test(test_run_opts__libvirt_backend_options),
		cmocka_unit_test(test_run_opts__libvirt_bad_options),
	};

	return cmocka_run_group_tests_name("run_opts", tests, NULL, NULL);
}
