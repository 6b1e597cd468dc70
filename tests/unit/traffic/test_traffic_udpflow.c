// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of traffic/udpflow.c, udp-stream's receiver per flow: which ids
 * it accounts, each flow's own sequence accounting and END, misdelivery (a
 * datagram on the wrong socket is its flow's loss, not a reception) in both
 * modes, and the totals that keep one flow's numbers exactly.
 */
#include <json-c/json.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "udpflow.h"
#include "wire.h"

#define MS 1000000ull

static struct udpflow_set *new_set(unsigned int max, uint32_t base, bool connected, uint16_t sport)
{
	struct udpflow_set *s = malloc(sizeof(*s));

	assert_non_null(s);
	udpflow_set_init(s, max, base, connected, sport);
	return s;
}

static void free_set(struct udpflow_set *s)
{
	udpflow_set_release(s);
	free(s);
}

/* A datagram of flow @id, @type, @seq, read from socket @sock, source port @port. */
static enum udpflow_verdict feed(struct udpflow_set *s, uint8_t type, uint32_t id, uint64_t seq,
				 unsigned int sock, uint16_t port, uint64_t t)
{
	uint8_t buf[WIRE_HDR_LEN];
	struct wire_hdr h = { .type = type, .flow = id, .seq = seq, .ts_ns = t - 1000 };
	struct udpflow_dgram d = {
		.buf = buf, .len = 1000, .sock = sock, .src_port = port, .t_ns = t, .cpu = 1
	};

	if (type == WIRE_END) {
		h.copies = 5;
		h.copy = 4;
		d.len = WIRE_HDR_LEN;
	}
	wire_hdr_encode(&h, buf);
	return udpflow_add(s, &d);
}

static struct udpflow *flow(struct udpflow_set *s, uint32_t id)
{
	for (unsigned int i = 0; i < s->n; i++)
		if (s->flows[i]->id == id)
			return s->flows[i];
	fail_msg("no flow %u", id);
	return NULL;
}

static void test_udpflow__first_n_ids_then_foreign(void **state)
{
	struct udpflow_set *s = new_set(2, 0, false, 0);

	(void)state;
	assert_int_equal(feed(s, WIRE_DATA, 7, 0, 0, 1000, MS), UDPFLOW_DATA);
	assert_int_equal(feed(s, WIRE_DATA, 9, 0, 0, 1001, MS), UDPFLOW_DATA);
	assert_int_equal(feed(s, WIRE_DATA, 8, 0, 0, 1002, MS), UDPFLOW_FOREIGN);
	assert_int_equal(feed(s, WIRE_DATA, 7, 1, 0, 1000, MS), UDPFLOW_DATA);
	assert_int_equal(s->n, 2);
	assert_int_equal(s->foreign, 1);
	assert_int_equal(flow(s, 7)->acct.unique, 2);
	assert_int_equal(flow(s, 9)->acct.unique, 1);
	assert_int_equal(flow(s, 9)->sport, 1001);
	free_set(s);

	/* With --flow-id: exactly ids base..base+max-1, whatever comes first. */
	s = new_set(3, 100, false, 0);
	assert_int_equal(feed(s, WIRE_DATA, 99, 0, 0, 1, MS), UDPFLOW_FOREIGN);
	assert_int_equal(feed(s, WIRE_DATA, 103, 0, 0, 1, MS), UDPFLOW_FOREIGN);
	assert_int_equal(feed(s, WIRE_DATA, 102, 0, 0, 1, MS), UDPFLOW_DATA);
	assert_int_equal(feed(s, WIRE_DATA, 100, 0, 0, 1, MS), UDPFLOW_DATA);
	assert_int_equal(s->foreign, 2);
	free_set(s);
}

/* Sequence numbers are per flow: interleaved flows are neither reordered nor duplicated. */
static void test_udpflow__sequence_accounting_is_per_flow(void **state)
{
	struct udpflow_set *s = new_set(2, 0, false, 0);
	struct udpflow_totals t;
	uint64_t k;

	(void)state;
	for (k = 0; k < 10; k++) {
		feed(s, WIRE_DATA, 1, k, 0, 5000, MS + k);
		feed(s, WIRE_DATA, 2, k, 0, 5001, MS + k);
	}
	feed(s, WIRE_DATA, 2, 3, 0, 5001, 2 * MS); /* a duplicate of flow 2 */
	feed(s, WIRE_DATA, 1, 20, 0, 5000, 2 * MS);
	feed(s, WIRE_DATA, 1, 15, 0, 5000, 2 * MS); /* reordered in flow 1 */
	assert_int_equal(flow(s, 1)->acct.unique, 12);
	assert_int_equal(flow(s, 1)->acct.reordered, 1);
	assert_int_equal(flow(s, 1)->acct.duplicated, 0);
	assert_int_equal(flow(s, 2)->acct.duplicated, 1);
	assert_int_equal(flow(s, 2)->acct.reordered, 0);
	udpflow_totals(s, &t);
	assert_false(t.sent_known);
	assert_int_equal(t.received, 23);
	assert_int_equal(t.unique, 22);
	assert_int_equal(t.highest, 20);
	assert_int_equal(t.bytes, 23000);
	free_set(s);
}

/* Reuseport: a flow belongs to the socket that first read it. */
static void test_udpflow__misdelivered_to_another_socket_is_lost(void **state)
{
	struct udpflow_set *s = new_set(2, 0, false, 0);
	struct udpflow_totals t;
	struct json_object *arr, *f, *v;

	(void)state;
	assert_int_equal(feed(s, WIRE_DATA, 1, 0, 2, 6000, MS), UDPFLOW_DATA);
	assert_int_equal(feed(s, WIRE_DATA, 1, 1, 3, 6000, MS), UDPFLOW_MISDELIVERED);
	assert_int_equal(feed(s, WIRE_DATA, 1, 2, 2, 6000, MS), UDPFLOW_DATA);
	assert_int_equal(feed(s, WIRE_DATA, 2, 0, 3, 6001, MS), UDPFLOW_DATA);
	/* END is taken from any socket: it carries the count sent. */
	assert_int_equal(feed(s, WIRE_END, 1, 3, 0, 6000, MS), UDPFLOW_END);
	assert_int_equal(flow(s, 1)->misdelivered, 1);
	assert_int_equal(flow(s, 1)->acct.received, 2);
	assert_int_equal(flow(s, 1)->sock, 2);
	assert_int_equal(flow(s, 2)->sock, 3);
	assert_int_equal(s->misdelivered, 1);
	assert_int_equal(seqacct_lost(&flow(s, 1)->acct, flow(s, 1)->sent), 1);
	udpflow_totals(s, &t);
	assert_int_equal(t.received, 3);
	arr = udpflow_array(s, 42);
	assert_int_equal(json_object_array_length(arr), 2);
	f = json_object_array_get_idx(arr, 0);
	assert_true(json_object_object_get_ex(f, "misdelivered", &v));
	assert_int_equal(json_object_get_int(v), 1);
	assert_true(json_object_object_get_ex(f, "lost", &v));
	assert_int_equal(json_object_get_int(v), 1);
	assert_true(json_object_object_get_ex(f, "socket", &v));
	assert_int_equal(json_object_get_int(v), 2);
	assert_true(json_object_object_get_ex(f, "ended", &v));
	assert_true(json_object_get_boolean(v));
	json_object_put(arr);
	free_set(s);
}

/* Connected: socket i takes source port base + i only; which socket came first does not matter. */
static void test_udpflow__connected_judges_by_source_port(void **state)
{
	struct udpflow_set *s = new_set(2, 0, true, 40000);

	(void)state;
	assert_int_equal(feed(s, WIRE_DATA, 5, 0, 1, 40001, MS), UDPFLOW_DATA);
	assert_int_equal(feed(s, WIRE_DATA, 5, 1, 0, 40001, MS), UDPFLOW_MISDELIVERED);
	assert_int_equal(feed(s, WIRE_DATA, 6, 0, 1, 40000, MS), UDPFLOW_MISDELIVERED);
	assert_int_equal(feed(s, WIRE_DATA, 6, 1, 0, 40000, MS), UDPFLOW_DATA);
	assert_int_equal(flow(s, 5)->misdelivered, 1);
	assert_int_equal(flow(s, 6)->misdelivered, 1);
	assert_int_equal(flow(s, 5)->acct.unique, 1);
	assert_int_equal(s->misdelivered, 2);
	free_set(s);
}

/* The set ends when every flow it accounts ended: the last END copy, or the grace after the first.
 */
static void test_udpflow__ends_when_every_flow_ended(void **state)
{
	struct udpflow_set *s = new_set(2, 0, false, 0);
	struct udpflow_totals t;
	uint8_t buf[WIRE_HDR_LEN];
	struct wire_hdr h = { .type = WIRE_END, .flow = 2, .seq = 1, .copies = 5, .copy = 0 };
	struct udpflow_dgram d = { .buf = buf, .len = WIRE_HDR_LEN, .t_ns = 10 * MS };

	(void)state;
	feed(s, WIRE_DATA, 1, 0, 0, 1, MS);
	assert_false(udpflow_all_ended(s, MS));
	feed(s, WIRE_END, 1, 1, 0, 1, 2 * MS);
	assert_false(udpflow_all_ended(s, 2 * MS)); /* flow 2 not seen yet */
	wire_hdr_encode(&h, buf);
	assert_int_equal(udpflow_add(s, &d), UDPFLOW_END); /* copy 0 of 5 */
	assert_false(udpflow_all_ended(s, 10 * MS));
	assert_true(udpflow_all_ended(s, 10 * MS + UDPFLOW_END_GRACE_NS));
	udpflow_totals(s, &t);
	assert_true(t.sent_known);
	assert_int_equal(t.sent, 2);
	assert_int_equal(t.lost, 1);
	assert_int_equal(t.end_copies, 10);
	assert_int_equal(t.end_copies_received, 2);
	free_set(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_udpflow__first_n_ids_then_foreign),
		cmocka_unit_test(test_udpflow__sequence_accounting_is_per_flow),
		cmocka_unit_test(test_udpflow__misdelivered_to_another_socket_is_lost),
		cmocka_unit_test(test_udpflow__connected_judges_by_source_port),
		cmocka_unit_test(test_udpflow__ends_when_every_flow_ended),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
