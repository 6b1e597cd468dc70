// SPDX-License-Identifier: GPL-2.0
/*
 * Encoding and decoding of the formats described in wire.h.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "wire.h"

static void put32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, sizeof(v));
}

static void put64(uint8_t *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, sizeof(v));
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return be32toh(v);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return be64toh(v);
}

/* Write @h as WIRE_HDR_LEN bytes at @buf. */
void wire_hdr_encode(const struct wire_hdr *h, void *buf)
{
	uint8_t *p = buf;

	put32(p, WIRE_MAGIC);
	p[4] = WIRE_VERSION;
	p[5] = h->type;
	p[6] = h->copy;
	p[7] = h->copies;
	put32(p + 8, h->flow);
	put32(p + 12, h->arg);
	put64(p + 16, h->seq);
	put64(p + 24, h->ts_ns);
}

/**
 * wire_hdr_decode() - read a datagram header
 * @buf: the datagram
 * @len: its length
 * @h: the result
 *
 * Return: 0, or -EBADMSG if it is too short or not ours (magic, version).
 */
int wire_hdr_decode(const void *buf, size_t len, struct wire_hdr *h)
{
	const uint8_t *p = buf;

	if (len < WIRE_HDR_LEN || get32(p) != WIRE_MAGIC || p[4] != WIRE_VERSION)
		return -EBADMSG;
	h->type = p[5];
	h->copy = p[6];
	h->copies = p[7];
	h->flow = get32(p + 8);
	h->arg = get32(p + 12);
	h->seq = get64(p + 16);
	h->ts_ns = get64(p + 24);
	return 0;
}

/* Write @h as WIRE_HELLO_LEN bytes at @buf. */
void wire_hello_encode(const struct wire_hello *h, void *buf)
{
	uint8_t *p = buf;

	memset(p, 0, WIRE_HELLO_LEN);
	put32(p, WIRE_MAGIC);
	p[4] = WIRE_VERSION;
	p[5] = h->type;
	p[6] = (uint8_t)(h->flags >> 8);
	p[7] = (uint8_t)h->flags;
	put32(p + 8, h->duration_ms);
	put32(p + 12, h->req_size);
	put32(p + 16, h->resp_size);
	p[20] = (uint8_t)(h->flows >> 8);
	p[21] = (uint8_t)h->flows;
	p[22] = (uint8_t)(h->flow >> 8);
	p[23] = (uint8_t)h->flow;
}

/* Like wire_hdr_decode(), for a hello. */
int wire_hello_decode(const void *buf, size_t len, struct wire_hello *h)
{
	const uint8_t *p = buf;

	if (len < WIRE_HELLO_LEN || get32(p) != WIRE_MAGIC || p[4] != WIRE_VERSION)
		return -EBADMSG;
	h->type = p[5];
	h->flags = (uint16_t)(p[6] << 8 | p[7]);
	h->duration_ms = get32(p + 8);
	h->req_size = get32(p + 12);
	h->resp_size = get32(p + 16);
	h->flows = (uint16_t)(p[20] << 8 | p[21]);
	h->flow = (uint16_t)(p[22] << 8 | p[23]);
	return 0;
}
