// SPDX-License-Identifier: GPL-2.0
/*
 * The skb:kfree_skb records of a trace.dat, aggregated the way dropwatch
 * does: in total and per interval, by location and by reason.
 *
 * Reading: tracecmd_open() parses the headers, the event formats and the
 * kallsyms section; tracecmd_iterate_events_multi() then hands us the records
 * of the top buffer and of every instance in timestamp order, one at a time,
 * freeing each after the callback. Nothing per event is kept.
 *
 * Reason names: the event's print fmt on 5.17+ ends in
 * __print_symbolic(REC->reason, { 1, "NOT_SPECIFIED" }, ...). libtraceevent
 * parses it into event->print_fmt.args; we find the TEP_PRINT_SYMBOL argument
 * over the `reason` field once, copy its value -> name pairs, and per record
 * read the number with tep_read_number(). That is the kernel's own table, as
 * recorded, without formatting the whole line (tep_print_event()) and parsing
 * it back; tep_print_field_content() does not help, as it decodes only
 * arguments that are plain fields, not __print_symbolic().
 *
 * Locations: tep_find_function() and tep_find_function_address() on the tep
 * that tracecmd_open() filled (tep_parse_kallsyms()) from the kallsyms that
 * trace-cmd record stored in the file. Each distinct site is resolved once.
 *
 * Lost events: a record after a gap carries tep_record.missed_events (a count,
 * or -1 when the ring buffer did not store one); both are counted.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>
#include <event-parse.h>
#include <trace-cmd.h>

#include "trace/tracedrops.h"
#include "trace/tracefile.h"
#include "trace/tracepass.h"
#include "lib/util.h"
#include "trace/hist-json.h"

#define NS_PER_S 1000000000ull

#define RECORD_AGAIN "record it again with trace-cmd record -e skb:kfree_skb (in the guest: -o /netlab/out/trace.dat)"

struct reason_sym {
	long long value;
	char *name;
};

struct reader {
	struct tracedrops *td;
	const struct tracedrops_opts *o;
	struct tep_handle *tep;
	int kfree_id;
	struct tep_format_field *f_skb, *f_loc, *f_proto, *f_reason;
	struct reason_sym *syms;
	size_t n_syms;
	size_t *hash;		/* site index + 1, 0 for empty */
	size_t hash_cap;	/* a power of two */
	size_t sites_cap, intervals_cap;
	bool started;
	int rc;			/* why the callback stopped the iteration */
	char *err;
};

/* ---- the event's own decoding tables ------------------------------------ */

static struct tep_print_arg *strip_casts(struct tep_print_arg *a)
{
	while (a && a->type == TEP_PRINT_TYPE)
		a = a->typecast.item;
	return a;
}

/* Copy the value -> name pairs of __print_symbolic(REC->reason, ...). */
static void load_reasons(struct reader *r, struct tep_event *ev)
{
	struct tep_print_flag_sym *sym;
	struct tep_print_arg *a, *f;
	size_t cap = 0;

	for (a = ev->print_fmt.args; a; a = a->next) {
		if (a->type != TEP_PRINT_SYMBOL)
			continue;
		f = strip_casts(a->symbol.field);
		if (!f || f->type != TEP_PRINT_FIELD || strcmp(f->field.name, "reason"))
			continue;
		for (sym = a->symbol.symbols; sym; sym = sym->next) {
			char *end;
			long long v = strtoll(sym->value, &end, 0);

			/* A name the kernel did not resolve (no TRACE_DEFINE_ENUM): skip. */
			if (end == sym->value || *end)
				continue;
			xgrow_array(&r->syms, &cap, r->n_syms + 1, sizeof(*r->syms));
			r->syms[r->n_syms].value = v;
			r->syms[r->n_syms++].name = xstrdup(sym->str);
		}
		break;
	}
}

static char *reason_name(const struct reader *r, long long v)
{
	if (!r->f_reason)
		return xstrdup("-");
	for (size_t i = 0; i < r->n_syms; i++)
		if (r->syms[i].value == v)
			return xstrdup(r->syms[i].name);
	return xasprintf("%lld", v);
}

static char *location_name(struct reader *r, uint64_t addr)
{
	const char *fn = tep_find_function(r->tep, addr);

	if (!fn) {
		r->td->unresolved++;
		return xasprintf("0x%llx", (unsigned long long)addr);
	}
	return xasprintf("%s+0x%llx", fn,
			 (unsigned long long)(addr - tep_find_function_address(r->tep, addr)));
}

static int find_event(struct reader *r, const char *path, char **err)
{
	struct tep_event *ev = tep_find_event_by_name(r->tep, "skb", "kfree_skb");

	if (!ev) {
		err_set(err,
			"cannot read trace '%s': it did not record skb:kfree_skb, so it holds no drops\nhint: " RECORD_AGAIN,
			path);
		return -ENODATA;
	}
	r->kfree_id = ev->id;
	r->f_skb = tep_find_field(ev, "skbaddr");
	r->f_loc = tep_find_field(ev, "location");
	r->f_proto = tep_find_field(ev, "protocol");
	r->f_reason = tep_find_field(ev, "reason");
	if (!r->f_loc) {
		err_set(err,
			"cannot read trace '%s': its skb:kfree_skb format has no 'location' field\nhint: check events/skb/kfree_skb/format of the traced kernel",
			path);
		return -EINVAL;
	}
	r->td->has_reason = r->f_reason != NULL;
	if (r->f_reason)
		load_reasons(r, ev);
	return 0;
}

/* ---- aggregation ---------------------------------------------------------- */

static size_t site_hash(uint64_t addr, long long reason)
{
	uint64_t h = (addr ^ ((uint64_t)reason << 48)) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 20);
}

static void rehash(struct reader *r, size_t cap)
{
	size_t *h = xcalloc(cap, sizeof(*h));
	for (size_t i = 0; i < r->td->n_sites; i++) {
		const struct tracedrops_site *s = &r->td->sites[i];
		size_t j = site_hash(s->addr, s->reason_value) & (cap - 1);

		while (h[j])
			j = (j + 1) & (cap - 1);
		h[j] = i + 1;
	}
	free(r->hash);
	r->hash = h;
	r->hash_cap = cap;
}

/* The index of the site (addr, reason), created when new. */
static size_t site_get(struct reader *r, uint64_t addr, long long reason)
{
	struct tracedrops *td = r->td;
	struct tracedrops_site *s;
	size_t j;

	if ((td->n_sites + 1) * 2 > r->hash_cap)
		rehash(r, r->hash_cap ? r->hash_cap * 2 : 64);
	for (j = site_hash(addr, reason) & (r->hash_cap - 1); r->hash[j];
	     j = (j + 1) & (r->hash_cap - 1)) {
		s = &td->sites[r->hash[j] - 1];
		if (s->addr == addr && s->reason_value == reason)
			return r->hash[j] - 1;
	}
	xgrow_array(&td->sites, &r->sites_cap, td->n_sites + 1, sizeof(*td->sites));
	s = &td->sites[td->n_sites];
	s->addr = addr;
	s->reason_value = reason;
	s->location = location_name(r, addr);
	s->reason = reason_name(r, reason);
	s->count = 0;
	r->hash[j] = ++td->n_sites;
	return td->n_sites - 1;
}

/* The interval holding `rel` ns after t0, created when new. */
static struct tracedrops_interval *interval_get(struct reader *r, uint64_t rel)
{
	struct tracedrops *td = r->td;
	uint64_t idx = rel / td->interval_ns;
	size_t lo = 0, hi = td->n_intervals;

	/* Records come in time order: almost always the last one, or a new one. */
	if (hi && td->intervals[hi - 1].index == idx)
		return &td->intervals[hi - 1];
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (td->intervals[mid].index == idx)
			return &td->intervals[mid];
		if (td->intervals[mid].index < idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	xgrow_array(&td->intervals, &r->intervals_cap, td->n_intervals + 1, sizeof(*td->intervals));
	memmove(&td->intervals[lo + 1], &td->intervals[lo],
		(td->n_intervals - lo) * sizeof(*td->intervals));
	td->n_intervals++;
	memset(&td->intervals[lo], 0, sizeof(*td->intervals));
	td->intervals[lo].index = idx;
	return &td->intervals[lo];
}

static void slot_add(struct tracedrops_interval *iv, size_t site)
{
	for (size_t i = 0; i < iv->n_slots; i++)
		if (iv->slots[i].site == site) {
			iv->slots[i].count++;
			return;
		}
	iv->slots = xrealloc_array(iv->slots, iv->n_slots + 1, sizeof(*iv->slots));
	iv->slots[iv->n_slots++] = (struct tracedrops_slot){ .site = site, .count = 1 };
}

static int field_read(struct reader *r, struct tep_record *rec, struct tep_format_field *f,
		      unsigned long long *v)
{
	if (!f) {
		*v = 0;
		return 0;
	}
	if (f->offset < 0 || f->offset + f->size > rec->size) {
		r->rc = -EINVAL;
		err_set(&r->err,
			"a skb:kfree_skb record at file offset %llu is shorter (%d bytes) than its format",
			(unsigned long long)rec->offset, rec->size);
		return -1;
	}
	*v = tep_read_number(r->tep, (char *)rec->data + f->offset, f->size);
	return 0;
}

static int count_drop(struct reader *r, struct tep_record *rec, uint64_t rel)
{
	struct tracedrops *td = r->td;
	unsigned long long skb, loc, proto, reason;
	struct tracedrops_interval *iv;
	struct tracedrops_drop d;
	size_t site;

	if (field_read(r, rec, r->f_skb, &skb) || field_read(r, rec, r->f_loc, &loc) ||
	    field_read(r, rec, r->f_proto, &proto) || field_read(r, rec, r->f_reason, &reason))
		return -1;
	site = site_get(r, loc, r->f_reason ? (long long)reason : -1);
	iv = interval_get(r, rel);
	slot_add(iv, site);
	td->sites[site].count++;
	iv->total++;
	td->total++;
	if (!r->o->on_drop)
		return 0;
	d = (struct tracedrops_drop){
		.ts = rec->ts,
		.rel = rel,
		.skbaddr = skb,
		.protocol = (unsigned int)proto,
		.cpu = rec->cpu,
		.pid = tep_data_pid(r->tep, rec),
		.site = &td->sites[site],
	};
	r->rc = r->o->on_drop(r->o->ctx, &d);
	return r->rc ? -1 : 0;
}

static int on_record(struct tep_record *rec, int cpu, void *data)
{
	struct reader *r = data;
	struct tracedrops *td = r->td;
	uint64_t rel;

	if (!r->started) {
		td->t0 = rec->ts;
		r->started = true;
	}
	rel = rec->ts > td->t0 ? rec->ts - td->t0 : 0;
	if (rec->ts > td->last_ts)
		td->last_ts = rec->ts;
	td->events++;
	if (rec->missed_events) {
		struct tracedrops_interval *iv = interval_get(r, rel);

		td->lost_gaps++;
		if (rec->missed_events > 0) {
			td->lost += rec->missed_events;
			iv->lost += rec->missed_events;
		} else {
			td->lost_unknown++;
			iv->lost_unknown++;
		}
	}
	if (rec->size < 2 || tep_data_type(r->tep, rec) != r->kfree_id)
		return 0;
	return count_drop(r, rec, rel);
}

/* ---- totals and order ------------------------------------------------------ */

static int cmp_site(const void *a, const void *b)
{
	const struct tracedrops_site *x = a, *y = b;
	int c;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	c = strcmp(x->location, y->location);
	return c ? c : strcmp(x->reason, y->reason);
}

static int cmp_total(const void *a, const void *b)
{
	const struct tracedrops_total *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int cmp_slot(const void *a, const void *b)
{
	const struct tracedrops_slot *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->site < y->site ? -1 : x->site > y->site;
}

static void total_add(struct tracedrops_total *t, size_t *n, const char *name, long long value,
		      uint64_t count)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(t[i].name, name)) {
			t[i].count += count;
			return;
		}
	t[(*n)++] = (struct tracedrops_total){ .name = name, .value = value, .count = count };
}

static int cmp_site_idx(const void *a, const void *b, void *sites)
{
	const struct tracedrops_site *s = sites;

	return cmp_site(&s[*(const size_t *)a], &s[*(const size_t *)b]);
}

/* Sort sites by count (remapping the interval slots), and sum by location and by reason. */
static void finish(struct tracedrops *td)
{
	size_t n = td->n_sites;
	size_t *order = xcalloc(n + 1, sizeof(*order)), *map = xcalloc(n + 1, sizeof(*map));
	struct tracedrops_site *sorted = xcalloc(n + 1, sizeof(*sorted));

	td->by_location = xcalloc(n + 1, sizeof(*td->by_location));
	td->by_reason = xcalloc(n + 1, sizeof(*td->by_reason));
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), cmp_site_idx, td->sites);
	for (size_t i = 0; i < n; i++) {
		map[order[i]] = i;
		sorted[i] = td->sites[order[i]];
	}
	if (n)	/* memcpy(NULL, ..., 0) is undefined too */
		memcpy(td->sites, sorted, n * sizeof(*sorted));
	for (size_t k = 0; k < td->n_intervals; k++) {
		struct tracedrops_interval *iv = &td->intervals[k];

		for (size_t i = 0; i < iv->n_slots; i++)
			iv->slots[i].site = map[iv->slots[i].site];
		if (iv->n_slots > 1)	/* qsort(NULL, 0) is undefined */
			qsort(iv->slots, iv->n_slots, sizeof(*iv->slots), cmp_slot);
	}
	for (size_t i = 0; i < n; i++) {
		const struct tracedrops_site *s = &td->sites[i];

		total_add(td->by_location, &td->n_by_location, s->location, -1, s->count);
		total_add(td->by_reason, &td->n_by_reason, s->reason, s->reason_value, s->count);
	}
	if (td->n_by_location > 1)	/* qsort(NULL, 0) is undefined */
		qsort(td->by_location, td->n_by_location, sizeof(*td->by_location), cmp_total);
	if (td->n_by_reason > 1)	/* qsort(NULL, 0) is undefined */
		qsort(td->by_reason, td->n_by_reason, sizeof(*td->by_reason), cmp_total);
	free(order);
	free(map);
	free(sorted);
}

/* ---- reading ---------------------------------------------------------------- */

static void reader_release(struct reader *r)
{
	for (size_t i = 0; i < r->n_syms; i++)
		free(r->syms[i].name);
	free(r->syms);
	free(r->hash);
	free(r->err);
}

struct tracedrops_pass {
	struct tracepass_slot slot;
	struct reader r;
	struct tracedrops_opts o;
	const char *path;
};

static void pass_free(struct tracedrops_pass *s)
{
	reader_release(&s->r);
	tracedrops_free(s->r.td);
	free(s);
}

int tracedrops_attach(struct tracepass *tp, const struct tracedrops_opts *o,
		      struct tracedrops_pass **out, char **err)
{
	struct tracedrops_pass *s;
	struct tracedrops *td;
	int ret;

	*out = NULL;
	ret = tracepass_open(tp, RECORD_AGAIN, err);
	if (ret)
		return ret;
	s = xzalloc(sizeof(*s));
	if (o)
		s->o = *o;
	s->path = tp->path;
	s->r.o = &s->o;
	td = xzalloc(sizeof(*td));
	td->path = xstrdup(tp->path);
	td->interval_ns = s->o.interval_ns ? s->o.interval_ns : NS_PER_S;
	s->r.td = td;
	s->r.tep = tp->tf.tep;
	td->cpus = tp->tf.cpus;
	td->buffers = tp->tf.n;
	ret = find_event(&s->r, tp->path, err);
	if (ret) {
		if (ret == -ENOMEM)
			err_set(err, "cannot read trace '%s': %s", tp->path, strerror(ENOMEM));
		pass_free(s);
		return ret;
	}
	s->slot.cb = on_record;
	s->slot.ctx = &s->r;
	tracepass_add(tp, &s->slot);
	*out = s;
	return 0;
}

int tracedrops_collect(struct tracedrops_pass *s, struct tracedrops **out, char **err)
{
	struct reader *r = &s->r;
	int ret = tracepass_result(&s->slot, err);

	*out = NULL;
	if (ret) {
		if (ret == -1)
			ret = r->rc;
		if (ret == -EINVAL && r->err)
			err_set(err, "cannot read trace '%s': %s\nhint: check it with trace-cmd report; if that fails too, record it again",
				s->path, r->err);
	} else {
		finish(r->td);
	}
	if (ret) {
		if (ret == -ENOMEM)
			err_set(err, "cannot read trace '%s': %s", s->path, strerror(ENOMEM));
		pass_free(s);
		return ret;
	}
	*out = r->td;
	r->td = NULL;
	pass_free(s);
	return 0;
}

void tracedrops_free(struct tracedrops *td)
{
	if (!td)
		return;
	for (size_t i = 0; i < td->n_sites; i++) {
		free(td->sites[i].location);
		free(td->sites[i].reason);
	}
	for (size_t i = 0; i < td->n_intervals; i++)
		free(td->intervals[i].slots);
	free(td->sites);
	free(td->intervals);
	free(td->by_location);
	free(td->by_reason);
	free(td->path);
	free(td);
}

double tracedrops_interval_start(const struct tracedrops *td, const struct tracedrops_interval *iv)
{
	return (double)(iv->index * td->interval_ns) / NS_PER_S;
}

const char *tracedrops_proto_name(unsigned int protocol)
{
	switch (protocol) {
	case 0x0800:
		return "IPv4";
	case 0x86dd:
		return "IPv6";
	case 0x0806:
		return "ARP";
	case 0x8100:
		return "802.1Q";
	case 0x0004:
		return "802.2";
	default:
		return NULL;
	}
}

/* ---- JSON ------------------------------------------------------------------- */


static struct json_object *json_u64(uint64_t v)
{
	return json_object_new_uint64(v);
}

static struct json_object *json_totals(const struct tracedrops_total *t, size_t n)
{
	struct json_object *o = json_object_new_object();

	for (size_t i = 0; o && i < n; i++)
		json_object_object_add(o, t[i].name, json_u64(t[i].count));
	return o;
}

static struct json_object *json_site(const struct tracedrops_site *s, uint64_t count)
{
	struct json_object *o = json_object_new_object();
	char addr[24];

	if (!o)
		return NULL;
	snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)s->addr);
	json_object_object_add(o, "location", json_object_new_string(s->location));
	json_object_object_add(o, "address", json_object_new_string(addr));
	json_object_object_add(o, "reason", json_object_new_string(s->reason));
	json_object_object_add(o, "count", json_u64(count));
	return o;
}

static struct json_object *json_interval(const struct tracedrops *td,
					 const struct tracedrops_interval *iv)
{
	struct json_object *o = json_object_new_object(), *sites = json_object_new_array();

	if (!o || !sites) {
		json_object_put(o);
		json_object_put(sites);
		return NULL;
	}
	json_object_object_add(o, "start_s", json_seconds(iv->index * td->interval_ns));
	json_object_object_add(o, "end_s", json_seconds((iv->index + 1) * td->interval_ns));
	json_object_object_add(o, "drops", json_u64(iv->total));
	json_object_object_add(o, "lost_events", json_u64(iv->lost));
	json_object_object_add(o, "lost_unknown", json_u64(iv->lost_unknown));
	for (size_t i = 0; i < iv->n_slots; i++)
		json_object_array_add(sites,
				      json_site(&td->sites[iv->slots[i].site], iv->slots[i].count));
	json_object_object_add(o, "sites", sites);
	return o;
}

static struct json_object *json_trace(const struct tracedrops *td)
{
	const struct json_trace_head h = {
		.path = td->path, .cpus = td->cpus, .buffers = td->buffers, .events = td->events,
		.t0 = td->t0, .last_ts = td->last_ts, .lost = td->lost, .lost_gaps = td->lost_gaps,
		.lost_unknown = td->lost_unknown,
	};

	return json_trace_head(&h);
}

struct json_object *tracedrops_to_json(const struct tracedrops *td)
{
	struct json_object *o = json_object_new_object(), *d = json_object_new_object();
	struct json_object *sites = json_object_new_array(), *ivs = json_object_new_array();

	if (!o || !d || !sites || !ivs) {
		json_object_put(o);
		json_object_put(d);
		json_object_put(sites);
		json_object_put(ivs);
		return NULL;
	}
	json_object_object_add(o, "trace", json_trace(td));
	json_object_object_add(d, "total", json_u64(td->total));
	json_object_object_add(d, "interval_s", json_seconds(td->interval_ns));
	json_object_object_add(d, "has_reason", json_object_new_boolean(td->has_reason));
	json_object_object_add(d, "unresolved_locations", json_u64(td->unresolved));
	json_object_object_add(d, "by_reason", json_totals(td->by_reason, td->n_by_reason));
	json_object_object_add(d, "by_location", json_totals(td->by_location, td->n_by_location));
	for (size_t i = 0; i < td->n_sites; i++)
		json_object_array_add(sites, json_site(&td->sites[i], td->sites[i].count));
	json_object_object_add(d, "sites", sites);
	for (size_t i = 0; i < td->n_intervals; i++)
		json_object_array_add(ivs, json_interval(td, &td->intervals[i]));
	json_object_object_add(d, "intervals", ivs);
	json_object_object_add(o, "drops", d);
	return o;
}

struct json_object *tracedrops_drop_to_json(const struct tracedrops_drop *d)
{
	struct json_object *o = json_object_new_object();
	const char *pname = tracedrops_proto_name(d->protocol);
	char skb[24];

	if (!o)
		return NULL;
	snprintf(skb, sizeof(skb), "0x%llx", (unsigned long long)d->skbaddr);
	json_object_object_add(o, "time_s", json_seconds(d->rel));
	json_object_object_add(o, "ts", json_seconds(d->ts));
	json_object_object_add(o, "cpu", json_object_new_int(d->cpu));
	json_object_object_add(o, "pid", json_object_new_int(d->pid));
	json_object_object_add(o, "skbaddr", json_object_new_string(skb));
	json_object_object_add(o, "protocol", json_object_new_int((int)d->protocol));
	json_object_object_add(o, "protocol_name", pname ? json_object_new_string(pname) : NULL);
	json_object_object_add(o, "location", json_object_new_string(d->site->location));
	json_object_object_add(o, "reason", json_object_new_string(d->site->reason));
	return o;
}
