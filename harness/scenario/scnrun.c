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

#include "run/counters.h"
#include "run/pcapstat.h"
#include "run/run.h"
#include "scenario/scnrun.h"
#include "trace/drvring.h"
#include "trace/netrx.h"
#include "trace/pktpath.h"
#include "trace/tracedrops.h"
#include "trace/traceset.h"

/* Which end of a generator takes a scenario's [traffic] key. */
enum role {
	TX = 1,		/* sender / client */
	RX = 2,		/* receiver / server */
	BOTH = TX | RX,
	ADDR = 4,	/* chooses the address family, not an option */
};

struct gen {
	const char *name;
	const char *tx_role, *rx_role;	/* --send/--recv, --client/--server */
	const char *tx_out, *rx_out;	/* result files in /netlab/out */
	const char *proto_key;		/* key that switches tcp/udp, or NULL */
	const char *default_proto;
	unsigned int default_port;
	struct { const char *key; enum role role; } keys[16];
};

static const struct gen gens[] = {
	{ "udp-stream", "--send", "--recv", "send.json", "recv.json", NULL, "udp", 5201,
	  { { "rate", TX }, { "bitrate", TX }, { "size", TX }, { "size-max", TX }, { "seed", TX },
	    { "burst", TX },
	    { "burst-gap", TX }, { "count", TX }, { "rcvbuf", RX }, { "read-delay", RX },
	    { "port", BOTH }, { "dst-ipv6", ADDR } } },
	{ "tcp-stream", "--send", "--recv", "send.json", "recv.json", NULL, "tcp", 5201,
	  { { "size", BOTH }, { "port", BOTH }, { "cc", BOTH }, { "bidir", TX } } },
	{ "rr", "--client", "--server", "client.json", "server.json", "proto", "tcp", 5202,
	  { { "proto", BOTH }, { "req-size", TX }, { "resp-size", TX }, { "count", TX },
	    { "port", BOTH } } },
};

static const struct gen *gen_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(gens); i++)
		if (!strcmp(gens[i].name, name))
			return &gens[i];
	return NULL;
}

static enum role key_role(const struct gen *g, const char *key)
{
	for (size_t i = 0; i < ARRAY_SIZE(g->keys) && g->keys[i].key; i++)
		if (!strcmp(g->keys[i].key, key))
			return g->keys[i].role;
	return 0;
}

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

/*
 * The per-NIC counter sources, as one table for both sides: the guest
 * command that writes $d/FILE-<label> (%s = ifname, where used), and the
 * parser that turns it into metrics named PREFIX (%c = label). Only the
 * snmp files must parse; the others may be missing or say "not supported".
 */
typedef int (*snap_parse_fn)(const char *text, const char *prefix, counter_emit_fn emit,
			     void *ctx, char **err);

static const struct snap_source {
	const char *file;
	const char *cmd;
	bool with_stderr;		/* the tool's complaint is kept in the file */
	const char *prefix;
	snap_parse_fn parse;
	bool must_parse;
} snap_sources[] = {
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
	{ "tc", "/sbin/tc -s qdisc show dev %s", true, "qdisc.%c", counters_parse_tc_qdisc, false },
};

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
		for (size_t k = 0; k < ARRAY_SIZE(snap_sources); k++) {
			sbuf_addf(o, "\t%s", ns);
			sbuf_addf(o, snap_sources[k].cmd, n->ifname);
			sbuf_addf(o, " > $d/%s-%c%s\n", snap_sources[k].file, n->label,
				  snap_sources[k].with_stderr ? " 2>&1" : "");
		}
	}
	sbuf_adds(o, "}\n");
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
	}
}

/* Options of one end: the scenario's keys for that role. */
static void end_args(const struct scenario *s, const struct gen *g, enum role r, struct sbuf *o)
{
	for (size_t i = 0; i < s->n_traffic; i++) {
		const struct scn_kv *kv = &s->traffic[i];
		enum role kr = key_role(g, kv->key);

		if (!(kr & r) || (kr & ADDR))
			continue;
		if (!strcmp(kv->key, "bidir")) {
			if (is_true(kv->value))
				sbuf_adds(o, " --bidir");
			continue;
		}
		/* size = MIN..MAX: udp-stream's sizes drawn from the range. */
		if (!strcmp(kv->key, "size") && strstr(kv->value, "..")) {
			char *min = xasprintf("%.*s", (int)strcspn(kv->value, "."), kv->value);

			sbuf_adds(o, " --size ");
			sbuf_add_shell_word(o, min);
			sbuf_adds(o, " --size-max ");
			sbuf_add_shell_word(o, strstr(kv->value, "..") + 2);
			free(min);
			continue;
		}
		/* One word each, whatever it holds: values never reach the shell's syntax. */
		sbuf_addf(o, " --%s ", kv->key);
		sbuf_add_shell_word(o, kv->value);
	}
}

/* TCP port on which a receiver in another VM says it is ready. */
#define READY_PORT 7999

/* The receiving end, in the background, and the wait until it listens. */
static void script_receiver(const struct scenario *s, const struct vm_config *cfg,
			    const struct gen *g, struct sbuf *o)
{
	const struct vm_nic *rx = &cfg->nics[scn_rx_nic(s)];
	bool v6 = scn_traffic_true(s, "dst-ipv6");
	const char *proto = scn_traffic_value(s, g->proto_key ? g->proto_key : "") ?: g->default_proto;
	const char *pv = scn_traffic_value(s, "port");
	char dst[64], nsb[64], port[16];

	snprintf(port, sizeof(port), "%u", g->default_port);
	addr_of(v6 ? rx->ipv6 : rx->ipv4, dst, sizeof(dst));
	sbuf_addf(o, "%s%s %s --bind %s", ns_prefix(rx, nsb, sizeof(nsb)), g->name, g->rx_role,
		  dst);
	end_args(s, g, RX, o);
	if (strcmp(g->name, "tcp-stream"))
		sbuf_adds(o, " --idle-timeout 20");
	sbuf_addf(o, " > $O/%s 2> $O/%s.err &\nR=$!\n", g->rx_out, g->rx_out);
	sbuf_addf(o, "wait_port %s%s %s $R || { echo \"receiver did not bind\" >> $O/%s.err; "
		     "exit %d; }\n",
		  proto, v6 ? "6" : "", pv ? pv : port,
		  g->rx_out, SCNRUN_EXIT_TRAFFIC);
}

static void script_sender(const struct scenario *s, const struct vm_config *cfg,
			  const struct gen *g, struct sbuf *o)
{
	const struct vm_nic *tx = &cfg->nics[scn_tx_nic(s)], *rx = &cfg->nics[scn_rx_nic(s)];
	bool v6 = scn_traffic_true(s, "dst-ipv6");
	char dst[64], nsb[64];

	addr_of(v6 ? rx->ipv6 : rx->ipv4, dst, sizeof(dst));
	sbuf_addf(o, "%s%s %s --dst %s", ns_prefix(tx, nsb, sizeof(nsb)), g->name, g->tx_role,
		  dst);
	end_args(s, g, TX, o);
	if (!scn_traffic_value(s, "count"))
		sbuf_addf(o, " --duration %u", s->duration_s);
	sbuf_addf(o, " > $O/%s 2> $O/%s.err\nS=$?\n", g->tx_out, g->tx_out);
	/* A generator's usage error (exit 2) is the scenario's fault, not the run's. */
	sbuf_addf(o, "[ $S = 2 ] && setup_error \"[traffic]: $(head -n 2 $O/%s.err)\"\n", g->tx_out);
}

static void script_wait_receiver(const struct gen *g, struct sbuf *o)
{
	sbuf_addf(o, "wait $R\nRC=$?\n[ $RC = 2 ] && setup_error \"[traffic]: $(head -n 2 $O/%s.err)\"\n",
		  g->rx_out);
}

/* Both ends in one VM, or this VM's end of a two-VM pair. */
static void script_traffic(const struct scenario *s, const struct vm_config *cfg, unsigned int vm,
			   const struct gen *g, struct sbuf *o)
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
 * in tracing/printk_formats. drvring reads lines where a driver has them.
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
		for (int d = 0; traceset_drivers[d]; d++) {
			bool listed = false;

			size_t n = strlen(traceset_drivers[d]);

			for (const char *l = text; l && !listed; l = strchr(l, '\n'), l = l ? l + 1 : l)
				listed = !strncmp(l, traceset_drivers[d], n) && strchr(" \n", l[n]);
			if (listed) {
				patched++;
			} else {
				char *name = xasprintf(TRACESET_DRVPROBE "_%s", traceset_drivers[d]);

				traceset_add_names(ts, name, off);
				free(name);
			}
		}
		if (!patched)
			traceset_drop_names(ts, "netlab:drv");
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
		line = argv_to_shell(&a);
		sbuf_addf(o, "%s > $O/trace-offsets.note\n", line);
		free(line);
		argv_release(&a);
	}
	free(note);
	traceset_build(s->trace_events, s->trace_add, s->trace_drop, s->trace_probe_names,
		       s->trace_probe_defs, s->n_trace_probes, &off, &ts);
	/* Sized for the scenario's set: the fallback stands in for netlab:drv. */
	kb = s->trace_buffer_kb ? s->trace_buffer_kb : traceset_buffer_kb(&ts, cfg->mem_mb, cfg->smp);
	trace_drv_fallback(kernel, &ts, &off);
	traceset_script_start(&ts, kb, o);
	traceset_release(&ts);
}

static void script_trace_stop(struct sbuf *o)
{
	/* trace-cmd exits 0 after SIGINT once the file is complete. */
	sbuf_adds(o, "kill -INT $T; wait $T; echo $? > $O/trace-cmd.status\n");
}

int scnrun_script(const struct scenario *s, const struct vm_config *cfg, unsigned int vm,
		  struct sbuf *o, char **err)
{
	const struct gen *g = gen_find(s->generator);

	if (!g) {
		err_set(err, "%s: no runner for generator '%s'", s->path, s->generator);
		return -EINVAL;
	}
	if (cfg->n_nics < 2) {
		err_set(err, "%s: generator '%s' needs two NICs, topology '%s' has %u", s->path,
			s->generator, cfg->topo->name, cfg->n_nics);
		return -EINVAL;
	}
	sbuf_addf(o, "# netlab scenario %s, VM %u (generated by netlab regress)\nset -u\n"
		     "O=/netlab/out\n", s->name, vm);
	sbuf_addf(o, "setup_error() { echo \"$*\" > $O/setup-error; exit %d; }\n",
		  SCNRUN_EXIT_SETUP);
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
	script_traffic(s, cfg, vm, g, o);
	if (s->trace)
		script_trace_stop(o);
	sbuf_adds(o, "snap after\n");
	sbuf_addf(o, "[ $S = 0 ] && [ $RC = 0 ] || exit %d\n", SCNRUN_EXIT_TRAFFIC);
	return 0;
}

/* ---- [gdb] ------------------------------------------------------------- */

/* [gdb] vm, else the VM with an e1000e NIC, else VM a. */
static unsigned int gdb_vm(const struct scenario *s, const struct vm_config *cfg)
{
	if (s->gdb_vm >= 0)
		return (unsigned int)s->gdb_vm;
	for (unsigned int i = 0; i < cfg->n_nics; i++)
		if (!strcmp(cfg->nics[i].model->name, "e1000e"))
			return cfg->nics[i].vm;
	return 0;
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

/* ---- collection ------------------------------------------------------- */

struct collect {
	const struct scenario *s;
	const struct vm_config *cfg;
	char *files[VM_MAX_VMS];	/* each VM's files/ (what it left in /netlab/out) */
	struct metrics *m;
	char **err;
};

/* The files of the VM of the sender (role 0) or of the receiver (role 1). */
static const char *files_of(const struct collect *c, unsigned int role)
{
	unsigned int nic = role ? scn_rx_nic(c->s) : scn_tx_nic(c->s);

	return c->files[c->cfg->nics[nic].vm];
}

/* The files of the VM that holds NIC index `nic`. */
static const char *files_of_nic(const struct collect *c, unsigned int nic)
{
	return c->files[c->cfg->nics[nic].vm];
}

/* A generator result: the sender's files are with NIC A, the receiver's with B. */
static int read_json(struct collect *c, const char *name, struct json_object **out)
{
	bool rx = !strcmp(name, "recv.json") || !strcmp(name, "server.json");
	char *path = xasprintf("%s/%s", files_of(c, rx), name);

	*out = json_object_from_file(path);
	if (!*out)
		err_set(c->err, "'%s': missing or not JSON (%s)", path,
			json_util_get_last_err() ?: "no detail");
	free(path);
	return *out ? 0 : -EINVAL;
}

static double jnum(struct json_object *o, const char *dotted)
{
	char *copy = xstrdup(dotted), *save = NULL;
	struct json_object *v = o;

	for (char *k = strtok_r(copy, ".", &save); k && v; k = strtok_r(NULL, ".", &save))
		if (!json_object_object_get_ex(v, k, &v))
			v = NULL;
	free(copy);
	if (!v || !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
		return NAN;
	return json_object_get_double(v);
}

static void set_if(struct metrics *m, const char *name, double v)
{
	if (!isnan(v))
		metrics_set(m, name, v);
}

static void copy_latency(struct metrics *m, const char *prefix, struct json_object *o)
{
	static const char *const q[] = { "p50", "p90", "p99", "p99_9", "max", "min", "mean" };

	for (size_t i = 0; i < ARRAY_SIZE(q); i++) {
		char src[64], dst[64];

		snprintf(src, sizeof(src), "latency_us.%s", q[i]);
		snprintf(dst, sizeof(dst), "%s.latency_us.%s", prefix, q[i]);
		set_if(m, dst, jnum(o, src));
	}
}

static int collect_udp(struct collect *c)
{
	static const char *const rx_keys[] = { "received", "unique", "reordered", "duplicated",
					       "late", "bytes" };
	struct json_object *tx, *rx;
	char name[64];

	if (read_json(c, "send.json", &tx) || read_json(c, "recv.json", &rx))
		return -EINVAL;
	set_if(c->m, "udp.sent", jnum(tx, "sent"));
	set_if(c->m, "udp.send_errors", jnum(tx, "send_errors_total"));
	set_if(c->m, "udp.pps", jnum(tx, "achieved_pps"));
	set_if(c->m, "udp.bps", jnum(tx, "achieved_bps"));
	for (size_t i = 0; i < ARRAY_SIZE(rx_keys); i++) {
		snprintf(name, sizeof(name), "udp.%s", rx_keys[i]);
		set_if(c->m, name, jnum(rx, rx_keys[i]));
	}
	/* Lost against what the sender says it sent, not the END message,
	 * which itself may be lost. */
	metrics_set(c->m, "udp.lost", jnum(tx, "sent") - jnum(rx, "unique"));
	/* One-way latency needs both ends on one clock: not across two VMs. */
	if (c->cfg->nics[0].vm == c->cfg->nics[1].vm)
		copy_latency(c->m, "udp", rx);
	set_if(c->m, "loss.app_send_errors", jnum(tx, "send_errors.ENOBUFS"));
	set_if(c->m, "loss.end_copies_received", jnum(rx, "end_copies_received"));
	set_if(c->m, "loss.end_copies_sent", jnum(tx, "end_copies_sent"));
	json_object_put(tx);
	json_object_put(rx);
	return 0;
}

static int collect_tcp(struct collect *c)
{
	struct json_object *tx, *rx;

	if (read_json(c, "send.json", &tx) || read_json(c, "recv.json", &rx))
		return -EINVAL;
	/* Goodput as the receiver measured it; the rest from the sender's TCP_INFO. */
	set_if(c->m, "tcp.goodput_bps", jnum(rx, "rx.goodput_bps"));
	set_if(c->m, "tcp.bytes", jnum(rx, "rx.bytes"));
	set_if(c->m, "tcp.retransmits", jnum(tx, "tx.tcp_info.total_retrans"));
	set_if(c->m, "tcp.cwnd", jnum(tx, "tx.tcp_info.snd_cwnd"));
	set_if(c->m, "tcp.cwnd_min", jnum(tx, "tx.tcp_info.cwnd_min"));
	set_if(c->m, "tcp.cwnd_max", jnum(tx, "tx.tcp_info.cwnd_max"));
	set_if(c->m, "tcp.rtt_us", jnum(tx, "tx.tcp_info.rtt_us"));
	set_if(c->m, "tcp.rtt_min_us", jnum(tx, "tx.tcp_info.rtt_min_us"));
	set_if(c->m, "tcp.rtt_max_us", jnum(tx, "tx.tcp_info.rtt_max_us"));
	json_object_put(tx);
	json_object_put(rx);
	return 0;
}

static int collect_rr(struct collect *c)
{
	struct json_object *cl;

	if (read_json(c, "client.json", &cl))
		return -EINVAL;
	set_if(c->m, "rr.transactions", jnum(cl, "transactions"));
	set_if(c->m, "rr.tps", jnum(cl, "transactions_per_s"));
	set_if(c->m, "rr.lost", jnum(cl, "lost"));
	copy_latency(c->m, "rr", cl);
	json_object_put(cl);
	return 0;
}

/* Parse one snapshot (before/ or after/) of every VM into `m`. */
static int read_snap(struct collect *c, const char *which, struct metrics *m)
{
	/* softnet_stat: the receiving VM's. */
	char *path = xasprintf("%s/%s/softnet_stat", files_of(c, 1), which), *text;
	int ret = 0;

	if (file_read(path, &text, NULL) == 0) {
		ret = counters_parse_softnet(text, metrics_emit, m, c->err);
		free(text);
	} else {
		err_set(c->err, "counter snapshot '%s' is missing", path);
		ret = -EINVAL;
	}
	free(path);
	for (unsigned int i = 0; !ret && i < c->cfg->n_nics; i++) {
		char l = c->cfg->nics[i].label;

		for (size_t k = 0; !ret && k < ARRAY_SIZE(snap_sources); k++) {
			const struct snap_source *src = &snap_sources[k];
			char prefix[32];

			path = xasprintf("%s/%s/%s-%c", files_of_nic(c, i), which, src->file, l);
			if (file_read(path, &text, NULL)) {
				free(path);
				continue;
			}
			snprintf(prefix, sizeof(prefix), src->prefix, l);
			ret = src->parse(text, prefix, metrics_emit, m, src->must_parse ? c->err : NULL);
			if (!src->must_parse)
				ret = 0;
			else if (ret)
				err_set(c->err, "'%s': parse error", path);
			free(text);
			free(path);
		}
	}
	return ret;
}

/* Counters as deltas over the traffic; ring sizes as they were after. */
static int collect_counters(struct collect *c)
{
	struct metrics *before = metrics_new(), *after = metrics_new();
	int ret = read_snap(c, "before", before);

	if (!ret)
		ret = read_snap(c, "after", after);
	for (size_t i = 0; !ret && i < metrics_count(after); i++) {
		const char *name;
		double a, b;

		metrics_at(after, i, &name, &a);
		if (!strncmp(name, "ring.", 5))
			metrics_set(c->m, name, a);
		else if (metrics_get(before, name, &b))
			metrics_set(c->m, name, a - b);
	}
	metrics_free(before);
	metrics_free(after);
	return ret;
}

/* BPF for netlab's UDP datagrams of a type (1 data, 2 END) to `port`. */
static char *udp_filter(bool v6, unsigned int port, int type)
{
	if (v6)
		return xasprintf("ip6 and udp dst port %u and ip6[48:4] = 0x4e4c5431 and ip6[53] = %d",
				 port, type);
	return xasprintf("udp dst port %u and udp[8:4] = 0x4e4c5431 and udp[13] = %d", port, type);
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

/* Whether the generator's packets are TCP (tcp-stream, rr with proto tcp). */
static bool gen_is_tcp(const struct scenario *s)
{
	const char *proto = scn_traffic_value(s, "proto");

	if (!strcmp(s->generator, "tcp-stream"))
		return true;
	return !strcmp(s->generator, "rr") && (!proto || !strcmp(proto, "tcp"));
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

/*
 * What NIC `l`'s own counters say it (or its driver) dropped while receiving
 * (ethtool -S deltas: missed, drops, length/CRC/frame errors, allocation
 * failures; nicrx.L.counted), and the loss no counter explains: all of it
 * when none moved, else what exceeds them (nicrx.L.silent,
 * loss.silent_in_driver).
 */
static void nic_rx_counted(struct collect *c, char l, double lost)
{
	char prefix[16], name[64];
	double counted = 0, silent;

	snprintf(prefix, sizeof(prefix), "nic.%c.", l);
	for (size_t i = 0; i < metrics_count(c->m); i++) {
		const char *mn;
		double v;

		metrics_at(c->m, i, &mn, &v);
		if (!strncmp(mn, prefix, strlen(prefix)) && v > 0 &&
		    is_rx_drop_counter(mn + strlen(prefix)))
			counted += v;
	}
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
 * Tcp.InSegs. With a TCP generator there it cannot be told apart: not measured.
 */
/* The capture filter of nicrx.<L>.wire: IP frames to NIC n's MAC, no readiness handshake. */
static char *nic_rx_filter(const struct vm_nic *n, bool v6)
{
	return xasprintf("ether dst %s and %s and not (tcp port %d)", n->mac,
			 v6 ? "ip6 and not ip6 multicast" : "ip", READY_PORT);
}

/* nicrx.<L>.* of NIC i, whose capture holds `wire` frames nic_rx_filter() matches. */
static void collect_nic_rx(struct collect *c, unsigned int i, double wire)
{
	const struct vm_nic *n = &c->cfg->nics[i];
	bool v6 = scn_traffic_true(c->s, "dst-ipv6");
	bool pair = c->cfg->topo->n_vms > 1;
	char name[64];
	double in;

	if (pair && gen_is_tcp(c->s))
		return;
	in = nic_ip_in(c->m, n->label, v6);
	if (pair && !v6)
		in -= mgetl(c->m, "snmp.%c.Tcp.InSegs", n->label);
	snprintf(name, sizeof(name), "nicrx.%c.wire", n->label);
	metrics_set(c->m, name, wire);
	snprintf(name, sizeof(name), "nicrx.%c.ip", n->label);
	metrics_set(c->m, name, in);
	snprintf(name, sizeof(name), "nicrx.%c.lost", n->label);
	metrics_set(c->m, name, wire - in);
	metrics_set(c->m, "loss.lost_in_driver", mget(c->m, "loss.lost_in_driver") + wire - in);
	nic_rx_counted(c, n->label, wire - in);
}

/*
 * Each link's capture, read once: its frames, the IP frames to its NIC
 * (nicrx), and for UDP the data datagrams and END copies towards the port.
 */
static int collect_pcaps(struct collect *c, const char *rundir)
{
	const char *pv = scn_traffic_value(c->s, "port");
	bool v6 = scn_traffic_true(c->s, "dst-ipv6");
	bool udp = !strcmp(c->s->generator, "udp-stream");
	unsigned int port = pv ? (unsigned int)atoi(pv) : 5201;
	unsigned int rx = scn_rx_nic(c->s);

	metrics_set(c->m, "loss.lost_in_driver", 0);
	metrics_set(c->m, "loss.silent_in_driver", 0);
	for (unsigned int i = 0; i < c->cfg->n_nics && i < 2; i++) {
		char l = c->cfg->nics[i].label, name[64];
		char *path = xasprintf("%s/nic-%c.pcap", rundir, l);
		char *filters[3] = { nic_rx_filter(&c->cfg->nics[i], v6),
				     udp ? udp_filter(v6, port, 1) : NULL,
				     udp ? udp_filter(v6, port, 2) : NULL };
		struct pcap_stats st[3];
		int ret = pcap_stats_read_many(path, (const char *const *)filters, udp ? 3 : 1, st,
					       c->err);

		free(path);
		for (int k = 0; k < 3; k++)
			free(filters[k]);
		if (ret)
			return ret;
		snprintf(name, sizeof(name), "pcap.%c.packets", l);
		metrics_set(c->m, name, (double)st[0].packets);
		snprintf(name, sizeof(name), "pcap.%c.bytes", l);
		metrics_set(c->m, name, (double)st[0].bytes);
		if (udp) {
			metrics_set(c->m, i == rx ? "loss.wire_rx" : "loss.wire_tx",
				    (double)st[1].matched);
			metrics_set(c->m, i == rx ? "loss.end_copies_wire_rx" : "loss.end_copies_wire_tx",
				    (double)st[2].matched);
		}
		collect_nic_rx(c, i, (double)st[0].matched);
	}
	return 0;
}

/*
 * Data datagrams the receiver's NIC/driver lost: its IP frames lost there
 * (nicrx.<L>.lost), one datagram each; when the datagrams were fragmented
 * (Ip.ReasmReqds moved), those never reassembled, at most one per frame lost.
 */
static double udp_driver_drops(struct collect *c, char b, double wire_rx)
{
	double lost = mgetl(c->m, "nicrx.%c.lost", b), left;
	bool v6 = scn_traffic_true(c->s, "dst-ipv6");

	if (lost <= 0)
		return 0;
	if (mgetl(c->m, v6 ? "snmp6.%c.Ip6ReasmReqds" : "snmp.%c.Ip.ReasmReqds", b) <= 0)
		return lost;
	left = wire_rx - mgetl(c->m, v6 ? "snmp6.%c.Ip6ReasmOKs" : "snmp.%c.Ip.ReasmOKs", b);
	return left < 0 ? 0 : left < lost ? left : lost;
}

/*
 * UDP data datagrams, layer by layer, sender on A's side, receiver on B's:
 *   app_sent -(tx stack: qdisc drops not reported to the app, minus END
 *   copies; datagrams discarded while the neighbour was unresolved)-> wire_tx -(between the NICs)-> wire_rx -(rx stack: Udp
 *   InErrors/NoPorts, IP InDiscards, minus END copies)-> app_received.
 * The counted drops and the differences must agree: `unaccounted` is what
 * no counter explains. (A qdisc that drops other frames too, such as netem
 * dropping ARP, leaves those in the count: they show as unaccounted < 0.)
 */
static void udp_loss(struct collect *c)
{
	struct metrics *m = c->m;
	char a = c->cfg->nics[scn_tx_nic(c->s)].label, b = c->cfg->nics[scn_rx_nic(c->s)].label;
	double sent = mget(m, "udp.sent"), recvd = mget(m, "udp.received");
	double wtx = mget(m, "loss.wire_tx"), wrx = mget(m, "loss.wire_rx");
	bool v6 = scn_traffic_true(c->s, "dst-ipv6");
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

	rx_drops -= end_lost;

	metrics_set(m, "loss.app_sent", sent);
	metrics_set(m, "loss.tx_stack_drops", tx_drops);
	metrics_set(m, "loss.rx_stack_drops", rx_drops);
	metrics_set(m, "loss.app_received", recvd);
	metrics_set(m, "loss.lost_before_wire", sent - wtx);
	metrics_set(m, "loss.lost_on_wire", wtx - wrx);
	metrics_set(m, "loss.driver_drops", drv);
	metrics_set(m, "loss.stack_in", wrx - drv);
	metrics_set(m, "loss.lost_in_stack", wrx - drv - recvd);
	metrics_set(m, "loss.unaccounted",
		    (sent - recvd) - (tx_drops + (wtx - wrx) + drv + rx_drops));
}

/*
 * acpi.* and irq.* from RUN_DIR/acpi.json, written by netlab run when the
 * scenario gives ACPI tables: how many the kernel took, whether the routing
 * the tables expect held, and each interrupt line's handlers as
 * irq.<handler>.line (the IRQ number) and irq.<handler>.shared (how many
 * other handlers share it).
 */
static void collect_acpi(struct collect *c, const char *rundir)
{
	char *path = xasprintf("%s/acpi.json", rundir);
	struct json_object *j = access(path, R_OK) ? NULL : json_object_from_file(path), *v, *a;

	free(path);
	if (!j)
		return;
	if (json_object_object_get_ex(j, "given", &v))
		metrics_set(c->m, "acpi.given", json_object_get_double(v));
	if (json_object_object_get_ex(j, "taken", &v))
		metrics_set(c->m, "acpi.taken", json_object_get_double(v));
	if (json_object_object_get_ex(j, "expect", &v) && json_object_is_type(v, json_type_array)) {
		bool ok = true;

		for (size_t i = 0; i < json_object_array_length(v); i++)
			if (!json_object_object_get_ex(json_object_array_get_idx(v, i), "ok", &a) ||
			    !json_object_get_boolean(a))
				ok = false;
		metrics_set(c->m, "acpi.expect_ok", ok);
	}
	if (json_object_object_get_ex(j, "interrupts", &v) && json_object_is_type(v, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			struct json_object *line = json_object_array_get_idx(v, i), *irq, *acts;
			size_t n;

			if (!json_object_object_get_ex(line, "irq", &irq) ||
			    !json_object_object_get_ex(line, "actions", &acts) ||
			    !json_object_is_type(acts, json_type_array))
				continue;
			n = json_object_array_length(acts);
			for (size_t k = 0; k < n; k++) {
				const char *h = json_object_get_string(json_object_array_get_idx(acts, k));
				char name[96];

				/* Handler names become one metric name component. */
				if (!h || !*h || strpbrk(h, ". \t"))
					continue;
				snprintf(name, sizeof(name), "irq.%s.line", h);
				metrics_set(c->m, name, json_object_get_double(irq));
				snprintf(name, sizeof(name), "irq.%s.shared", h);
				metrics_set(c->m, name, (double)(n - 1));
			}
		}
	}
	json_object_put(j);
}

/* trace-cmd record in VM @vm finished cleanly (its file is complete). */
static int trace_recorded(struct collect *c, unsigned int vm)
{
	char *path = xasprintf("%s/trace-cmd.status", c->files[vm]), *text = NULL;
	int ret = 0;

	if (file_read(path, &text, NULL) == 0 && strcmp(text, "0\n")) {
		char *log = xasprintf("%s/trace-cmd.log", c->files[vm]), *l = NULL;

		file_read(log, &l, NULL);
		err_set(c->err,
			"%s: trace-cmd record ended with status %.*s in the guest (see %s): the trace is incomplete\n"
			"hint: a long or busy trace can fill the guest's memory, where it is written first: raise [scenario] mem, shorten the duration, or trace fewer events",
			c->s->path, (int)strcspn(text, "\n"), text, log);
		free(l);
		free(log);
		ret = -EIO;
	}
	free(text);
	free(path);
	return ret;
}

/* drops.* from each VM's trace.dat, summed over the VMs. */
static int collect_drops(struct collect *c)
{
	double total = 0, lost = 0;

	for (unsigned int vm = 0; vm < c->cfg->topo->n_vms; vm++) {
		if (trace_recorded(c, vm))
			return -EIO;
		char *path = xasprintf("%s/trace.dat", c->files[vm]);
		struct tracedrops *td = NULL;
		int ret = tracedrops_read(path, NULL, &td, c->err);

		free(path);
		if (ret == -ENODATA) {
			/* A scenario that dropped skb:kfree_skb from its set. */
			free(*c->err);
			*c->err = NULL;
			return 0;
		}
		if (ret)
			return ret;
		total += (double)td->total;
		lost += (double)td->lost;
		for (size_t i = 0; i < td->n_by_reason; i++) {
			char name[128];
			double v = 0;

			snprintf(name, sizeof(name), "drops.reason.%s", td->by_reason[i].name);
			metrics_get(c->m, name, &v);
			metrics_set(c->m, name, v + (double)td->by_reason[i].count);
		}
		tracedrops_free(td);
	}
	metrics_set(c->m, "drops.total", total);
	metrics_set(c->m, "drops.lost_events", lost);
	return 0;
}

/*
 * Merge one VM's trace metrics into the run's: counts add up over the VMs;
 * for a latency percentile, the worse VM's value stands (in a pair, each
 * direction's stages come from one VM anyway).
 */
static void merge_vm_metrics(struct metrics *into, const struct metrics *vm)
{
	for (size_t i = 0; i < metrics_count(vm); i++) {
		const char *name, *last;
		double v, old;

		metrics_at(vm, i, &name, &v);
		if (!metrics_get(into, name, &old)) {
			metrics_set(into, name, v);
			continue;
		}
		last = strrchr(name, '.');
		last = last ? last + 1 : name;
		if (!strncmp(last, "p", 1) && strstr(last, "_us"))
			metrics_set(into, name, v > old ? v : old);
		else if (!strcmp(last, "max_us"))
			metrics_set(into, name, v > old ? v : old);
		else if (strstr(last, "mean") || strstr(last, "pct"))
			metrics_set(into, name, (v + old) / 2);
		else
			metrics_set(into, name, v + old);
	}
}

/* latency.*, flows.* (pktpath) and netrx.*, tx.* (netrx) from each VM's trace. */
static int collect_trace_path(struct collect *c)
{
	for (unsigned int vm = 0; vm < c->cfg->topo->n_vms; vm++) {
		char *path = xasprintf("%s/trace.dat", c->files[vm]);
		struct metrics *m = metrics_new();
		struct pktpath *pp = NULL;
		struct netrx *nr = NULL;
		int ret = pktpath_read(path, NULL, &pp, c->err);

		if (!ret) {
			pktpath_metrics(pp, m);
			pktpath_free(pp);
			ret = netrx_read(path, NULL, &nr, c->err);
		}
		if (!ret) {
			struct drvring_opts o = { .counters = c->m };
			struct drvring *dr = NULL;
			int r2;

			netrx_metrics(nr, m);
			netrx_free(nr);
			/* The driver patches' lines, when the kernel and the set have them. */
			r2 = drvring_read(path, &o, &dr, c->err);
			if (!r2) {
				drvring_metrics(dr, m);
				drvring_free(dr);
			} else if (r2 == -ENODATA) {
				free(*c->err);
				*c->err = NULL;
			} else {
				ret = r2;
			}
		}
		free(path);
		if (ret == -ENODATA) {
			/* The scenario's set does not follow packets: no such metrics. */
			free(*c->err);
			*c->err = NULL;
			ret = 0;
		}
		if (!ret)
			merge_vm_metrics(c->m, m);
		metrics_free(m);
		if (ret)
			return ret;
	}
	return 0;
}

int scnrun_collect(const struct scenario *s, const struct vm_config *cfg, const char *rundir,
		   struct metrics *m, char **err)
{
	struct collect c = { .s = s, .cfg = cfg, .m = m, .err = err };
	int ret;

	for (unsigned int i = 0; i < VM_MAX_VMS; i++)
		c.files[i] = cfg->topo->n_vms > 1 ? xasprintf("%s/%s/files", rundir, run_vm_name(i))
						  : xasprintf("%s/files", rundir);

	if (!strcmp(s->generator, "udp-stream"))
		ret = collect_udp(&c);
	else if (!strcmp(s->generator, "tcp-stream"))
		ret = collect_tcp(&c);
	else
		ret = collect_rr(&c);
	if (!ret)
		ret = collect_counters(&c);
	if (!ret)
		ret = collect_pcaps(&c, rundir);
	if (!ret)
		collect_acpi(&c, rundir);
	if (!ret && s->trace)
		ret = collect_drops(&c);
	if (!ret && s->trace)
		ret = collect_trace_path(&c);
	if (!ret && !strcmp(s->generator, "udp-stream") && cfg->n_nics >= 2)
		udp_loss(&c);
	if (!ret && s->gdb)
		ret = scnrun_gdb_metrics(s, rundir, m, err);
	for (unsigned int i = 0; i < VM_MAX_VMS; i++)
		free(c.files[i]);
	return ret;
}
