// SPDX-License-Identifier: GPL-2.0
/* Verdict classification and result.json. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "lib/esc.h"
#include "lib/provenance.h"
#include "run/result.h"

static const char panic_console[] =
	"[    1.0] netlab-agent: started\n"
	"[    2.1] sysrq: Trigger a crash\n"
	"[    2.1] Kernel panic - not syncing: sysrq triggered crash\n"
	"[    2.1] CPU: 0 PID: 60 Comm: sh Not tainted 6.1.0 #1\n"
	"[    2.1] Call Trace:\n"
	"[    2.1]  sysrq_handle_crash+0x16/0x20\n"
	"[    2.1] ---[ end Kernel panic - not syncing: sysrq triggered crash ]---\n";

static void classify(struct run_obs *o, struct run_result *r)
{
	run_classify(o, r);
}

static void test_result__exit_zero_is_ok(void **state)
{
	struct run_obs o = { .qemu_status = 0, .status = "agent 1\ntopology ok\nexec 50\nexit 0\npoweroff\n" };
	struct run_result r;

	classify(&o, &r);
	assert_int_equal(r.verdict, RV_OK);
	assert_int_equal(r.exit_status, 0);
	assert_int_equal(run_result_exit_code(&r), 0);
	run_result_release(&r);
}

static void test_result__nonzero_exit_is_failed_and_passed_through(void **state)
{
	struct run_obs o = { .qemu_status = 0, .status = "agent 1\nexec 50\nexit 7\npoweroff\n" };
	struct run_result r;

	classify(&o, &r);
	assert_int_equal(r.verdict, RV_FAILED);
	assert_int_equal(run_result_exit_code(&r), 7);
	run_result_release(&r);
}

/* A console-only VM (a recorded one: no virtio-serial) says its status there. */
static void test_result__status_from_the_console_without_ports(void **state)
{
	struct run_obs o = {
		.qemu_status = 0, .status = "",
		.console = "netlab-agent: no virtio-serial device: all output goes to the console\n"
			   "netlab-agent: status: agent 1\r\nnetlab-agent: status: exec 33\n"
			   "x netlab-agent: status: exit 9\nnetlab-agent: status: exit 3\n"
			   "netlab-agent: status: poweroff\n",
	};
	struct run_obs with_ports = o;
	struct run_result r;

	classify(&o, &r);
	assert_int_equal(r.verdict, RV_FAILED);
	assert_int_equal(r.exit_status, 3);	/* only whole lines count */
	assert_true(r.agent_started);
	run_result_release(&r);
	/* A VM with ports and an empty status port is not read from its console. */
	with_ports.console = "netlab-agent: status: exit 0\n";
	classify(&with_ports, &r);
	assert_int_equal(r.exit_status, -1);
	run_result_release(&r);
}

static void test_result__panic_wins_and_carries_oops(void **state)
{
	struct run_obs o = { .qemu_status = 0, .status = "agent 1\nexec 50\n",
			     .console = panic_console };
	struct run_result r;

	classify(&o, &r);
	assert_int_equal(r.verdict, RV_PANIC);
	assert_non_null(r.oops);
	assert_true(!strncmp(r.oops, "[    2.1] sysrq: Trigger a crash", 30));
	assert_non_null(strstr(r.oops, "sysrq_handle_crash+0x16/0x20"));
	assert_non_null(strstr(r.reason, "sysrq triggered crash"));
	assert_int_equal(run_result_exit_code(&r), 1);
	run_result_release(&r);
}

static void test_result__host_timeout(void **state)
{
	struct run_obs o = { .timed_out = true, .status = "agent 1\nexec 50\n" };
	struct run_result r;

	classify(&o, &r);
	assert_int_equal(r.verdict, RV_TIMEOUT);
	assert_non_null(strstr(r.reason, "did not finish"));
	run_result_release(&r);
}

/* A kernel that hangs before userspace: boot-failure, exit 125 (git bisect run skips it). */
static void test_result__timeout_before_agent_is_boot_failure(void **state)
{
	struct run_obs o = { .timed_out = true, .status = "", .console = "Probing EDD\n" };
	struct run_result r;

	classify(&o, &r);
	assert_int_equal(r.verdict, RV_BOOT_FAILURE);
	assert_false(r.agent_started);
	assert_non_null(strstr(r.reason, "did not boot to the netlab agent in time"));
	assert_non_null(strstr(r.reason, "last console line: Probing EDD"));
	assert_int_equal(run_result_exit_code(&r), 125);
	run_result_release(&r);
}

static void test_result__guest_timeout(void **state)
{
	struct run_obs o = { .status = "agent 1\nexec 50\ntimeout\nexit 137\npoweroff\n" };
	struct run_result r;

	classify(&o, &r);
	assert_int_equal(r.verdict, RV_TIMEOUT);
	run_result_release(&r);
}

static void test_result__no_agent_is_boot_failure(void **state)
{
	struct run_obs o = { .qemu_status = 0, .status = "",
			     .console = "Linux version 6.1\nKernel offset: 0x0\nVFS: Unable to mount root\n" };
	struct run_result r;

	classify(&o, &r);
	assert_int_equal(r.verdict, RV_BOOT_FAILURE);
	assert_non_null(strstr(r.reason, "VFS: Unable to mount root"));
	assert_int_equal(run_result_exit_code(&r), 125);
	run_result_release(&r);
}

static void test_result__qemu_failure_is_infra(void **state)
{
	struct run_obs o = { .qemu_status = 256, .status = "", .console = "",
			     .qemu_log = "qemu-system-x86_64: -device foo: 'foo' is not a valid device model name\n" };
	struct run_result r;

	classify(&o, &r);
	assert_int_equal(r.verdict, RV_INFRA);
	assert_non_null(strstr(r.reason, "not a valid device model"));
	assert_int_equal(run_result_exit_code(&r), 125);
	run_result_release(&r);
}

static void test_result__topology_error_is_infra(void **state)
{
	struct run_obs o = { .status = "agent 1\ntopology error no NIC with MAC 52:54:00:4e:4c:0b\npoweroff\n" };
	struct run_result r;

	classify(&o, &r);
	assert_int_equal(r.verdict, RV_INFRA);
	assert_non_null(strstr(r.reason, "52:54:00:4e:4c:0b"));
	run_result_release(&r);
}

/* The agent's own report of a sysctl the kernel lacks: bad input (exit 2), named. */
static void test_result__unknown_sysctl_is_bad_input(void **state)
{
	struct run_obs o = { .status = "agent 1\ntopology error no such sysctl: net.ipv4.nope\n"
				       "poweroff\n" };
	struct run_result r;

	classify(&o, &r);
	assert_int_equal(r.verdict, RV_BAD_INPUT);
	assert_string_equal(run_verdict_name(r.verdict), "bad-input");
	assert_int_equal(run_result_exit_code(&r), 2);
	assert_non_null(strstr(r.reason, "no sysctl 'net.ipv4.nope'"));
	assert_null(strstr(r.reason, "poweroff"));
	run_result_release(&r);
}

static void test_result__interrupted(void **state)
{
	struct run_obs o = { .interrupted = true, .status = "agent 1\n" };
	struct run_result r;

	classify(&o, &r);
	assert_int_equal(r.verdict, RV_INTERRUPTED);
	assert_int_equal(run_result_exit_code(&r), 130);
	run_result_release(&r);
}

/* libvirt: output that did not all come back is never a clean result. */
static void test_result__incomplete_output_is_infra(void **state)
{
	static const char ok[] = "agent 1\ntopology ok\nexec 50\nexit 0\npoweroff\n";
	struct run_obs o = { .qemu_status = 0, .status = ok,
			     .transport_error = "the netlab.files stream of domain 'd' broke: x" };
	struct run_result r;

	classify(&o, &r);
	assert_int_equal(r.verdict, RV_INFRA);
	assert_non_null(strstr(r.reason, "did not all arrive: the netlab.files stream"));
	assert_int_equal(r.exit_status, 0);
	run_result_release(&r);

	o.transport_error = NULL;
	o.console = "[ 9.1] netlab-agent: no ack from the host within 20 s; powering off anyway\n";
	classify(&o, &r);
	assert_int_equal(r.verdict, RV_INFRA);
	assert_non_null(strstr(r.reason, "before netlab had drained its ports"));
	run_result_release(&r);

	o.console = "[ 9.1] netlab-agent: the host has every port's data\n";
	classify(&o, &r);
	assert_int_equal(r.verdict, RV_OK);
	run_result_release(&r);
}

/* A full disk ends the run as infra-error (125), whatever the command said
 * so far, with the text that names the device and the sizes. */
/*
 * QEMU killed from outside: while the command runs, and after it exited but
 * before the agent's "poweroff" (files.tar, a trace.dat, may be cut): both
 * infra-error naming the signal, never ok.
 */
static void test_result__qemu_killed_is_infra(void **state)
{
	struct run_obs o = { .qemu_status = SIGKILL,	/* a wait status: killed by 9 */
			     .status = "agent 1\ntopology ok\nexec 50\n" };
	struct run_result r;

	classify(&o, &r);
	assert_int_equal(r.verdict, RV_INFRA);
	assert_non_null(strstr(r.reason, "QEMU was killed by signal 9"));
	assert_non_null(strstr(r.reason, "no exit status"));
	run_result_release(&r);

	o.status = "agent 1\ntopology ok\nexec 50\nexit 0\n";
	classify(&o, &r);
	assert_int_equal(r.verdict, RV_INFRA);
	assert_int_equal(r.exit_status, 0);
	assert_non_null(strstr(r.reason, "QEMU was killed by signal 9 (Killed) after the command "
					 "exited with status 0, before the guest had sent its files"));
	assert_int_equal(run_result_exit_code(&r), NL_EXIT_CANNOT_TEST);
	run_result_release(&r);

	o.status = "agent 1\ntopology ok\nexec 50\nexit 0\npoweroff\n";
	classify(&o, &r);
	assert_int_equal(r.verdict, RV_OK);
	run_result_release(&r);
}

static void test_result__full_disk_is_infra(void **state)
{
	static const char ok[] = "agent 1\ntopology ok\nexec 50\nexit 0\npoweroff\n";
	struct run_obs o = { .qemu_status = 0, .status = ok, .timed_out = true,
			     .no_space = "no space left on tmpfs (mounted at /x): 0.0 MB free, "
					 "needed about 90 MB" };
	struct run_result r;

	classify(&o, &r);
	assert_int_equal(r.verdict, RV_INFRA);
	assert_string_equal(r.reason, o.no_space);
	assert_int_equal(run_result_exit_code(&r), NL_EXIT_CANNOT_TEST);
	run_result_release(&r);

	/* A panic that came first is still the kernel's. */
	o.console = "Kernel panic - not syncing: sysrq triggered crash\n";
	classify(&o, &r);
	assert_int_equal(r.verdict, RV_PANIC);
	run_result_release(&r);
}

static void test_result__json_has_verdict_status_and_kernel(void **state)
{
	struct vm_config cfg = { .kernel = "/k/bzImage", .accel = VM_ACCEL_TCG,
				 .topo = topology_find("loop"), .timeout_s = 30,
				 .icount_shift = -1 };
	struct run_obs o = { .status = "agent 1\nexec 5\nexit 3\npoweroff\n" };
	struct run_meta m = { .cfg = &cfg, .command = "false", .kernel_version = "6.1.0 (x@y) #1",
			      .kernel_sha256 = "ab", .kernel_cache_key = "4bb081187adb7294",
			      .kernel_source = "debian-linux-source-6.1-6.1.192-2",
			      .boot_s = 1.5, .wall_s = 3.0 };
	char tmpl[] = "/tmp/netlab-test-XXXXXX";
	struct json_object *j, *v, *k;
	struct run_result r;
	char *path, *err = NULL;

	assert_int_equal(cfg.topo->setup(&cfg, &err), 0);
	assert_non_null(mkdtemp(tmpl));
	path = xasprintf("%s/result.json", tmpl);
	classify(&o, &r);
	assert_int_equal(run_result_write_json(path, &r, &m, &err), 0);
	j = json_object_from_file(path);
	assert_non_null(j);
	assert_true(json_object_object_get_ex(j, "verdict", &v));
	assert_string_equal(json_object_get_string(v), "failed");
	assert_true(json_object_object_get_ex(j, "exit_status", &v));
	assert_int_equal(json_object_get_int(v), 3);
	assert_true(json_object_object_get_ex(j, "kernel", &k));
	assert_true(json_object_object_get_ex(k, "version", &v));
	assert_string_equal(json_object_get_string(v), "6.1.0 (x@y) #1");
	assert_true(json_object_object_get_ex(k, "cache_key", &v));
	assert_string_equal(json_object_get_string(v), "4bb081187adb7294");
	assert_true(json_object_object_get_ex(k, "source", &v));
	assert_string_equal(json_object_get_string(v), "debian-linux-source-6.1-6.1.192-2");
	assert_true(json_object_object_get_ex(k, "release", &v) && !v);
	/* Provenance: the format, the netlab that wrote it, when (UTC). */
	assert_true(json_object_object_get_ex(j, "format_version", &v));
	assert_true(json_object_is_type(v, json_type_int));
	assert_int_equal(json_object_get_int(v), NETLAB_FORMAT_VERSION);
	assert_true(json_object_object_get_ex(j, "netlab", &k));
	assert_true(json_object_object_get_ex(k, "version", &v));
	assert_string_equal(json_object_get_string(v), "unknown");
	assert_true(json_object_object_get_ex(k, "commit", &v));
	assert_true(json_object_object_get_ex(j, "generated_at", &v));
	assert_int_equal(strlen(json_object_get_string(v)), 20);
	assert_int_equal(json_object_get_string(v)[19], 'Z');
	assert_true(json_object_object_get_ex(j, "nics", &v));
	assert_int_equal(json_object_array_length(v), 2);
	/* What netlab report --json copies of it. */
	k = run_result_kernel_json(tmpl);
	assert_non_null(k);
	assert_true(json_object_object_get_ex(k, "cache_key", &v));
	assert_string_equal(json_object_get_string(v), "4bb081187adb7294");
	json_object_put(k);
	assert_null(run_result_kernel_json(path));	/* not a directory */
	assert_true(json_object_object_get_ex(j, "accel", &v));
	assert_string_equal(json_object_get_string(v), "tcg");
	json_object_put(j);
	unlink(path);
	rmdir(tmpl);
	free(path);
	run_result_release(&r);
}

/* result.json names the local QEMU when the run had no connection, whatever the backend's name. */
static void test_result__json_names_the_local_qemu_without_a_connection(void **state)
{
	struct vm_config cfg = { .kernel = "/k/bzImage", .qemu = "/nonexistent/qemu",
				 .accel = VM_ACCEL_TCG, .topo = topology_find("loop"),
				 .timeout_s = 30, .icount_shift = -1 };
	struct run_obs o = { .status = "agent 1\nexec 5\nexit 0\npoweroff\n" };
	struct run_meta m = { .cfg = &cfg, .command = "true", .backend = "another",
			      .boot_s = 1.5, .wall_s = 3.0 };
	char tmpl[] = "/tmp/netlab-test-XXXXXX";
	struct json_object *j, *v;
	struct run_result r;
	char *path, *err = NULL;

	assert_int_equal(cfg.topo->setup(&cfg, &err), 0);
	assert_non_null(mkdtemp(tmpl));
	path = xasprintf("%s/result.json", tmpl);
	classify(&o, &r);
	for (int conn = 0; conn < 2; conn++) {
		m.connect = conn ? "qemu:///system" : NULL;
		assert_int_equal(run_result_write_json(path, &r, &m, &err), 0);
		j = json_object_from_file(path);
		assert_non_null(j);
		assert_int_equal(json_object_object_get_ex(j, "qemu", &v), !conn);
		if (!conn) {
			assert_true(json_object_object_get_ex(v, "path", &v));
			assert_string_equal(json_object_get_string(v), "/nonexistent/qemu");
		}
		assert_true(json_object_object_get_ex(j, "backend", &v));
		assert_string_equal(json_object_get_string(v), "another");
		json_object_put(j);
	}
	unlink(path);
	rmdir(tmpl);
	free(path);
	run_result_release(&r);
}

/* Bytes of a kernel image that are not UTF-8 become U+FFFD: result.json stays JSON. */
static void test_result__json_strings_are_valid_utf8(void **state)
{
	struct vm_config cfg = { .kernel = "/k/bzImage", .accel = VM_ACCEL_TCG,
				 .topo = topology_find("loop"), .timeout_s = 30,
				 .icount_shift = -1 };
	struct run_obs o = { .status = "agent 1\nexec 5\nexit 0\n" };
	struct run_meta m = { .cfg = &cfg, .command = "true",
			      .kernel_version = "6.1.0 \xff\xfe\xc3(bad) caf\xc3\xa9 \xed\xa0\x80",
			      .boot_s = 1.5, .wall_s = 3.0 };
	char tmpl[] = "/tmp/netlab-test-XXXXXX";
	struct json_object *j, *v;
	struct run_result r;
	char *path, *err = NULL, *text = NULL, *clean;

	assert_int_equal(cfg.topo->setup(&cfg, &err), 0);
	assert_non_null(mkdtemp(tmpl));
	path = xasprintf("%s/result.json", tmpl);
	classify(&o, &r);
	assert_int_equal(run_result_write_json(path, &r, &m, &err), 0);
	assert_int_equal(file_read(path, &text, NULL), 0);
	clean = esc_utf8_fix(text);
	assert_string_equal(clean, text);	/* the whole file is valid UTF-8 */
	j = json_object_from_file(path);
	assert_non_null(j);
	assert_true(json_object_object_get_ex(j, "kernel", &v));
	assert_true(json_object_object_get_ex(v, "version", &v));
	assert_string_equal(json_object_get_string(v),
			    "6.1.0 \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd(bad) caf\xc3\xa9 "
			    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	json_object_put(j);
	unlink(path);
	rmdir(tmpl);
	free(path);
	free(text);
	free(clean);
	run_result_release(&r);
}

static void test_result__json_write_error_names_file(void **state)
{
	struct run_obs o = { .status = "exit 0\n" };
	struct run_result r;
	char *err = NULL;

	classify(&o, &r);
	assert_int_not_equal(run_result_write_json("/nonexistent/dir/result.json", &r, NULL, &err), 0);
	assert_non_null(strstr(err, "/nonexistent/dir/result.json"));
	free(err);
	run_result_release(&r);
}

static void test_result__text_tail(void **state)
{
	char *t = text_tail("a\nb\nc\n\n", 2);

	assert_string_equal(t, "b\nc");
	free(t);
	t = text_tail("only", 3);
	assert_string_equal(t, "only");
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_result__exit_zero_is_ok),
		cmocka_unit_test(test_result__nonzero_exit_is_failed_and_passed_through),
		cmocka_unit_test(test_result__status_from_the_console_without_ports),
		cmocka_unit_test(test_result__panic_wins_and_carries_oops),
		cmocka_unit_test(test_result__host_timeout),
		cmocka_unit_test(test_result__timeout_before_agent_is_boot_failure),
		cmocka_unit_test(test_result__guest_timeout),
		cmocka_unit_test(test_result__no_agent_is_boot_failure),
		cmocka_unit_test(test_result__qemu_failure_is_infra),
		cmocka_unit_test(test_result__topology_error_is_infra),
		cmocka_unit_test(test_result__unknown_sysctl_is_bad_input),
		cmocka_unit_test(test_result__interrupted),
		cmocka_unit_test(test_result__incomplete_output_is_infra),
		cmocka_unit_test(test_result__full_disk_is_infra),
		cmocka_unit_test(test_result__qemu_killed_is_infra),
		cmocka_unit_test(test_result__json_has_verdict_status_and_kernel),
		cmocka_unit_test(test_result__json_names_the_local_qemu_without_a_connection),
		cmocka_unit_test(test_result__json_strings_are_valid_utf8),
		cmocka_unit_test(test_result__json_write_error_names_file),
		cmocka_unit_test(test_result__text_tail),
	};

	return cmocka_run_group_tests_name("result", tests, NULL, NULL);
}
