/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One run of a scenario: the guest script that sets the scenario up,
 * snapshots counters, runs the traffic generator's two ends and snapshots
 * again; and the metrics read back from the run directory it leaves.
 *
 * The sender runs on NIC A's side, the receiver on NIC B's (in its netns).
 */
#ifndef NETLAB_SCNRUN_H
#define NETLAB_SCNRUN_H

#include "metrics.h"
#include "scenario.h"
#include "vmcfg.h"

/* Exit status of the guest script besides the generators' own. */
#define SCNRUN_EXIT_SETUP 3	/* the scenario could not be applied: see setup-error */
#define SCNRUN_EXIT_TRAFFIC 4	/* a generator failed: see *.err */

/*
 * The guest script of VM `vm` for `s` on the NICs of `cfg` (topology set
 * up). With both NICs in one VM it runs both ends; in a two-VM topology,
 * VM 1 (NIC B) runs the receiver and says when it listens (TCP port 7999),
 * and VM 0 (NIC A) waits for that, then sends.
 */
int scnrun_script(const struct scenario *s, const struct vm_config *cfg, unsigned int vm,
		  struct sbuf *out, char **err);

/*
 * Metrics of a finished run in `rundir` (whose guest files are in
 * rundir/files): generator results (udp.*, tcp.*, rr.*), counter deltas
 * (snmp.*, netstat.*, softnet.*, nic.*, qdisc.*), ring sizes, pcap counts
 * and, for UDP, the per-layer loss accounting (loss.*).
 */
int scnrun_collect(const struct scenario *s, const struct vm_config *cfg, const char *rundir,
		   struct metrics *m, char **err);

#endif /* NETLAB_SCNRUN_H */
