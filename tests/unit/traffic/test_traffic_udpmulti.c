// SPDX-License-Identifier: GPL-2.0
/*
 * udp-stream with several flows, sockets and processes, both ends over this
 * host's loopback (a real kernel): every flow is accounted on its own, each
 * connected socket gets its own flow only, SO_REUSEPORT sockets share the
 * flows without misdelivery, --procs results merge into one; and the option
 * checks of --flows, --sockets, --connected, --sport and --procs.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "ttool.h"

#define FLOWS 4

/* Parse @args (NULL-terminated) as udp-stream's; 0 or -EINVAL with *err set. */
static int parse(char **args, void *opts, char **err)
{
	const struct ttool *t = &udp_stream_tool;
	char *argv[40] = { (char *)t->name };
	int argc = 1;

	while ((argv[argc] = *args++))
		argc++;
	*err = NULL;
	return ttool_parse(t, argc, argv, opts, err);
}

#define assert_rejected(needle, ...)                                                               \
	do {                                                                                       \
		void *o = malloc(udp_stream_tool.opts_size);                                       \
		char *e;                                                                           \
		assert_int_equal(parse((char *[]){ __VA_ARGS__, NULL }, o, &e), -EINVAL);          \
		if (!e || !strstr(e, needle) || !strstr(e, "\nhint: "))                            \
			fail_msg("error '%s' lacks '%s' or a hint", e, needle);                    \
		free(e);                                                                           \
		free(o);                                                                           \
	} while (0)

static void test_udpmulti__options_are_checked(void **state)
{
	(void)state;
	assert_rejected("option '--connected' needs '--peer' and '--sport'", "--recv",
			"--connected", "--flows", "2", "--sockets", "2", "--sport", "40000");
	assert_rejected("option '--connected' needs '--peer' and '--sport'", "--recv",
			"--connected", "--peer", "127.0.0.1");
	assert_rejected("option '--connected': --sockets 2 is not --flows 4", "--recv",
			"--connected", "--peer", "127.0.0.1", "--sport", "40000", "--flows", "4",
			"--sockets", "2");
	assert_rejected("option '--peer' applies with --connected only", "--recv", "--peer",
			"127.0.0.1");
	assert_rejected("option '--peer': invalid address 'sender'", "--recv", "--connected",
			"--peer", "sender", "--sport", "40000");
	assert_rejected("option '--sockets' only applies with --recv", "--send", "--dst",
			"127.0.0.1", "--sockets", "2");
	assert_rejected("option '--connected' only applies with --recv", "--send", "--dst",
			"127.0.0.1", "--connected");
	assert_rejected("option '--sport': ports 65535..65536 of --flows 2 go past 65535", "--send",
			"--dst", "127.0.0.1", "--flows", "2", "--sport", "65535");
	assert_rejected("option '--flow-id': ids 4294967295..4294967296", "--send", "--dst",
			"127.0.0.1", "--flows", "2", "--flow-id", "4294967295");
	assert_rejected("option '--procs': 3 processes for 2 flows", "--send", "--dst", "127.0.0.1",
			"--flows", "2", "--procs", "3");
	assert_rejected("option '--procs': 2 processes for 1 sockets", "--recv", "--procs", "2");
	assert_rejected("option '--flows': '257' is too large", "--recv", "--flows", "257");
	assert_rejected("option '--sockets': '65' is too large", "--recv", "--sockets", "65");
	assert_rejected("option '--procs': '17' is too large", "--send", "--dst", "::1", "--procs",
			"17");
}

/* Bad usage exits 2, before anything is opened. */
static void test_udpmulti__bad_usage_exits_2(void **state)
{
	char *argv[] = { "udp-stream", "--recv",    "--connected", "--flows",
			 "2",	       "--sockets", "2",	   NULL };
	pid_t pid;
	int st;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		freopen("/dev/null", "w", stderr);
		_exit(ttool_main(&udp_stream_tool, 7, argv));
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 2);
}

/* @n consecutive UDP ports from @base free on 127.0.0.1 and the wildcard, and base - 1 too. */
static bool ports_free(uint16_t base, unsigned int n)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT };
	unsigned int i;
	bool ok = true;
	int fd;

	for (i = 0; ok && i < n; i++) {
		fd = socket(AF_INET6, SOCK_DGRAM, 0);
		a.sin6_port = htons(base + i);
		ok = fd >= 0 && !bind(fd, (struct sockaddr *)&a, sizeof(a));
		if (fd >= 0)
			close(fd);
	}
	return ok;
}

static uint16_t free_ports(unsigned int n)
{
	uint16_t base;

	for (base = (uint16_t)(20000 + (getpid() % 2000) * 10); base < 60000; base += 97)
		if (ports_free(base, n))
			return base;
	fail_msg("no %u free consecutive ports", n);
	return 0;
}

/* Sockets on local port @port in /proc/net/udp{,6}; only connected ones (state 01) if @conn. */
static unsigned int sockets_on(uint16_t port, bool conn)
{
	static const char *const files[] = { "/proc/net/udp", "/proc/net/udp6" };
	char line[512], local[128];
	unsigned int i, lport, st, n = 0;
	FILE *f;

	for (i = 0; i < 2; i++) {
		f = fopen(files[i], "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, " %*u: %127[0-9A-Fa-f]:%x %*s %x", local, &lport, &st) !=
			    3)
				continue;
			n += lport == port && (!conn || st == 1);
		}
		fclose(f);
	}
	return n;
}

struct rx_child {
	pid_t pid;
	int fd;
};

/* udp-stream --recv in a child, its JSON on a pipe; returns once its @m sockets are ready. */
static void start_rx(struct rx_child *c, char **args, uint16_t port, unsigned int m, bool conn)
{
	const struct ttool *t = &udp_stream_tool;
	struct timespec ms = { 0, 10 * 1000 * 1000 };
	int p[2], i;

	assert_int_equal(pipe(p), 0);
	c->pid = fork();
	assert_true(c->pid >= 0);
	if (!c->pid) {
		char *argv[40] = { (char *)t->name };
		int argc = 1;

		close(p[0]);
		dup2(p[1], STDOUT_FILENO);
		while ((argv[argc] = *args++))
			argc++;
		_exit(ttool_main(t, argc, argv));
	}
	close(p[1]);
	c->fd = p[0];
	for (i = 0; i < 1000 && sockets_on(port, conn) < m; i++)
		nanosleep(&ms, NULL);
	if (sockets_on(port, conn) < m)
		fail_msg("the receiver's %u sockets on port %u never appeared", m, port);
}

static struct json_object *finish_rx(struct rx_child *c)
{
	static char buf[1 << 20];
	size_t len = 0;
	ssize_t r;
	int st;

	while ((r = read(c->fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)r;
	buf[len] = '\0';
	close(c->fd);
	assert_int_equal(waitpid(c->pid, &st, 0), c->pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	return json_tokener_parse(buf);
}

static struct json_object *run_tx(char **args)
{
	const struct ttool *t = &udp_stream_tool;
	void *opts = malloc(t->opts_size);
	struct json_object *out = json_object_new_object();
	char *err = NULL;

	assert_non_null(opts);
	if (parse(args, opts, &err) || t->run(opts, out, &err))
		fail_msg("udp-stream --send failed: %s", err ? err : "?");
	free(opts);
	return out;
}

static struct json_object *key(struct json_object *j, const char *k)
{
	struct json_object *v;

	if (!j || !json_object_object_get_ex(j, k, &v))
		fail_msg("no key '%s' in %s", k, json_object_to_json_string(j));
	return v;
}

static uint64_t u64(struct json_object *j, const char *k)
{
	return json_object_get_uint64(key(j, k));
}

static struct json_object *idx(struct json_object *arr, size_t i)
{
	assert_true(i < json_object_array_length(arr));
	return json_object_array_get_idx(arr, i);
}

/*
 * Sender and receiver of FLOWS flows, 100 datagrams each, sender from ports
 * sport..sport+FLOWS-1; the receiver's sockets connected or SO_REUSEPORT,
 * the work of both split among @procs processes.
 */
static void run_pair(bool connected, const char *procs, struct json_object **txo,
		     struct json_object **rxo)
{
	char port[8], sport[8], nflows[8];
	uint16_t base = free_ports(FLOWS + 1);
	struct rx_child c;

	snprintf(port, sizeof(port), "%u", base);
	snprintf(sport, sizeof(sport), "%u", base + 1);
	snprintf(nflows, sizeof(nflows), "%u", FLOWS);
	if (connected)
		start_rx(&c,
			 (char *[]){ "--recv", "--port", port, "--flows", nflows, "--sockets",
				     nflows, "--connected", "--peer", "127.0.0.1", "--sport", sport,
				     "--rcvbuf", "1M", "--idle-timeout", "10", "--procs",
				     (char *)procs, NULL },
			 base, FLOWS, true);
	else
		start_rx(&c,
			 (char *[]){ "--recv", "--port", port, "--flows", nflows, "--sockets",
				     nflows, "--rcvbuf", "1M", "--idle-timeout", "10", "--procs",
				     (char *)procs, NULL },
			 base, FLOWS, false);
	*txo = run_tx((char *[]){ "--send", "--dst", "127.0.0.1", "--port", port, "--flows", nflows,
				  "--sport", sport, "--count", "400", "--rate", "4000", "--size",
				  "64", "--procs", (char *)procs, NULL });
	*rxo = finish_rx(&c);
	assert_non_null(*rxo);
}

/* Both ends' per-flow tables: ids, source ports, 100 each, nothing lost or misdelivered. */
static void check_flows(struct json_object *tx, struct json_object *rx, uint16_t sport0)
{
	struct json_object *tf = key(tx, "flows"), *rf = key(rx, "flows"), *s = key(rx, "sockets");
	uint64_t id0 = u64(tx, "flow_id"), sum = 0;
	size_t i;

	assert_int_equal(u64(tx, "sent"), 400);
	assert_int_equal(json_object_array_length(tf), FLOWS);
	assert_int_equal(json_object_array_length(rf), FLOWS);
	assert_int_equal(json_object_array_length(s), FLOWS);
	assert_string_equal(json_object_get_string(key(rx, "end_reason")), "end");
	for (i = 0; i < FLOWS; i++) {
		assert_int_equal(u64(idx(tf, i), "id"), id0 + i);
		assert_int_equal(u64(idx(tf, i), "sport"), sport0 + i);
		assert_int_equal(u64(idx(tf, i), "sent"), 100);
		assert_int_equal(u64(idx(rf, i), "id"), id0 + i);
		assert_int_equal(u64(idx(rf, i), "sport"), sport0 + i);
		assert_int_equal(u64(idx(rf, i), "sent"), 100);
		assert_int_equal(u64(idx(rf, i), "unique"), 100);
		assert_int_equal(u64(idx(rf, i), "misdelivered"), 0);
		assert_true(json_object_get_boolean(key(idx(rf, i), "ended")));
		sum += u64(idx(s, i), "received");
	}
	/* Each socket read its flows' datagrams and END copies, nothing else. */
	assert_int_equal(sum, 400 + FLOWS * 5);
	assert_int_equal(u64(rx, "flow_id"), id0);
	assert_int_equal(u64(rx, "sent"), 400);
	assert_int_equal(u64(rx, "unique"), 400);
	assert_int_equal(u64(rx, "lost"), 0);
	assert_int_equal(u64(rx, "misdelivered"), 0);
	assert_int_equal(u64(rx, "end_copies"), FLOWS * 5);
}

static void test_udpmulti__connected_sockets_each_get_their_flow(void **state)
{
	struct json_object *tx, *rx, *s;
	uint16_t sport0;
	size_t i;

	(void)state;
	run_pair(true, "1", &tx, &rx);
	sport0 = (uint16_t)u64(idx(key(tx, "flows"), 0), "sport");
	check_flows(tx, rx, sport0);
	s = key(rx, "sockets");
	for (i = 0; i < FLOWS; i++) {
		assert_int_equal(u64(idx(key(rx, "flows"), i), "socket"), i);
		assert_int_equal(u64(idx(s, i), "peer_port"), sport0 + i);
		assert_int_equal(u64(idx(s, i), "received"), 105);
	}
	json_object_put(tx);
	json_object_put(rx);
}

static void test_udpmulti__reuseport_sockets_share_the_flows(void **state)
{
	struct json_object *tx, *rx, *f;
	size_t i;

	(void)state;
	run_pair(false, "1", &tx, &rx);
	check_flows(tx, rx, (uint16_t)u64(idx(key(tx, "flows"), 0), "sport"));
	for (i = 0; i < FLOWS; i++) {
		f = idx(key(rx, "flows"), i);
		assert_true(u64(f, "socket") < FLOWS);
		assert_int_equal(u64(f, "pid"), u64(rx, "pid"));
	}
	json_object_put(tx);
	json_object_put(rx);
}

/* --procs 2 at both ends: flow i sent by process i % 2; one merged result each. */
static void test_udpmulti__procs_merge_into_one_result(void **state)
{
	struct json_object *tx, *rx, *tf;

	(void)state;
	run_pair(false, "2", &tx, &rx);
	check_flows(tx, rx, (uint16_t)u64(idx(key(tx, "flows"), 0), "sport"));
	tf = key(tx, "flows");
	assert_int_equal(u64(idx(tf, 0), "pid"), u64(idx(tf, 2), "pid"));
	assert_int_equal(u64(idx(tf, 1), "pid"), u64(idx(tf, 3), "pid"));
	assert_int_not_equal(u64(idx(tf, 0), "pid"), u64(idx(tf, 1), "pid"));
	assert_int_not_equal(u64(idx(tf, 0), "pid"), u64(tx, "pid"));
	assert_int_equal(u64(tx, "end_copies_sent"), FLOWS * 5);
	json_object_put(tx);
	json_object_put(rx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_udpmulti__options_are_checked),
		cmocka_unit_test(test_udpmulti__bad_usage_exits_2),
		cmocka_unit_test(test_udpmulti__connected_sockets_each_get_their_flow),
		cmocka_unit_test(test_udpmulti__reuseport_sockets_share_the_flows),
		cmocka_unit_test(test_udpmulti__procs_merge_into_one_result),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
