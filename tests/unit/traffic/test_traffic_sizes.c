// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of traffic/tsize.c, the sizes of udp-stream --size-max: the
 * generator is SplitMix64, a seed gives the same sizes every time, they stay
 * in the range, reach every 64-byte bucket and both ends; and the sender
 * sends exactly those sizes and reports them.
 */
#include <arpa/inet.h>
#include <json-c/json.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "tsize.h"
#include "ttool.h"
#include "wire.h"

#define LO 32
#define HI 1472 /* 1500-byte MTU, IPv4 */
#define BUCKETS ((HI - LO) / 64 + 1)

static void test_sizes__generator_is_splitmix64(void **state)
{
	(void)state;
	/* The first outputs of SplitMix64 seeded with 0 (Vigna's splitmix64.c). */
	assert_true(tsize_mix64(1 * TSIZE_GAMMA) == 0xe220a8397b1dcdafull);
	assert_true(tsize_mix64(2 * TSIZE_GAMMA) == 0x6e789e6aa1b965f4ull);
	assert_true(tsize_mix64(3 * TSIZE_GAMMA) == 0x06c45d188009454full);
}

static void test_sizes__same_seed_same_sizes(void **state)
{
	/* Pinned: a change here changes every seeded run ever recorded. */
	static const uint32_t seed1[] = { 848, 1106, 1431, 672, 672, 1131, 1296, 785 };
	unsigned int k, differ = 0;

	(void)state;
	for (k = 0; k < sizeof(seed1) / sizeof(seed1[0]); k++)
		assert_int_equal(tsize_draw(1, k, LO, HI), seed1[k]);
	for (k = 0; k < 1000; k++) {
		assert_int_equal(tsize_draw(42, k, LO, HI), tsize_draw(42, k, LO, HI));
		differ += tsize_draw(0, k, LO, HI) != tsize_draw(1, k, LO, HI);
	}
	/* Seed 0 is a seed like any other, not "seed 1" or a stuck generator. */
	assert_true(differ > 990);
	assert_int_not_equal(tsize_draw(0, 0, LO, HI), tsize_draw(0, 1, LO, HI));
}

static void test_sizes__stay_within_bounds(void **state)
{
	static const uint32_t r[][2] = {
		{ LO, HI },    { 32, 33 },	 { 100, 101 },
		{ 32, 65507 }, { 65506, 65507 }, { 0, UINT32_MAX },
	};
	unsigned int i, k, n;
	bool lo, hi;

	(void)state;
	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		lo = hi = false;
		for (k = 0; k < 20000; k++) {
			n = tsize_draw(1, k, r[i][0], r[i][1]);
			if (n < r[i][0] || n > r[i][1])
				fail_msg("[%u, %u]: draw %u is %u", r[i][0], r[i][1], k, n);
			lo |= n == r[i][0];
			hi |= n == r[i][1];
		}
		/* Two-value ranges: both values. */
		if (r[i][1] - r[i][0] == 1)
			assert_true(lo && hi);
	}
	/* A one-value range, or max below min (no --size-max): min, always. */
	for (k = 0; k < 100; k++) {
		assert_int_equal(tsize_draw(k, k, 1400, 1400), 1400);
		assert_int_equal(tsize_draw(k, k, 1400, 0), 1400);
	}
}

/*
 * Draws until each of @n 64-byte buckets from @base on was hit: how many it
 * took, or @limit + 1.
 */
static unsigned int draws_to_cover(uint64_t seed, unsigned int base, unsigned int n,
				   unsigned int limit)
{
	bool seen[HI / 64 + 1] = { false };
	unsigned int k, left = n, b;

	for (k = 0; k < limit && left; k++) {
		b = (tsize_draw(seed, k, LO, HI) - base) / 64;
		if (b < n && !seen[b]) {
			seen[b] = true;
			left--;
		}
	}
	return left ? limit + 1 : k;
}

static void test_sizes__cover_every_64_byte_bucket(void **state)
{
	uint64_t seed;
	unsigned int n;

	(void)state;
	for (seed = 0; seed < 64; seed++) {
		/*
		 * Buckets from --size: 32..95, 96..159, ..., 1440..1472 (33 sizes);
		 * and aligned ones, as a driver's size classes are: 32..63,
		 * 64..127, ..., 1408..1471 (1472 alone is the next test's).
		 */
		n = draws_to_cover(seed, LO, BUCKETS, 2000);
		if (n > 2000)
			fail_msg("seed %llu: a bucket from %d is missing after 2000 draws",
				 (unsigned long long)seed, LO);
		n = draws_to_cover(seed, 0, HI / 64, 2000);
		if (n > 2000)
			fail_msg("seed %llu: an aligned bucket is missing after 2000 draws",
				 (unsigned long long)seed);
	}
	/* The default seed: within a few hundred datagrams. */
	assert_true(draws_to_cover(1, LO, BUCKETS, 300) <= 300);
	assert_true(draws_to_cover(1, 0, HI / 64, 300) <= 300);
}

static void test_sizes__reach_both_ends_and_odd_lengths(void **state)
{
	unsigned int k, n, odd = 0, count[BUCKETS] = { 0 };
	bool lo = false, hi = false;
	uint64_t seed;

	(void)state;
	/* Each end is 1 of 1441 sizes: missed by 20000 draws with p = 1e-6. */
	for (seed = 0; seed < 2; seed++) {
		lo = hi = false;
		for (k = 0; k < 20000; k++) {
			n = tsize_draw(seed, k, LO, HI);
			lo |= n == LO;
			hi |= n == HI;
		}
		assert_true(lo && hi);
	}
	for (k = 0; k < 100000; k++) {
		n = tsize_draw(1, k, LO, HI);
		odd += n & 1;
		count[(n - LO) / 64]++;
	}
	/* Uniform: half odd, each full bucket 64/1441 of the draws (4441). */
	assert_in_range(odd, 49000, 51000);
	for (k = 0; k < BUCKETS - 1; k++)
		assert_in_range(count[k], 4100, 4800);
}

/* A UDP socket on 127.0.0.1, port @port; -1 if loopback does not work here. */
static int loopback_socket(uint16_t *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_DGRAM, 0), big = 4 << 20;
	char probe = 0;

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd, (struct sockaddr *)&a, &len) ||
	    sendto(fd, &probe, 1, 0, (struct sockaddr *)&a, len) != 1 ||
	    recv(fd, &probe, 1, 0) != 1) {
		close(fd);
		return -1;
	}
	*port = ntohs(a.sin_port);
	return fd;
}

static uint64_t get_u64(struct json_object *j, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(j, key, &v))
		fail_msg("no key '%s' in %s", key, json_object_to_json_string(j));
	return json_object_get_uint64(v);
}

/* Run udp-stream --send with @argv (NULL-terminated, after the program name). */
static struct json_object *run_sender(char **args)
{
	const struct ttool *t = &udp_stream_tool;
	char *argv[32] = { (char *)t->name }, *err = NULL;
	void *opts = malloc(t->opts_size);
	struct json_object *out = json_object_new_object();
	int argc = 1;

	assert_non_null(opts);
	while ((argv[argc] = *args++))
		argc++;
	if (ttool_parse(t, argc, argv, opts, &err) || t->run(opts, out, &err))
		fail_msg("udp-stream failed: %s", err ? err : "?");
	free(opts);
	return out;
}

static void test_sizes__sender_sends_and_reports_the_drawn_sizes(void **state)
{
	static uint8_t buf[65536];
	uint64_t sum = 0, min = UINT64_MAX, max = 0, k, n, got = 0;
	struct json_object *out;
	struct wire_hdr h;
	char port[8];
	uint16_t p = 0;
	ssize_t len;
	int fd;

	(void)state;
	fd = loopback_socket(&p);
	if (fd < 0)
		skip();
	snprintf(port, sizeof(port), "%u", p);
	out = run_sender((char *[]){ "--send", "--dst", "127.0.0.1", "--port", port, "--count",
				     "64", "--size", "32", "--size-max", "1472", "--seed", "7",
				     NULL });
	for (k = 0; k < 64; k++) {
		n = tsize_draw(7, k, LO, HI);
		sum += n;
		min = n < min ? n : min;
		max = n > max ? n : max;
	}
	assert_int_equal(get_u64(out, "sent"), 64);
	assert_int_equal(get_u64(out, "bytes"), sum);
	assert_int_equal(get_u64(out, "size_min_sent"), min);
	assert_int_equal(get_u64(out, "size_max_sent"), max);
	assert_true(min < max);
	/* On the wire: datagram seq k is tsize_draw(seed, k) bytes. */
	while ((len = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) >= 0) {
		if (wire_hdr_decode(buf, (size_t)len, &h) || h.type != WIRE_DATA)
			continue;
		assert_int_equal(len, tsize_draw(7, h.seq, LO, HI));
		got++;
	}
	assert_int_equal(got, 64);
	json_object_put(out);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes__generator_is_splitmix64),
		cmocka_unit_test(test_sizes__same_seed_same_sizes),
		cmocka_unit_test(test_sizes__stay_within_bounds),
		cmocka_unit_test(test_sizes__cover_every_64_byte_bucket),
		cmocka_unit_test(test_sizes__reach_both_ends_and_odd_lengths),
		cmocka_unit_test(test_sizes__sender_sends_and_reports_the_drawn_sizes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
