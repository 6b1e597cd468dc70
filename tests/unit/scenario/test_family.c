// SPDX-License-Identifier: GPL-2.0
/*
 * The address family of a scenario's traffic: family = 4 | 6 for every
 * generator, dst-ipv6 its udp-stream synonym, the errors with their
 * FILE:LINE, the matrix axis that names only its IPv6 cases, the --coverage
 * family axis, and the loss story's IPv6 layer from the snmp6 counters.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/metrics.h"
#include "lib/util.h"
#include "scenario/coverage.h"
#include "scenario/regress.h"
#include "scenario/scenario.h"

#define HEAD "[scenario]\ndescription = x\ntopology = loop\n\n"

/* The scenario text written to a temporary file; its path (to free and unlink). */
static char *write_scn(const char *text)
{
	char *path = xstrdup("/tmp/netlab-test-family-XXXXXX.scn");
	int fd = mkstemps(path, 4);
	FILE *f;

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* text, a check appended: a scenario must check something. */
static struct scenario *parse_text(const char *text)
{
	char *full = xasprintf("%s\n[checks]\nc = pcap.A.packets >= 0\n", text);
	char *path = write_scn(full), *err = NULL;
	struct scenario *s = NULL;

	if (scn_parse(path, &s, &err))
		fail_msg("%s", err);
	unlink(path);
	free(path);
	free(full);
	return s;
}

/* text fails to parse with "PATH:line: msg", exit-2 input (-EINVAL). */
static void expect_error(const char *text, unsigned int line, const char *msg)
{
	char *path = write_scn(text), *err = NULL, *want = NULL;
	struct scenario *s = NULL;

	assert_int_equal(scn_parse(path, &s, &err), -EINVAL);
	assert_null(s);
	want = xasprintf("%s:%u: %s", path, line, msg);
	assert_non_null(err);
	assert_string_equal(err, want);
	unlink(path);
	free(want);
	free(err);
	free(path);
}

static bool v6_of(const char *text)
{
	struct scenario *s = parse_text(text);
	bool v6 = scn_traffic_v6(s);

	scn_free(s);
	return v6;
}

/* family = 6 for every generator, dst-ipv6 = yes its synonym; default and family = 4: IPv4. */
static void test_family__every_generator_takes_it(void **state)
{
	(void)state;
	assert_true(v6_of(HEAD "[traffic]\ngenerator = tcp-stream\nfamily = 6\n"));
	assert_true(v6_of(HEAD "[traffic]\ngenerator = rr\nproto = udp\nfamily = 6\n"));
	assert_true(v6_of(HEAD "[traffic]\ngenerator = rr\nfamily = 6\n"));
	assert_true(v6_of(HEAD "[traffic]\ngenerator = udp-stream\nfamily = 6\n"));
	assert_true(v6_of(HEAD "[traffic]\ngenerator = udp-stream\ndst-ipv6 = yes\n"));
	assert_true(v6_of(HEAD "[traffic]\ngenerator = udp-stream\ndst-ipv6 = yes\nfamily = 6\n"));
	assert_false(v6_of(HEAD "[traffic]\ngenerator = udp-stream\ndst-ipv6 = no\nfamily = 4\n"));
	assert_false(v6_of(HEAD "[traffic]\ngenerator = tcp-stream\nfamily = 4\n"));
	assert_false(v6_of(HEAD "[traffic]\ngenerator = rr\n"));
}

/* Each [traffic.NAME] section has its own family. */
static void test_family__per_named_section(void **state)
{
	struct scenario *s = parse_text(HEAD "[traffic.a]\ngenerator = tcp-stream\nfamily = 6\n\n"
					     "[traffic.b]\ngenerator = rr\nport = 7000\n");
	struct scenario v;

	(void)state;
	scn_traffic_view(s, 0, &v);
	assert_true(scn_traffic_v6(&v));
	scn_traffic_view(s, 1, &v);
	assert_false(scn_traffic_v6(&v));
	scn_free(s);
}

static void test_family__bad_value_and_disagreement_name_the_line(void **state)
{
	(void)state;
	expect_error(HEAD "[traffic]\ngenerator = rr\nfamily = 5\n", 7,
		     "bad family '5': expected 4 or 6 (IPv4 or IPv6)");
	expect_error(HEAD "[traffic.x]\ngenerator = tcp-stream\nfamily = inet6\n", 7,
		     "bad family 'inet6': expected 4 or 6 (IPv4 or IPv6)");
	expect_error(
		HEAD "[traffic]\ngenerator = udp-stream\nfamily = 4\ndst-ipv6 = yes\n", 8,
		"family = 4 and dst-ipv6 = yes disagree (line 7): dst-ipv6 = yes is family = 6; give one of them");
	expect_error(
		HEAD "[traffic]\ngenerator = udp-stream\ndst-ipv6 = no\nfamily = 6\n", 8,
		"family = 6 and dst-ipv6 = no disagree (line 7): dst-ipv6 = yes is family = 6; give one of them");
	/* the generator's allowed keys list it */
	expect_error(
		HEAD "[traffic]\ngenerator = rr\nrate = 3\n", 7,
		"unknown option 'rate' for generator 'rr' (allowed: generator, proto, req-size, resp-size, count, port, crr, backlog, flows, family)");
}

/* A family axis: the IPv4 cases keep the names they had without it. */
static void test_family__matrix_axis_names_only_v6_cases(void **state)
{
	char *path = write_scn(HEAD "[traffic]\ngenerator = tcp-stream\n\n[matrix]\n"
				    "direction = A>B B>A\nfamily = 4 6\n\n[checks]\n"
				    "g[family=6] = snmp6.B.Ip6InReceives > 0\n"
				    "g[family=4] = snmp.B.Ip.InReceives > 0\n");
	struct scenario **cases = NULL;
	char *err = NULL, *file;
	size_t n = 0;

	(void)state;
	if (scn_parse_cases(path, &cases, &n, &err))
		fail_msg("%s", err);
	assert_int_equal(n, 4);
	assert_non_null(strstr(cases[0]->name, "[direction=A>B]"));
	assert_false(scn_traffic_v6(cases[0]));
	assert_non_null(strstr(cases[1]->name, "[direction=A>B,family=6]"));
	assert_true(scn_traffic_v6(cases[1]));
	assert_non_null(strstr(cases[2]->name, "[direction=B>A]"));
	file = scn_file_name(cases[0]);
	assert_non_null(strstr(file, "+AtoB"));
	assert_null(strstr(file, "+4"));
	free(file);
	file = scn_file_name(cases[3]);
	assert_non_null(strstr(file, "+BtoA+6"));
	free(file);
	for (size_t i = 0; i < n; i++)
		scn_free(cases[i]);
	free(cases);
	unlink(path);
	free(path);
}

static void test_family__coverage_axis(void **state)
{
	struct scenario *s4 = parse_text(HEAD "[traffic]\ngenerator = rr\n");
	struct scenario *s6 = parse_text(HEAD "[traffic]\ngenerator = rr\nfamily = 6\n");
	const char *models[VM_MAX_NICS] = { "virtio-net", "e1000e" };
	struct coverage cv;

	(void)state;
	memset(&cv, 0, sizeof(cv));
	coverage_add(&cv, s4, models);
	coverage_add(&cv, s6, models);
	coverage_add(&cv, s6, models);
	assert_string_equal(coverage_axis_name(COV_AX_FAMILY), "family");
	assert_int_equal(coverage_axis_values(COV_AX_FAMILY), 2);
	assert_string_equal(coverage_axis_value(COV_AX_FAMILY, 1), "6");
	assert_int_equal(cv.ax[COV_AX_FAMILY][0], 1);
	assert_int_equal(cv.ax[COV_AX_FAMILY][1], 2);
	scn_free(s4);
	scn_free(s6);
}

/*
 * The topology axis: the kinds of path of each scenario's topology (a
 * shipped topology file's hops, VLANs and tunnel), crossed with the family.
 */
static void test_family__coverage_topology_axis(void **state)
{
	static const char *const topos[] = { "loop", "router", "bridge-vlan", "vxlan" };
	const char *models[VM_MAX_NICS] = { "virtio-net", "e1000e" };
	struct coverage cv;

	(void)state;
	memset(&cv, 0, sizeof(cv));
	for (size_t i = 0; i < ARRAY_SIZE(topos); i++) {
		char *text = xasprintf("[scenario]\ndescription = x\ntopology = %s\n\n"
				       "[traffic]\ngenerator = udp-stream\nfamily = %d\n",
				       topos[i], i % 2 ? 6 : 4);
		struct scenario *s = parse_text(text);

		coverage_add(&cv, s, models);
		scn_free(s);
		free(text);
	}
	assert_string_equal(coverage_axis_name(COV_AX_TOPOLOGY), "topology");
	assert_int_equal(coverage_axis_values(COV_AX_TOPOLOGY), 5);
	assert_string_equal(coverage_axis_value(COV_AX_TOPOLOGY, 0), "link");
	assert_int_equal(cv.ax[COV_AX_TOPOLOGY][0], 1);	/* loop */
	assert_int_equal(cv.ax[COV_AX_TOPOLOGY][1], 1);	/* router: forwarding */
	assert_int_equal(cv.ax[COV_AX_TOPOLOGY][2], 1);	/* bridge-vlan: bridge */
	assert_int_equal(cv.ax[COV_AX_TOPOLOGY][3], 1);	/* bridge-vlan: vlan */
	assert_int_equal(cv.ax[COV_AX_TOPOLOGY][4], 1);	/* vxlan: tunnel, no link */
	assert_int_equal(cv.topo_family[1][1], 1);	/* router, IPv6 */
	assert_int_equal(cv.topo_family[1][0], 0);
	assert_int_equal(cv.topo_family[3][0], 1);	/* bridge-vlan, IPv4 */
	assert_int_equal(cv.topo_family[4][1], 1);	/* vxlan, IPv6 */
}

/* The loss story of an IPv6 run names its IPv6 layer from the snmp6 counters. */
static void test_family__loss_story_names_the_ipv6_layer(void **state)
{
	struct metrics *m = metrics_new();
	char *story;

	(void)state;
	metrics_set(m, "loss.app_sent", 1000);
	metrics_set(m, "loss.lost_before_wire", 0);
	metrics_set(m, "loss.tx_stack_drops", 0);
	metrics_set(m, "loss.wire_tx", 1000);
	metrics_set(m, "loss.wire_rx", 1000);
	metrics_set(m, "loss.lost_on_wire", 0);
	metrics_set(m, "loss.driver_drops", 0);
	metrics_set(m, "loss.lost_in_stack", 40);
	metrics_set(m, "loss.rx_stack_drops", 40);
	metrics_set(m, "loss.app_received", 960);
	metrics_set(m, "loss.unaccounted", 0);
	metrics_set(m, "snmp6.B.Ip6InDiscards", 40);
	metrics_set(m, "snmp6.B.Ip6ReasmReqds", 80);
	metrics_set(m, "snmp6.B.Ip6ReasmOKs", 30);
	metrics_set(m, "snmp6.B.Ip6ReasmFails", 10);
	metrics_set(m, "snmp6.A.Ip6OutRequests", 1000); /* not a drop */
	story = regress_loss_story(m);
	assert_non_null(story);
	assert_non_null(strstr(story, "IPv6 layer at B: Ip6InDiscards 40, Ip6ReasmFails 10"));
	assert_non_null(strstr(
		story,
		"IPv6 reassembly at B: 80 fragments -> 30 datagrams, 10 failed, 0 timed out (Ip6Reasm*)"));
	assert_non_null(strstr(story, "40 in the receiver's stack"));
	assert_null(strstr(story, "IPv6 layer at A"));
	assert_null(strstr(story, "IPv4"));
	free(story);
	metrics_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_family__every_generator_takes_it),
		cmocka_unit_test(test_family__per_named_section),
		cmocka_unit_test(test_family__bad_value_and_disagreement_name_the_line),
		cmocka_unit_test(test_family__matrix_axis_names_only_v6_cases),
		cmocka_unit_test(test_family__coverage_axis),
		cmocka_unit_test(test_family__coverage_topology_axis),
		cmocka_unit_test(test_family__loss_story_names_the_ipv6_layer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
