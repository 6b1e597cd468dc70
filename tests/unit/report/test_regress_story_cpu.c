// SPDX-License-Identifier: GPL-2.0
/*
 * The loss story's layers of many CPUs, queues and flows (regress-story.c):
 * softnet per CPU, the driver per queue, the flows that lost datagrams.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/metrics.h"
#include "scenario/regress.h"
#include "lib/util.h"

static void assert_has(const char *s, const char *needle)
{
	if (!s || !strstr(s, needle))
		fail_msg("'%s' lacks '%s'", s ? s : "(null)", needle);
}

static struct metrics *udp_run(double cpu0_dropped, double cpu1_dropped)
{
	struct metrics *m = metrics_new();

	metrics_set(m, "loss.app_sent", 1000);
	metrics_set(m, "loss.lost_before_wire", 0);
	metrics_set(m, "loss.wire_tx", 1000);
	metrics_set(m, "loss.wire_rx", 1000);
	metrics_set(m, "loss.lost_on_wire", 0);
	metrics_set(m, "loss.lost_in_stack", 0);
	metrics_set(m, "loss.app_received", 1000 - cpu0_dropped - cpu1_dropped);
	metrics_set(m, "loss.unaccounted", 0);
	metrics_set(m, "softnet.cpu0.processed", 600);
	metrics_set(m, "softnet.cpu0.dropped", cpu0_dropped);
	metrics_set(m, "softnet.cpu1.processed", 400);
	metrics_set(m, "softnet.cpu1.dropped", cpu1_dropped);
	return m;
}

static void test_regress_story_cpu__backlog_drop_names_the_cpu(void **state)
{
	struct metrics *m = udp_run(0, 37);
	char *story;

	metrics_set(m, "drops.reason.CPU_BACKLOG", 37);
	/* between B's wire and its IP layer, at the backlog: collect_nic_rx
	 * (scnrun-loss.c) leaves them out of the NIC/driver's lost */
	metrics_set(m, "nicrx.B.wire", 1000);
	metrics_set(m, "nicrx.B.ip", 963);
	metrics_set(m, "nicrx.B.backlog", 37);
	metrics_set(m, "nicrx.B.lost", 0);
	metrics_set(m, "nicrx.B.silent", 0);
	story = regress_loss_story(m);
	assert_has(story, "packets went missing:");
	assert_has(story, " 37 frames dropped at CPU 1's backlog (softnet dropped; RPS/netif_rx queue full, netdev_max_backlog);");
	assert_has(story, "the trace saw 37 kfree_skb with reason CPU_BACKLOG");
	assert_has(story, "B 1000 on its wire -> 963 at IP (-37 at a CPU's backlog, after its driver)");
	if (strstr(story, "NIC B's NIC/driver"))
		fail_msg("the backlog's drops blamed on the driver: '%s'", story);
	if (strstr(story, "CPU 0's backlog"))
		fail_msg("CPU 0 dropped nothing: '%s'", story);
	free(story);
	metrics_free(m);
}

/* A silent driver loss on one queue of two: the queue is named, the other cleared. */
static void test_regress_story_cpu__driver_loss_names_the_queue(void **state)
{
	struct metrics *m = udp_run(0, 0);
	char *story;

	metrics_set(m, "nicrx.B.wire", 1000);
	metrics_set(m, "nicrx.B.ip", 643);
	metrics_set(m, "nicrx.B.lost", 357);
	metrics_set(m, "drv.ethB.rx.no_handoff", 357);
	metrics_set(m, "drv.ethB.q0.rx.descs", 3010);
	metrics_set(m, "drv.ethB.q0.rx.handoffs", 3010);
	metrics_set(m, "drv.ethB.q1.rx.descs", 1004);
	metrics_set(m, "drv.ethB.q1.rx.handoffs", 647);
	story = regress_loss_story(m);
	assert_has(story, "driver: ethB completed 357 received descriptors without handing them to the stack; "
			  "queue 0 lost none (3010); queue 1: 1004 descriptors, 647 handed up (-357)");
	free(story);
	metrics_free(m);
}

/* Several flows: the ones that lost, the most first, each through its layers. */
static void test_regress_story_cpu__lossy_flows_named(void **state)
{
	struct metrics *m = udp_run(0, 0);
	char *story;

	metrics_set(m, "loss.lost_in_stack", 30);
	metrics_set(m, "loss.misdelivered", 30);
	metrics_set(m, "udp.flows", 3);
	for (int k = 0; k < 3; k++) {
		char n[64];

		snprintf(n, sizeof(n), "udp.flow.%d.sent", k);
		metrics_set(m, n, 100);
		snprintf(n, sizeof(n), "udp.flow.%d.sport", k);
		metrics_set(m, n, 41000 + k);
		snprintf(n, sizeof(n), "udp.flow.%d.wire_tx", k);
		metrics_set(m, n, 100);
		snprintf(n, sizeof(n), "udp.flow.%d.wire_rx", k);
		metrics_set(m, n, 100);
		snprintf(n, sizeof(n), "udp.flow.%d.unique", k);
		metrics_set(m, n, k == 2 ? 70 : 100);
		snprintf(n, sizeof(n), "udp.flow.%d.lost", k);
		metrics_set(m, n, k == 2 ? 30 : 0);
		snprintf(n, sizeof(n), "udp.flow.%d.misdelivered", k);
		metrics_set(m, n, k == 2 ? 30 : 0);
	}
	story = regress_loss_story(m);
	assert_has(story, "flows: 1 of 3 lost datagrams (the most first):\n        flow 2 (source port 41002): "
			  "sent 100 -> sender's wire 100 -> receiver's wire 100 -> its socket 70, lost 30, "
			  "of them 30 delivered to another flow's socket (socket demux)");
	assert_has(story, "30 of them delivered by the stack to another flow's socket (socket demux");
	if (strstr(story, "flow 0") || strstr(story, "flow 1 "))
		fail_msg("flows that lost nothing named: '%s'", story);
	free(story);
	metrics_free(m);
}

static void test_regress_story_cpu__no_drops_no_sentence(void **state)
{
	struct metrics *m = udp_run(0, 0);
	char *story = regress_loss_story(m);

	if (strstr(story, "backlog") || strstr(story, "went missing"))
		fail_msg("no drops, yet: '%s'", story);
	free(story);
	metrics_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regress_story_cpu__backlog_drop_names_the_cpu),
		cmocka_unit_test(test_regress_story_cpu__driver_loss_names_the_queue),
		cmocka_unit_test(test_regress_story_cpu__lossy_flows_named),
		cmocka_unit_test(test_regress_story_cpu__no_drops_no_sentence),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
