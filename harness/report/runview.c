// SPDX-License-Identifier: GPL-2.0
/*
 * Wire vs stack of a run directory (see runview.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/jsonout.h"
#include "lib/metrics.h"
#include "run/pcapstat.h"
#include "scenario/regress.h"
#include "report/runview.h"
#include "lib/util.h"

static struct json_object *read_json(const char *path, bool must, char **err, int *ret)
{
	struct json_object *j;

	*ret = 0;
	if (access(path, F_OK)) {
		if (must) {
			err_set(err, "'%s' not found\nhint: give a run directory of netlab run or netlab regress",
				path);
			*ret = -ENOENT;
		}
		return NULL;
	}
	{
		char *why = NULL;

		if (json_file_read(path, &j, &why)) {
			err_set(err, "cannot read %s\nhint: the run directory is damaged; run the scenario again", why);
			*ret = -EINVAL;
		}
		free(why);
	}
	return j;
}

static char *jstr(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return xstrdup(json_object_get_string(v));
}

/* The sum of the metrics named PREFIX.L.<name> for each name present; NAN if none. */
static double msum(const struct metrics *m, const char *fmt, char l, const char *const *names)
{
	double sum = NAN, v;

	for (size_t i = 0; names[i]; i++) {
		char *n = xasprintf(fmt, l, names[i]);

		if (metrics_get(m, n, &v))
			sum = isnan(sum) ? v : sum + v;
		free(n);
	}
	return sum;
}

static void link_counters(const struct metrics *m, struct runview_link *k)
{
	static const char *const tx[] = { "tx_packets", NULL };
	static const char *const rx[] = { "rx_packets", NULL };
	static const char *const drops[] = { "rx_missed_errors", "rx_no_buffer_count",
					     "rx_dropped", "tx_dropped", "rx_fifo_errors",
					     "tx_fifo_errors", "alloc_rx_buff_failed", NULL };
	static const char *const ip_in[] = { "Ip.InReceives", NULL };
	static const char *const ip_out[] = { "Ip.OutRequests", NULL };
	static const char *const deliv[] = { "Udp.InDatagrams", "Tcp.InSegs", NULL };
	static const char *const errs[] = { "Ip.InDiscards", "Ip.InHdrErrors", "Ip.InAddrErrors",
					    "Ip.OutDiscards", "Udp.InErrors", "Udp.NoPorts",
					    "Udp.RcvbufErrors", "Udp.SndbufErrors", "Tcp.InErrs", NULL };

	if (!m) {
		k->nic_tx = k->nic_rx = k->nic_drops = k->ip_in = k->ip_out = NAN;
		k->delivered = k->stack_errors = NAN;
		return;
	}
	k->nic_tx = msum(m, "nic.%c.%s", k->label, tx);
	k->nic_rx = msum(m, "nic.%c.%s", k->label, rx);
	/* virtio-net counts per queue */
	if (isnan(k->nic_tx)) {
		static const char *const q[] = { "tx_queue_0_packets", NULL };
		k->nic_tx = msum(m, "nic.%c.%s", k->label, q);
	}
	if (isnan(k->nic_rx)) {
		static const char *const q[] = { "rx_queue_0_packets", NULL };
		k->nic_rx = msum(m, "nic.%c.%s", k->label, q);
	}
	k->nic_drops = msum(m, "nic.%c.%s", k->label, drops);
	k->ip_in = msum(m, "snmp.%c.%s", k->label, ip_in);
	k->ip_out = msum(m, "snmp.%c.%s", k->label, ip_out);
	k->delivered = msum(m, "snmp.%c.%s", k->label, deliv);
	k->stack_errors = msum(m, "snmp.%c.%s", k->label, errs);
	/* Counters are deltas of a run: a zero delta is not written. */
	if (!isnan(k->ip_in) || !isnan(k->ip_out) || !isnan(k->delivered)) {
		if (isnan(k->ip_in))
			k->ip_in = 0;
		if (isnan(k->ip_out))
			k->ip_out = 0;
		if (isnan(k->delivered))
			k->delivered = 0;
		if (isnan(k->stack_errors))
			k->stack_errors = 0;
	}
}

static int link_wire(const char *dir, struct runview_link *k, char **err)
{
	struct pcap_stats st;
	char *path = xasprintf("%s/%s", dir, k->pcap), *f;
	int ret;

	if (access(path, F_OK)) {
		free(path);
		return 0;
	}
	f = xasprintf("ether src %s", k->mac);
	ret = pcap_stats_read(path, f, &st, err);
	free(f);
	if (!ret) {
		k->wire_frames = st.packets;
		k->wire_tx = st.matched;
		f = xasprintf("ether dst %s or (ether multicast and not ether src %s)", k->mac, k->mac);
		ret = pcap_stats_read(path, f, &st, err);
		free(f);
		k->wire_rx = st.matched;
		k->have_pcap = !ret;
	}
	free(path);
	return ret;
}

int runview_read(const char *dir, struct runview **out, char **err)
{
	struct runview *v = xzalloc(sizeof(*v));
	char *rpath = xasprintf("%s/result.json", dir), *mpath = xasprintf("%s/metrics.json", dir);
	struct json_object *res, *met = NULL, *nics;
	int ret;

	*out = NULL;
	v->dir = xstrdup(dir);
	res = read_json(rpath, true, err, &ret);
	if (!ret)
		met = read_json(mpath, false, err, &ret);
	if (ret)
		goto out;
	if (met) {
		v->m = metrics_new();
		metrics_add_json(v->m, NULL, met);
	} else {
		v->note = xstrdup("no metrics.json (a netlab run, not a regress scenario): no counter deltas; the wire only");
	}
	if (json_object_object_get_ex(res, "nics", &nics) && json_object_is_type(nics, json_type_array)) {
		size_t n = json_object_array_length(nics);

		v->links = xzalloc((n + 1) * sizeof(*v->links));
		for (size_t i = 0; i < n; i++) {
			struct json_object *o = json_object_array_get_idx(nics, i);
			struct runview_link *k = &v->links[v->n_links];
			char *label = jstr(o, "label");

			k->mac = jstr(o, "mac");
			k->pcap = jstr(o, "pcap");
			if (!label || !label[0] || !k->mac || !k->pcap) {
				free(label);
				free(k->mac);
				free(k->pcap);
				memset(k, 0, sizeof(*k));
				continue;
			}
			k->label = label[0];
			free(label);
			k->ifname = jstr(o, "ifname");
			k->model = jstr(o, "model");
			v->n_links++;
			link_counters(v->m, k);
			ret = link_wire(dir, k, err);
			if (ret)
				goto out;
		}
	}
out:
	json_object_put(res);
	json_object_put(met);
	free(rpath);
	free(mpath);
	if (ret) {
		runview_free(v);
		return ret;
	}
	*out = v;
	return 0;
}

void runview_free(struct runview *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n_links; i++) {
		free(v->links[i].ifname);
		free(v->links[i].model);
		free(v->links[i].mac);
		free(v->links[i].pcap);
	}
	free(v->links);
	metrics_free(v->m);
	free(v->note);
	free(v->dir);
	free(v);
}

static void pnum(FILE *f, int w, double x)
{
	if (isnan(x))
		fprintf(f, " %*s", w, "-");
	else
		fprintf(f, " %*.0f", w, x);
}

/* Counter families shown in full with --counters, in this order. */
static const char *const families[] = { "snmp.", "netstat.", "snmp6.", "softnet.", "nic.", "qdisc.",
					"neigh.", NULL };

void runview_print(const struct runview *v, FILE *f, bool all)
{
	char *story = v->m ? regress_loss_story(v->m) : NULL;

	fprintf(f, "wire and stack per link (wire: host-side pcap; nic/ip/sockets: guest counter deltas):\n");
	fprintf(f, "%-4s %-6s %-11s %8s %8s %8s %8s %8s %8s %8s %9s %9s\n", "link", "if", "model",
		"wire_tx", "wire_rx", "nic_tx", "nic_rx", "nic_drop", "ip_in", "ip_out", "delivered",
		"stack_err");
	for (size_t i = 0; i < v->n_links; i++) {
		const struct runview_link *k = &v->links[i];

		fprintf(f, "%-4c %-6s %-11s", k->label, k->ifname ? k->ifname : "-",
			k->model ? k->model : "-");
		pnum(f, 8, k->have_pcap ? (double)k->wire_tx : NAN);
		pnum(f, 8, k->have_pcap ? (double)k->wire_rx : NAN);
		pnum(f, 8, k->nic_tx);
		pnum(f, 8, k->nic_rx);
		pnum(f, 8, k->nic_drops);
		pnum(f, 8, k->ip_in);
		pnum(f, 8, k->ip_out);
		pnum(f, 9, k->delivered);
		pnum(f, 9, k->stack_errors);
		fputc('\n', f);
	}
	if (story)
		fprintf(f, "loss: %s\n", story);
	free(story);
	if (v->note)
		fprintf(f, "note: %s\n", v->note);
	if (!all || !v->m)
		return;
	fprintf(f, "\ncounter deltas (nonzero):\n");
	for (size_t fam = 0; families[fam]; fam++) {
		size_t len = strlen(families[fam]);

		for (size_t i = 0; i < metrics_count(v->m); i++) {
			const char *name;
			double x;

			metrics_at(v->m, i, &name, &x);
			if (x != 0 && !strncmp(name, families[fam], len))
				fprintf(f, "  %-44s %14.0f\n", name, x);
		}
	}
}

static struct json_object *jnum(double x)
{
	return isnan(x) ? NULL : metrics_json_number(x);
}

struct json_object *runview_to_json(const struct runview *v)
{
	struct json_object *o = json_object_new_object(), *links = json_object_new_array();
	struct json_object *counters = json_object_new_object();
	char *story = v->m ? regress_loss_story(v->m) : NULL;

	for (size_t i = 0; i < v->n_links; i++) {
		const struct runview_link *k = &v->links[i];
		struct json_object *l = json_object_new_object();
		char lab[2] = { k->label, 0 };

		json_object_object_add(l, "label", json_object_new_string(lab));
		json_object_object_add(l, "ifname", k->ifname ? json_object_new_string(k->ifname) : NULL);
		json_object_object_add(l, "model", k->model ? json_object_new_string(k->model) : NULL);
		json_object_object_add(l, "pcap", json_object_new_string(k->pcap));
		json_object_object_add(l, "wire_frames", k->have_pcap ? json_object_new_uint64(k->wire_frames) : NULL);
		json_object_object_add(l, "wire_tx", k->have_pcap ? json_object_new_uint64(k->wire_tx) : NULL);
		json_object_object_add(l, "wire_rx", k->have_pcap ? json_object_new_uint64(k->wire_rx) : NULL);
		json_object_object_add(l, "nic_tx", jnum(k->nic_tx));
		json_object_object_add(l, "nic_rx", jnum(k->nic_rx));
		json_object_object_add(l, "nic_drops", jnum(k->nic_drops));
		json_object_object_add(l, "ip_in", jnum(k->ip_in));
		json_object_object_add(l, "ip_out", jnum(k->ip_out));
		json_object_object_add(l, "delivered", jnum(k->delivered));
		json_object_object_add(l, "stack_errors", jnum(k->stack_errors));
		json_object_array_add(links, l);
	}
	for (size_t i = 0; v->m && i < metrics_count(v->m); i++) {
		const char *name;
		double x;

		metrics_at(v->m, i, &name, &x);
		for (size_t fam = 0; families[fam]; fam++)
			if (x != 0 && !strncmp(name, families[fam], strlen(families[fam])))
				json_object_object_add(counters, name, metrics_json_number(x));
	}
	json_object_object_add(o, "links", links);
	json_object_object_add(o, "loss", story ? json_object_new_string(story) : NULL);
	json_object_object_add(o, "counters", v->m ? counters : (json_object_put(counters), NULL));
	json_object_object_add(o, "note", v->note ? json_object_new_string(v->note) : NULL);
	free(story);
	return o;
}
