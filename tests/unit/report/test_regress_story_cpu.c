// SPDX-License-Identifier: GPL-2.0
/* The loss story's CPU backlog layer (regress-story.c): softnet per CPU. */
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
		cmocka_unit_test(test_regress_story_cpu__no_drops_no_sentence),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
