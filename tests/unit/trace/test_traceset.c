// SPDX-License-Identifier: GPL-2.0
/* Tracing sets: catalog, add/drop, user probes, offsets, guest script. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "trace/traceset.h"
#include "lib/util.h"

static bool has(const struct traceset *ts, const char *name)
{
	for (size_t i = 0; i < ts->n; i++)
		if (!strcmp(ts->ev[i].name, name))
			return true;
	return false;
}

static const struct trace_event *get(const struct traceset *ts, const char *name)
{
	for (size_t i = 0; i < ts->n; i++)
		if (!strcmp(ts->ev[i].name, name))
			return &ts->ev[i];
	fail_msg("no %s in the set", name);
	return NULL;
}

static void test_traceset__default_set_follows_the_packet_path(void **state)
{
	struct traceset ts;

	traceset_build(NULL, NULL, NULL, NULL, NULL, 0, &kernel_offsets_default, &ts);
	/* The stages tracing.md names, receive and transmit, and the drops. */
	static const char *const want[] = {
		"skb:kfree_skb", "skb:consume_skb", "skb:skb_copy_datagram_iovec",
		"net:napi_gro_receive_entry", "net:netif_receive_skb", "net:net_dev_queue",
		"net:net_dev_start_xmit", "net:net_dev_xmit", "napi:napi_poll",
		"irq:softirq_entry", "netlab:ip_local_deliver", "netlab:tcp_v4_rcv",
		"netlab:udp_rcv", "netlab:skb_copy_csum", "netlab:tcp_sendmsg",
		"netlab:udp_sendmsg", "netlab:udp_consume", "netlab:tcp_recvmsg", "netlab:ip_output",
		"netlab:drv",
	};
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		assert_true(has(&ts, want[i]));
	assert_false(has(&ts, "netlab:ip_rcv"));
	/* UDP's recvmsg and copy are one event, netlab:udp_consume. */
	assert_false(has(&ts, "netlab:udp_recvmsg"));
	assert_false(has(&ts, "netlab:udp_recv_skb"));
	assert_string_equal(get(&ts, "irq:softirq_raise")->filter, "vec == 2 || vec == 3");
	assert_null(get(&ts, "skb:kfree_skb")->probe);
	/* Every kprobe event carries the skb (or the socket) it saw. */
	for (size_t i = 0; i < ts.n; i++)
		if (ts.ev[i].probe)
			assert_true(strstr(ts.ev[i].probe, " skb=$arg") || strstr(ts.ev[i].probe, " sk=$arg1") ||
				    strstr(ts.ev[i].probe, " skb=$retval"));
	/* The IPv4 header and the socket (default offsets) as whole 8-byte words. */
	assert_string_equal(get(&ts, "netlab:udp_consume")->probe,
			    "p:netlab/udp_consume skb_consume_udp sk=$arg1:x64 skc0=+0($arg1):x64 "
			    "skc8=+8($arg1):x64 skc16=+16($arg1):x64 "
			    "skb=$arg2:x64 len=$arg3:s32");
	assert_string_equal(get(&ts, "netlab:ip_local_deliver")->probe,
			    "p:netlab/ip_local_deliver ip_local_deliver skb=$arg1:x64 len=+104($arg1):u32 "
			    "ip0=+0(+200($arg1)):x64 ip8=+8(+200($arg1)):x64 "
			    "ip16=+16(+200($arg1)):x64 ip32=+32(+200($arg1)):x64");
	traceset_release(&ts);
	traceset_build("netlab:udp_recv_skb", NULL, NULL, NULL, NULL, 0, &kernel_offsets_default, &ts);
	assert_string_equal(get(&ts, "netlab:udp_recv_skb")->probe,
			    "r:netlab/udp_recv_skb __skb_recv_udp skb=$retval:x64");
	traceset_release(&ts);
}

static void test_traceset__kprobes_take_the_kernels_offsets(void **state)
{
	struct kernel_offsets o = kernel_offsets_default;
	struct traceset ts;

	o.skb_data = 208;
	o.skb_len = 112;
	o.sk_family = 18;
	traceset_build("netlab:ip_output netlab:tcp_sendmsg", NULL, NULL, NULL, NULL, 0, &o, &ts);
	assert_int_equal(ts.n, 2);
	assert_string_equal(ts.ev[0].probe,
			    "p:netlab/ip_output ip_output skb=$arg3:x64 len=+112($arg3):u32 "
			    "ip0=+0(+208($arg3)):x64 ip8=+8(+208($arg3)):x64 "
			    "ip16=+16(+208($arg3)):x64 ip32=+32(+208($arg3)):x64");
	/* sock_common not laid out as since 2.6: a field each, at the kernel's offsets. */
	assert_string_equal(ts.ev[1].probe,
			    "p:netlab/tcp_sendmsg tcp_sendmsg sk=$arg1:x64 family=+18($arg1):u16 "
			    "saddr=+4($arg1):u32 daddr=+0($arg1):u32 sport=+14($arg1):u16 "
			    "dport=+12($arg1):u16 size=$arg3:u64");
	traceset_release(&ts);
}

static void test_traceset__add_drop_and_user_probes(void **state)
{
	char *names[] = { "tcp_ack" }, *defs[] = { "tcp_ack skb=$arg2:x64 flag=$arg3:s32" };
	struct traceset ts;
	size_t n_default;

	traceset_build(NULL, NULL, NULL, NULL, NULL, 0, &kernel_offsets_default, &ts);
	n_default = ts.n;
	traceset_release(&ts);
	traceset_build(NULL, "tcp:tcp_probe netlab:ip_rcv skb:kfree_skb",
		       "irq:irq_handler_entry netlab:ip_output not:there", names, defs, 1,
		       &kernel_offsets_default, &ts);
	/* +2 added (kfree_skb was there), +1 probe, -2 dropped (not:there was not). */
	assert_int_equal(ts.n, n_default + 2 + 1 - 2);
	assert_true(has(&ts, "tcp:tcp_probe"));
	assert_string_equal(get(&ts, "netlab:ip_rcv")->probe, "p:netlab/ip_rcv ip_rcv skb=$arg1:x64");
	assert_string_equal(get(&ts, "netlab:tcp_ack")->probe,
			    "p:netlab/tcp_ack tcp_ack skb=$arg2:x64 flag=$arg3:s32");
	assert_false(has(&ts, "netlab:ip_output"));
	assert_false(has(&ts, "irq:irq_handler_entry"));
	traceset_release(&ts);

	/* The exits are not in the default set; added, softirq_exit keeps its filter. */
	traceset_build(NULL, "irq:softirq_exit irq:irq_handler_exit", NULL, NULL, NULL, 0,
		       &kernel_offsets_default, &ts);
	assert_int_equal(ts.n, n_default + 2);
	assert_string_equal(get(&ts, "irq:softirq_exit")->filter, "vec == 2 || vec == 3");
	assert_null(get(&ts, "irq:irq_handler_exit")->filter);
	traceset_release(&ts);
	traceset_build(NULL, NULL, NULL, NULL, NULL, 0, &kernel_offsets_default, &ts);
	assert_false(has(&ts, "irq:softirq_exit"));
	assert_false(has(&ts, "irq:irq_handler_exit"));
	traceset_release(&ts);

	/* `events` replaces the default set. */
	traceset_build("skb:kfree_skb", NULL, NULL, NULL, NULL, 0, &kernel_offsets_default, &ts);
	assert_int_equal(ts.n, 1);
	traceset_release(&ts);
}

static void test_traceset__probe_definitions_are_checked(void **state)
{
	assert_null(traceset_probe_check("ack", "tcp_ack skb=$arg2:x64 d=+8(%si):u32"));
	assert_null(traceset_probe_check("f", "tcp_fin"));
	assert_non_null(traceset_probe_check("1x", "tcp_ack"));
	assert_non_null(traceset_probe_check("a.b", "tcp_ack"));
	assert_non_null(traceset_probe_check("udp_rcv", "udp_rcv"));
	assert_non_null(traceset_probe_check("netlabx", "udp_rcv"));
	assert_non_null(traceset_probe_check("x", "tcp-ack"));
	assert_non_null(traceset_probe_check("x", "tcp_ack a='b'"));
	assert_non_null(traceset_probe_check("x", "tcp_ack a=`id`"));
	assert_non_null(traceset_probe_check("x", "tcp_ack a=1;reboot"));
	assert_true(traceset_spec_ok("net:*"));
	assert_false(traceset_spec_ok("net"));
	assert_false(traceset_spec_ok("a:b:c"));
	assert_true(traceset_is_catalogued("netlab:udp_rcv"));
	assert_false(traceset_is_catalogued("netlab:udp_recv"));
}

static void test_traceset__buffer_is_small_whatever_the_set(void **state)
{
	struct traceset ts;

	/* The reader streams it: 1 MB for one event or the whole default set. */
	traceset_build("skb:kfree_skb", NULL, NULL, NULL, NULL, 0, &kernel_offsets_default, &ts);
	assert_int_equal(traceset_buffer_kb(&ts, 256, 1), TRACESET_BUFFER_KB);
	assert_int_equal(TRACESET_BUFFER_KB, 1024);
	traceset_release(&ts);
	traceset_build(NULL, NULL, NULL, NULL, NULL, 0, &kernel_offsets_default, &ts);
	assert_true(ts.n > 20);
	assert_int_equal(traceset_buffer_kb(&ts, 1024, 1), TRACESET_BUFFER_KB);
	/* Never more than an eighth of the guest's memory, over its CPUs. */
	assert_int_equal(traceset_buffer_kb(&ts, 8, 2), 8 * 1024 / 8 / 2);
	traceset_release(&ts);
}

static void test_traceset__script_defines_probes_then_records(void **state)
{
	struct traceset ts;
	struct sbuf b;
	char *s, *probe, *rec;

	traceset_build("skb:kfree_skb netlab:udp_rcv irq:softirq_entry", NULL, NULL, NULL, NULL, 0,
		       &kernel_offsets_default, &ts);
	sbuf_init(&b);
	traceset_script_start(&ts, 2048, &b);
	s = sbuf_detach(&b);
	probe = strstr(s, "echo 'p:netlab/udp_rcv udp_rcv skb=$arg1:x64' >> $KE");
	/* No netlab:drv: an instance, so the top buffer (and trace_printk) stays off. */
	rec = strstr(s, "trace-cmd record --file-version 6 -B netlab -b 2048 -e skb:kfree_skb "
			"-e netlab:udp_rcv -e irq:softirq_entry -f 'vec == 2 || vec == 3' -o $O/trace.dat");
	assert_non_null(probe);
	assert_non_null(rec);
	assert_true(probe < rec);
	/* A probe the kernel refuses is a setup error naming it and the kernel's reason. */
	assert_non_null(strstr(s, "refused kprobe event netlab:udp_rcv: $(tail -n 2 /sys/kernel/tracing/error_log"));
	assert_non_null(strstr(s, "until grep -q . /sys/kernel/tracing/instances/netlab/set_event"));
	free(s);
	traceset_release(&ts);

	/* With the driver lines: the top buffer, and netlab:drv is no -e. */
	traceset_build("skb:kfree_skb netlab:drv", NULL, NULL, NULL, NULL, 0, &kernel_offsets_default, &ts);
	assert_true(traceset_has_drv_lines(&ts));
	sbuf_init(&b);
	traceset_script_start(&ts, 2048, &b);
	s = sbuf_detach(&b);
	assert_non_null(strstr(s, "DRVEV=; [ -d /sys/kernel/tracing/events/netlab_drv ] && "
				  "DRVEV=' -e netlab_drv'\n"));
	assert_non_null(strstr(s, "trace-cmd record --file-version 6 -b 2048$DRVEV -e skb:kfree_skb -o $O/trace.dat"));
	assert_non_null(strstr(s, "until grep -q . /sys/kernel/tracing/set_event"));
	free(s);
	traceset_release(&ts);
}

static void test_traceset__offsets_come_from_the_cache_file_or_defaults(void **state)
{
	char dir[] = "/tmp/netlab-ts.XXXXXX", *img, *cache, *note = NULL;
	struct kernel_offsets o;

	assert_non_null(mkdtemp(dir));
	img = xasprintf("%s/bzImage", dir);
	cache = xasprintf("%s/netlab-offsets", dir);
	/* No vmlinux: the defaults, and a note saying so. */
	kernel_offsets_load(img, &o, &note);
	assert_int_equal(o.skb_data, kernel_offsets_default.skb_data);
	assert_non_null(note);
	assert_non_null(strstr(note, "no vmlinux beside"));
	free(note);
	/* The cache file written from a vmlinux, in field order. */
	assert_int_equal(file_writef(cache, "208\n112\n0\n4\n12\n14\n18\n"), 0);
	kernel_offsets_load(img, &o, &note);
	assert_null(note);
	assert_string_equal(o.source, "cache");
	assert_int_equal(o.skb_data, 208);
	assert_int_equal(o.skb_len, 112);
	assert_int_equal(o.sk_family, 18);
	/* A damaged cache file is not trusted. */
	assert_int_equal(file_writef(cache, "208\nxyz\n"), 0);
	kernel_offsets_load(img, &o, &note);
	assert_int_equal(o.skb_data, kernel_offsets_default.skb_data);
	free(note);
	unlink(cache);
	rmdir(dir);
	free(img);
	free(cache);
}

/* netlab:drvprobe: the fallback probes of the three drivers, on arguments and returns. */
static void test_traceset__drvprobe_expands_to_the_fallback_probes(void **state)
{
	struct kernel_offsets off = kernel_offsets_default;
	struct traceset ts;
	size_t n = 0;

	off.skb_len = 112;
	assert_true(traceset_is_catalogued(TRACESET_DRVPROBE));
	assert_true(traceset_is_catalogued("netlab:drvprobe_virtio_net"));
	assert_true(traceset_is_catalogued("netlab:drv_e1000e_poll_ret"));
	assert_true(traceset_is_catalogued("netlab:drvprobe_igb"));
	assert_false(traceset_is_catalogued("netlab:drvprobe_ixgbe"));
	assert_false(traceset_is_catalogued("netlab:drv_e1000e_nothing"));
	assert_non_null(traceset_probe_check("drv_mine", "e1000_clean"));
	traceset_build("skb:kfree_skb " TRACESET_DRVPROBE, NULL, "netlab:drv_e1000_refill", NULL,
		       NULL, 0, &off, &ts);
	assert_false(has(&ts, TRACESET_DRVPROBE)); /* a pseudo event: only its probes */
	assert_false(has(&ts, "netlab:drv_e1000_refill"));
	assert_string_equal(get(&ts, "netlab:drv_e1000e_poll")->probe,
			    "p:netlab/drv_e1000e_poll e1000e_poll napi=$arg1:x64 budget=$arg2:s32");
	assert_string_equal(get(&ts, "netlab:drv_e1000e_poll_ret")->probe,
			    "r:netlab/drv_e1000e_poll_ret e1000e_poll work=$retval:s32");
	assert_string_equal(get(&ts, "netlab:drv_virtio_net_xmit")->probe,
			    "p:netlab/drv_virtio_net_xmit start_xmit skb=$arg1:x64 len=+112($arg1):u32");
	assert_string_equal(get(&ts, "netlab:drv_e1000_poll")->func, "e1000_clean");
	assert_string_equal(get(&ts, "netlab:drv_e1000e_irq_msix")->driver, "e1000e");
	for (size_t i = 0; i < ts.n; i++) {
		if (!ts.ev[i].driver)
			continue;
		n++;
		/* only arguments, return values and skb->len: no other struct offset */
		assert_null(strstr(ts.ev[i].probe, "+0("));
		assert_null(ts.ev[i].addr);
	}
	assert_int_equal(n, 27); /* e1000 5 + e1000e 9 + virtio_net 7 + igb 7 - the refill excluded */
	assert_string_equal(get(&ts, "netlab:drv_igb_refill")->probe,
			    "p:netlab/drv_igb_refill igb_alloc_rx_buffers want=$arg2:u16");
	traceset_release(&ts);
	/* One driver's. */
	traceset_build("netlab:drvprobe_virtio_net", NULL, NULL, NULL, NULL, 0, &off, &ts);
	assert_int_equal(ts.n, 7);
	for (size_t i = 0; i < ts.n; i++)
		assert_string_equal(ts.ev[i].driver, "virtio_net");
	traceset_release(&ts);
}

/* e1000 and e1000e share static names: the copy nearest the driver's poll, by registers. */
static void test_traceset__ambiguous_functions_get_the_drivers_address(void **state)
{
	char dir[] = "/tmp/netlab-ts.XXXXXX", *map;
	struct traceset ts;

	assert_non_null(mkdtemp(dir));
	map = xasprintf("%s/System.map", dir);
	/* From the unpatched 6.1.192 kernel's System.map. */
	assert_int_equal(file_writef(map, "ffffffff8124be40 t e1000_intr\n"
					  "ffffffff8124c5b8 t e1000_clean\n"
					  "ffffffff8124d77b t e1000_xmit_frame\n"
					  "ffffffff8126ac1f t e1000_xmit_frame\n"
					  "ffffffff8126c15c t e1000_intr\n"
					  "ffffffff8126c2a2 t e1000_intr_msi\n"
					  "ffffffff8126dfce t e1000e_poll\n"
					  "ffffffff8126dfd0 d e1000_intr\n"),
			 0);
	traceset_build("netlab:drvprobe_e1000e netlab:drvprobe_e1000", NULL, NULL, NULL, NULL, 0,
		       &kernel_offsets_default, &ts);
	assert_int_equal(traceset_drvprobe_resolve(&ts, map), 0);
	assert_string_equal(get(&ts, "netlab:drv_e1000e_irq")->addr, "ffffffff8126c15c");
	assert_string_equal(get(&ts, "netlab:drv_e1000_irq")->addr, "ffffffff8124be40");
	assert_string_equal(get(&ts, "netlab:drv_e1000e_xmit")->addr, "ffffffff8126ac1f");
	assert_string_equal(get(&ts, "netlab:drv_e1000_xmit")->addr, "ffffffff8124d77b");
	/* at an address the kernel takes no $argN: the x86_64 argument registers */
	assert_string_equal(get(&ts, "netlab:drv_e1000e_xmit")->probe,
			    "p:netlab/drv_e1000e_xmit e1000_xmit_frame skb=%di:x64 len=+104(%di):u32");
	/* unique names, and names System.map lacks, stay names */
	assert_null(get(&ts, "netlab:drv_e1000e_irq_msi")->addr);
	assert_null(get(&ts, "netlab:drv_e1000e_poll")->addr);
	assert_null(get(&ts, "netlab:drv_e1000e_rx")->addr);
	assert_int_equal(traceset_drvprobe_resolve(&ts, "/nonexistent/System.map"), -ENOENT);
	traceset_release(&ts);
	unlink(map);
	rmdir(dir);
	free(map);
}

/* The guest defines a fallback probe only where the kernel has it: never a setup error. */
static void test_traceset__fallback_probes_are_defined_conditionally(void **state)
{
	struct traceset ts;
	struct sbuf b;
	char *s;

	traceset_build("skb:kfree_skb netlab:udp_rcv netlab:drvprobe_e1000e", NULL, NULL, NULL,
		       NULL, 0, &kernel_offsets_default, &ts);
	for (size_t i = 0; i < ts.n; i++)
		if (!strcmp(ts.ev[i].name, "netlab:drv_e1000e_irq"))
			ts.ev[i].addr = xstrdup("ffffffff8126c15c");
	sbuf_init(&b);
	traceset_script_start(&ts, 2048, &b);
	s = sbuf_detach(&b);
	assert_non_null(strstr(s, "drvprobe e1000e netlab:drv_e1000e_poll p:netlab/drv_e1000e_poll "
				  "e1000e_poll '' 'napi=$arg1:x64 budget=$arg2:s32'\n"));
	assert_non_null(strstr(s, "drvprobe e1000e netlab:drv_e1000e_irq p:netlab/drv_e1000e_irq "
				  "e1000_intr 'ffffffff8126c15c' 'irq=$arg1:s32'\n"));
	/* refused: left out, and only those defined are recorded */
	assert_non_null(strstr(s, "\techo \"$3 $at $6\" >> $KE 2>/dev/null || return 0\n"));
	assert_non_null(strstr(s, "\tDP=\"$DP -e $2\""));
	assert_null(strstr(s, "refused kprobe event netlab:drv_"));
	assert_non_null(strstr(s, "refused kprobe event netlab:udp_rcv"));
	/* an address is used only when /proc/kallsyms has that function there */
	assert_non_null(strstr(s, "KS=$(grep -wE 'e1000_intr' /proc/kallsyms)"));
	assert_non_null(strstr(s, "grep -q \"^$5 [tT] $4\\$\" || return 0"));
	assert_non_null(strstr(s, "-e skb:kfree_skb -e netlab:udp_rcv $DP -o $O/trace.dat"));
	assert_null(strstr(s, "-e netlab:drv_"));
	assert_non_null(strstr(s, "> $O/drvprobe.txt"));
	assert_null(strstr(s, "printk_formats"));
	free(s);
	/* Unknown kernel: leave out the drivers that print netlab_drv lines. */
	ts.drvprobe_unless_lines = true;
	sbuf_init(&b);
	traceset_script_start(&ts, 2048, &b);
	s = sbuf_detach(&b);
	assert_non_null(strstr(s, "for d in e1000 e1000e virtio_net igb; do { [ -d "
				  "/sys/kernel/tracing/events/netlab_drv/${d}_poll_start ] || grep -q "
				  "\"netlab_drv: $d \" /sys/kernel/tracing/printk_formats; }"));
	assert_non_null(strstr(s, "case \" $DPSKIP \" in *\" $1 \"*) return 0;; esac"));
	free(s);
	traceset_release(&ts);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_traceset__default_set_follows_the_packet_path),
		cmocka_unit_test(test_traceset__kprobes_take_the_kernels_offsets),
		cmocka_unit_test(test_traceset__add_drop_and_user_probes),
		cmocka_unit_test(test_traceset__probe_definitions_are_checked),
		cmocka_unit_test(test_traceset__buffer_is_small_whatever_the_set),
		cmocka_unit_test(test_traceset__script_defines_probes_then_records),
		cmocka_unit_test(test_traceset__offsets_come_from_the_cache_file_or_defaults),
		cmocka_unit_test(test_traceset__drvprobe_expands_to_the_fallback_probes),
		cmocka_unit_test(test_traceset__ambiguous_functions_get_the_drivers_address),
		cmocka_unit_test(test_traceset__fallback_probes_are_defined_conditionally),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
