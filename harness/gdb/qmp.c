// SPDX-License-Identifier: GPL-2.0
/*
 * netlab gdb's few words with QEMU over QMP: resume a VM that gdb or -S left
 * stopped, and ask a replay how far it has come (gdb.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <json-c/json.h>

#include "gdb/gdb.h"
#include "lib/util.h"

/* Read until a line holding `want` (QMP answers one JSON object a line). */
static int qmp_expect(FILE *f, const char *want)
{
	char line[4096];

	while (fgets(line, sizeof(line), f))
		if (strstr(line, want))
			return 0;
	return -EIO;
}

/* The "return" object of one command (events before it skipped), or NULL. */
static struct json_object *qmp_ask(FILE *f, const char *cmd)
{
	char line[4096];

	fprintf(f, "{\"execute\":\"%s\"}\n", cmd);
	fflush(f);
	while (fgets(line, sizeof(line), f)) {
		struct json_object *o = json_tokener_parse(line), *r;

		if (o && json_object_object_get_ex(o, "return", &r)) {
			json_object_get(r);
			json_object_put(o);
			return r;
		}
		json_object_put(o);
		if (strstr(line, "\"error\""))
			break;
	}
	return NULL;
}

/* Connected and past the greeting and qmp_capabilities, or NULL. */
static FILE *qmp_open(const char *qmp_socket, char **err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 5 };
	struct json_object *r;
	int fd;
	FILE *f;

	if (strlen(qmp_socket) >= sizeof(sa.sun_path)) {
		err_set(err, "QMP socket path '%s' is too long", qmp_socket);
		return NULL;
	}
	strcpy(sa.sun_path, qmp_socket);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		err_set(err, "cannot connect to QMP '%s': %s", qmp_socket, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	sigpipe_ignore();	/* a QEMU that ends while we ask: EPIPE */
	f = fdopen(fd, "r+");
	if (!f) {
		close(fd);
		err_set(err, "out of memory");
		return NULL;
	}
	if (qmp_expect(f, "\"QMP\"") || !(r = qmp_ask(f, "qmp_capabilities"))) {
		err_set(err, "QMP '%s' did not greet", qmp_socket);
		fclose(f);
		return NULL;
	}
	json_object_put(r);
	return f;
}

int gdb_qmp_cont(const char *qmp_socket, char **err)
{
	FILE *f = qmp_open(qmp_socket, err);
	struct json_object *r;
	int ret = 0;

	if (!f)
		return -EIO;
	r = qmp_ask(f, "cont");
	if (!r) {
		err_set(err, "QMP '%s' did not answer 'cont'", qmp_socket);
		ret = -EIO;
	}
	json_object_put(r);
	fclose(f);
	return ret;
}

int gdb_qmp_replay_state(const char *qmp_socket, struct gdb_replay_state *st, char **err)
{
	struct json_object *r, *v;
	FILE *f = qmp_open(qmp_socket, err);
	int ret = -EIO;

	memset(st, 0, sizeof(*st));
	if (!f)
		return -EIO;
	r = qmp_ask(f, "query-status");
	if (r && json_object_object_get_ex(r, "status", &v)) {
		snprintf(st->status, sizeof(st->status), "%s", json_object_get_string(v));
		json_object_put(r);
		r = qmp_ask(f, "query-replay");
		if (r && json_object_object_get_ex(r, "icount", &v)) {
			st->icount = (unsigned long long)json_object_get_int64(v);
			ret = 0;
		}
	}
	json_object_put(r);
	fclose(f);
	if (ret)
		err_set(err, "QMP '%s' did not answer query-status/query-replay", qmp_socket);
	return ret;
}

