// SPDX-License-Identifier: GPL-2.0
/*
 * Path coverage of a suite (coverage.h).
 */
#include "scenario/coverage.h"

#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "nicmodel.h"
#include "scenario/scngen.h"
#include "vm/topofile.h"

static const char *const classes[COV_CLASSES] = { "small", "medium", "mtu", "frag", "jumbo",
						  "mixed" };

const char *coverage_model_name(unsigned int model)
{
	return model < nic_models_n ? nic_models[model].name : "?";
}

unsigned int coverage_models(void)
{
	return (unsigned int)nic_models_n;
}

const char *coverage_class_name(enum cov_class c)
{
	return classes[c];
}

const char *coverage_role_name(enum cov_role r)
{
	return r == COV_RX ? "rx" : "tx";
}

const char *coverage_proto_name(enum cov_proto p)
{
	return p == COV_UDP ? "udp" : "tcp";
}

bool coverage_required(enum cov_proto p, enum cov_class c)
{
	if (c == COV_MEDIUM)
		return false;
	return p == COV_UDP || c == COV_SMALL || c == COV_MTU || c == COV_JUMBO;
}

static int model_index(const char *name)
{
	const struct nic_model *m = name ? nic_model_find(name) : NULL;

	return m ? (int)nic_model_index(m) : -1;
}

/* A byte count as the generators take it: 1400, 9k, 1M. */
static unsigned long bytes(const char *v, unsigned long def)
{
	char *end;
	unsigned long n;

	if (!v)
		return def;
	n = strtoul(v, &end, 10);
	if (*end == 'k' || *end == 'K')
		n *= 1024;
	else if (*end == 'm' || *end == 'M')
		n *= 1024 * 1024;
	return n;
}

/* The class of an IP packet of `pkt` bytes on a path of MTU `pmtu`. */
static enum cov_class pkt_class(unsigned long pkt, unsigned int pmtu)
{
	if (pkt > pmtu)
		return COV_FRAG;
	if (pkt > 1500)
		return COV_JUMBO;
	if (pkt + 14 <= 128)
		return COV_SMALL;
	return pkt == pmtu && pmtu == 1500 ? COV_MTU : COV_MEDIUM;
}

struct dir {
	int from, to;			/* model indexes, -1 unknown */
	enum cov_proto proto;
	struct coverage *cv;
	const struct scenario *s;
};

static void mark(const struct dir *d, bool reverse, enum cov_class c)
{
	int tx = reverse ? d->to : d->from, rx = reverse ? d->from : d->to;

	if (tx >= 0) {
		d->cv->n[tx][COV_TX][d->proto][c]++;
		if (!d->cv->by[tx][COV_TX][d->proto][c])
			d->cv->by[tx][COV_TX][d->proto][c] = d->s;
	}
	if (rx >= 0) {
		d->cv->n[rx][COV_RX][d->proto][c]++;
		if (!d->cv->by[rx][COV_RX][d->proto][c])
			d->cv->by[rx][COV_RX][d->proto][c] = d->s;
	}
}

static const char *const axis_names[COV_AXES] = { "cpus", "queues", "steering", "flows",
						   "family", "topology" };
static const char *const axis_values[COV_AXES][COV_AX_VALUES] = {
	{ "1", "2+" }, { "1", "2+" }, { "none", "rps", "rfs", "xps" },
	{ "1", "2+", "sockets", "sections" }, { "4", "6" },
	{ "link", "forwarding", "bridge", "vlan", "tunnel" },
};
enum { PATH_LINK, PATH_FORWARDING, PATH_BRIDGE, PATH_VLAN, PATH_TUNNEL };

const char *coverage_axis_name(enum cov_axis a)
{
	return axis_names[a];
}

unsigned int coverage_axis_values(enum cov_axis a)
{
	unsigned int n = 0;

	while (n < COV_AX_VALUES && axis_values[a][n])
		n++;
	return n;
}

const char *coverage_axis_value(enum cov_axis a, unsigned int v)
{
	return axis_values[a][v];
}

/*
 * flows: 1, or 2+ at once (flows of a section, several sections); sockets:
 * several receiving sockets or listeners on one port; sections: several
 * generators at once.
 */
static void add_flows_axis(struct coverage *cv, const struct scenario *s)
{
	unsigned long flows = 0;
	bool sockets = false;

	for (size_t i = 0; i < scn_n_traffic(s); i++) {
		struct scenario v;
		const char *f, *k;

		scn_traffic_view(s, i, &v);
		f = scn_traffic_value(&v, "flows");
		flows += f ? strtoul(f, NULL, 10) : 1;
		k = scn_traffic_value(&v, "sockets");
		sockets |= k && strtoul(k, NULL, 10) > 1;
		k = scn_traffic_value(&v, "listeners");
		sockets |= k && strtoul(k, NULL, 10) > 1;
	}
	cv->ax[COV_AX_FLOWS][flows > 1]++;
	cv->ax[COV_AX_FLOWS][2] += sockets;
	cv->ax[COV_AX_FLOWS][3] += scn_n_traffic(s) > 1;
}

/* Whether a namespace of @d builds 802.1Q tagging: a VLAN device, a VLAN-filtering bridge. */
static bool tags_vlans(const struct topo_data *d)
{
	for (size_t i = 0; i < d->n_ns; i++)
		for (size_t k = 0; k < d->ns[i].n_ip; k++)
			if (strstr(d->ns[i].ip[k], "type vlan") ||
			    strstr(d->ns[i].ip[k], "vlan_filtering 1"))
				return true;
	return false;
}

/* The kinds of path of s's topology (topology axis), as flags by PATH_*. */
static unsigned int path_kinds(const struct scenario *s)
{
	const struct topo_data *d = s->topo ? s->topo->data : NULL;
	unsigned int k = 0;

	if (!d)
		return 1u << PATH_LINK;
	for (unsigned int i = 0; i < d->n_hops; i++)
		k |= 1u << (d->hops[i].bridge ? PATH_BRIDGE : PATH_FORWARDING);
	if (tags_vlans(d))
		k |= 1u << PATH_VLAN;
	if (d->tunnel)
		k |= 1u << PATH_TUNNEL;
	if (!d->n_hops && !d->tunnel)
		k |= 1u << PATH_LINK;
	return k;
}

/*
 * family: 4 and 6 once each per scenario that sends it (any of its
 * sections); topology: each kind of its path once, and crossed with family.
 */
static void add_family_axis(struct coverage *cv, const struct scenario *s)
{
	bool fam[2] = { false, false };
	unsigned int kinds = path_kinds(s);

	for (size_t i = 0; i < scn_n_traffic(s); i++) {
		struct scenario v;

		scn_traffic_view(s, i, &v);
		fam[scn_traffic_v6(&v)] = true;
	}
	cv->ax[COV_AX_FAMILY][0] += fam[0];
	cv->ax[COV_AX_FAMILY][1] += fam[1];
	for (unsigned int k = 0; k < COV_AX_VALUES; k++) {
		if (!(kinds & (1u << k)))
			continue;
		cv->ax[COV_AX_TOPOLOGY][k]++;
		cv->topo_family[k][0] += fam[0];
		cv->topo_family[k][1] += fam[1];
	}
}

/* cpus, queues and steering of s (the models of its NICs by index). */
static void add_axes(struct coverage *cv, const struct scenario *s, const char *const *nic_models)
{
	unsigned int cpus = 1, queues = 1;
	bool rps = false, xps = false;

	for (unsigned int vm = 0; vm < VM_MAX_VMS; vm++)
		if (scn_vm_cpus(s, vm) > cpus && (vm < s->topo->n_vms))
			cpus = scn_vm_cpus(s, vm);
	for (int k = 0; k < VM_MAX_NICS; k++) {
		const struct nic_model *m = nic_models[k] ? nic_model_find(nic_models[k]) : NULL;
		unsigned int q = s->queues[k];

		if (!q && m)
			q = m->queues_max < cpus ? m->queues_max : cpus;
		if (q > queues)
			queues = q;
		rps |= s->rps[k] != NULL;
		xps |= s->xps[k] != NULL;
	}
	cv->ax[COV_AX_CPUS][cpus > 1]++;
	cv->ax[COV_AX_QUEUES][queues > 1]++;
	cv->ax[COV_AX_STEERING][1] += rps;
	cv->ax[COV_AX_STEERING][2] += s->rfs > 0;
	cv->ax[COV_AX_STEERING][3] += xps;
	cv->ax[COV_AX_STEERING][0] += !rps && !xps && !s->rfs;
	add_flows_axis(cv, s);
	add_family_axis(cv, s);
}

void coverage_add(struct coverage *cv, const struct scenario *s, const char *const *nic_models)
{
	unsigned int tx = scn_tx_nic(s), rx = scn_rx_nic(s);
	unsigned int mtx = s->mtu[tx] ? s->mtu[tx] : 1500, mrx = s->mtu[rx] ? s->mtu[rx] : 1500;
	unsigned int pmtu = mtx < mrx ? mtx : mrx;
	bool v6 = scn_traffic_v6(s);
	unsigned long hdr = v6 ? 40 : 20;
	const struct scn_gen *gen = scn_gen_find(s->generator);
	const char *l4 = scn_traffic_l4(s);
	bool udp = l4 && !strcmp(l4, "udp");
	struct dir d = { .from = model_index(nic_models[tx]), .to = model_index(nic_models[rx]),
			 .proto = udp ? COV_UDP : COV_TCP, .cv = cv, .s = s };

	add_axes(cv, s, nic_models);

	if (!gen) {
		return;	/* [exec] alone: what it sends is its own */
	} else if (gen->cov == SCN_GEN_COV_DATAGRAMS) {
		const char *sz = scn_traffic_value(s, "size");
		const char *range = sz ? strstr(sz, "..") : NULL;
		unsigned long size = bytes(sz, 1400);
		unsigned long max = range ? bytes(range + 2, 0)
					  : bytes(scn_traffic_value(s, "size-max"), 0);

		mark(&d, false, max ? COV_MIXED : pkt_class(size + 8 + hdr, pmtu));
		if (max && max + 8 + hdr > pmtu)
			mark(&d, false, COV_FRAG);
	} else if (gen->cov == SCN_GEN_COV_STREAM) {
		bool bidir = scn_traffic_true(s, "bidir");

		mark(&d, false, pmtu > 1500 ? COV_JUMBO : COV_MTU);
		mark(&d, true, bidir ? (pmtu > 1500 ? COV_JUMBO : COV_MTU) : COV_SMALL);
	} else {	/* SCN_GEN_COV_RR */
		unsigned long l4h = udp ? 8 : 32;
		unsigned long req = bytes(scn_traffic_value(s, "req-size"), 32);
		unsigned long resp = bytes(scn_traffic_value(s, "resp-size"), 32);

		mark(&d, false, pkt_class(req + l4h + hdr, pmtu));
		mark(&d, true, pkt_class(resp + l4h + hdr, pmtu));
	}
}

unsigned int coverage_missing(const struct coverage *cv)
{
	unsigned int missing = 0;

	for (int m = 0; m < (int)nic_models_n; m++)
		for (int r = 0; r < COV_ROLES; r++)
			for (int p = 0; p < COV_PROTOS; p++)
				for (int c = 0; c < COV_CLASSES; c++)
					missing += coverage_required(p, c) && !cv->by[m][r][p][c];
	return missing;
}
