// SPDX-License-Identifier: GPL-2.0
/*
 * The checksum verifier (run/pcapcsum.h) on captures written here with
 * libpcap (pcap_open_dead + pcap_dump) from frames built here, whose
 * checksums a small RFC 1071 sum of this file computes (checked on RFC
 * 1071's and a textbook IPv4 header's known bytes); on the run fixtures'
 * captures (every checksum in them is good); and, where tshark is
 * installed, against tshark's own verdicts on the same files.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <pcap/pcap.h>

#include "lib/esc.h"
#include "run/pcapcsum.h"
#include "lib/util.h"
#include "tmpdir.h"

#ifndef FIXTURES
#define FIXTURES "tests/unit/fixtures"
#endif

TMPDIR_FIXTURE("pcapcsum")

static const uint8_t MAC_A[6] = { 0x52, 0x54, 0x00, 0x4e, 0x4c, 0x0a };
static const uint8_t MAC_B[6] = { 0x52, 0x54, 0x00, 0x4e, 0x4c, 0x0b };
static const uint8_t IP_A[4] = { 198, 18, 0, 1 }, IP_B[4] = { 198, 18, 0, 2 };
static const uint8_t IP6_A[16] = { 0xfd, [15] = 1 }, IP6_B[16] = { 0xfd, [15] = 2 };

/* ---- frames ----------------------------------------------------------- */

struct fr {
	uint8_t b[2048];
	size_t n;		/* bytes built */
	uint32_t len;		/* on the wire (0: n) */
	uint32_t caplen;	/* kept in the file (0: n) */
};

/* RFC 1071: the ones' complement of the ones' complement sum, from @sum. */
static uint16_t t_csum(const uint8_t *p, size_t n, uint32_t sum)
{
	for (; n > 1; p += 2, n -= 2)
		sum += (uint32_t)p[0] << 8 | p[1];
	if (n)
		sum += (uint32_t)p[0] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static uint32_t t_pseudo(const uint8_t *src, const uint8_t *dst, size_t alen, int proto, size_t len)
{
	uint32_t sum = (uint32_t)proto + (uint32_t)len;

	for (size_t i = 0; i < alen; i += 2)
		sum += (uint32_t)(src[i] << 8 | src[i + 1]) + (uint32_t)(dst[i] << 8 | dst[i + 1]);
	return sum;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static void fill(uint8_t *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 7 + seed);
}

/* A UDP datagram with @n bytes of data into @out; its length. alen: 4 or 16. */
static size_t udp_seg(uint8_t *out, const uint8_t *src, const uint8_t *dst, size_t alen, size_t n,
		      unsigned int seed)
{
	size_t len = 8 + n;
	uint16_t c;

	memset(out, 0, 8);
	put16(out, 40000);
	put16(out + 2, 5201);
	put16(out + 4, (uint16_t)len);
	fill(out + 8, n, seed);
	c = t_csum(out, len, t_pseudo(src, dst, alen, 17, len));
	put16(out + 6, c ? c : 0xffff);
	return len;
}

static size_t tcp_seg(uint8_t *out, const uint8_t *src, const uint8_t *dst, size_t alen, size_t n)
{
	size_t len = 20 + n;

	memset(out, 0, 20);
	put16(out, 40001);
	put16(out + 2, 5202);
	out[7] = 1;		/* seq 1 */
	out[12] = 5 << 4;	/* data offset */
	out[13] = 0x18;		/* PSH ACK */
	put16(out + 14, 64240);
	fill(out + 20, n, 3);
	put16(out + 16, t_csum(out, len, t_pseudo(src, dst, alen, 6, len)));
	return len;
}

/* An ICMP echo request (@v6: ICMPv6's, over its pseudo-header). */
static size_t icmp_seg(uint8_t *out, bool v6, size_t n)
{
	size_t len = 8 + n;

	memset(out, 0, 8);
	out[0] = v6 ? 128 : 8;
	put16(out + 4, 0x4242);
	put16(out + 6, 1);
	fill(out + 8, n, 5);
	put16(out + 2, t_csum(out, len, v6 ? t_pseudo(IP6_A, IP6_B, 16, 58, len) : 0));
	return len;
}

static void eth(struct fr *f, const uint8_t *src, uint16_t type)
{
	memset(f, 0, sizeof(*f));
	memcpy(f->b, MAC_B, 6);
	memcpy(f->b + 6, src, 6);
	put16(f->b + 12, type);
	f->n = 14;
}

/* An IPv4 packet of @l4 (@n bytes) after the Ethernet header; @frag: flags and offset word. */
static void ip4(struct fr *f, const uint8_t *src, int proto, uint16_t id, uint16_t frag,
		const uint8_t *l4, size_t n)
{
	uint8_t *h = f->b + f->n;

	memset(h, 0, 20);
	h[0] = 0x45;
	put16(h + 2, (uint16_t)(20 + n));
	put16(h + 4, id);
	put16(h + 6, frag);
	h[8] = 64;
	h[9] = (uint8_t)proto;
	memcpy(h + 12, IP_A, 4);
	memcpy(h + 16, IP_B, 4);
	put16(h + 10, t_csum(h, 20, 0));
	memcpy(h + 20, l4, n);
	f->n += 20 + n;
}

/* One IPv4 frame from @mac carrying @l4. */
static void frame4(struct fr *f, const uint8_t *mac, int proto, const uint8_t *l4, size_t n)
{
	eth(f, mac, 0x0800);
	ip4(f, IP_A, proto, 0x1000, 0x4000 /* DF */, l4, n);
}

/* An IPv6 frame: @ext (@n_ext bytes of extension headers, first next header @nh) then @l4. */
static void frame6(struct fr *f, const uint8_t *mac, int nh, const uint8_t *ext, size_t n_ext,
		   const uint8_t *l4, size_t n)
{
	uint8_t *h;

	eth(f, mac, 0x86dd);
	h = f->b + f->n;
	memset(h, 0, 40);
	h[0] = 0x60;
	put16(h + 4, (uint16_t)(n_ext + n));
	h[6] = (uint8_t)nh;
	h[7] = 64;
	memcpy(h + 8, IP6_A, 16);
	memcpy(h + 24, IP6_B, 16);
	if (n_ext)
		memcpy(h + 40, ext, n_ext);
	memcpy(h + 40 + n_ext, l4, n);
	f->n += 40 + n_ext + n;
}

/* ---- captures --------------------------------------------------------- */

struct cap {
	pcap_t *p;
	pcap_dumper_t *d;
	char *path;
	unsigned int n;
};

static void cap_open_link(struct cap *c, const char *name, int dlt)
{
	c->path = xasprintf("%s/%s", dir, name);
	c->p = pcap_open_dead(dlt, 65535);
	assert_non_null(c->p);
	c->d = pcap_dump_open(c->p, c->path);
	assert_non_null(c->d);
	c->n = 0;
}

static void cap_open(struct cap *c, const char *name)
{
	cap_open_link(c, name, DLT_EN10MB);
}

static void cap_add(struct cap *c, const struct fr *f)
{
	struct pcap_pkthdr h = { .ts = { .tv_sec = 1700000000, .tv_usec = (int)c->n * 1000 } };

	h.len = f->len ? f->len : (uint32_t)f->n;
	h.caplen = f->caplen ? f->caplen : (uint32_t)f->n;
	pcap_dump((u_char *)c->d, &h, f->b);
	c->n++;
}

/* Close the file; the path stays for cap_free(). */
static void cap_close(struct cap *c)
{
	pcap_dump_close(c->d);
	pcap_close(c->p);
}

static void cap_free(struct cap *c)
{
	free(c->path);
}

/* Every frame the callback saw, by index. */
struct seen {
	unsigned int n;
	struct pcap_csum_frame f[1024];
	bool got[1024];
	int stop_at;		/* return -ECANCELED at this many frames (0: never) */
};

static int on_frame(const struct pcap_csum_frame *f, void *ctx)
{
	struct seen *s = ctx;

	if (f->index < ARRAY_SIZE(s->f)) {
		assert_false(s->got[f->index]);
		s->got[f->index] = true;
		s->f[f->index] = *f;
	}
	s->n++;
	return s->stop_at && (int)s->n == s->stop_at ? -ECANCELED : 0;
}

/* Read @c's file with the callback into @s (may be NULL) and filter @filter. */
static struct pcap_csum *read_cap(const struct cap *c, struct seen *s, const char *filter)
{
	struct pcap_csum_opts o = { .filter = filter, .frame = s ? on_frame : NULL, .ctx = s };
	struct pcap_csum *r = NULL;
	char *err = NULL;
	int ret = pcap_csum_read(c->path, &o, &r, &err);

	if (ret)
		fail_msg("pcap_csum_read: %d: %s", ret, err);
	assert_non_null(r);
	return r;
}

static const struct pcap_csum_sender *sender(const struct pcap_csum *r, const uint8_t *mac)
{
	const struct pcap_csum_sender *p = pcap_csum_sender(r, mac);

	assert_non_null(p);
	return p;
}

/* Each packet of a sender has one outcome. */
static void assert_outcomes_add_up(const struct pcap_csum_sender *p)
{
	uint64_t u = 0;

	for (int w = 0; w < PCAP_CSUM_NWHYS; w++)
		u += p->unverifiable[w];
	assert_int_equal(p->good + p->bad + p->zero + u + p->other, p->packets);
}

/* ---- tests ------------------------------------------------------------ */

/* The test's own sum, on known bytes: RFC 1071's example, a textbook IPv4 header. */
static void test_pcapcsum__test_checksum_is_right(void **state)
{
	static const uint8_t rfc[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };
	static const uint8_t hdr[] = { 0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
				       0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7 };

	assert_int_equal(t_csum(rfc, sizeof(rfc), 0), (uint16_t)~0xddf2);
	assert_int_equal(t_csum(hdr, sizeof(hdr), 0), 0xb861);
}

static void test_pcapcsum__udp4_good_bad_zero(void **state)
{
	struct seen *s = xzalloc(sizeof(*s));
	const struct pcap_csum_sender *p;
	struct pcap_csum *r;
	uint8_t l4[256];
	struct fr f;
	struct cap c;
	size_t n;

	cap_open(&c, "udp4.pcap");
	n = udp_seg(l4, IP_A, IP_B, 4, 100, 1);
	frame4(&f, MAC_A, 17, l4, n);
	cap_add(&c, &f);	/* 0: good */
	l4[6] ^= 0x01;
	frame4(&f, MAC_A, 17, l4, n);
	cap_add(&c, &f);	/* 1: bad */
	put16(l4 + 6, 0);
	frame4(&f, MAC_A, 17, l4, n);
	cap_add(&c, &f);	/* 2: no checksum */
	cap_close(&c);

	r = read_cap(&c, s, NULL);
	assert_int_equal(r->frames, 3);
	assert_int_equal(r->n_senders, 1);
	p = sender(r, MAC_A);
	assert_int_equal(p->frames, 3);
	assert_int_equal(p->ip4, 3);
	assert_int_equal(p->packets, 3);
	assert_int_equal(p->good, 1);
	assert_int_equal(p->bad, 1);
	assert_int_equal(p->zero, 1);
	assert_int_equal(p->bad_kind[PCAP_CSUM_UDP].packets, 1);
	assert_int_equal(p->bad_kind[PCAP_CSUM_IP].packets, 0);
	assert_outcomes_add_up(p);
	assert_int_equal(s->n, 3);
	assert_int_equal(s->f[0].l4, PCAP_CSUM_GOOD);
	assert_int_equal(s->f[1].l4, PCAP_CSUM_BAD);
	assert_int_equal(s->f[2].l4, PCAP_CSUM_ZERO);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(s->f[i].ip, PCAP_CSUM_GOOD);
		assert_int_equal(s->f[i].l4_kind, PCAP_CSUM_UDP);
		assert_int_equal(s->f[i].family, 4);
		assert_int_equal(s->f[i].proto, 17);
		assert_true(s->f[i].ports);
		assert_int_equal(s->f[i].sport, 40000);
		assert_int_equal(s->f[i].dport, 5201);
		assert_int_equal(s->f[i].ip_len, 20 + n);
		assert_int_equal(s->f[i].len, 14 + 20 + n);
		assert_int_equal(s->f[i].ethertype, 0x0800);
		assert_memory_equal(s->f[i].src, MAC_A, 6);
		assert_memory_equal(s->f[i].dst, MAC_B, 6);
		assert_false(s->f[i].fragment);
	}
	assert_int_equal(s->f[1].ts_sec, 1700000000);
	assert_int_equal(s->f[1].ts_nsec, 1000000);
	pcap_csum_free(r);
	cap_free(&c);
	free(s);
}

static void test_pcapcsum__tcp_good_bad_icmp_good_bad(void **state)
{
	struct seen *s = xzalloc(sizeof(*s));
	const struct pcap_csum_sender *p;
	struct pcap_csum *r;
	uint8_t l4[1200];
	struct fr f;
	struct cap c;
	size_t n;

	cap_open(&c, "tcp.pcap");
	n = tcp_seg(l4, IP_A, IP_B, 4, 1000);
	frame4(&f, MAC_A, 6, l4, n);
	cap_add(&c, &f);		/* 0: TCP good */
	l4[500] ^= 0x80;
	frame4(&f, MAC_A, 6, l4, n);
	cap_add(&c, &f);		/* 1: TCP bad: a payload bit */
	n = icmp_seg(l4, false, 56);
	frame4(&f, MAC_A, 1, l4, n);
	cap_add(&c, &f);		/* 2: ICMP good */
	l4[2] ^= 0xff;
	frame4(&f, MAC_A, 1, l4, n);
	cap_add(&c, &f);		/* 3: ICMP bad */
	cap_close(&c);

	r = read_cap(&c, s, NULL);
	p = sender(r, MAC_A);
	assert_int_equal(p->packets, 4);
	assert_int_equal(p->good, 2);
	assert_int_equal(p->bad, 2);
	assert_int_equal(p->bad_kind[PCAP_CSUM_TCP].packets, 1);
	assert_int_equal(p->bad_kind[PCAP_CSUM_TCP].first, 1);
	assert_int_equal(p->bad_kind[PCAP_CSUM_ICMP].packets, 1);
	assert_int_equal(p->bad_kind[PCAP_CSUM_ICMP].first, 3);
	assert_int_equal(s->f[0].l4, PCAP_CSUM_GOOD);
	assert_int_equal(s->f[0].l4_kind, PCAP_CSUM_TCP);
	assert_int_equal(s->f[0].dport, 5202);
	assert_int_equal(s->f[1].l4, PCAP_CSUM_BAD);
	assert_int_equal(s->f[2].l4, PCAP_CSUM_GOOD);
	assert_int_equal(s->f[2].l4_kind, PCAP_CSUM_ICMP);
	assert_false(s->f[2].ports);
	assert_int_equal(s->f[3].l4, PCAP_CSUM_BAD);
	pcap_csum_free(r);
	cap_free(&c);
	free(s);
}

/* A bad IPv4 header checksum counts as its own kind; the UDP inside is still verified. */
static void test_pcapcsum__bad_ipv4_header(void **state)
{
	struct seen *s = xzalloc(sizeof(*s));
	const struct pcap_csum_sender *p;
	struct pcap_csum *r;
	uint8_t l4[256];
	struct fr f;
	struct cap c;
	size_t n;

	cap_open(&c, "iphdr.pcap");
	n = udp_seg(l4, IP_A, IP_B, 4, 30, 2);
	frame4(&f, MAC_A, 17, l4, n);
	f.b[14 + 8] = 1;	/* TTL changed after the checksum, as a router that forgot */
	cap_add(&c, &f);
	cap_close(&c);

	r = read_cap(&c, s, NULL);
	p = sender(r, MAC_A);
	assert_int_equal(p->packets, 1);
	assert_int_equal(p->bad, 1);
	assert_int_equal(p->good, 0);
	assert_int_equal(p->bad_kind[PCAP_CSUM_IP].packets, 1);
	assert_int_equal(p->bad_kind[PCAP_CSUM_IP].frames, 1);
	assert_int_equal(p->bad_kind[PCAP_CSUM_UDP].packets, 0);
	assert_int_equal(s->f[0].ip, PCAP_CSUM_BAD);
	assert_int_equal(s->f[0].l4, PCAP_CSUM_GOOD);
	assert_outcomes_add_up(p);
	pcap_csum_free(r);
	cap_free(&c);
	free(s);
}

static void test_pcapcsum__ipv6_udp_icmpv6_ext_headers(void **state)
{
	/* hop-by-hop with a router alert, then a destination options header, both padded */
	static const uint8_t ext[] = { 60, 0, 5, 2, 0, 0, 1, 0, 17, 0, 1, 4, 0, 0, 0, 0 };
	struct seen *s = xzalloc(sizeof(*s));
	const struct pcap_csum_sender *p;
	struct pcap_csum *r;
	uint8_t l4[256];
	struct fr f;
	struct cap c;
	size_t n, n_udp;

	cap_open(&c, "ipv6.pcap");
	n = n_udp = udp_seg(l4, IP6_A, IP6_B, 16, 77, 4);
	frame6(&f, MAC_A, 17, NULL, 0, l4, n);
	cap_add(&c, &f);	/* 0: good */
	frame6(&f, MAC_A, 0, ext, sizeof(ext), l4, n);
	cap_add(&c, &f);	/* 1: good, behind two extension headers */
	l4[20] ^= 0x10;
	frame6(&f, MAC_A, 17, NULL, 0, l4, n);
	cap_add(&c, &f);	/* 2: bad */
	put16(l4 + 6, 0);
	frame6(&f, MAC_A, 17, NULL, 0, l4, n);
	cap_add(&c, &f);	/* 3: zero: bad over IPv6 */
	n = icmp_seg(l4, true, 24);
	frame6(&f, MAC_A, 58, NULL, 0, l4, n);
	cap_add(&c, &f);	/* 4: ICMPv6 good */
	cap_close(&c);

	r = read_cap(&c, s, NULL);
	p = sender(r, MAC_A);
	assert_int_equal(p->ip6, 5);
	assert_int_equal(p->packets, 5);
	assert_int_equal(p->good, 3);
	assert_int_equal(p->bad, 2);
	assert_int_equal(p->zero, 0);
	assert_int_equal(p->bad_kind[PCAP_CSUM_UDP].packets, 2);
	assert_int_equal(s->f[1].l4, PCAP_CSUM_GOOD);
	assert_int_equal(s->f[1].proto, 17);
	assert_int_equal(s->f[1].ip, PCAP_CSUM_NONE);
	assert_int_equal(s->f[1].ip_len, 40 + sizeof(ext) + n_udp);
	assert_int_equal(s->f[3].l4, PCAP_CSUM_BAD);
	assert_int_equal(s->f[4].l4, PCAP_CSUM_GOOD);
	assert_int_equal(s->f[4].l4_kind, PCAP_CSUM_ICMPV6);
	pcap_csum_free(r);
	cap_free(&c);
	free(s);
}

/* 802.1Q and 802.1ad tags are skipped; frames that are not IP count as frames only. */
static void test_pcapcsum__vlan_tags_and_non_ip(void **state)
{
	struct seen *s = xzalloc(sizeof(*s));
	const struct pcap_csum_sender *p;
	struct pcap_csum *r;
	uint8_t l4[256];
	struct fr f, g;
	struct cap c;
	size_t n;

	cap_open(&c, "vlan.pcap");
	n = udp_seg(l4, IP_A, IP_B, 4, 64, 6);
	frame4(&f, MAC_A, 17, l4, n);
	/* QinQ: 88a8 tag, 8100 tag, then IPv4 */
	memcpy(g.b, f.b, 12);
	put16(g.b + 12, 0x88a8);
	put16(g.b + 14, 100);
	put16(g.b + 16, 0x8100);
	put16(g.b + 18, 200);
	memcpy(g.b + 20, f.b + 12, f.n - 12);
	g.n = f.n + 8;
	g.len = g.caplen = 0;
	cap_add(&c, &g);
	g.b[20 + 2 + 20 + 6] ^= 1;	/* its UDP checksum */
	cap_add(&c, &g);
	eth(&f, MAC_A, 0x0806);		/* ARP */
	f.n = 60;
	cap_add(&c, &f);
	cap_close(&c);

	r = read_cap(&c, s, NULL);
	p = sender(r, MAC_A);
	assert_int_equal(p->frames, 3);
	assert_int_equal(p->ip4, 2);
	assert_int_equal(p->packets, 2);
	assert_int_equal(p->good, 1);
	assert_int_equal(p->bad_kind[PCAP_CSUM_UDP].packets, 1);
	assert_int_equal(s->f[0].vlans, 2);
	assert_int_equal(s->f[0].ethertype, 0x0800);
	assert_int_equal(s->f[0].l4, PCAP_CSUM_GOOD);
	assert_int_equal(s->f[2].family, 0);
	assert_int_equal(s->f[2].ethertype, 0x0806);
	assert_int_equal(s->f[2].l4, PCAP_CSUM_NONE);
	pcap_csum_free(r);
	cap_free(&c);
	free(s);
}

/*
 * Cut by the snap length: unverifiable (cut). Padding to the 60-byte minimum
 * is not the packet's: verified by the IP length, and cutting only padding
 * cuts nothing. An IP length past the frame on the wire is malformed.
 */
static void test_pcapcsum__cut_padded_and_short(void **state)
{
	struct seen *s = xzalloc(sizeof(*s));
	const struct pcap_csum_sender *p;
	struct pcap_csum *r;
	uint8_t l4[512];
	struct fr f;
	struct cap c;
	size_t n;

	cap_open(&c, "cut.pcap");
	n = udp_seg(l4, IP_A, IP_B, 4, 300, 7);
	frame4(&f, MAC_A, 17, l4, n);
	f.caplen = 100;
	cap_add(&c, &f);		/* 0: cut */
	n = udp_seg(l4, IP_A, IP_B, 4, 4, 8);
	frame4(&f, MAC_A, 17, l4, n);
	assert_int_equal(f.n, 46);
	memset(f.b + f.n, 0xaa, 60 - f.n);
	f.n = 60;
	cap_add(&c, &f);		/* 1: padded, good */
	f.caplen = 50;
	cap_add(&c, &f);		/* 2: padding cut, good */
	f.caplen = 0;
	put16(f.b + 14 + 2, 100);	/* IP length 100 in a 60-byte frame */
	put16(f.b + 14 + 10, 0);
	put16(f.b + 14 + 10, t_csum(f.b + 14, 20, 0));
	cap_add(&c, &f);		/* 3: malformed */
	cap_close(&c);

	r = read_cap(&c, s, NULL);
	p = sender(r, MAC_A);
	assert_int_equal(p->packets, 4);
	assert_int_equal(p->good, 2);
	assert_int_equal(p->bad, 0);
	assert_int_equal(p->unverifiable[PCAP_CSUM_WHY_CUT], 1);
	assert_int_equal(p->unverifiable[PCAP_CSUM_WHY_MALFORMED], 1);
	assert_int_equal(s->f[0].l4, PCAP_CSUM_UNVERIFIABLE);
	assert_int_equal(s->f[0].why, PCAP_CSUM_WHY_CUT);
	assert_int_equal(s->f[0].caplen, 100);
	assert_int_equal(s->f[0].l4_kind, PCAP_CSUM_UDP);
	assert_int_equal(s->f[1].l4, PCAP_CSUM_GOOD);
	assert_int_equal(s->f[1].len, 60);
	assert_int_equal(s->f[1].ip_len, 32);
	assert_int_equal(s->f[2].l4, PCAP_CSUM_GOOD);
	assert_int_equal(s->f[3].why, PCAP_CSUM_WHY_MALFORMED);
	assert_outcomes_add_up(p);
	pcap_csum_free(r);
	cap_free(&c);
	free(s);
}

/* A UDP datagram of @data bytes into fragments at @cuts (offsets, ascending, multiples of 8). */
struct frags {
	struct fr f[8];
	size_t n;
};

static void fragment4(struct frags *out, const uint8_t *mac, uint16_t id, const uint8_t *seg,
		      size_t len, const size_t *cuts, size_t n_cuts)
{
	out->n = n_cuts + 1;
	for (size_t i = 0; i < out->n; i++) {
		size_t from = i ? cuts[i - 1] : 0, to = i < n_cuts ? cuts[i] : len;
		uint16_t word = (uint16_t)(from / 8) | (i < n_cuts ? 0x2000 : 0);

		eth(&out->f[i], mac, 0x0800);
		ip4(&out->f[i], IP_A, 17, id, word, seg + from, to - from);
	}
}

static void test_pcapcsum__fragments_good_bad_out_of_order_incomplete(void **state)
{
	static const size_t cuts[] = { 800, 1600 };
	struct seen *s = xzalloc(sizeof(*s));
	const struct pcap_csum_sender *p;
	struct frags fr;
	struct pcap_csum *r;
	uint8_t seg[2100];
	struct cap c;
	size_t n;

	cap_open(&c, "frag.pcap");
	n = udp_seg(seg, IP_A, IP_B, 4, 2000, 9);
	fragment4(&fr, MAC_A, 1, seg, n, cuts, 2);
	for (int i = 0; i < 3; i++)
		cap_add(&c, &fr.f[i]);		/* 0-2: good, in order */
	fragment4(&fr, MAC_A, 2, seg, n, cuts, 2);
	fr.f[1].b[14 + 20 + 123] ^= 0x04;	/* a payload byte of the middle fragment */
	for (int i = 0; i < 3; i++)
		cap_add(&c, &fr.f[i]);		/* 3-5: bad */
	fragment4(&fr, MAC_A, 3, seg, n, cuts, 2);
	cap_add(&c, &fr.f[2]);			/* 6-8: good, last first */
	cap_add(&c, &fr.f[0]);
	cap_add(&c, &fr.f[1]);
	fragment4(&fr, MAC_A, 4, seg, n, cuts, 2);
	cap_add(&c, &fr.f[0]);			/* 9-10: the middle one missing */
	cap_add(&c, &fr.f[2]);
	cap_close(&c);

	r = read_cap(&c, s, NULL);
	p = sender(r, MAC_A);
	assert_int_equal(p->frames, 11);
	assert_int_equal(p->fragments, 11);
	assert_int_equal(p->packets, 4);
	assert_int_equal(p->good, 2);
	assert_int_equal(p->bad, 1);
	assert_int_equal(p->unverifiable[PCAP_CSUM_WHY_INCOMPLETE], 1);
	assert_int_equal(p->bad_kind[PCAP_CSUM_UDP].packets, 1);
	assert_int_equal(p->bad_kind[PCAP_CSUM_UDP].frames, 3);
	assert_int_equal(p->bad_kind[PCAP_CSUM_UDP].first, 3);
	assert_int_equal(p->bad_kind[PCAP_CSUM_UDP].last, 5);
	assert_int_equal(p->bad_kind[PCAP_CSUM_UDP].len_min, 14 + 20 + n - 1600);
	assert_int_equal(p->bad_kind[PCAP_CSUM_UDP].len_max, 14 + 20 + 800);
	assert_int_equal(p->bad_kind[PCAP_CSUM_IP].packets, 0);
	assert_outcomes_add_up(p);
	assert_int_equal(s->n, 11);
	for (int i = 0; i < 11; i++) {
		enum pcap_csum_verdict want = i < 3 || (i >= 6 && i < 9) ? PCAP_CSUM_GOOD :
					      i < 6 ? PCAP_CSUM_BAD : PCAP_CSUM_UNVERIFIABLE;

		assert_true(s->got[i]);
		assert_true(s->f[i].fragment);
		assert_int_equal(s->f[i].l4, want);
		assert_int_equal(s->f[i].ip, PCAP_CSUM_GOOD);
		assert_int_equal(s->f[i].l4_kind, PCAP_CSUM_UDP);
		assert_true(s->f[i].ports);
		assert_int_equal(s->f[i].dport, 5201);
	}
	assert_int_equal(s->f[9].why, PCAP_CSUM_WHY_INCOMPLETE);
	assert_int_equal(s->f[6].frag_offset, 1600);
	assert_false(s->f[6].frag_more);
	assert_true(s->f[7].frag_more);
	assert_int_equal(s->f[7].ip_id, 3);
	pcap_csum_free(r);
	cap_free(&c);
	free(s);
}

/* IPv6: the fragment header, reassembled the same way. */
static void test_pcapcsum__ipv6_fragments(void **state)
{
	struct seen *s = xzalloc(sizeof(*s));
	const struct pcap_csum_sender *p;
	struct pcap_csum *r;
	uint8_t seg[1600], fh[8] = { 17 };
	struct fr f;
	struct cap c;
	size_t n;

	cap_open(&c, "frag6.pcap");
	n = udp_seg(seg, IP6_A, IP6_B, 16, 1400, 10);
	for (int bad = 0; bad < 2; bad++) {
		fh[7] = (uint8_t)(bad + 1);	/* the ID */
		put16(fh + 2, 0 | 1);
		frame6(&f, MAC_A, 44, fh, 8, seg, 1000);
		cap_add(&c, &f);
		put16(fh + 2, 1000);
		if (bad)
			seg[1200] ^= 1;
		frame6(&f, MAC_A, 44, fh, 8, seg + 1000, n - 1000);
		cap_add(&c, &f);
	}
	cap_close(&c);

	r = read_cap(&c, s, NULL);
	p = sender(r, MAC_A);
	assert_int_equal(p->fragments, 4);
	assert_int_equal(p->packets, 2);
	assert_int_equal(p->good, 1);
	assert_int_equal(p->bad_kind[PCAP_CSUM_UDP].packets, 1);
	assert_int_equal(p->bad_kind[PCAP_CSUM_UDP].frames, 2);
	assert_int_equal(s->f[0].l4, PCAP_CSUM_GOOD);
	assert_int_equal(s->f[1].l4, PCAP_CSUM_GOOD);
	assert_int_equal(s->f[1].proto, 17);
	assert_int_equal(s->f[1].frag_offset, 1000);
	assert_int_equal(s->f[3].l4, PCAP_CSUM_BAD);
	assert_int_equal(s->f[3].ip_id, 2);
	pcap_csum_free(r);
	cap_free(&c);
	free(s);
}

/*
 * At most PCAP_CSUM_MAX_OPEN datagrams at once: one more first fragment
 * gives up on the oldest (incomplete), whose last fragment, coming after the
 * others, then starts a datagram of its own, incomplete at the end of the file.
 */
static void test_pcapcsum__fragments_memory_is_bounded(void **state)
{
	static const size_t cuts[] = { 16 };
	const struct pcap_csum_sender *p;
	struct pcap_csum *r;
	struct frags *fr = xzalloc((PCAP_CSUM_MAX_OPEN + 1) * sizeof(*fr));
	uint8_t seg[64];
	struct cap c;
	size_t n;

	cap_open(&c, "evict.pcap");
	n = udp_seg(seg, IP_A, IP_B, 4, 16, 11);
	for (int i = 0; i <= PCAP_CSUM_MAX_OPEN; i++) {
		fragment4(&fr[i], MAC_A, (uint16_t)(100 + i), seg, n, cuts, 1);
		cap_add(&c, &fr[i].f[0]);
	}
	for (int i = 1; i <= PCAP_CSUM_MAX_OPEN; i++)
		cap_add(&c, &fr[i].f[1]);
	cap_add(&c, &fr[0].f[1]);
	cap_close(&c);

	r = read_cap(&c, NULL, NULL);
	p = sender(r, MAC_A);
	assert_int_equal(p->packets, PCAP_CSUM_MAX_OPEN + 2);
	assert_int_equal(p->good, PCAP_CSUM_MAX_OPEN);
	assert_int_equal(p->unverifiable[PCAP_CSUM_WHY_INCOMPLETE], 2);
	pcap_csum_free(r);
	cap_free(&c);
	free(fr);
}

/*
 * Fragments Linux drops are malformed: one past 64 KiB, two last fragments
 * that end apart. An empty first fragment is only incomplete.
 */
static void test_pcapcsum__hostile_fragments(void **state)
{
	struct seen *s = xzalloc(sizeof(*s));
	const struct pcap_csum_sender *p;
	struct pcap_csum *r;
	uint8_t seg[256];
	struct fr f;
	struct cap c;

	cap_open(&c, "hostile.pcap");
	udp_seg(seg, IP_A, IP_B, 4, 92, 14);
	eth(&f, MAC_A, 0x0800);
	ip4(&f, IP_A, 17, 7, 0x2000, seg, 0);		/* 0: empty, more to come */
	cap_add(&c, &f);
	eth(&f, MAC_A, 0x0800);
	ip4(&f, IP_A, 17, 8, 8189, seg, 100);		/* 1: ends at 65612 */
	cap_add(&c, &f);
	eth(&f, MAC_A, 0x0800);
	ip4(&f, IP_A, 17, 9, 1, seg + 8, 40);		/* 2, 3: last twice, ending at 48 and 56 */
	cap_add(&c, &f);
	eth(&f, MAC_A, 0x0800);
	ip4(&f, IP_A, 17, 9, 2, seg + 16, 40);
	cap_add(&c, &f);
	cap_close(&c);

	r = read_cap(&c, s, NULL);
	p = sender(r, MAC_A);
	assert_int_equal(p->fragments, 4);
	assert_int_equal(p->packets, 3);
	assert_int_equal(p->unverifiable[PCAP_CSUM_WHY_INCOMPLETE], 1);
	assert_int_equal(p->unverifiable[PCAP_CSUM_WHY_MALFORMED], 2);
	assert_int_equal(s->f[0].why, PCAP_CSUM_WHY_INCOMPLETE);
	assert_int_equal(s->f[1].why, PCAP_CSUM_WHY_MALFORMED);
	assert_int_equal(s->f[1].frag_offset, 65512);
	assert_int_equal(s->f[3].why, PCAP_CSUM_WHY_MALFORMED);
	assert_outcomes_add_up(p);
	pcap_csum_free(r);
	cap_free(&c);
	free(s);
}

/* With segments left, a routing header's final destination is the pseudo-header's. */
static void test_pcapcsum__ipv6_routing_header_final_destination(void **state)
{
	static const uint8_t final[16] = { 0xfd, [14] = 0x99, [15] = 9 };
	struct seen *s = xzalloc(sizeof(*s));
	const struct pcap_csum_sender *p;
	uint8_t l4[256], rh[24] = { 17, 2 };
	struct pcap_csum *r;
	struct fr f;
	struct cap c;
	size_t n;

	cap_open(&c, "rh.pcap");
	memcpy(rh + 8, final, 16);
	n = udp_seg(l4, IP6_A, final, 16, 33, 15);
	for (int type = 0; type <= 4; type += 4) {
		rh[2] = (uint8_t)type;	/* type 0: the last address; 4 (SRH): segment list[0] */
		rh[3] = 1;		/* segments left */
		frame6(&f, MAC_A, 43, rh, sizeof(rh), l4, n);
		cap_add(&c, &f);
	}
	rh[3] = 0;			/* none left: the destination is the final one */
	frame6(&f, MAC_A, 43, rh, sizeof(rh), l4, n);
	cap_add(&c, &f);
	cap_close(&c);

	r = read_cap(&c, s, NULL);
	p = sender(r, MAC_A);
	assert_int_equal(p->packets, 3);
	assert_int_equal(p->good, 2);
	assert_int_equal(p->bad, 1);
	assert_int_equal(s->f[0].l4, PCAP_CSUM_GOOD);
	assert_int_equal(s->f[1].l4, PCAP_CSUM_GOOD);
	assert_int_equal(s->f[2].l4, PCAP_CSUM_BAD);
	pcap_csum_free(r);
	cap_free(&c);
	free(s);
}

/* Senders are kept apart; a BPF filter picks frames; pcap_csum_sender() finds by MAC. */
static void test_pcapcsum__two_senders_and_a_filter(void **state)
{
	const struct pcap_csum_sender *a, *b;
	struct pcap_csum *r;
	uint8_t l4[256], mac[6];
	struct fr f;
	struct cap c;
	size_t n;

	cap_open(&c, "two.pcap");
	n = udp_seg(l4, IP_A, IP_B, 4, 50, 12);
	for (int i = 0; i < 10; i++) {
		frame4(&f, MAC_B, 17, l4, n);
		cap_add(&c, &f);			/* B: good */
		if (i % 3 == 0) {
			frame4(&f, MAC_A, 17, l4, n);
			f.b[14 + 20 + 7] ^= 0x55;	/* A: every third bad */
			cap_add(&c, &f);
		}
	}
	cap_close(&c);

	r = read_cap(&c, NULL, NULL);
	assert_int_equal(r->n_senders, 2);
	assert_memory_equal(r->senders[0].mac, MAC_B, 6);
	a = sender(r, MAC_A);
	b = sender(r, MAC_B);
	assert_int_equal(a->frames, 4);
	assert_int_equal(a->bad, 4);
	assert_int_equal(a->good, 0);
	assert_int_equal(a->bad_kind[PCAP_CSUM_UDP].first, 1);
	assert_int_equal(a->bad_kind[PCAP_CSUM_UDP].last, 13);
	assert_int_equal(b->frames, 10);
	assert_int_equal(b->good, 10);
	assert_int_equal(b->bad, 0);
	assert_null(pcap_csum_sender(r, (const uint8_t[6]){ 1, 2, 3, 4, 5, 6 }));
	pcap_csum_free(r);

	assert_int_equal(pcap_csum_mac_parse("52:54:00:4E:4c:0a", mac), 0);
	assert_memory_equal(mac, MAC_A, 6);
	assert_int_equal(pcap_csum_mac_parse("52:54:00:4e:4c:0", mac), -EINVAL);
	assert_int_equal(pcap_csum_mac_parse("52:54:00:4e:4c:0a:", mac), -EINVAL);
	assert_int_equal(pcap_csum_mac_parse("52-54-00-4e-4c-0a", mac), -EINVAL);
	r = read_cap(&c, NULL, "ether src 52:54:00:4e:4c:0a");
	assert_int_equal(r->frames, 14);
	assert_int_equal(r->matched, 4);
	assert_int_equal(r->n_senders, 1);
	assert_int_equal(sender(r, MAC_A)->bad, 4);
	pcap_csum_free(r);
	cap_free(&c);
}

/* The lengths of the bad frames: min, max, the 8 most frequent with exact counts, the rest. */
static void test_pcapcsum__bad_lengths_top_k(void **state)
{
	const struct pcap_csum_bad *b;
	struct pcap_csum *r;
	uint8_t l4[256];
	struct fr f;
	struct cap c;
	size_t n;
	int idx = 0, first = -1, last = -1;

	cap_open(&c, "topk.pcap");
	/* length 100 + i, i + 1 times, for i = 0..9; a good frame between each */
	for (int i = 0; i < 10; i++) {
		for (int k = 0; k <= i; k++) {
			n = udp_seg(l4, IP_A, IP_B, 4, (size_t)(100 + i - 42), 13);
			frame4(&f, MAC_A, 17, l4, n);
			cap_add(&c, &f);
			idx++;
			l4[6] ^= 0xff;
			frame4(&f, MAC_A, 17, l4, n);
			assert_int_equal(f.n, 100 + i);
			cap_add(&c, &f);
			first = first < 0 ? idx : first;
			last = idx++;
		}
	}
	cap_close(&c);

	r = read_cap(&c, NULL, NULL);
	b = &sender(r, MAC_A)->bad_kind[PCAP_CSUM_UDP];
	assert_int_equal(b->packets, 55);
	assert_int_equal(b->frames, 55);
	assert_int_equal(b->len_min, 100);
	assert_int_equal(b->len_max, 109);
	assert_int_equal(b->first, first);
	assert_int_equal(b->last, last);
	assert_int_equal(b->n_top, PCAP_CSUM_TOP);
	for (int i = 0; i < PCAP_CSUM_TOP; i++) {
		assert_int_equal(b->top[i].len, 109 - i);
		assert_int_equal(b->top[i].count, 10 - i);
	}
	assert_int_equal(b->top_other, 1 + 2);
	assert_true(b->top_exact);
	assert_int_equal(sender(r, MAC_A)->good, 55);
	pcap_csum_free(r);
	cap_free(&c);
}

static void expect_error(const char *path, const char *filter, int want, const char *says)
{
	struct pcap_csum_opts o = { .filter = filter };
	struct pcap_csum *r = (void *)1;
	char *err = NULL;

	assert_int_equal(pcap_csum_read(path, &o, &r, &err), want);
	assert_null(r);
	assert_non_null(err);
	if (!strstr(err, path) || !strstr(err, says) || !strstr(err, "\nhint: "))
		fail_msg("error without '%s', '%s' or a hint: %s", path, says, err);
	free(err);
}

static void test_pcapcsum__bad_input_is_an_error(void **state)
{
	char *missing = xasprintf("%s/nope.pcap", dir), *garbage = xasprintf("%s/garbage", dir);
	struct cap c;
	struct fr f;
	long size;
	FILE *fp;

	expect_error(missing, NULL, -ENOENT, "No such file");
	expect_error(dir, NULL, -EISDIR, "cannot read capture");
	assert_int_equal(file_writef(garbage, "garbage, not a capture\n"), 0);
	expect_error(garbage, NULL, -EINVAL, "not a capture");

	cap_open_link(&c, "raw.pcap", DLT_RAW);
	eth(&f, MAC_A, 0x0800);
	cap_add(&c, &f);
	cap_close(&c);
	expect_error(c.path, NULL, -EINVAL, "link type");
	cap_free(&c);

	cap_open(&c, "trunc.pcap");
	eth(&f, MAC_A, 0x0806);
	f.n = 60;
	cap_add(&c, &f);
	cap_add(&c, &f);
	cap_close(&c);
	expect_error(c.path, "ether proto ((", -EINVAL, "filter");
	fp = fopen(c.path, "rb");
	assert_non_null(fp);
	fseek(fp, 0, SEEK_END);
	size = ftell(fp);
	fclose(fp);
	assert_int_equal(truncate(c.path, size - 7), 0);
	expect_error(c.path, NULL, -EINVAL, "damaged after 1 frames");
	cap_free(&c);
	free(missing);
	free(garbage);
}

/* The callback sees every frame once; a negative return stops the read. */
static void test_pcapcsum__callback_stops_the_read(void **state)
{
	struct seen *s = xzalloc(sizeof(*s));
	struct pcap_csum_opts o = { .frame = on_frame, .ctx = s };
	struct pcap_csum *r = (void *)1;
	char *err = NULL;
	struct cap c;
	struct fr f;

	cap_open(&c, "stop.pcap");
	eth(&f, MAC_A, 0x0806);
	f.n = 60;
	for (int i = 0; i < 5; i++)
		cap_add(&c, &f);
	f.n = 10;			/* a runt: no sender */
	cap_add(&c, &f);
	cap_close(&c);
	s->stop_at = 2;
	assert_int_equal(pcap_csum_read(c.path, &o, &r, &err), -ECANCELED);
	assert_null(r);
	assert_int_equal(s->n, 2);
	memset(s, 0, sizeof(*s));
	r = read_cap(&c, s, NULL);
	assert_int_equal(s->n, 6);
	assert_int_equal(r->runts, 1);
	assert_int_equal(r->n_senders, 1);
	assert_int_equal(sender(r, MAC_A)->frames, 5);
	pcap_csum_free(r);
	cap_free(&c);
	free(s);
}

/* Every sender of a fixture capture, added up. */
struct sums {
	uint64_t frames, packets, good, bad, zero, other, fragments, cut, incomplete, malformed;
};

static struct sums fixture_sums(const char *run, const char *nic)
{
	char *path = xasprintf("%s/runs/%s/nic-%s.pcap", FIXTURES, run, nic), *err = NULL;
	struct pcap_csum *r = NULL;
	struct sums t = { 0 };

	if (pcap_csum_read(path, NULL, &r, &err))
		fail_msg("%s: %s", path, err);
	for (size_t i = 0; i < r->n_senders; i++) {
		const struct pcap_csum_sender *p = &r->senders[i];

		assert_outcomes_add_up(p);
		t.frames += p->frames;
		t.packets += p->packets;
		t.good += p->good;
		t.bad += p->bad;
		t.zero += p->zero;
		t.other += p->other;
		t.fragments += p->fragments;
		t.cut += p->unverifiable[PCAP_CSUM_WHY_CUT];
		t.incomplete += p->unverifiable[PCAP_CSUM_WHY_INCOMPLETE];
		t.malformed += p->unverifiable[PCAP_CSUM_WHY_MALFORMED];
	}
	assert_int_equal(t.frames, r->frames);
	pcap_csum_free(r);
	free(path);
	return t;
}

/*
 * QEMU computes the checksums the guest offloaded: every one in the run
 * fixtures is good. udp-path and tcp-rr were captured whole; lean-udp and
 * lean-tcp-rr with the 256-byte snap length, so their larger frames are cut
 * (tshark 4.0 counts the same: 195 and 200 unverified, 17 and 13 good).
 */
static void test_pcapcsum__fixture_captures_verify_clean(void **state)
{
	static const char *const whole[] = { "udp-path", "tcp-rr" };
	struct sums t;

	for (size_t i = 0; i < ARRAY_SIZE(whole); i++) {
		for (const char *nic = "A"; nic; nic = *nic == 'A' ? "B" : NULL) {
			t = fixture_sums(whole[i], nic);
			assert_true(t.packets > 200);
			assert_int_equal(t.good, t.packets);
		}
	}
	t = fixture_sums("lean-udp", "A");
	assert_int_equal(t.bad, 0);
	assert_int_equal(t.fragments, 222);
	assert_int_equal(t.cut, 195);
	assert_int_equal(t.good, 7 + 8 + 10);
	assert_int_equal(t.incomplete + t.malformed + t.zero + t.other, 0);
	t = fixture_sums("lean-tcp-rr", "B");
	assert_int_equal(t.bad, 0);
	assert_int_equal(t.cut, 200);
	assert_int_equal(t.good, t.packets - 200);
}

/* ---- against tshark --------------------------------------------------- */

static const char *const tshark_fields[PCAP_CSUM_NKINDS] = {
	"ip.checksum.status", "tcp.checksum.status", "udp.checksum.status",
	"icmp.checksum.status", "icmpv6.checksum.status",
};

/*
 * tshark's verdicts on @path: per kind, the checksums it found good and
 * bad (status 1 and 0). tshark reassembles fragments and gives the
 * datagram's verdict once, as pcapcsum counts it. -1 when tshark fails.
 */
static int tshark_counts(const char *path, uint64_t good[], uint64_t bad[])
{
	struct sbuf cmd;
	char line[512];
	FILE *p;
	int rc;

	sbuf_init(&cmd);
	sbuf_adds(&cmd, "tshark -n -r ");
	esc_shell(&cmd, path);
	sbuf_adds(&cmd, " -o ip.check_checksum:TRUE -o udp.check_checksum:TRUE"
			" -o tcp.check_checksum:TRUE -T fields -E separator=/t");
	for (int k = 0; k < PCAP_CSUM_NKINDS; k++)
		sbuf_addf(&cmd, " -e %s", tshark_fields[k]);
	sbuf_adds(&cmd, " 2>/dev/null");
	p = popen(cmd.s, "r");
	sbuf_release(&cmd);
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		char *f = line;

		for (int k = 0; k < PCAP_CSUM_NKINDS && f; k++) {
			/* a field may hold values of nested headers (ICMP errors): the first */
			if (*f == '0')
				bad[k]++;
			else if (*f == '1')
				good[k]++;
			f = strchr(f, '\t');
			f = f ? f + 1 : NULL;
		}
	}
	rc = pclose(p);
	return rc ? -1 : 0;
}

static int count_good(const struct pcap_csum_frame *f, void *ctx)
{
	uint64_t *good = ctx;

	/* a datagram once: by its first fragment */
	if (f->ip == PCAP_CSUM_GOOD)
		good[PCAP_CSUM_IP]++;
	if (f->l4 == PCAP_CSUM_GOOD && (!f->fragment || f->frag_offset == 0))
		good[f->l4_kind]++;
	return 0;
}

static void tshark_agrees(const char *path)
{
	uint64_t t_good[PCAP_CSUM_NKINDS] = { 0 }, t_bad[PCAP_CSUM_NKINDS] = { 0 };
	uint64_t good[PCAP_CSUM_NKINDS + 1] = { 0 }, bad[PCAP_CSUM_NKINDS] = { 0 };
	struct pcap_csum_opts o = { .frame = count_good, .ctx = good };
	struct pcap_csum *r = NULL;
	char *err = NULL;

	assert_int_equal(tshark_counts(path, t_good, t_bad), 0);
	if (pcap_csum_read(path, &o, &r, &err))
		fail_msg("%s: %s", path, err);
	for (size_t i = 0; i < r->n_senders; i++)
		for (int k = 0; k < PCAP_CSUM_NKINDS; k++)
			bad[k] += r->senders[i].bad_kind[k].packets;
	for (int k = 0; k < PCAP_CSUM_NKINDS; k++) {
		if (good[k] != t_good[k] || bad[k] != t_bad[k])
			fail_msg("%s: %s: pcapcsum %llu good, %llu bad; tshark %llu good, %llu bad",
				 path, pcap_csum_kind_name(k), (unsigned long long)good[k],
				 (unsigned long long)bad[k], (unsigned long long)t_good[k],
				 (unsigned long long)t_bad[k]);
	}
	pcap_csum_free(r);
}

/*
 * A capture with good and bad checksums of every kind, fragments among
 * them, and the fixture captures: pcapcsum's good and bad counts per kind
 * are tshark's. Skipped without tshark.
 */
static void test_pcapcsum__tshark_counts_the_same(void **state)
{
	static const size_t cuts[] = { 1000 };
	static const char *const fixtures[] = { "udp-path", "tcp-rr", "lean-udp", "lean-tcp-rr" };
	uint8_t l4[1600];
	struct frags fr;
	struct cap c;
	struct fr f;
	size_t n;

	if (system("command -v tshark >/dev/null 2>&1"))
		skip();
	cap_open(&c, "mixed.pcap");
	for (int i = 0; i < 12; i++) {
		bool bad = i % 4 == 1;

		n = udp_seg(l4, IP_A, IP_B, 4, (size_t)(40 + i), (unsigned int)i);
		l4[8] ^= bad;
		frame4(&f, i % 2 ? MAC_A : MAC_B, 17, l4, n);
		f.b[14 + 10] ^= i % 5 == 3;	/* the IPv4 header checksum */
		cap_add(&c, &f);
		n = tcp_seg(l4, IP_A, IP_B, 4, (size_t)(10 * i));
		l4[16] ^= i % 3 == 0;
		frame4(&f, MAC_A, 6, l4, n);
		cap_add(&c, &f);
		n = icmp_seg(l4, false, (size_t)i);
		l4[9] ^= i % 6 == 0 && i;
		frame4(&f, MAC_B, 1, l4, n);
		cap_add(&c, &f);
		n = icmp_seg(l4, true, (size_t)(2 * i));
		l4[3] ^= i == 7;
		frame6(&f, MAC_A, 58, NULL, 0, l4, n);
		cap_add(&c, &f);
		n = udp_seg(l4, IP6_A, IP6_B, 16, (size_t)(20 + i), (unsigned int)i);
		l4[7] ^= i == 5;
		frame6(&f, MAC_B, 17, NULL, 0, l4, n);
		cap_add(&c, &f);
		n = udp_seg(l4, IP_A, IP_B, 4, 1400, (unsigned int)i);
		fragment4(&fr, MAC_A, (uint16_t)(500 + i), l4, n, cuts, 1);
		fr.f[1].b[60] ^= i == 2 || i == 9;
		cap_add(&c, &fr.f[0]);
		cap_add(&c, &fr.f[1]);
	}
	cap_close(&c);
	tshark_agrees(c.path);
	cap_free(&c);
	for (size_t i = 0; i < ARRAY_SIZE(fixtures); i++) {
		char *path = xasprintf("%s/runs/%s/nic-A.pcap", FIXTURES, fixtures[i]);

		tshark_agrees(path);
		free(path);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pcapcsum__test_checksum_is_right),
		cmocka_unit_test(test_pcapcsum__udp4_good_bad_zero),
		cmocka_unit_test(test_pcapcsum__tcp_good_bad_icmp_good_bad),
		cmocka_unit_test(test_pcapcsum__bad_ipv4_header),
		cmocka_unit_test(test_pcapcsum__ipv6_udp_icmpv6_ext_headers),
		cmocka_unit_test(test_pcapcsum__vlan_tags_and_non_ip),
		cmocka_unit_test(test_pcapcsum__cut_padded_and_short),
		cmocka_unit_test(test_pcapcsum__fragments_good_bad_out_of_order_incomplete),
		cmocka_unit_test(test_pcapcsum__ipv6_fragments),
		cmocka_unit_test(test_pcapcsum__fragments_memory_is_bounded),
		cmocka_unit_test(test_pcapcsum__hostile_fragments),
		cmocka_unit_test(test_pcapcsum__ipv6_routing_header_final_destination),
		cmocka_unit_test(test_pcapcsum__two_senders_and_a_filter),
		cmocka_unit_test(test_pcapcsum__bad_lengths_top_k),
		cmocka_unit_test(test_pcapcsum__bad_input_is_an_error),
		cmocka_unit_test(test_pcapcsum__callback_stops_the_read),
		cmocka_unit_test(test_pcapcsum__fixture_captures_verify_clean),
		cmocka_unit_test(test_pcapcsum__tshark_counts_the_same),
	};

	return cmocka_run_group_tests(tests, dir_setup, dir_teardown);
}
