// SPDX-License-Identifier: GPL-2.0
/*
 * Several connections at once, over real loopback sockets: tcp-stream
 * --flows N (and the receiver's --listeners M), rr --crr and --flows N
 * (and the server's --backlog). The receiver (server) runs in a
 * forked child, the sender in this process; both print their JSON to files,
 * and the test checks that the two ends' accounting adds up: N flows on
 * each end, the same source ports, per-flow bytes that sum to the totals
 * and match between the ends, and every connection accepted exactly once.
 * Nothing here depends on how fast the machine is.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
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
#include <json-c/json.h>

#include "ttool.h"

/* A free TCP port on 127.0.0.1 (bound, then closed). */
static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	close(fd);
	return ntohs(a.sin_port);
}

/*
 * Whether a socket listens on @port (IPv4): /proc/net/tcp says LISTEN (0A).
 * A bound socket not yet listening would refuse the sender's connect.
 */
static int listening(int port)
{
	FILE *f = fopen("/proc/net/tcp", "r");
	unsigned int lport, state;
	char line[256];
	int found = 0;

	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, " %*u: %*x:%x %*x:%*x %x", &lport, &state) == 2 &&
			(int)lport == port && state == 0x0A;
	fclose(f);
	return found;
}

/* Run a tool with stdout in @path and stderr in /dev/null; its exit status. */
static int run_to(const char *path, const struct ttool *t, char **argv)
{
	int argc = 0, status, saved = dup(STDOUT_FILENO), saved_err = dup(STDERR_FILENO);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	assert_true(fd >= 0 && null >= 0 && saved >= 0 && saved_err >= 0);
	while (argv[argc])
		argc++;
	fflush(stdout);
	fflush(stderr);
	dup2(fd, STDOUT_FILENO);
	dup2(null, STDERR_FILENO);
	status = ttool_main(t, argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(saved, STDOUT_FILENO);
	dup2(saved_err, STDERR_FILENO);
	close(saved);
	close(saved_err);
	close(fd);
	close(null);
	return status;
}

/* Start the receiving end in a child, writing @path; returns when it listens on @port. */
static pid_t start_peer(const char *path, int port, const struct ttool *t, char **argv)
{
	struct timespec tick = { .tv_nsec = 10 * 1000 * 1000 };
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (!pid)
		_exit(run_to(path, t, argv));
	/* At most 30 s: a loaded machine is slow to schedule the child, nothing more. */
	for (int i = 0; i < 3000 && !listening(port); i++)
		nanosleep(&tick, NULL);
	return pid;
}

static int wait_peer(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static struct json_object *get(struct json_object *o, const char *dotted)
{
	char *copy = strdup(dotted), *save = NULL;

	for (char *k = strtok_r(copy, ".", &save); k && o; k = strtok_r(NULL, ".", &save))
		if (!json_object_object_get_ex(o, k, &o))
			o = NULL;
	free(copy);
	if (!o)
		fail_msg("no '%s' in the result", dotted);
	return o;
}

static int64_t get_i(struct json_object *o, const char *dotted)
{
	return json_object_get_int64(get(o, dotted));
}

static struct json_object *load(const char *path)
{
	struct json_object *j = json_object_from_file(path);

	if (!j)
		fail_msg("no JSON in %s", path);
	unlink(path);
	return j;
}

/*
 * Both ends of one tcp-stream run with @flows connections, the receiver with
 * @listeners listening sockets; checks the two ends' flows against each other.
 */
static void check_stream_flows(int flows, int listeners)
{
	char rpath[] = "/tmp/netlab-flows-recv-XXXXXX", spath[] = "/tmp/netlab-flows-send-XXXXXX";
	char port[16], n[16], m[16];
	struct json_object *r, *s, *rf, *sf, *ls;
	int64_t sum_s = 0, sum_r = 0, accepted = 0;
	pid_t pid;

	close(mkstemp(rpath));
	close(mkstemp(spath));
	snprintf(port, sizeof(port), "%d", free_port());
	snprintf(n, sizeof(n), "%d", flows);
	snprintf(m, sizeof(m), "%d", listeners);
	char *rargv[] = { "tcp-stream",	 "--recv", "--bind",	     "127.0.0.1",
			  "--port",	 port,	   "--flows",	     n,
			  "--listeners", m,	   "--idle-timeout", "20",
			  NULL };
	char *sargv[] = { "tcp-stream",	    "--send", "--dst",	    "127.0.0.1", "--port", port,
			  "--flows",	    n,	      "--duration", "0.3",	 "--size", "16K",
			  "--idle-timeout", "20",     NULL };

	pid = start_peer(rpath, atoi(port), &tcp_stream_tool, rargv);
	assert_int_equal(run_to(spath, &tcp_stream_tool, sargv), 0);
	assert_int_equal(wait_peer(pid), 0);
	r = load(rpath);
	s = load(spath);
	rf = get(r, "flows");
	sf = get(s, "flows");
	assert_int_equal(json_object_array_length(rf), flows);
	assert_int_equal(json_object_array_length(sf), flows);
	assert_int_equal(get_i(s, "pid"), getpid());
	for (int i = 0; i < flows; i++) {
		struct json_object *a = json_object_array_get_idx(sf, i);
		struct json_object *b = json_object_array_get_idx(rf, i);

		/* the receiver names each flow by the index its hello carried */
		assert_int_equal(get_i(a, "index"), i);
		assert_int_equal(get_i(b, "index"), i);
		assert_int_equal(get_i(a, "sport"), get_i(b, "sport"));
		for (int k = 0; k < i; k++)
			assert_int_not_equal(get_i(a, "sport"),
					     get_i(json_object_array_get_idx(sf, k), "sport"));
		/* everything written was acknowledged, so read: the ends agree per flow */
		assert_true(get_i(a, "bytes") > 0);
		assert_int_equal(get_i(a, "bytes"), get_i(b, "bytes"));
		assert_true(get_i(b, "listener") < listeners);
		get(a, "tcp_info.total_retrans");
		get(a, "tcp_info.rtt_us");
		get(a, "tcp_info.snd_cwnd");
		get(a, "cpu");
		get(b, "goodput_bps");
		sum_s += get_i(a, "bytes");
		sum_r += get_i(b, "bytes");
	}
	assert_int_equal(sum_s, get_i(s, "tx.bytes"));
	assert_int_equal(sum_r, get_i(r, "rx.bytes"));
	ls = get(r, "listeners");
	assert_int_equal(json_object_array_length(ls), listeners);
	for (int j = 0; j < listeners; j++)
		accepted += get_i(json_object_array_get_idx(ls, j), "accepted");
	/* every connection accepted by exactly one listener */
	assert_int_equal(accepted, flows);
	json_object_put(r);
	json_object_put(s);
}

static void test_flows__tcp_stream_8_flows_add_up_on_both_ends(void **state)
{
	(void)state;
	check_stream_flows(8, 1);
}

static void test_flows__tcp_stream_listeners_share_the_port(void **state)
{
	(void)state;
	check_stream_flows(12, 4);
}

static void test_flows__tcp_stream_one_flow_reports_flow_0(void **state)
{
	(void)state;
	check_stream_flows(1, 1);
}

/* A listening socket on 127.0.0.1 nobody accepts from, with a small receive buffer. */
static int stalled_peer(int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), small = 4096;

	assert_true(fd >= 0);
	assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)), 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fd, 8), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

static void test_flows__tcp_stream_stall_names_the_flows(void **state)
{
	char spath[] = "/tmp/netlab-flows-send-XXXXXX", port[16];
	struct json_object *s, *which;
	int p, peer = stalled_peer(&p);

	(void)state;
	close(mkstemp(spath));
	snprintf(port, sizeof(port), "%d", p);
	char *sargv[] = { "tcp-stream", "--send", "--dst",	    "127.0.0.1",
			  "--port",	port,	  "--flows",	    "3",
			  "--duration", "0.3",	  "--idle-timeout", "0.5",
			  NULL };

	assert_int_equal(run_to(spath, &tcp_stream_tool, sargv), TTOOL_EXIT_PATH);
	s = load(spath);
	assert_string_equal(json_object_get_string(get(s, "failure.kind")), "stalled");
	which = get(s, "failure.flows_stalled");
	/* nobody reads any of the three: each is named, by its index */
	assert_true(json_object_array_length(which) >= 1);
	for (size_t i = 0; i < json_object_array_length(which); i++)
		assert_true(json_object_get_int(json_object_array_get_idx(which, i)) < 3);
	assert_true(get_i(s, "failure.unacked_bytes") > 0);
	assert_int_equal(json_object_array_length(get(s, "flows")), 3);
	json_object_put(s);
	close(peer);
}

/* rr: both ends of one TCP run; each flow does @count transactions. */
static void run_rr(int flows, int count, bool crr, struct json_object **client,
		   struct json_object **server)
{
	char cpath[] = "/tmp/netlab-flows-client-XXXXXX",
	     spath[] = "/tmp/netlab-flows-server-XXXXXX";
	char port[16], n[16], c[16];
	pid_t pid;

	close(mkstemp(cpath));
	close(mkstemp(spath));
	snprintf(port, sizeof(port), "%d", free_port());
	snprintf(n, sizeof(n), "%d", flows);
	snprintf(c, sizeof(c), "%d", count);
	char *sargv[] = { "rr",	       "--server", "--bind",	     "127.0.0.1", "--port", port,
			  "--backlog", "2",	   "--idle-timeout", "20",	  NULL };
	char *cargv[] = { "rr",
			  "--client",
			  "--dst",
			  "127.0.0.1",
			  "--port",
			  port,
			  "--flows",
			  n,
			  "--count",
			  c,
			  "--idle-timeout",
			  "20",
			  crr ? "--crr" : NULL,
			  NULL };

	pid = start_peer(spath, atoi(port), &rr_tool, sargv);
	assert_int_equal(run_to(cpath, &rr_tool, cargv), 0);
	assert_int_equal(wait_peer(pid), 0);
	*client = load(cpath);
	*server = load(spath);
}

static void test_flows__rr_crr_flows_count_every_connection(void **state)
{
	struct json_object *c, *s, *fl;

	(void)state;
	/* four loops at once into a backlog of 2: some SYNs wait, none is lost */
	run_rr(4, 10, true, &c, &s);
	assert_int_equal(get_i(c, "transactions"), 40);
	assert_int_equal(get_i(c, "lost"), 0);
	assert_int_equal(get_i(c, "connections"), 40);
	assert_int_equal(get_i(c, "connect_errors"), 0);
	assert_int_equal(get_i(c, "latency_us.count"), 40);
	fl = get(c, "flows");
	assert_int_equal(json_object_array_length(fl), 4);
	for (int i = 0; i < 4; i++) {
		struct json_object *f = json_object_array_get_idx(fl, i);

		assert_int_equal(get_i(f, "index"), i);
		assert_int_equal(get_i(f, "transactions"), 10);
		assert_int_equal(get_i(f, "connections"), 10);
		assert_int_equal(get_i(f, "latency_us.count"), 10);
		get(f, "latency_us.p50");
		get(f, "latency_us.p99");
		get(f, "latency_us.max");
	}
	/* the server served each connection, and ended on the client's END */
	assert_int_equal(get_i(s, "transactions"), 40);
	assert_int_equal(get_i(s, "connections"), 40);
	assert_string_equal(json_object_get_string(get(s, "end_reason")), "end");
	json_object_put(c);
	json_object_put(s);
}

static void test_flows__rr_flows_are_concurrent_connections(void **state)
{
	struct json_object *c, *s, *fl;

	(void)state;
	run_rr(3, 50, false, &c, &s);
	assert_int_equal(get_i(c, "transactions"), 150);
	assert_int_equal(json_object_array_length(get(c, "flows")), 3);
	assert_int_equal(get_i(s, "transactions"), 150);
	assert_int_equal(get_i(s, "connections"), 3);
	fl = get(s, "flows");
	assert_int_equal(json_object_array_length(fl), 3);
	for (int i = 0; i < 3; i++)
		assert_int_equal(get_i(json_object_array_get_idx(fl, i), "transactions"), 50);
	json_object_put(c);
	json_object_put(s);
}

static void test_flows__rr_one_connection_is_flow_0(void **state)
{
	struct json_object *c, *s;

	(void)state;
	run_rr(1, 20, false, &c, &s);
	assert_int_equal(get_i(c, "transactions"), 20);
	assert_int_equal(json_object_array_length(get(c, "flows")), 1);
	assert_int_equal(get_i(json_object_array_get_idx(get(c, "flows"), 0), "transactions"), 20);
	assert_int_equal(get_i(s, "connections"), 1);
	json_object_put(c);
	json_object_put(s);
}

static void test_flows__rr_crr_stall_names_the_flows(void **state)
{
	char cpath[] = "/tmp/netlab-flows-client-XXXXXX", port[16];
	struct json_object *c, *which;
	int p, peer = stalled_peer(&p);

	(void)state;
	close(mkstemp(cpath));
	snprintf(port, sizeof(port), "%d", p);
	char *cargv[] = { "rr",	   "--client", "--dst", "127.0.0.1",	  "--port", port,
			  "--crr", "--flows",  "2",	"--idle-timeout", "0.5",    NULL };

	/* connected (the kernel completes the handshake), never answered */
	assert_int_equal(run_to(cpath, &rr_tool, cargv), TTOOL_EXIT_PATH);
	c = load(cpath);
	assert_string_equal(json_object_get_string(get(c, "failure.kind")), "stalled");
	assert_string_equal(json_object_get_string(get(c, "failure.phase")), "transaction");
	which = get(c, "failure.flows_stalled");
	assert_true(json_object_array_length(which) >= 1);
	assert_int_equal(get_i(c, "transactions"), 0);
	assert_true(get_i(c, "connections") >= 1);
	assert_int_equal(json_object_array_length(get(c, "flows")), 2);
	json_object_put(c);
	close(peer);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flows__tcp_stream_one_flow_reports_flow_0),
		cmocka_unit_test(test_flows__tcp_stream_8_flows_add_up_on_both_ends),
		cmocka_unit_test(test_flows__tcp_stream_listeners_share_the_port),
		cmocka_unit_test(test_flows__tcp_stream_stall_names_the_flows),
		cmocka_unit_test(test_flows__rr_one_connection_is_flow_0),
		cmocka_unit_test(test_flows__rr_crr_flows_count_every_connection),
		cmocka_unit_test(test_flows__rr_flows_are_concurrent_connections),
		cmocka_unit_test(test_flows__rr_crr_stall_names_the_flows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
