// SPDX-License-Identifier: GPL-2.0
/*
 * The loss accounting of a scenario run, layer by layer (scnrun-collect.c
 * reads the rest): each link's capture (frames, the IP frames to and from
 * each NIC, UDP data and END datagrams, checksums), the NIC/driver layer on
 * receive (nicrx) and on transmit (nictx), and the identity of the UDP data
 * datagrams from the sender's application to the receiver's (udp_loss).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/pcapcsum.h"
#include "run/pcapstat.h"
#include "vm/topofile.h"
#include "scenario/scngen.h"
#include "scenario/scnrun.h"
#include "scenario/scnrun-int.h"

/*
 * IPv6's UDP header and payload of netlab's datagrams, whole (next header
 * UDP: the payload at ip6[48]) or as a first fragment (a fragment header,
 * offset 0: at ip6[56]); @dport and the payload's word at offset @off
 * equal to @word. libpcap's "udp" sees no fragment header.
 */
static char *udp6_filter(unsigned int port, int type, unsigned int off, const char *word)
{
	char *w0 = word ? xasprintf(" and ip6[%u:4] = %s", 48 + off, word) : xstrdup("");
	char *w1 = word ? xasprintf(" and ip6[%u:4] = %s", 56 + off, word) : xstrdup("");
	char *f = xasprintf("ip6 and ((ip6[6] == 17 and ip6[42:2] == %u and ip6[48:4] = 0x4e4c5431 "
			    "and ip6[53] = %d%s) or (ip6[6] == 44 and ip6[40] == 17 and "
			    "(ip6[42:2] & 0xfff8) == 0 and ip6[50:2] == %u and "
			    "ip6[56:4] = 0x4e4c5431 and ip6[61] = %d%s))",
			    port, type, w0, port, type, w1);

	free(w0);
	free(w1);
	return f;
}

/* BPF for netlab's UDP datagrams of a type (1 data, 2 END) to `port`. */
static char *udp_filter(bool v6, unsigned int port, int type)
{
	if (v6)
		return udp6_filter(port, type, 0, NULL);
	return xasprintf("udp dst port %u and udp[8:4] = 0x4e4c5431 and udp[13] = %d", port, type);
}

/* udp-stream's data datagrams of one flow (its id at payload offset 8). */
static char *udp_flow_filter(bool v6, unsigned int port, unsigned int id)
{
	if (v6) {
		char word[16];

		snprintf(word, sizeof(word), "%u", id);
		return udp6_filter(port, 1, 8, word);
	}
	return xasprintf("udp dst port %u and udp[8:4] = 0x4e4c5431 and udp[13] = 1 and "
			 "udp[16:4] = %u", port, id);
}

/*
 * tcp-stream's data segments towards the receiver's port: TCP with a
 * payload (the IP length past both headers), ACKs and handshakes left out.
 * IPv6: TCP right after the fixed header (netlab's streams carry no
 * extension header).
 */
static char *tcp_data_filter(bool v6, unsigned int port)
{
	if (v6)
		return xasprintf("ip6 and tcp dst port %u and ip6[4:2] - ((ip6[52] & 0xf0) >> 2) > 0",
				 port);
	return xasprintf("tcp dst port %u and ip[2:2] - ((ip[0] & 0xf) << 2) - ((tcp[12] & 0xf0) >> 2) > 0",
			 port);
}

/* A metric, or 0 when it was not measured. */
static double mget(const struct metrics *m, const char *name)
{
	return metrics_value(m, name, 0);
}

/* The same, for a per-NIC metric: fmt has one %c for the label. */
static double mgetl(const struct metrics *m, const char *fmt, char label)
{
	return metrics_value_label(m, fmt, label, 0);
}

/* Whether the generator's packets are TCP (its transport, or its proto option's). */
static bool gen_is_tcp(const struct scenario *s)
{
	const char *l4 = scn_traffic_l4(s);

	return l4 && !strcmp(l4, "tcp");
}

/* Whether any traffic section's packets are TCP (a plain [traffic] is one section). */
static bool any_tcp(const struct scenario *s)
{
	for (size_t i = 0; i < scn_n_traffic(s); i++) {
		struct scenario v;

		scn_traffic_view(s, i, &v);
		if (gen_is_tcp(&v))
			return true;
	}
	return false;
}

/*
 * IP packets that reached NIC n's IP layer over the traffic, as frames: the
 * ECN counters of ip_rcv_core/ip6_rcv_core count GRO-merged skbs by their
 * segments (IpExt.In*Pkts, Ip6In*Pkts), unlike InReceives; IPv6 multicast
 * (neighbour discovery, MLD) is taken out, as the capture filter leaves it.
 */
static double nic_ip_in(const struct metrics *m, char l, bool v6)
{
	static const char *const ecn[] = { "NoECT", "ECT1", "ECT0", "CE" };
	double sum = 0;

	for (size_t i = 0; i < ARRAY_SIZE(ecn); i++) {
		char fmt[64];

		snprintf(fmt, sizeof(fmt), v6 ? "snmp6.%%c.Ip6In%sPkts" : "netstat.%%c.IpExt.In%sPkts",
			 ecn[i]);
		sum += mgetl(m, fmt, l);
	}
	return v6 ? sum - mgetl(m, "snmp6.%c.Ip6InMcastPkts", l) : sum;
}

/*
 * Neighbour discovery sent to NIC l's own address (unicast NS and NA) that
 * reached its IP layer over the traffic: all NS/NA it received but those
 * sent to a multicast address, @mcast of them on its link (assumed inside
 * the counters' window: they resolve the peer when the traffic starts).
 * Neither side of nicrx counts them: the NUD probe that follows the traffic
 * by its delay (DELAY_PROBE_TIME) lands on the link after the counters'
 * last snapshot, where ARP, not IP, would have been.
 */
static double nic_nd_unicast_in(const struct metrics *m, char l, double mcast)
{
	double nd = mgetl(m, "snmp6.%c.Icmp6InNeighborSolicits", l) +
		    mgetl(m, "snmp6.%c.Icmp6InNeighborAdvertisements", l);

	return nd > mcast ? nd - mcast : 0;
}

/*
 * An ethtool -S receive counter that counts frames the NIC or driver dropped:
 * the aggregates netdev stats use (not their breakdowns, which would count a
 * frame twice), e1000/e1000e's allocation failures, virtio_net's per-queue
 * drops. Not rx_length_errors: QEMU's e1000e counts an undersized frame
 * there (virtio-net's unpadded 42 B ARP) and still delivers it.
 */
static bool is_rx_drop_counter(const char *stat)
{
	static const char *const names[] = { "rx_missed_errors", "rx_crc_errors",
					     "rx_frame_errors", "rx_over_errors", "rx_fifo_errors",
					     "rx_align_errors", "rx_dropped", "alloc_rx_buff_failed" };
	size_t n = strlen(stat);

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(stat, names[i]))
			return true;
	return !strncmp(stat, "rx_queue_", 9) && n > 5 && !strcmp(stat + n - 5, "drops");
}

/* The sum of NIC l's counters that is_drop() accepts (ethtool -S deltas, nic.L.*). */
static double nic_counted(const struct collect *c, char l, bool (*is_drop)(const char *))
{
	char prefix[16];
	double counted = 0;

	snprintf(prefix, sizeof(prefix), "nic.%c.", l);
	for (size_t i = 0; i < metrics_count(c->m); i++) {
		const char *mn;
		double v;

		metrics_at(c->m, i, &mn, &v);
		if (!strncmp(mn, prefix, strlen(prefix)) && v > 0 && is_drop(mn + strlen(prefix)))
			counted += v;
	}
	return counted;
}

/*
 * What NIC `l`'s own counters say it (or its driver) dropped while receiving
 * (ethtool -S deltas: missed, drops, length/CRC/frame errors, allocation
 * failures; nicrx.L.counted), and the loss no counter explains: all of it
 * when none moved, else what exceeds them (nicrx.L.silent,
 * loss.silent_in_driver).
 */
static void nic_rx_counted(struct collect *c, char l, double lost)
{
	double counted = nic_counted(c, l, is_rx_drop_counter), silent;
	char name[64];

	silent = lost <= 0 ? 0 : lost > counted ? lost - counted : 0;
	snprintf(name, sizeof(name), "nicrx.%c.counted", l);
	metrics_set(c->m, name, counted);
	snprintf(name, sizeof(name), "nicrx.%c.silent", l);
	metrics_set(c->m, name, silent);
	metrics_set(c->m, "loss.silent_in_driver", mget(c->m, "loss.silent_in_driver") + silent);
}

/*
 * The NIC/driver layer of NIC i: IP packets sent to its MAC on its link (the
 * host's capture, the frames QEMU handed to the NIC model) against those
 * that reached its IP layer. The pair topology's readiness handshake (TCP
 * port READY_PORT) is left out of the capture count; the counters hold
 * whatever of it came after the snapshot, which for a UDP generator is
 * Tcp.InSegs. With a TCP generator there (any section's) it cannot be told
 * apart: not measured.
 */
/* ICMPv6 neighbour discovery (RS, RA, NS, NA, redirect), which has no extension headers. */
#define ND_FILTER "(icmp6 and ip6[40] >= 133 and ip6[40] <= 137)"

/*
 * The capture filter of nicrx.<L>.wire: IP frames to NIC n's MAC, no
 * readiness handshake; for IPv6, no multicast and no neighbour discovery
 * (nic_nd_unicast_in()).
 */
static char *nic_rx_filter(const struct vm_nic *n, bool v6)
{
	return xasprintf("ether dst %s and %s and not (tcp port %d)", n->mac,
			 v6 ? "ip6 and not ip6 multicast and not " ND_FILTER : "ip", READY_PORT);
}

/*
 * Multicast neighbour solicitations and advertisements others sent on NIC
 * n's link, but duplicate address detection's (from ::, when the link came
 * up: long before the counters' window).
 */
static char *nic_nd_mcast_filter(const struct vm_nic *n)
{
	return xasprintf("not ether src %s and ip6 multicast and icmp6 and "
			 "(ip6[40] == 135 or ip6[40] == 136) and not ip6 src host ::", n->mac);
}

/*
 * The capture filter of nictx.<L>.wire: the IPv4 frames NIC n put on its
 * link. IPv4 only: IPv6 sends neighbour discovery and MLD from the moment
 * the link is up, before the trace that counts what the driver was handed
 * begins, and the capture has no clock of the guest's to cut them off.
 * Matching the traffic's own packets on the wire (ip6, no multicast, no
 * ICMPv6) is easy; the trace's side is not: net_dev_start_xmit carries no
 * transport header, so what the driver was handed (txpath) cannot be cut to
 * the traffic's packets, and the ICMPv6 counters (Icmp6OutMsgs) cover the
 * counters' window, not the trace's: measured on IPv6 runs, handed minus
 * them missed the wire by 1 to 6 frames either way.
 */
static char *nic_tx_filter(const struct vm_nic *n)
{
	return xasprintf("ether src %s and ip", n->mac);
}

/*
 * nicrx.<L>.* of NIC i, whose capture holds `wire` frames nic_rx_filter()
 * matches and @nd_mcast nic_nd_mcast_filter() does.
 */
static void collect_nic_rx(struct collect *c, unsigned int i, double wire, double nd_mcast)
{
	const struct vm_nic *n = &c->cfg->nics[i];
	bool v6 = scn_traffic_v6(c->s);
	bool pair = c->cfg->topo->n_vms > 1;
	char name[64];
	double in;

	if (pair && any_tcp(c->s))
		return;
	in = nic_ip_in(c->m, n->label, v6);
	if (v6)
		in -= nic_nd_unicast_in(c->m, n->label, nd_mcast);
	if (pair && !v6)
		in -= mgetl(c->m, "snmp.%c.Tcp.InSegs", n->label);
	snprintf(name, sizeof(name), "nicrx.%c.wire", n->label);
	metrics_set(c->m, name, wire);
	snprintf(name, sizeof(name), "nicrx.%c.ip", n->label);
	metrics_set(c->m, name, in);
	/*
	 * Frames a CPU's backlog dropped (RPS, netif_rx) left the driver and
	 * never reached IP: their own layer (loss.cpu_backlog_drops), the
	 * receiving NIC's, not its NIC/driver's.
	 */
	if (i == scn_rx_nic(c->s)) {
		double bl = mget(c->m, "loss.cpu_backlog_drops");

		bl = bl < wire - in ? bl : wire - in > 0 ? wire - in : 0;
		snprintf(name, sizeof(name), "nicrx.%c.backlog", n->label);
		metrics_set(c->m, name, bl);
		in += bl;
	}
	snprintf(name, sizeof(name), "nicrx.%c.lost", n->label);
	metrics_set(c->m, name, wire - in);
	metrics_set(c->m, "loss.lost_in_driver", mget(c->m, "loss.lost_in_driver") + wire - in);
	nic_rx_counted(c, n->label, wire - in);
}

/* A per-NIC metric csum.<l>.WHAT. */
static void set_csum(struct collect *c, char l, const char *what, double v)
{
	char name[64];

	snprintf(name, sizeof(name), "csum.%c.%s", l, what);
	metrics_set(c->m, name, v);
}

/* The bad checksums of NIC l's own frames, kind by kind, and the frames that carried them. */
static void csum_sent(struct collect *c, char l, const struct pcap_csum_sender *sd)
{
	const struct pcap_csum_bad *worst = NULL;
	double unverifiable = 0;

	for (int w = 0; w < PCAP_CSUM_NWHYS; w++)
		unverifiable += (double)sd->unverifiable[w];
	set_csum(c, l, "checked", (double)(sd->good + sd->bad + sd->zero));
	set_csum(c, l, "bad", (double)sd->bad);
	set_csum(c, l, "unverifiable", unverifiable);
	set_csum(c, l, "cut", (double)sd->unverifiable[PCAP_CSUM_WHY_CUT]);
	for (int k = 0; k < PCAP_CSUM_NKINDS; k++) {
		char what[32];

		snprintf(what, sizeof(what), "bad_%s", pcap_csum_kind_name(k));
		set_csum(c, l, what, (double)sd->bad_kind[k].packets);
		if (sd->bad_kind[k].packets && (!worst || sd->bad_kind[k].packets > worst->packets))
			worst = &sd->bad_kind[k];
	}
	if (!worst)
		return;
	set_csum(c, l, "bad_frames", (double)worst->frames);
	set_csum(c, l, "bad_len_min", worst->len_min);
	set_csum(c, l, "bad_len_max", worst->len_max);
	set_csum(c, l, "bad_first", (double)worst->first);
	for (size_t i = 0; i < worst->n_top && i < 4; i++) {
		char what[32];

		snprintf(what, sizeof(what), "bad_len.%u", worst->top[i].len);
		set_csum(c, l, what, (double)worst->top[i].count);
	}
}

/*
 * Checksums on NIC i's link (pcapcsum.h): of the packets NIC i sent,
 * csum.<L>.{checked,bad,unverifiable,cut,bad_<kind>} and, when some were
 * bad, what the frames that carried the worst kind share
 * (bad_frames, bad_len_min, bad_len_max, bad_len.LEN, bad_first: the
 * position of the first in the capture); of the packets others sent to it,
 * csum.<L>.bad_in. A frame cut by the snap length cannot be verified
 * ([scenario] snaplen = 0 keeps whole frames).
 */
static int collect_csum(struct collect *c, unsigned int i, const char *path)
{
	const struct vm_nic *n = &c->cfg->nics[i];
	const struct pcap_csum_sender *own = NULL;
	struct pcap_csum *pc = NULL;
	uint8_t mac[6];
	double in = 0;
	int ret = pcap_csum_read(path, NULL, &pc, c->err);

	if (ret)
		return ret;
	if (!pcap_csum_mac_parse(n->mac, mac))
		own = pcap_csum_sender(pc, mac);
	for (size_t k = 0; k < pc->n_senders; k++)
		if (&pc->senders[k] != own)
			in += (double)pc->senders[k].bad;
	if (own)
		csum_sent(c, n->label, own);
	else
		csum_sent(c, n->label, &(struct pcap_csum_sender){ 0 });
	set_csum(c, n->label, "bad_in", in);
	pcap_csum_free(pc);
	return 0;
}

/* Whether NIC i's namespace holds another NIC of its VM. */
static bool shares_netns(const struct vm_config *cfg, unsigned int i)
{
	for (unsigned int k = 0; k < cfg->n_nics; k++)
		if (k != i && cfg->nics[k].vm == cfg->nics[i].vm &&
		    !strcmp(cfg->nics[k].netns, cfg->nics[i].netns))
			return true;
	return false;
}

/*
 * @f, and the same frames tagged with an 802.1Q header: a topology file's
 * links may carry VLANs (libpcap's `vlan` moves the offsets after it).
 */
static char *vlan_too(char *f)
{
	char *both;

	if (!f)
		return NULL;
	both = xasprintf("(%s) or (vlan and (%s))", f, f);

	free(f);
	return both;
}

/*
 * Each link's capture, read once: its frames, the IP frames to its NIC
 * (nicrx), the data towards the port (UDP's data datagrams, TCP's data
 * segments) and for UDP the END copies. The filters by index: these, then
 * one per UDP flow.
 */
enum { F_RX, F_TX, F_ND_MCAST, F_DATA, F_UDP_END, F_FLOWS };

int scnrun_collect_pcaps(struct collect *c, const char *rundir)
{
	const char *pv = scn_traffic_value(c->s, "port");
	bool v6 = scn_traffic_v6(c->s);
	const struct scn_gen *gen = scn_gen_find(c->s->generator);
	bool udp = gen && gen->loss_identity;	/* its data datagrams, counted on each wire */
	/* TCP's data segments: only for the hops (in against out, retransmits and all) */
	bool tcp = gen && gen->hop_segments && c->cfg->topo->data &&
		   c->cfg->topo->data->n_hops;
	unsigned int port = pv ? (unsigned int)atoi(pv) : 5201;
	unsigned int rx = scn_rx_nic(c->s);
	/* Several flows: each one's data datagrams too (udp.flow.K.wire_{tx,rx}). */
	size_t flows = udp ? (size_t)metrics_value(c->m, "udp.flows", 1) : 0;
	size_t n_filters = udp ? F_FLOWS + (flows > 1 ? flows : 0) : tcp ? F_UDP_END : F_DATA;
	char **filters = xcalloc(n_filters, sizeof(*filters));
	struct pcap_stats *st = xcalloc(n_filters, sizeof(*st));
	/* Through a tunnel the ends' IP layers count each packet twice: no NIC/driver layer. */
	bool tunnel = c->cfg->topo->data && c->cfg->topo->data->tunnel;
	double data_on_link[VM_MAX_NICS] = { 0 };	/* for the hops */
	int ret = 0;

	if (!tunnel) {
		metrics_set(c->m, "loss.lost_in_driver", 0);
		metrics_set(c->m, "loss.silent_in_driver", 0);
	}
	/* NICs past A and B (a topology file's hops): their links' frames, no UDP identity. */
	for (unsigned int i = 0; i < c->cfg->n_nics && !ret; i++) {
		char l = c->cfg->nics[i].label, name[64];
		char *path = xasprintf("%s/nic-%c.pcap", rundir, l);
		/* a hop's NIC: its link's data datagrams, no END copies nor flows */
		size_t n_used = i < 2 ? n_filters : udp || tcp ? F_UDP_END : F_DATA;

		filters[F_RX] = nic_rx_filter(&c->cfg->nics[i], v6);
		filters[F_TX] = nic_tx_filter(&c->cfg->nics[i]);
		filters[F_ND_MCAST] = nic_nd_mcast_filter(&c->cfg->nics[i]);
		if (udp)
			filters[F_DATA] = udp_filter(v6, port, 1);
		else if (tcp)
			filters[F_DATA] = tcp_data_filter(v6, port);
		if (udp && i < 2)
			filters[F_UDP_END] = udp_filter(v6, port, 2);
		for (size_t k = F_FLOWS; k < n_used; k++) {
			char id[64];

			snprintf(id, sizeof(id), "udp.flow.%zu.id", k - F_FLOWS);
			filters[k] = udp_flow_filter(v6, port,
						     (unsigned int)metrics_value(c->m, id, 0));
		}
		if (c->cfg->topo->data)
			for (size_t k = 0; k < n_used; k++)
				filters[k] = vlan_too(filters[k]);
		ret = pcap_stats_read_many(path, (const char *const *)filters, n_used, st, c->err);
		free(path);
		for (size_t k = 0; k < n_filters; k++) {
			free(filters[k]);
			filters[k] = NULL;
		}
		if (ret)
			break;
		snprintf(name, sizeof(name), "nictx.%c.wire", l);
		metrics_set(c->m, name, (double)st[F_TX].matched);
		path = xasprintf("%s/nic-%c.pcap", rundir, l);
		ret = collect_csum(c, i, path);
		free(path);
		if (ret)
			break;
		snprintf(name, sizeof(name), "pcap.%c.packets", l);
		metrics_set(c->m, name, (double)st[F_RX].packets);
		snprintf(name, sizeof(name), "pcap.%c.bytes", l);
		metrics_set(c->m, name, (double)st[F_RX].bytes);
		if (udp || tcp)
			data_on_link[i] = (double)st[F_DATA].matched;
		if (udp && i < 2) {
			metrics_set(c->m, i == rx ? "loss.wire_rx" : "loss.wire_tx",
				    (double)st[F_DATA].matched);
			metrics_set(c->m, i == rx ? "loss.end_copies_wire_rx" : "loss.end_copies_wire_tx",
				    (double)st[F_UDP_END].matched);
		}
		for (size_t k = F_FLOWS; k < n_used; k++) {
			snprintf(name, sizeof(name), "udp.flow.%zu.%s", k - F_FLOWS,
				 i == rx ? "wire_rx" : "wire_tx");
			metrics_set(c->m, name, (double)st[k].matched);
		}
		/* A namespace's IP counters cannot tell its NICs apart: two NICs of one
		 * (a router's, a bridge's) are the hop's layer (scnrun-hops.c). */
		if (!shares_netns(c->cfg, i) && !tunnel)
			collect_nic_rx(c, i, (double)st[F_RX].matched, (double)st[F_ND_MCAST].matched);
	}
	if (!ret && (udp || tcp))
		scnrun_collect_hops(c, data_on_link, v6);
	free(filters);
	free(st);
	return ret;
}

/*
 * An ethtool -S transmit counter that counts frames the NIC or driver
 * dropped: the netdev aggregates (tx_dropped, tx_errors: not their
 * breakdowns, which would count a frame twice) and e1000/e1000e's DMA
 * mapping failures.
 */
static bool is_tx_drop_counter(const char *stat)
{
	return !strcmp(stat, "tx_dropped") || !strcmp(stat, "tx_errors") ||
	       !strcmp(stat, "tx_dma_failed");
}


/* A per-NIC metric nictx.<l>.WHAT. */
static void set_nictx(struct collect *c, char l, const char *what, double v)
{
	char name[64];

	snprintf(name, sizeof(name), "nictx.%c.%s", l, what);
	metrics_set(c->m, name, v);
}

/* drv.IFNAME.tx.WHAT from the trace (txpath), or NAN. */
static double drv_tx(const struct collect *c, const char *ifname, const char *what)
{
	char *name = xasprintf("drv.%s.tx.%s", ifname, what);
	double v = metrics_value(c->m, name, NAN);

	free(name);
	return v;
}

/*
 * The transmit side of each NIC's driver layer, the mirror of nicrx: the
 * IPv4 frames the stack handed to its driver (the trace, net_dev_start_xmit
 * with GSO segments, txpath.h) against those it put on its link (its
 * capture): nictx.<L>.{handed,wire,lost}, and extra, frames on the wire
 * beyond those handed. Of the lost, what its driver freed
 * without writing a descriptor (no_desc; no_desc_silent by consume_skb),
 * what its counters say (counted: ethtool -S tx_dropped, tx_errors,
 * tx_dma_failed) and what neither a counter nor a drop event (kfree_skb)
 * explains (silent). Summed: loss.lost_in_tx_driver, loss.silent_in_tx_driver.
 * Not measured without the trace's transmit events, nor for IPv6 traffic
 * (nic_tx_filter()).
 */
void scnrun_collect_nic_tx(struct collect *c)
{
	double lost_all = 0, silent_all = 0;
	bool measured = false;

	if (scn_traffic_v6(c->s))
		return;
	for (unsigned int i = 0; i < c->cfg->n_nics; i++) {
		const struct vm_nic *n = &c->cfg->nics[i];
		double handed = drv_tx(c, n->ifname, "handed"), wire, lost, counted, traced;
		double no_desc = drv_tx(c, n->ifname, "no_desc");
		double quiet = drv_tx(c, n->ifname, "no_desc_silent");

		if (isnan(handed))
			continue;
		wire = mgetl(c->m, "nictx.%c.wire", n->label);
		/*
		 * Net of what the NIC put on the wire unasked: QEMU's e1000
		 * sends a header-only frame after each TSO skb whose payload is
		 * a whole number of segments (1942 of them in paths-jumbo-tcp's
		 * e1000 sender), which hides as many frames lost.
		 */
		lost = handed > wire ? handed - wire : 0;
		counted = nic_counted(c, n->label, is_tx_drop_counter);
		/* freed by kfree_skb in the driver's xmit: a drop event (dropwatch) saw them */
		traced = drv_tx(c, n->ifname, "xmit_freed");
		traced = isnan(traced) ? 0 : traced;
		set_nictx(c, n->label, "handed", handed);
		set_nictx(c, n->label, "lost", lost);
		set_nictx(c, n->label, "extra", wire > handed ? wire - handed : 0);
		set_nictx(c, n->label, "counted", counted);
		set_nictx(c, n->label, "silent",
			  lost > counted + traced ? lost - counted - traced : 0);
		if (!isnan(no_desc))
			set_nictx(c, n->label, "no_desc", no_desc);
		if (!isnan(quiet))
			set_nictx(c, n->label, "no_desc_silent", quiet);
		lost_all += lost;
		silent_all += lost > counted + traced ? lost - counted - traced : 0;
		measured = true;
	}
	if (!measured)
		return;
	metrics_set(c->m, "loss.lost_in_tx_driver", lost_all);
	metrics_set(c->m, "loss.silent_in_tx_driver", silent_all);
}

/*
 * Data datagrams the receiver's NIC/driver lost: its IP frames lost there
 * (nicrx.<L>.lost), one datagram each; when the datagrams were fragmented
 * (Ip.ReasmReqds moved), those never reassembled, at most one per frame lost.
 */
static double udp_driver_drops(struct collect *c, char b, double wire_rx)
{
	double lost = mgetl(c->m, "nicrx.%c.lost", b), left;
	bool v6 = scn_traffic_v6(c->s);

	if (lost <= 0)
		return 0;
	if (mgetl(c->m, v6 ? "snmp6.%c.Ip6ReasmReqds" : "snmp.%c.Ip.ReasmReqds", b) <= 0)
		return lost;
	left = wire_rx - mgetl(c->m, v6 ? "snmp6.%c.Ip6ReasmOKs" : "snmp.%c.Ip.ReasmOKs", b);
	return left < 0 ? 0 : left < lost ? left : lost;
}

/*
 * Data datagrams the sender's driver lost: its IPv4 frames lost between the
 * driver and the wire (nictx.<L>.lost), one datagram each; when the
 * datagrams were fragmented (Ip.FragCreates moved), at most the data lost
 * before the wire that the stack's counters do not explain (@left). END
 * copies the driver lost count here too; the qdisc's share of them comes off
 * tx_stack_drops, so the sum of the two stays exact.
 */
static double udp_tx_driver_drops(struct collect *c, char a, double left)
{
	double lost = mgetl(c->m, "nictx.%c.lost", a);

	if (lost <= 0)
		return 0;
	if (mgetl(c->m, "snmp.%c.Ip.FragCreates", a) <= 0)
		return lost;
	return left < 0 ? 0 : left < lost ? left : lost;
}

void scnrun_cpu_backlog(struct collect *c)
{
	double sum = 0;
	bool any = false;

	for (size_t i = 0; i < metrics_count(c->m); i++) {
		const char *name, *dot;
		double v;

		metrics_at(c->m, i, &name, &v);
		if (strncmp(name, "softnet.cpu", 11) || !(dot = strchr(name + 11, '.')) ||
		    strcmp(dot, ".dropped"))
			continue;
		sum += v;
		any = true;
	}
	if (any)
		metrics_set(c->m, "loss.cpu_backlog_drops", sum);
}

/*
 * UDP data datagrams, layer by layer, sender on A's side, receiver on B's:
 *   app_sent -(tx stack: qdisc drops not reported to the app, minus END
 *   copies; datagrams discarded while the neighbour was unresolved)-(tx
 *   driver: its IPv4 frames that never reached the wire)-> wire_tx -(between the NICs)-> wire_rx -(rx
 *   NIC/driver)-(a CPU's backlog, softnet dropped)-(rx stack: Udp InErrors/NoPorts, IP InDiscards, minus END copies; datagrams the stack
 *   delivered to another flow's socket, udp.misdelivered)-> app_received.
 * The counted drops and the differences must agree: `unaccounted` is what
 * no counter explains. (A qdisc that drops other frames too, such as netem
 * dropping ARP, leaves those in the count: they show as unaccounted < 0.)
 */
void scnrun_udp_loss(struct collect *c)
{
	struct metrics *m = c->m;
	char a = c->cfg->nics[scn_tx_nic(c->s)].label, b = c->cfg->nics[scn_rx_nic(c->s)].label;
	double sent = mget(m, "udp.sent"), recvd = mget(m, "udp.received");
	double wtx = mget(m, "loss.wire_tx"), wrx = mget(m, "loss.wire_rx");
	bool v6 = scn_traffic_v6(c->s);
	double tx_drops = mgetl(m, "qdisc.%c.dropped", a) - mget(m, "loss.app_send_errors") -
			  (mget(m, "loss.end_copies_sent") - mget(m, "loss.end_copies_wire_tx")) +
			  mgetl(m, v6 ? "neigh.%c.ndisc.unresolved_discards" :
					"neigh.%c.arp.unresolved_discards", a);
	double end_lost = mget(m, "loss.end_copies_wire_rx") - mget(m, "loss.end_copies_received");
	double rx_drops = v6 ?
		mgetl(m, "snmp6.%c.Udp6InErrors", b) + mgetl(m, "snmp6.%c.Udp6NoPorts", b) +
			mgetl(m, "snmp6.%c.Ip6InDiscards", b) :
		mgetl(m, "snmp.%c.Udp.InErrors", b) + mgetl(m, "snmp.%c.Udp.NoPorts", b) +
			mgetl(m, "snmp.%c.Ip.InDiscards", b);

	double drv = udp_driver_drops(c, b, wrx);
	double txdrv = udp_tx_driver_drops(c, a, sent - wtx - tx_drops);

	rx_drops -= end_lost;
	/* A CPU's backlog: after the driver, before IP (collect_nic_rx left them out of drv). */
	rx_drops += mgetl(m, "nicrx.%c.backlog", b);

	metrics_set(m, "loss.app_sent", sent);
	metrics_set(m, "loss.tx_stack_drops", tx_drops);
	metrics_set(m, "loss.rx_stack_drops", rx_drops);
	metrics_set(m, "loss.app_received", recvd);
	metrics_set(m, "loss.lost_before_wire", sent - wtx);
	metrics_set(m, "loss.tx_driver_drops", txdrv);
	metrics_set(m, "loss.lost_in_tx_stack", sent - wtx - txdrv);
	metrics_set(m, "loss.lost_on_wire", wtx - wrx);
	metrics_set(m, "loss.driver_drops", drv);
	metrics_set(m, "loss.stack_in", wrx - drv);
	metrics_set(m, "loss.lost_in_stack", wrx - drv - recvd);
	/* Delivered, to another flow's socket: the receiver did not count it as its flow's. */
	metrics_set(m, "loss.misdelivered", mget(m, "udp.misdelivered"));
	metrics_set(m, "loss.unaccounted",
		    (sent - recvd) - (tx_drops + txdrv + (wtx - wrx) + drv + rx_drops +
				      mget(m, "udp.misdelivered")));
}
