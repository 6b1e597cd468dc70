// SPDX-License-Identifier: GPL-2.0
/*
 * A flow the path stops: the tools end with TTOOL_EXIT_PATH (3) and still
 * print what they measured, with a "failure" object, over real loopback
 * sockets. The stalled peer is a listening socket nobody accepts from: the
 * kernel completes the handshake and fills the un-accepted socket's receive
 * buffer, then the window closes (tcp-stream) or no response ever comes (rr).
 * Errors of the tool or its host (a --bind address the host lacks) stay 1.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "ttool.h"

/* A listening socket on 127.0.0.1 with a small receive buffer; its port. */
static int stalled_peer(int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), small = 4096;

	assert_true(fd >= 0);
	assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)), 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fd, 4), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

/* A port nothing listens on (bound, then closed). */
static int closed_port(void)
{
	int port, fd = stalled_peer(&port);

	close(fd);
	return port;
}

static int null_fd(void)
{
	static int fd = -1;

	if (fd < 0)
		fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	return fd;
}

/* Run a tool with stdout in a file; its exit status, and what it printed as JSON (or NULL). */
static int run_tool(const struct ttool *t, struct json_object **out, ...)
{
	char *argv[32] = { (char *)t->name }, path[] = "/tmp/netlab-stall-XXXXXX";
	int argc = 1, status, saved = dup(STDOUT_FILENO), fd = mkstemp(path), err_fd;
	va_list ap;

	assert_true(fd >= 0 && saved >= 0);
	va_start(ap, out);
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	fflush(stdout);
	dup2(fd, STDOUT_FILENO);
	/* The tool's message on stderr is expected: keep the test output clean. */
	err_fd = dup(STDERR_FILENO);
	fflush(stderr);
	dup2(null_fd(), STDERR_FILENO);
	status = ttool_main(t, argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(saved, STDOUT_FILENO);
	dup2(err_fd, STDERR_FILENO);
	close(saved);
	close(err_fd);
	close(fd);
	*out = json_object_from_file(path);
	unlink(path);
	return status;
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

static void test_stall__tcp_stream_prints_what_it_sent_and_exits_3(void **state)
{
	(void)state;
	struct json_object *j;
	char port[16];
	int p, peer = stalled_peer(&p);
	const char *phase;

	snprintf(port, sizeof(port), "%d", p);
	assert_int_equal(run_tool(&tcp_stream_tool, &j, "--send", "--dst", "127.0.0.1", "--port",
				  port, "--duration", "0.3", "--idle-timeout", "0.5", NULL),
			 TTOOL_EXIT_PATH);
	assert_non_null(j);
	assert_string_equal(json_object_get_string(get(j, "failure.kind")), "stalled");
	assert_string_equal(json_object_get_string(get(j, "failure.errno")), "ETIMEDOUT");
	phase = json_object_get_string(get(j, "failure.phase"));
	assert_true(!strcmp(phase, "send") || !strcmp(phase, "ack"));
	/* what it wrote before the window closed, and what the peer never acknowledged */
	assert_true(json_object_get_int64(get(j, "tx.bytes")) > 0);
	assert_true(json_object_get_int64(get(j, "failure.unacked_bytes")) > 0);
	assert_non_null(strstr(json_object_get_string(get(j, "failure.message")), "127.0.0.1"));
	json_object_put(j);
	close(peer);
}

static void test_stall__rr_client_with_no_response_exits_3(void **state)
{
	(void)state;
	struct json_object *j;
	char port[16];
	int p, peer = stalled_peer(&p);

	snprintf(port, sizeof(port), "%d", p);
	assert_int_equal(run_tool(&rr_tool, &j, "--client", "--dst", "127.0.0.1", "--port", port,
				  "--duration", "1", "--idle-timeout", "0.5", NULL),
			 TTOOL_EXIT_PATH);
	assert_non_null(j);
	assert_string_equal(json_object_get_string(get(j, "failure.kind")), "stalled");
	assert_string_equal(json_object_get_string(get(j, "failure.phase")), "transaction");
	assert_int_equal(json_object_get_int64(get(j, "transactions")), 0);
	assert_string_equal(json_object_get_string(get(j, "end_reason")), "failure");
	json_object_put(j);
	close(peer);
}

static void test_stall__refused_connection_is_the_paths_doing(void **state)
{
	(void)state;
	struct json_object *j;
	char port[16];

	snprintf(port, sizeof(port), "%d", closed_port());
	assert_int_equal(run_tool(&tcp_stream_tool, &j, "--send", "--dst", "127.0.0.1", "--port",
				  port, "--duration", "0.3", "--idle-timeout", "0.5", NULL),
			 TTOOL_EXIT_PATH);
	assert_non_null(j);
	assert_string_equal(json_object_get_string(get(j, "failure.kind")), "refused");
	assert_string_equal(json_object_get_string(get(j, "failure.phase")), "connect");
	json_object_put(j);
}

static void test_stall__a_host_error_is_not_the_paths(void **state)
{
	(void)state;
	struct json_object *j;
	char port[16];
	int p, peer = stalled_peer(&p);

	snprintf(port, sizeof(port), "%d", p);
	/* 192.0.2.1 (TEST-NET-1) is no address of this host: EADDRNOTAVAIL, exit 1, nothing printed */
	assert_int_equal(run_tool(&tcp_stream_tool, &j, "--send", "--dst", "127.0.0.1", "--port",
				  port, "--bind", "192.0.2.1", "--idle-timeout", "0.5", NULL),
			 1);
	assert_null(j);
	close(peer);
}

static void test_stall__path_failure_kinds(void **state)
{
	(void)state;
	assert_string_equal(ttool_path_failure(ETIMEDOUT), "stalled");
	assert_string_equal(ttool_path_failure(ECONNRESET), "reset");
	assert_string_equal(ttool_path_failure(EPIPE), "reset");
	assert_string_equal(ttool_path_failure(ECONNREFUSED), "refused");
	assert_string_equal(ttool_path_failure(EHOSTUNREACH), "unreachable");
	assert_null(ttool_path_failure(ENOMEM));
	assert_null(ttool_path_failure(EADDRNOTAVAIL));
	assert_null(ttool_path_failure(EINVAL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stall__path_failure_kinds),
		cmocka_unit_test(test_stall__tcp_stream_prints_what_it_sent_and_exits_3),
		cmocka_unit_test(test_stall__rr_client_with_no_response_exits_3),
		cmocka_unit_test(test_stall__refused_connection_is_the_paths_doing),
		cmocka_unit_test(test_stall__a_host_error_is_not_the_paths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
