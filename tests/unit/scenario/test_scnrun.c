// SPDX-License-Identifier: GPL-2.0
/* The guest scripts netlab regress generates from a scenario. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "run/run.h"
#include "scenario/scnrun.h"

#ifndef FIXTURES
#define FIXTURES "tests/unit/fixtures"
#endif

static char *script_for_kernel(const char *fixture, const char *topology, unsigned int vm,
			       const char *kernel);

static char *script_for(const char *fixture, const char *topology, unsigned int vm)
{
	return script_for_kernel(fixture, topology, vm, NULL);
}

static char *script_for_kernel(const char *fixture, const char *topology, unsigned int vm,
			       const char *kernel)
{
	char *path = xasprintf("%s/scenarios/%s", FIXTURES, fixture), *err = NULL;
	struct scenario *s = NULL;
	struct vm_config cfg;
	struct run_opts o;
	struct sbuf b;

	if (scn_parse(path, &s, &err))
		fail_msg("%s", err);
	run_opts_init(&o);
	o.topology = topology ? topology : s->topo->name;
	o.kernel = kernel;
	for (int i = 0; i < VM_MAX_NICS; i++)
		o.nic_model[i] = s->nic_model[i] ? s->nic_model[i]->name : NULL;
	assert_int_equal(run_config(&o, &cfg, &err), 0);
	sbuf_init(&b);
	assert_int_equal(scnrun_script(s, &cfg, vm, &b, &err), 0);
	scn_free(s);
	free(path);
	return sbuf_detach(&b);
}

static void expect(const char *script, const char *needle)
{
	if (!strstr(script, needle))
		fail_msg("script lacks '%s':\n%s", needle, script);
}

static void expect_not(const char *script, const char *needle)
{
	if (strstr(script, needle))
		fail_msg("script has '%s':\n%s", needle, script);
}

static void test_scnrun__loop_sets_rings_qdiscs_and_runs_both_ends(void **state)
{
	char *s = script_for("good-udp.scn", NULL, 0);

	/* Rings set, then verified against what the driver really did. */
	expect(s, "/usr/sbin/ethtool -G ethA rx 256");
	expect(s, "/usr/sbin/ethtool -G ethA tx 512");
	expect(s, "got=$(/usr/sbin/ethtool -g ethA");
	expect(s, "/sbin/tc qdisc replace dev ethA root netem loss 1%");
	expect(s, "/sbin/ip netns exec b /sbin/tc qdisc replace dev ethB root pfifo limit 5");
	/* Counters snapshot around the traffic, per namespace. */
	expect(s, "/sbin/ip netns exec b cat /proc/net/snmp > $d/snmp-B");
	expect(s, "snap before\n");
	expect(s, "snap after\n");
	/* dst-ipv6 picks the address family; receiver options go to the receiver only. */
	expect(s, "/sbin/ip netns exec b udp-stream --recv --bind 2001:2::2");
	expect(s, "udp-stream --send --dst 2001:2::2 --rate 20000 --size 1200 --duration 5");
	expect(s, "wait_port udp6 5201 $R");
	expect_not(s, "--dst-ipv6");
	expect_not(s, "nc -l");
	/*
	 * [trace] on by default: the packet-path set, netlab's kprobe events
	 * defined first (with the default 6.1 offsets: no kernel given here),
	 * softirq events filtered to NET_TX/NET_RX, recorded around the
	 * traffic only.
	 */
	expect(s, "echo 'p:netlab/ip_local_deliver ip_local_deliver skb=$arg1:x64 len=+104($arg1):u32 "
		  "ip0=+0(+200($arg1)):x64 ip8=+8(+200($arg1)):x64 ip16=+16(+200($arg1)):x64 "
		  "ip32=+32(+200($arg1)):x64'");
	expect(s, "echo 'p:netlab/udp_sendmsg udp_sendmsg sk=$arg1:x64 skc0=+0($arg1):x64 "
		  "skc8=+8($arg1):x64 skc16=+16($arg1):x64 ");
	expect(s, "trace-cmd record --file-version 6 -b 1024$DRVEV -e skb:kfree_skb -e skb:consume_skb");
	expect(s, " -e irq:softirq_entry -f 'vec == 2 || vec == 3'");
	expect(s, " -e netlab:ip_local_deliver");
	expect(s, " -o $O/trace.dat");
	expect(s, "echo 'netlab: no kernel image named: kprobe fetch offsets are netlab'\\''s defaults");
	expect(s, "kill -INT $T; wait $T; note trace-cmd.status $?\nsnap after");
	free(s);
}

/*
 * [traffic.NAME] sections: every receiver first, each waited for on its own
 * port; the senders at once in the background, after their start; each
 * section's outputs under $O/NAME/; the worst status of each side kept.
 */
static void test_scnrun__named_sections_run_at_once_each_in_its_directory(void **state)
{
	char *s = script_for("good-mixed.scn", NULL, 0), *r_bulk, *r_dgram, *p_bulk, *w;

	r_bulk = strstr(s, "tcp-stream --recv --bind 198.18.0.2 > $O/bulk/recv.json 2> $O/bulk/recv.json.err &\nR0=$!\n");
	expect(s, "wait_port tcp 5201 $R0 || { echo \"receiver did not bind\" >> $O/bulk/recv.json.err; exit 4; }");
	/* dgram goes B>A (the scenario's direction): its receiver binds A's address. */
	r_dgram = strstr(s, "udp-stream --recv --bind 198.18.0.1 --port 5301 --idle-timeout 20 > $O/dgram/recv.json");
	expect(s, "wait_port udp 5301 $R1");
	expect(s, "wait_port udp 5202 $R2");
	p_bulk = strstr(s, "tcp-stream --send --dst 198.18.0.2 --duration 3 > $O/bulk/send.json 2> $O/bulk/send.json.err &\nP0=$!\n");
	expect(s, "( sleep 0.5; exec /sbin/ip netns exec b udp-stream --send --dst 198.18.0.1 --rate 2000 --size 1000 --port 5301 --duration 3 > $O/dgram/send.json 2> $O/dgram/send.json.err ) &\nP1=$!\n");
	expect(s, "( sleep 1; exec ");
	expect(s, "rr --client --dst 198.18.0.1");
	assert_non_null(r_bulk);
	assert_non_null(r_dgram);
	assert_non_null(p_bulk);
	assert_true(r_bulk < r_dgram && r_dgram < p_bulk);
	w = strstr(s, "wait $P0\nX=$?\n[ $X = 2 ] && setup_error \"[traffic.bulk]: $(head -n 2 $O/bulk/send.json.err)\"\nS=$(worse $S $X)\n");
	assert_non_null(w);
	expect(s, "wait $R2\nX=$?\n[ $X = 2 ] && setup_error \"[traffic.rr2]: $(head -n 2 $O/rr2/server.json.err)\"\nRC=$(worse $RC $X)\n");
	expect(s, "note traffic.status $S $RC\n");
	expect_not(s, "> $O/send.json");
	free(s);
}

/* In the pair, each VM runs its ends of every section; both sides wait for the other's receivers. */
static void test_scnrun__named_sections_in_the_pair(void **state)
{
	char *a = script_for("good-mixed.scn", "pair", 0);
	char *b = script_for("good-mixed.scn", "pair", 1);

	/* bulk A>B: its sender in a, receiver in b; dgram and rr2 B>A: the other way. */
	expect(a, "tcp-stream --send --dst 198.18.0.2");
	expect(a, "udp-stream --recv --bind 198.18.0.1");
	expect(a, "nc -l -p 7999");
	expect(a, "until nc -w 1 198.18.0.2 7999");
	expect_not(a, "tcp-stream --recv");
	expect(b, "tcp-stream --recv --bind 198.18.0.2 --idle-timeout 30 > $O/bulk/recv.json");
	expect(a, "udp-stream --recv --bind 198.18.0.1 --port 5301 --idle-timeout 30 > $O/dgram/recv.json");
	expect(b, "udp-stream --send --dst 198.18.0.1");
	expect(b, "until nc -w 1 198.18.0.1 7999");
	expect_not(b, "udp-stream --recv");
	free(a);
	free(b);
}

static void test_scnrun__pair_splits_sender_and_receiver_with_handshake(void **state)
{
	char *a = script_for("good-minimal.scn", "pair", 0);
	char *b = script_for("good-minimal.scn", "pair", 1);

	expect(a, "until nc -w 1 198.18.0.2 7999");
	expect(a, "udp-stream --send --dst 198.18.0.2");
	expect_not(a, "--recv");
	expect_not(a, "snmp-B");
	expect(a, "snmp-A");
	expect(b, "udp-stream --recv --bind 198.18.0.2");
	expect(b, "nc -l -p 7999");
	expect_not(b, "--send");
	expect_not(b, "netns exec");
	expect(b, "snmp-B");
	expect_not(b, "snmp-A");
	free(a);
	free(b);
}

static void test_scnrun__rr_uses_client_server_and_its_port(void **state)
{
	char *s = script_for("good-rr.scn", NULL, 0);

	expect(s, "rr --server");
	expect(s, "rr --client");
	expect(s, "wait_port ");
	expect(s, "client.json");
	free(s);
}

/*
 * The kernel's driver-patches manifest chooses the driver lines or the
 * fallback probes per driver; without a manifest the guest decides from
 * printk_formats.
 */
static void test_scnrun__manifest_chooses_lines_or_fallback_probes(void **state)
{
	char dir[] = "/tmp/netlab-scnrun.XXXXXX", *img, *man, *s;

	assert_non_null(mkdtemp(dir));
	img = xasprintf("%s/bzImage", dir);
	man = xasprintf("%s/driver-patches", dir);
	assert_int_equal(file_writef(img, "not a kernel"), 0);
	/*
	 * All four patched: the lines only, in the top-level buffer, and their
	 * rx_handoff is the hand-off: no napi_gro_receive_entry.
	 */
	assert_int_equal(file_writef(man, "e1000e\ne1000\nvirtio_net\nigb\n"), 0);
	s = script_for_kernel("good-udp.scn", NULL, 0, img);
	expect_not(s, "drvprobe ");
	expect(s, "trace-cmd record --file-version 6 -b 1024$DRVEV -e skb:kfree_skb");
	expect(s, " -e net:netif_receive_skb");
	expect_not(s, "napi_gro_receive_entry");
	free(s);
	/* A kernel cached before igb's series: igb's probes, the others' lines. */
	assert_int_equal(file_writef(man, "e1000e\ne1000\nvirtio_net\n"), 0);
	s = script_for_kernel("good-udp.scn", NULL, 0, img);
	expect(s, "drvprobe igb netlab:drv_igb_poll ");
	expect_not(s, "drvprobe e1000e ");
	expect(s, " -e net:napi_gro_receive_entry");
	free(s);
	/* e1000e not patched (skipped series): its probes, the others' lines. */
	assert_int_equal(file_writef(man, "e1000\nvirtio_net\nigb\n"), 0);
	s = script_for_kernel("good-udp.scn", NULL, 0, img);
	expect(s, "drvprobe e1000e netlab:drv_e1000e_poll ");
	expect_not(s, "drvprobe e1000 ");
	expect_not(s, "drvprobe virtio_net ");
	expect_not(s, "printk_formats");
	expect(s, "trace-cmd record --file-version 6 -b 1024$DRVEV -e skb:kfree_skb");
	expect(s, " $DP -o $O/trace.dat");
	expect(s, " -e net:napi_gro_receive_entry");
	free(s);
	/* DRIVER_PATCHES=none (an empty manifest): probes for all, no top buffer. */
	assert_int_equal(file_write(man, "", 0), 0);
	s = script_for_kernel("good-udp.scn", NULL, 0, img);
	expect(s, "drvprobe e1000e netlab:drv_e1000e_poll ");
	expect(s, "drvprobe e1000 netlab:drv_e1000_poll ");
	expect(s, "drvprobe virtio_net netlab:drv_virtio_net_poll ");
	expect(s, "trace-cmd record --file-version 6 -B netlab -b 1024");
	free(s);
	/* No manifest (older cache, KERNEL=): all, unless the driver prints lines. */
	unlink(man);
	s = script_for_kernel("good-udp.scn", NULL, 0, img);
	expect(s, "drvprobe virtio_net netlab:drv_virtio_net_poll ");
	expect(s, "/sys/kernel/tracing/printk_formats");
	expect(s, "trace-cmd record --file-version 6 -b 1024$DRVEV -e skb:kfree_skb");
	free(s);
	unlink(img);
	rmdir(dir);
	free(img);
	free(man);
}

static void test_scnrun__traffic_values_stay_one_shell_word(void **state)
{
	char *s = script_for("good-hostile-values.scn", NULL, 0);

	expect(s, " --rate '1000;reboot'");
	expect(s, " --bitrate '$(reboot)'");
	expect(s, " --count '`reboot`|x'");
	expect(s, " --size 32 --size-max '1472'\\''&&reboot'");
	expect_not(s, " 1000;reboot");
	free(s);
}

static void test_scnrun__direction_b_to_a_sends_from_b_and_sets_mtu(void **state)
{
	char *s = script_for("good-direction-mtu.scn", NULL, 0);

	/* B (netns b) sends to A's address; A receives, bound to its own. */
	expect(s, "/sbin/ip netns exec b udp-stream --send --dst 198.18.0.1");
	expect(s, "udp-stream --recv --bind 198.18.0.1");
	expect_not(s, "--dst 198.18.0.2");
	expect(s, "/sbin/ip link set dev ethA mtu 9000");
	expect(s, "/sbin/ip netns exec b /sbin/ip link set dev ethB mtu 9000");
	free(s);
}

/* rr follows direction like the stream generators: B>A makes B the client. */
static void test_scnrun__rr_direction_b_to_a_runs_the_client_in_b(void **state)
{
	char *s = script_for("good-rr-b-to-a.scn", NULL, 0);

	expect(s, "/sbin/ip netns exec b rr --client --dst 198.18.0.1 --proto udp");
	expect(s, "rr --server --bind 198.18.0.1 --proto udp");
	expect(s, "wait_port udp 5202 $R");
	expect_not(s, "--dst 198.18.0.2");
	expect_not(s, "netns exec b rr --server");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scnrun__loop_sets_rings_qdiscs_and_runs_both_ends),
		cmocka_unit_test(test_scnrun__pair_splits_sender_and_receiver_with_handshake),
		cmocka_unit_test(test_scnrun__rr_uses_client_server_and_its_port),
		cmocka_unit_test(test_scnrun__manifest_chooses_lines_or_fallback_probes),
		cmocka_unit_test(test_scnrun__traffic_values_stay_one_shell_word),
		cmocka_unit_test(test_scnrun__direction_b_to_a_sends_from_b_and_sets_mtu),
		cmocka_unit_test(test_scnrun__rr_direction_b_to_a_runs_the_client_in_b),
		cmocka_unit_test(test_scnrun__named_sections_run_at_once_each_in_its_directory),
		cmocka_unit_test(test_scnrun__named_sections_in_the_pair),
	};

	return cmocka_run_group_tests_name("scnrun", tests, NULL, NULL);
}
