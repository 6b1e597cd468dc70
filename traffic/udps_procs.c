// SPDX-License-Identifier: GPL-2.0
/*
 * udp-stream --procs: see udps_procs.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "terr.h"
#include "tjson.h"
#include "ttool.h"
#include "udpflow.h"
#include "udps_procs.h"

/* Receiving with --procs: the ids of the flows that ended, shared by the processes. */
static uint32_t *ended_ids;
static unsigned int ended_noted; /* this process's flows already noted */

/* Adds @id to the shared list, once. */
static void note_id(uint32_t id)
{
	unsigned int i;
	uint32_t zero;

	for (i = 0; i < UDPFLOW_MAX; i++) {
		zero = 0;
		if (__atomic_load_n(&ended_ids[i], __ATOMIC_SEQ_CST) == id)
			return;
		if (__atomic_compare_exchange_n(&ended_ids[i], &zero, id, false, __ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST) ||
		    zero == id)
			return;
	}
}

/**
 * udps_procs_note_ended() - share the ids of this process's flows that ended
 * @o: the options (nothing happens unless receiving with --procs > 1)
 * @s: this process's flows
 * @now: the time, for udpflow_ended()
 */
void udps_procs_note_ended(const struct udps_opts *o, const struct udpflow_set *s, uint64_t now)
{
	unsigned int i, n = 0;

	if (!ended_ids || o->procs < 2)
		return;
	for (i = 0; i < s->n; i++)
		n += udpflow_ended(s->flows[i], now);
	if (n == ended_noted)
		return;
	for (i = 0; i < s->n; i++)
		if (udpflow_ended(s->flows[i], now))
			note_id(s->flows[i]->id);
	ended_noted = n;
}

/* Receiving with --procs: --flows distinct flows ended, in any of the processes. */
bool udps_procs_all_ended(const struct udps_opts *o)
{
	unsigned int i;

	if (!ended_ids || o->procs < 2)
		return false;
	for (i = 0; i < o->flows; i++)
		if (!__atomic_load_n(&ended_ids[i], __ATOMIC_SEQ_CST))
			return false;
	return true;
}

static int write_all(int fd, const char *s, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, s, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		s += n;
		len -= (size_t)n;
	}
	return 0;
}

/* A child: its part, then {"errno": N, "error": "...", "result": {...}} on @fd. */
static void child(const struct udps_opts *o, uint32_t first_id, udps_part_fn part, unsigned int k,
		  int fd)
{
	struct json_object *msg = json_object_new_object(), *res = json_object_new_object();
	char *err = NULL;
	const char *s;
	int ret;

	/* A parent killed outright does not leave its children running. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	ret = part(o, first_id, k, res, &err);

	json_object_object_add(msg, "errno", json_object_new_int(-ret));
	if (err)
		tjson_str(msg, "error", err);
	json_object_object_add(msg, "result", res);
	s = json_object_to_json_string_ext(msg, JSON_C_TO_STRING_PLAIN);
	_exit(write_all(fd, s, strlen(s)) ? 1 : ret ? 1 : 0);
}

/* Everything until EOF; SIGTERM to the children once a signal came. */
static char *read_all(int fd, const pid_t *pids, unsigned int n)
{
	static bool forwarded;
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap), *nb;
	ssize_t r;
	unsigned int i;

	while (buf) {
		if (len + 1 >= cap) {
			nb = realloc(buf, cap *= 2);
			if (!nb)
				break;
			buf = nb;
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r > 0) {
			len += (size_t)r;
			continue;
		}
		if (r < 0 && errno == EINTR) {
			for (i = 0; ttool_stopping() && !forwarded && i < n; i++)
				kill(pids[i], SIGTERM);
			forwarded |= ttool_stopping();
			continue;
		}
		buf[len] = '\0';
		return buf;
	}
	free(buf);
	return NULL;
}

static int start(const struct udps_opts *o, uint32_t first_id, udps_part_fn part, pid_t *pids,
		 int *fds, unsigned int *started, char **err)
{
	unsigned int k;
	int p[2];

	fflush(stdout);
	for (k = 0; k < o->procs; k++) {
		if (pipe2(p, O_CLOEXEC))
			return terr_sys(err, errno, NULL, "cannot create a pipe for process %u", k);
		pids[k] = fork();
		if (pids[k] < 0) {
			close(p[0]);
			close(p[1]);
			return terr_sys(err, errno, NULL, "cannot start process %u of --procs %llu",
					k, (unsigned long long)o->procs);
		}
		if (!pids[k]) {
			close(p[0]);
			child(o, first_id, part, k, p[1]);
		}
		close(p[1]);
		fds[k] = p[0];
		*started = k + 1;
	}
	return 0;
}

/* Process @k's result, or its error into *@err if none came before. */
static struct json_object *collect(int fd, const pid_t *pids, unsigned int n, unsigned int k,
				   int *ret, char **err)
{
	struct json_object *j, *v = NULL;
	char *buf = read_all(fd, pids, n);
	int e = 0;

	close(fd);
	waitpid(pids[k], NULL, 0);
	j = buf ? json_tokener_parse(buf) : NULL;
	free(buf);
	if (!j) {
		if (!*ret)
			*ret = terr_fmt(
				err, -EIO,
				"process %u of --procs gave no result\nhint: it was killed or crashed: see the kernel log",
				k);
		return NULL;
	}
	if (json_object_object_get_ex(j, "errno", &v))
		e = json_object_get_int(v);
	if (e && !*ret) {
		v = NULL;
		json_object_object_get_ex(j, "error", &v);
		*ret = terr_fmt(err, -e, "process %u: %s", k,
				v ? json_object_get_string(v) : strerror(e));
	}
	return j;
}

/**
 * udps_procs_run() - run @part in --procs child processes, merge their results
 * @o: the options, o->procs > 1
 * @first_id: the first flow id (sender)
 * @part: one process's work
 * @out: the merged result
 * @err: the first failing process's error
 *
 * Return: 0, or the first failing process's -errno.
 */
int udps_procs_run(const struct udps_opts *o, uint32_t first_id, udps_part_fn part,
		   struct json_object *out, char **err)
{
	struct json_object *parts[UDPS_MAX_PROCS] = { NULL }, *res[UDPS_MAX_PROCS];
	pid_t pids[UDPS_MAX_PROCS];
	int fds[UDPS_MAX_PROCS], ret;
	unsigned int k, started = 0, n = 0;

	if (o->recv) {
		ended_ids = mmap(NULL, UDPFLOW_MAX * sizeof(*ended_ids), PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (ended_ids == MAP_FAILED) {
			ended_ids = NULL;
			return terr_sys(err, errno, NULL, "cannot map the processes' shared state");
		}
	}
	ret = start(o, first_id, part, pids, fds, &started, err);
	for (k = 0; ret && k < started; k++)
		kill(pids[k], SIGTERM);
	for (k = 0; k < started; k++) {
		parts[k] = collect(fds[k], pids, started, k, &ret, err);
		if (parts[k] && json_object_object_get_ex(parts[k], "result", &res[n]))
			n++;
	}
	if (!ret)
		udps_procs_merge(o, res, n, out);
	for (k = 0; k < started; k++)
		json_object_put(parts[k]);
	if (ended_ids)
		munmap(ended_ids, UDPFLOW_MAX * sizeof(*ended_ids));
	ended_ids = NULL;
	return ret;
}

/* Merge */

enum merge_op { M_FIRST, M_SUM, M_MIN, M_MAX, M_SUM_OBJ, M_MAX_OBJ, M_LATENCY, M_ARRAY };

struct merge_key {
	const char *key;
	enum merge_op op;
};

static const struct merge_key tx_keys[] = {
	{ "flow_id", M_MIN },
	{ "end_reason", M_FIRST },
	{ "sent", M_SUM },
	{ "bytes", M_SUM },
	{ "size_min_sent", M_MIN },
	{ "size_max_sent", M_MAX },
	{ "send_errors_total", M_SUM },
	{ "send_errors", M_SUM_OBJ },
	{ "end_copies_sent", M_SUM },
	{ "duration_s", M_MAX },
	{ "target_pps", M_SUM },
	{ "achieved_pps", M_SUM },
	{ "achieved_bps", M_SUM },
	{ "flows", M_ARRAY },
	{ NULL, M_FIRST },
};

static const struct merge_key rx_keys[] = {
	{ "flow_id", M_MIN },
	{ "end_reason", M_FIRST },
	{ "sent", M_SUM },
	{ "received", M_SUM },
	{ "unique", M_SUM },
	{ "lost", M_SUM },
	{ "reordered", M_SUM },
	{ "duplicated", M_SUM },
	{ "late", M_SUM },
	{ "seq_highest", M_MAX },
	{ "bytes", M_SUM },
	{ "invalid", M_SUM },
	{ "foreign", M_SUM },
	{ "end_copies", M_SUM },
	{ "end_copies_received", M_SUM },
	{ "rcvbuf_bytes", M_FIRST },
	{ "duration_s", M_MAX },
	{ "rx_pps", M_SUM },
	{ "rx_bps", M_SUM },
	{ "latency_us", M_LATENCY },
	{ "latency_skipped", M_SUM },
	{ "netstat_delta", M_MAX_OBJ },
	{ "flows", M_ARRAY },
	{ "sockets", M_ARRAY },
	{ "misdelivered", M_SUM },
	{ NULL, M_FIRST },
};

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* Numbers: sum, min or max of the non-null values; null if all are null. */
static struct json_object *merge_num(struct json_object **v, unsigned int n, enum merge_op op)
{
	bool dbl = false, any = false;
	double d = 0, x;
	uint64_t u = 0, y;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!v[i] || json_object_get_type(v[i]) == json_type_null)
			continue;
		dbl |= json_object_get_type(v[i]) == json_type_double;
		x = json_object_get_double(v[i]);
		y = json_object_get_uint64(v[i]);
		if (!any) {
			d = x;
			u = y;
		} else if (op == M_SUM) {
			d += x;
			u += y;
		} else if (op == M_MIN) {
			d = x < d ? x : d;
			u = y < u ? y : u;
		} else {
			d = x > d ? x : d;
			u = y > u ? y : u;
		}
		any = true;
	}
	if (!any)
		return NULL;
	return dbl ? tjson_new_double(d) : json_object_new_uint64(u);
}

/* Objects of numbers: per key, as merge_num(). */
static struct json_object *merge_obj(struct json_object **v, unsigned int n, enum merge_op op)
{
	struct json_object *out = NULL, *vals[UDPS_MAX_PROCS];
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		if (!v[i] || json_object_get_type(v[i]) != json_type_object)
			continue;
		if (!out)
			out = json_object_new_object();
		json_object_object_foreach(v[i], key, val)
		{
			(void)val;
			if (get(out, key))
				continue;
			for (j = 0; j < n; j++)
				vals[j] = get(v[j], key);
			json_object_object_add(out, key, merge_num(vals, n, op));
		}
	}
	return out;
}

/* Latency: count, min, max, mean exact; percentiles the largest (an upper bound). */
static struct json_object *merge_latency(struct json_object **v, unsigned int n)
{
	struct json_object *out = merge_obj(v, n, M_MAX), *c[UDPS_MAX_PROCS];
	double sum = 0, total = 0, cnt;
	unsigned int i;

	if (!out)
		return NULL;
	for (i = 0; i < n; i++) {
		c[i] = get(v[i], "count");
		cnt = c[i] ? json_object_get_double(c[i]) : 0;
		if (cnt && get(v[i], "mean")) {
			sum += cnt * json_object_get_double(get(v[i], "mean"));
			total += cnt;
		}
	}
	json_object_object_add(out, "count", merge_num(c, n, M_SUM));
	for (i = 0; i < n; i++)
		c[i] = get(v[i], "min");
	json_object_object_add(out, "min", merge_num(c, n, M_MIN));
	json_object_object_add(out, "mean", total ? tjson_new_double(sum / total) : NULL);
	return out;
}

static int by_key(const void *a, const void *b, const char *key)
{
	uint64_t x = json_object_get_uint64(get(*(struct json_object *const *)a, key));
	uint64_t y = json_object_get_uint64(get(*(struct json_object *const *)b, key));

	return x < y ? -1 : x > y;
}

static int by_id(const void *a, const void *b)
{
	return by_key(a, b, "id");
}

static int by_index(const void *a, const void *b)
{
	return by_key(a, b, "index");
}

static struct json_object *merge_array(struct json_object **v, unsigned int n, const char *key)
{
	struct json_object *out = json_object_new_array();
	unsigned int i;
	size_t j;

	for (i = 0; i < n; i++)
		for (j = 0; v[i] && j < json_object_array_length(v[i]); j++)
			json_object_array_add(out,
					      json_object_get(json_object_array_get_idx(v[i], j)));
	json_object_array_sort(out, strcmp(key, "sockets") ? by_id : by_index);
	return out;
}

static uint64_t u64(struct json_object *o, const char *key)
{
	return json_object_get_uint64(get(o, key));
}

/*
 * A flow read by several receiving processes: the one that read most of it
 * owns it, what the others read is misdelivered. Sorted by id on entry.
 */
static struct json_object *merge_rx_flows(struct json_object *flows)
{
	struct json_object *out = json_object_new_array(), *f, *owner = NULL, *g;
	size_t i, j, k, n = json_object_array_length(flows);

	for (i = 0; i < n; i = j) {
		owner = json_object_array_get_idx(flows, i);
		for (j = i + 1; j < n; j++) {
			f = json_object_array_get_idx(flows, j);
			if (u64(f, "id") != u64(owner, "id"))
				break;
			if (u64(f, "received") > u64(owner, "received"))
				owner = f;
		}
		owner = json_object_get(owner);
		for (k = i; k < j; k++) {
			g = json_object_array_get_idx(flows, k);
			if (g == owner)
				continue;
			tjson_u64(owner, "misdelivered",
				  u64(owner, "misdelivered") + u64(g, "received") +
					  u64(g, "misdelivered"));
			if (!json_object_get_uint64(get(owner, "sent")) && get(g, "sent"))
				json_object_object_add(owner, "sent",
						       json_object_get(get(g, "sent")));
		}
		if (get(owner, "sent"))
			tjson_u64(owner, "lost",
				  u64(owner, "sent") > u64(owner, "unique")
					  ? u64(owner, "sent") - u64(owner, "unique")
					  : 0);
		json_object_array_add(out, owner);
	}
	return out;
}

/* The receiver's sums, from its merged flows. */
static void rx_sums(const struct udps_opts *o, struct json_object *out)
{
	static const char *const sums[] = {
		"received", "unique",	    "reordered",	   "duplicated", "late",
		"bytes",    "misdelivered", "end_copies_received", NULL
	};
	struct json_object *flows = get(out, "flows"), *f;
	uint64_t sent = 0, lost = 0, copies = 0, v;
	size_t i, n = json_object_array_length(flows);
	bool known = n == o->flows;
	const char *const *k;

	for (k = sums; *k; k++) {
		for (v = 0, i = 0; i < n; i++)
			v += u64(json_object_array_get_idx(flows, i), *k);
		tjson_u64(out, *k, v);
	}
	for (i = 0; i < n; i++) {
		f = json_object_array_get_idx(flows, i);
		known &= get(f, "sent") != NULL;
		sent += u64(f, "sent");
		lost += u64(f, "lost");
		copies += u64(f, "end_copies");
	}
	if (known) {
		tjson_u64(out, "sent", sent);
		tjson_u64(out, "lost", lost);
		tjson_u64(out, "end_copies", copies);
	}
}

/**
 * udps_procs_merge() - the processes' results as one
 * @o: the options (--send or --recv)
 * @parts: each process's result
 * @n: how many
 * @out: the result, keys in the order one process writes them
 *
 * Return: 0.
 */
int udps_procs_merge(const struct udps_opts *o, struct json_object **parts, unsigned int n,
		     struct json_object *out)
{
	const struct merge_key *k = o->send ? tx_keys : rx_keys;
	struct json_object *v[UDPS_MAX_PROCS], *m, *flows;
	unsigned int i;
	int cpu = sched_getcpu();

	for (; k->key; k++) {
		for (i = 0; i < n; i++)
			v[i] = get(parts[i], k->key);
		switch (k->op) {
		case M_FIRST:
			m = n && v[0] ? json_object_get(v[0]) : NULL;
			break;
		case M_SUM_OBJ:
			m = merge_obj(v, n, M_SUM);
			break;
		case M_MAX_OBJ:
			m = merge_obj(v, n, M_MAX);
			break;
		case M_LATENCY:
			m = merge_latency(v, n);
			break;
		case M_ARRAY:
			m = merge_array(v, n, k->key);
			break;
		default:
			m = merge_num(v, n, k->op);
		}
		json_object_object_add(out, k->key, m);
	}
	if (o->recv) {
		flows = merge_rx_flows(get(out, "flows"));
		json_object_object_add(out, "flows", flows);
		rx_sums(o, out);
	}
	tjson_u64(out, "pid", (uint64_t)getpid());
	if (o->send) {
		if (cpu >= 0)
			tjson_u64(out, "cpu", (uint64_t)cpu);
		else
			tjson_null(out, "cpu");
	}
	return 0;
}
