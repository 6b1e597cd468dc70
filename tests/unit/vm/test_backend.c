// SPDX-License-Identifier: GPL-2.0
/*
 * The VM backend table (vm/backend.c): every backend by name, an unknown
 * name's error, the ops each has (and the optional ones only where
 * expected), what an option needing an op gets; the status port's lines; the
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

/* Every backend of the table, from its own list ("qemu, libvirt"). */
static size_t all_backends(const struct vm_backend_ops *out[8])
{
	char *list = xstrdup(vm_backend_list()), *save = NULL;
	size_t n = 0;

	for (char *name = strtok_r(list, ", ", &save); name; name = strtok_r(NULL, ", ", &save)) {
		assert_true(n < 8);
		out[n] = vm_backend_find(name);
		assert_non_null(out[n]);
		assert_string_equal(out[n]->name, name);
		n++;
	}
	free(list);
	return n;
}

static void test_backend__found_by_name_and_listed(void **state)
{
	const struct vm_backend_ops *all[8], *ops = NULL;
	char *err = NULL;

	assert_int_equal(all_backends(all), 2);
	assert_ptr_equal(vm_backend_find("qemu"), &vm_backend_qemu);
	assert_ptr_equal(vm_backend_find("libvirt"), &vm_backend_libvirt);
	assert_ptr_equal(vm_backend_default(), &vm_backend_qemu);
	assert_null(vm_backend_find("kvm"));
	assert_null(vm_backend_find(""));
	assert_null(vm_backend_find("QEMU"));
	assert_string_equal(vm_backend_list(), "qemu, libvirt");
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(vm_backend_lookup("--backend", all[i]->name, &ops, &err), 0);
		assert_ptr_equal(ops, all[i]);
		assert_null(err);
	}
}

/* An unknown name: the option, the name and every backend with its help line. */
static void test_backend__unknown_name_lists_the_known_ones(void **state)
{
	const struct vm_backend_ops *ops = &vm_backend_libvirt, *all[8];
	size_t n = all_backends(all);
	char *err = NULL;

	assert_int_equal(vm_backend_lookup("--backend", "xen", &ops, &err), -EINVAL);
	assert_ptr_equal(ops, &vm_backend_libvirt);	/* untouched */
	assert_non_null(err);
	assert_non_null(strstr(err, "--backend 'xen': unknown backend\nhint: choose one of: "
				    "qemu, libvirt"));
	for (size_t i = 0; i < n; i++) {
		assert_non_null(strstr(err, all[i]->name));
		assert_non_null(strstr(err, all[i]->help));
	}
	free(err);
}

static void test_backend__every_backend_has_the_required_ops(void **state)
{
	const struct vm_backend_ops *all[8];
	size_t n = all_backends(all);

	for (size_t i = 0; i < n; i++) {
		assert_non_null(all[i]->help);
		assert_non_null(all[i]->accel);
		assert_non_null(all[i]->open);
		assert_non_null(all[i]->start);
		assert_non_null(all[i]->wait);
		assert_non_null(all[i]->ended);
		assert_non_null(all[i]->kill);
		assert_non_null(all[i]->status);
		assert_non_null(all[i]->release);
		assert_non_null(all[i]->close);
		/* A connection is checked, and where it runs is told. */
		assert_true(!all[i]->default_uri || (all[i]->check && all[i]->uri));
	}
	/* Only libvirt has something to bring back, names and a host. */
	assert_null(vm_backend_qemu.collect);
	assert_null(vm_backend_qemu.vm_name);
	assert_null(vm_backend_qemu.uri);
	assert_non_null(vm_backend_libvirt.collect);
	assert_non_null(vm_backend_libvirt.vm_name);
	assert_non_null(vm_backend_libvirt.uri);
}

/* The optional ops: the direct backend leaves libvirt's questions NULL. */
static void test_backend__optional_ops_where_expected(void **state)
{
	static const struct {
		const struct vm_backend_ops *ops;
		bool can[4];		/* connect, check, describe, debug */
	} want[] = {
		{ &vm_backend_qemu, { false, false, false, true } },
		{ &vm_backend_libvirt, { true, true, true, false } },
	};

	assert_null(vm_backend_qemu.default_uri);
	assert_null(vm_backend_qemu.check);
	assert_null(vm_backend_qemu.describe);
	assert_non_null(vm_backend_libvirt.default_uri);
	assert_non_null(vm_backend_libvirt.check);
	assert_non_null(vm_backend_libvirt.describe);
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		assert_int_equal(vm_backend_can(want[i].ops, VM_BACKEND_CAN_CONNECT), want[i].can[0]);
		assert_int_equal(vm_backend_can(want[i].ops, VM_BACKEND_CAN_CHECK), want[i].can[1]);
		assert_int_equal(vm_backend_can(want[i].ops, VM_BACKEND_CAN_DESCRIBE), want[i].can[2]);
		assert_int_equal(vm_backend_can(want[i].ops, VM_BACKEND_CAN_DEBUG), want[i].can[3]);
	}
}

/* An option that needs an op: implies the backend that has it, or says who has it. */
static void test_backend__an_option_needs_an_op(void **state)
{
	const struct vm_backend_ops *ops = &vm_backend_qemu;
	bool chosen = false;
	char *err = NULL;

	/* No --backend: --connect picks libvirt, and from then on it is chosen. */
	assert_int_equal(vm_backend_need(&ops, &chosen, VM_BACKEND_CAN_CONNECT, "--connect", &err), 0);
	assert_ptr_equal(ops, &vm_backend_libvirt);
	assert_true(chosen);
	assert_int_equal(vm_backend_need(&ops, &chosen, VM_BACKEND_CAN_DESCRIBE, "--print-xml", &err),
			 0);
	assert_int_equal(vm_backend_need(&ops, &chosen, VM_BACKEND_CAN_DEBUG, "--record", &err),
			 -EINVAL);
	assert_string_equal(err, "--record needs --backend qemu, not libvirt");
	free(err);
	err = NULL;
	/* --backend qemu: refused, naming the option and both backends. */
	ops = &vm_backend_qemu;
	assert_int_equal(vm_backend_need(&ops, &chosen, VM_BACKEND_CAN_CONNECT, "--connect", &err),
			 -EINVAL);
	assert_ptr_equal(ops, &vm_backend_qemu);
	assert_string_equal(err, "--connect needs --backend libvirt, not qemu");
	free(err);
	err = NULL;
	assert_int_equal(vm_backend_need(&ops, &chosen, VM_BACKEND_CAN_DESCRIBE, "--print-xml", &err),
			 -EINVAL);
	assert_string_equal(err, "--print-xml needs --backend libvirt, not qemu");
	free(err);
}

/* The slots runs spread over: one of this host, or the connections. */
static void test_backend__connections_and_their_uris(void **state)
{
	const char *const two[] = { "qemu:///system", "qemu+ssh://h/system" };

	setenv("NETLAB_LIBVIRT_URI", "test:///default", 1);
	assert_int_equal(vm_backend_n_conns(&vm_backend_qemu, 0), 1);
	assert_null(vm_backend_conn_uri(&vm_backend_qemu, NULL, 0, 0));
	assert_int_equal(vm_backend_n_conns(&vm_backend_qemu, 2), 1);
	assert_null(vm_backend_conn_uri(&vm_backend_qemu, two, 2, 0));
	assert_int_equal(vm_backend_n_conns(&vm_backend_libvirt, 0), 1);
	assert_string_equal(vm_backend_conn_uri(&vm_backend_libvirt, NULL, 0, 0), "test:///default");
	assert_int_equal(vm_backend_n_conns(&vm_backend_libvirt, 2), 2);
	assert_string_equal(vm_backend_conn_uri(&vm_backend_libvirt, two, 2, 0), two[0]);
	assert_string_equal(vm_backend_conn_uri(&vm_backend_libvirt, two, 2, 1), two[1]);
	unsetenv("NETLAB_LIBVIRT_URI");
}

/* libvirt's pre-flight check: a daemon that is not there is named, with a hint. */
static void test_backend__libvirt_check_names_the_connection(void **state)
{
	char *uri = xasprintf("qemu+unix:///system?socket=%s/none.sock", dir), *err = NULL;

	assert_int_equal(vm_backend_libvirt.check(uri, &err), -EINVAL);
	assert_non_null(err);
	assert_non_null(strstr(err, "none.sock"));
	assert_non_null(strstr(err, "hint: "));
	free(err);
	free(uri);
}

/* The accelerator, without opening: libvirt takes what is asked, never probes. */
static void test_backend__accel_without_opening(void **state)
{
	struct vm_config c = { .icount_shift = -1 };
	struct vm_backend_args a = { .accel = VM_ACCEL_AUTO };
	enum vm_accel out = VM_ACCEL_AUTO;
	char *why = NULL, *err = NULL;

	assert_int_equal(vm_backend_libvirt.accel(&a, &c, &out, &why, &err), 0);
	assert_int_equal(out, VM_ACCEL_TCG);
	assert_non_null(strstr(why, "libvirt backend"));
	free(why);
	a.accel = VM_ACCEL_KVM;
	assert_int_equal(vm_backend_libvirt.accel(&a, &c, &out, &why, &err), 0);
	assert_int_equal(out, VM_ACCEL_KVM);
	free(why);
	/* Recording is the direct backend's. */
	c.debug.rr = VM_RR_RECORD;
	assert_int_equal(vm_backend_libvirt.accel(&a, &c, &out, &why, &err), -EINVAL);
	assert_non_null(strstr(err, "direct QEMU backend"));
	free(err);
	err = NULL;
	/* As asked, the direct backend does not probe either. */
	a.accel = VM_ACCEL_TCG;
	why = NULL;
	assert_int_equal(vm_backend_qemu.accel(&a, &c, &out, &why, &err), 0);
	assert_int_equal(out, VM_ACCEL_TCG);
	assert_string_equal(why, "--accel tcg");
	free(why);
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
		cmocka_unit_test(test_backend__unknown_name_lists_the_known_ones),
		cmocka_unit_test(test_backend__every_backend_has_the_required_ops),
		cmocka_unit_test(test_backend__optional_ops_where_expected),
		cmocka_unit_test(test_backend__an_option_needs_an_op),
		cmocka_unit_test(test_backend__connections_and_their_uris),
		cmocka_unit_test(test_backend__libvirt_check_names_the_connection),
		cmocka_unit_test(test_backend__accel_without_opening),
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
