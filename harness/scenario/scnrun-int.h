/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What scnrun.c (scenario -> guest script) and scnrun-collect.c (run
 * directory -> metrics) share, with scnrun-loss.c and the generators'
 * collect functions (scngen.c). Internal to them; scnrun.h is the interface.
 */
#ifndef NETLAB_SCNRUN_INT_H
#define NETLAB_SCNRUN_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "run/counters.h"
#include "lib/metrics.h"
#include "trace/analysis.h"
#include "trace/drvring.h"
#include "vm/vmcfg.h"

struct scenario;

/*
 * The per-NIC counter sources, as one table for both sides: the guest
 * command that writes $d/FILE-<label> (%s = ifname, where used), and the
 * parser that turns it into metrics named PREFIX (%c = label). Only the
 * snmp files must parse; the others may be missing or say "not supported".
 */
typedef int (*snap_parse_fn)(const char *text, const char *prefix, counter_emit_fn emit,
			     void *ctx, char **err);

struct snap_source {
	const char *file;
	const char *cmd;
	bool with_stderr;		/* the tool's complaint is kept in the file */
	const char *prefix;
	snap_parse_fn parse;
	bool must_parse;
};

extern const struct snap_source scnrun_snap_sources[];
extern const size_t scnrun_n_snap_sources;

/* A run directory being read into metrics (scnrun-collect.c, scnrun-loss.c, scngen.c). */
struct collect {
	const struct scenario *s;
	const struct vm_config *cfg;
	char *files[VM_MAX_VMS];	/* each VM's files/ (what it left in /netlab/out) */
	unsigned int end_vm[2];		/* the VM of the sender's NIC [0], of the receiver's [1] */
	struct metrics *m;
	char **err;
	/* Each VM's trace, decoded once (scnrun-collect.c vm_trace). */
	bool decoded[VM_MAX_VMS];
	char *trace_path[VM_MAX_VMS];
	struct trace_analyses trace[VM_MAX_VMS];
	struct drvring_opts ring_opts;
};

/*
 * scnrun-loss.c: each link's capture (pcap.*, nicrx.*, nictx.<L>.wire,
 * csum.*, and for UDP the datagrams on each wire), after the counters;
 * the transmit side of each NIC's driver layer, after the trace; the UDP
 * identity, last. scnrun_collect_pcaps returns 0 or -errno with *c->err.
 */
int scnrun_collect_pcaps(struct collect *c, const char *rundir);
/* The status port's text of the VM whose /netlab/out is @files (its sibling
 * "status"), read bounded (1 MiB), or NULL; caller frees. (scnrun-exec.c) */
char *scnrun_status_text(const char *files);
void scnrun_collect_nic_tx(struct collect *c);
/*
 * loss.cpu_backlog_drops: frames the receiving VM dropped at a CPU's backlog
 * (the sum of its softnet.cpuK.dropped: RPS or netif_rx into a full
 * input_pkt_queue, netdev_max_backlog, or the flow limit). scnrun-loss.c.
 */
void scnrun_cpu_backlog(struct collect *c);
/*
 * scnrun-collect.c: the results of every [traffic.NAME] section of c->s,
 * each read from files/NAME/ by its generator's collect, into
 * traffic.NAME.<metric>; the first section of each family (udp, tcp, rr)
 * gives the unprefixed metrics as well (udp.*, tcp.*, and a UDP stream's
 * inputs of loss.*); traffic.sections. 0, or -errno with *c->err.
 */
int scnrun_collect_sections(struct collect *c);
void scnrun_udp_loss(struct collect *c);
/*
 * scnrun-hops.c: hop.NAME.* of a topology file's hops, from @data_on_link
 * (by NIC index: the UDP stream's data datagrams in each NIC's capture,
 * counted by scnrun_collect_pcaps) and the hop namespaces' counters;
 * loss.lost_in_hops.
 */
void scnrun_collect_hops(struct collect *c, const double *data_on_link, bool v6);

/* TCP port on which a receiver in another VM says it is ready. */
#define READY_PORT 7999

#endif
