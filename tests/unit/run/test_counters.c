// SPDX-License-Identifier: GPL-2.0
/* Counter parsers, on files recorded from netlab's own guest (fixtures/counters). */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "run/counters.h"
#include "lib/util.h"

#ifndef FIXTURES
#define FIXTURES "tests/unit/fixtures"
#endif

struct seen {
	int n;
	char names[1024][96];
	double values[1024];
};

static void collect(void *ctx, const char *name, double v)
{
	struct seen *s = ctx;

	if (s->n < 1024) {
		snprintf(s->names[s->n], sizeof(s->names[0]), "%s", name);
		s->values[s->n++] = v;
	}
}

static double lookup(const struct seen *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->names[i], name))
			return s->values[i];
	return NAN;
}

static char *fixture(const char *name)
{
	char *path = xasprintf("%s/counters/%s", FIXTURES, name), *data = NULL;

	assert_int_equal(file_read(path, &data, NULL), 0);
	free(path);
	return data;
}

static void test_counters__snmp_groups_and_fields(void **state)
{
	struct seen *s = xzalloc(sizeof(*s));
	char *t = fixture("snmp"), *err = NULL;

	assert_int_equal(counters_parse_snmp(t, "snmp.A", collect, s, &err), 0);
	assert_true(lookup(s, "snmp.A.Ip.DefaultTTL") == 64);
	assert_false(isnan(lookup(s, "snmp.A.Udp.RcvbufErrors")));
	assert_false(isnan(lookup(s, "snmp.A.Tcp.RetransSegs")));
	assert_true(isnan(lookup(s, "snmp.A.Udp.Nonsense")));
	free(t);
	free(s);
}

static void test_counters__netstat_tcpext(void **state)
{
	struct seen *s = xzalloc(sizeof(*s));
	char *t = fixture("netstat"), *err = NULL;

	assert_int_equal(counters_parse_snmp(t, "netstat.B", collect, s, &err), 0);
	assert_false(isnan(lookup(s, "netstat.B.TcpExt.TCPTimeouts")));
	assert_false(isnan(lookup(s, "netstat.B.IpExt.InOctets")));
	free(t);
	free(s);
}

static void test_counters__snmp_mismatch_is_an_error(void **state)
{
	struct seen *s = xzalloc(sizeof(*s));
	char *err = NULL;

	assert_int_equal(counters_parse_snmp("Udp: InDatagrams NoPorts\nUdp: 1\n", "x", collect, s,
					     &err), -EINVAL);
	assert_non_null(strstr(err, "Udp"));
	free(err);
	free(s);
}

static void test_counters__softnet_sums_cpus_in_hex(void **state)
{
	struct seen *s = xzalloc(sizeof(*s));
	char *err = NULL;
	const char *two_cpus =
		"0000000a 00000001 00000002 00000000 00000000 00000000 00000000 00000000 00000000 00000003 00000000 00000000 00000000\n"
		"00000010 00000001 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000001\n";

	assert_int_equal(counters_parse_softnet(two_cpus, collect, s, &err), 0);
	assert_true(lookup(s, "softnet.processed") == 26);
	assert_true(lookup(s, "softnet.dropped") == 2);
	assert_true(lookup(s, "softnet.time_squeeze") == 2);
	assert_true(lookup(s, "softnet.received_rps") == 3);
	free(s);
}

static void test_counters__softnet_recorded_file(void **state)
{
	struct seen *s = xzalloc(sizeof(*s));
	char *t = fixture("softnet_stat"), *err = NULL;

	assert_int_equal(counters_parse_softnet(t, collect, s, &err), 0);
	/* one CPU: its six columns, then the five sums */
	assert_int_equal(s->n, 11);
	assert_true(lookup(s, "softnet.cpu0.backlog_len") == 0);
	free(t);
	free(s);
}

/* A 2-vCPU 6.1 guest's file (igb B, 2 queues, rps_cpus 3, after a UDP flood). */
static void test_counters__softnet_per_cpu(void **state)
{
	struct seen *s = xzalloc(sizeof(*s));
	char *t = fixture("softnet_stat-2cpu"), *err = NULL;

	assert_int_equal(counters_parse_softnet(t, collect, s, &err), 0);
	assert_int_equal(s->n, 2 * 6 + 5);
	assert_true(lookup(s, "softnet.cpu0.processed") == 0x1776);
	assert_true(lookup(s, "softnet.cpu0.received_rps") == 0xfc2);
	assert_true(lookup(s, "softnet.cpu1.processed") == 3);
	assert_true(lookup(s, "softnet.cpu1.received_rps") == 1);
	assert_true(lookup(s, "softnet.cpu1.dropped") == 0);
	assert_true(lookup(s, "softnet.processed") == 0x1776 + 3);
	assert_true(lookup(s, "softnet.received_rps") == 0xfc2 + 1);
	free(t);
	free(s);
}

/* The cpu column names the CPU (offline ones have no line); an older kernel's 11 columns: the rank. */
static void test_counters__softnet_cpu_column_and_older_kernels(void **state)
{
	struct seen *s = xzalloc(sizeof(*s));
	char *err = NULL;
	const char *cpu0_and_cpu3 =
		"00000001 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000\n"
		"00000002 00000005 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000007 00000003\n";
	const char *old =
		"00000001 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000\n"
		"00000002 00000004 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000\n";

	assert_int_equal(counters_parse_softnet(cpu0_and_cpu3, collect, s, &err), 0);
	assert_true(lookup(s, "softnet.cpu3.dropped") == 5);
	assert_true(lookup(s, "softnet.cpu3.backlog_len") == 7);
	assert_true(isnan(lookup(s, "softnet.cpu1.dropped")));
	free(s);
	s = xzalloc(sizeof(*s));
	assert_int_equal(counters_parse_softnet(old, collect, s, &err), 0);
	assert_true(lookup(s, "softnet.cpu1.dropped") == 4);
	assert_true(isnan(lookup(s, "softnet.cpu1.backlog_len")));
	assert_int_equal(s->n, 2 * 5 + 5);
	free(s);
}

static void test_counters__ethtool_stats_e1000e_and_virtio(void **state)
{
	struct seen *s = xzalloc(sizeof(*s));
	char *a = fixture("ethtool-S-A"), *b = fixture("ethtool-S-B"), *err = NULL;

	assert_int_equal(counters_parse_ethtool_stats(a, "nic.A", collect, s, &err), 0);
	assert_int_equal(counters_parse_ethtool_stats(b, "nic.B", collect, s, &err), 0);
	assert_false(isnan(lookup(s, "nic.A.rx_missed_errors")));
	assert_false(isnan(lookup(s, "nic.A.rx_no_buffer_count")));
	assert_true(lookup(s, "nic.B.rx_queue_0_kicks") == 1);
	free(a);
	free(b);
	free(s);
}

static void test_counters__ethtool_ring_current_and_max(void **state)
{
	struct seen *s = xzalloc(sizeof(*s));
	char *t = fixture("ethtool-g-A"), *err = NULL;

	assert_int_equal(counters_parse_ethtool_ring(t, "ring.A", collect, s, &err), 0);
	assert_true(lookup(s, "ring.A.rx") == 256);
	assert_true(lookup(s, "ring.A.tx") == 256);
	assert_true(lookup(s, "ring.A.rx_max") == 4096);
	free(t);
	free(s);
}

static void test_counters__tc_qdisc_sums_qdiscs(void **state)
{
	struct seen *s = xzalloc(sizeof(*s));
	char *t = fixture("tc-s-qdisc"), *err = NULL;

	/* Two devices' worth of qdiscs in the fixture: 3 + 9 packets. */
	assert_int_equal(counters_parse_tc_qdisc(t, "qdisc.A", collect, s, &err), 0);
	assert_true(lookup(s, "qdisc.A.packets") == 12);
	assert_true(lookup(s, "qdisc.A.bytes") == 238 + 834);
	assert_true(lookup(s, "qdisc.A.dropped") == 0);
	free(t);
	free(s);
}

static void test_counters__snmp6_name_value_lines(void **state)
{
	struct seen *s = xzalloc(sizeof(*s));
	char *err = NULL;

	assert_int_equal(counters_parse_snmp6("Ip6InReceives   \t12\nUdp6InErrors   3\n", "snmp6.B",
					      collect, s, &err), 0);
	assert_true(lookup(s, "snmp6.B.Ip6InReceives") == 12);
	assert_true(lookup(s, "snmp6.B.Udp6InErrors") == 3);
	free(s);
}

static void test_counters__neigh_stat_sums_cpus_skips_entries(void **state)
{
	struct seen *s = xzalloc(sizeof(*s));
	char *t = fixture("arp_cache"), *err = NULL;
	const char *two_cpus =
		"entries allocs unresolved_discards\n"
		"00000003 00000001 0000000a\n"
		"00000003 00000002 00000010\n";

	assert_int_equal(counters_parse_neigh_stat(t, "neigh.A.arp", collect, s, &err), 0);
	assert_true(lookup(s, "neigh.A.arp.lookups") == 6);
	assert_false(isnan(lookup(s, "neigh.A.arp.unresolved_discards")));
	s->n = 0;
	assert_int_equal(counters_parse_neigh_stat(two_cpus, "n", collect, s, &err), 0);
	assert_true(lookup(s, "n.unresolved_discards") == 26);
	assert_true(lookup(s, "n.allocs") == 3);
	assert_true(isnan(lookup(s, "n.entries")));
	free(t);
	free(s);
}

static void test_counters__garbage_is_an_error(void **state)
{
	struct seen *s = xzalloc(sizeof(*s));
	char *err = NULL;

	assert_int_equal(counters_parse_ethtool_stats("no stats here\n", "nic.A", collect, s, &err),
			 -EINVAL);
	free(err);
	err = NULL;
	assert_int_equal(counters_parse_ethtool_ring("", "ring.A", collect, s, &err), -EINVAL);
	free(err);
	err = NULL;
	assert_int_equal(counters_parse_softnet("1 2 3\n", collect, s, &err), -EINVAL);
	free(err);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counters__snmp_groups_and_fields),
		cmocka_unit_test(test_counters__softnet_per_cpu),
		cmocka_unit_test(test_counters__softnet_cpu_column_and_older_kernels),
		cmocka_unit_test(test_counters__netstat_tcpext),
		cmocka_unit_test(test_counters__snmp_mismatch_is_an_error),
		cmocka_unit_test(test_counters__softnet_sums_cpus_in_hex),
		cmocka_unit_test(test_counters__softnet_recorded_file),
		cmocka_unit_test(test_counters__ethtool_stats_e1000e_and_virtio),
		cmocka_unit_test(test_counters__ethtool_ring_current_and_max),
		cmocka_unit_test(test_counters__tc_qdisc_sums_qdiscs),
		cmocka_unit_test(test_counters__snmp6_name_value_lines),
		cmocka_unit_test(test_counters__neigh_stat_sums_cpus_skips_entries),
		cmocka_unit_test(test_counters__garbage_is_an_error),
	};

	return cmocka_run_group_tests_name("counters", tests, NULL, NULL);
}
