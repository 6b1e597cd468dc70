/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Measured metrics: a map from a dotted name ("udp.lost",
 * "nic.A.rx_missed_errors", "rr.latency_us.p99") to a double, kept sorted by
 * name so that iteration and JSON output are in a stable order.
 *
 * Also the table of metric families a scenario may check (which names exist;
 * a traffic generator's own are given by its descriptor): metrics_name_check().
 *
 * Ownership: struct metrics owns copies of its names. Names returned by
 * metrics_at() stay valid until the next metrics_set() or metrics_free().
 */
#ifndef NETLAB_METRICS_H
#define NETLAB_METRICS_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;
struct metrics;

struct metrics *metrics_new(void);
void metrics_free(struct metrics *m);

/* Set (insert or overwrite) one metric; the name is copied. */
void metrics_set(struct metrics *m, const char *name, double value);
/* metrics_set() for callbacks that take a void *ctx (counter_emit_fn). */
void metrics_emit(void *m, const char *name, double value);
/* True and *value set when `name` is present; value may be NULL. */
bool metrics_get(const struct metrics *m, const char *name, double *value);
/* The value of `name`, or `dflt` when it is not measured (or m is NULL). */
double metrics_value(const struct metrics *m, const char *name, double dflt);
/* The same for a per-NIC name: `fmt` holds one %c, for `label` ("nicrx.%c.lost"). */
double metrics_value_label(const struct metrics *m, const char *fmt, char label, double dflt);
size_t metrics_count(const struct metrics *m);
/*
 * The i-th metric in name order (strcmp), 0 <= i < metrics_count():
 *
 *	for (size_t i = 0; i < metrics_count(m); i++) {
 *		metrics_at(m, i, &name, &value);
 *		...
 *	}
 */
void metrics_at(const struct metrics *m, size_t i, const char **name, double *value);

/*
 * metrics_add_json() - flatten a JSON value into dotted names
 * @m:      map to add to
 * @prefix: name prefix ("udp"), or NULL/"" for none
 * @obj:    the JSON value
 *
 * Nested objects join their keys with '.': {"latency_us": {"p99": 12}} under
 * prefix "udp" gives "udp.latency_us.p99" = 12. Numbers are taken as they
 * are, booleans as 1 and 0; strings, arrays and null are skipped. A number
 * or boolean at the top level is stored under the prefix itself, if any.
 *
 * Return: the number of metrics set.
 */
size_t metrics_add_json(struct metrics *m, const char *prefix, struct json_object *obj);

/* A flat JSON object {"name": value, ...} in name order; caller puts it. */
struct json_object *metrics_to_json(const struct metrics *m);

/*
 * A JSON number for v: an integer when v is one (and exact in a double),
 * otherwise the shortest decimal that reads back as v; null for NaN/inf.
 */
struct json_object *metrics_json_number(double v);

/*
 * metrics_median() - per-name median across runs
 *
 * Each name present in at least one run gets the median of the values of
 * the runs that have it (the mean of the middle two for an even count),
 * except METRIC.stalled, which takes the largest: a flow the path stopped
 * in one run of several is a stalled flow.
 * Return: a new map; the caller frees it.
 */
struct metrics *metrics_median(struct metrics *const *runs, size_t n_runs);

/*
 * The metric families one traffic generator produces, beside those every
 * scenario has (metrics.c): @own, its results' (udp.*), listed before the
 * common ones; @late, those it adds to a common family (loss.*), listed
 * after them. Patterns as in metrics.c; both NULL-ended, either NULL.
 */
struct metrics_gen {
	const char *name;		/* the generator, as the messages name it */
	const char *const *own;
	const char *const *late;
};

/* Fills *g with the @i-th generator's families; false past the last. */
typedef bool (*metrics_gen_fn)(size_t i, struct metrics_gen *g);

/*
 * metrics_name_check() - may a scenario check metric `name`?
 * @name:      dotted metric name
 * @gens:      the generators' families (scn_gen_metrics), or NULL for none
 * @generator: the scenario's traffic generator, or NULL
 * @labels:    the NIC labels of the scenario's topology, e.g. "AB"
 * @err:       why not (optional; caller frees)
 *
 * Names are matched against the table of metric families in metrics.c and
 * those of @gens. Return: 0, or -ENOENT when the name is unknown, is
 * produced by another generator than @generator, or names a NIC the
 * topology does not have.
 */
int metrics_name_check(const char *name, metrics_gen_fn gens, const char *generator,
		       const char *labels, char **err);

/*
 * metrics_gen_name_check() - is `name` one of @generator's own metrics
 * (its results' families, not the common ones nor the late ones)? For the
 * metrics of one traffic section, traffic.NAME.<name>.
 * Return: 0, or -ENOENT with *err listing its families.
 */
int metrics_gen_name_check(const char *name, metrics_gen_fn gens, const char *generator,
			   char **err);

#endif /* NETLAB_METRICS_H */
