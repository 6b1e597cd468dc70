/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Path coverage of a suite: which NIC model, as the receiver or the sender
 * of which frame-size class of which protocol, some scenario (or matrix
 * case) exercises. Derived from the scenarios' own keys, before anything
 * runs, so `netlab regress --coverage` shows what a green suite proves.
 *
 * Frame-size classes of the traffic's data packets (IPv4/IPv6 + UDP/TCP):
 *	small	a frame of at most 128 bytes (TCP's ACKs count here, in the
 *		direction opposite to the data)
 *	medium	between small and the MTU
 *	mtu	frames of exactly a 1500-byte MTU
 *	frag	UDP datagrams larger than the path MTU: IP fragments
 *	jumbo	packets larger than 1500 bytes, with an MTU above 1500
 *	mixed	UDP datagrams of sizes drawn from a range (udp-stream size-max)
 * Required: every class but medium for UDP; small, mtu and jumbo for TCP
 * (TCP does not fragment, and its segment sizes are the stack's); for every
 * NIC model, as receiver (rx) and as sender (tx).
 */
#ifndef NETLAB_COVERAGE_H
#define NETLAB_COVERAGE_H

#include <stdbool.h>

#include "scenario/scenario.h"

enum cov_class { COV_SMALL, COV_MEDIUM, COV_MTU, COV_FRAG, COV_JUMBO, COV_MIXED, COV_CLASSES };
enum cov_proto { COV_UDP, COV_TCP, COV_PROTOS };
enum cov_role { COV_RX, COV_TX, COV_ROLES };

/* The NIC models (guest/nicmodel.c): cells of model m < coverage_models(). */
#define COV_MODELS NIC_MODELS_MAX
unsigned int coverage_models(void);

/*
 * Concurrency axes, counted per scenario (matrix case), reported but not
 * required yet: cpus (1, 2+: the most vCPUs of its VMs), queues (1, 2+: the
 * most queues of its NICs, queues.<L> or the driver's default), steering
 * (none, or each of rps, rfs, xps the scenario sets), flows, family
 * (4, 6: each address family one of its traffic sections sends), and
 * topology: the kinds of path its topology puts between the ends (link: a
 * direct link, no hop nor tunnel; forwarding: an IP-forwarding hop; bridge:
 * a bridge hop; vlan: 802.1Q tags on the way, a VLAN device or a
 * VLAN-filtering bridge; tunnel), several for one topology.
 */
enum cov_axis { COV_AX_CPUS, COV_AX_QUEUES, COV_AX_STEERING, COV_AX_FLOWS, COV_AX_FAMILY,
	       COV_AX_TOPOLOGY, COV_AXES };
#define COV_AX_VALUES 5

struct coverage {
	unsigned int ax[COV_AXES][COV_AX_VALUES];
	/* topology x family: the scenarios of each kind of path, by family (4, 6). */
	unsigned int topo_family[COV_AX_VALUES][2];
	/* The first scenario that covers the cell (borrowed), or NULL. */
	const struct scenario *by[COV_MODELS][COV_ROLES][COV_PROTOS][COV_CLASSES];
	unsigned int n[COV_MODELS][COV_ROLES][COV_PROTOS][COV_CLASSES];
};

const char *coverage_model_name(unsigned int model);
const char *coverage_class_name(enum cov_class c);
const char *coverage_role_name(enum cov_role r);
const char *coverage_proto_name(enum cov_proto p);
/* Whether a cell must be covered (see above). */
bool coverage_required(enum cov_proto p, enum cov_class c);

/*
 * coverage_add() - the cells scenario s covers
 * @models: the NIC model names of s's NICs by index (the topology's defaults
 *	    resolved), as a run would use them
 */
void coverage_add(struct coverage *cv, const struct scenario *s, const char *const *models);

/*
 * "cpus", "queues", "steering", "flows", "family"; its values' count and
 * names ("1", "2+"; "none", "rps", ...).
 */
const char *coverage_axis_name(enum cov_axis a);
unsigned int coverage_axis_values(enum cov_axis a);
const char *coverage_axis_value(enum cov_axis a, unsigned int v);

/* Required cells not covered. */
unsigned int coverage_missing(const struct coverage *cv);

#endif /* NETLAB_COVERAGE_H */
