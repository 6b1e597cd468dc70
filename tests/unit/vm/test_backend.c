// SPDX-License-Identifier: GPL-2.0
/*
 * The VM backend table (vm/backend.c), the status port's lines, and the
 * direct backend (vm/backend-qemu.c) driven through the table with a fake
 * QEMU: a shell script that does what a guest would have left behind.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/util.h"
#include "vm/backend.h"
#include "tmpdir.h"

TMPDIR_FIXTURE("backend")

static unsigned int n_dirs;

/* A new directory under `dir`, and in it a fake QEMU running `script`. */
static char *fake_qemu(const char *script, char **qemu)
{
	char *d = xasprintf("%s/%u", dir, n_dirs++);

	assert_int_equal(mkdir_p(d, 0755), 0);
	*qemu = xasprintf("%s/qemu", d);
	assert_int_equal(file_writef(*qemu, "#!/bin/sh\nD='%s'\n%s\n", d, script), 0);
	assert_int_equal(chmod(*qemu, 0755), 0);
	return d;
}

static struct vm_config base_cfg(const char *qemu, const char *rundir)
{
	struct vm_config c = {
		.qemu = qemu,
		.accel = VM_ACCEL_TCG,
		.kernel = "/k/bzImage",
		.rundir = rundir,
		.mem_mb = 256,
		.smp = 1,
		.timeout_s = 20,
		.topo = topology_find("none"),
		.icount_shift = -1,
	};
	char *err = NULL;

	assert_int_equal(c.topo->setup(&c, &err), 0);
	return c;
}

/* vm_boot_once() of a fake QEMU running `script`: *ok, and 0 returned. */
static bool boot(const char *script, unsigned int timeout_s)
{
	char *qemu, *d = fake_qemu(script, &qemu), *base = xasprintf("%s/base.cpio", d);
	char *path, *err = NULL;
	struct vm_config c = base_cfg(qemu, d);
	bool ok = true;

	c.timeout_s = timeout_s;
	assert_int_equal(file_writef(base, "base"), 0);
	assert_int_equal(vm_boot_once(&c, base, "true", d, &ok, &err), 0);
	assert_null(err);
	/* The direct backend's files: its command line, QEMU's log, the initrd. */
	for (int i = 0; i < 3; i++) {
		path = xasprintf("%s/%s", d, (const char *[]){ "cmdline", "qemu.log", "initrd.img" }[i]);
		assert_int_equal(access(path, F_OK), 0);
		free(path);
	}
	free(base);
	free(qemu);
	free(d);
	return ok;
}

static void test_backend__found_by_name_and_listed(void **state)
{
	assert_ptr_equal(vm_backend_find("qemu"), &vm_backend_qemu);
	assert_ptr_equal(vm_backend_find("libvirt"), &vm_backend_libvirt);
	assert_null(vm_backend_find("kvm"));
	assert_null(vm_backend_find(""));
	assert_string_equal(vm_backend_qemu.name, "qemu");
	assert_string_equal(vm_backend_libvirt.name, "libvirt");
	assert_non_null(strstr(vm_backend_list(), "qemu"));
	assert_non_null(strstr(vm_backend_list(), "libvirt"));
}

static void test_backend__every_backend_has_the_required_ops(void **state)
{
	const struct vm_backend_ops *all[] = { &vm_backend_qemu, &vm_backend_libvirt };

	for (size_t i = 0; i < ARRAY_SIZE(all); i++) {
		assert_non_null(all[i]->open);
		assert_non_null(all[i]->start);
		assert_non_null(all[i]->wait);
		assert_non_null(all[i]->ended);
		assert_non_null(all[i]->kill);
		assert_non_null(all[i]->status);
		assert_non_null(all[i]->release);
		assert_non_null(all[i]->close);
	}
	/* Only libvirt has something to bring back, names and a host. */
	assert_null(vm_backend_qemu.collect);
	assert_null(vm_backend_qemu.vm_name);
	assert_null(vm_backend_qemu.uri);
	assert_non_null(vm_backend_libvirt.collect);
	assert_non_null(vm_backend_libvirt.vm_name);
	assert_non_null(vm_backend_libvirt.uri);
}

static void test_backend__status_lines(void **state)
{
	assert_int_equal(vm_status_exit("agent 1\nexit 3\npoweroff\n"), 3);
	assert_int_equal(vm_status_exit("exit 0\n"), 0);
	assert_int_equal(vm_status_exit("agent 1\nnoexit 3\n"), -1);
	assert_int_equal(vm_status_exit(NULL), -1);
	assert_true(vm_status_has("agent 1\npoweroff\n", "poweroff"));
	assert_true(vm_status_has("agent 1.2\n", "agent"));
	assert_true(vm_status_has("timeout", "timeout"));
	assert_false(vm_status_has("poweroffx\n", "poweroff"));
	assert_false(vm_status_has("x poweroff\n", "poweroff"));
	assert_false(vm_status_has(NULL, "agent"));
}

/* The direct backend through the table: open, start, wait, status, release. */
static void test_backend__qemu_backend_runs_and_reaps_its_process(void **state)
{
	char *qemu, *d = fake_qemu("exit 3", &qemu), *why = NULL, *err = NULL;
	struct vm_config c = base_cfg(qemu, d);
	struct vm_backend_args a = { .accel = VM_ACCEL_TCG };
	struct vm_backend *be;
	struct vm_inst *v;
	int status;

	c.initrd = "/r/initrd.img";
	assert_int_equal(vm_backend_open(&vm_backend_qemu, &a, &c, &be, &why, &err), 0);
	assert_string_equal(why, "--accel tcg");
	assert_int_equal(c.accel, VM_ACCEL_TCG);
	assert_null(vm_backend_uri(be));
	assert_int_equal(vm_backend_start(be, 0, &v, &err), 0);
	for (int i = 0; i < 100 && !vm_inst_wait(v, 100); i++)
		;
	assert_true(vm_inst_ended(v));
	status = vm_inst_status(v);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 3);
	assert_null(vm_inst_name(v));
	assert_int_equal(vm_inst_collect(v, d, &err), 0);
	assert_null(err);
	vm_inst_release(v);
	vm_backend_close(be);
	free(why);
	free(qemu);
	free(d);
}

static void test_backend__qemu_backend_kill_stops_a_running_vm(void **state)
{
	char *qemu, *d = fake_qemu("exec sleep 60", &qemu), *why = NULL, *err = NULL;
	struct vm_config c = base_cfg(qemu, d);
	struct vm_backend_args a = { .accel = VM_ACCEL_TCG };
	struct vm_backend *be;
	struct vm_inst *v;
	double t0 = now_s();

	c.initrd = "/r/initrd.img";
	assert_int_equal(vm_backend_open(&vm_backend_qemu, &a, &c, &be, &why, &err), 0);
	assert_int_equal(vm_backend_start(be, 0, &v, &err), 0);
	assert_false(vm_inst_wait(v, 50));
	assert_false(vm_inst_ended(v));
	assert_int_equal(vm_inst_status(v), -1);
	vm_inst_kill(v, 2000);
	assert_true(vm_inst_ended(v));
	assert_true(WIFSIGNALED(vm_inst_status(v)));
	assert_true(now_s() - t0 < 10);
	vm_inst_release(v);
	vm_backend_close(be);
	free(why);
	free(qemu);
	free(d);
}

static void test_backend__qemu_backend_start_fails_cleanly(void **state)
{
	char *qemu, *d = fake_qemu("exit 0", &qemu), *why = NULL, *err = NULL;
	struct vm_config c = base_cfg(qemu, d);
	struct vm_backend_args a = { .accel = VM_ACCEL_TCG };
	struct vm_backend *be;
	struct vm_inst *v = (struct vm_inst *)&c;

	/* No initrd: qemu_build_argv() refuses, nothing is started. */
	assert_int_equal(vm_backend_open(&vm_backend_qemu, &a, &c, &be, &why, &err), 0);
	assert_int_equal(vm_backend_start(be, 0, &v, &err), -EINVAL);
	assert_null(v);
	assert_non_null(err);
	vm_backend_close(be);
	free(err);
	free(why);
	free(qemu);
	free(d);
}

static void test_backend__boot_once_ok_needs_exit_0_and_poweroff(void **state)
{
	assert_true(boot("printf 'agent 1\\nexit 0\\npoweroff\\n' >> \"$D/status\"", 20));
	assert_false(boot("printf 'agent 1\\nexit 1\\npoweroff\\n' >> \"$D/status\"", 20));
	/* No "poweroff": the guest did not get to the end of its job. */
	assert_false(boot("printf 'agent 1\\nexit 0\\n' >> \"$D/status\"", 20));
	assert_false(boot("printf 'agent 1\\ntimeout\\n' >> \"$D/status\"", 20));
	assert_false(boot("exit 0", 20));
}

static void test_backend__boot_once_panic_is_not_ok(void **state)
{
	assert_false(boot("printf 'agent 1\\nexit 0\\npoweroff\\n' >> \"$D/status\"\n"
			  "echo 'Kernel panic - not syncing: x' >> \"$D/console.log\"", 20));
}

static void test_backend__boot_once_stops_at_the_timeout(void **state)
{
	double t0 = now_s();

	assert_false(boot("printf 'agent 1\\nexit 0\\npoweroff\\n' >> \"$D/status\"\nexec sleep 60",
			  1));
	assert_true(now_s() - t0 < 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_backend__found_by_name_and_listed),
		cmocka_unit_test(test_backend__every_backend_has_the_required_ops),
		cmocka_unit_test(test_backend__status_lines),
		cmocka_unit_test(test_backend__qemu_backend_runs_and_reaps_its_process),
		cmocka_unit_test(test_backend__qemu_backend_kill_stops_a_running_vm),
		cmocka_unit_test(test_backend__qemu_backend_start_fails_cleanly),
		cmocka_unit_test(test_backend__boot_once_ok_needs_exit_0_and_poweroff),
		cmocka_unit_test(test_backend__boot_once_panic_is_not_ok),
		cmocka_unit_test(test_backend__boot_once_stops_at_the_timeout),
	};

	return cmocka_run_group_tests(tests, dir_setup, dir_teardown);
}
