// SPDX-License-Identifier: GPL-2.0
/*
 * Scenario matrices: cases, their names, keys replaced and added, checks
 * with conditions, errors that name the case; direction and mtu keys; the
 * coverage a suite's cases give.
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

#include "scenario/baseline.h"
#include "scenario/coverage.h"
#include "scenario/matrix.h"
#include "scenario/scenario.h"
#include "lib/util.h"
#include "tmpdir.h"

TMPDIR_FIXTURE("matrix")

/* Write text as DIR/NAME.scn; the caller frees the path. */
static char *scn_file(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s.scn", dir, name);

	assert_int_equal(file_write(path, text, strlen(text)), 0);
	return path;
}

static const char base[] = "[scenario]\n"
			   "nic.A = virtio-net\n"
			   "duration = 2\n"
			   "[traffic]\n"
			   "generator = udp-stream\n"
			   "size = 1000\n"
			   "[checks]\n"
			   "no_loss = udp.lost == 0\n";

static struct scenario **cases_ok(const char *name, const char *text, size_t *n)
{
	char *path = scn_file(name, text), *err = NULL;
	struct scenario **cases = NULL;

	if (scn_parse_cases(path, &cases, n, &err))
		fail_msg("%s", err);
	free(path);
	return cases;
}

static char *cases_err(const char *name, const char *text)
{
	char *path = scn_file(name, text), *err = NULL;
	struct scenario **cases = NULL;
	size_t n = 0;

	assert_int_equal(scn_parse_cases(path, &cases, &n, &err), -EINVAL);
	assert_null(cases);
	assert_non_null(err);
	free(path);
	return err;
}

static void free_cases(struct scenario **cases, size_t n)
{
	for (size_t i = 0; i < n; i++)
		scn_free(cases[i]);
	free(cases);
}

static const char *tval(const struct scenario *s, const char *key)
{
	for (size_t i = 0; i < s->n_traffic; i++)
		if (!strcmp(s->traffic[i].key, key))
			return s->traffic[i].value;
	return NULL;
}

static void test_matrix__cases_named_in_axis_order_first_axis_slowest(void **state)
{
	char *text = xasprintf("%s[matrix]\nnic.B = e1000 e1000e\ndirection = A>B B>A\n", base);
	size_t n = 0;
	struct scenario **c = cases_ok("m1", text, &n);

	assert_int_equal(n, 4);
	assert_string_equal(c[0]->name, "m1[nic.B=e1000,direction=A>B]");
	assert_string_equal(c[1]->name, "m1[nic.B=e1000,direction=B>A]");
	assert_string_equal(c[3]->name, "m1[nic.B=e1000e,direction=B>A]");
	assert_string_equal(c[3]->case_id, "nic.B=e1000e,direction=B>A");
	assert_string_equal(c[0]->nic_model[1]->name, "e1000");
	assert_string_equal(c[2]->nic_model[1]->name, "e1000e");
	assert_string_equal(c[2]->nic_model[0]->name, "virtio-net");
	assert_int_equal(c[0]->direction, SCN_DIR_AB);
	assert_int_equal(scn_tx_nic(c[1]), 1);
	assert_int_equal(scn_rx_nic(c[1]), 0);
	assert_string_equal(scn_case_value(c[1], "direction"), "B>A");
	assert_null(scn_case_value(c[1], "size"));
	free_cases(c, n);
	free(text);
}

static void test_matrix__axis_replaces_a_key_or_adds_it_to_its_section(void **state)
{
	char *text = xasprintf("%s[matrix]\nsize = 32 1472\nmtu.B = 9000\nsysctl.net.core.rmem_max = 4194304\n",
			       base);
	size_t n = 0;
	struct scenario **c = cases_ok("m2", text, &n);

	assert_int_equal(n, 2);
	/* size is in [traffic]: replaced, once. */
	assert_string_equal(tval(c[0], "size"), "32");
	assert_string_equal(tval(c[1], "size"), "1472");
	assert_int_equal(c[1]->n_traffic, 1);
	/* mtu.B and the sysctl are not in the file: added to [scenario] and [sysctl]. */
	assert_int_equal(c[0]->mtu[1], 9000);
	assert_int_equal(c[0]->mtu[0], 0);
	assert_int_equal(c[0]->n_sysctl, 1);
	assert_string_equal(c[0]->sysctl[0].key, "net.core.rmem_max");
	free_cases(c, n);
	free(text);
}

static void test_matrix__generator_axis_adds_traffic_section(void **state)
{
	const char *text = "[scenario]\nduration = 2\n"
			   "[matrix]\ngenerator = udp-stream tcp-stream\n"
			   "[checks]\n"
			   "no_loss[generator=udp-stream] = udp.lost == 0\n"
			   "goodput[generator=tcp-stream] = tcp.goodput_bps > 0\n"
			   "driver = loss.lost_in_driver == 0\n";
	size_t n = 0;
	struct scenario **c = cases_ok("m3", text, &n);

	assert_int_equal(n, 2);
	assert_string_equal(c[0]->generator, "udp-stream");
	assert_string_equal(c[1]->generator, "tcp-stream");
	/* Each case keeps the checks whose condition holds, in file order. */
	assert_int_equal(c[0]->n_checks, 2);
	assert_string_equal(c[0]->checks[0].name, "no_loss");
	assert_string_equal(c[0]->checks[1].name, "driver");
	/* tcp-stream can stall: netlab adds no_stall (udp-stream cannot) */
	assert_int_equal(c[1]->n_checks, 3);
	assert_string_equal(c[1]->checks[0].name, "goodput");
	assert_string_equal(c[1]->checks[2].name, "no_stall");
	assert_true(c[1]->checks[2].implicit);
	free_cases(c, n);
}

static void test_matrix__conditions_negate_and_take_alternatives(void **state)
{
	const struct scn_axis axes[] = {
		{ .key = "nic.B", .values = (char *[]){ "e1000", "e1000e", "virtio-net" }, .n_values = 3 },
		{ .key = "size", .values = (char *[]){ "32", "1472" }, .n_values = 2 },
	};
	const char *v[] = { "e1000e", "32" };
	char *why = NULL;

	assert_true(matrix_cond_holds("nic.B=e1000e", axes, 2, v));
	assert_false(matrix_cond_holds("nic.B!=e1000e", axes, 2, v));
	assert_true(matrix_cond_holds("nic.B=e1000|e1000e,size=32", axes, 2, v));
	assert_false(matrix_cond_holds("nic.B=e1000|e1000e,size=1472", axes, 2, v));
	assert_int_equal(matrix_cond_check("nic.B=e1000|e1000e,size!=32", axes, 2, NULL), 0);
	assert_int_equal(matrix_cond_check("mtu.B=9000", axes, 2, &why), -EINVAL);
	assert_non_null(strstr(why, "no axis 'mtu.B'"));
	free(why);
	why = NULL;
	assert_int_equal(matrix_cond_check("size=64", axes, 2, &why), -EINVAL);
	assert_non_null(strstr(why, "not one of axis 'size''s"));
	free(why);
	why = NULL;
	assert_int_equal(matrix_cond_check("size", axes, 2, &why), -EINVAL);
	assert_non_null(strstr(why, "expected AXIS=VALUE"));
	free(why);
	assert_int_equal(matrix_n_cases(axes, 2), 6);
}

static void test_matrix__rejects_bad_conditions_with_file_and_line(void **state)
{
	char *text = xstrdup(base), *err;
	char *t2;

	t2 = xasprintf("%scheck2[nic.B=e1000] = udp.lost == 0\n[matrix]\nsize = 32 1472\n", text);
	err = cases_err("m4", t2);
	assert_non_null(strstr(err, "m4.scn:9: check 'check2[nic.B=e1000]': condition 'nic.B=e1000': no axis 'nic.B' in [matrix]"));
	free(err);
	free(t2);
	/* A condition without a matrix. */
	t2 = xasprintf("%sc3[size=32] = udp.lost == 0\n", base);
	err = cases_err("m5", t2);
	assert_non_null(strstr(err, "m5.scn:9: check 'c3[size=32]': a condition [size=32] needs a [matrix] section"));
	free(err);
	free(t2);
	free(text);
}

static void test_matrix__error_in_one_case_names_the_case(void **state)
{
	char *text = xasprintf("%s[matrix]\nnic.B = e1000 e9999\n", base);
	char *err = cases_err("m6", text);

	assert_non_null(strstr(err, "m6.scn:10: unknown NIC model 'e9999'"));
	assert_non_null(strstr(err, "(case m6[nic.B=e9999])"));
	free(err);
	free(text);
}

static void test_matrix__rejects_bad_axes(void **state)
{
	char *t, *err;

	t = xasprintf("%s[matrix]\nsize = 32 32\n", base);
	err = cases_err("m7", t);
	assert_non_null(strstr(err, "m7.scn:10: [matrix]: axis 'size' lists '32' twice"));
	free(err);
	free(t);
	t = xasprintf("%s[matrix]\ndirection = A>B,B>A\n", base);
	err = cases_err("m8", t);
	assert_non_null(strstr(err, "a value cannot hold"));
	free(err);
	free(t);
	t = xasprintf("%s[matrix]\ndirection = sideways\n", base);
	err = cases_err("m9", t);
	assert_non_null(strstr(err, "bad direction 'sideways': expected A>B or B>A"));
	free(err);
	free(t);
	/* A key the matrix cannot set: the case says so. */
	t = xasprintf("%s[matrix]\nbogus = 1 2\n", base);
	err = cases_err("m17", t);
	assert_non_null(strstr(err, "m17.scn:10: unknown option 'bogus' for generator 'udp-stream'"));
	assert_non_null(strstr(err, "(case m17[bogus=1])"));
	free(err);
	free(t);
}

static void test_matrix__scn_parse_refuses_a_matrix_with_a_hint(void **state)
{
	char *text = xasprintf("%s[matrix]\nsize = 32 1472\n", base);
	char *path = scn_file("m10", text), *err = NULL;
	struct scenario *s = NULL;

	assert_int_equal(scn_parse(path, &s, &err), -EINVAL);
	assert_null(s);
	assert_non_null(strstr(err, "a [matrix] of 2 cases"));
	assert_non_null(strstr(err, "\nhint: "));
	free(err);
	free(path);
	free(text);
}

static void test_matrix__file_names_and_baseline_keys_per_case(void **state)
{
	char *text = xasprintf("%s[matrix]\nnic.B = e1000e\ndirection = B>A\n", base);
	size_t n = 0;
	struct scenario **c = cases_ok("m11", text, &n);
	char *f = scn_file_name(c[0]), *k = baseline_key(c[0], "udp.lost");

	assert_string_equal(f, "m11+e1000e+BtoA");
	assert_string_equal(k, "udp.lost[nic.B=e1000e,direction=B>A]");
	free(f);
	free(k);
	free_cases(c, n);
	free(text);
}

/* A run directory holds QEMU's unix sockets: no ',' or '=' from the file's name. */
static void test_matrix__file_name_has_no_qemu_option_syntax(void **state)
{
	size_t n = 0;
	struct scenario **c = cases_ok("rx=2,tx=1", base, &n);
	char *f = scn_file_name(c[0]);

	assert_string_equal(c[0]->name, "rx=2,tx=1");
	assert_string_equal(f, "rx_2_tx_1");
	free(f);
	free_cases(c, n);
}

static void test_matrix__plain_file_is_one_case_without_case_id(void **state)
{
	size_t n = 0;
	struct scenario **c = cases_ok("m12", base, &n);
	char *k = baseline_key(c[0], "udp.lost"), *f = scn_file_name(c[0]);

	assert_int_equal(n, 1);
	assert_null(c[0]->case_id);
	assert_string_equal(c[0]->name, "m12");
	assert_string_equal(k, "udp.lost");
	assert_string_equal(f, "m12");
	free(k);
	free(f);
	free_cases(c, n);
}

static void test_matrix__mtu_and_direction_keys(void **state)
{
	char *t = xasprintf("[scenario]\nmtu.B = 9000\nmtu.A = 9000\ndirection = B>A\n%s",
			    base + strlen("[scenario]\n")), *err;
	size_t n = 0;
	struct scenario **c = cases_ok("m13", t, &n);

	assert_int_equal(c[0]->mtu[0], 9000);
	assert_int_equal(c[0]->mtu[1], 9000);
	assert_int_equal(c[0]->direction, SCN_DIR_BA);
	free_cases(c, n);
	free(t);
	t = xasprintf("[scenario]\nmtu.B = 40\n%s", base + strlen("[scenario]\n"));
	err = cases_err("m14", t);
	assert_non_null(strstr(err, "m14.scn:2: bad mtu.B '40': expected an integer in 68..65535"));
	free(err);
	free(t);
	t = xasprintf("[scenario]\nmtu.C = 1500\n%s", base + strlen("[scenario]\n"));
	err = cases_err("m15", t);
	assert_non_null(strstr(err, "m15.scn:2: MTU for NIC C, but topology 'loop' has NICs A, B"));
	free(err);
	free(t);
}

static void test_matrix__overlapping_conditional_checks_are_refused(void **state)
{
	char *t = xasprintf("%sx[size=32] = udp.lost == 0\nx[size=32|1472] = udp.lost == 0\n"
			    "[matrix]\nsize = 32 1472\n", base);
	char *err = cases_err("m16", t);

	assert_non_null(strstr(err, "m16.scn:10: check 'x' applies twice to a case (also at line 9)"));
	free(err);
	free(t);
}

/* A NUL byte would end the reader's view of the file: refused, with its line. */
static void test_scenario__rejects_a_nul_byte_with_its_line(void **state)
{
	static const char text[] = "[scenario]\nduration = 2\n\0[checks]\nx = udp.lost == 0\n";
	char *path = xasprintf("%s/nul.scn", dir), *err = NULL;
	struct scenario **cases = NULL;
	size_t n = 0;

	assert_int_equal(file_write(path, text, sizeof(text) - 1), 0);
	assert_int_equal(scn_parse_cases(path, &cases, &n, &err), -EINVAL);
	assert_non_null(strstr(err, "nul.scn:3: a NUL byte"));
	free(err);
	free(path);
}

static void test_coverage__cells_of_directions_sizes_and_protocols(void **state)
{
	const char *text = "[scenario]\nnic.A = virtio-net\nduration = 2\n"
			   "[traffic]\ngenerator = udp-stream\n"
			   "[checks]\nno_loss = udp.lost == 0\n"
			   "[matrix]\nnic.B = e1000 e1000e\ndirection = A>B B>A\nsize = 32 1472 3000 32..1472\n";
	struct coverage cv;
	size_t n = 0;
	struct scenario **c = cases_ok("cov", text, &n);

	memset(&cv, 0, sizeof(cv));
	for (size_t i = 0; i < n; i++) {
		const char *models[VM_MAX_NICS] = { "virtio-net", c[i]->nic_model[1]->name };

		coverage_add(&cv, c[i], models);
	}
	/* e1000 (index 0) receives each class once (A>B), and sends each (B>A). */
	assert_int_equal(cv.n[0][COV_RX][COV_UDP][COV_SMALL], 1);
	assert_int_equal(cv.n[0][COV_RX][COV_UDP][COV_MTU], 1);
	assert_int_equal(cv.n[0][COV_RX][COV_UDP][COV_FRAG], 1);
	assert_int_equal(cv.n[0][COV_RX][COV_UDP][COV_MIXED], 1);
	assert_int_equal(cv.n[1][COV_TX][COV_UDP][COV_FRAG], 1);
	/* virtio-net (2) is A: it receives every class of both B models. */
	assert_int_equal(cv.n[2][COV_RX][COV_UDP][COV_MTU], 2);
	assert_int_equal(cv.n[0][COV_RX][COV_UDP][COV_JUMBO], 0);
	assert_int_equal(cv.n[0][COV_RX][COV_TCP][COV_MTU], 0);
	assert_true(coverage_required(COV_TCP, COV_MTU));
	assert_false(coverage_required(COV_TCP, COV_FRAG));
	assert_false(coverage_required(COV_UDP, COV_MEDIUM));
	/* What is missing: TCP everywhere, UDP jumbo everywhere, and igb (3) entirely. */
	assert_int_equal(coverage_models(), 4);
	assert_int_equal(coverage_missing(&cv), 4 * 2 * 3 + 4 * 2 * 1 + 2 * 4);
	free_cases(c, n);
}

/*
 * rr's proto is a [traffic] key like size: an axis of it replaces it per
 * case, and direction swaps client and server; a check may hold for one
 * protocol only.
 */
static void test_matrix__rr_proto_axis_and_direction(void **state)
{
	const char *text = "[scenario]\nnic.A = virtio-net\nduration = 2\n"
			   "[traffic]\ngenerator = rr\nproto = tcp\nreq-size = 64\nresp-size = 64\n"
			   "[matrix]\nnic.B = e1000 e1000e\ndirection = A>B B>A\nproto = tcp udp\n"
			   "[checks]\np50 = rr.latency_us.p50 <= 2000\nno_loss[proto=udp] = rr.lost == 0\n";
	struct coverage cv;
	size_t n = 0;
	struct scenario **c = cases_ok("rr", text, &n);

	assert_int_equal(n, 8);
	assert_string_equal(c[1]->name, "rr[nic.B=e1000,direction=A>B,proto=udp]");
	assert_string_equal(tval(c[0], "proto"), "tcp");
	assert_string_equal(tval(c[1], "proto"), "udp");
	assert_int_equal(c[1]->n_traffic, 3);
	/* the file's checks whose condition holds, and netlab's no_stall */
	assert_int_equal(c[0]->n_checks, 2);
	assert_int_equal(c[1]->n_checks, 3);
	/* B>A: B (index 1) sends the requests, A answers. */
	assert_int_equal(scn_tx_nic(c[3]), 1);
	assert_int_equal(scn_rx_nic(c[3]), 0);
	memset(&cv, 0, sizeof(cv));
	for (size_t i = 0; i < n; i++) {
		const char *models[VM_MAX_NICS] = { "virtio-net", c[i]->nic_model[1]->name };

		coverage_add(&cv, c[i], models);
	}
	/* UDP 64 B: 106 B frames both ways, each model receives requests (A>B) and responses (B>A). */
	assert_int_equal(cv.n[0][COV_RX][COV_UDP][COV_SMALL], 2);
	assert_int_equal(cv.n[0][COV_TX][COV_UDP][COV_SMALL], 2);
	assert_int_equal(cv.n[2][COV_RX][COV_UDP][COV_SMALL], 4);
	/* TCP 64 B with timestamps: 130 B frames, medium. */
	assert_int_equal(cv.n[1][COV_RX][COV_TCP][COV_MEDIUM], 2);
	assert_int_equal(cv.n[1][COV_RX][COV_TCP][COV_SMALL], 0);
	free_cases(c, n);
}

/* traffic.NAME.KEY: an axis of one named section's option (replaced, or added when missing). */
static void test_matrix__axis_of_a_named_traffic_section(void **state)
{
	static const char text[] = "[traffic.bulk]\ngenerator = tcp-stream\nsize = 4096\n"
				   "[traffic.dgram]\ngenerator = udp-stream\nport = 5301\n"
				   "[matrix]\ntraffic.dgram.rate = 1000 2000\n"
				   "traffic.bulk.size = 8192\n"
				   "[checks]\nok = traffic.dgram.udp.lost == 0\n";
	size_t n = 0;
	struct scenario **c = cases_ok("m-mixed", text, &n);
	struct scenario v;
	char *err;

	assert_int_equal(n, 2);
	assert_string_equal(c[1]->name, "m-mixed[traffic.dgram.rate=2000,traffic.bulk.size=8192]");
	scn_traffic_view(c[1], 1, &v);
	assert_string_equal(scn_traffic_value(&v, "rate"), "2000");
	assert_string_equal(scn_traffic_value(&v, "port"), "5301");
	scn_traffic_view(c[1], 0, &v);
	assert_string_equal(scn_traffic_value(&v, "size"), "8192");
	assert_null(scn_traffic_value(&v, "rate"));
	free_cases(c, n);

	err = cases_err("m-mixed-bad", "[traffic.bulk]\ngenerator = tcp-stream\n[matrix]\n"
					   "traffic.nope.rate = 1 2\n[checks]\nok = tcp.bytes > 0\n");
	assert_non_null(strstr(err, "m-mixed-bad.scn:4: [matrix] axis 'traffic.nope.rate': no section [traffic.nope]"));
	free(err);
	/* A bare traffic key has no section to go to. */
	err = cases_err("m-mixed-bare", "[traffic.bulk]\ngenerator = tcp-stream\n[matrix]\n"
					    "size = 1 2\n[checks]\nok = tcp.bytes > 0\n");
	assert_non_null(strstr(err, "m-mixed-bare.scn:4: [matrix] axis 'size': the traffic is in named sections; write traffic.NAME.size"));
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matrix__cases_named_in_axis_order_first_axis_slowest),
		cmocka_unit_test(test_matrix__axis_replaces_a_key_or_adds_it_to_its_section),
		cmocka_unit_test(test_matrix__generator_axis_adds_traffic_section),
		cmocka_unit_test(test_matrix__conditions_negate_and_take_alternatives),
		cmocka_unit_test(test_matrix__rejects_bad_conditions_with_file_and_line),
		cmocka_unit_test(test_matrix__error_in_one_case_names_the_case),
		cmocka_unit_test(test_matrix__rejects_bad_axes),
		cmocka_unit_test(test_matrix__scn_parse_refuses_a_matrix_with_a_hint),
		cmocka_unit_test(test_matrix__file_names_and_baseline_keys_per_case),
		cmocka_unit_test(test_matrix__plain_file_is_one_case_without_case_id),
		cmocka_unit_test(test_matrix__file_name_has_no_qemu_option_syntax),
		cmocka_unit_test(test_matrix__mtu_and_direction_keys),
		cmocka_unit_test(test_matrix__overlapping_conditional_checks_are_refused),
		cmocka_unit_test(test_scenario__rejects_a_nul_byte_with_its_line),
		cmocka_unit_test(test_coverage__cells_of_directions_sizes_and_protocols),
		cmocka_unit_test(test_matrix__rr_proto_axis_and_direction),
		cmocka_unit_test(test_matrix__axis_of_a_named_traffic_section),
	};

	return cmocka_run_group_tests(tests, dir_setup, dir_teardown);
}
