// SPDX-License-Identifier: GPL-2.0
/*
 * The main() of every traffic tool: see ttool.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "terr.h"
#include "tjson.h"
#include "ttool.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* True once SIGINT or SIGTERM arrived: loops end and report what they have. */
bool ttool_stopping(void)
{
	return stop_requested;
}

/* No SA_RESTART: a blocked send/recv/poll returns EINTR and the loop ends. */
static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static bool wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	}
	return false;
}

/**
 * ttool_parse() - defaults, then argv, then the tool's and the role checks
 * @t: the tool
 * @argc: argument count
 * @argv: arguments
 * @opts: the tool's options struct, t->opts_size bytes
 * @err: error message (exit status 2)
 *
 * Return: 0, TTOOL_HELP if --help was asked for, or -EINVAL.
 */
int ttool_parse(const struct ttool *t, int argc, char **argv, void *opts, char **err)
{
	const struct ttool_common *c = (const void *)((char *)opts + t->common_off);
	uint64_t seen;
	int ret;

	memset(opts, 0, t->opts_size);
	t->init(opts);
	if (wants_help(argc, argv))
		return TTOOL_HELP;
	ret = topt_parse(t->opts, argc, argv, opts, &seen, err);
	if (ret)
		return ret;
	if (c->json && c->text)
		return terr_fmt(
			err, -EINVAL,
			"options '--json' and '--text' cannot be combined\nhint: give one of them");
	/* The tool's checks first: "give --send or --recv" beats "--dst needs --send". */
	ret = t->check(opts, err);
	return ret ? ret : topt_check_only(t->opts, opts, seen, err);
}

/**
 * ttool_path_failure() - whether an error is the network's doing, and what kind
 * @errnum: a positive errno a tool's run ended with
 *
 * ETIMEDOUT is a stall (no progress for --idle-timeout: connect, send,
 * acknowledgement or receive); ECONNRESET, ECONNREFUSED, ECONNABORTED, EPIPE
 * and ENODATA (the peer closed in the middle) a reset; EHOSTUNREACH,
 * ENETUNREACH and EHOSTDOWN unreachable. Everything else (memory, threads,
 * bind, usage) is the tool's or its host's.
 *
 * Return: the kind, or NULL.
 */
const char *ttool_path_failure(int errnum)
{
	switch (errnum) {
	case ETIMEDOUT:
		return "stalled";
	case ECONNREFUSED:
		return "refused";
	case ECONNRESET:
	case ECONNABORTED:
	case EPIPE:
	case ENODATA:
		return "reset";
	case EHOSTUNREACH:
	case ENETUNREACH:
	case EHOSTDOWN:
		return "unreachable";
	default:
		return NULL;
	}
}

/* "failure": {kind, errno, message, and the tool's "stall" details moved in}. */
static void add_failure(struct json_object *out, const char *kind, int errnum, const char *msg)
{
	struct json_object *f = json_object_new_object(), *stall;

	tjson_str(f, "kind", kind);
	tjson_str(f, "errno", strerrorname_np(errnum) ? strerrorname_np(errnum) : "?");
	tjson_str(f, "message", msg ? msg : strerror(errnum));
	if (json_object_object_get_ex(out, "stall", &stall)) {
		json_object_object_foreach(stall, k, v)
			json_object_object_add(f, k, json_object_get(v));
		json_object_object_del(out, "stall");
	}
	json_object_object_add(out, "failure", f);
}

static void usage(const struct ttool *t)
{
	printf("%s\nOptions:\n", t->usage);
	topt_usage(stdout, t->opts);
	printf("  %-24s %s\n", "--help", "show this help");
}

static struct json_object *header(const struct ttool *t, const void *opts)
{
	struct json_object *out = json_object_new_object();

	tjson_str(out, "tool", t->name);
	tjson_str(out, "role", t->role(opts));
	tjson_str(out, "version", TTOOL_VERSION);
	json_object_object_add(out, "options", topt_to_json(t->opts, opts));
	return out;
}

static void print_result(const struct ttool *t, const void *opts, struct json_object *out)
{
	const struct ttool_common *c = (const void *)((const char *)opts + t->common_off);

	if (c->text)
		tjson_print_text(stdout, out, "");
	else
		printf("%s\n", json_object_to_json_string_ext(
				       out, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
						    JSON_C_TO_STRING_NOSLASHESCAPE));
}

/**
 * ttool_main() - parse, run, print; the whole life of a tool process
 * @t: the tool
 * @argc: argument count
 * @argv: arguments
 *
 * Return: the exit status: 0 ok, 1 runtime failure, 2 bad usage,
 * TTOOL_EXIT_PATH (3) the path failed the flow (the result is printed).
 */
int ttool_main(const struct ttool *t, int argc, char **argv)
{
	struct json_object *out = NULL;
	char *err = NULL;
	void *opts = malloc(t->opts_size);
	int ret, status = 1;

	if (!opts)
		return 1;
	ret = ttool_parse(t, argc, argv, opts, &err);
	if (ret == TTOOL_HELP) {
		usage(t);
		status = 0;
		goto out;
	}
	if (ret) {
		fprintf(stderr, "%s: %s\n", t->name, err ? err : strerror(-ret));
		status = 2;
		goto out;
	}
	catch_signals();
	out = header(t, opts);
	ret = t->run(opts, out, &err);
	if (ret) {
		const char *kind = ttool_path_failure(-ret);

		fprintf(stderr, "%s: %s\n", t->name, err ? err : strerror(-ret));
		if (!kind)
			goto out;
		/* The path's doing: what was measured, and how it ended. */
		add_failure(out, kind, -ret, err);
		print_result(t, opts, out);
		status = fflush(stdout) ? 1 : TTOOL_EXIT_PATH;
		goto out;
	}
	print_result(t, opts, out);
	status = fflush(stdout) ? 1 : 0;
out:
	json_object_put(out);
	free(err);
	free(opts);
	return status;
}
