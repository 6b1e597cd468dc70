// SPDX-License-Identifier: GPL-2.0
/*
 * Scenario -> guest script, and run directory -> metrics.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/esc.h"
#include "generators.h"
#include "ttool.h"
#include "run/counters.h"
#include "run/pcapstat.h"
#include "run/run.h"
#include "scenario/scngen.h"
#include "scenario/scnrun.h"
#include "scenario/scnrun-int.h"
#include "trace/drvring.h"
#include "trace/netrx.h"
#include "trace/pktpath.h"
#include "trace/tracedrops.h"
#include "trace/traceset.h"

/*
 * The generators, their options and which end takes each [traffic] key are
 * traffic/'s (generators.h): the tools' own option tables.
 */

static bool is_true(const char *v)
{
	bool b = false;

	return v && scn_parse_bool(v, &b) == 0 && b;
}

/* "198.18.0.2/24" -> "198.18.0.2" */
static void addr_of(const char *cidr, char *out, size_t n)
{
	snprintf(out, n, "%s", cidr);
	out[strcspn(out, "/")] = '\0';
}

/* Prefix to run a command in NIC n's namespace. */
static const char *ns_prefix(const struct vm_nic *n, char *buf, size_t len)
{
	if (!n->netns[0])
		return "";
	/* The binary itself: $! must be the process that ends up in the netns. */
	snprintf(buf, len, "/sbin/ip netns exec %s ", n->netns);
	return buf;
}

/* Prefix to run a command at the traffic's end on NIC n (vm_nic.tr_netns). */
static const char *tr_prefix(const struct vm_nic *n, char *buf, size_t len)
{
	if (!n->tr_netns[0])
		return "";
	snprintf(buf, len, "/sbin/ip netns exec %s ", n->tr_netns);
	return buf;
}

/* The per-NIC counter sources (scnrun-int.h). */
const struct snap_source scnrun_snap_sources[] = {
	{ "snmp", "cat /proc/net/snmp", false, "snmp.%c", counters_parse_snmp, true },
	{ "netstat", "cat /proc/net/netstat", false, "netstat.%c", counters_parse_snmp, true },
	{ "snmp6", "cat /proc/net/snmp6", false, "snmp6.%c", counters_parse_snmp6, false },
	{ "arp", "cat /proc/net/stat/arp_cache", false, "neigh.%c.arp", counters_parse_neigh_stat,
	  false },
	{ "ndisc", "cat /proc/net/stat/ndisc_cache", false, "neigh.%c.ndisc",
	  counters_parse_neigh_stat, false },
	{ "ethtool-S", "/usr/sbin/ethtool -S %s", true, "nic.%c", counters_parse_ethtool_stats,
	  false },
	{ "ethtool-g", "/usr/sbin/ethtool -g %s", true, "ring.%c", counters_parse_ethtool_ring,
	  false },
	{ "ethtool-k", "/usr/sbin/ethtool -k %s", true, "offload.%c",
	  counters_parse_ethtool_features, false },
	{ "tc", "/sbin/tc -s qdisc show dev %s", true, "qdisc.%c", counters_parse_tc_qdisc, false },
};
const size_t scnrun_n_snap_sources = ARRAY_SIZE(scnrun_snap_sources);

static void script_snap(const struct vm_config *cfg, unsigned int vm, struct sbuf *o)
{
	sbuf_adds(o, "snap() {\n\td=$O/$1; mkdir -p $d\n"
		     "\tcat /proc/net/softnet_stat > $d/softnet_stat\n");
	for (unsigned int i = 0; i < cfg->n_nics; i++) {
		const struct vm_nic *n = &cfg->nics[i];
		char nsb[64];
		const char *ns = ns_prefix(n, nsb, sizeof(nsb));

		if (n->vm != vm)
			continue;
		for (size_t k = 0; k < scnrun_n_snap_sources; k++) {
			sbuf_addf(o, "\t%s", ns);
			sbuf_addf(o, scnrun_snap_sources[k].cmd, n->ifname);
			sbuf_addf(o, " > $d/%s-%c%s\n", scnrun_snap_sources[k].file, n->label,
				  scnrun_snap_sources[k].with_stderr ? " 2>&1" : "");
		}
	}
	sbuf_adds(o, "}\n");
}

/*
 * queues.<L> (ethtool -L), then irq.<L> (each queue's vectors, found by
 * name in /proc/interrupts: igb's ethB-TxRx-0 or ethB-rx-0/ethB-tx-0,
 * e1000e's ethB-rx-0, a single-vector NIC's ethB), rps.<L>, xps.<L> and
 * rfs's rps_flow_cnt in sysfs (in the NIC's namespace: sysfs shows the
 * netns's devices).
 */
static void script_nic_queues(const struct scenario *s, const struct vm_nic *n, const char *ns,
			      struct sbuf *o)
{
	int x = vm_nic_index(n->label);

	if (s->queues[x])
		sbuf_addf(o, "%s/usr/sbin/ethtool -L %s combined %u 2>$O/ethtool-L.err || "
			     "setup_error \"queues.%c = %u: ethtool -L %s combined %u refused (does the %s "
			     "model take it?): $(cat $O/ethtool-L.err)\"\n",
			  ns, n->ifname, s->queues[x], n->label, s->queues[x], n->ifname, s->queues[x],
			  n->model->name);
	if (s->rxhash[x])
		sbuf_addf(o, "%s/usr/sbin/ethtool -N %s rx-flow-hash %s 2>$O/ethtool-N.err || "
			     "setup_error \"rxhash.%c = %s: ethtool -N %s rx-flow-hash refused (does the %s "
			     "model hash those fields?): $(cat $O/ethtool-N.err)\"\n",
			  ns, n->ifname, s->rxhash[x], n->label, s->rxhash[x], n->ifname,
			  n->model->name);
	/* virtio-net's vectors are its virtio device's: virtioN-input.Q, virtioN-output.Q */
	if (s->n_irq[x])
		sbuf_addf(o, "vd=$(%sreadlink /sys/class/net/%s/device); vd=${vd##*/}\n", ns,
			  n->ifname);
	for (unsigned int q = 0; q < s->n_irq[x]; q++) {
		if (s->irq[x][q] == SCN_IRQ_KEEP)
			continue;
		sbuf_addf(o, "v=$(awk -v vd=\"$vd\" '$NF ~ /^%s%s%u%s$/ || $NF == vd \"-input.%u\" || "
			     "$NF == vd \"-output.%u\" { sub(\":\", \"\", $1); print $1 }' /proc/interrupts)\n",
			  n->ifname, q ? "-[A-Za-z]+-" : "(-[A-Za-z]+-", q, q ? "" : ")?", q, q);
		sbuf_addf(o, "[ -n \"$v\" ] || setup_error \"irq.%c: no interrupt of %s queue %u in "
			     "/proc/interrupts\"\n", n->label, n->ifname, q);
		sbuf_addf(o, "for i in $v; do echo %u > /proc/irq/$i/smp_affinity_list 2>$O/irq.err || "
			     "setup_error \"irq.%c: IRQ $i (%s queue %u) refused CPU %u: "
			     "$(cat $O/irq.err)\"; done\n",
			  s->irq[x][q], n->label, n->ifname, q, s->irq[x][q]);
	}
	for (int dir = 0; dir < 2; dir++) {
		const char *given = dir ? s->xps[x] : s->rps[x], *what = dir ? "xps" : "rps";
		unsigned int cpus = scn_vm_cpus(s, n->vm);
		char mask[32];

		if (!given)
			continue;
		/* The VM's CPUs of it: the kernel refuses a mask past its last CPU. */
		snprintf(mask, sizeof(mask), "%llx",
			 strtoull(given, NULL, 16) & ((1ull << cpus) - 1));
		sbuf_addf(o, "%ssh -c 'for f in /sys/class/net/%s/queues/%s-*/%s_cpus; do "
			     "echo %s > $f || exit 1; done' 2>$O/%s.err || setup_error \"%s.%c = %s: "
			     "%s_cpus of %s refused: $(cat $O/%s.err)\"\n",
			  ns, n->ifname, dir ? "tx" : "rx", what, mask, what, what, n->label, given,
			  what, n->ifname, what);
	}
	/* rfs = N: N / (its rx queues) entries per queue, after queues.<L> set them */
	if (s->rfs)
		sbuf_addf(o, "%ssh -c 'q=$(ls -d /sys/class/net/%s/queues/rx-* | wc -l); "
			     "for f in /sys/class/net/%s/queues/rx-*/rps_flow_cnt; do "
			     "echo $((%u / q)) > $f || exit 1; done' 2>$O/rfs.err || "
			     "setup_error \"rfs = %u: rps_flow_cnt of %s refused: $(cat $O/rfs.err)\"\n",
			  ns, n->ifname, n->ifname, s->rfs, s->rfs, n->ifname);
}

/* rfs = N: the global flow table (each NIC's share: script_nic_queues). */
static void script_rfs(const struct scenario *s, struct sbuf *o)
{
	if (!s->rfs)
		return;
	sbuf_addf(o, "echo %u > /proc/sys/net/core/rps_sock_flow_entries 2>$O/rfs.err || "
		     "setup_error \"rfs = %u: net.core.rps_sock_flow_entries refused: "
		     "$(cat $O/rfs.err)\"\n", s->rfs, s->rfs);
}

/*
 * What each NIC of the VM has once set up, in $O/queues-<L>: "rx N" and
 * "tx N" (its queues in sysfs), each queue's rps_cpus / xps_cpus, and each
 * of its interrupts' "irq N NAME CPUS" (scnrun-collect.c: queues.<L>.*).
 */
static void script_nic_record(const struct vm_config *cfg, unsigned int vm, struct sbuf *o)
{
	for (unsigned int i = 0; i < cfg->n_nics; i++) {
		const struct vm_nic *n = &cfg->nics[i];
		char nsb[64];
		const char *ns = ns_prefix(n, nsb, sizeof(nsb));

		if (n->vm != vm)
			continue;
		sbuf_addf(o, "%ssh -c 'cd /sys/class/net/%s/queues && "
			     "echo rx $(ls -d rx-* | wc -l) && echo tx $(ls -d tx-* | wc -l) && "
			     "for q in rx-*; do echo $q rps_cpus $(cat $q/rps_cpus) rps_flow_cnt "
			     "$(cat $q/rps_flow_cnt); done; "
			     "for q in tx-*; do echo $q xps_cpus $(cat $q/xps_cpus 2>/dev/null); done' "
			     "> $O/queues-%c 2>&1\n",
			  ns, n->ifname, n->label);
		sbuf_addf(o, "awk '$NF ~ /^%s(-|$)/ { sub(\":\", \"\", $1); print $1, $NF }' /proc/interrupts | "
			     "while read i name; do echo irq $i $name $(cat /proc/irq/$i/smp_affinity_list); "
			     "done >> $O/queues-%c\n",
			  n->ifname, n->label);
	}
}

/* Rings (verified after setting), then netem / qdisc, per NIC. */
static void script_nic_setup(const struct scenario *s, const struct vm_config *cfg,
			     unsigned int vm, struct sbuf *o)
{
	for (unsigned int i = 0; i < cfg->n_nics; i++) {
		const struct vm_nic *n = &cfg->nics[i];
		int x = vm_nic_index(n->label);
		char nsb[64];
		const char *ns = ns_prefix(n, nsb, sizeof(nsb));

		if (n->vm != vm)
			continue;
		script_nic_queues(s, n, ns, o);
		if (s->mtu[x])
			sbuf_addf(o, "%s/sbin/ip link set dev %s mtu %u 2>$O/mtu.err || "
				     "setup_error \"mtu.%c = %u: ip link set mtu refused (does the %s model "
				     "take it?): $(cat $O/mtu.err)\"\n",
				  ns, n->ifname, s->mtu[x], n->label, s->mtu[x], n->model->name);
		for (int dir = 0; dir < 2; dir++) {
			unsigned int want = dir ? s->ring_tx[x] : s->ring_rx[x];
			const char *d = dir ? "tx" : "rx", *D = dir ? "TX" : "RX";

			if (!want)
				continue;
			sbuf_addf(o, "%s/usr/sbin/ethtool -G %s %s %u 2>$O/ethtool-G.err || "
				     "setup_error \"ring.%c.%s = %u: ethtool -G %s %s %u refused: "
				     "$(cat $O/ethtool-G.err)\"\n",
				  ns, n->ifname, d, want, n->label, d, want, n->ifname, d, want);
			sbuf_addf(o, "got=$(%s/usr/sbin/ethtool -g %s | sed -n '/^Current/,$ s/^%s:[[:space:]]*//p')\n",
				  ns, n->ifname, D);
			sbuf_addf(o, "[ \"$got\" = %u ] || setup_error \"ring.%c.%s = %u: the driver "
				     "set %s $got\"\n", want, n->label, d, want, d);
		}
		if (s->coalesce[x])
			sbuf_addf(o, "%s/usr/sbin/ethtool -C %s %s 2>$O/ethtool-C.err || "
				     "setup_error \"coalesce.%c = %s: ethtool -C %s refused (does the %s model "
				     "support it?): $(cat $O/ethtool-C.err)\"\n",
				  ns, n->ifname, s->coalesce[x], n->label, s->coalesce[x], n->ifname,
				  n->model->name);
		if (s->netem[x] || s->qdisc[x])
			sbuf_addf(o, "%s/sbin/tc qdisc replace dev %s root %s%s 2>$O/tc.err || "
				     "setup_error \"[%s] %c = %s: tc refused: $(cat $O/tc.err)\"\n",
				  ns, n->ifname, s->netem[x] ? "netem " : "",
				  s->netem[x] ? s->netem[x] : s->qdisc[x], s->netem[x] ? "netem" : "qdisc",
				  n->label, s->netem[x] ? s->netem[x] : s->qdisc[x]);
	}	script_rfs(s, o);
	/* A scenario of one CPU and the drivers' queues records nothing more (as before). */
	if (scn_vm_cpus(s, vm) > 1 || scn_has_queues(s) || scn_has_steering(s)) {
		sbuf_adds(o, "note guest.cpus $(grep -c ^processor /proc/cpuinfo)\n");
		script_nic_record(cfg, vm, o);
	}
}

/* Options of one end: the scenario's keys for that role. */
static void end_args(const struct scenario *s, const struct tgen *g, enum tgen_role r,
		     struct sbuf *o)
{
	for (size_t i = 0; i < s->n_traffic; i++) {
		const struct scn_kv *kv = &s->traffic[i];
		enum tgen_role kr = tgen_key_role(g, kv->key);
		const struct topt *opt = tgen_key_opt(g, kv->key);

		if (!(kr & r) || (kr & TGEN_ADDR))
			continue;
		if (opt->kind == TOPT_FLAG) {
			if (is_true(kv->value))
				sbuf_addf(o, " --%s", kv->key);
			continue;
		}
		/* size = MIN..MAX: udp-stream's sizes drawn from the range. */
		if (!strcmp(kv->key, "size") && strstr(kv->value, "..")) {
			char *min = xasprintf("%.*s", (int)strcspn(kv->value, "."), kv->value);

			sbuf_adds(o, " --size ");
			esc_shell(o, min);
			sbuf_adds(o, " --size-max ");
			esc_shell(o, strstr(kv->value, "..") + 2);
			free(min);
			continue;
		}
		/* One word each, whatever it holds: values never reach the shell's syntax. */
		sbuf_addf(o, " --%s ", kv->key);
		esc_shell(o, kv->value);
	}
}

/*
 * The receiving end's command line, its outputs in directory @dir ("$O",
 * "$O/NAME"); its --idle-timeout at least @min_idle s (0: the descriptor's).
 */
static void receiver_cmd(const struct scenario *s, const struct vm_config *cfg,
			 const struct tgen *g, const char *dir, unsigned int min_idle,
			 struct sbuf *o)
{
	const struct vm_nic *rx = &cfg->nics[scn_rx_nic(s)];
	bool v6 = scn_traffic_v6(s);
	unsigned int idle = scn_gen_find(g->name)->rx_idle_timeout_s;
	char dst[64], nsb[64];

	addr_of(v6 ? rx->tr_ipv6 : rx->tr_ipv4, dst, sizeof(dst));
	sbuf_addf(o, "%s%s --%s --bind %s", tr_prefix(rx, nsb, sizeof(nsb)), g->name, g->rx_flag,
		  dst);
	end_args(s, g, TGEN_RX, o);
	/* connected = yes: each receiving socket connect()s to the sender's address. */
	if (scn_traffic_true(s, "connected")) {
		const struct vm_nic *tx = &cfg->nics[scn_tx_nic(s)];
		char peer[64];

		addr_of(v6 ? tx->tr_ipv6 : tx->tr_ipv4, peer, sizeof(peer));
		sbuf_addf(o, " --peer %s", peer);
	}
	idle = idle > min_idle ? idle : min_idle;
	if (idle)
		sbuf_addf(o, " --idle-timeout %u", idle);
	sbuf_addf(o, " > %s/%s 2> %s/%s.err", dir, g->rx_out, dir, g->rx_out);
}

/* The wait until the receiver whose pid is in $@var listens, its complaint in @dir. */
static void receiver_wait_port(const struct scenario *s, const struct tgen *g, const char *dir,
			       const char *var, struct sbuf *o)
{
	const char *pv = scn_traffic_value(s, "port");
	char port[16];

	snprintf(port, sizeof(port), "%u", g->default_port);
	sbuf_addf(o, "wait_port %s%s %s $%s || { echo \"receiver did not bind\" >> %s/%s.err; "
		     "exit %d; }\n",
		  scn_traffic_l4(s), scn_traffic_v6(s) ? "6" : "", pv ? pv : port, var,
		  dir, g->rx_out, SCNRUN_EXIT_TRAFFIC);
}

/* The receiving end, in the background, and the wait until it listens. */
static void script_receiver(const struct scenario *s, const struct vm_config *cfg,
			    const struct tgen *g, struct sbuf *o)
{
	receiver_cmd(s, cfg, g, "$O", 0, o);
	sbuf_adds(o, " &\nR=$!\n");
	receiver_wait_port(s, g, "$O", "R", o);
}

static void sender_cmd(const struct scenario *s, const struct vm_config *cfg,
		       const struct tgen *g, const char *dir, struct sbuf *o)
{
	const struct vm_nic *tx = &cfg->nics[scn_tx_nic(s)], *rx = &cfg->nics[scn_rx_nic(s)];
	bool v6 = scn_traffic_v6(s);
	char dst[64], nsb[64];

	addr_of(v6 ? rx->tr_ipv6 : rx->tr_ipv4, dst, sizeof(dst));
	sbuf_addf(o, "%s%s --%s --dst %s", tr_prefix(tx, nsb, sizeof(nsb)), g->name, g->tx_flag,
		  dst);
	end_args(s, g, TGEN_TX, o);
	if (!scn_traffic_value(s, "count"))
		sbuf_addf(o, " --duration %u", s->duration_s);
	sbuf_addf(o, " > %s/%s 2> %s/%s.err", dir, g->tx_out, dir, g->tx_out);
}

static void script_sender(const struct scenario *s, const struct vm_config *cfg,
			  const struct tgen *g, struct sbuf *o)
{
	sender_cmd(s, cfg, g, "$O", o);
	sbuf_adds(o, "\nS=$?\n");
	/* A generator's usage error (exit 2) is the scenario's fault, not the run's. */
	sbuf_addf(o, "[ $S = 2 ] && setup_error \"[traffic]: $(head -n 2 $O/%s.err)\"\n", g->tx_out);
}

static void script_wait_receiver(const struct tgen *g, struct sbuf *o)
{
	sbuf_addf(o, "wait $R\nRC=$?\n[ $RC = 2 ] && setup_error \"[traffic]: $(head -n 2 $O/%s.err)\"\n",
		  g->rx_out);
}

/* Both ends in one VM, or this VM's end of a two-VM pair. */
static void script_traffic(const struct scenario *s, const struct vm_config *cfg, unsigned int vm,
			   const struct tgen *g, struct sbuf *o)
{
	const struct vm_nic *tx = &cfg->nics[scn_tx_nic(s)], *rx = &cfg->nics[scn_rx_nic(s)];
	bool has_tx = tx->vm == vm, has_rx = rx->vm == vm;
	char dst[64];

	addr_of(rx->ipv4, dst, sizeof(dst));
	if (has_rx) {
		script_receiver(s, cfg, g, o);
		if (!has_tx)
			sbuf_addf(o, "nc -l -p %d </dev/null >/dev/null 2>&1 &\n", READY_PORT);
	}
	if (has_tx && !has_rx)
		sbuf_addf(o, "i=0; until nc -w 1 %s %d </dev/null >/dev/null 2>&1; do\n"
			     "\ti=$((i+1)); [ $i -gt 600 ] && { echo \"no receiver at %s\" >&2; exit %d; }\n"
			     "\tsleep 0.1\ndone\n",
			  dst, READY_PORT, dst, SCNRUN_EXIT_TRAFFIC);
	if (has_tx)
		script_sender(s, cfg, g, o);
	else
		sbuf_adds(o, "S=0\n");
	if (has_rx)
		script_wait_receiver(g, o);
	else
		sbuf_adds(o, "RC=0\n");
}

/* The least --idle-timeout of a section's receiver whose sender is in the other VM. */
#define SCNRUN_PAIR_RX_IDLE_S 30

/*
 * Named traffic sections ([traffic.NAME]): every receiver of this VM first,
 * each waited for on its port; the pair's readiness handshake; then every
 * sender of this VM at once in the background, each after its start
 * offset; then all of them waited for. Section NAME's outputs are in
 * $O/NAME/. $S and $RC are the worst of the senders' and the receivers'
 * statuses: 0, then the path's failure (a measured result), then any other.
 */
static void script_sections(const struct scenario *s, const struct vm_config *cfg,
			    unsigned int vm, struct sbuf *o)
{
	bool ready = false, wait_peer = false;
	char dst[64] = "";

	sbuf_addf(o, "worse() { case $2 in 0) echo $1 ;; %d) [ $1 = 0 ] && echo $2 || echo $1 ;; "
		     "*) case $1 in 0|%d) echo $2 ;; *) echo $1 ;; esac ;; esac; }\nS=0\nRC=0\n",
		  TTOOL_EXIT_PATH, TTOOL_EXIT_PATH);
	for (size_t i = 0; i < s->n_sections; i++) {
		struct scenario v;
		const struct tgen *g;
		const struct vm_nic *tx, *rx;
		char *dir = xasprintf("$O/%s", s->sections[i].name), var[24];

		scn_traffic_view(s, i, &v);
		g = tgen_find(v.generator);
		tx = &cfg->nics[scn_tx_nic(&v)];
		rx = &cfg->nics[scn_rx_nic(&v)];
		if (rx->vm == vm) {
			snprintf(var, sizeof(var), "R%zu", i);
			sbuf_addf(o, "mkdir -p %s\n", dir);
			/*
			 * Its sender in the other VM of a pair starts after this VM's
			 * other receivers and the handshake: under -icount this VM's
			 * clock runs on while it waits, past tcp-stream's default 10 s.
			 */
			receiver_cmd(&v, cfg, g, dir, tx->vm != vm ? SCNRUN_PAIR_RX_IDLE_S : 0, o);
			sbuf_addf(o, " &\n%s=$!\n", var);
			receiver_wait_port(&v, g, dir, var, o);
			ready |= tx->vm != vm;
		} else if (tx->vm == vm && !wait_peer) {
			wait_peer = true;
			addr_of(rx->ipv4, dst, sizeof(dst));
		}
		free(dir);
	}
	if (ready)
		sbuf_addf(o, "nc -l -p %d </dev/null >/dev/null 2>&1 &\n", READY_PORT);
	if (wait_peer)
		sbuf_addf(o, "i=0; until nc -w 1 %s %d </dev/null >/dev/null 2>&1; do\n"
			     "\ti=$((i+1)); [ $i -gt 600 ] && { echo \"no receiver at %s\" >&2; exit %d; }\n"
			     "\tsleep 0.1\ndone\n",
			  dst, READY_PORT, dst, SCNRUN_EXIT_TRAFFIC);
	for (size_t i = 0; i < s->n_sections; i++) {
		struct scenario v;
		char *dir = xasprintf("$O/%s", s->sections[i].name);

		scn_traffic_view(s, i, &v);
		if (cfg->nics[scn_tx_nic(&v)].vm == vm) {
			sbuf_addf(o, "mkdir -p %s\n", dir);
			if (s->sections[i].start_s > 0)
				sbuf_addf(o, "( sleep %g; exec ", s->sections[i].start_s);
			sender_cmd(&v, cfg, tgen_find(v.generator), dir, o);
			sbuf_addf(o, "%s &\nP%zu=$!\n", s->sections[i].start_s > 0 ? " )" : "", i);
		}
		free(dir);
	}
	for (int rx_end = 0; rx_end < 2; rx_end++) {
		for (size_t i = 0; i < s->n_sections; i++) {
			struct scenario v;
			const struct tgen *g;

			scn_traffic_view(s, i, &v);
			g = tgen_find(v.generator);
			if (cfg->nics[rx_end ? scn_rx_nic(&v) : scn_tx_nic(&v)].vm != vm)
				continue;
			/* A generator's usage error (exit 2) is the scenario's fault, not the run's. */
			sbuf_addf(o, "wait $%c%zu\nX=$?\n[ $X = 2 ] && setup_error \"[traffic.%s]: "
				     "$(head -n 2 $O/%s/%s.err)\"\n%s=$(worse $%s $X)\n",
				  rx_end ? 'R' : 'P', i, s->sections[i].name, s->sections[i].name,
				  rx_end ? g->rx_out : g->tx_out, rx_end ? "RC" : "S",
				  rx_end ? "RC" : "S");
		}
	}
}

/* A file beside the kernel image ("driver-patches", "System.map"), or NULL. */
static char *beside_kernel(const char *kernel, const char *name)
{
	const char *slash = kernel ? strrchr(kernel, '/') : NULL;

	if (!kernel)
		return NULL;
	return slash ? xasprintf("%.*s/%s", (int)(slash - kernel), kernel, name) : xstrdup(name);
}

/*
 * The driver lines or, for drivers without them, the fallback probes. Only a
 * set that holds netlab:drv (the default) is changed. The kernel's manifest
 * `driver-patches` (kbuild.sh: one patched driver per line) decides on the
 * host: every driver it does not list gets netlab:drvprobe_DRIVER, and when
 * it lists none netlab:drv goes (the top-level buffer stays off). A kernel
 * without a manifest (older caches, KERNEL= images) gets netlab:drvprobe for
 * all drivers, and the guest leaves out those whose netlab_drv formats are
 * in tracing/printk_formats or that have netlab_drv events. drvring reads
 * lines where a driver has them. When every driver has lines, the default
 * set leaves out net:napi_gro_receive_entry: rx_handoff is the hand-off.
 */
static void trace_drv_fallback(const char *kernel, struct traceset *ts,
			       const struct kernel_offsets *off)
{
	char *path = beside_kernel(kernel, "driver-patches"), *text = NULL;
	unsigned int patched = 0;

	if (!traceset_has_drv_lines(ts)) {
		/* A set of the scenario's own: its fallback probes, if any, as asked. */
	} else if (!path || file_read(path, &text, NULL) != 0) {
		traceset_add_names(ts, TRACESET_DRVPROBE, off);
		ts->drvprobe_unless_lines = true;
	} else {
		for (size_t d = 0; d < nic_models_n; d++) {
			const char *drv = nic_models[d].driver;
			bool listed = false;

			size_t n = strlen(drv);

			for (const char *l = text; l && !listed; l = strchr(l, '\n'), l = l ? l + 1 : l)
				listed = !strncmp(l, drv, n) && strchr(" \n", l[n]);
			if (listed) {
				patched++;
			} else {
				char *name = xasprintf(TRACESET_DRVPROBE "_%s", drv);

				traceset_add_names(ts, name, off);
				free(name);
			}
		}
		if (!patched)
			traceset_drop_names(ts, "netlab:drv");
		else if (patched == nic_models_n && ts->gro_for_handoff)
			traceset_drop_names(ts, "net:napi_gro_receive_entry");
	}
	free(text);
	free(path);
	path = beside_kernel(kernel, "System.map");
	(void)traceset_drvprobe_resolve(ts, path); /* none: ambiguous names are left out */
	free(path);
}

/* The scenario's kprobe events and trace-cmd record, on before the traffic. */
static void script_trace_start(const struct scenario *s, const struct vm_config *cfg,
			       unsigned int vm, struct sbuf *o)
{
	const char *kernel = vm && cfg->peer_kernel ? cfg->peer_kernel : cfg->kernel;
	struct kernel_offsets off;
	struct traceset ts;
	char *note = NULL;
	unsigned int kb;

	kernel_offsets_load(kernel, &off, &note);
	if (note) {
		struct argv a;
		char *line;

		argv_init(&a);
		argv_add(&a, "echo");
		argv_addf(&a, "netlab: %s", note);
		line = esc_shell_argv(&a);
		sbuf_addf(o, "%s > $O/trace-offsets.note\n", line);
		free(line);
		argv_release(&a);
	}
	free(note);
	traceset_build(s->trace_events, s->trace_add, s->trace_drop, s->trace_probe_names,
		       s->trace_probe_defs, s->n_trace_probes, &off, &ts);
	/* Sized for the scenario's set: the fallback stands in for netlab:drv. */
	kb = s->trace_buffer_kb ? s->trace_buffer_kb : traceset_buffer_kb(&ts, cfg->mem_mb,
											     vm_smp(cfg, vm));
	trace_drv_fallback(kernel, &ts, &off);
	traceset_script_start(&ts, kb, o);
	traceset_release(&ts);
}

static void script_trace_stop(struct sbuf *o)
{
	/* trace-cmd exits 0 after SIGINT once the file is complete. */
	sbuf_adds(o, "kill -INT $T; wait $T; note trace-cmd.status $?\n");
}

int scnrun_script(const struct scenario *s, const struct vm_config *cfg, unsigned int vm,
		  struct sbuf *o, char **err)
{
	const struct tgen *g = s->generator ? tgen_find(s->generator) : NULL;

	if (!g && !s->exec) {
		err_set(err, "%s: no runner for generator '%s'", s->path,
			s->generator ? s->generator : "(none)");
		return -EINVAL;
	}
	if (g && cfg->n_nics < 2) {
		err_set(err, "%s: generator '%s' needs two NICs, topology '%s' has %u", s->path,
			s->generator, cfg->topo->name, cfg->n_nics);
		return -EINVAL;
	}
	sbuf_addf(o, "# netlab scenario %s, VM %u (generated by netlab regress)\nset -u\n"
		     "O=/netlab/out\n", s->name, vm);
	sbuf_addf(o, "setup_error() { echo \"$*\" > $O/setup-error; exit %d; }\n",
		  SCNRUN_EXIT_SETUP);
	/* what the script measured about itself, on the agent's note pipe (NETLAB_NOTE_FD) */
	sbuf_adds(o, "note() { { echo \"$*\" >&3; } 2>/dev/null; }\n");
	/* A listening socket of the receiver, seen through its /proc/PID/net. */
	sbuf_adds(o, "wait_port() {\n\th=$(printf ':%04X ' $2); i=0\n"
		     "\twhile ! grep -q \"$h\" /proc/$3/net/$1 2>/dev/null; do\n"
		     "\t\ti=$((i+1)); [ $i -gt 400 ] && return 1\n"
		     "\t\tkill -0 $3 2>/dev/null || return 1; sleep 0.05\n\tdone\n}\n");
	script_snap(cfg, vm, o);
	script_nic_setup(s, cfg, vm, o);
	sbuf_adds(o, "snap before\n");
	if (s->trace)
		script_trace_start(s, cfg, vm, o);
	if (s->n_sections)
		script_sections(s, cfg, vm, o);
	else if (g)
		script_traffic(s, cfg, vm, g, o);
	else
		sbuf_adds(o, "S=0\nRC=0\n");
	scnrun_exec_script(s, cfg, vm, o);
	if (s->trace)
		script_trace_stop(o);
	sbuf_adds(o, "snap after\n");
	/*
	 * A generator that the path failed (TTOOL_EXIT_PATH: stalled, reset,
	 * unreachable) printed its result: the run completed, and the scenario
	 * fails on METRIC.stalled. Any other failure is the run's.
	 */
	sbuf_addf(o, "note traffic.status $S $RC\n"
		     "{ [ $S = 0 ] || [ $S = %d ]; } && { [ $RC = 0 ] || [ $RC = %d ]; } || exit %d\n",
		  TTOOL_EXIT_PATH, TTOOL_EXIT_PATH, SCNRUN_EXIT_TRAFFIC);
	return 0;
}

/* ---- [gdb] ------------------------------------------------------------- */

/* [gdb] vm, else the VM with a NIC gdb has helpers for (e1000e), else VM a. */
static unsigned int gdb_vm(const struct scenario *s, const struct vm_config *cfg)
{
	return s->gdb_vm >= 0 ? (unsigned int)s->gdb_vm : vm_gdb_default(cfg);
}

int scnrun_gdb_attach(const struct scenario *s, const struct vm_config *cfg, struct run_opts *o,
		      struct gdb_batch **g, char **err)
{
	unsigned int vm = gdb_vm(s, cfg);
	char *qmp = cfg->topo->n_vms > 1 ? xasprintf("%s/%s/qmp.sock", o->out, run_vm_name(vm))
					 : xasprintf("%s/qmp.sock", o->out);
	struct gdb_batch_opts bo = {
		.rundir = o->out, .qmp = qmp, .script = s->gdb_script,
		.kernel = vm && o->peer_kernel ? o->peer_kernel : o->kernel,
		.breaks = (const char *const *)s->gdb_breaks, .n_breaks = s->n_gdb_breaks,
		.timeout_s = s->gdb_timeout_s,
	};
	int ret;

	*g = NULL;
	if (!s->gdb) {
		free(qmp);
		return 0;
	}
	ret = gdb_batch_new(&bo, g, err);
	free(qmp);
	if (ret)
		return ret;
	o->debug.gdb_socket = gdb_batch_socket(*g);
	o->debug.gdb_vm = vm;
	o->debug.paused = true;
	o->on_spawned = gdb_batch_spawned;
	o->on_tick = gdb_batch_tick;
	o->ctx = *g;
	return 0;
}

void scnrun_gdb_finish(struct gdb_batch *g)
{
	gdb_batch_finish(g);
	gdb_batch_free(g);
}

int scnrun_gdb_metrics(const struct scenario *s, const char *rundir, struct metrics *m,
		       char **err)
{
	char *path = xasprintf("%s/gdb.log", rundir), *log = NULL, *save = NULL, *exit_s = NULL;
	double *lines = xzalloc((s->n_gdb_match + 1) * sizeof(*lines));
	int ret = file_read(path, &log, NULL);

	if (ret) {
		err_set(err, "%s: no gdb output '%s': %s", s->path, path, strerror(-ret));
		goto out;
	}
	for (char *l = strtok_r(log, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		for (size_t i = 0; i < s->n_gdb_match; i++)
			lines[i] += regexec(&s->gdb_match[i].re, l, 0, NULL, 0) == 0;
	for (size_t i = 0; i < s->n_gdb_match; i++) {
		char *name = xasprintf("gdb.lines_matching.%s", s->gdb_match[i].name);

		metrics_set(m, name, lines[i]);
		free(name);
	}
	free(path);
	path = xasprintf("%s/gdb.exit", rundir);
	ret = file_read(path, &exit_s, NULL);
	if (ret)
		err_set(err, "%s: no gdb exit status '%s': %s", s->path, path, strerror(-ret));
	else
		metrics_set(m, "gdb.exit", atof(exit_s));
out:
	free(exit_s);
	free(path);
	free(log);
	free(lines);
	return ret ? -EIO : 0;
}
