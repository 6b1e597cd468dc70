/* SPDX-License-Identifier: GPL-2.0 */
/*
 * On-the-wire formats of the traffic tools. All fields big-endian.
 *
 * Datagram header (udp-stream and UDP rr), WIRE_HDR_LEN = 32 bytes, at the
 * start of every datagram; the rest of the payload is filler:
 *   0  u32 magic     WIRE_MAGIC ("NLT1")
 *   4  u8  version   WIRE_VERSION
 *   5  u8  type      enum wire_type
 *   6  u8  copy      END: index of this copy (0 ..)
 *   7  u8  copies    END: how many copies the sender sends
 *   8  u32 flow      flow id chosen by the sender
 *  12  u32 arg       RR_REQ: size of the response wanted; else 0
 *  16  u64 seq       DATA/RR_*: sequence number; END: datagrams sent
 *  24  u64 ts_ns     CLOCK_MONOTONIC of the sender when it sent this
 *
 * Hello (first bytes a TCP client sends), WIRE_HELLO_LEN = 24 bytes:
 *   0  u32 magic, 4 u8 version, 5 u8 type (HELLO_STREAM or HELLO_RR),
 *   6  u16 flags (WIRE_F_*), 8 u32 duration_ms, 12 u32 req_size,
 *  16  u32 resp_size, 20 u16 flows (connections the sender opens,
 *  0 = 1), 22 u16 flow (HELLO_STREAM: index of this one among them); the
 *  same for HELLO_RR's --flows without CRR
 */
#ifndef TRAFFIC_WIRE_H
#define TRAFFIC_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define WIRE_MAGIC 0x4e4c5431u
#define WIRE_VERSION 1
#define WIRE_HDR_LEN 32
#define WIRE_HELLO_LEN 24
#define WIRE_F_BIDIR 0x1
#define WIRE_F_CRR 0x2 /* HELLO_RR: one transaction per connection, the request follows */
#define WIRE_F_END 0x4 /* HELLO_RR with CRR: the client is done, the server ends */

enum wire_type {
	WIRE_DATA = 1,
	WIRE_END = 2,
	WIRE_RR_REQ = 3,
	WIRE_RR_RESP = 4,
	WIRE_RR_END = 5,
	WIRE_HELLO_STREAM = 6,
	WIRE_HELLO_RR = 7,
};

struct wire_hdr {
	uint8_t type;
	uint8_t copy;
	uint8_t copies;
	uint32_t flow;
	uint32_t arg;
	uint64_t seq;
	uint64_t ts_ns;
};

struct wire_hello {
	uint8_t type;
	uint16_t flags;
	uint32_t duration_ms;
	uint32_t req_size;
	uint32_t resp_size;
	uint16_t flows;
	uint16_t flow;
};

void wire_hdr_encode(const struct wire_hdr *h, void *buf);
int wire_hdr_decode(const void *buf, size_t len, struct wire_hdr *h);
void wire_hello_encode(const struct wire_hello *h, void *buf);
int wire_hello_decode(const void *buf, size_t len, struct wire_hello *h);

#endif /* TRAFFIC_WIRE_H */
