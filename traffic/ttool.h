/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One traffic tool (udp-stream, tcp-stream, rr) as a table of options plus
 * callbacks, and the main() shared by all of them (traffic/main.c).
 *
 * ttool_main() is the only place that prints: --help on stdout, errors on
 * stderr ("<tool>: <message>", the message ending with a "hint:" line), the
 * result as one JSON object (or --text lines) on stdout.
 * Exit status: 0 the run completed (whatever it measured), 1 runtime failure,
 * 2 bad usage, 3 the network under test failed the flow (TTOOL_EXIT_PATH).
 *
 * A failure of the path, as opposed to one of the tool or its host: the flow
 * made no progress for --idle-timeout (a stall), the peer's stack reset or
 * refused the connection, or no route or neighbour could be found. The
 * system under test did that, so the run is a measurement, not an error:
 * the tool still prints its result, with what it had measured until then,
 * and a "failure" object {"kind": "stalled" | "reset" | "refused" | "unreachable",
 * "errno": "ETIMEDOUT", "message": "...", and what the tool added under
 * "stall" before returning: "phase", "unacked_bytes", "idle_s", ...}.
 */
#ifndef TRAFFIC_TTOOL_H
#define TRAFFIC_TTOOL_H

#include <stdbool.h>
#include <stddef.h>

#include "topt.h"

#define TTOOL_VERSION "0.1.0"
#define TTOOL_HELP 1
#define TTOOL_EXIT_PATH 3 /* the path failed the flow: the result is printed, with "failure" */

struct json_object;

/* Options every tool has; embedded in each tool's options struct. */
struct ttool_common {
	bool json;
	bool text;
};

/* clang-format off */
#define TTOOL_COMMON_OPTS(type)						\
	{ .name = "json", .kind = TOPT_FLAG,				\
	  .off = offsetof(type, common.json),				\
	  .help = "print the result as one JSON object (the default)" }, \
	{ .name = "text", .kind = TOPT_FLAG,				\
	  .off = offsetof(type, common.text),				\
	  .help = "print the result as \"key.sub = value\" lines" }
/* clang-format on */

struct ttool {
	const char *name;
	const char *usage; /* synopsis and description for --help */
	const struct topt *opts;
	size_t opts_size; /* sizeof the tool's options struct */
	size_t common_off; /* offset of its struct ttool_common */
	void (*init)(void *opts); /* set the defaults */
	int (*check)(void *opts, char **err); /* validate after parsing */
	const char *(*role)(const void *opts);
	/*
	 * Run, adding the metrics to @out; 0 or -errno with *err set. On a
	 * failure of the path (ttool_path_failure()) @out holds what was
	 * measured until then, and may hold a "stall" object with details.
	 */
	int (*run)(const void *opts, struct json_object *out, char **err);
};

/* The tools; traffic/main.c picks one with -DTTOOL=<name>. */
extern const struct ttool udp_stream_tool;
extern const struct ttool tcp_stream_tool;
extern const struct ttool rr_tool;

int ttool_parse(const struct ttool *t, int argc, char **argv, void *opts, char **err);
int ttool_main(const struct ttool *t, int argc, char **argv);
bool ttool_stopping(void);
/* "stalled", "reset", "refused" or "unreachable" for an errno that is the path's doing, else NULL. */
const char *ttool_path_failure(int errnum);

#endif /* TRAFFIC_TTOOL_H */
