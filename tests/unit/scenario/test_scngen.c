// SPDX-License-Identifier: GPL-2.0
/*
 * The harness's generator descriptors (scenario/scngen.c): one per
 * traffic/ generator, each collect reached through its descriptor, the
 * metric families and the loss identity they declare, and the error of a
 * generator that has none.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "generators.h"
#include "lib/util.h"
#include "lib/metrics.h"
#include "scenario/scenario.h"
#include "scenario/scngen.h"
#include "scenario/scnrun-int.h"

/* Every tgen_all[] entry has a descriptor and no descriptor lacks a tgen, in one order. */
static void test_scngen__every_generator_has_one_descriptor(void **state)
{
	size_t n = 0;

	for (const struct tgen *g = tgen_all; g->name; g++, n++) {
		const struct scn_gen *d = scn_gen_find(g->name);

		if (!d)
			fail_msg("generator '%s' has no descriptor in scenario/scngen.c", g->name);
		assert_ptr_equal(d, &scn_gens[n]);
		assert_non_null(d->collect);
		assert_non_null(d->families);
	}
	assert_null(scn_gens[n].name);
}

/* Parse @text as a scenario file; its error (caller frees) and its path in @path. */
static char *parse_error(const char *text, char *path)
{
	int fd = mkstemp(path);
	struct scenario *s = NULL;
	char *err = NULL;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (int)strlen(text));
	close(fd);
	assert_int_equal(scn_parse(path, &s, &err), -EINVAL);
	assert_null(s);
	unlink(path);
	assert_non_null(err);
	return err;
}

/* An unknown name has no descriptor, and a scenario naming it gets today's error. */
static void test_scngen__unknown_generator_is_a_clear_error(void **state)
{
	char path[] = "/tmp/netlab-scngen-XXXXXX";
	char *err, *want;

	assert_null(scn_gen_find("iperf"));
	assert_null(scn_gen_find(NULL));
	err = parse_error("[scenario]\nduration = 5\n\n[traffic]\ngenerator = iperf\n\n"
			  "[checks]\nok = udp.lost == 0\n",
			  path);
	want = xasprintf("%s:5: unknown generator 'iperf' (generators: %s)", path,
			 scn_generator_list());
	assert_string_equal(err, want);
	assert_string_equal(scn_generator_list(), "udp-stream, tcp-stream, rr");
	free(want);
	free(err);
}

/* size = MIN..MAX: for the generators whose descriptor says so, named in the error. */
static void test_scngen__size_range_is_the_descriptors(void **state)
{
	char path[] = "/tmp/netlab-scngen-XXXXXX";
	char *err, *want;

	assert_string_equal(scn_gen_size_range_list(), "udp-stream");
	assert_true(scn_gen_find("udp-stream")->size_range);
	assert_false(scn_gen_find("tcp-stream")->size_range);
	err = parse_error("[traffic]\ngenerator = tcp-stream\nsize = 32..1472\n\n"
			  "[checks]\nok = tcp.bytes > 0\n",
			  path);
	want = xasprintf("%s:3: bad size '32..1472': a range MIN..MAX is for udp-stream only",
			 path);
	assert_string_equal(err, want);
	free(want);
	free(err);
}

static int name_check(const char *name, const char *gen, char **err)
{
	return metrics_name_check(name, scn_gen_metrics, gen, "AB", err);
}

/*
 * A descriptor's families are its tgen's metrics (first component
 * tgen->metric), and a flow that can stall can be checked for it: the
 * implicit no_stall check (METRIC.stalled == 0) names a metric it produces.
 */
static void test_scngen__families_are_the_generators_metrics(void **state)
{
	for (const struct scn_gen *d = scn_gens; d->name; d++) {
		const struct tgen *g = tgen_find(d->name);
		size_t len = strlen(g->metric);
		char *stalled = xasprintf("%s.stalled", g->metric);

		for (const char *const *f = d->families; *f; f++)
			if (strncmp(*f, g->metric, len) || (*f)[len] != '.')
				fail_msg("%s: family '%s' is not %s.*", d->name, *f, g->metric);
		assert_int_equal(name_check(stalled, d->name, NULL), g->can_stall ? 0 : -ENOENT);
		free(stalled);
	}
}

/* loss.* of the UDP identity: checkable with a generator that feeds it, only. */
static void test_scngen__loss_identity_owns_its_loss_families(void **state)
{
	const char *owner = NULL;
	char *err = NULL, *want;

	for (const struct scn_gen *d = scn_gens; d->name; d++) {
		assert_int_equal(name_check("loss.unaccounted", d->name, NULL),
				 d->loss_identity ? 0 : -ENOENT);
		/* Those of every scenario, whatever the generator. */
		assert_int_equal(name_check("loss.lost_in_driver", d->name, NULL), 0);
		if (d->loss_identity)
			owner = d->name;
	}
	assert_non_null(owner);
	for (const struct scn_gen *d = scn_gens; d->name; d++) {
		if (d->loss_identity)
			continue;
		assert_int_equal(name_check("loss.app_sent", d->name, &err), -ENOENT);
		want = xasprintf("metric 'loss.app_sent' is not produced by generator '%s' (it "
				 "comes from '%s')",
				 d->name, owner);
		assert_string_equal(err, want);
		free(want);
		free(err);
		err = NULL;
	}
}

/* The family list of an unknown metric's message: the generators' first, loss last. */
static void test_scngen__family_list_order_is_kept(void **state)
{
	char *err = NULL;

	assert_int_equal(name_check("flow.total", NULL, &err), -ENOENT);
	assert_string_equal(err, "unknown metric 'flow.total' (metric families: udp, tcp, rr, nic, "
				 "ring, offload, snmp, netstat, snmp6, softnet, queues, pcap, csum, qdisc, neigh, "
				 "drops, latency, flows, netrx, tx, acpi, irq, drv, nicrx, hop, nictx, "
				 "loss)");
	free(err);
}

/* A run directory of one VM with @tx_json and @rx_json as the ends' results. */
struct fake_run {
	char dir[64];
	struct vm_config cfg;
	struct metrics *m;
	char *err;
	struct collect c;
};

static void put(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(path);
}

static void fake_run(struct fake_run *r, const struct tgen *g, const char *tx_json,
		     const char *rx_json)
{
	memset(r, 0, sizeof(*r));
	strcpy(r->dir, "/tmp/netlab-scngen-run-XXXXXX");
	assert_non_null(mkdtemp(r->dir));
	if (tx_json)
		put(r->dir, g->tx_out, tx_json);
	if (rx_json)
		put(r->dir, g->rx_out, rx_json);
	r->cfg.n_nics = 2;
	r->m = metrics_new();
	r->c = (struct collect){ .cfg = &r->cfg, .m = r->m, .err = &r->err };
	r->c.files[0] = r->dir;
}

static void fake_run_release(struct fake_run *r, const struct tgen *g)
{
	char *p;

	p = xasprintf("%s/%s", r->dir, g->tx_out);
	unlink(p);
	free(p);
	p = xasprintf("%s/%s", r->dir, g->rx_out);
	unlink(p);
	free(p);
	rmdir(r->dir);
	metrics_free(r->m);
	free(r->err);
}

/* Each generator's results become its metrics through its descriptor's collect. */
static void test_scngen__collect_through_the_descriptor(void **state)
{
	for (const struct scn_gen *d = scn_gens; d->name; d++) {
		const struct tgen *g = tgen_find(d->name);
		struct fake_run r;
		char *stalled = xasprintf("%s.stalled", g->metric);
		double v = NAN;

		fake_run(&r, g, "{\"sent\": 10, \"transactions\": 7, \"failure\": {\"kind\": "
				"\"stalled\", \"idle_s\": 2.5}}",
			 "{\"unique\": 8, \"rx\": {\"bytes\": 100}}");
		assert_int_equal(d->collect(&r.c, g), 0);
		assert_null(r.err);
		if (d->loss_identity) {
			assert_true(metrics_get(r.m, "udp.lost", &v) && v == 2);
		}
		/* A flow that can stall says so; one that cannot has no such metric. */
		assert_int_equal(metrics_get(r.m, stalled, &v), g->can_stall);
		if (g->can_stall)
			assert_true(v == 1);
		fake_run_release(&r, g);
		free(stalled);
	}
}

/* A missing result is the run's error, named. */
static void test_scngen__collect_without_results_fails(void **state)
{
	for (const struct scn_gen *d = scn_gens; d->name; d++) {
		const struct tgen *g = tgen_find(d->name);
		struct fake_run r;

		fake_run(&r, g, NULL, NULL);
		assert_int_equal(d->collect(&r.c, g), -EINVAL);
		assert_non_null(r.err);
		assert_non_null(strstr(r.err, g->tx_out));
		fake_run_release(&r, g);
	}
}

/*
 * [traffic.NAME] sections: each one's results read from files/NAME/ into
 * traffic.NAME.*; the unprefixed udp.* and tcp.* are the first section of
 * their family's, not a later one's; traffic.sections counts them.
 */
static void test_scngen__sections_prefix_their_metrics(void **state)
{
	const struct tgen *u = tgen_find("udp-stream"), *t = tgen_find("tcp-stream");
	static const char *const names[] = { "bulk", "dgram", "late" };
	struct scenario *s = NULL;
	struct fake_run r;
	char *path, *err = NULL, *d;
	double v = NAN;

	fake_run(&r, u, NULL, NULL);
	path = xasprintf("%s/mixed.scn", r.dir);
	put(r.dir, "mixed.scn",
	    "[traffic.bulk]\ngenerator = tcp-stream\n[traffic.dgram]\ngenerator = udp-stream\n"
	    "port = 5301\n[traffic.late]\ngenerator = udp-stream\nport = 5302\nstart = 1.5\n"
	    "[checks]\nx = traffic.late.udp.lost == 0\n");
	if (scn_parse(path, &s, &err))
		fail_msg("%s", err);
	for (size_t i = 0; i < 3; i++) {
		d = xasprintf("%s/%s", r.dir, names[i]);
		assert_int_equal(mkdir(d, 0755), 0);
		free(d);
	}
	d = xasprintf("%s/bulk", r.dir);
	put(d, t->tx_out, "{\"tx\": {\"tcp_info\": {\"total_retrans\": 3}}}");
	put(d, t->rx_out, "{\"rx\": {\"bytes\": 500, \"goodput_bps\": 4000}}");
	free(d);
	d = xasprintf("%s/dgram", r.dir);
	put(d, u->tx_out, "{\"sent\": 10}");
	put(d, u->rx_out, "{\"unique\": 9}");
	free(d);
	d = xasprintf("%s/late", r.dir);
	put(d, u->tx_out, "{\"sent\": 20}");
	put(d, u->rx_out, "{\"unique\": 15}");
	free(d);
	r.c.s = s;
	assert_int_equal(scnrun_collect_sections(&r.c), 0);
	assert_null(r.err);
	assert_true(metrics_get(r.m, "traffic.sections", &v) && v == 3);
	assert_true(metrics_get(r.m, "traffic.bulk.tcp.goodput_bps", &v) && v == 4000);
	assert_true(metrics_get(r.m, "traffic.bulk.tcp.retransmits", &v) && v == 3);
	assert_true(metrics_get(r.m, "traffic.bulk.tcp.stalled", &v) && v == 0);
	assert_true(metrics_get(r.m, "tcp.goodput_bps", &v) && v == 4000);
	assert_true(metrics_get(r.m, "traffic.dgram.udp.lost", &v) && v == 1);
	assert_true(metrics_get(r.m, "traffic.late.udp.lost", &v) && v == 5);
	assert_true(metrics_get(r.m, "traffic.late.udp.flows", &v) && v == 1);
	/* The unprefixed UDP metrics: the first UDP section's (the loss identity's). */
	assert_true(metrics_get(r.m, "udp.lost", &v) && v == 1);
	assert_true(metrics_get(r.m, "udp.sent", &v) && v == 10);
	assert_false(metrics_get(r.m, "traffic.bulk.udp.lost", &v));
	/* traffic.all.*: the sums over the sections that have each */
	assert_true(metrics_get(r.m, "traffic.all.udp.sent", &v) && v == 30);
	assert_true(metrics_get(r.m, "traffic.all.udp.lost", &v) && v == 6);
	assert_true(metrics_get(r.m, "traffic.all.udp.unique", &v) && v == 24);
	assert_true(metrics_get(r.m, "traffic.all.tcp.goodput_bps", &v) && v == 4000);
	assert_false(metrics_get(r.m, "traffic.all.udp.latency_us.p50", &v));
	/* A section without results is the run's error. */
	d = xasprintf("%s/late/%s", r.dir, u->rx_out);
	unlink(d);
	free(d);
	assert_int_equal(scnrun_collect_sections(&r.c), -EINVAL);
	assert_non_null(strstr(r.err, "late/recv.json"));
	for (size_t i = 0; i < 3; i++) {
		const struct tgen *g = i ? u : t;

		d = xasprintf("%s/%s/%s", r.dir, names[i], g->tx_out);
		unlink(d);
		free(d);
		d = xasprintf("%s/%s/%s", r.dir, names[i], g->rx_out);
		unlink(d);
		free(d);
		d = xasprintf("%s/%s", r.dir, names[i]);
		rmdir(d);
		free(d);
	}
	unlink(path);
	free(path);
	scn_free(s);
	fake_run_release(&r, u);
}

/* Jain's index: 1 for equal shares, 1/n when one flow has all; min/max. */
static void test_scngen__fairness(void **state)
{
	double eq[] = { 5, 5, 5, 5 }, one[] = { 8, 0, 0, 0 }, two[] = { 1, 3 }, none[] = { 0, 0 };
	double j, mm;

	scn_gen_fairness(eq, 4, &j, &mm);
	assert_true(j == 1 && mm == 1);
	scn_gen_fairness(one, 4, &j, &mm);
	assert_true(j == 0.25 && mm == 0);
	scn_gen_fairness(two, 2, &j, &mm);
	assert_true(fabs(j - 16.0 / 20.0) < 1e-12 && fabs(mm - 1.0 / 3.0) < 1e-12);
	scn_gen_fairness(none, 2, &j, &mm);
	assert_true(isnan(j) && isnan(mm));
}

/*
 * udp-stream's flows become udp.flow.K.*, in the sender's order, matched by
 * id: a misdelivered datagram is a loss of its flow, a flow the receiver
 * never saw lost all it sent; the totals are the sums.
 */
static void test_scngen__udp_flows_matched_by_id(void **state)
{
	const struct tgen *g = tgen_find("udp-stream");
	struct fake_run r;
	double v = NAN;

	fake_run(&r, g,
		 "{\"sent\": 30, \"flows\": [{\"id\": 7, \"sport\": 40000, \"sent\": 10},"
		 " {\"id\": 8, \"sport\": 40001, \"sent\": 10},"
		 " {\"id\": 9, \"sport\": 40002, \"sent\": 10}]}",
		 "{\"unique\": 16, \"received\": 16, \"misdelivered\": 4,"
		 " \"flows\": [{\"id\": 8, \"unique\": 6, \"misdelivered\": 4, \"socket\": 1, \"cpu\": 1},"
		 " {\"id\": 7, \"unique\": 10, \"misdelivered\": 0, \"socket\": 0, \"cpu\": 0}],"
		 " \"sockets\": [{\"index\": 0, \"received\": 14}, {\"index\": 1, \"received\": 6},"
		 " {\"index\": 2, \"received\": 0}]}");
	assert_int_equal(tgen_find("udp-stream") == g, 1);
	assert_int_equal(scn_gen_find("udp-stream")->collect(&r.c, g), 0);
	assert_true(metrics_get(r.m, "udp.flows", &v) && v == 3);
	assert_true(metrics_get(r.m, "udp.flow.0.lost", &v) && v == 0);
	assert_true(metrics_get(r.m, "udp.flow.1.lost", &v) && v == 4);
	assert_true(metrics_get(r.m, "udp.flow.1.misdelivered", &v) && v == 4);
	assert_true(metrics_get(r.m, "udp.flow.1.rx_cpu", &v) && v == 1);
	assert_true(metrics_get(r.m, "udp.flow.2.lost", &v) && v == 10);
	assert_true(metrics_get(r.m, "udp.flow.2.sport", &v) && v == 40002);
	assert_true(metrics_get(r.m, "udp.flows_lossy", &v) && v == 2);
	assert_true(metrics_get(r.m, "udp.flow_lost_max", &v) && v == 10);
	assert_true(metrics_get(r.m, "udp.misdelivered", &v) && v == 4);
	assert_true(metrics_get(r.m, "udp.sockets", &v) && v == 3);
	assert_true(metrics_get(r.m, "udp.sockets_used", &v) && v == 2);
	assert_true(metrics_get(r.m, "udp.flow_share_min", &v) && v == 0);
	assert_true(metrics_get(r.m, "udp.lost", &v) && v == 14);
	fake_run_release(&r, g);
}

/* tcp-stream's connections matched by the sender's port; fairness of goodput. */
static void test_scngen__tcp_flows_matched_by_port(void **state)
{
	const struct tgen *g = tgen_find("tcp-stream");
	struct fake_run r;
	double v = NAN;

	fake_run(&r, g,
		 "{\"flows\": [{\"index\": 0, \"sport\": 50000, \"tcp_info\": {\"total_retrans\": 2}},"
		 " {\"index\": 1, \"sport\": 50001, \"tcp_info\": {\"total_retrans\": 0}}]}",
		 "{\"rx\": {\"bytes\": 400, \"goodput_bps\": 4000},"
		 " \"flows\": [{\"sport\": 50001, \"bytes\": 300, \"goodput_bps\": 3000},"
		 " {\"sport\": 50000, \"bytes\": 100, \"goodput_bps\": 1000}]}");
	assert_int_equal(scn_gen_find("tcp-stream")->collect(&r.c, g), 0);
	assert_true(metrics_get(r.m, "tcp.flows", &v) && v == 2);
	assert_true(metrics_get(r.m, "tcp.flow.0.goodput_bps", &v) && v == 1000);
	assert_true(metrics_get(r.m, "tcp.flow.0.retransmits", &v) && v == 2);
	assert_true(metrics_get(r.m, "tcp.flow.1.bytes", &v) && v == 300);
	assert_true(metrics_get(r.m, "tcp.flow_goodput_min_bps", &v) && v == 1000);
	assert_true(metrics_get(r.m, "tcp.fairness_jain", &v) && fabs(v - 0.8) < 1e-12);
	fake_run_release(&r, g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scngen__every_generator_has_one_descriptor),
		cmocka_unit_test(test_scngen__unknown_generator_is_a_clear_error),
		cmocka_unit_test(test_scngen__size_range_is_the_descriptors),
		cmocka_unit_test(test_scngen__families_are_the_generators_metrics),
		cmocka_unit_test(test_scngen__loss_identity_owns_its_loss_families),
		cmocka_unit_test(test_scngen__family_list_order_is_kept),
		cmocka_unit_test(test_scngen__collect_through_the_descriptor),
		cmocka_unit_test(test_scngen__collect_without_results_fails),
		cmocka_unit_test(test_scngen__sections_prefix_their_metrics),
		cmocka_unit_test(test_scngen__fairness),
		cmocka_unit_test(test_scngen__udp_flows_matched_by_id),
		cmocka_unit_test(test_scngen__tcp_flows_matched_by_port),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
