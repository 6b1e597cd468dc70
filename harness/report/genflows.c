// SPDX-License-Identifier: GPL-2.0
/*
 * The generators' per-flow metrics as one table (genflows.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/metrics.h"
#include "lib/util.h"
#include "report/genflows.h"

static double val(const struct metrics *m, const char *prefix, const char *what)
{
	char name[160];

	snprintf(name, sizeof(name), "%s%s", prefix, what);
	return metrics_value(m, name, NAN);
}

/*
 * Is @name a flow's sport (PREFIX{udp,tcp}.flow.K.sport)? Fills @g's prefix,
 * section, tcp and k.
 */
static bool flow_name(const char *name, struct genflow *g)
{
	const char *p = name, *sec = NULL, *fam;
	size_t sec_len = 0;
	unsigned int k;
	int used = 0;

	if (!strncmp(p, "traffic.", 8)) {
		sec = p + 8;
		p = strchr(sec, '.');
		if (!p)
			return false;
		sec_len = (size_t)(p - sec);
		p++;
	}
	fam = p;
	if (strncmp(fam, "udp.flow.", 9) && strncmp(fam, "tcp.flow.", 9))
		return false;
	if (sscanf(fam + 9, "%u%n", &k, &used) != 1 || strcmp(fam + 9 + used, ".sport"))
		return false;
	memset(g, 0, sizeof(*g));
	snprintf(g->prefix, sizeof(g->prefix), "%.*s", (int)(strlen(name) - 5), name);
	snprintf(g->section, sizeof(g->section), "%.*s", (int)sec_len, sec ? sec : "");
	g->tcp = fam[0] == 't';
	g->k = k;
	return true;
}

static void fill(const struct metrics *m, struct genflow *g)
{
	const char *p = g->prefix;

	g->sport = val(m, p, "sport");
	g->sent = val(m, p, "sent");
	g->unique = val(m, p, "unique");
	g->lost = val(m, p, "lost");
	g->misdelivered = val(m, p, "misdelivered");
	g->reordered = val(m, p, "reordered");
	g->p50_us = val(m, p, "latency_us.p50");
	g->p99_us = val(m, p, "latency_us.p99");
	g->bytes = val(m, p, "bytes");
	g->goodput_bps = val(m, p, "goodput_bps");
	g->retransmits = val(m, p, "retransmits");
	g->rtt_us = val(m, p, "rtt_us");
	g->socket = val(m, p, "socket");
	g->tx_cpu = val(m, p, "tx_cpu");
	g->rx_cpu = val(m, p, "rx_cpu");
}

static double z(double v)
{
	return isnan(v) ? 0 : v;
}

static void keys(struct genflow *g, enum genflow_order order)
{
	double *k = g->key;

	switch (order) {
	case GENFLOW_BY_BYTES:
		k[0] = g->tcp ? z(g->bytes) : z(g->sent);
		k[1] = 0;
		break;
	case GENFLOW_BY_LATENCY:
		k[0] = g->tcp ? z(g->rtt_us) : z(g->p99_us);
		k[1] = 0;
		break;
	default:
		k[0] = z(g->lost) + z(g->misdelivered);
		k[1] = z(g->retransmits);
		break;
	}
}

/* Descending by the order's keys; then section, protocol and index. */
static int cmp_genflow(const void *a, const void *b)
{
	const struct genflow *x = a, *y = b;
	int c;

	for (int i = 0; i < 2; i++)
		if (x->key[i] != y->key[i])
			return x->key[i] < y->key[i] ? 1 : -1;
	c = strcmp(x->section, y->section);
	if (c)
		return c;
	if (x->tcp != y->tcp)
		return x->tcp ? 1 : -1;
	return x->k < y->k ? -1 : x->k > y->k;
}

size_t genflows_collect(const struct metrics *m, enum genflow_order order, struct genflow **out)
{
	struct genflow *g = NULL, one;
	size_t n = 0, cap = 0;
	bool sections = false;

	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; m && i < metrics_count(m); i++) {
			const char *name;
			double v;

			metrics_at(m, i, &name, &v);
			if (!flow_name(name, &one) || (pass == 0) != (one.section[0] != '\0'))
				continue;
			xgrow_array(&g, &cap, n + 1, sizeof(*g));
			fill(m, &one);
			keys(&one, order);
			g[n++] = one;
			sections |= pass == 0;
		}
		if (sections)
			break; /* the unprefixed ones repeat the first section of each kind */
	}
	if (n > 1)
		qsort(g, n, sizeof(*g), cmp_genflow);
	*out = g;
	return n;
}

static void cell(FILE *f, double v, int width, const char *fmt)
{
	if (isnan(v))
		fprintf(f, " %*s", width, "-");
	else
		fprintf(f, fmt, width, v);
}

static const char *const order_names[] = { "loss", "bytes", "latency" };

void genflows_print(FILE *f, const struct genflow *g, size_t n, size_t max, enum genflow_order order)
{
	size_t shown = max && max < n ? max : n;

	fprintf(f,
		"Generator flows, %s%zu by %s (as the generators counted them: UDP datagrams and one-way latency, TCP bytes and RTT;\n"
		"  CPUs: where the sending and the receiving socket's task last ran)\n",
		shown < n ? "top " : "", shown, order_names[order]);
	fprintf(f, "  %-12s %-5s %4s %6s %8s %8s %6s %6s %6s %9s %9s %10s %7s %9s %6s %6s %6s\n",
		"SECTION", "PROTO", "FLOW", "SPORT", "SENT", "RECEIVED", "LOST", "MISDLV", "REORD",
		"P50_US", "P99_US", "BYTES", "RETRANS", "RTT_US", "SOCKET", "TX_CPU", "RX_CPU");
	for (size_t i = 0; i < shown; i++) {
		const struct genflow *x = &g[i];

		fprintf(f, "  %-12.12s %-5s %4u", x->section[0] ? x->section : "-",
			x->tcp ? "tcp" : "udp", x->k);
		cell(f, x->sport, 6, " %*.0f");
		cell(f, x->sent, 8, " %*.0f");
		cell(f, x->unique, 8, " %*.0f");
		cell(f, x->lost, 6, " %*.0f");
		cell(f, x->misdelivered, 6, " %*.0f");
		cell(f, x->reordered, 6, " %*.0f");
		cell(f, x->p50_us, 9, " %*.1f");
		cell(f, x->p99_us, 9, " %*.1f");
		cell(f, x->bytes, 10, " %*.0f");
		cell(f, x->retransmits, 7, " %*.0f");
		cell(f, x->rtt_us, 9, " %*.0f");
		cell(f, x->socket, 6, " %*.0f");
		cell(f, x->tx_cpu, 6, " %*.0f");
		cell(f, x->rx_cpu, 6, " %*.0f");
		fputc('\n', f);
	}
	if (shown < n)
		fprintf(f, "  ... %zu more flows\n", n - shown);
}
