/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The traffic generators as the harness sees them: one descriptor each,
 * keyed by the name of its traffic/ descriptor (generators.h tgen_all[]).
 *
 * traffic/ says what a generator is: its option table, which [traffic] keys
 * reach which end, its role flags and result files, TCP or UDP (proto_opt,
 * default_proto), the address families (IPv6 with its v6_key only), the
 * prefix of its metrics and whether its flow can stall (the implicit
 * no_stall check). This table says what the harness does with a run of one:
 * how its results become metrics and which metric families it produces,
 * how the coverage matrix classes its packets, whether it feeds the loss
 * identity, and the few things its command line and its [traffic] keys
 * need beyond the option table.
 *
 * scngen.c is the only file of harness/ that names a generator (t20 checks
 * it): everything else asks a descriptor. Pure data, the collect functions
 * and lookups; nothing to free.
 */
#ifndef NETLAB_SCNGEN_H
#define NETLAB_SCNGEN_H

#include <stdbool.h>
#include <stddef.h>

#include "generators.h"
#include "lib/metrics.h"

struct collect;
struct json_object;

/* How coverage.c classes a generator's packets (coverage.h). */
enum scn_gen_cov {
	/* Sized datagrams one way: `size` (or `size = MIN..MAX`, `size-max`: mixed). */
	SCN_GEN_COV_DATAGRAMS,
	/* A bulk flow one way, full-sized segments; ACKs (small) back, or data when `bidir`. */
	SCN_GEN_COV_STREAM,
	/* Requests of `req-size` one way, responses of `resp-size` back. */
	SCN_GEN_COV_RR,
};

struct scn_gen {
	const char *name;		/* its tgen's name: the key */
	/*
	 * Its results -> metrics: reads the ends' JSON (g->tx_out, g->rx_out,
	 * with scn_gen_read_end()) into c->m. 0, or -errno with *c->err.
	 */
	int (*collect)(struct collect *c, const struct tgen *g);
	/* The metric families of its results, NULL-ended (first component: tgen->metric). */
	const char *const *families;
	enum scn_gen_cov cov;
	/*
	 * Whether it feeds the UDP loss identity (loss.*, scnrun-loss.c): its
	 * data datagrams are counted on each link's capture, and its collect
	 * sets udp.sent, udp.received, loss.app_send_errors and the END copies.
	 */
	bool loss_identity;
	/*
	 * Whether its data are TCP segments to the receiver's port (a stream):
	 * counted on each hop's links (scnrun-hops.c), retransmits and all.
	 */
	bool hop_segments;
	bool size_range;		/* [traffic] size = MIN..MAX (--size, --size-max) */
	/* --idle-timeout given to the receiving end, in s; 0: the tool's own default. */
	unsigned int rx_idle_timeout_s;
};

/* The descriptors, ended by a NULL name: one per tgen_all[] entry (a unit test checks). */
extern const struct scn_gen scn_gens[];

/* The descriptor of the generator called @name, or NULL (@name may be NULL). */
const struct scn_gen *scn_gen_find(const char *name);

/* metrics_gen_fn over scn_gens[]: the @i-th generator's metric families. */
bool scn_gen_metrics(size_t i, struct metrics_gen *g);

/* The generators that take `size = MIN..MAX`, as "a, b" (static storage). */
const char *scn_gen_size_range_list(void);

/*
 * Helpers for collect functions and for the stall reason (scnrun-collect.c).
 * scn_gen_read_end(): the JSON an end left in its VM's files, as @name:
 * the sender's (@rx false) or the receiver's; 0, or -EINVAL with *c->err.
 * scn_gen_jnum(): the number at a dotted path, or NAN.
 * scn_gen_failure(): an end's "failure" object (TTOOL_EXIT_PATH), or NULL.
 */
int scn_gen_read_end(struct collect *c, bool rx, const char *name, struct json_object **out);
double scn_gen_jnum(struct json_object *o, const char *dotted);
/*
 * scn_gen_fairness() - fairness among n flows' shares x (bytes, datagrams):
 * Jain's index (sum x)^2 / (n sum x^2), 1 when equal and 1/n when one flow
 * has everything, and min/max; NAN for both when all shares are 0.
 */
void scn_gen_fairness(const double *x, size_t n, double *jain, double *min_max);
struct json_object *scn_gen_failure(struct json_object *end);

#endif /* NETLAB_SCNGEN_H */
