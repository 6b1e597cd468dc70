// SPDX-License-Identifier: GPL-2.0
/*
 * The transmit side of each NIC's driver layer (txpath) on runs recorded
 * with planted e1000e regressions (fixtures/runs/tx-*, make-history.sh's
 * txsilent-culprit and tcpstall-culprit built as modules) and on a clean
 * run (lean-udp). The expected counts come from trace-cmd report, followed
 * skb by skb with a script of their own:
 *	trace-cmd report -i FILE | python3 txcount.py
 * (net_dev_start_xmit opens an skb, the driver's xmit line marks it,
 * net_dev_xmit rc=0 counts it: IPv4, with descriptors, without), and the
 * frames on the wire with
 *	tcpdump -r nic-A.pcap 'ether src 52:54:00:4e:4c:0a and ip' | wc -l
 * Then the loss story told from each run's metrics.json.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "run/pcapcsum.h"
#include "trace/txpath.h"
#include "lib/metrics.h"
#include "scenario/regress.h"
#include "lib/util.h"

#ifndef FIXTURES
#define FIXTURES "tests/unit/fixtures"
#endif
#define RUNS FIXTURES "/runs/"

static struct txpath *read_run(const char *run)
{
	char *path = xasprintf(RUNS "%s/files/trace.dat", run), *err = NULL;
	struct txpath *t = NULL;
	int ret = txpath_read(path, &t, &err);

	if (ret)
		print_error("%s: %d %s\n", path, ret, err ? err : "");
	assert_int_equal(ret, 0);
	assert_null(err);
	free(path);
	return t;
}

static const struct txpath_dev *dev(const struct txpath *t, const char *name)
{
	for (size_t i = 0; i < t->n_devs; i++)
		if (!strcmp(t->devs[i].name, name))
			return &t->devs[i];
	fail_msg("no device %s", name);
	return NULL;
}

static struct metrics *run_metrics(const char *run)
{
	char *path = xasprintf(RUNS "%s/metrics.json", run);
	struct json_object *o = json_object_from_file(path);
	struct metrics *m = metrics_new();

	assert_non_null(o);
	assert_true(metrics_add_json(m, NULL, o) > 0);
	json_object_put(o);
	free(path);
	return m;
}

static void assert_has(const char *text, const char *needle)
{
	if (!text || !strstr(text, needle))
		fail_msg("'%s' lacks '%s'", text ? text : "(null)", needle);
}

/* txsilent: frames of 600..899 B consumed in e1000_xmit_frame without a descriptor. */
static void test_txpath__silent_drop_without_descriptor(void **state)
{
	struct txpath *t = read_run("tx-silent");
	const struct txpath_dev *a = dev(t, "ethA"), *b = dev(t, "ethB");
	char *ev;

	assert_int_equal(t->lost, 0);
	assert_true(t->has_start && t->has_xmit && t->has_free);
	assert_true(a->lines);
	/* trace-cmd report: 305 IPv4 frames taken, 235 with an xmit line, 70 without */
	assert_int_equal(a->handed[TXPATH_V4], 305);
	assert_int_equal(a->handed[TXPATH_OTHER], 1);	/* the ARP request */
	assert_int_equal(a->desc, 235);
	assert_int_equal(txpath_dev_no_desc(a), 70);
	assert_int_equal(a->no_desc_consumed, 70);
	assert_int_equal(a->no_desc_freed, 0);
	assert_int_equal(a->completed, 235);
	assert_int_equal(a->in_flight, 0);
	/* skb->len 613..893: within the planted 600..899; and every frame of those sizes */
	assert_int_equal(a->no_desc_len.count, 70);
	assert_int_equal(a->no_desc_len.min, 613);
	assert_int_equal(a->no_desc_len.max, 893);
	assert_int_equal(a->handed_in_range, 70);
	assert_int_equal(a->period, 0);
	assert_int_equal(b->handed[TXPATH_V4], 0);
	assert_int_equal(txpath_dev_no_desc(b), 0);
	ev = txpath_dev_evidence(a);
	assert_has(ev, "ethA's driver took 70 frames without writing a descriptor");
	assert_has(ev, "all freed by consume_skb (no drop event, no counter: silent)");
	assert_has(ev, "every frame of 613..893 B it was handed (70), none of the others");
	free(ev);
	assert_null(txpath_dev_evidence(b));
	txpath_free(t);
}

/* tcpstall: every skb with page fragments freed by e1000_xmit_frame (kfree_skb). */
static void test_txpath__stall_frees_every_nonlinear_skb(void **state)
{
	struct txpath *t = read_run("tx-stall");
	const struct txpath_dev *a = dev(t, "ethA");
	char *ev;

	/* trace-cmd report: 19 IPv4 frames (GSO segments counted), 7 with descriptors, 16 without */
	assert_int_equal(a->handed[TXPATH_V4], 19);
	assert_int_equal(a->desc, 7);
	assert_int_equal(txpath_dev_no_desc(a), 16);
	assert_int_equal(a->no_desc_freed, 16);
	assert_int_equal(a->no_desc_consumed, 0);
	assert_string_equal(a->freed_reason, "NOT_SPECIFIED");
	assert_int_equal(strncmp(a->freed_at, "e1000_xmit_frame+0x", 19), 0);
	/* what they share: every dropped frame was non-linear, and no non-linear one got through */
	assert_int_equal(a->no_desc_has.nonlinear, 16);
	assert_int_equal(a->handed_has.nonlinear, 16);
	assert_true(a->gso_skbs > 0);
	ev = txpath_dev_evidence(a);
	assert_has(ev, "all freed by kfree_skb (NOT_SPECIFIED at e1000_xmit_frame+0x");
	assert_has(ev, "all with data in page fragments (non-linear), which 16 of the 23 handed were");
	free(ev);
	txpath_free(t);
}

/* A clean run: everything handed had its descriptors and completed. */
static void test_txpath__clean_run_drops_nothing(void **state)
{
	struct txpath *t = read_run("lean-udp");
	const struct txpath_dev *a = dev(t, "ethA");
	struct metrics *m = metrics_new();

	/* tcpdump: 318 IPv4 frames from A's MAC on its link */
	assert_int_equal(a->handed[TXPATH_V4], 318);
	assert_int_equal(txpath_dev_no_desc(a), 0);
	assert_int_equal(a->completed, a->desc);
	assert_null(txpath_dev_evidence(a));
	txpath_metrics(t, m);
	assert_true(metrics_value(m, "drv.ethA.tx.handed", -1) == 318);
	assert_true(metrics_value(m, "drv.ethA.tx.no_desc", -1) == 0);
	metrics_free(m);
	txpath_free(t);
}

/* The period of the drops: every k-th IP skb (a made-up device, through the metrics' story). */
static void test_txpath__pattern_names_sizes_traits_and_period(void **state)
{
	struct txpath_traits lost = { .csum_partial = 12, .gso = 0, .nonlinear = 12 };
	struct txpath_traits all = { .csum_partial = 96, .gso = 0, .nonlinear = 12 };
	struct sbuf b;

	sbuf_init(&b);
	txpath_pattern(&b, 12, &lost, &all, 96, 60, 1500, 96, 8, 7);
	assert_has(b.s, "12 of the 96 frames of 60..1500 B it was handed");
	assert_has(b.s, "all with data in page fragments (non-linear), which 12 of the 96 handed were");
	assert_has(b.s, "every 8th IP skb it was handed (positions 7 mod 8)");
	/* a trait every handed frame has says nothing */
	if (strstr(b.s, "CHECKSUM_PARTIAL"))
		fail_msg("'%s' names a trait all frames had", b.s);
	sbuf_release(&b);
}

/* The loss story from the runs' metrics: the sending NIC's driver, and the checksums. */
static void test_txpath__loss_story_names_the_senders_driver(void **state)
{
	struct metrics *m = run_metrics("tx-silent");
	char *story = regress_loss_story(m);

	assert_has(story, "-> sender's driver -70 -> wire 230");
	assert_has(story, "unaccounted 0");
	assert_has(story, "IPv4 frames out of each NIC: A 305 to its driver -> 235 on its wire (-70 in its driver/NIC)");
	assert_has(story, "driver: ethA took 70 frames to send without writing a descriptor, all freed by consume_skb (no drop event, no counter: silent), 613..893 B");
	assert_has(story, "every frame of 613..893 B it was handed (70), none of the others");
	assert_has(story, "70 IPv4 frames handed to NIC A's driver never reached its wire: the driver took them without writing a descriptor (no counter moved, no drop event: silent)");
	free(story);
	metrics_free(m);
	m = run_metrics("tx-csum");
	story = regress_loss_story(m);
	/* tshark -o udp.check_checksum:TRUE on nic-A.pcap: 57 bad, as Udp.InCsumErrors in b */
	assert_has(story, "checksums: NIC A put 57 packets with a bad UDP checksum on its link (its capture; 1001..1298 B");
	assert_has(story, "its tx checksum offload on");
	assert_has(story, "the receivers counted 57 checksum errors (InCsumErrors): the sender's doing, not the receiver's");
	assert_has(story, "57 in the receiver's stack (after the driver), 57 of them for checksums the sender's NIC got wrong");
	free(story);
	metrics_free(m);
}

/* txcsum: the capture of the sender's link holds the bad checksums the receiver counted. */
static void test_txpath__csum_fault_is_on_the_senders_link(void **state)
{
	const struct pcap_csum_sender *a;
	struct pcap_csum *c = NULL;
	char *err = NULL;
	uint8_t mac[6];

	assert_int_equal(pcap_csum_read(RUNS "tx-csum/nic-A.pcap", NULL, &c, &err), 0);
	assert_int_equal(pcap_csum_mac_parse("52:54:00:4e:4c:0a", mac), 0);
	a = pcap_csum_sender(c, mac);
	assert_non_null(a);
	/* tshark -o udp.check_checksum:TRUE -Y 'udp.checksum.status == "Bad"': 57; Udp.InCsumErrors of b: 57 */
	assert_int_equal(a->bad_kind[PCAP_CSUM_UDP].packets, 57);
	assert_int_equal(a->bad, 57);
	assert_true(a->bad_kind[PCAP_CSUM_UDP].len_min >= 1000);
	assert_true(a->bad_kind[PCAP_CSUM_UDP].len_max < 1300);
	pcap_csum_free(c);
}

static void test_txpath__bad_input(void **state)
{
	struct txpath *t = NULL;
	char *err = NULL;

	assert_int_equal(txpath_read(RUNS "tx-silent/no-such.dat", &t, &err), -ENOENT);
	assert_null(t);
	assert_has(err, "no-such.dat");
	free(err);
	err = NULL;
	/* a trace without net_dev_start_xmit: not an error of the file, just nothing to follow */
	assert_int_equal(txpath_read(FIXTURES "/traces/noport.dat", &t, &err), -ENODATA);
	assert_has(err, "net_dev_start_xmit");
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_txpath__silent_drop_without_descriptor),
		cmocka_unit_test(test_txpath__stall_frees_every_nonlinear_skb),
		cmocka_unit_test(test_txpath__clean_run_drops_nothing),
		cmocka_unit_test(test_txpath__pattern_names_sizes_traits_and_period),
		cmocka_unit_test(test_txpath__loss_story_names_the_senders_driver),
		cmocka_unit_test(test_txpath__csum_fault_is_on_the_senders_link),
		cmocka_unit_test(test_txpath__bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
