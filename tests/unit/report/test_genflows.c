// SPDX-License-Identifier: GPL-2.0
/*
 * The generators' per-flow table (report/genflows.h): which names are flows,
 * the first-section copies left out, the orders, and the text table.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/metrics.h"
#include "report/genflows.h"
#include "lib/util.h"

static void udp_flow(struct metrics *m, const char *pfx, int k, double sent, double lost,
		     double mis, double p99)
{
	char n[128];

#define SET(what, v)                                                   \
	do {                                                           \
		snprintf(n, sizeof(n), "%sudp.flow.%d." what, pfx, k); \
		metrics_set(m, n, v);                                  \
	} while (0)
	SET("sport", 41000 + k);
	SET("sent", sent);
	SET("unique", sent - lost);
	SET("lost", lost);
	SET("misdelivered", mis);
	SET("latency_us.p50", p99 / 2);
	SET("latency_us.p99", p99);
	SET("rx_cpu", k % 2);
#undef SET
}

static void tcp_flow(struct metrics *m, const char *pfx, int k, double bytes, double retrans)
{
	char n[128];

	snprintf(n, sizeof(n), "%stcp.flow.%d.sport", pfx, k);
	metrics_set(m, n, 38000 + k);
	snprintf(n, sizeof(n), "%stcp.flow.%d.bytes", pfx, k);
	metrics_set(m, n, bytes);
	snprintf(n, sizeof(n), "%stcp.flow.%d.retransmits", pfx, k);
	metrics_set(m, n, retrans);
}

/* Named sections: their flows, once each; the unprefixed copies are left out. */
static void test_genflows__sections_once_each_by_loss(void **state)
{
	struct metrics *m = metrics_new();
	struct genflow *g = NULL;
	size_t n;

	for (int k = 0; k < 12; k++) {
		udp_flow(m, "traffic.dgram.", k, 100, k == 7 ? 5 : 0, k == 3 ? 2 : 0, 100 + k);
		udp_flow(m, "", k, 100, k == 7 ? 5 : 0, k == 3 ? 2 : 0, 100 + k);
	}
	tcp_flow(m, "traffic.bulk.", 0, 1e6, 0);
	tcp_flow(m, "traffic.bulk.", 1, 2e6, 3);
	tcp_flow(m, "", 0, 1e6, 0);
	metrics_set(m, "udp.flows", 12);		/* not a flow */
	metrics_set(m, "udp.flow.x.sport", 1);		/* not a flow index */
	metrics_set(m, "traffic.dgram.udp.flow.0.sport.x", 1); /* not the sport */
	n = genflows_collect(m, GENFLOW_BY_LOSS, &g);
	assert_int_equal(n, 14);
	/* most lost (lost + misdelivered) first, then retransmits */
	assert_int_equal(g[0].k, 7);
	assert_false(g[0].tcp);
	assert_string_equal(g[0].section, "dgram");
	assert_string_equal(g[0].prefix, "traffic.dgram.udp.flow.7.");
	assert_true(g[0].lost == 5 && g[0].unique == 95);
	assert_int_equal(g[1].k, 3);
	assert_true(g[1].misdelivered == 2);
	assert_true(g[2].tcp && g[2].k == 1 && g[2].retransmits == 3);
	/* TCP flows lack UDP's counts: NAN, not 0 */
	assert_true(isnan(g[2].sent) && isnan(g[2].p99_us));
	/* ties: by section, then index */
	assert_string_equal(g[3].section, "bulk");
	assert_string_equal(g[4].section, "dgram");
	assert_int_equal(g[4].k, 0);
	free(g);

	n = genflows_collect(m, GENFLOW_BY_LATENCY, &g);
	assert_int_equal(n, 14);
	assert_int_equal(g[0].k, 11);
	free(g);
	n = genflows_collect(m, GENFLOW_BY_BYTES, &g);
	assert_true(g[0].tcp && g[0].bytes == 2e6);
	free(g);
	metrics_free(m);
}

/* A plain [traffic]: the unprefixed names are the flows. */
static void test_genflows__plain_traffic(void **state)
{
	struct metrics *m = metrics_new();
	struct genflow *g = NULL;
	char *buf = NULL;
	size_t len = 0, n;
	FILE *f;

	for (int k = 0; k < 3; k++)
		udp_flow(m, "", k, 50, k, 0, 10);
	n = genflows_collect(m, GENFLOW_BY_LOSS, &g);
	assert_int_equal(n, 3);
	assert_string_equal(g[0].section, "");
	assert_int_equal(g[0].k, 2);
	f = open_memstream(&buf, &len);
	genflows_print(f, g, n, 2, GENFLOW_BY_LOSS);
	fclose(f);
	assert_non_null(strstr(buf, "Generator flows, top 2 by loss"));
	assert_non_null(strstr(buf, "  -            udp      2  41002       50       48      2"));
	assert_non_null(strstr(buf, "... 1 more flows"));
	free(buf);
	free(g);
	metrics_free(m);
	/* none */
	g = NULL;
	assert_int_equal(genflows_collect(NULL, GENFLOW_BY_LOSS, &g), 0);
	free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_genflows__sections_once_each_by_loss),
		cmocka_unit_test(test_genflows__plain_traffic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
