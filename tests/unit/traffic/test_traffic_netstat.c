// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of traffic/netstat.c on the text of /proc/net/snmp and snmp6.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "netstat.h"

static const char snmp[] =
	"Ip: Forwarding DefaultTTL InReceives\n"
	"Ip: 1 64 1000\n"
	"Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors IgnoredMulti MemErrors\n"
	"Udp: 26 1 17 27 15 3 0 0 0\n"
	"UdpLite: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors IgnoredMulti MemErrors\n"
	"UdpLite: 0 0 0 0 99 0 0 0 0\n";

static const char snmp6[] = "Udp6InDatagrams                 \t5\n"
			    "Udp6InErrors                    \t8\n"
			    "Udp6RcvbufErrors                \t7\n";

static void test_netstat__reads_the_udp_line_not_udplite(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(netstat_parse_snmp(snmp, "Udp", "RcvbufErrors", &v), 0);
	assert_int_equal(v, 15);
	assert_int_equal(netstat_parse_snmp(snmp, "Udp", "InErrors", &v), 0);
	assert_int_equal(v, 17);
	assert_int_equal(netstat_parse_snmp(snmp, "Udp", "MemErrors", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(netstat_parse_snmp(snmp, "UdpLite", "RcvbufErrors", &v), 0);
	assert_int_equal(v, 99);
	assert_int_equal(netstat_parse_snmp(snmp, "Udp", "Nope", &v), -ENOENT);
	assert_int_equal(netstat_parse_snmp(snmp, "Tcp", "InErrors", &v), -ENOENT);
}

static void test_netstat__snmp6(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(netstat_parse_snmp6(snmp6, "Udp6RcvbufErrors", &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(netstat_parse_snmp6(snmp6, "Udp6InErrors", &v), 0);
	assert_int_equal(v, 8);
	assert_int_equal(netstat_parse_snmp6(snmp6, "Udp6In", &v), -ENOENT);
}

static void test_netstat__reads_this_namespace(void **state)
{
	struct netstat_udp s;

	(void)state;
	assert_int_equal(netstat_udp_read(&s), 0);
	assert_true(s.in_errors >= s.rcvbuf_errors);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_netstat__reads_the_udp_line_not_udplite),
		cmocka_unit_test(test_netstat__snmp6),
		cmocka_unit_test(test_netstat__reads_this_namespace),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
