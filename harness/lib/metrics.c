// SPDX-License-Identifier: GPL-2.0
/*
 * Measured metrics: a sorted array of (name, value), binary-searched. A run
 * has a few hundred to a few thousand metrics; inserting into the sorted
 * array costs a memmove of at most that many 16-byte entries, which is
 * cheaper than maintaining a hash table and a separate sort for output.
 */
#include "lib/metrics.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/util.h"

struct metric {
	char *name;
	double value;
};

struct metrics {
	struct metric *v;
	size_t n, cap;
};

struct metrics *metrics_new(void)
{
	return xzalloc(sizeof(struct metrics));
}

void metrics_free(struct metrics *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].name);
	free(m->v);
	free(m);
}

/* Index of `name`, or of where it would be inserted; *found says which. */
static size_t metrics_find(const struct metrics *m, const char *name, bool *found)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(m->v[mid].name, name);

		if (!c) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

void metrics_set(struct metrics *m, const char *name, double value)
{
	bool found;
	size_t i = metrics_find(m, name, &found);

	if (found) {
		m->v[i].value = value;
		return;
	}
	if (m->n == m->cap) {
		struct metric *v;

		m->cap = m->cap ? 2 * m->cap : 64;
		v = xzalloc(m->cap * sizeof(*v));
		if (m->n)
			memcpy(v, m->v, m->n * sizeof(*v));
		free(m->v);
		m->v = v;
	}
	memmove(&m->v[i + 1], &m->v[i], (m->n - i) * sizeof(*m->v));
	m->v[i].name = xstrdup(name);
	m->v[i].value = value;
	m->n++;
}

void metrics_emit(void *m, const char *name, double value)
{
	metrics_set(m, name, value);
}

bool metrics_get(const struct metrics *m, const char *name, double *value)
{
	bool found;
	size_t i = metrics_find(m, name, &found);

	if (found && value)
		*value = m->v[i].value;
	return found;
}

double metrics_value(const struct metrics *m, const char *name, double dflt)
{
	double v = dflt;

	if (m)
		metrics_get(m, name, &v);
	return v;
}

double metrics_value_label(const struct metrics *m, const char *fmt, char label, double dflt)
{
	char name[128];

	snprintf(name, sizeof(name), fmt, label);
	return metrics_value(m, name, dflt);
}

size_t metrics_count(const struct metrics *m)
{
	return m->n;
}

void metrics_at(const struct metrics *m, size_t i, const char **name, double *value)
{
	if (name)
		*name = m->v[i].name;
	if (value)
		*value = m->v[i].value;
}

size_t metrics_add_json(struct metrics *m, const char *prefix, struct json_object *obj)
{
	bool has_prefix = prefix && *prefix;
	size_t n = 0;

	switch (json_object_get_type(obj)) {
	case json_type_int:
	case json_type_double:
		if (!has_prefix)
			return 0;
		metrics_set(m, prefix, json_object_get_double(obj));
		return 1;
	case json_type_boolean:
		if (!has_prefix)
			return 0;
		metrics_set(m, prefix, json_object_get_boolean(obj) ? 1 : 0);
		return 1;
	case json_type_object:
		break;
	default:	/* null, string, array */
		return 0;
	}
	json_object_object_foreach(obj, key, val) {
		char *name = has_prefix ? xasprintf("%s.%s", prefix, key) : xstrdup(key);

		n += metrics_add_json(m, name, val);
		free(name);
	}
	return n;
}

struct json_object *metrics_json_number(double v)
{
	char buf[32];

	if (!isfinite(v))
		return NULL;
	if (fabs(v) <= 9007199254740992.0 && v == (double)(int64_t)v)
		return json_object_new_int64((int64_t)v);
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return json_object_new_double_s(v, buf);
}

struct json_object *metrics_to_json(const struct metrics *m)
{
	struct json_object *o = json_object_new_object();

	for (size_t i = 0; i < m->n; i++)
		json_object_object_add(o, m->v[i].name, metrics_json_number(m->v[i].value));
	return o;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* A flow that stalled once stalled: METRIC.stalled is the worst run's, not the median. */
static bool worst_run_counts(const char *name)
{
	const char *dot = strrchr(name, '.');

	return dot && !strcmp(dot, ".stalled");
}

static double median_of(struct metrics *const *runs, size_t n_runs, const char *name,
			double *vals)
{
	size_t n = 0;

	for (size_t r = 0; r < n_runs; r++)
		if (runs[r] && metrics_get(runs[r], name, &vals[n]))
			n++;
	if (n > 1)	/* qsort(NULL, 0) is undefined */
		qsort(vals, n, sizeof(*vals), cmp_double);
	if (n && worst_run_counts(name))
		return vals[n - 1];
	if (n % 2)
		return vals[n / 2];
	return (vals[n / 2 - 1] + vals[n / 2]) / 2;
}

struct metrics *metrics_median(struct metrics *const *runs, size_t n_runs)
{
	struct metrics *out = metrics_new();
	double *vals = xzalloc(n_runs * sizeof(*vals));

	for (size_t r = 0; r < n_runs; r++) {
		for (size_t i = 0; runs[r] && i < runs[r]->n; i++) {
			const char *name = runs[r]->v[i].name;

			if (!metrics_get(out, name, NULL))
				metrics_set(out, name, median_of(runs, n_runs, name, vals));
		}
	}
	free(vals);
	return out;
}

/*
 * The metric families a scenario may check: one line per pattern. A pattern
 * is dot-separated components, each one of
 *	literal		matches itself
 *	{a,b,c}		one of the listed names
 *	<LABEL>		a NIC label of the scenario's topology (A, B, ...)
 *	<CPU>		cpu0 .. cpu63
 *	<QUEUE>		q0 .. q63
 *	*		any one component
 *	**		(last only) one or more components
 * These are the families every scenario has; a traffic generator's own come
 * from its descriptor (scenario/scngen.c, struct metrics_gen), listed before
 * these (udp.*) and after them (loss.*). New families are new lines here.
 */
static const struct metric_family {
	const char *generator;	/* NULL here; a generator's name for its families */
	const char *pattern;
} metric_families[] = {
	{ NULL, "nic.<LABEL>.**" },
	{ NULL, "ring.<LABEL>.{rx,tx,rx_max,tx_max}" },
	{ NULL, "offload.<LABEL>.{rx_checksumming,tx_checksumming,scatter_gather,"
		"tcp_segmentation_offload,generic_segmentation_offload,generic_receive_offload}" },
	{ NULL, "snmp.<LABEL>.{Ip,Icmp,IcmpMsg,Tcp,Udp,UdpLite}.*" },
	{ NULL, "netstat.<LABEL>.{TcpExt,IpExt,MPTcpExt}.*" },
	/* /proc/net/snmp6: Ip6*, Icmp6*, Udp6*, UdpLite6* (IPv6 traffic, family = 6). */
	{ NULL, "snmp6.<LABEL>.*" },
	{ NULL, "softnet.{processed,dropped,time_squeeze,received_rps,flow_limit}" },
	/* Per CPU of the receiving VM (softnet.cpu0.dropped), and each NIC's queues after setup. */
	{ NULL, "softnet.<CPU>.{processed,dropped,time_squeeze,received_rps,flow_limit,backlog_len}" },
	{ NULL, "queues.<LABEL>.{rx,tx}" },
	{ NULL, "pcap.<LABEL>.{packets,bytes}" },
	/* Checksums verified on each link's capture (pcapcsum.c, scnrun-collect.c collect_csum). */
	{ NULL, "csum.<LABEL>.{checked,bad,unverifiable,cut,bad_in,bad_frames,bad_len_min,"
		"bad_len_max,bad_first}" },
	{ NULL, "csum.<LABEL>.{bad_ip,bad_tcp,bad_udp,bad_icmp,bad_icmpv6}" },
	{ NULL, "csum.<LABEL>.bad_len.*" },
	{ NULL, "qdisc.<LABEL>.{packets,bytes,dropped,overlimits,requeues}" },
	{ NULL, "neigh.<LABEL>.{arp,ndisc}.*" },
	/* From the guest's trace.dat ([trace]), per reason as the kernel names it. */
	{ NULL, "drops.{total,lost_events}" },
	{ NULL, "drops.reason.*" },
	/* Stage latency and flows (pktpath.c), per direction and stage, and per device too
	 * (latency.tx.dev.ethA.p90_us: latency.DIR.STAGE.IFNAME.*). */
	{ NULL, "latency.{rx,tx}.*.{p50_us,p90_us,p99_us,max_us,count}" },
	{ NULL, "latency.{rx,tx}.*.*.{p50_us,p90_us,p99_us,max_us,count}" },
	{ NULL, "latency.{rx,tx}.{packets,followed}" },
	{ NULL, "latency.{rx,tx}.not_followed.*" },
	{ NULL, "flows.{count,drops,retransmits}" },
	/* The NET_RX timeline and the TX table (netrx.c). */
	{ NULL, "netrx.{polls,budget_exhausted,budget_exhausted_pct,softirqs,softirqs_without_irq}" },
	{ NULL, "netrx.frames_per_poll.mean" },
	/* NET_RX per CPU of the trace: softirqs, time in them (entry -> exit, or -> the last record), frames. */
	{ NULL, "netrx.<CPU>.{softirqs,time_us,frames}" },
	{ NULL, "netrx.{irq_softirq,poll,rx_copy}.{p50_us,p99_us}" },
	{ NULL, "netrx.dev.*.{polls,budget_exhausted,frames}" },
	{ NULL, "tx.{packets,dropped}" },
	{ NULL, "tx.{qdisc,dev,free}.{p50_us,p99_us}" },
	/* ACPI tables given with the scenario, and the interrupt routing (acpi.json). */
	{ NULL, "acpi.{given,taken,expect_ok}" },
	{ NULL, "irq.*.{line,shared}" },
	/* The driver patches' lines, per interface (drvring.c). */
	{ NULL, "drv.{lines,bad_lines}" },
	{ NULL, "drv.*.rx.fill.{min,p1,p50,mean,max}" },
	{ NULL, "drv.*.rx.{ring,descs,handoffs,refills,refill_allocs,refill_failures,refills_low,"
		"low_episodes,empty_episodes,low_ms}" },
	{ NULL, "drv.*.rx.{no_handoff,no_handoff_len_min,no_handoff_len_max,handoff_len_min,"
		"handoff_len_max}" },
	{ NULL, "drv.*.rx.{no_handoff_len,no_handoff_status}.*" },
	{ NULL, "drv.*.rx.{no_handoff_period,no_handoff_phase}" },
	{ NULL, "drv.*.napi.{polls,budget_exhausted,budget_exhausted_pct,work_mean}" },
	{ NULL, "drv.*.napi.{irq_poll,desc_stack,poll}.{p50_us,p99_us}" },
	{ NULL, "drv.*.tx.{ring,xmits,done}" },
	/* Per queue, when the trace saw several of the interface's (drvring-out.c). */
	{ NULL, "drv.*.<QUEUE>.rx.{descs,handoffs}" },
	{ NULL, "drv.*.<QUEUE>.napi.polls" },
	/* The transmit side of the driver layer, per interface (txpath.c). */
	{ NULL, "drv.*.tx.{handed,handed_v6,handed_other,skbs,gso_skbs,busy,refused,desc,no_desc,"
		"no_desc_silent,completed,in_flight,no_desc_len_min,no_desc_len_max}" },
	{ NULL, "drv.*.tx.xmit_freed" },
	{ NULL, "drv.*.tx.{handed_in_no_desc_range,no_desc_csum_partial,no_desc_gso,"
		"no_desc_nonlinear,handed_csum_partial,handed_gso,handed_nonlinear,no_desc_period,"
		"no_desc_phase}" },
	{ NULL, "drv.*.tx.no_desc_len.*" },
	{ NULL, "drv.*.tx.inflight.{max,mean}" },
	/* The NIC/driver layer of each NIC: IP frames to its MAC on its link, at
	 * its IP layer, and lost between (scnrun.c); every generator. */
	{ NULL, "nicrx.<LABEL>.{wire,ip,lost,counted,silent,backlog}" },
	/* The hops of a topology file's path (scnrun-hops.c), per hop name. */
	{ NULL, "hop.*.{in,out,lost,counted,silent,bridge,forwarded,no_route,hdr_errors,too_big,"
		"addr_errors,in_discards,out_discards,neigh_unresolved,driver}" },
	/* Its transmit side: IPv4 frames handed to the driver (the trace) against
	 * those on its link (scnrun-collect.c collect_nic_tx). */
	{ NULL, "nictx.<LABEL>.{wire,handed,lost,extra,counted,silent,no_desc,no_desc_silent}" },
	{ NULL, "loss.{lost_in_driver,silent_in_driver}" },
	/* Frames the receiving VM dropped at a CPU's backlog (softnet.<CPU>.dropped summed). */
	{ NULL, "loss.cpu_backlog_drops" },
	{ NULL, "loss.{lost_in_tx_driver,silent_in_tx_driver}" },
	{ NULL, "loss.lost_in_hops" },
};

/*
 * Every family a scenario may name, in the order the messages list them:
 * each generator's own families, the common ones, each generator's late
 * ones. fam_next() gives the next one (its owner in *f), false at the end.
 */
struct fam_iter {
	metrics_gen_fn gens;
	int part;		/* 0 own, 1 common, 2 late, 3 done */
	size_t gi, k;
	struct metrics_gen g;
	bool have_g;
};

static bool fam_next(struct fam_iter *it, struct metric_family *f)
{
	while (it->part < 3) {
		const char *const *list;

		if (it->part == 1) {
			if (it->k < ARRAY_SIZE(metric_families)) {
				*f = metric_families[it->k++];
				return true;
			}
			it->part = 2, it->gi = 0, it->k = 0, it->have_g = false;
			continue;
		}
		if (!it->have_g) {
			if (!it->gens || !it->gens(it->gi, &it->g)) {
				it->part++, it->gi = 0, it->k = 0;
				continue;
			}
			it->have_g = true;
		}
		list = it->part == 0 ? it->g.own : it->g.late;
		if (list && list[it->k]) {
			f->generator = it->g.name;
			f->pattern = list[it->k++];
			return true;
		}
		it->gi++, it->k = 0, it->have_g = false;
	}
	return false;
}

enum family_match {
	FM_NO,
	FM_YES,
	FM_BAD_LABEL,	/* matches but for a label the topology lacks */
};

/* Length of the component at s (up to '.' or the end). */
static size_t comp_len(const char *s)
{
	return strcspn(s, ".");
}

static bool in_brace_list(const char *list, size_t list_len, const char *c, size_t n)
{
	const char *p = list + 1, *end = list + list_len - 1;

	while (p < end) {
		size_t len = strcspn(p, ",}");

		if (len == n && !strncmp(p, c, n))
			return true;
		p += len + 1;
	}
	return false;
}

/* Match one name component c[0..n) against pattern component pc[0..pn). */
static enum family_match comp_match(const char *pc, size_t pn, const char *c, size_t n,
				    const char *labels, char *bad_label)
{
	if (pn == 1 && *pc == '*')
		return FM_YES;
	if (pn == 7 && !strncmp(pc, "<LABEL>", 7)) {
		if (n != 1)
			return FM_NO;
		if (strchr(labels, *c))
			return FM_YES;
		*bad_label = *c;
		return FM_BAD_LABEL;
	}
	/* cpuK and qK: a CPU (0..63) or a queue (0..63) by number */
	if ((pn == 5 && !strncmp(pc, "<CPU>", 5)) || (pn == 7 && !strncmp(pc, "<QUEUE>", 7))) {
		size_t k = *pc == '<' && pc[1] == 'C' ? 3 : 1;

		if (n <= k || n > k + 2 || strncmp(c, k == 3 ? "cpu" : "q", k) ||
		    strspn(c + k, "0123456789") != n - k || (n - k == 2 && (c[k] == '0' ||
		    (c[k] - '0') * 10 + (c[k + 1] - '0') > 63)))
			return FM_NO;
		return FM_YES;
	}
	if (*pc == '{')
		return in_brace_list(pc, pn, c, n) ? FM_YES : FM_NO;
	return pn == n && !strncmp(pc, c, n) ? FM_YES : FM_NO;
}

static enum family_match family_match(const char *pat, const char *name, const char *labels,
				      char *bad_label)
{
	enum family_match res = FM_YES;

	for (;;) {
		size_t pn = comp_len(pat), n = comp_len(name);
		enum family_match r;

		if (pn == 2 && !strncmp(pat, "**", 2))
			return n ? res : FM_NO;
		r = comp_match(pat, pn, name, n, labels, bad_label);
		if (r == FM_NO || !n)
			return FM_NO;
		if (r == FM_BAD_LABEL)
			res = FM_BAD_LABEL;
		pat += pn;
		name += n;
		if (!*pat || !*name)
			return !*pat && !*name ? res : FM_NO;
		pat++;
		name++;
	}
}

static bool same_family(const char *pattern, const char *name)
{
	size_t n = comp_len(pattern);

	return n == comp_len(name) && !strncmp(pattern, name, n);
}

static char *family_list(metrics_gen_fn gens)
{
	struct fam_iter it = { .gens = gens };
	struct metric_family f;
	const char *prev = NULL;
	struct sbuf b;

	sbuf_init(&b);
	while (fam_next(&it, &f)) {
		if (!prev || !same_family(prev, f.pattern))
			sbuf_addf(&b, "%s%.*s", b.len ? ", " : "", (int)comp_len(f.pattern),
				  f.pattern);
		prev = f.pattern;
	}
	return sbuf_detach(&b);
}

static char *label_list(const char *labels)
{
	struct sbuf b;

	sbuf_init(&b);
	for (const char *l = labels; *l; l++)
		sbuf_addf(&b, "%s%c", l == labels ? "" : ", ", *l);
	if (!*labels)
		sbuf_adds(&b, "none");
	return sbuf_detach(&b);
}

static int name_unknown(const char *name, metrics_gen_fn gens, char **err)
{
	struct fam_iter it = { .gens = gens };
	struct metric_family f;
	struct sbuf b;
	char *fams;

	sbuf_init(&b);
	while (fam_next(&it, &f))
		if (same_family(f.pattern, name))
			sbuf_addf(&b, "%s%s", b.len ? ", " : "", f.pattern);
	if (b.len) {
		err_set(err, "unknown metric '%s' (known: %s)", name, b.s);
	} else {
		fams = family_list(gens);
		err_set(err, "unknown metric '%s' (metric families: %s)", name, fams);
		free(fams);
	}
	sbuf_release(&b);
	return -ENOENT;
}

int metrics_name_check(const char *name, metrics_gen_fn gens, const char *generator,
		       const char *labels, char **err)
{
	struct fam_iter it = { .gens = gens };
	struct metric_family f;
	const char *other_gen = NULL;
	char bad_label = 0;

	while (fam_next(&it, &f)) {
		char label = 0;
		enum family_match r = family_match(f.pattern, name, labels, &label);

		if (r == FM_BAD_LABEL)
			bad_label = label;
		if (r != FM_YES)
			continue;
		if (!f.generator || (generator && !strcmp(f.generator, generator)))
			return 0;
		other_gen = f.generator;
	}
	if (other_gen) {
		err_set(err, "metric '%s' is not produced by generator '%s' (it comes from '%s')",
			name, generator ? generator : "(none)", other_gen);
		return -ENOENT;
	}
	if (bad_label) {
		char *list = label_list(labels);

		err_set(err, "metric '%s': the topology has no NIC '%c' (NICs: %s)", name,
			bad_label, list);
		free(list);
		return -ENOENT;
	}
	return name_unknown(name, gens, err);
}

int metrics_gen_name_check(const char *name, metrics_gen_fn gens, const char *generator,
			   char **err)
{
	struct fam_iter it = { .gens = gens };
	struct metric_family f;
	struct sbuf b;

	while (it.part == 0 && fam_next(&it, &f)) {
		char label = 0;

		if (it.part == 0 && generator && !strcmp(f.generator, generator) &&
		    family_match(f.pattern, name, "", &label) == FM_YES)
			return 0;
	}
	sbuf_init(&b);
	it = (struct fam_iter){ .gens = gens };
	while (it.part == 0 && fam_next(&it, &f)) {
		if (it.part != 0 || !generator || strcmp(f.generator, generator))
			continue;
		sbuf_addf(&b, "%s%s", b.len ? ", " : "", f.pattern);
	}
	err_set(err, "unknown metric '%s' for generator '%s' (its metrics: %s)", name,
		generator ? generator : "(none)", b.len ? b.s : "none");
	sbuf_release(&b);
	return -ENOENT;
}
