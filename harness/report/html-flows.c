// SPDX-License-Identifier: GPL-2.0
/*
 * The run page's flows and processes: the generators' per-flow table
 * (report/genflows.h), the trace's flows by bytes, drops and latency with
 * their CPUs and tasks (trace/pktpath.h), and the per-process stages; and
 * the hops of a topology file's path (hop.NAME.*, scnrun-hops.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/metrics.h"

#include "lib/util.h"
#include "report/genflows.h"
#include "report/html-int.h"
#include "trace/pktpath.h"


static void tasks(struct sbuf *b, struct json_object *arr)
{
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		struct json_object *t = json_object_array_get_idx(arr, i);

		sbuf_adds(b, i ? ", " : "");
		html_str(b, t, "comm", "?");
		sbuf_adds(b, "/");
		html_str(b, t, "pid", "?");
	}
}

/* A JSON array of CPU numbers as "0,1", "-" for none. */
static void cpu_list(struct sbuf *b, struct json_object *arr)
{
	size_t n = arr && json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;

	for (size_t i = 0; i < n; i++)
		sbuf_addf(b, "%s%d", i ? "," : "", json_object_get_int(json_object_array_get_idx(arr, i)));
	if (!n)
		sbuf_adds(b, "-");
}

/*
 * The trace's flows, the first @max in @order (tcptop-like: bytes, drops,
 * latency, with the tasks and CPUs at each end). A row's numbers are those
 * of path.flows.I, I its index in the report.
 */
static void flows_table(struct sbuf *b, const struct html_run *r, enum pktpath_flow_order order,
			size_t max)
{
	static const char *const cols[] = { "tx_packets", "tx_bytes", "rx_packets", "rx_bytes",
					    "drops", "retransmits", "latency_us.tx.p50",
					    "latency_us.tx.p99", "latency_us.rx.p50",
					    "latency_us.rx.p99" };
	struct json_object *flows = html_json_at(r->rep, "path.flows");
	size_t n = flows ? json_object_array_length(flows) : 0, shown;
	size_t *idx = xcalloc(n ? n : 1, sizeof(*idx));

	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	if (r->pp && r->pp->n_flows == n)
		pktpath_flows_sorted(r->pp, order, idx);
	shown = max && max < n ? max : n;
	sbuf_addf(b, "<h3>flows in the trace, %s%zu by %s</h3>\n", shown < n ? "top " : "", shown,
		  pktpath_flow_order_name(order));
	sbuf_addf(b, "<table class=\"flows\" data-order=\"%s\"><tr><th class=\"l\">flow</th>",
		  pktpath_flow_order_name(order));
	for (size_t c = 0; c < ARRAY_SIZE(cols); c++)
		sbuf_addf(b, "<th>%s</th>", cols[c]);
	sbuf_adds(b, "<th>tx cpu</th><th>rx cpu</th><th>app cpu</th><th class=\"l\">senders</th><th class=\"l\">receivers</th></tr>\n");
	for (size_t j = 0; j < shown; j++) {
		size_t i = idx[j];
		struct json_object *f = json_object_array_get_idx(flows, i);

		sbuf_adds(b, "<tr class=\"flow\"><td class=\"l\">");
		html_str(b, f, "proto", "?");
		sbuf_adds(b, " ");
		html_str(b, f, "saddr", "?");
		sbuf_adds(b, ":");
		html_str(b, f, "sport", "?");
		sbuf_adds(b, " -&gt; ");
		html_str(b, f, "daddr", "?");
		sbuf_adds(b, ":");
		html_str(b, f, "dport", "?");
		sbuf_adds(b, "</td>");
		html_num_cells(b, r, "path.flows", i, cols, ARRAY_SIZE(cols));
		for (int c = 0; c < 3; c++) {
			sbuf_adds(b, "<td>");
			cpu_list(b, html_json_at(f, c == 0 ? "cpus.tx" : c == 1 ? "cpus.rx" : "cpus.app"));
			sbuf_adds(b, "</td>");
		}
		sbuf_adds(b, "<td class=\"l\">");
		tasks(b, html_json_at(f, "senders"));
		sbuf_adds(b, "</td><td class=\"l\">");
		tasks(b, html_json_at(f, "receivers"));
		sbuf_adds(b, "</td></tr>\n");
	}
	sbuf_adds(b, "</table>\n");
	if (shown < n)
		sbuf_addf(b, "<p>... %zu more flows (<code>netlab report --flows</code> lists them all)</p>\n",
			  n - shown);
	free(idx);
}

/* A metric cell of a generator flow: its metrics.json name is PREFIX + @what. */
static void genflow_cell(struct sbuf *b, const struct html_run *r, const struct genflow *g,
			 const char *what)
{
	char name[160];

	snprintf(name, sizeof(name), "%s%s", g->prefix, what);
	sbuf_adds(b, "<td>");
	html_num(b, r->mj, "metrics", name);
	sbuf_adds(b, "</td>");
}

/* The generators' own per-flow counts (report/genflows.h), most loss first. */
static void genflows_table(struct sbuf *b, const struct html_run *r, size_t max)
{
	static const char *const cols[] = { "sport",	 "sent",	  "unique",
					    "lost",	 "misdelivered",  "reordered",
					    "latency_us.p50", "latency_us.p99", "bytes",
					    "goodput_bps", "retransmits",	  "rtt_us",
					    "socket",	 "tx_cpu",	  "rx_cpu" };
	struct genflow *g = NULL;
	size_t n = genflows_collect(r->m, GENFLOW_BY_LOSS, &g), shown = max && max < n ? max : n;

	if (!n) {
		free(g);
		return;
	}
	sbuf_addf(b, "<h3>flows as the generators counted them, %s%zu by loss</h3>\n",
		  shown < n ? "top " : "", shown);
	sbuf_adds(b, "<table class=\"genflows\"><tr><th class=\"l\">section</th><th class=\"l\">flow</th>");
	for (size_t c = 0; c < ARRAY_SIZE(cols); c++)
		sbuf_addf(b, "<th>%s</th>", cols[c]);
	sbuf_adds(b, "</tr>\n");
	for (size_t i = 0; i < shown; i++) {
		sbuf_adds(b, "<tr class=\"genflow\"><td class=\"l\">");
		esc_html(b, g[i].section[0] ? g[i].section : "-");
		sbuf_addf(b, "</td><td class=\"l\">%s %u</td>", g[i].tcp ? "tcp" : "udp", g[i].k);
		for (size_t c = 0; c < ARRAY_SIZE(cols); c++)
			genflow_cell(b, r, &g[i], cols[c]);
		sbuf_adds(b, "</tr>\n");
	}
	sbuf_adds(b, "</table>\n");
	if (shown < n)
		sbuf_addf(b, "<p>... %zu more flows (<code>netlab report --flows</code> lists them all)</p>\n",
			  n - shown);
	free(g);
}

static void procs_table(struct sbuf *b, const struct html_run *r)
{
	struct json_object *procs = html_json_at(r->rep, "path.processes");

	sbuf_adds(b, "<h3>processes</h3>\n<table class=\"procs\"><tr><th>pid</th><th class=\"l\">comm</th><th>rx packets</th><th>rx total p50 us</th><th>rx total p99 us</th><th>tx packets</th><th>tx total p50 us</th><th>tx total p99 us</th></tr>\n");
	for (size_t i = 0; procs && i < json_object_array_length(procs); i++) {
		struct json_object *pr = json_object_array_get_idx(procs, i);
		static const char *const cols[] = { "rx.packets", "rx.stages.total.p50_us",
						    "rx.stages.total.p99_us", "tx.packets",
						    "tx.stages.total.p50_us", "tx.stages.total.p99_us" };

		sbuf_adds(b, "<tr class=\"proc\"><td>");
		html_numf(b, r->rep, NULL, "path.processes.%zu.pid", i);
		sbuf_adds(b, "</td><td class=\"l\">");
		html_str(b, pr, "comm", "?");
		sbuf_adds(b, "</td>");
		html_num_cells(b, r, "path.processes", i, cols, ARRAY_SIZE(cols));
		sbuf_adds(b, "</tr>\n");
	}
	sbuf_adds(b, "</table>\n");
}

void html_sec_flows(struct sbuf *b, const struct html_run *r)
{
	html_section_begin(b, "flows", "Flows and processes");
	genflows_table(b, r, 32);
	if (!html_json_at(r->rep, "path")) {
		html_missing(b, "no packet path in the trace (or no trace): no flows");
	} else {
		size_t n = r->pp ? r->pp->n_flows : 0;

		flows_table(b, r, PKTPATH_BY_BYTES, 32);
		if (n > 1 && r->pp->drops_in_flows + r->pp->retransmits)
			flows_table(b, r, PKTPATH_BY_DROPS, 10);
		if (n > 1)
			flows_table(b, r, PKTPATH_BY_LATENCY, 10);
		procs_table(b, r);
	}
	html_section_end(b);
}


/*
 * Each hop of the path (a topology file's [hop.NAME]): its layer, the data
 * in and out, and what its namespace counted, reason by reason; every
 * number tied to its hop.NAME.* metric.
 */
void html_sec_hops(struct sbuf *b, const struct html_run *r)
{
	static const char *const cols[] = { "in", "out", "lost", "counted", "silent", "forwarded",
					    "no_route", "hdr_errors", "too_big", "addr_errors",
					    "in_discards", "out_discards", "neigh_unresolved",
					    "driver" };
	const struct metrics *m = r->m;
	bool any = false;

	for (size_t i = 0; m && i < metrics_count(m); i++) {
		const char *name, *dot;
		double v;
		char hop[32];

		metrics_at(m, i, &name, &v);
		if (strncmp(name, "hop.", 4) || !(dot = strrchr(name, '.')) || strcmp(dot, ".bridge") ||
		    (size_t)(dot - name - 4) >= sizeof(hop))
			continue;
		snprintf(hop, sizeof(hop), "%.*s", (int)(dot - name - 4), name + 4);
		if (!any) {
			html_section_begin(b, "hops", "Hops: the data into and out of each hop of the path, and its drops by reason");
			sbuf_adds(b, "<table class=\"hops\"><tr><th>hop</th><th>layer</th>");
			for (size_t k = 0; k < ARRAY_SIZE(cols); k++)
				sbuf_addf(b, "<th>%s</th>", cols[k]);
			sbuf_adds(b, "</tr>\n");
			any = true;
		}
		sbuf_adds(b, "<tr class=\"hop\"><td>");
		esc_html(b, hop);
		sbuf_addf(b, "</td><td>%s</td>", v > 0 ? "bridge" : "IP forwarding");
		for (size_t k = 0; k < ARRAY_SIZE(cols); k++) {
			sbuf_adds(b, "<td>");
			html_numf(b, r->mj, "metrics", "hop.%s.%s", hop, cols[k]);
			sbuf_adds(b, "</td>");
		}
		sbuf_adds(b, "</tr>\n");
	}
	if (any) {
		sbuf_adds(b, "</table>\n<p>UDP: data datagrams; TCP: data segments, retransmits included. "
			     "in and out are counted on the captures of the hop's in and out links; "
			     "the reasons are its namespace's counters (netlab-topology(5)).</p>\n");
		html_section_end(b);
	}
}
