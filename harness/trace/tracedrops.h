/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where packets were dropped, from a trace.dat (trace-cmd's format) that
 * recorded skb:kfree_skb: the dropwatch / NET_DM summary, computed in one
 * streaming pass with libtracecmd (memory does not grow with the number of
 * events, only with the number of distinct drop sites and busy intervals).
 *
 * Decoding uses only what the trace carries: the drop reason names come from
 * the __print_symbolic() table in the event's own print fmt, and locations
 * are symbolised with the kallsyms that trace-cmd record stored in the file.
 */
#ifndef NETLAB_TRACEDROPS_H
#define NETLAB_TRACEDROPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json_object;

/* One drop site: a location and a reason. Strings are owned by the tracedrops. */
struct tracedrops_site {
	uint64_t addr;		/* the event's `location` */
	char *location;		/* "symbol+0xoff", or "0x<addr>" when not in kallsyms */
	long long reason_value;	/* -1 when the event has no `reason` field */
	char *reason;		/* name from the print fmt, the number if not in it, "-" if none */
	uint64_t count;
};

/* One skb:kfree_skb record, as given to tracedrops_opts.on_drop. */
struct tracedrops_drop {
	uint64_t ts;		/* trace clock, ns */
	uint64_t rel;		/* ns after tracedrops.t0 */
	uint64_t skbaddr;
	unsigned int protocol;	/* skb->protocol, host order (0x0800 IPv4) */
	int cpu;
	int pid;
	const struct tracedrops_site *site; /* valid during the call only */
};

/* Drops of one site within one interval. */
struct tracedrops_slot {
	size_t site;		/* index into tracedrops.sites */
	uint64_t count;
};

/* An interval [index * interval_ns, (index + 1) * interval_ns) after `t0` with drops or losses. */
struct tracedrops_interval {
	uint64_t index;
	uint64_t total;		/* drops */
	uint64_t lost;		/* events the ring buffer lost (known counts) */
	uint64_t lost_unknown;	/* losses of unknown size */
	struct tracedrops_slot *slots; /* by count, descending */
	size_t n_slots;
};

/* A name (location or reason) and its total. */
struct tracedrops_total {
	const char *name;	/* borrowed from a site */
	long long value;	/* reason value (by_reason), or -1 */
	uint64_t count;
};

struct tracedrops_opts {
	uint64_t interval_ns;	/* 0: 1 s */
	/*
	 * Called for each drop in time order, NULL for none. A nonzero return
	 * stops the read; tracedrops_read() then returns it.
	 */
	int (*on_drop)(void *ctx, const struct tracedrops_drop *d);
	void *ctx;
};

struct tracedrops {
	char *path;
	int cpus;
	int buffers;		/* the top buffer plus instances */
	uint64_t interval_ns;
	uint64_t t0;		/* first event's timestamp, ns: intervals count from here */
	uint64_t last_ts;	/* last event's timestamp, ns */
	uint64_t events;	/* records of any event read */
	uint64_t total;		/* skb:kfree_skb records */
	uint64_t lost;		/* events the ring buffer lost, where the count is known */
	uint64_t lost_gaps;	/* places where events were lost */
	uint64_t lost_unknown;	/* of those, gaps whose size the buffer did not record */
	bool has_reason;	/* the event has a `reason` field (5.17+) */
	size_t unresolved;	/* sites whose location is not in the trace's kallsyms */

	struct tracedrops_site *sites;	/* by count, descending */
	size_t n_sites;
	struct tracedrops_total *by_location;	/* by count, descending */
	size_t n_by_location;
	struct tracedrops_total *by_reason;	/* by count, descending */
	size_t n_by_reason;
	struct tracedrops_interval *intervals; /* in time order */
	size_t n_intervals;
};

/**
 * tracedrops_read() - aggregate the skb:kfree_skb records of a trace.dat
 * @path: the trace.dat file
 * @o: options, or NULL for the defaults
 * @out: on success, the aggregate; free it with tracedrops_free()
 * @err: on failure, a message naming @path with a "\nhint: ..." line; the
 *	 caller frees it
 *
 * Reads the file once, streaming. Events of other types are counted in
 * tracedrops.events and otherwise ignored.
 *
 * Return: 0; -ENOENT (and other errno values from open) for a file that cannot
 * be opened; -EINVAL for a file that is not a trace.dat, or is truncated or
 * corrupted; -ENODATA for a trace without the skb:kfree_skb event; -ENOMEM;
 * or the nonzero value returned by @o->on_drop.
 */
int tracedrops_read(const char *path, const struct tracedrops_opts *o, struct tracedrops **out,
		    char **err);

/*
 * The same in a shared pass (trace/tracepass.h): tracedrops_attach() opens
 * the file if no analysis did yet and resolves the event (errors as
 * tracedrops_read(), nothing attached; @o is copied); after tracepass_run(),
 * tracedrops_collect() gives the result or error tracedrops_read() would
 * have, and frees @s.
 */
struct tracepass;
struct tracedrops_pass;
int tracedrops_attach(struct tracepass *tp, const struct tracedrops_opts *o,
		      struct tracedrops_pass **s, char **err);
int tracedrops_collect(struct tracedrops_pass *s, struct tracedrops **out, char **err);

void tracedrops_free(struct tracedrops *td);

/* Start of an interval in seconds after tracedrops.t0. */
double tracedrops_interval_start(const struct tracedrops *td, const struct tracedrops_interval *iv);

/* "IPv4", "IPv6", "ARP", ... for an ethertype, or NULL. */
const char *tracedrops_proto_name(unsigned int protocol);

/**
 * tracedrops_to_json() - the aggregate as one JSON object
 * @td: the aggregate
 *
 * Keys: "trace" (file, cpus, events, first/last timestamps, lost events) and
 * "drops" (total, interval_s, by_reason and by_location as name -> count
 * objects, sites, intervals). The text report prints the same struct.
 *
 * Return: a new object (json_object_put() it), or NULL on ENOMEM.
 */
struct json_object *tracedrops_to_json(const struct tracedrops *td);

/* One drop as a JSON object; NULL on ENOMEM. */
struct json_object *tracedrops_drop_to_json(const struct tracedrops_drop *d);

#endif /* NETLAB_TRACEDROPS_H */
