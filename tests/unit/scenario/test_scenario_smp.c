// SPDX-License-Identifier: GPL-2.0
/*
 * SMP guests, multi-queue NICs and steering in scenario files
 * (scenario-smp.c): cpus, cpus.a/b, queues.L, irq.L, rps.L, xps.L, rfs;
 * each bad value with its FILE:LINE, and the guest script's lines.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nicmodel.h"
#include "run/run.h"
#include "scenario/scenario.h"
#include "scenario/scnrun.h"

#ifndef FIXTURES
#define FIXTURES "tests/unit/fixtures"
#endif

static struct scenario *parse_ok(const char *name)
{
	char *path = xasprintf("%s/scenarios/%s", FIXTURES, name), *err = NULL;
	struct scenario *s = NULL;

	if (scn_parse(path, &s, &err))
		fail_msg("%s", err);
	free(path);
	return s;
}

static void expect_error(const char *name, unsigned int line, const char *msg)
{
	char *path = xasprintf("%s/scenarios/%s", FIXTURES, name), *err = NULL, *want;
	struct scenario *s = NULL;

	assert_int_equal(scn_parse(path, &s, &err), -EINVAL);
	assert_null(s);
	want = xasprintf("%s:%u: %s", path, line, msg);
	assert_non_null(err);
	assert_string_equal(err, want);
	free(want);
	free(err);
	free(path);
}

static char *script_of(const struct scenario *s, unsigned int vm)
{
	struct vm_config cfg;
	struct run_opts o;
	struct sbuf b;
	char *err = NULL;

	run_opts_init(&o);
	o.topology = s->topo->name;
	for (int i = 0; i < VM_MAX_NICS; i++)
		o.nic_model[i] = s->nic_model[i] ? s->nic_model[i]->name : NULL;
	assert_int_equal(run_config(&o, &cfg, &err), 0);
	sbuf_init(&b);
	assert_int_equal(scnrun_script(s, &cfg, vm, &b, &err), 0);
	return sbuf_detach(&b);
}

static void expect(const char *script, const char *needle)
{
	if (!strstr(script, needle))
		fail_msg("script lacks '%s':\n%s", needle, script);
}

static void test_scenario_smp__every_key_parsed(void **state)
{
	struct scenario *s = parse_ok("good-smp.scn");

	assert_int_equal(s->cpus, 2);
	assert_int_equal(scn_vm_cpus(s, 0), 2);
	assert_int_equal(s->queues[1], 2);
	assert_int_equal(s->n_irq[1], 2);
	assert_int_equal(s->irq[1][0], 0);
	assert_int_equal(s->irq[1][1], 1);
	assert_string_equal(s->rps[1], "3");	/* 0x3, as the kernel writes it */
	assert_string_equal(s->xps[1], "1");
	assert_null(s->rps[0]);
	assert_int_equal(s->rfs, 4096);
	assert_string_equal(s->rxhash[1], "udp4 sdfn");
	assert_null(s->rxhash[0]);
	assert_true(scn_has_steering(s));
	assert_true(scn_has_queues(s));
	scn_free(s);
}

static void test_scenario_smp__defaults_are_one_cpu_no_steering(void **state)
{
	struct scenario *s = parse_ok("good-udp.scn");
	char *sc = script_of(s, 0);

	assert_int_equal(scn_vm_cpus(s, 0), 1);
	assert_false(scn_has_steering(s));
	assert_false(scn_has_queues(s));
	/* nothing of this part in a default scenario's script */
	assert_null(strstr(sc, "ethtool -L"));
	assert_null(strstr(sc, "queues-"));
	assert_null(strstr(sc, "guest.cpus"));
	free(sc);
	scn_free(s);
}

static void test_scenario_smp__pair_cpus_per_vm(void **state)
{
	struct scenario *s = parse_ok("good-smp-pair.scn");

	assert_int_equal(scn_vm_cpus(s, 0), 1);
	assert_int_equal(scn_vm_cpus(s, 1), 2);
	scn_free(s);
}

static void test_scenario_smp__matrix_axes(void **state)
{
	char *path = xasprintf("%s/scenarios/good-smp-matrix.scn", FIXTURES), *err = NULL;
	struct scenario **cases = NULL;
	size_t n = 0;

	if (scn_parse_cases(path, &cases, &n, &err))
		fail_msg("%s", err);
	assert_int_equal(n, 4);
	assert_int_equal(scn_vm_cpus(cases[0], 0), 1);
	assert_int_equal(cases[0]->queues[1], 1);
	assert_int_equal(scn_vm_cpus(cases[3], 0), 2);
	assert_int_equal(cases[3]->queues[1], 2);
	for (size_t i = 0; i < n; i++)
		scn_free(cases[i]);
	free(cases);
	free(path);
}

/* A mask may name CPUs the VM lacks (a cpus axis beside it); 0 is off. */
static void test_scenario_smp__mask_beyond_the_cpus_and_zero(void **state)
{
	struct scenario *s = parse_ok("good-rps-beyond.scn");
	char *sc;

	assert_string_equal(s->rps[1], "3");
	assert_null(s->xps[1]);
	/* written as the VM's CPUs of it: the kernel refuses bits past its last CPU */
	sc = script_of(s, 0);
	expect(sc, "/sys/class/net/ethB/queues/rx-*/rps_cpus; do echo 1 > $f");
	assert_null(strstr(sc, "xps_cpus; do"));
	free(sc);
	scn_free(s);
}

static void test_scenario_smp__bad_values_name_file_and_line(void **state)
{
	expect_error("bad-cpus.scn", 2, "bad cpus '9': expected a CPU count in 1..8");
	expect_error("bad-cpus-loop.scn", 3,
		     "cpus.b, but topology 'loop' has one VM (use cpus)");
	expect_error("bad-rps-hex.scn", 3,
		     "bad rps.B '0xg1': expected a hex CPU mask, 0 (off) or 1..ff (CPU 0 is 1, CPUs 0 and 1 are 3)");
	expect_error("bad-rps-mask.scn", 4,
		     "rps.B = 4 names none of the CPUs of NIC B's VM: it has 2 (CPUs 0..1; set cpus)");
	expect_error("bad-irq-cpu.scn", 5,
		     "irq.B: CPU 2 is not one of the 2 of NIC B's VM (CPUs 0..1; set cpus)");
	expect_error("bad-irq-queues.scn", 5,
		     "irq.B lists 2 CPUs, one per queue, but NIC B has 1 queue (set queues.B)");
	expect_error("bad-xps-onequeue.scn", 3,
		     "xps.A: NIC A (e1000e) has one transmit queue here; XPS maps several to CPUs (set queues.A, on a model that has them)");
	expect_error("bad-rxhash.scn", 3,
		     "bad rxhash.B 'udp4 sdq': expected FLOW FIELDS as ethtool -N rx-flow-hash takes them, e.g. 'udp4 sdfn' (FLOW tcp4, udp4, sctp4, tcp6, udp6, sctp6; FIELDS of m v t s d f n r)");
	expect_error("bad-queues-label.scn", 2,
		     "queues.C for NIC C, but topology 'loop' has NICs A..B");
}

/* A model that cannot carry the queues says so, with its maximum and why. */
static void test_scenario_smp__queue_limits_of_the_models(void **state)
{
	expect_error("bad-queues-e1000e.scn", 3,
		     "queues.B = 2: NIC model 'e1000e' carries at most 1 queue (QEMU's 82574L has two RSS queues, but Linux's e1000e driver uses one)");
	expect_error("bad-queues-virtio.scn", 4,
		     "queues.B = 2: NIC model 'virtio-net' carries at most 1 queue (virtio-net multiqueue needs mq=on and a tap or vhost netdev with queues=N; netlab's links (hub ports, datagram sockets) carry one queue)");
	assert_int_equal(nic_model_find("igb")->queues_max, 8);
	assert_int_equal(nic_model_find("e1000")->queues_max, 1);
	for (size_t i = 0; i < nic_models_n; i++)
		assert_non_null(nic_models[i].queues_why);
}

static void test_scenario_smp__script_sets_queues_irqs_and_steering(void **state)
{
	struct scenario *s = parse_ok("good-smp.scn");
	char *sc = script_of(s, 0);

	expect(sc, "/sbin/ip netns exec b /usr/sbin/ethtool -L ethB combined 2 2>$O/ethtool-L.err || "
		   "setup_error \"queues.B = 2: ethtool -L ethB combined 2 refused");
	expect(sc, "$NF ~ /^ethB(-[A-Za-z]+-0)?$/");
	expect(sc, "$NF ~ /^ethB-[A-Za-z]+-1$/");
	expect(sc, "do echo 1 > /proc/irq/$i/smp_affinity_list");
	expect(sc, "/sbin/ip netns exec b sh -c 'for f in /sys/class/net/ethB/queues/rx-*/rps_cpus; "
		   "do echo 3 > $f || exit 1; done'");
	expect(sc, "setup_error \"rps.B = 3: rps_cpus of ethB refused");
	expect(sc, "/sys/class/net/ethB/queues/tx-*/xps_cpus; do echo 1 > $f");
	expect(sc, "/sbin/ip netns exec b /usr/sbin/ethtool -N ethB rx-flow-hash udp4 sdfn 2>$O/ethtool-N.err || "
		   "setup_error \"rxhash.B = udp4 sdfn: ethtool -N ethB rx-flow-hash refused");
	expect(sc, "echo 4096 > /proc/sys/net/core/rps_sock_flow_entries");
	expect(sc, "echo $((4096 / q)) > $f");
	expect(sc, "> $O/queues-B 2>&1");
	expect(sc, "note guest.cpus $(grep -c ^processor /proc/cpuinfo)");
	/* queues before the rings, the steering before the traffic */
	assert_true(strstr(sc, "ethtool -L") < strstr(sc, "snap before"));
	free(sc);
	scn_free(s);
}

/* irq.L.qN = CPU: that queue alone; the others keep their affinity. */
static void test_scenario_smp__irq_per_queue(void **state)
{
	struct scenario *s = parse_ok("good-irq-queue.scn");
	char *sc;

	assert_int_equal(s->n_irq[1], 2);
	assert_int_equal(s->irq[1][0], SCN_IRQ_KEEP);
	assert_int_equal(s->irq[1][1], 1);
	sc = script_of(s, 0);
	expect(sc, "$NF ~ /^ethB-[A-Za-z]+-1$/");
	expect(sc, "do echo 1 > /proc/irq/$i/smp_affinity_list");
	assert_null(strstr(sc, "$NF ~ /^ethB(-[A-Za-z]+-0)?$/"));
	free(sc);
	scn_free(s);
	expect_error("bad-irq-queue-n.scn", 5, "irq.B.q3: NIC B has 2 queues, 0..1 (set queues.B)");
	expect_error("bad-irq-forms.scn", 6,
		     "irq.B.q1: irq.B already gave every queue's CPU (line 5); use one form");
	expect_error("bad-irq-qkey.scn", 5,
		     "bad key 'irq.B.x1': expected irq.B.qN with N a queue in 0..63");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scenario_smp__every_key_parsed),
		cmocka_unit_test(test_scenario_smp__defaults_are_one_cpu_no_steering),
		cmocka_unit_test(test_scenario_smp__pair_cpus_per_vm),
		cmocka_unit_test(test_scenario_smp__matrix_axes),
		cmocka_unit_test(test_scenario_smp__mask_beyond_the_cpus_and_zero),
		cmocka_unit_test(test_scenario_smp__bad_values_name_file_and_line),
		cmocka_unit_test(test_scenario_smp__queue_limits_of_the_models),
		cmocka_unit_test(test_scenario_smp__script_sets_queues_irqs_and_steering),
		cmocka_unit_test(test_scenario_smp__irq_per_queue),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
