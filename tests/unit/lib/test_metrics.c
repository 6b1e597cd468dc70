// SPDX-License-Identifier: GPL-2.0
/* Metrics map, JSON flattening, medians, and the table of metric families. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "lib/metrics.h"
#include "scenario/scngen.h"

static double get(const struct metrics *m, const char *name)
{
	double v = NAN;

	if (!metrics_get(m, name, &v))
		fail_msg("metric '%s' missing", name);
	return v;
}

static void test_metrics__set_get_and_overwrite(void **state)
{
	struct metrics *m = metrics_new();
	double v = -1;

	assert_false(metrics_get(m, "udp.lost", &v));
	assert_true(v == -1);
	metrics_set(m, "udp.lost", 3);
	metrics_set(m, "udp.sent", 100);
	metrics_emit(m, "udp.lost", 4);
	assert_int_equal(metrics_count(m), 2);
	assert_true(get(m, "udp.lost") == 4);
	assert_true(get(m, "udp.sent") == 100);
	assert_true(metrics_get(m, "udp.sent", NULL));
	assert_false(metrics_get(m, "udp", NULL));
	metrics_free(m);
}

static void test_metrics__iteration_is_in_name_order(void **state)
{
	static const char *const in[] = { "udp.sent", "nic.B.rx_packets",
					  "udp.lost", "nic.A.rx_missed_errors",
					  "rr.tps",   "nic.A.rx" };
	static const char *const want[] = { "nic.A.rx",		"nic.A.rx_missed_errors",
					    "nic.B.rx_packets", "rr.tps",
					    "udp.lost",		"udp.sent" };
	struct metrics *m = metrics_new();
	const char *name;
	double v;

	for (size_t i = 0; i < 6; i++)
		metrics_set(m, in[i], (double)i);
	assert_int_equal(metrics_count(m), 6);
	for (size_t i = 0; i < 6; i++) {
		metrics_at(m, i, &name, &v);
		assert_string_equal(name, want[i]);
	}
	metrics_at(m, 4, NULL, &v);
	assert_true(v == 2); /* udp.lost was in[2] */
	metrics_free(m);
}

static void test_metrics__thousands_of_entries(void **state)
{
	struct metrics *m = metrics_new();
	const char *prev = NULL, *name;
	char buf[64];

	/* Insert in a scrambled order: 7919 is prime, so i*7919 % 5000 visits all. */
	for (unsigned int i = 0; i < 5000; i++) {
		unsigned int k = (i * 7919) % 5000;

		snprintf(buf, sizeof(buf), "nic.A.counter_%05u", k);
		metrics_set(m, buf, k);
	}
	assert_int_equal(metrics_count(m), 5000);
	for (unsigned int k = 0; k < 5000; k += 499) {
		snprintf(buf, sizeof(buf), "nic.A.counter_%05u", k);
		assert_true(get(m, buf) == k);
	}
	for (size_t i = 0; i < metrics_count(m); i++) {
		metrics_at(m, i, &name, NULL);
		if (prev)
			assert_true(strcmp(prev, name) < 0);
		prev = name;
	}
	metrics_free(m);
}

static void test_metrics__json_flattens_nested_objects(void **state)
{
	struct json_object *o = json_tokener_parse(
		"{\"udp\": {\"lost\": 0, \"sent\": 1000, \"latency_us\": {\"p99\": 12.5, \"p99_9\": 20}},"
		" \"ok\": true, \"bad\": false, \"list\": [1, 2], \"none\": null, \"s\": \"12\"}");
	struct metrics *m = metrics_new();

	assert_non_null(o);
	assert_int_equal(metrics_add_json(m, "", o), 6);
	assert_int_equal(metrics_count(m), 6);
	assert_true(get(m, "udp.lost") == 0);
	assert_true(get(m, "udp.sent") == 1000);
	assert_true(get(m, "udp.latency_us.p99") == 12.5);
	assert_true(get(m, "udp.latency_us.p99_9") == 20);
	assert_true(get(m, "ok") == 1);
	assert_true(get(m, "bad") == 0);
	assert_false(metrics_get(m, "list", NULL));
	assert_false(metrics_get(m, "list.0", NULL));
	assert_false(metrics_get(m, "none", NULL));
	assert_false(metrics_get(m, "s", NULL));
	json_object_put(o);
	metrics_free(m);
}

static void test_metrics__json_prefix_is_prepended(void **state)
{
	struct json_object *o = json_tokener_parse("{\"rx_missed_errors\": 3, \"tx_packets\": 9}");
	struct json_object *n = json_object_new_int(7);
	struct metrics *m = metrics_new();

	assert_int_equal(metrics_add_json(m, "nic.A", o), 2);
	assert_true(get(m, "nic.A.rx_missed_errors") == 3);
	assert_true(get(m, "nic.A.tx_packets") == 9);
	/* A bare number is stored under the prefix; without one it has no name. */
	assert_int_equal(metrics_add_json(m, "softnet.dropped", n), 1);
	assert_true(get(m, "softnet.dropped") == 7);
	assert_int_equal(metrics_add_json(m, NULL, n), 0);
	json_object_put(o);
	json_object_put(n);
	metrics_free(m);
}

static void test_metrics__to_json_sorted_with_exact_numbers(void **state)
{
	struct metrics *m = metrics_new();
	struct json_object *o;

	metrics_set(m, "udp.sent", 1000);
	metrics_set(m, "rr.latency_us.p99", 0.1);
	metrics_set(m, "udp.bps", 1e15);
	metrics_set(m, "x.third", 1.0 / 3);
	o = metrics_to_json(m);
	assert_string_equal(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
			    "{\"rr.latency_us.p99\":0.1,\"udp.bps\":1000000000000000,"
			    "\"udp.sent\":1000,\"x.third\":0.3333333333333333}");
	json_object_put(o);
	metrics_free(m);
}

static void test_metrics__median_across_runs(void **state)
{
	struct metrics *r[4], *med;

	for (int i = 0; i < 4; i++)
		r[i] = metrics_new();
	metrics_set(r[0], "udp.lost", 5);
	metrics_set(r[1], "udp.lost", 1);
	metrics_set(r[2], "udp.lost", 3);
	metrics_set(r[0], "rr.tps", 10);
	metrics_set(r[1], "rr.tps", 20);
	metrics_set(r[3], "only.here", 7);
	med = metrics_median(r, 3);
	assert_true(get(med, "udp.lost") == 3);
	assert_true(get(med, "rr.tps") == 15); /* two runs have it: mean of the two */
	assert_false(metrics_get(med, "only.here", NULL));
	metrics_free(med);
	med = metrics_median(r, 4);
	assert_true(get(med, "udp.lost") == 3);
	assert_true(get(med, "only.here") == 7);
	metrics_free(med);
	for (int i = 0; i < 4; i++)
		metrics_free(r[i]);
}

static int name_check(const char *name, const char *gen, char **err)
{
	return metrics_name_check(name, scn_gen_metrics, gen, "AB", err);
}

/* Per CPU and per queue: cpu0..cpu63 and q0..q63, nothing else. */
static void test_metrics__cpu_and_queue_components(void **state)
{
	assert_int_equal(name_check("softnet.cpu1.dropped", NULL, NULL), 0);
	assert_int_equal(name_check("softnet.cpu63.backlog_len", NULL, NULL), 0);
	assert_int_equal(name_check("queues.B.rx", NULL, NULL), 0);
	assert_int_equal(name_check("loss.cpu_backlog_drops", NULL, NULL), 0);
	assert_int_equal(name_check("drv.ethB.q1.rx.descs", NULL, NULL), 0);
	assert_int_equal(name_check("drv.ethB.q0.napi.polls", NULL, NULL), 0);
	assert_int_equal(name_check("softnet.cpu64.dropped", NULL, NULL), -ENOENT);
	assert_int_equal(name_check("softnet.cpu01.dropped", NULL, NULL), -ENOENT);
	assert_int_equal(name_check("softnet.cpu.dropped", NULL, NULL), -ENOENT);
	assert_int_equal(name_check("softnet.cpux.dropped", NULL, NULL), -ENOENT);
	assert_int_equal(name_check("queues.C.rx", NULL, NULL), -ENOENT);
}

static void test_metrics__known_families_are_accepted(void **state)
{
	static const char *const udp_ok[] = {
		"udp.lost",
		"udp.latency_us.p99_9",
		"udp.send_errors",
		"nic.A.rx_missed_errors",
		"nic.B.port.rx_bytes",
		"ring.A.rx",
		"snmp.B.Udp.RcvbufErrors",
		"netstat.A.TcpExt.TCPLostRetransmit",
		"softnet.time_squeeze",
		"pcap.B.packets",
		"loss.unaccounted",
	};

	for (size_t i = 0; i < sizeof(udp_ok) / sizeof(udp_ok[0]); i++)
		if (name_check(udp_ok[i], "udp-stream", NULL))
			fail_msg("'%s' rejected", udp_ok[i]);
	assert_int_equal(name_check("tcp.rtt_max_us", "tcp-stream", NULL), 0);
	assert_int_equal(name_check("rr.latency_us.mean", "rr", NULL), 0);
}

/* pktpath's stage latency per direction, and per NIC: latency.DIR.STAGE.IFNAME.*, any generator. */
static void test_metrics__stage_latency_per_nic_names(void **state)
{
	static const char *const ok[] = {
		"latency.tx.dev.p90_us",
		"latency.tx.dev.ethA.p90_us",
		"latency.rx.poll_handoff.ethB.p50_us",
		"latency.rx.total.ethB.max_us",
		"latency.tx.drv_xmit.ethA.count",
		"latency.rx.drv_ip.eth0.p99_us",
	};
	static const char *const bad[] = {
		"latency.tx.dev.ethA.p95_us", /* no such figure */
		"latency.tx.dev.eth0.100.p90_us", /* a name with a dot is two components */
		"latency.xx.dev.ethA.p90_us", /* no such direction */
		"latency.tx.dev.ethA",
	};
	static const char *const gens[] = { "udp-stream", "tcp-stream", "rr" };

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		for (size_t g = 0; g < sizeof(gens) / sizeof(gens[0]); g++)
			if (name_check(ok[i], gens[g], NULL))
				fail_msg("'%s' rejected for %s", ok[i], gens[g]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!name_check(bad[i], "rr", NULL))
			fail_msg("'%s' accepted", bad[i]);
}

static void expect_name_error(const char *name, const char *gen, const char *want)
{
	char *err = NULL;

	assert_int_equal(name_check(name, gen, &err), -ENOENT);
	assert_non_null(err);
	assert_string_equal(err, want);
	free(err);
}

static void test_metrics__metric_of_another_generator_is_rejected(void **state)
{
	expect_name_error(
		"udp.lost", "tcp-stream",
		"metric 'udp.lost' is not produced by generator 'tcp-stream' (it comes from 'udp-stream')");
	expect_name_error(
		"rr.latency_us.p99", "udp-stream",
		"metric 'rr.latency_us.p99' is not produced by generator 'udp-stream' (it comes from 'rr')");
}

static void test_metrics__label_outside_topology_is_rejected(void **state)
{
	expect_name_error(
		"nic.C.rx_missed_errors", "udp-stream",
		"metric 'nic.C.rx_missed_errors': the topology has no NIC 'C' (NICs: A, B)");
	assert_int_equal(metrics_name_check("pcap.A.bytes", scn_gen_metrics, "rr", "", NULL),
			 -ENOENT);
	/* A bad label in a name that is wrong anyway is just unknown. */
	expect_name_error("ring.C.foo", "rr",
			  "unknown metric 'ring.C.foo' (known: ring.<LABEL>.{rx,tx,rx_max,tx_max})");
}

static void test_metrics__unknown_names_list_what_exists(void **state)
{
	expect_name_error(
		"udp.lsot", "udp-stream",
		"unknown metric 'udp.lsot' (known: udp.{sent,received,unique,lost,reordered,duplicated,late,bytes,send_errors,pps,bps}, udp.latency_us.{p50,p90,p99,p99_9,max,min,mean}, udp.{flows,flows_lossy,flow_lost_max,misdelivered,fairness_jain,flow_share_min,sockets,sockets_used}, udp.flow.*.{id,sport,sent,unique,lost,misdelivered,reordered,duplicated,socket,rx_cpu,tx_cpu,wire_tx,wire_rx}, udp.flow.*.latency_us.{p50,p99,max})");
	expect_name_error(
		"flow.total", "udp-stream",
		"unknown metric 'flow.total' (metric families: udp, tcp, rr, nic, ring, offload, snmp, netstat, snmp6, softnet, queues, pcap, csum, qdisc, neigh, drops, latency, flows, netrx, tx, acpi, irq, drv, nicrx, hop, nictx, loss)");
	/* Structure matters: too short, too long, wrong group. */
	assert_int_equal(name_check("nic.A", "udp-stream", NULL), -ENOENT);
	assert_int_equal(name_check("udp.lost.x", "udp-stream", NULL), -ENOENT);
	assert_int_equal(name_check("snmp.A.Udp", "udp-stream", NULL), -ENOENT);
	assert_int_equal(name_check("snmp.A.UDP.InErrors", "udp-stream", NULL), -ENOENT);
	assert_int_equal(name_check("netstat.A.Tcp.X", "udp-stream", NULL), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metrics__set_get_and_overwrite),
		cmocka_unit_test(test_metrics__iteration_is_in_name_order),
		cmocka_unit_test(test_metrics__thousands_of_entries),
		cmocka_unit_test(test_metrics__json_flattens_nested_objects),
		cmocka_unit_test(test_metrics__stage_latency_per_nic_names),
		cmocka_unit_test(test_metrics__json_prefix_is_prepended),
		cmocka_unit_test(test_metrics__to_json_sorted_with_exact_numbers),
		cmocka_unit_test(test_metrics__median_across_runs),
		cmocka_unit_test(test_metrics__known_families_are_accepted),
		cmocka_unit_test(test_metrics__cpu_and_queue_components),
		cmocka_unit_test(test_metrics__metric_of_another_generator_is_rejected),
		cmocka_unit_test(test_metrics__label_outside_topology_is_rejected),
		cmocka_unit_test(test_metrics__unknown_names_list_what_exists),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
