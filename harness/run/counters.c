// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/counters.h"
#include "lib/util.h"

/* Split one line into whitespace-separated fields (modifies line). */
static size_t split_ws(char *line, char **f, size_t max)
{
	size_t n = 0;
	char *save = NULL;

	for (char *t = strtok_r(line, " \t", &save); t && n < max; t = strtok_r(NULL, " \t", &save))
		f[n++] = t;
	return n;
}

static char *next_line(char **cursor)
{
	char *s = *cursor, *nl;

	if (!s || !*s)
		return NULL;
	nl = strchr(s, '\n');
	if (nl) {
		*nl = '\0';
		*cursor = nl + 1;
	} else {
		*cursor = s + strlen(s);
	}
	return s;
}

#define MAX_FIELDS 512

static int snmp_pair(char *names, char *values, const char *prefix, counter_emit_fn emit,
		     void *ctx, char **err)
{
	char *nf[MAX_FIELDS], *vf[MAX_FIELDS];
	size_t nn = split_ws(names, nf, MAX_FIELDS);
	size_t nv = split_ws(values, vf, MAX_FIELDS);

	if (nn < 1 || nn != nv || strcmp(nf[0], vf[0])) {
		err_set(err, "group '%s': %zu names but %zu values", nn ? nf[0] : "?", nn, nv);
		return -EINVAL;
	}
	nf[0][strcspn(nf[0], ":")] = '\0';
	for (size_t i = 1; i < nn; i++) {
		char name[256];
		char *end;
		double v = strtod(vf[i], &end);

		if (*end) {
			err_set(err, "group '%s': value '%s' of '%s' is not a number", nf[0],
				vf[i], nf[i]);
			return -EINVAL;
		}
		snprintf(name, sizeof(name), "%s.%s.%s", prefix, nf[0], nf[i]);
		emit(ctx, name, v);
	}
	return 0;
}

int counters_parse_snmp(const char *text, const char *prefix, counter_emit_fn emit, void *ctx,
			char **err)
{
	char *copy = xstrdup(text), *cur = copy, *names, *values;
	int ret = 0;

	while ((names = next_line(&cur)) != NULL) {
		if (!*names)
			continue;
		values = next_line(&cur);
		if (!values) {
			err_set(err, "line '%.40s' has no values line", names);
			ret = -EINVAL;
			break;
		}
		ret = snmp_pair(names, values, prefix, emit, ctx, err);
		if (ret)
			break;
	}
	free(copy);
	return ret;
}

int counters_parse_softnet(const char *text, counter_emit_fn emit, void *ctx, char **err)
{
	/* 6.1 columns: processed dropped time_squeeze 0 0 0 0 0 0 received_rps
	 * flow_limit backlog_len cpu. The counters are summed; every column
	 * the line has is also kept per CPU (column 12, else the line's rank). */
	static const struct { int col; const char *name; bool sum; } cols[] = {
		{ 0, "processed", true }, { 1, "dropped", true }, { 2, "time_squeeze", true },
		{ 9, "received_rps", true }, { 10, "flow_limit", true },
		{ 11, "backlog_len", false },
	};
	double sum[ARRAY_SIZE(cols)] = { 0 };
	char *copy = xstrdup(text), *cur = copy, *line;
	int ret = 0, lineno = 0, rank = 0;

	while ((line = next_line(&cur)) != NULL) {
		char *f[32];
		size_t n = split_ws(line, f, 32);
		unsigned long long cpu;

		lineno++;
		if (!n)
			continue;
		if (n < 11) {
			err_set(err, "softnet_stat line %d has %zu columns, expected at least 11",
				lineno, n);
			ret = -EINVAL;
			break;
		}
		cpu = n > 12 ? strtoull(f[12], NULL, 16) : (unsigned long long)rank;
		rank++;
		for (size_t i = 0; i < ARRAY_SIZE(cols); i++) {
			double v;
			char name[64];

			if ((size_t)cols[i].col >= n)
				continue;
			v = (double)strtoull(f[cols[i].col], NULL, 16);
			sum[i] += v;
			snprintf(name, sizeof(name), "softnet.cpu%llu.%s", cpu, cols[i].name);
			emit(ctx, name, v);
		}
	}
	if (!ret) {
		for (size_t i = 0; i < ARRAY_SIZE(cols); i++) {
			char name[64];

			if (!cols[i].sum)
				continue;
			snprintf(name, sizeof(name), "softnet.%s", cols[i].name);
			emit(ctx, name, sum[i]);
		}
	}
	free(copy);
	return ret;
}

int counters_parse_ethtool_stats(const char *text, const char *prefix, counter_emit_fn emit,
				 void *ctx, char **err)
{
	char *copy = xstrdup(text), *cur = copy, *line;
	int n = 0;

	while ((line = next_line(&cur)) != NULL) {
		char *colon = strrchr(line, ':'), *end, *key = line;
		char name[256];
		double v;

		if (!colon || !strncmp(line, "NIC statistics", 14))
			continue;
		*colon = '\0';
		v = strtod(colon + 1, &end);
		while (*end == ' ')
			end++;
		if (end == colon + 1 || *end)
			continue;
		while (*key == ' ' || *key == '\t')
			key++;
		snprintf(name, sizeof(name), "%s.%s", prefix, key);
		emit(ctx, name, v);
		n++;
	}
	free(copy);
	if (!n) {
		err_set(err, "no counters in ethtool -S output");
		return -EINVAL;
	}
	return 0;
}

int counters_parse_ethtool_ring(const char *text, const char *prefix, counter_emit_fn emit,
				void *ctx, char **err)
{
	char *copy = xstrdup(text), *cur = copy, *line;
	const char *suffix = "_max";
	int found = 0;

	while ((line = next_line(&cur)) != NULL) {
		char name[256];
		char *end;
		double v;

		if (!strncmp(line, "Current hardware settings", 25)) {
			suffix = "";
			continue;
		}
		if (strncmp(line, "RX:", 3) && strncmp(line, "TX:", 3))
			continue;
		v = strtod(line + 3, &end);
		if (end == line + 3)
			continue;
		snprintf(name, sizeof(name), "%s.%s%s", prefix, line[0] == 'R' ? "rx" : "tx", suffix);
		emit(ctx, name, v);
		found++;
	}
	free(copy);
	if (found < 2) {
		err_set(err, "no ring sizes in ethtool -g output");
		return -EINVAL;
	}
	return 0;
}

int counters_parse_tc_qdisc(const char *text, const char *prefix, counter_emit_fn emit, void *ctx,
			    char **err)
{
	static const char *const names[] = { "bytes", "packets", "dropped", "overlimits",
					     "requeues" };
	double sum[ARRAY_SIZE(names)] = { 0 };
	const char *p = text;
	int found = 0;

	/* " Sent 238 bytes 3 pkt (dropped 0, overlimits 0 requeues 0)" per qdisc. */
	while ((p = strstr(p, " Sent ")) != NULL) {
		unsigned long long v[5];

		if (sscanf(p, " Sent %llu bytes %llu pkt (dropped %llu, overlimits %llu requeues %llu)",
			   &v[0], &v[1], &v[2], &v[3], &v[4]) != 5) {
			err_set(err, "unexpected tc statistics line '%.60s'", p + 1);
			return -EINVAL;
		}
		for (size_t i = 0; i < ARRAY_SIZE(names); i++)
			sum[i] += (double)v[i];
		found++;
		p += 6;
	}
	if (!found) {
		err_set(err, "no qdisc statistics in tc -s output");
		return -EINVAL;
	}
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char name[256];

		snprintf(name, sizeof(name), "%s.%s", prefix, names[i]);
		emit(ctx, name, sum[i]);
	}
	return 0;
}

int counters_parse_snmp6(const char *text, const char *prefix, counter_emit_fn emit, void *ctx,
			 char **err)
{
	char *copy = xstrdup(text), *cur = copy, *line;
	int n = 0;

	while ((line = next_line(&cur)) != NULL) {
		char *f[3], name[256], *end;
		double v;

		if (split_ws(line, f, 3) != 2)
			continue;
		v = strtod(f[1], &end);
		if (*end)
			continue;
		snprintf(name, sizeof(name), "%s.%s", prefix, f[0]);
		emit(ctx, name, v);
		n++;
	}
	free(copy);
	if (!n) {
		err_set(err, "no counters in snmp6 text");
		return -EINVAL;
	}
	return 0;
}

int counters_parse_neigh_stat(const char *text, const char *prefix, counter_emit_fn emit,
			      void *ctx, char **err)
{
	char *copy = xstrdup(text), *cur = copy, *line, *names[32];
	double sum[32] = { 0 };
	size_t n = 0;
	int rows = 0;

	line = next_line(&cur);
	if (line)
		n = split_ws(line, names, 32);
	while (n && (line = next_line(&cur)) != NULL) {
		char *f[32];
		size_t k = split_ws(line, f, 32);

		if (!k)
			continue;
		if (k != n) {
			err_set(err, "neighbour statistics row has %zu columns, header %zu", k, n);
			free(copy);
			return -EINVAL;
		}
		for (size_t i = 0; i < n; i++)
			sum[i] += (double)strtoull(f[i], NULL, 16);
		rows++;
	}
	if (!rows) {
		err_set(err, "no neighbour statistics rows");
		free(copy);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		char name[256];

		if (!strcmp(names[i], "entries"))
			continue;	/* a gauge, repeated in every row */
		snprintf(name, sizeof(name), "%s.%s", prefix, names[i]);
		emit(ctx, name, sum[i]);
	}
	free(copy);
	return 0;
}

int counters_parse_ethtool_features(const char *text, const char *prefix, counter_emit_fn emit,
				    void *ctx, char **err)
{
	static const char *const names[] = { "rx-checksumming", "tx-checksumming", "scatter-gather",
					     "tcp-segmentation-offload",
					     "generic-segmentation-offload",
					     "generic-receive-offload" };
	char *copy = xstrdup(text), *cur = copy, *line;
	int found = 0;

	while ((line = next_line(&cur)) != NULL) {
		size_t n = strcspn(line, ":");

		if (line[n] != ':')
			continue;
		for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
			const char *v = line + n + 1;
			char name[128];

			if (strlen(names[i]) != n || strncmp(line, names[i], n))
				continue;
			while (*v == ' ')
				v++;
			snprintf(name, sizeof(name), "%s.%s", prefix, names[i]);
			for (char *p = name + strlen(prefix); *p; p++)
				if (*p == '-')
					*p = '_';
			emit(ctx, name, !strncmp(v, "on", 2) ? 1 : 0);
			found++;
		}
	}
	free(copy);
	if (!found) {
		err_set(err, "no offload features in ethtool -k output");
		return -EINVAL;
	}
	return 0;
}
