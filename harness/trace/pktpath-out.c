// SPDX-License-Identifier: GPL-2.0
/*
 * pktpath output: per-packet and snoop lines, the text tables, the same
 * content as JSON, and the metrics (see pktpath.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "hist.h"
#include "lib/metrics.h"
#include "trace/pktpath.h"
#include "lib/util.h"
#include "trace/hist-json.h"

#define IPPROTO_TCP_ 6
#define IPPROTO_UDP_ 17
#define IP_MF 0x2000
#define IP_OFFSET 0x1fff

static bool l4_ports(uint8_t proto)
{
	return proto == IPPROTO_TCP_ || proto == IPPROTO_UDP_;
}

/* ---- output ---------------------------------------------------------------------- */

double pktpath_stage_us(const struct pktpath_stats *s, int stage, double p)
{
	if (stage < 0 || stage >= PKTPATH_MAX_STAGES || !s->stage[stage] || !s->stage[stage]->count)
		return -1;
	return (double)hist_percentile(s->stage[stage], p) / 1000.0;
}

static const char *task_comm(const struct pktpath_task *t)
{
	return t && t->comm ? t->comm : "?";
}

int pktpath_packet_line(const struct pktpath_packet *p, char *buf, size_t n)
{
	/* The seed script's stages, in path order: the finer drv_net/net_ip are in the tables. */
	static const int rx[] = { PKTPATH_RX_DRV_IP, PKTPATH_RX_IP_TCP, PKTPATH_RX_IP_UDP,
				  PKTPATH_RX_TCP_APP, PKTPATH_RX_UDP_APP };
	static const int tx[] = { PKTPATH_TX_APP_IP, PKTPATH_TX_IP_QDISC, PKTPATH_TX_QDISC,
				  PKTPATH_TX_DEV, PKTPATH_TX_DONE };
	const int *v = p->dir == PKTPATH_RX ? rx : tx;
	size_t nv = p->dir == PKTPATH_RX ? ARRAY_SIZE(rx) : ARRAY_SIZE(tx);
	struct sbuf b;
	char pid[16];
	int ret;

	sbuf_init(&b);
	sbuf_adds(&b, p->dir == PKTPATH_RX ? "|I| " : "|O| ");
	for (size_t i = 0, k = 0; i < nv; i++) {
		char name[16];

		if (p->stage_ns[v[i]] < 0)
			continue;
		snprintf(name, sizeof(name), "%s", pktpath_stage_name(p->dir, v[i]));
		for (char *c = name; *c; c++)
			*c = *c == '_' ? '-' : *c;
		sbuf_addf(&b, "%s%s: %lld us", k++ ? ", " : "", name,
			  (long long)((p->stage_ns[v[i]] + 500) / 1000));
	}
	snprintf(pid, sizeof(pid), "%d", p->task ? p->task->pid : 0);
	sbuf_addf(&b, " | Proc %s, PID %s", task_comm(p->task), p->task ? pid : "?");
	if (p->outcome != PKTPATH_FOLLOWED)
		sbuf_addf(&b, " | %s", pktpath_outcome_name(p->outcome));
	ret = snprintf(buf, n, "%s", b.s);
	sbuf_release(&b);
	return ret;
}

static const char *proto_name(uint8_t proto)
{
	return proto == IPPROTO_TCP_   ? "tcp"
	       : proto == IPPROTO_UDP_ ? "udp"
	       : proto == 1	       ? "icmp"
				       : NULL;
}

/* "198.18.0.1:5201", ":?" for unknown ports, "~" after guessed ones. */
static void endpoint(char *buf, size_t n, uint32_t addr, uint16_t port,
		     const struct pktpath_tuple *t, bool guessed)
{
	char a[16];

	if (t->ports)
		snprintf(buf, n, "%s:%u%s", pktpath_addr_str(addr, a), port, guessed ? "~" : "");
	else
		snprintf(buf, n, "%s%s", pktpath_addr_str(addr, a), l4_ports(t->proto) ? ":?" : "");
}

int pktpath_snoop_line(const struct pktpath_packet *p, char *buf, size_t n)
{
	char src[32], dst[32], flags[8], pr[8];
	const char *pn = proto_name(p->tuple.proto);

	endpoint(src, sizeof(src), p->tuple.saddr, p->tuple.sport, &p->tuple, p->tuple_guessed);
	endpoint(dst, sizeof(dst), p->tuple.daddr, p->tuple.dport, &p->tuple, p->tuple_guessed);
	if (!pn) {
		snprintf(pr, sizeof(pr), "%u", p->tuple.proto);
		pn = pr;
	}
	return snprintf(buf, n, "%11.6f %s %6d %-15.15s %21s -> %-21s %-4s %5u %s%s",
			(double)p->rel / 1e9, p->dir == PKTPATH_RX ? "RX" : "TX",
			p->task ? p->task->pid : -1, task_comm(p->task), src, dst, pn, p->ip_len,
			pktpath_tcpflags_str(p->tcpflags, flags),
			p->frag & (IP_MF | IP_OFFSET) ? " frag" : "");
}

/* -- text -- */

static void print_us(FILE *f, double us)
{
	if (us < 0)
		fprintf(f, " %9s", "-");
	else
		fprintf(f, " %9.1f", us);
}

static void print_stages(FILE *f, const struct pktpath_stats *s, enum pktpath_dir dir,
			 const char *indent)
{
	fprintf(f, "%s%-12s %8s %9s %9s %9s %9s  (us)\n", indent, "stage", "count", "p50", "p90",
		"p99", "max");
	for (int i = 0; i < pktpath_stages(dir); i++) {
		if (!s->stage[i])
			continue;
		fprintf(f, "%s%-12s %8llu", indent, pktpath_stage_name(dir, i),
			(unsigned long long)s->stage[i]->count);
		print_us(f, pktpath_stage_us(s, i, 50));
		print_us(f, pktpath_stage_us(s, i, 90));
		print_us(f, pktpath_stage_us(s, i, 99));
		print_us(f, pktpath_stage_us(s, i, 100));
		fputc('\n', f);
	}
}

/* A device name for the terminal (it comes from the guest): other than printable ASCII as '?'. */
static const char *dev_shown(const char *name, char *buf, size_t n)
{
	size_t i;

	for (i = 0; name[i] && i + 1 < n; i++)
		buf[i] = name[i] > ' ' && name[i] < 0x7f ? name[i] : '?';
	buf[i] = '\0';
	return buf;
}

#define DEVS_PER_TABLE 2 /* side by side: 86 columns */

/* The devices' columns of one stage row: count, p50, p90, p99 (us), or "-". */
static void print_dev_row(FILE *f, const struct pktpath_dev *const *v, size_t n,
			  enum pktpath_dir dir, int stage)
{
	for (size_t j = 0; j < n; j++) {
		const struct pktpath_stats *s = &v[j]->dir[dir];

		fputs(j ? "  " : "", f);
		if (!s->stage[stage]) {
			fprintf(f, " %7s %8s %8s %8s", "-", "-", "-", "-");
			continue;
		}
		fprintf(f, " %7llu %8.1f %8.1f %8.1f", (unsigned long long)s->stage[stage]->count,
			pktpath_stage_us(s, stage, 50), pktpath_stage_us(s, stage, 90),
			pktpath_stage_us(s, stage, 99));
	}
}

/*
 * The stages of @dir per device, side by side (DEVS_PER_TABLE a table), so
 * that one NIC's stage is not read through the other's; one line when a
 * single device has all of the direction's packets.
 */
static void print_devs_of(FILE *f, const struct pktpath *p, enum pktpath_dir dir,
			  const struct pktpath_dev *devs, size_t n_devs, const char *title)
{
	const struct pktpath_dev *v[PKTPATH_MAX_DEVS];
	size_t n = 0;
	char name[24];

	for (size_t i = 0; i < n_devs && n < ARRAY_SIZE(v); i++)
		if (devs[i].dir[dir].packets)
			v[n++] = &devs[i];
	if (devs == p->devs && n == 1 && v[0]->dir[dir].packets == p->dir[dir].packets) {
		fprintf(f, "  by NIC: all on %s\n", dev_shown(v[0]->name, name, sizeof(name)));
		return;
	}
	for (size_t g = 0; g < n; g += DEVS_PER_TABLE) {
		size_t m = n - g < DEVS_PER_TABLE ? n - g : DEVS_PER_TABLE;

		fprintf(f, "  %-12s", g ? "" : title);
		for (size_t j = 0; j < m; j++) {
			char head[48];

			snprintf(head, sizeof(head), "%s: %llu packets",
				 dev_shown(v[g + j]->name, name, sizeof(name)),
				 (unsigned long long)v[g + j]->dir[dir].packets);
			fprintf(f, "%s %-*s", j ? "  " : "", j + 1 < m ? 34 : 0, head);
		}
		fprintf(f, "\n  %-12s", "stage");
		for (size_t j = 0; j < m; j++)
			fprintf(f, "%s %7s %8s %8s %8s", j ? "  " : "", "count", "p50", "p90",
				"p99");
		fputs("  (us)\n", f);
		for (int i = 0; i < pktpath_stages(dir); i++) {
			bool any = false;

			for (size_t j = 0; j < m; j++)
				any |= v[g + j]->dir[dir].stage[i] != NULL;
			if (!any)
				continue;
			fprintf(f, "  %-12s", pktpath_stage_name(dir, i));
			print_dev_row(f, v + g, m, dir, i);
			fputc('\n', f);
		}
	}
}

static void print_devs(FILE *f, const struct pktpath *p, enum pktpath_dir dir)
{
	print_devs_of(f, p, dir, p->devs, p->n_devs, "by NIC");
	if (p->n_queues)
		print_devs_of(f, p, dir, p->queues, p->n_queues, "by queue");
}

static void print_dir(FILE *f, const struct pktpath *p, enum pktpath_dir dir)
{
	const struct pktpath_stats *s = &p->dir[dir];
	bool any = false;

	fprintf(f, "%s: %llu packets, %llu followed end to end\n",
		dir == PKTPATH_RX ? "Receive" : "Transmit", (unsigned long long)s->packets,
		(unsigned long long)s->followed);
	if (!s->packets)
		return;
	print_stages(f, s, dir, "  ");
	for (int o = 1; o < PKTPATH_OUTCOMES; o++) {
		if (!s->outcome[o])
			continue;
		fprintf(f, "%s%s %llu", any ? ", " : "  not followed: ",
			pktpath_outcome_name((enum pktpath_outcome)o),
			(unsigned long long)s->outcome[o]);
		any = true;
	}
	if (any)
		fputc('\n', f);
	print_devs(f, p, dir);
}

static void tasks_str(char *buf, size_t n, const struct pktpath_task *t, size_t nt)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < nt && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%d/%s", i ? "," : "", t[i].pid,
					t[i].comm);
	if (!nt)
		snprintf(buf, n, "-");
}

/* " 12.3" us, or "-" when the flow has no followed packet that way. */
static char *lat_str(uint64_t ns, uint64_t count, char *buf, size_t n)
{
	if (!count)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.1f", (double)ns / 1000);
	return buf;
}

static void print_flows(FILE *f, const struct pktpath *p, const struct pktpath_print_opts *o)
{
	size_t n = o->max_flows && o->max_flows < p->n_flows ? o->max_flows : p->n_flows;
	size_t *idx = xcalloc(p->n_flows, sizeof(*idx));

	pktpath_flows_sorted(p, o->flow_order, idx);
	fprintf(f,
		"\nFlows, %s%zu by %s (source -> destination as the packets travel; tx at ip_output, rx at ip_local_deliver;\n"
		"  CPUs: tx at ip_output, rx at ip_local_deliver (after RPS), app at the copy; latency us, sendmsg -> free and hand-off -> copy)\n",
		n < p->n_flows ? "top " : "", n, pktpath_flow_order_name(o->flow_order));
	fprintf(f, "  %-5s %-21s    %-21s %7s %9s %7s %9s %5s %7s %6s %6s %6s %8s %8s %8s %8s  %-20s %s\n",
		"PROTO", "SOURCE", "DESTINATION", "TX_PKTS", "TX_KB", "RX_PKTS", "RX_KB", "DROPS",
		"RETRANS", "TX_CPU", "RX_CPU", "APPCPU", "TX_P50", "TX_P99", "RX_P50", "RX_P99",
		"SENDERS", "RECEIVERS");
	for (size_t j = 0; j < n; j++) {
		const struct pktpath_flow *fl = &p->flows[idx[j]];
		char src[32], dst[32], snd[128], rcv[128], pr[8], c[3][32], l[4][24];
		const char *pn = proto_name(fl->t.proto);
		struct pktpath_lat_summary tx, rx;

		if (!pn) {
			snprintf(pr, sizeof(pr), "%u", fl->t.proto);
			pn = pr;
		}
		pktpath_lat_summarize(fl->lat[PKTPATH_TX], &tx);
		pktpath_lat_summarize(fl->lat[PKTPATH_RX], &rx);
		endpoint(src, sizeof(src), fl->t.saddr, fl->t.sport, &fl->t, false);
		endpoint(dst, sizeof(dst), fl->t.daddr, fl->t.dport, &fl->t, false);
		tasks_str(snd, sizeof(snd), fl->senders, fl->n_senders);
		tasks_str(rcv, sizeof(rcv), fl->receivers, fl->n_receivers);
		fprintf(f,
			"  %-5s %-21s -> %-21s %7llu %9.1f %7llu %9.1f %5llu %7llu %6s %6s %6s %8s %8s %8s %8s  %-20s %s\n",
			pn, src, dst, (unsigned long long)fl->tx_packets,
			(double)fl->tx_bytes / 1024, (unsigned long long)fl->rx_packets,
			(double)fl->rx_bytes / 1024, (unsigned long long)fl->drops,
			(unsigned long long)fl->retransmits,
			pktpath_cpus_str(fl->ip_cpus[PKTPATH_TX], c[0], sizeof(c[0])),
			pktpath_cpus_str(fl->ip_cpus[PKTPATH_RX], c[1], sizeof(c[1])),
			pktpath_cpus_str(fl->copy_cpus, c[2], sizeof(c[2])),
			lat_str(tx.p50, tx.count, l[0], sizeof(l[0])),
			lat_str(tx.p99, tx.count, l[1], sizeof(l[1])),
			lat_str(rx.p50, rx.count, l[2], sizeof(l[2])),
			lat_str(rx.p99, rx.count, l[3], sizeof(l[3])), snd, rcv);
	}
	if (n < p->n_flows)
		fprintf(f, "  ... %zu more flows\n", p->n_flows - n);
	free(idx);
}

void pktpath_print(const struct pktpath *p, FILE *f, const struct pktpath_print_opts *o)
{
	static const struct pktpath_print_opts all = { .processes = true, .flows = true };

	o = o ? o : &all;
	fprintf(f, "Packet path: %s (%d CPUs, %llu events, %llu lost)\n", p->path, p->cpus,
		(unsigned long long)p->events, (unsigned long long)p->lost);
	fprintf(f, "Hand-off: %s (%llu driver lines)\n", p->handoff,
		(unsigned long long)p->drv_lines);
	if (p->n_missing) {
		fprintf(f, "Not recorded:");
		for (size_t i = 0; i < p->n_missing; i++)
			fprintf(f, " %s", p->missing[i]);
		fputc('\n', f);
	}
	fputc('\n', f);
	print_dir(f, p, PKTPATH_RX);
	fputc('\n', f);
	print_dir(f, p, PKTPATH_TX);
	fprintf(f,
		"\nDrops: %llu kfree_skb (%llu of flow packets, %llu fragments freed after reassembly); TCP retransmits: %llu\n",
		(unsigned long long)p->drops, (unsigned long long)p->drops_in_flows,
		(unsigned long long)p->reassembly_frees, (unsigned long long)p->retransmits);
	if (p->drops_missed_probe)
		fprintf(f,
			"  %llu dropped at their socket without an ip_local_deliver record: the kernel skipped that kprobe (another probe's handler was running), so their flow is unknown\n",
			(unsigned long long)p->drops_missed_probe);
	if (o->processes && p->n_procs) {
		fprintf(f, "\nProcesses (receive at the copy, transmit at sendmsg)\n");
		for (size_t i = 0; i < p->n_procs; i++)
			for (int d = 0; d < PKTPATH_DIRS; d++) {
				const struct pktpath_stats *s = &p->procs[i].dir[d];

				if (!s->packets)
					continue;
				fprintf(f, "  PID %d %s, %s: %llu packets, %llu followed\n",
					p->procs[i].task.pid, p->procs[i].task.comm,
					d == PKTPATH_RX ? "receive" : "transmit",
					(unsigned long long)s->packets,
					(unsigned long long)s->followed);
				print_stages(f, s, (enum pktpath_dir)d, "    ");
			}
	}
	if (o->flows && p->n_flows)
		print_flows(f, p, o);
}

/* -- JSON -- */

static struct json_object *json_us(double us)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.3f", us);
	return json_object_new_double_s(us, buf);
}


/* name -> count, p50_us, p90_us, p99_us, max_us of the stages with samples. */
static struct json_object *json_stages(const struct pktpath_stats *s, enum pktpath_dir dir)
{
	struct json_object *st = json_object_new_object();

	for (int i = 0; st && i < pktpath_stages(dir); i++) {
		struct json_object *x;

		if (!s->stage[i])
			continue;
		x = json_object_new_object();
		json_object_object_add(x, "count", json_object_new_uint64(s->stage[i]->count));
		json_object_object_add(x, "p50_us", json_us(pktpath_stage_us(s, i, 50)));
		json_object_object_add(x, "p90_us", json_us(pktpath_stage_us(s, i, 90)));
		json_object_object_add(x, "p99_us", json_us(pktpath_stage_us(s, i, 99)));
		json_object_object_add(x, "max_us", json_us(pktpath_stage_us(s, i, 100)));
		json_object_object_add(st, pktpath_stage_name(dir, i), x);
	}
	return st;
}

static struct json_object *json_stats(const struct pktpath_stats *s, enum pktpath_dir dir)
{
	struct json_object *o = json_object_new_object(), *nf = json_object_new_object();
	struct json_object *st = json_stages(s, dir);

	if (!o || !nf || !st) {
		json_object_put(o);
		json_object_put(nf);
		json_object_put(st);
		return NULL;
	}
	json_object_object_add(o, "packets", json_object_new_uint64(s->packets));
	json_object_object_add(o, "followed", json_object_new_uint64(s->followed));
	for (int i = 1; i < PKTPATH_OUTCOMES; i++)
		if (s->outcome[i])
			json_object_object_add(nf, pktpath_outcome_name(i),
					       json_object_new_uint64(s->outcome[i]));
	json_object_object_add(o, "not_followed", nf);
	json_object_object_add(o, "stages", st);
	return o;
}

static void json_by(struct json_object *by, const struct pktpath_dev *devs, size_t n,
		    enum pktpath_dir dir)
{
	for (size_t i = 0; by && i < n; i++) {
		const struct pktpath_stats *s = &devs[i].dir[dir];
		struct json_object *x;

		if (!s->packets)
			continue;
		x = json_object_new_object();
		json_object_object_add(x, "packets", json_object_new_uint64(s->packets));
		json_object_object_add(x, "stages", json_stages(s, dir));
		json_object_object_add(by, devs[i].name, x);
	}
}

/*
 * A direction's stats and, in "by_dev", its devices': name -> packets,
 * stages; "by_queue" the same per queue ("ethB_q1"), when a device had two.
 */
static struct json_object *json_dir(const struct pktpath *p, enum pktpath_dir dir)
{
	struct json_object *o = json_stats(&p->dir[dir], dir), *by = json_object_new_object();

	if (!o || !by) {
		json_object_put(o);
		json_object_put(by);
		return NULL;
	}
	json_by(by, p->devs, p->n_devs, dir);
	json_object_object_add(o, "by_dev", by);
	if (p->n_queues) {
		by = json_object_new_object();
		json_by(by, p->queues, p->n_queues, dir);
		json_object_object_add(o, "by_queue", by);
	}
	return o;
}

static struct json_object *json_tasks(const struct pktpath_task *t, size_t n)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < n; i++) {
		struct json_object *x = json_object_new_object();

		json_object_object_add(x, "pid", json_object_new_int(t[i].pid));
		json_object_object_add(x, "comm", json_object_new_string(t[i].comm));
		json_object_array_add(a, x);
	}
	return a;
}

static struct json_object *json_cpu_list(uint64_t mask)
{
	struct json_object *a = json_object_new_array();

	for (int c = 0; a && c < 64; c++)
		if (mask & (1ULL << c))
			json_object_array_add(a, json_object_new_int(c));
	return a;
}

/* {"tx": [0], "rx": [1], "app": [1]}: see pktpath_flow.ip_cpus */
static struct json_object *json_flow_cpus(const struct pktpath_flow *fl)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "tx", json_cpu_list(fl->ip_cpus[PKTPATH_TX]));
	json_object_object_add(o, "rx", json_cpu_list(fl->ip_cpus[PKTPATH_RX]));
	json_object_object_add(o, "app", json_cpu_list(fl->copy_cpus));
	return o;
}

/* {"tx": {"count", "min", "p50", "p99", "max"}, "rx": ...}, a direction without packets left out */
static struct json_object *json_flow_latency(const struct pktpath_flow *fl)
{
	struct json_object *o = json_object_new_object();

	for (int d = 0; o && d < PKTPATH_DIRS; d++) {
		struct pktpath_lat_summary s;
		struct json_object *x;

		pktpath_lat_summarize(fl->lat[d], &s);
		if (!s.count || !(x = json_object_new_object()))
			continue;
		json_object_object_add(x, "count", json_object_new_uint64(s.count));
		json_object_object_add(x, "min", json_us((double)s.min / 1000));
		json_object_object_add(x, "p50", json_us((double)s.p50 / 1000));
		json_object_object_add(x, "p99", json_us((double)s.p99 / 1000));
		json_object_object_add(x, "max", json_us((double)s.max / 1000));
		json_object_object_add(o, d == PKTPATH_RX ? "rx" : "tx", x);
	}
	return o;
}

static struct json_object *json_flow(const struct pktpath_flow *fl)
{
	struct json_object *o = json_object_new_object();
	const char *pn = proto_name(fl->t.proto);
	char a[16];

	if (!o)
		return NULL;
	json_object_object_add(o, "proto",
			       pn ? json_object_new_string(pn) : json_object_new_int(fl->t.proto));
	json_object_object_add(o, "saddr",
			       json_object_new_string(pktpath_addr_str(fl->t.saddr, a)));
	json_object_object_add(o, "sport", fl->t.ports ? json_object_new_int(fl->t.sport) : NULL);
	json_object_object_add(o, "daddr",
			       json_object_new_string(pktpath_addr_str(fl->t.daddr, a)));
	json_object_object_add(o, "dport", fl->t.ports ? json_object_new_int(fl->t.dport) : NULL);
	json_object_object_add(o, "tx_packets", json_object_new_uint64(fl->tx_packets));
	json_object_object_add(o, "tx_bytes", json_object_new_uint64(fl->tx_bytes));
	json_object_object_add(o, "rx_packets", json_object_new_uint64(fl->rx_packets));
	json_object_object_add(o, "rx_bytes", json_object_new_uint64(fl->rx_bytes));
	json_object_object_add(o, "fragments_by_address", json_object_new_uint64(fl->guessed));
	json_object_object_add(o, "drops", json_object_new_uint64(fl->drops));
	json_object_object_add(o, "retransmits", json_object_new_uint64(fl->retransmits));
	json_object_object_add(o, "senders", json_tasks(fl->senders, fl->n_senders));
	json_object_object_add(o, "receivers", json_tasks(fl->receivers, fl->n_receivers));
	json_object_object_add(o, "cpus", json_flow_cpus(fl));
	json_object_object_add(o, "latency_us", json_flow_latency(fl));
	return o;
}

static struct json_object *json_strings(char *const *v, size_t n)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < n; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

static struct json_object *json_trace(const struct pktpath *p)
{
	const struct json_trace_head h = {
		.path = p->path, .cpus = p->cpus, .buffers = p->buffers, .events = p->events,
		.t0 = p->t0, .last_ts = p->last_ts, .lost = p->lost, .lost_gaps = p->lost_gaps,
		.lost_unknown = p->lost_unknown,
	};

	return json_trace_head(&h);
}

struct json_object *pktpath_to_json(const struct pktpath *p)
{
	struct json_object *o = json_object_new_object(), *x;

	if (!o)
		return NULL;
	json_object_object_add(o, "trace", json_trace(p));
	x = json_object_new_object();
	json_object_object_add(x, "present", json_strings(p->present, p->n_present));
	json_object_object_add(x, "missing", json_strings(p->missing, p->n_missing));
	json_object_object_add(o, "events", x);
	x = json_object_new_object();
	json_object_object_add(x, "event", json_object_new_string(p->handoff));
	json_object_object_add(x, "driver_handoffs", json_object_new_uint64(p->handoff_drv));
	json_object_object_add(x, "napi_handoffs", json_object_new_uint64(p->handoff_napi));
	json_object_object_add(x, "driver_lines", json_object_new_uint64(p->drv_lines));
	json_object_object_add(x, "driver_lines_malformed",
			       json_object_new_uint64(p->drv_bad_lines));
	json_object_object_add(o, "handoff", x);
	json_object_object_add(o, "rx", json_dir(p, PKTPATH_RX));
	json_object_object_add(o, "tx", json_dir(p, PKTPATH_TX));
	x = json_object_new_array();
	for (size_t i = 0; x && i < p->n_procs; i++) {
		struct json_object *q = json_object_new_object();

		json_object_object_add(q, "pid", json_object_new_int(p->procs[i].task.pid));
		json_object_object_add(q, "comm", json_object_new_string(p->procs[i].task.comm));
		for (int d = 0; d < PKTPATH_DIRS; d++)
			if (p->procs[i].dir[d].packets)
				json_object_object_add(
					q, d == PKTPATH_RX ? "rx" : "tx",
					json_stats(&p->procs[i].dir[d], (enum pktpath_dir)d));
		json_object_array_add(x, q);
	}
	json_object_object_add(o, "processes", x);
	x = json_object_new_array();
	for (size_t i = 0; x && i < p->n_flows; i++)
		json_object_array_add(x, json_flow(&p->flows[i]));
	json_object_object_add(o, "flows", x);
	x = json_object_new_object();
	json_object_object_add(x, "total", json_object_new_uint64(p->drops));
	json_object_object_add(x, "in_flows", json_object_new_uint64(p->drops_in_flows));
	json_object_object_add(x, "reassembly_frees", json_object_new_uint64(p->reassembly_frees));
	json_object_object_add(x, "missed_probe", json_object_new_uint64(p->drops_missed_probe));
	json_object_object_add(o, "drops", x);
	json_object_object_add(o, "retransmits", json_object_new_uint64(p->retransmits));
	return o;
}

/* -- metrics -- */

bool pktpath_dev_metric_name(const char *name)
{
	if (!*name)
		return false;
	for (; *name; name++)
		if (*name <= ' ' || *name >= 0x7f || *name == '.')
			return false;
	return true;
}

/*
 * latency.<dn>.<stage>[.<dev>].{p50_us,p90_us,p99_us,max_us,count} of the
 * stages of @s with samples; @dev NULL for the direction's own.
 */
static void stage_metrics(struct metrics *m, const struct pktpath_stats *s, enum pktpath_dir d,
			  const char *dev)
{
	static const char *const pct_names[] = { "p50_us", "p90_us", "p99_us", "max_us" };
	static const double pcts[] = { 50, 90, 99, 100 };
	const char *dn = d == PKTPATH_RX ? "rx" : "tx";
	char name[96];

	for (int i = 0; i < pktpath_stages(d); i++) {
		const char *sn = pktpath_stage_name(d, i);

		if (!s->stage[i])
			continue;
		for (size_t k = 0; k < ARRAY_SIZE(pcts); k++) {
			snprintf(name, sizeof(name), "latency.%s.%s%s%s.%s", dn, sn, dev ? "." : "",
				 dev ? dev : "", pct_names[k]);
			/* to the ns, so that 3 decimals of us print exactly */
			metrics_set(m, name, pktpath_stage_us(s, i, pcts[k]));
		}
		snprintf(name, sizeof(name), "latency.%s.%s%s%s.count", dn, sn, dev ? "." : "",
			 dev ? dev : "");
		metrics_set(m, name, (double)s->stage[i]->count);
	}
}

void pktpath_metrics(const struct pktpath *p, struct metrics *m)
{
	uint64_t drops = 0, retrans = 0;
	char name[96];

	for (int d = 0; d < PKTPATH_DIRS; d++) {
		const struct pktpath_stats *s = &p->dir[d];
		const char *dn = d == PKTPATH_RX ? "rx" : "tx";

		snprintf(name, sizeof(name), "latency.%s.packets", dn);
		metrics_set(m, name, (double)s->packets);
		snprintf(name, sizeof(name), "latency.%s.followed", dn);
		metrics_set(m, name, (double)s->followed);
		for (int o = 1; o < PKTPATH_OUTCOMES; o++) {
			snprintf(name, sizeof(name), "latency.%s.not_followed.%s", dn,
				 pktpath_outcome_name(o));
			metrics_set(m, name, (double)s->outcome[o]);
		}
		stage_metrics(m, s, (enum pktpath_dir)d, NULL);
		/* Per device: one NIC's stage, not hidden among the other's packets. */
		for (size_t i = 0; i < p->n_devs; i++)
			if (pktpath_dev_metric_name(p->devs[i].name))
				stage_metrics(m, &p->devs[i].dir[d], (enum pktpath_dir)d,
					      p->devs[i].name);
		/* Per queue of a multi-queue device: latency.DIR.STAGE.ethB_q1.* */
		for (size_t i = 0; i < p->n_queues; i++)
			if (pktpath_dev_metric_name(p->queues[i].name))
				stage_metrics(m, &p->queues[i].dir[d], (enum pktpath_dir)d,
					      p->queues[i].name);
	}
	for (size_t i = 0; i < p->n_flows; i++) {
		drops += p->flows[i].drops;
		retrans += p->flows[i].retransmits;
	}
	metrics_set(m, "flows.count", (double)p->n_flows);
	metrics_set(m, "flows.drops", (double)drops);
	metrics_set(m, "flows.retransmits", (double)retrans);
}
