// SPDX-License-Identifier: GPL-2.0
/*
 * Scenario files: every key parsed, every error path with its exact
 * FILE:LINE. The fixtures are the .scn files in tests/unit/fixtures/scenarios:
 * FIXTURES/scenarios when the build defines FIXTURES (the Makefile passes
 * -DFIXTURES=\"$(CURDIR)/tests/unit/fixtures\"), else found next to this
 * source file through __FILE__.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/esc.h"
#include "scenario/check.h"
#include "scenario/scenario.h"
#include "lib/util.h"

static char *fixture(const char *name)
{
#ifdef FIXTURES
	return xasprintf("%s/scenarios/%s", FIXTURES, name);
#else
	const char *slash = strrchr(__FILE__, '/');
	int dirlen = slash ? (int)(slash - __FILE__) : 1;

	return xasprintf("%.*s/fixtures/scenarios/%s", dirlen, slash ? __FILE__ : ".", name);
#endif
}

static struct scenario *parse_ok(const char *name)
{
	char *path = fixture(name), *err = NULL;
	struct scenario *s = NULL;

	if (scn_parse(path, &s, &err))
		fail_msg("%s", err);
	assert_null(err);
	free(path);
	return s;
}

/* line 0: an error about the whole file, "PATH: message". */
static void expect_error(const char *name, unsigned int line, const char *msg)
{
	char *path = fixture(name), *err = NULL, *want;
	struct scenario *s = NULL;

	assert_int_equal(scn_parse(path, &s, &err), -EINVAL);
	assert_null(s);
	want = line ? xasprintf("%s:%u: %s", path, line, msg) : xasprintf("%s: %s", path, msg);
	assert_non_null(err);
	assert_string_equal(err, want);
	free(want);
	free(err);
	free(path);
}

/* [traffic.NAME]: several generators, each with its options, direction and start. */
static void test_scenario__named_traffic_sections_parse(void **state)
{
	struct scenario *s = parse_ok("good-mixed.scn"), v;

	assert_int_equal(s->n_sections, 3);
	assert_int_equal(scn_n_traffic(s), 3);
	assert_string_equal(scn_traffic_name(s, 0), "bulk");
	assert_string_equal(s->sections[1].generator, "udp-stream");
	assert_string_equal(s->sections[2].generator, "rr");
	/* direction: the section's, else the scenario's (B>A). */
	assert_int_equal(s->sections[0].direction, SCN_DIR_AB);
	assert_int_equal(s->sections[1].direction, SCN_DIR_BA);
	assert_true(scn_traffic_start(s, 1) == 0.5);
	assert_true(scn_traffic_start(s, 2) == 1);
	/* The scenario's own generator fields are the first section's. */
	assert_string_equal(s->generator, "tcp-stream");
	assert_int_equal(s->direction, SCN_DIR_AB);
	assert_int_equal(scn_tx_nic(s), 0);
	/* A view of a section: its options, its direction. */
	scn_traffic_view(s, 1, &v);
	assert_string_equal(v.generator, "udp-stream");
	assert_string_equal(scn_traffic_value(&v, "port"), "5301");
	assert_string_equal(scn_traffic_value(&v, "rate"), "2000");
	assert_null(scn_traffic_value(&v, "start"));
	assert_int_equal(scn_tx_nic(&v), 1);
	assert_int_equal(scn_traffic_find(s, "rr2"), 2);
	assert_int_equal(scn_traffic_find(s, "nope"), -1);
	assert_int_equal(scn_traffic_loss_section(s), 1);
	/* rr over UDP shares no port with the UDP stream: 5202 against 5301. */
	assert_true(scn_traffic_first_of_family(s, 0));
	assert_true(scn_traffic_first_of_family(s, 1));
	/* Each section that can stall gets its own no_stall check. */
	assert_string_equal(s->checks[s->n_checks - 2].name, "no_stall_bulk");
	assert_string_equal(check_text(s->checks[s->n_checks - 2].expr),
			    "traffic.bulk.tcp.stalled == 0");
	assert_string_equal(s->checks[s->n_checks - 1].name, "no_stall_rr2");
	scn_free(s);
	/* A plain [traffic] is one section, without a name. */
	s = parse_ok("good-minimal.scn");
	assert_int_equal(s->n_sections, 0);
	assert_int_equal(scn_n_traffic(s), 1);
	assert_null(scn_traffic_name(s, 0));
	scn_free(s);
}

static void test_scenario__named_traffic_sections_errors(void **state)
{
	expect_error("bad-mixed-plain.scn", 4,
		     "[traffic] beside [traffic.bulk] (line 1): a scenario has either one [traffic] or named [traffic.NAME] sections");
	expect_error("bad-mixed-port.scn", 7,
		     "[traffic.three] and [traffic.one] (line 1) both use udp port 5201: give each a port = ...");
	expect_error("bad-mixed-section-metric.scn", 10,
		     "check 'wrong': metric 'traffic.bulk.udp.lost' of [traffic.bulk]: unknown metric 'udp.lost' for generator 'tcp-stream' (its metrics: tcp.{goodput_bps,bytes,retransmits,cwnd,cwnd_min,cwnd_max}, tcp.{rtt_us,rtt_min_us,rtt_max_us}, tcp.{stalled,stall_s,stall_unacked_bytes}, tcp.{flows,fairness_jain,flow_share_min,flow_goodput_min_bps}, tcp.flow.*.{sport,bytes,goodput_bps,retransmits,rtt_us,rx_cpu,tx_cpu})");
	expect_error("bad-mixed-section-name.scn", 6,
		     "check 'wrong': metric 'traffic.blk.tcp.goodput_bps': no section [traffic.blk] (sections: bulk)");
	expect_error("bad-mixed-start.scn", 3,
		     "bad start 'soon' in [traffic.bulk]: expected seconds in 0..3600 (decimals allowed)");
	expect_error("bad-mixed-dup-key.scn", 4,
		     "duplicate key 'port' in [traffic.bulk] (first at line 3)");
	expect_error("bad-mixed-no-generator.scn", 4,
		     "[traffic.empty] has no generator (udp-stream, tcp-stream, rr)");
	/* traffic.all.*: the sums, of counts and rates, of a family some section has */
	expect_error("bad-mixed-all.scn", 1,
		     "bad section name [traffic.all]: traffic.all.* are the sums over every section; name it otherwise");
	expect_error("bad-mixed-all-metric.scn", 7,
		     "check 'wrong': metric 'traffic.all.udp.latency_us.p99': traffic.all.* sums the sections' counts and rates (sent, lost, bytes, goodput_bps, ...), not 'udp.latency_us.p99'");
	expect_error("bad-mixed-all-family.scn", 4,
		     "check 'wrong': metric 'traffic.all.rr.transactions': no section's generator has 'rr.transactions'");
	assert_true(scn_traffic_additive("udp.lost"));
	assert_true(scn_traffic_additive("tcp.goodput_bps"));
	assert_false(scn_traffic_additive("udp.flow.3.lost"));
	assert_false(scn_traffic_additive("tcp.fairness_jain"));
	assert_false(scn_traffic_additive("udp.latency_us.p50"));
}

static void test_scenario__trace_section_and_its_defaults(void **state)
{
	struct scenario *s = parse_ok("good-trace.scn");
	struct scenario *d = parse_ok("good-minimal.scn");

	assert_true(s->trace);
	assert_string_equal(s->trace_events, "skb:kfree_skb net:* napi:napi_poll");
	assert_int_equal(s->trace_buffer_kb, 2048);
	assert_true(d->trace);
	assert_null(d->trace_events);
	assert_int_equal(d->trace_buffer_kb, 0);
	/* A traced scenario boots with raw pointers; an untraced one as given. */
	assert_null(d->append);
	char *a = scn_kernel_append(d);
	assert_string_equal(a, "no_hash_pointers");
	free(a);
	scn_free(s);
	scn_free(d);

	s = parse_ok("good-trace-probes.scn");
	assert_null(s->trace_events);
	assert_string_equal(s->trace_add, "tcp:tcp_probe netlab:ip_rcv");
	assert_string_equal(s->trace_drop, "irq:irq_handler_exit netlab:ip_output");
	assert_int_equal(s->n_trace_probes, 2);
	assert_string_equal(s->trace_probe_names[0], "tcp_ack");
	assert_string_equal(s->trace_probe_defs[0], "tcp_ack skb=$arg2:x64 flag=$arg3:s32");
	assert_string_equal(s->trace_probe_names[1], "rtx");
	assert_string_equal(s->append, "quiet");
	a = scn_kernel_append(s);
	assert_string_equal(a, "quiet no_hash_pointers");
	free(a);
	scn_free(s);

	s = parse_ok("good-trace-off.scn");
	assert_false(s->trace);
	assert_null(scn_kernel_append(s));
	scn_free(s);
}

static void test_scenario__coalesce_keys_collect_ethtool_arguments(void **state)
{
	struct scenario *s = parse_ok("good-coalesce.scn");

	assert_string_equal(s->coalesce[1], "rx-usecs 100 rx-frames 8");
	assert_null(s->coalesce[0]);
	scn_free(s);
	expect_error("bad-coalesce.scn", 3,
		     "unknown key 'coalesce.B.rx-usec' in [scenario] (coalesce keys are coalesce.<LABEL>.PARAM, PARAM one of rx-usecs, rx-frames, tx-usecs, tx-frames and their -irq forms)");
}

static void test_scenario__rejects_bad_trace_event_and_key(void **state)
{
	expect_error("bad-trace-event.scn", 5,
		     "bad event 'netif_receive_skb' in events: expected SYSTEM:EVENT, e.g. skb:kfree_skb, net:* or netlab:udp_rcv");
	expect_error("bad-trace-key.scn", 5,
		     "unknown key 'event' in [trace] (allowed: enabled, events, add, drop, probe.NAME, buffer_kb)");
	expect_error("bad-trace-netlab.scn", 5,
		     "unknown netlab kprobe event 'netlab:ip_recv' in add: netlab defines the netlab:* events listed in README; define your own with probe.NAME = FUNCTION ARGS");
	expect_error("bad-trace-probe.scn", 6,
		     "bad kprobe event probe.ack = 'tcp_ack skb=$arg2:x64;reboot': fetch args may hold letters, digits and _ = $ % + - ( ) @ : . [ ] / only");
	expect_error("bad-trace-probe-name.scn", 5,
		     "bad kprobe event probe.ip_output = 'ip_output': the probe name is one of netlab's own kprobe events: choose another");
}

static void test_scenario__parses_every_key(void **state)
{
	struct scenario *s = parse_ok("good-udp.scn");

	assert_string_equal(s->name, "good-udp");
	assert_string_equal(
		s->description,
		"UDP at a moderate rate through e1000e -> virtio-net; no loss anywhere");
	assert_string_equal(s->topo->name, "loop");
	assert_string_equal(s->labels, "AB");
	assert_string_equal(s->nic_model[0]->name, "e1000e");
	assert_string_equal(s->nic_model[1]->name, "virtio-net");
	assert_null(s->nic_model[2]);
	assert_int_equal(s->ring_rx[0], 256);
	assert_int_equal(s->ring_tx[0], 512);
	assert_int_equal(s->ring_rx[1], 0);
	assert_string_equal(s->append, "e1000e.copybreak=0");
	assert_int_equal(s->duration_s, 5);
	assert_int_equal(s->repeat, 3);
	assert_int_equal(s->timeout_s, 180);
	assert_false(s->deterministic);
	assert_true(s->record);
	assert_int_equal(s->n_sysctl, 2);
	assert_string_equal(s->sysctl[0].key, "net.core.rmem_default");
	assert_string_equal(s->sysctl[0].value, "212992");
	assert_string_equal(s->sysctl[1].value, "4096 87380 6291456");
	assert_int_equal(s->sysctl[1].line, 18);
	assert_string_equal(s->generator, "udp-stream");
	assert_int_equal(s->n_traffic, 3);
	assert_string_equal(s->netem[0], "loss 1%");
	assert_null(s->netem[1]);
	assert_string_equal(s->qdisc[1], "pfifo limit 5");
	assert_int_equal(s->n_checks, 4);
	assert_string_equal(s->checks[0].name, "no_loss");
	assert_string_equal(check_text(s->checks[0].expr), "udp.lost == 0");
	assert_int_equal(s->checks[0].line, 33);
	assert_string_equal(check_subject(s->checks[2].expr), "udp.latency_us.p99");
	scn_free(s);
}

static void test_scenario__indented_line_is_a_key_not_a_continuation(void **state)
{
	struct scenario *s = parse_ok("good-udp.scn");

	/* Line 36 is indented: inih would append it to the check above it. */
	assert_string_equal(s->checks[3].name, "nic_ok");
	assert_int_equal(s->checks[3].line, 36);
	assert_string_equal(check_text(s->checks[2].expr), "udp.latency_us.p99 <= baseline * 1.25");
	scn_free(s);
}

static void test_scenario__defaults(void **state)
{
	struct scenario *s = parse_ok("good-minimal.scn");

	assert_string_equal(s->name, "good-minimal");
	assert_null(s->description);
	assert_string_equal(s->topo->name, "loop");
	assert_int_equal(s->duration_s, 10);
	assert_int_equal(s->repeat, 1);
	assert_int_equal(s->timeout_s, 10 * 4 + 120);
	assert_true(s->deterministic);
	assert_null(s->append);
	assert_null(s->nic_model[0]);
	assert_int_equal(s->n_sysctl, 0);
	scn_free(s);
}

static void test_scenario__timeout_default_follows_duration(void **state)
{
	struct scenario *s = parse_ok("good-tcp.scn");

	assert_int_equal(s->duration_s, 30);
	assert_int_equal(s->timeout_s, 30 * 4 + 120);
	scn_free(s);
}

static char *traffic_args(const char *name)
{
	struct scenario *s = parse_ok(name);
	struct argv a;
	char *sh;

	argv_init(&a);
	scn_traffic_args(s, &a);
	sh = esc_shell_argv(&a);
	argv_release(&a);
	scn_free(s);
	return sh;
}

static void test_scenario__traffic_options_become_arguments(void **state)
{
	char *sh = traffic_args("good-udp.scn");

	assert_string_equal(sh, "--rate 20000 --size 1200 --dst-ipv6");
	free(sh);
	sh = traffic_args("good-tcp.scn");
	assert_string_equal(sh, "--cc cubic"); /* bidir = no: no flag */
	free(sh);
}

static void test_scenario__options_before_generator_are_checked(void **state)
{
	struct scenario *s = parse_ok("good-rr.scn");
	struct argv a;
	char *sh;

	assert_string_equal(s->generator, "rr");
	assert_string_equal(s->nic_model[1]->name, "e1000");
	argv_init(&a);
	scn_traffic_args(s, &a);
	sh = esc_shell_argv(&a);
	assert_string_equal(sh, "--proto udp --req-size 64 --resp-size 1k");
	free(sh);
	argv_release(&a);
	scn_free(s);
}

/* The check netlab adds (line 0, implicit), or NULL. */
static const struct scn_check *implicit_check(const struct scenario *s)
{
	for (size_t i = 0; i < s->n_checks; i++)
		if (s->checks[i].implicit)
			return &s->checks[i];
	return NULL;
}

static void test_scenario__flow_that_can_stall_gets_no_stall_check(void **state)
{
	struct scenario *s = parse_ok("good-tcp.scn");
	const struct scn_check *c = implicit_check(s);

	/* the file's two checks, then netlab's */
	assert_int_equal(s->n_checks, 3);
	assert_non_null(c);
	assert_ptr_equal(c, &s->checks[2]);
	assert_string_equal(c->name, "no_stall");
	assert_string_equal(check_text(c->expr), "tcp.stalled == 0");
	assert_int_equal(c->line, 0);
	scn_free(s);
	s = parse_ok("good-rr.scn");
	c = implicit_check(s);
	assert_non_null(c);
	assert_string_equal(check_text(c->expr), "rr.stalled == 0");
	scn_free(s);
}

static void test_scenario__no_stall_check_for_udp_or_when_the_file_checks_it(void **state)
{
	struct scenario *s = parse_ok("good-udp.scn");

	/* udp-stream's sender never waits: its failures are losses */
	assert_null(implicit_check(s));
	assert_int_equal(s->n_checks, 4);
	scn_free(s);
	s = parse_ok("good-rr-stall-check.scn");
	assert_null(implicit_check(s));
	assert_int_equal(s->n_checks, 1);
	scn_free(s);
}

static void test_scenario__missing_file_is_an_errno(void **state)
{
	char *path = fixture("no-such.scn"), *err = NULL, *want;
	struct scenario *s = NULL;

	assert_int_equal(scn_parse(path, &s, &err), -ENOENT);
	want = xasprintf("%s: No such file or directory", path);
	assert_string_equal(err, want);
	free(want);
	free(err);
	free(path);
}

static void test_scenario__rejects_unknown_section_with_line(void **state)
{
	expect_error(
		"bad-unknown-section.scn", 4,
		"unknown section [trafic] (sections: scenario, sysctl, traffic, netem, qdisc, checks, trace, gdb, matrix, exec)");
}

static void test_scenario__rejects_unknown_key_with_line(void **state)
{
	expect_error(
		"bad-unknown-key.scn", 3,
		"unknown key 'durration' in [scenario] (allowed: description, topology, nic.<LABEL>, ring.<LABEL>.rx, ring.<LABEL>.tx, coalesce.<LABEL>.PARAM, mtu.<LABEL>, direction, append, duration, repeat, timeout, deterministic, record, flavour, mem, snaplen, acpi, share, cpus, cpus.a, cpus.b, queues.<LABEL>, irq.<LABEL>, rps.<LABEL>, xps.<LABEL>, rfs)");
}

static void test_scenario__rejects_duplicate_key(void **state)
{
	expect_error("bad-duplicate-key.scn", 4,
		     "duplicate key 'duration' in [scenario] (first at line 2)");
}

static void test_scenario__rejects_duplicate_check_name(void **state)
{
	expect_error("bad-duplicate-check.scn", 7,
		     "duplicate check 'no_loss' in [checks] (first at line 5)");
}

static void test_scenario__rejects_duplicate_section(void **state)
{
	expect_error("bad-duplicate-section.scn", 7,
		     "duplicate section [scenario] (first at line 1)");
}

static void test_scenario__rejects_bad_number(void **state)
{
	expect_error("bad-number.scn", 2, "bad duration 'five': expected an integer in 1..3600");
}

static void test_scenario__rejects_number_out_of_range(void **state)
{
	expect_error("bad-range.scn", 3, "bad repeat '101': expected an integer in 1..100");
}

static void test_scenario__rejects_bad_bool(void **state)
{
	expect_error("bad-bool.scn", 2,
		     "bad deterministic 'maybe': expected yes/no/true/false/1/0");
}

static void test_scenario__rejects_unknown_nic_model(void **state)
{
	expect_error("bad-model.scn", 3,
		     "unknown NIC model 'rtl8139' (models: e1000, e1000e, virtio-net, igb)");
}

static void test_scenario__rejects_unknown_topology(void **state)
{
	char *want = xasprintf("topology 'ring': unknown topology (topologies: %s)", topology_list());

	expect_error("bad-topology.scn", 2, want);
	free(want);
}

static void test_scenario__rejects_unknown_generator(void **state)
{
	expect_error("bad-generator.scn", 5,
		     "unknown generator 'iperf' (generators: udp-stream, tcp-stream, rr)");
}

static void test_scenario__rejects_option_of_another_generator(void **state)
{
	expect_error(
		"bad-option.scn", 7,
		"unknown option 'rate' for generator 'tcp-stream' (allowed: generator, size, port, cc, bidir, flows, listeners, family)");
}

static void test_scenario__rejects_bad_choice(void **state)
{
	expect_error("bad-choice.scn", 3,
		     "bad proto 'sctp' for generator 'rr' (choices: tcp, udp)");
}

static void test_scenario__rejects_bad_bool_option(void **state)
{
	expect_error("bad-option-bool.scn", 3,
		     "bad dst-ipv6 'ipv6': expected yes/no/true/false/1/0");
}

static void test_scenario__check_syntax_error_carries_column(void **state)
{
	expect_error("bad-check-syntax.scn", 9,
		     "check 'p99': column 32: expected a metric, number or '(' after '*'");
}

static void test_scenario__rejects_bad_check_name(void **state)
{
	expect_error("bad-check-name.scn", 5, "bad check name 'NoLoss': expected [a-z0-9_-]+");
}

static void test_scenario__rejects_unknown_metric(void **state)
{
	expect_error(
		"bad-metric-unknown.scn", 6,
		"check 'typo': unknown metric 'udp.lsot' (known: udp.{sent,received,unique,lost,reordered,duplicated,late,bytes,send_errors,pps,bps}, udp.latency_us.{p50,p90,p99,p99_9,max,min,mean}, udp.{flows,flows_lossy,flow_lost_max,misdelivered,fairness_jain,flow_share_min,sockets,sockets_used}, udp.flow.*.{id,sport,sent,unique,lost,misdelivered,reordered,duplicated,socket,rx_cpu,tx_cpu,wire_tx,wire_rx}, udp.flow.*.latency_us.{p50,p99,max})");
}

static void test_scenario__rejects_metric_of_another_generator(void **state)
{
	expect_error(
		"bad-metric-generator.scn", 9,
		"check 'no_loss': metric 'udp.lost' is not produced by generator 'tcp-stream' (it comes from 'udp-stream')");
}

static void test_scenario__rejects_metric_of_nic_outside_topology(void **state)
{
	expect_error(
		"bad-metric-label.scn", 6,
		"check 'no_miss': metric 'nic.C.rx_missed_errors': the topology has no NIC 'C' (NICs: A, B)");
}

static void test_scenario__rejects_nic_outside_topology(void **state)
{
	expect_error("bad-nic-label.scn", 3,
		     "NIC model for NIC C, but topology 'loop' has NICs A, B");
}

static void test_scenario__rejects_bad_label(void **state)
{
	expect_error("bad-label-syntax.scn", 2, "bad NIC label 'a' in 'nic.a' (labels are A..D)");
}

static void test_scenario__rejects_bad_ring_key(void **state)
{
	expect_error(
		"bad-ring-key.scn", 3,
		"unknown key 'ring.A.rxx' in [scenario] (ring keys are ring.<LABEL>.rx and ring.<LABEL>.tx)");
}

static void test_scenario__rejects_netem_on_nic_outside_topology(void **state)
{
	expect_error("bad-netem-label.scn", 6,
		     "[netem] for NIC D, but topology 'loop' has NICs A, B");
}

static void test_scenario__rejects_netem_and_qdisc_on_one_nic(void **state)
{
	expect_error("bad-netem-and-qdisc.scn", 8,
		     "NIC B has both [netem] and [qdisc]; each sets its root qdisc");
}

static void test_scenario__rejects_shell_characters_in_tc_values(void **state)
{
	expect_error(
		"bad-unsafe-value.scn", 5,
		"value of 'A' in [qdisc] may only contain letters, digits, spaces and \"._-%:/,+=@\"");
}

static void test_scenario__rejects_bad_sysctl_name(void **state)
{
	expect_error("bad-sysctl-name.scn", 3,
		     "bad sysctl name 'Net.Core.Wmem': expected [a-z0-9_.-]+");
}

static void test_scenario__rejects_empty_value(void **state)
{
	expect_error("bad-empty-value.scn", 2, "key 'description' has no value");
}

static void test_scenario__rejects_timeout_shorter_than_duration(void **state)
{
	expect_error("bad-timeout.scn", 2, "timeout 20 s is not longer than the duration, 30 s");
}

static void test_scenario__rejects_scenario_without_checks(void **state)
{
	expect_error("bad-no-checks.scn", 0, "no checks: a scenario must check something");
}

static void test_scenario__rejects_scenario_without_traffic(void **state)
{
	expect_error(
		"bad-no-traffic.scn", 0,
		"no [traffic] or [exec] section: a scenario needs a generator (udp-stream, tcp-stream, rr) or a command");
}

static void test_scenario__rejects_traffic_without_generator(void **state)
{
	expect_error("bad-no-generator.scn", 4,
		     "[traffic] has no generator (udp-stream, tcp-stream, rr)");
}

static void test_scenario__rejects_line_without_equals(void **state)
{
	expect_error("bad-syntax.scn", 3, "expected 'key = value' or '[section]'");
}

static void test_scenario__rejects_key_outside_section(void **state)
{
	expect_error("bad-outside-section.scn", 2,
		     "key 'duration' is outside any section; start with [scenario]");
}

static void test_scenario__rejects_line_too_long_instead_of_cutting_it(void **state)
{
	expect_error("bad-long-line.scn", 2, "line too long (more than 198 characters)");
}

static void test_scenario__reports_first_error_by_line(void **state)
{
	expect_error("bad-first-error-wins.scn", 3,
		     "bad repeat 'lots': expected an integer in 1..100");
	/* inih's own syntax errors compete on line number too, both ways. */
	expect_error("bad-syntax-before-key-error.scn", 3, "expected 'key = value' or '[section]'");
	expect_error("bad-key-error-before-syntax.scn", 3,
		     "bad repeat '0': expected an integer in 1..100");
}

static void test_scenario__parse_bool_forms(void **state)
{
	static const char *const yes[] = { "yes", "true", "1" }, *const no[] = { "no", "false",
										 "0" };
	bool b;

	for (int i = 0; i < 3; i++) {
		b = false;
		assert_int_equal(scn_parse_bool(yes[i], &b), 0);
		assert_true(b);
		assert_int_equal(scn_parse_bool(no[i], &b), 0);
		assert_false(b);
	}
	assert_int_equal(scn_parse_bool("Yes", &b), -EINVAL);
	assert_int_equal(scn_parse_bool("", &b), -EINVAL);
}

/* acpi = FILE...: paths relative to the scenario's directory, readable when parsed. */
static void test_scenario__acpi_files_resolve_against_the_scenario(void **state)
{
	struct scenario *s = parse_ok("good-acpi.scn"), *d = parse_ok("good-minimal.scn");
	char *dir = fixture(""), *want;

	assert_int_equal(s->n_acpi, 2);
	assert_int_equal(s->acpi_line, 2);
	want = xasprintf("%s../acpi/ssdt.asl", dir);
	assert_string_equal(s->acpi[0], want);
	free(want);
	want = xasprintf("%s../acpi/broken.asl", dir);
	assert_string_equal(s->acpi[1], want);
	free(want);
	assert_int_equal(d->n_acpi, 0);
	free(dir);
	scn_free(s);
	scn_free(d);
}

static void test_scenario__rejects_unreadable_acpi_file_with_line(void **state)
{
	char *dir = fixture(""), *msg;

	msg = xasprintf("cannot read ACPI table '%s../acpi/nope.asl': No such file or directory", dir);
	expect_error("bad-acpi-missing.scn", 3, msg);
	free(msg);
	free(dir);
}

/* One row per generator, every [traffic] key, flags and choices marked. */
static void test_scenario__generator_table_from_the_descriptors(void **state)
{
	struct sbuf t;

	sbuf_init(&t);
	scn_generator_table(&t);
	assert_non_null(strstr(t.s, "| `udp-stream` | `rate`, "));
	assert_non_null(strstr(t.s, "`read-delay`, `port`, `dst-ipv6` (boolean) |\n"));
	assert_non_null(strstr(t.s, "| `tcp-stream` | `size`, `port`, `cc`, `bidir` (boolean), `flows`, `listeners` |\n"));
	assert_non_null(strstr(t.s, "| `rr` | `proto` (`tcp` or `udp`), `req-size`"));
	assert_null(strstr(t.s, "`size` (boolean)"));
	sbuf_release(&t);
}

/* A run's bad-input reason naming a sysctl: back to the line that set it. */
static void test_scenario__sysctl_where_names_file_and_line(void **state)
{
	struct scenario *s = parse_ok("good-udp.scn");
	char *w = scn_sysctl_where(s, "the guest's kernel has no sysctl 'net.ipv4.tcp_rmem' (...)");
	char *want = xasprintf("%s:18: [sysctl] net.ipv4.tcp_rmem", s->path);

	assert_string_equal(w, want);
	assert_null(scn_sysctl_where(s, "the guest's kernel has no sysctl 'net.ipv4.tcp' (...)"));
	assert_null(scn_sysctl_where(s, NULL));
	free(want);
	free(w);
	scn_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scenario__sysctl_where_names_file_and_line),
		cmocka_unit_test(test_scenario__parses_every_key),
		cmocka_unit_test(test_scenario__trace_section_and_its_defaults),
		cmocka_unit_test(test_scenario__rejects_bad_trace_event_and_key),
		cmocka_unit_test(test_scenario__coalesce_keys_collect_ethtool_arguments),
		cmocka_unit_test(test_scenario__indented_line_is_a_key_not_a_continuation),
		cmocka_unit_test(test_scenario__defaults),
		cmocka_unit_test(test_scenario__timeout_default_follows_duration),
		cmocka_unit_test(test_scenario__traffic_options_become_arguments),
		cmocka_unit_test(test_scenario__options_before_generator_are_checked),
		cmocka_unit_test(test_scenario__missing_file_is_an_errno),
		cmocka_unit_test(test_scenario__rejects_unknown_section_with_line),
		cmocka_unit_test(test_scenario__rejects_unknown_key_with_line),
		cmocka_unit_test(test_scenario__rejects_duplicate_key),
		cmocka_unit_test(test_scenario__rejects_duplicate_check_name),
		cmocka_unit_test(test_scenario__rejects_duplicate_section),
		cmocka_unit_test(test_scenario__rejects_bad_number),
		cmocka_unit_test(test_scenario__rejects_number_out_of_range),
		cmocka_unit_test(test_scenario__rejects_bad_bool),
		cmocka_unit_test(test_scenario__rejects_unknown_nic_model),
		cmocka_unit_test(test_scenario__rejects_unknown_topology),
		cmocka_unit_test(test_scenario__rejects_unknown_generator),
		cmocka_unit_test(test_scenario__rejects_option_of_another_generator),
		cmocka_unit_test(test_scenario__rejects_bad_choice),
		cmocka_unit_test(test_scenario__rejects_bad_bool_option),
		cmocka_unit_test(test_scenario__check_syntax_error_carries_column),
		cmocka_unit_test(test_scenario__rejects_bad_check_name),
		cmocka_unit_test(test_scenario__rejects_unknown_metric),
		cmocka_unit_test(test_scenario__rejects_metric_of_another_generator),
		cmocka_unit_test(test_scenario__rejects_metric_of_nic_outside_topology),
		cmocka_unit_test(test_scenario__rejects_nic_outside_topology),
		cmocka_unit_test(test_scenario__rejects_bad_label),
		cmocka_unit_test(test_scenario__rejects_bad_ring_key),
		cmocka_unit_test(test_scenario__rejects_netem_on_nic_outside_topology),
		cmocka_unit_test(test_scenario__rejects_netem_and_qdisc_on_one_nic),
		cmocka_unit_test(test_scenario__rejects_shell_characters_in_tc_values),
		cmocka_unit_test(test_scenario__rejects_bad_sysctl_name),
		cmocka_unit_test(test_scenario__rejects_empty_value),
		cmocka_unit_test(test_scenario__rejects_timeout_shorter_than_duration),
		cmocka_unit_test(test_scenario__rejects_scenario_without_checks),
		cmocka_unit_test(test_scenario__rejects_scenario_without_traffic),
		cmocka_unit_test(test_scenario__rejects_traffic_without_generator),
		cmocka_unit_test(test_scenario__rejects_line_without_equals),
		cmocka_unit_test(test_scenario__rejects_key_outside_section),
		cmocka_unit_test(test_scenario__rejects_line_too_long_instead_of_cutting_it),
		cmocka_unit_test(test_scenario__reports_first_error_by_line),
		cmocka_unit_test(test_scenario__parse_bool_forms),
		cmocka_unit_test(test_scenario__acpi_files_resolve_against_the_scenario),
		cmocka_unit_test(test_scenario__rejects_unreadable_acpi_file_with_line),
		cmocka_unit_test(test_scenario__generator_table_from_the_descriptors),
		cmocka_unit_test(test_scenario__flow_that_can_stall_gets_no_stall_check),
		cmocka_unit_test(test_scenario__no_stall_check_for_udp_or_when_the_file_checks_it),
		cmocka_unit_test(test_scenario__named_traffic_sections_parse),
		cmocka_unit_test(test_scenario__named_traffic_sections_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
