// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of traffic/wire.c: the byte layout documented in wire.h, round
 * trips, and rejection of what is not ours.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "wire.h"

static void test_wire__header_layout_is_big_endian(void **state)
{
	struct wire_hdr h = {
		.type = WIRE_END,
		.copy = 2,
		.copies = 5,
		.flow = 0x01020304,
		.arg = 0x0a0b0c0d,
		.seq = 0x1122334455667788ull,
		.ts_ns = 0x99,
	};
	static const uint8_t want[WIRE_HDR_LEN] = {
		'N',  'L',  'T',  '1',	WIRE_VERSION, WIRE_END, 2,    5,    1,
		2,    3,    4,	  0x0a, 0x0b,	      0x0c,	0x0d, 0x11, 0x22,
		0x33, 0x44, 0x55, 0x66, 0x77,	      0x88,	0,    0,    0,
		0,    0,    0,	  0,	0x99,
	};
	uint8_t buf[WIRE_HDR_LEN];

	(void)state;
	wire_hdr_encode(&h, buf);
	assert_memory_equal(buf, want, sizeof(want));
}

static void test_wire__header_round_trip(void **state)
{
	struct wire_hdr h = { .type = WIRE_DATA, .flow = 7, .seq = UINT64_MAX, .ts_ns = 123 };
	struct wire_hdr got;
	uint8_t buf[1400];

	(void)state;
	wire_hdr_encode(&h, buf);
	assert_int_equal(wire_hdr_decode(buf, sizeof(buf), &got), 0);
	assert_int_equal(got.type, WIRE_DATA);
	assert_int_equal(got.flow, 7);
	assert_int_equal(got.seq, UINT64_MAX);
	assert_int_equal(got.ts_ns, 123);
}

static void test_wire__rejects_foreign_datagrams(void **state)
{
	struct wire_hdr h = { .type = WIRE_DATA }, got;
	uint8_t buf[WIRE_HDR_LEN];

	(void)state;
	wire_hdr_encode(&h, buf);
	assert_int_equal(wire_hdr_decode(buf, WIRE_HDR_LEN - 1, &got), -EBADMSG);
	buf[4] = WIRE_VERSION + 1;
	assert_int_equal(wire_hdr_decode(buf, sizeof(buf), &got), -EBADMSG);
	wire_hdr_encode(&h, buf);
	buf[0] = 'X';
	assert_int_equal(wire_hdr_decode(buf, sizeof(buf), &got), -EBADMSG);
}

static void test_wire__hello_round_trip(void **state)
{
	struct wire_hello h = {
		.type = WIRE_HELLO_RR, .flags = WIRE_F_BIDIR, .duration_ms = 3000,
		.req_size = 64, .resp_size = 1 << 20, .flows = 64, .flow = 0x102,
	}, got;
	uint8_t buf[WIRE_HELLO_LEN];

	(void)state;
	wire_hello_encode(&h, buf);
	assert_int_equal(wire_hello_decode(buf, sizeof(buf), &got), 0);
	assert_int_equal(got.type, WIRE_HELLO_RR);
	assert_int_equal(got.flags, WIRE_F_BIDIR);
	assert_int_equal(got.duration_ms, 3000);
	assert_int_equal(got.req_size, 64);
	assert_int_equal(got.resp_size, 1 << 20);
	assert_int_equal(got.flows, 64);
	assert_int_equal(got.flow, 0x102);
	/* the flow count and index fill what was reserved, big-endian */
	assert_int_equal(buf[20], 0);
	assert_int_equal(buf[21], 64);
	assert_int_equal(buf[22], 1);
	assert_int_equal(buf[23], 2);
	assert_int_equal(wire_hello_decode(buf, sizeof(buf) - 1, &got), -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wire__header_layout_is_big_endian),
		cmocka_unit_test(test_wire__header_round_trip),
		cmocka_unit_test(test_wire__rejects_foreign_datagrams),
		cmocka_unit_test(test_wire__hello_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
