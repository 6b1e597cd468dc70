// SPDX-License-Identifier: GPL-2.0
/*
 * What the transmit side of each NIC's driver layer says (txpath.h): the
 * metrics, the loss story's sentence, the report's table and its JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/esc.h"
#include "trace/txpath.h"
#include "lib/metrics.h"
#include "lib/util.h"

/* A device name that can be one component of a metric name. */
static bool name_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s == '.' || *s <= ' ' || *s >= 0x7f)
			return false;
	return true;
}

static void mset(struct metrics *m, const char *dev, const char *what, double v)
{
	char *name = xasprintf("drv.%s.tx.%s", dev, what);

	metrics_set(m, name, v);
	free(name);
}

void txpath_metrics(const struct txpath *t, struct metrics *m)
{
	if (t->lost)
		return;
	for (size_t i = 0; i < t->n_devs; i++) {
		const struct txpath_dev *d = &t->devs[i];
		const struct txpath_lens *l = &d->no_desc_len;

		if (!name_ok(d->name))
			continue;
		mset(m, d->name, "handed", (double)d->handed[TXPATH_V4]);
		mset(m, d->name, "handed_v6", (double)d->handed[TXPATH_V6]);
		mset(m, d->name, "handed_other", (double)d->handed[TXPATH_OTHER]);
		mset(m, d->name, "skbs", (double)d->skbs);
		mset(m, d->name, "gso_skbs", (double)d->gso_skbs);
		mset(m, d->name, "busy", (double)d->busy);
		mset(m, d->name, "refused", (double)d->refused);
		if (t->has_kfree)
			mset(m, d->name, "xmit_freed", (double)d->no_desc_freed);
		if (!d->lines)
			continue;
		mset(m, d->name, "desc", (double)d->desc);
		mset(m, d->name, "no_desc", (double)txpath_dev_no_desc(d));
		if (t->has_free) {
			mset(m, d->name, "no_desc_silent", (double)d->no_desc_consumed);
			mset(m, d->name, "completed", (double)d->completed);
			mset(m, d->name, "in_flight", (double)d->in_flight);
		}
		if (!l->count)
			continue;
		mset(m, d->name, "no_desc_len_min", (double)l->min);
		mset(m, d->name, "no_desc_len_max", (double)l->max);
		mset(m, d->name, "handed_in_no_desc_range", (double)d->handed_in_range);
		mset(m, d->name, "no_desc_csum_partial", (double)d->no_desc_has.csum_partial);
		mset(m, d->name, "no_desc_gso", (double)d->no_desc_has.gso);
		mset(m, d->name, "no_desc_nonlinear", (double)d->no_desc_has.nonlinear);
		mset(m, d->name, "handed_csum_partial", (double)d->handed_has.csum_partial);
		mset(m, d->name, "handed_gso", (double)d->handed_has.gso);
		mset(m, d->name, "handed_nonlinear", (double)d->handed_has.nonlinear);
		mset(m, d->name, "no_desc_period", (double)d->period);
		mset(m, d->name, "no_desc_phase", (double)d->phase);
		for (size_t k = 0; k < l->n && k < 4; k++) {
			char what[48];

			snprintf(what, sizeof(what), "no_desc_len.%llu", (unsigned long long)l->top[k].len);
			mset(m, d->name, what, (double)l->top[k].count);
		}
	}
}

/* "600..899 B, most: 642 B (12), 700 B (9), others (591)" */
static void lens_text(struct sbuf *b, const struct txpath_lens *l, unsigned int shown)
{
	if (!l->count)
		return;
	if (l->min == l->max)
		sbuf_addf(b, "all %llu B", (unsigned long long)l->min);
	else
		sbuf_addf(b, "%llu..%llu B", (unsigned long long)l->min, (unsigned long long)l->max);
	if (l->min == l->max)
		return;
	for (size_t k = 0; k < l->n && k < shown; k++)
		sbuf_addf(b, "%s%llu B (%llu)", k ? ", " : ", most: ", (unsigned long long)l->top[k].len,
			  (unsigned long long)l->top[k].count);
	if (l->n > shown || l->other) {
		uint64_t rest = l->other;

		for (size_t k = shown; k < l->n; k++)
			rest += l->top[k].count;
		sbuf_addf(b, ", others (%llu)", (unsigned long long)rest);
	}
}

char *txpath_dev_evidence(const struct txpath_dev *d)
{
	uint64_t n = txpath_dev_no_desc(d);
	struct sbuf b;

	if (!d->lines && d->no_desc_freed) {
		sbuf_init(&b);
		sbuf_addf(&b, "%s's driver freed %llu frames with kfree_skb in its xmit (%s at %s); without driver lines its descriptors are not known",
			  d->name, (unsigned long long)d->no_desc_freed, d->freed_reason,
			  d->freed_at[0] ? d->freed_at : "?");
		return sbuf_detach(&b);
	}
	if (!d->lines || !n)
		return NULL;
	sbuf_init(&b);
	sbuf_addf(&b, "%s's driver took %llu frames without writing a descriptor", d->name,
		  (unsigned long long)n);
	if (d->no_desc_consumed == n)
		sbuf_adds(&b, ", all freed by consume_skb (no drop event, no counter: silent)");
	else if (d->no_desc_freed == n)
		sbuf_addf(&b, ", all freed by kfree_skb (%s at %s)", d->freed_reason,
			  d->freed_at[0] ? d->freed_at : "?");
	else if (d->no_desc_consumed || d->no_desc_freed)
		sbuf_addf(&b, ": %llu freed by consume_skb (silent), %llu by kfree_skb (%s at %s)",
			  (unsigned long long)d->no_desc_consumed,
			  (unsigned long long)d->no_desc_freed, d->freed_reason,
			  d->freed_at[0] ? d->freed_at : "?");
	sbuf_adds(&b, "; ");
	lens_text(&b, &d->no_desc_len, 4);
	txpath_pattern(&b, n, &d->no_desc_has, &d->handed_has, d->handed_len.count,
		       d->no_desc_len.min, d->no_desc_len.max, d->handed_in_range, d->period,
		       d->phase);
	return sbuf_detach(&b);
}

/* "every one of the 415 of 601..898 B it was handed" / "415 of the 1212 of 601..898 B" */
void txpath_pattern(struct sbuf *b, uint64_t n, const struct txpath_traits *lost,
		    const struct txpath_traits *all, uint64_t handed, uint64_t lo, uint64_t hi,
		    uint64_t in_range, unsigned int period, unsigned int phase)
{
	static const char *const what[] = { "with checksum offload (CHECKSUM_PARTIAL)",
					    "GSO (several segments per skb)",
					    "with data in page fragments (non-linear)" };
	const uint64_t nl[] = { lost->csum_partial, lost->gso, lost->nonlinear };
	const uint64_t na[] = { all->csum_partial, all->gso, all->nonlinear };

	if (in_range && lo != hi && in_range == n)
		sbuf_addf(b, "; every frame of %llu..%llu B it was handed (%llu), none of the others",
			  (unsigned long long)lo, (unsigned long long)hi, (unsigned long long)n);
	else if (in_range && lo != hi)
		sbuf_addf(b, "; %llu of the %llu frames of %llu..%llu B it was handed",
			  (unsigned long long)n, (unsigned long long)in_range, (unsigned long long)lo,
			  (unsigned long long)hi);
	for (size_t i = 0; i < ARRAY_SIZE(what); i++) {
		/* a trait says something when enough of the frames that got through lack it */
		uint64_t lacking = handed > na[i] ? handed - na[i] : 0;

		if (nl[i] == n && lacking >= 2 && lacking * 100 >= handed)
			sbuf_addf(b, "; all %s, which %llu of the %llu handed were",
				  what[i], (unsigned long long)na[i], (unsigned long long)handed);
		else if (!nl[i] && na[i] > n)
			sbuf_addf(b, "; none %s", what[i]);
	}
	if (period)
		sbuf_addf(b, "; every %u%s IP skb it was handed (positions %u mod %u)", period,
			  period == 2 ? "nd" : period == 3 ? "rd" : "th", phase, period);
}

void txpath_print(const struct txpath *t, FILE *f)
{
	fprintf(f, "transmit, per NIC: frames the stack handed to the driver (net_dev_start_xmit, GSO segments counted), and what the driver did with them\n");
	if (t->lost)
		fprintf(f, "  the trace lost %llu events: the counts below are not exact\n",
			(unsigned long long)t->lost);
	if (!t->n_devs) {
		fprintf(f, "  no transmit on any NIC\n");
		return;
	}
	fprintf(f, "  %-8s %8s %8s %8s %8s %8s %8s %8s %8s %6s\n", "nic", "ipv4", "ipv6", "other",
		"desc", "no_desc", "silent", "done", "inflight", "busy");
	for (size_t i = 0; i < t->n_devs; i++) {
		const struct txpath_dev *d = &t->devs[i];
		char *ev;

		if (d->lines && t->has_free)
			fprintf(f, "  %-8.16s %8llu %8llu %8llu %8llu %8llu %8llu %8llu %8llu %6llu\n",
				d->name, (unsigned long long)d->handed[TXPATH_V4],
				(unsigned long long)d->handed[TXPATH_V6],
				(unsigned long long)d->handed[TXPATH_OTHER],
				(unsigned long long)d->desc,
				(unsigned long long)txpath_dev_no_desc(d),
				(unsigned long long)d->no_desc_consumed,
				(unsigned long long)d->completed, (unsigned long long)d->in_flight,
				(unsigned long long)d->busy);
		else if (d->lines)
			fprintf(f, "  %-8.16s %8llu %8llu %8llu %8llu %8llu %8s %8s %8s %6llu  (no free events: how and when freed not known)\n",
				d->name, (unsigned long long)d->handed[TXPATH_V4],
				(unsigned long long)d->handed[TXPATH_V6],
				(unsigned long long)d->handed[TXPATH_OTHER],
				(unsigned long long)d->desc,
				(unsigned long long)txpath_dev_no_desc(d), "-", "-", "-",
				(unsigned long long)d->busy);
		else
			fprintf(f, "  %-8.16s %8llu %8llu %8llu %8s %8s %8s %8s %8s %6llu  (no driver lines: descriptors not known)\n",
				d->name, (unsigned long long)d->handed[TXPATH_V4],
				(unsigned long long)d->handed[TXPATH_V6],
				(unsigned long long)d->handed[TXPATH_OTHER], "-", "-", "-", "-", "-",
				(unsigned long long)d->busy);
		ev = txpath_dev_evidence(d);
		if (ev)
			fprintf(f, "    %s\n", ev);
		free(ev);
	}
}

static struct json_object *u64(uint64_t v)
{
	return json_object_new_uint64(v);
}

static struct json_object *lens_json(const struct txpath_lens *l)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();

	json_object_object_add(o, "count", u64(l->count));
	json_object_object_add(o, "min", l->count ? u64(l->min) : NULL);
	json_object_object_add(o, "max", l->count ? u64(l->max) : NULL);
	for (size_t k = 0; k < l->n; k++) {
		struct json_object *v = json_object_new_object();

		json_object_object_add(v, "len", u64(l->top[k].len));
		json_object_object_add(v, "count", u64(l->top[k].count));
		json_object_array_add(a, v);
	}
	json_object_object_add(o, "values", a);
	json_object_object_add(o, "other", u64(l->other));
	return o;
}

struct json_object *txpath_to_json(const struct txpath *t)
{
	struct json_object *o = json_object_new_object(), *devs = json_object_new_array();

	json_object_object_add(o, "trace", json_object_new_string(t->path ? t->path : ""));
	json_object_object_add(o, "lost_events", u64(t->lost));
	json_object_object_add(o, "driver_lines", u64(t->lines));
	for (size_t i = 0; i < t->n_devs; i++) {
		const struct txpath_dev *d = &t->devs[i];
		struct json_object *j = json_object_new_object(), *h = json_object_new_object();
		char *name = esc_utf8_fix(d->name);

		json_object_object_add(j, "name", json_object_new_string(name));
		free(name);
		json_object_object_add(j, "lines", json_object_new_boolean(d->lines));
		json_object_object_add(h, "ipv4", u64(d->handed[TXPATH_V4]));
		json_object_object_add(h, "ipv6", u64(d->handed[TXPATH_V6]));
		json_object_object_add(h, "other", u64(d->handed[TXPATH_OTHER]));
		json_object_object_add(j, "handed", h);
		json_object_object_add(j, "skbs", u64(d->skbs));
		json_object_object_add(j, "gso_skbs", u64(d->gso_skbs));
		json_object_object_add(j, "busy", u64(d->busy));
		json_object_object_add(j, "refused", u64(d->refused));
		json_object_object_add(j, "desc", d->lines ? u64(d->desc) : NULL);
		json_object_object_add(j, "no_desc_consumed", d->lines ? u64(d->no_desc_consumed) : NULL);
		json_object_object_add(j, "no_desc_freed", d->lines ? u64(d->no_desc_freed) : NULL);
		json_object_object_add(j, "completed", d->lines ? u64(d->completed) : NULL);
		json_object_object_add(j, "in_flight", d->lines ? u64(d->in_flight) : NULL);
		json_object_object_add(j, "no_desc_len", d->lines ? lens_json(&d->no_desc_len) : NULL);
		json_object_array_add(devs, j);
	}
	json_object_object_add(o, "devices", devs);
	return o;
}
