// SPDX-License-Identifier: GPL-2.0
/* QEMU command-line builder and guest job text. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/esc.h"
#include "vm/vm.h"
#include "vm/vmcfg.h"

static struct vm_config base_cfg(void)
{
	struct vm_config c = {
		.qemu = "qemu-system-x86_64",
		.accel = VM_ACCEL_TCG,
		.kernel = "/k/bzImage",
		.initrd = "/r/initrd.img",
		.rundir = "/r",
		.mem_mb = 256,
		.smp = 1,
		.topo = topology_find("loop"),
		.icount_shift = -1,
	};
	return c;
}

/* Index of the first argument equal to s, or -1. */
static int arg_index(const struct argv *a, const char *s)
{
	for (size_t i = 0; i < a->n; i++)
		if (!strcmp(a->v[i], s))
			return (int)i;
	return -1;
}

/* Value following option `opt` whose value starts with `prefix`. */
static const char *opt_value(const struct argv *a, const char *opt, const char *prefix)
{
	for (size_t i = 0; i + 1 < a->n; i++)
		if (!strcmp(a->v[i], opt) && !strncmp(a->v[i + 1], prefix, strlen(prefix)))
			return a->v[i + 1];
	return NULL;
}

static void build(struct vm_config *c, struct argv *a)
{
	char *err = NULL;

	assert_int_equal(c->topo->setup(c, &err), 0);
	argv_init(a);
	assert_int_equal(qemu_build_argv(c, 0, a, &err), 0);
	assert_null(err);
}

static void test_qemu__always_no_reboot_and_panic_reboots(void **state)
{
	struct vm_config c = base_cfg();
	struct argv a;
	const char *append;

	build(&c, &a);
	assert_true(arg_index(&a, "-no-reboot") > 0);
	append = opt_value(&a, "-append", "");
	assert_non_null(append);
	assert_non_null(strstr(append, "panic=-1"));
	assert_non_null(strstr(append, "console=ttyS0"));
	assert_int_equal(arg_index(&a, "-no-shutdown"), -1);
	argv_release(&a);
}

static void test_qemu__accel_tcg_and_kvm(void **state)
{
	struct vm_config c = base_cfg();
	struct argv a;

	build(&c, &a);
	assert_non_null(opt_value(&a, "-accel", "tcg"));
	argv_release(&a);
	c.accel = VM_ACCEL_KVM;
	build(&c, &a);
	assert_non_null(opt_value(&a, "-accel", "kvm"));
	argv_release(&a);
}

static void test_qemu__icount_only_when_asked_and_only_with_tcg(void **state)
{
	struct vm_config c = base_cfg();
	struct argv a;
	char *err = NULL;

	build(&c, &a);
	assert_int_equal(arg_index(&a, "-icount"), -1);
	argv_release(&a);
	c.icount_shift = 3;
	build(&c, &a);
	assert_non_null(opt_value(&a, "-icount", "shift=3,sleep=off"));
	argv_release(&a);
	setenv("NETLAB_ICOUNT_SLEEP", "on", 1);
	build(&c, &a);
	assert_non_null(opt_value(&a, "-icount", "shift=3,sleep=on"));
	argv_release(&a);
	setenv("NETLAB_ICOUNT_SLEEP", "yes", 1);
	build(&c, &a);
	assert_non_null(opt_value(&a, "-icount", "shift=3,sleep=off"));
	argv_release(&a);
	unsetenv("NETLAB_ICOUNT_SLEEP");
	c.accel = VM_ACCEL_KVM;
	argv_init(&a);
	assert_int_not_equal(qemu_build_argv(&c, 0, &a, &err), 0);
	assert_non_null(strstr(err, "TCG"));
	free(err);
	argv_release(&a);
}

static void test_qemu__rejects_unresolved_accel(void **state)
{
	struct vm_config c = base_cfg();
	struct argv a;
	char *err = NULL;

	c.accel = VM_ACCEL_AUTO;
	assert_int_equal(c.topo->setup(&c, &err), 0);
	argv_init(&a);
	assert_int_not_equal(qemu_build_argv(&c, 0, &a, &err), 0);
	assert_non_null(err);
	free(err);
	argv_release(&a);
}

static void test_qemu__loop_wires_two_nics_on_one_hub_with_pcaps(void **state)
{
	struct vm_config c = base_cfg();
	struct argv a;

	build(&c, &a);
	assert_string_equal(opt_value(&a, "-netdev", "hubport,id=netA"),
			    "hubport,id=netA,hubid=0");
	assert_string_equal(opt_value(&a, "-netdev", "hubport,id=netB"),
			    "hubport,id=netB,hubid=0");
	assert_string_equal(opt_value(&a, "-device", "e1000e,"),
			    "e1000e,netdev=netA,mac=52:54:00:4e:4c:0a,romfile=");
	assert_string_equal(opt_value(&a, "-device", "virtio-net-pci,"),
			    "virtio-net-pci,netdev=netB,mac=52:54:00:4e:4c:0b,romfile=");
	assert_string_equal(opt_value(&a, "-object", "filter-dump,id=dumpA"),
			    "filter-dump,id=dumpA,netdev=netA,file=/r/nic-A.pcap");
	assert_string_equal(opt_value(&a, "-object", "filter-dump,id=dumpB"),
			    "filter-dump,id=dumpB,netdev=netB,file=/r/nic-B.pcap");
	argv_release(&a);
}

/*
 * Each NIC on a hub gets the filter that keeps its frames in order
 * (topo.c): on the frames the link hands to the NIC, after the capture,
 * so the pcap still shows a frame as it leaves the hub.
 */
static void test_qemu__hub_nics_get_frames_in_order(void **state)
{
	struct vm_config c = base_cfg();
	struct argv a;

	build(&c, &a);
	assert_string_equal(opt_value(&a, "-object", "filter-buffer,id=orderA"),
			    "filter-buffer,id=orderA,netdev=netA,queue=tx,interval=100");
	assert_string_equal(opt_value(&a, "-object", "filter-buffer,id=orderB"),
			    "filter-buffer,id=orderB,netdev=netB,queue=tx,interval=100");
	assert_true(arg_index(&a, "filter-buffer,id=orderA,netdev=netA,queue=tx,interval=100") >
		    arg_index(&a, "filter-dump,id=dumpA,netdev=netA,file=/r/nic-A.pcap"));
	argv_release(&a);
}

/* The run's snaplen becomes filter-dump's maxlen; 0 keeps whole frames. */
static void test_qemu__captures_keep_snaplen_bytes(void **state)
{
	struct vm_config c = base_cfg();
	struct argv a;

	c.snaplen = 256;
	build(&c, &a);
	assert_string_equal(opt_value(&a, "-object", "filter-dump,id=dumpA"),
			    "filter-dump,id=dumpA,netdev=netA,file=/r/nic-A.pcap,maxlen=256");
	assert_string_equal(opt_value(&a, "-object", "filter-dump,id=dumpB"),
			    "filter-dump,id=dumpB,netdev=netB,file=/r/nic-B.pcap,maxlen=256");
	argv_release(&a);
}

static void test_qemu__nic_models_are_selectable(void **state)
{
	struct vm_config c = base_cfg();
	struct argv a;

	c.want_model[0] = nic_model_find("virtio-net");
	c.want_model[1] = nic_model_find("e1000");
	build(&c, &a);
	assert_non_null(opt_value(&a, "-device", "virtio-net-pci,netdev=netA"));
	assert_non_null(opt_value(&a, "-device", "e1000,netdev=netB"));
	assert_null(opt_value(&a, "-device", "e1000e"));
	argv_release(&a);
}

static void test_qemu__model_for_missing_nic_is_rejected(void **state)
{
	struct vm_config c = base_cfg();
	char *err = NULL;

	c.want_model[2] = nic_model_find("e1000");
	assert_int_equal(c.topo->setup(&c, &err), -22);
	assert_non_null(strstr(err, "no NIC C"));
	free(err);
}

static void test_qemu__named_ports_backed_by_run_dir_files(void **state)
{
	struct vm_config c = base_cfg();
	struct argv a;

	build(&c, &a);
	assert_non_null(opt_value(&a, "-device", "virtio-serial-pci"));
	assert_non_null(opt_value(&a, "-device", "virtserialport,bus=vser0.0,chardev=port0,name=netlab.stdout"));
	assert_non_null(opt_value(&a, "-device", "virtserialport,bus=vser0.0,chardev=port2,name=netlab.status"));
	assert_non_null(opt_value(&a, "-chardev", "file,id=port0,path=/r/stdout"));
	assert_non_null(opt_value(&a, "-chardev", "file,id=console,path=/r/console.log"));
	argv_release(&a);
}

static void test_qemu__extra_append_follows_base(void **state)
{
	struct vm_config c = base_cfg();
	struct argv a;
	const char *append;

	c.append = "nokaslr e1000e.copybreak=0";
	build(&c, &a);
	append = opt_value(&a, "-append", "console=");
	assert_non_null(append);
	assert_non_null(strstr(append, "panic=-1 oops=panic rdinit=/init nokaslr e1000e.copybreak=0"));
	argv_release(&a);
}

static void test_qemu__topology_none_has_no_nics(void **state)
{
	struct vm_config c = base_cfg();
	struct argv a;

	c.topo = topology_find("none");
	build(&c, &a);
	assert_int_equal(c.n_nics, 0);
	assert_int_equal(arg_index(&a, "-netdev"), -1);
	argv_release(&a);
}

static void test_job__lists_nics_with_netns_and_addresses(void **state)
{
	struct vm_config c = base_cfg();
	struct sbuf b;
	char *err = NULL;

	c.timeout_s = 42;
	assert_int_equal(c.topo->setup(&c, &err), 0);
	sbuf_init(&b);
	job_text(&c, 0, &b);
	assert_non_null(strstr(b.s, "version=1\n"));
	assert_non_null(strstr(b.s, "topology=loop\n"));
	assert_non_null(strstr(b.s, "timeout=42\n"));
	assert_non_null(strstr(b.s, "nic.A.mac=52:54:00:4e:4c:0a\n"));
	assert_non_null(strstr(b.s, "nic.B.netns=b\n"));
	assert_non_null(strstr(b.s, "nic.A.ipv6=2001:2::1/64\n"));
	assert_null(strstr(b.s, "nic.A.netns"));
	sbuf_release(&b);
	c.job_lines = (const char *const[]){ "sysctl.net.core.rmem_max=1" };
	c.n_job_lines = 1;
	sbuf_init(&b);
	job_text(&c, 0, &b);
	assert_non_null(strstr(b.s, "\nsysctl.net.core.rmem_max=1\n"));
	sbuf_release(&b);
}

static void test_qemu__pair_puts_one_nic_in_each_vm_over_unix_dgram(void **state)
{
	struct vm_config c = base_cfg();
	struct argv a0, a1;
	struct sbuf j1;
	char *err = NULL;

	c.topo = topology_find("pair");
	c.sock_dir = "/s";
	c.vm_dir[0] = "/r/vm-a";
	c.vm_dir[1] = "/r/vm-b";
	c.vm_initrd[1] = "/r/vm-b/initrd.img";
	c.peer_kernel = "/good/bzImage";
	assert_int_equal(c.topo->setup(&c, &err), 0);
	argv_init(&a0);
	argv_init(&a1);
	assert_int_equal(qemu_build_argv(&c, 0, &a0, &err), 0);
	assert_int_equal(qemu_build_argv(&c, 1, &a1, &err), 0);
	assert_string_equal(opt_value(&a0, "-netdev", "dgram"),
			    "dgram,id=netA,local.type=unix,local.path=/s/A.sock,remote.type=unix,remote.path=/s/B.sock");
	assert_string_equal(opt_value(&a1, "-netdev", "dgram"),
			    "dgram,id=netB,local.type=unix,local.path=/s/B.sock,remote.type=unix,remote.path=/s/A.sock");
	assert_null(opt_value(&a0, "-device", "virtio-net-pci"));
	assert_null(opt_value(&a1, "-device", "e1000e"));
	/* No hub between two QEMUs: a datagram socket keeps the order. */
	assert_null(opt_value(&a0, "-object", "filter-buffer"));
	assert_null(opt_value(&a1, "-object", "filter-buffer"));
	assert_non_null(opt_value(&a1, "-kernel", "/good/bzImage"));
	assert_non_null(opt_value(&a0, "-kernel", "/k/bzImage"));
	assert_non_null(opt_value(&a1, "-initrd", "/r/vm-b/initrd.img"));
	assert_non_null(opt_value(&a1, "-chardev", "file,id=console,path=/r/vm-b/console.log"));
	assert_non_null(opt_value(&a1, "-object", "filter-dump,id=dumpB,netdev=netB,file=/r/nic-B.pcap"));
	assert_int_not_equal(qemu_build_argv(&c, 2, &a1, &err), 0);
	free(err);
	sbuf_init(&j1);
	job_text(&c, 1, &j1);
	assert_non_null(strstr(j1.s, "nic.B.mac="));
	assert_null(strstr(j1.s, "nic.A."));
	assert_null(strstr(j1.s, "netns"));
	sbuf_release(&j1);
	argv_release(&a0);
	argv_release(&a1);
}

static void test_argv__shell_rendering_quotes_what_needs_it(void **state)
{
	struct argv a;
	char *s;

	argv_init(&a);
	argv_add(&a, "qemu");
	argv_add(&a, "-append");
	argv_add(&a, "console=ttyS0 it's");
	argv_add(&a, "romfile=");
	s = esc_shell_argv(&a);
	assert_string_equal(s, "qemu -append 'console=ttyS0 it'\\''s' romfile=");
	free(s);
	argv_release(&a);
}

static void test_qemu__gdbstub_on_unix_socket_paused_with_nokaslr(void **state)
{
	struct vm_config c = base_cfg();
	struct argv a;
	const char *append;

	c.debug.gdb_socket = "/r/gdb.sock";
	c.debug.paused = true;
	build(&c, &a);
	assert_string_equal(opt_value(&a, "-chardev", "socket,"),
			    "socket,path=/r/gdb.sock,server=on,wait=off,id=gdb0");
	assert_string_equal(opt_value(&a, "-gdb", ""), "chardev:gdb0");
	assert_true(arg_index(&a, "-S") > 0);
	/* Never a TCP port: no -s (tcp::1234) and no tcp: gdb device. */
	assert_int_equal(arg_index(&a, "-s"), -1);
	assert_null(opt_value(&a, "-gdb", "tcp"));
	append = opt_value(&a, "-append", "console=");
	assert_non_null(strstr(append, " nokaslr"));
	argv_release(&a);
}

static void test_qemu__no_gdbstub_no_pause_no_nokaslr_by_default(void **state)
{
	struct vm_config c = base_cfg();
	struct argv a;

	build(&c, &a);
	assert_int_equal(arg_index(&a, "-S"), -1);
	assert_int_equal(arg_index(&a, "-gdb"), -1);
	assert_null(strstr(opt_value(&a, "-append", "console="), "nokaslr"));
	argv_release(&a);
}

static void test_qemu__gdbstub_only_on_the_chosen_vm_of_a_pair(void **state)
{
	struct vm_config c = base_cfg();
	struct argv a0, a1;
	char *err = NULL;

	c.topo = topology_find("pair");
	c.sock_dir = "/tmp/s";
	c.debug.gdb_socket = "/r/gdb.sock";
	c.debug.gdb_vm = 1;
	c.debug.paused = true;
	assert_int_equal(c.topo->setup(&c, &err), 0);
	argv_init(&a0);
	argv_init(&a1);
	assert_int_equal(qemu_build_argv(&c, 0, &a0, &err), 0);
	assert_int_equal(qemu_build_argv(&c, 1, &a1, &err), 0);
	assert_int_equal(arg_index(&a0, "-S"), -1);
	assert_int_equal(arg_index(&a0, "-gdb"), -1);
	assert_true(arg_index(&a1, "-S") > 0);
	assert_true(arg_index(&a1, "-gdb") > 0);
	argv_release(&a0);
	argv_release(&a1);
}

static void test_qemu__record_icount_log_snapshot_disk_and_netdev_filters(void **state)
{
	struct vm_config c = base_cfg();
	struct argv a;

	c.icount_shift = 3;	/* record/replay's icount replaces it */
	c.debug.rr = VM_RR_RECORD;
	c.debug.rr_vm = -1;
	build(&c, &a);
	assert_string_equal(opt_value(&a, "-icount", ""), "shift=auto,rr=record,rrfile=/r/replay.bin");
	assert_int_equal(arg_index(&a, "-drive"), -1);
	argv_release(&a);
	c.debug.rr_snapshot = true;
	build(&c, &a);
	assert_string_equal(opt_value(&a, "-icount", ""),
			    "shift=auto,rr=record,rrfile=/r/replay.bin,rrsnapshot=init");
	assert_string_equal(opt_value(&a, "-drive", ""),
			    "file=/r/replay.qcow2,if=none,id=rrdisk,format=qcow2");
	assert_non_null(opt_value(&a, "-object", "filter-replay,id=replayA,netdev=netA"));
	assert_non_null(opt_value(&a, "-object", "filter-replay,id=replayB,netdev=netB"));
	/* Each NIC's transmit never waits on the other end (a replay's never does). */
	assert_non_null(opt_value(&a, "-object", "filter-buffer,id=rrtxA,netdev=netA,queue=rx,interval="));
	assert_non_null(opt_value(&a, "-object", "filter-buffer,id=rrtxB,netdev=netB,queue=rx,interval="));
	assert_true(arg_index(&a, "filter-buffer,id=rrtxA,netdev=netA,queue=rx,interval=100") >
		    arg_index(&a, "filter-replay,id=replayA,netdev=netA"));
	/* filter-replay records a frame as the order filter releases it to the NIC. */
	assert_true(arg_index(&a, "filter-replay,id=replayA,netdev=netA") >
		    arg_index(&a, "filter-buffer,id=orderA,netdev=netA,queue=tx,interval=100"));
	assert_non_null(strstr(opt_value(&a, "-append", "console="), " nokaslr"));
	argv_release(&a);
}

static void test_qemu__replay_uses_given_log_and_disk_and_needs_tcg(void **state)
{
	struct vm_config c = base_cfg();
	struct argv a;
	char *err = NULL;

	c.debug.rr = VM_RR_REPLAY;
	c.debug.rr_vm = 0;
	c.debug.rr_file = "/x/replay.bin";
	c.debug.rr_disk = "/x/replay.qcow2";
	c.debug.rr_snapshot = true;
	build(&c, &a);
	assert_string_equal(opt_value(&a, "-icount", ""),
			    "shift=auto,rr=replay,rrfile=/x/replay.bin,rrsnapshot=init");
	assert_string_equal(opt_value(&a, "-drive", ""),
			    "file=/x/replay.qcow2,if=none,id=rrdisk,format=qcow2");
	argv_release(&a);
	c.accel = VM_ACCEL_KVM;
	argv_init(&a);
	assert_int_equal(qemu_build_argv(&c, 0, &a, &err), -EINVAL);
	assert_non_null(strstr(err, "TCG"));
	free(err);
	argv_release(&a);
}

static void test_qemu__record_only_the_chosen_vm_of_a_pair(void **state)
{
	struct vm_config c = base_cfg();
	struct argv a0, a1;
	char *err = NULL;

	c.topo = topology_find("pair");
	c.sock_dir = "/tmp/s";
	c.debug.rr = VM_RR_RECORD;
	c.debug.rr_vm = 1;
	assert_int_equal(c.topo->setup(&c, &err), 0);
	argv_init(&a0);
	argv_init(&a1);
	assert_int_equal(qemu_build_argv(&c, 0, &a0, &err), 0);
	assert_int_equal(qemu_build_argv(&c, 1, &a1, &err), 0);
	assert_null(opt_value(&a0, "-icount", ""));
	assert_null(opt_value(&a0, "-object", "filter-replay"));
	assert_null(opt_value(&a0, "-object", "filter-buffer"));
	assert_non_null(opt_value(&a1, "-icount", "shift=auto,rr=record"));
	assert_non_null(opt_value(&a1, "-object", "filter-replay,id=replayB,netdev=netB"));
	/* QEMU 7.2 does not replay netlab's virtio-serial ports: the recorded VM has none. */
	assert_non_null(opt_value(&a0, "-device", "virtio-serial-pci"));
	assert_null(opt_value(&a1, "-device", "virtio-serial-pci"));
	assert_null(opt_value(&a1, "-device", "virtserialport"));
	argv_release(&a0);
	argv_release(&a1);
	/* QEMU 10 does: the recorded VM keeps them, and its files and trace. */
	c.qemu_version = 100002;
	argv_init(&a1);
	assert_int_equal(qemu_build_argv(&c, 1, &a1, &err), 0);
	assert_non_null(opt_value(&a1, "-icount", "shift=auto,rr=record"));
	assert_non_null(opt_value(&a1, "-device", "virtserialport,bus=vser0.0,chardev=port2,name=netlab.status"));
	assert_true(qemu_rr_ports(&c, 1));
	c.qemu_version = 70222;
	assert_false(qemu_rr_ports(&c, 1));
	assert_true(qemu_rr_ports(&c, 0));
	argv_release(&a1);
}

/* The version of a binary that prints what QEMU prints, and of none. */
static void test_qemu__version_from_its_output(void **state)
{
	char dir[] = "/tmp/netlab-qv-XXXXXX", *bin, *text = NULL;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	bin = xasprintf("%s/qemu-system-x86_64", dir);
	f = fopen(bin, "w");
	assert_non_null(f);
	fputs("#!/bin/sh\necho 'QEMU emulator version 10.0.2 (Debian 1:10.0.2+ds-2+deb13u1~bpo12+1)'\n"
	      "echo 'Copyright (c) 2003-2025 Fabrice Bellard and the QEMU Project developers'\n", f);
	fclose(f);
	assert_int_equal(chmod(bin, 0755), 0);
	assert_int_equal(vm_qemu_version(bin, &text), 100002);
	assert_string_equal(text, "10.0.2");
	free(text);
	assert_int_equal(vm_qemu_version(bin, NULL), 100002);	/* cached */
	assert_int_equal(vm_qemu_version("/nonexistent/qemu", &text), 0);
	assert_null(text);
	unlink(bin);
	rmdir(dir);
	free(bin);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qemu__always_no_reboot_and_panic_reboots),
		cmocka_unit_test(test_qemu__accel_tcg_and_kvm),
		cmocka_unit_test(test_qemu__rejects_unresolved_accel),
		cmocka_unit_test(test_qemu__icount_only_when_asked_and_only_with_tcg),
		cmocka_unit_test(test_qemu__loop_wires_two_nics_on_one_hub_with_pcaps),
		cmocka_unit_test(test_qemu__hub_nics_get_frames_in_order),
		cmocka_unit_test(test_qemu__captures_keep_snaplen_bytes),
		cmocka_unit_test(test_qemu__nic_models_are_selectable),
		cmocka_unit_test(test_qemu__model_for_missing_nic_is_rejected),
		cmocka_unit_test(test_qemu__named_ports_backed_by_run_dir_files),
		cmocka_unit_test(test_qemu__extra_append_follows_base),
		cmocka_unit_test(test_qemu__topology_none_has_no_nics),
		cmocka_unit_test(test_job__lists_nics_with_netns_and_addresses),
		cmocka_unit_test(test_qemu__pair_puts_one_nic_in_each_vm_over_unix_dgram),
		cmocka_unit_test(test_argv__shell_rendering_quotes_what_needs_it),
		cmocka_unit_test(test_qemu__gdbstub_on_unix_socket_paused_with_nokaslr),
		cmocka_unit_test(test_qemu__no_gdbstub_no_pause_no_nokaslr_by_default),
		cmocka_unit_test(test_qemu__gdbstub_only_on_the_chosen_vm_of_a_pair),
		cmocka_unit_test(test_qemu__record_icount_log_snapshot_disk_and_netdev_filters),
		cmocka_unit_test(test_qemu__replay_uses_given_log_and_disk_and_needs_tcg),
		cmocka_unit_test(test_qemu__record_only_the_chosen_vm_of_a_pair),
		cmocka_unit_test(test_qemu__version_from_its_output),
	};

	return cmocka_run_group_tests_name("qemu", tests, NULL, NULL);
}
