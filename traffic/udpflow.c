// SPDX-License-Identifier: GPL-2.0
/*
 * udp-stream's per-flow accounting: see udpflow.h.
 */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "tjson.h"
#include "udpflow.h"
#include "wire.h"

/**
 * udpflow_set_init() - an empty set
 * @s: the set
 * @max: flows to account, 1..UDPFLOW_MAX
 * @base_id: with --flow-id, the first id (ids base_id..base_id+max-1); 0: first seen
 * @connected: sockets are connected: misdelivery is judged by source port
 * @sport_base: connected: socket i's peer port is sport_base + i
 */
void udpflow_set_init(struct udpflow_set *s, unsigned int max, uint32_t base_id, bool connected,
		      uint16_t sport_base)
{
	memset(s, 0, offsetof(struct udpflow_set, lat));
	s->max = max > UDPFLOW_MAX ? UDPFLOW_MAX : max;
	s->base_id = base_id;
	s->connected = connected;
	s->sport_base = sport_base;
	hist_init(&s->lat);
}

/* Frees the flows; the set itself is the caller's. */
void udpflow_set_release(struct udpflow_set *s)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		free(s->flows[i]);
	s->n = 0;
}

static struct udpflow *find(const struct udpflow_set *s, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (s->flows[i]->id == id)
			return s->flows[i];
	return NULL;
}

static bool accepts(const struct udpflow_set *s, uint32_t id)
{
	if (s->n >= s->max)
		return false;
	return !s->base_id || (id >= s->base_id && id - s->base_id < s->max);
}

static struct udpflow *add_flow(struct udpflow_set *s, uint32_t id, const struct udpflow_dgram *d)
{
	struct udpflow *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->id = id;
	f->sport = d->src_port;
	f->sock = d->sock;
	f->cpu = -1;
	seqacct_init(&f->acct);
	hist_init(&f->lat);
	s->flows[s->n++] = f;
	return f;
}

static bool misdelivered(const struct udpflow_set *s, const struct udpflow *f,
			 const struct udpflow_dgram *d)
{
	if (s->connected)
		return d->src_port != (uint16_t)(s->sport_base + d->sock);
	return d->sock != f->sock;
}

static void add_end(struct udpflow *f, const struct wire_hdr *h, uint64_t t)
{
	if (!f->end_seen) {
		f->end_seen = true;
		f->sent = h->seq;
		f->end_copies = h->copies;
		f->end_deadline_ns = t + UDPFLOW_END_GRACE_NS;
	}
	f->end_copies_received++;
	if (h->copy + 1 >= h->copies)
		f->last_copy = true;
}

/**
 * udpflow_add() - account one datagram
 * @s: the set
 * @d: the datagram: at least its WIRE_HDR_LEN first bytes, and its real length
 *
 * Return: what it was; UDPFLOW_NOMEM if a new flow could not be allocated
 * (the datagram is then not accounted).
 */
enum udpflow_verdict udpflow_add(struct udpflow_set *s, const struct udpflow_dgram *d)
{
	struct wire_hdr h;
	struct udpflow *f;

	if (wire_hdr_decode(d->buf, d->len, &h) || (h.type != WIRE_DATA && h.type != WIRE_END)) {
		s->invalid++;
		return UDPFLOW_INVALID;
	}
	f = find(s, h.flow);
	if (!f && !accepts(s, h.flow)) {
		s->foreign++;
		return UDPFLOW_FOREIGN;
	}
	if (!f && !(f = add_flow(s, h.flow, d)))
		return UDPFLOW_NOMEM;
	if (h.type == WIRE_END) {
		add_end(f, &h, d->t_ns);
		return UDPFLOW_END;
	}
	if (misdelivered(s, f, d)) {
		f->misdelivered++;
		s->misdelivered++;
		return UDPFLOW_MISDELIVERED;
	}
	seqacct_add(&f->acct, h.seq);
	f->bytes += d->len;
	f->cpu = d->cpu;
	if (!f->first_ns)
		f->first_ns = d->t_ns;
	f->last_ns = d->t_ns;
	if (d->t_ns >= h.ts_ns) {
		hist_record(&f->lat, d->t_ns - h.ts_ns);
		hist_record(&s->lat, d->t_ns - h.ts_ns);
	} else {
		f->latency_skipped++;
	}
	return UDPFLOW_DATA;
}

/* Its last END copy arrived, or UDPFLOW_END_GRACE_NS passed since its first. */
bool udpflow_ended(const struct udpflow *f, uint64_t now)
{
	return f->last_copy || (f->end_seen && now >= f->end_deadline_ns);
}

/* Every flow the set accounts was seen and has ended. */
bool udpflow_all_ended(const struct udpflow_set *s, uint64_t now)
{
	unsigned int i;

	if (s->n < s->max)
		return false;
	for (i = 0; i < s->n; i++)
		if (!udpflow_ended(s->flows[i], now))
			return false;
	return true;
}

/**
 * udpflow_totals() - the sums over the set's flows
 * @s: the set
 * @t: the result; with one flow, exactly that flow's numbers
 */
void udpflow_totals(const struct udpflow_set *s, struct udpflow_totals *t)
{
	unsigned int i;

	memset(t, 0, sizeof(*t));
	t->sent_known = s->n == s->max;
	for (i = 0; i < s->n; i++) {
		const struct udpflow *f = s->flows[i];
		const struct seqacct *a = &f->acct;

		t->sent_known &= f->end_seen;
		t->sent += f->sent;
		t->lost += seqacct_lost(a, f->sent);
		t->end_copies += f->end_copies;
		t->end_copies_received += f->end_copies_received;
		t->received += a->received;
		t->unique += a->unique;
		t->reordered += a->reordered;
		t->duplicated += a->duplicated;
		t->late += a->late;
		if (a->any && (!t->any || a->highest > t->highest))
			t->highest = a->highest;
		t->any |= a->any;
		t->bytes += f->bytes;
		t->latency_skipped += f->latency_skipped;
		if (f->first_ns && (!t->first_ns || f->first_ns < t->first_ns))
			t->first_ns = f->first_ns;
		if (f->last_ns > t->last_ns)
			t->last_ns = f->last_ns;
	}
}

static void add_or_null(struct json_object *o, const char *key, bool known, uint64_t v)
{
	if (known)
		tjson_u64(o, key, v);
	else
		tjson_null(o, key);
}

static struct json_object *flow_json(const struct udpflow *f, int pid)
{
	struct json_object *o = json_object_new_object();
	const struct seqacct *a = &f->acct;

	tjson_u64(o, "id", f->id);
	tjson_u64(o, "sport", f->sport);
	tjson_u64(o, "socket", f->sock);
	add_or_null(o, "sent", f->end_seen, f->sent);
	tjson_u64(o, "received", a->received);
	tjson_u64(o, "unique", a->unique);
	add_or_null(o, "lost", f->end_seen, seqacct_lost(a, f->sent));
	tjson_u64(o, "reordered", a->reordered);
	tjson_u64(o, "duplicated", a->duplicated);
	tjson_u64(o, "late", a->late);
	tjson_u64(o, "misdelivered", f->misdelivered);
	tjson_u64(o, "bytes", f->bytes);
	json_object_object_add(o, "ended", json_object_new_boolean(f->end_seen));
	add_or_null(o, "end_copies", f->end_seen, f->end_copies);
	tjson_u64(o, "end_copies_received", f->end_copies_received);
	json_object_object_add(o, "latency_us", tjson_latency_us(&f->lat));
	tjson_u64(o, "pid", (uint64_t)pid);
	if (f->cpu >= 0)
		tjson_u64(o, "cpu", (uint64_t)f->cpu);
	else
		tjson_null(o, "cpu");
	return o;
}

static int by_id(const void *a, const void *b)
{
	const struct udpflow *x = *(struct udpflow *const *)a, *y = *(struct udpflow *const *)b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/**
 * udpflow_array() - the "flows" array of the receiver's result, by flow id
 * @s: the set
 * @pid: the process that read them
 *
 * Return: a new array.
 */
struct json_object *udpflow_array(const struct udpflow_set *s, int pid)
{
	struct json_object *arr = json_object_new_array();
	struct udpflow *sorted[UDPFLOW_MAX];
	unsigned int i;

	memcpy(sorted, s->flows, s->n * sizeof(sorted[0]));
	qsort(sorted, s->n, sizeof(sorted[0]), by_id);
	for (i = 0; i < s->n; i++)
		json_object_array_add(arr, flow_json(sorted[i], pid));
	return arr;
}
