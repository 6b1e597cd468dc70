// SPDX-License-Identifier: GPL-2.0
/*
 * Run directory -> metrics: what a scenario's run left, collected (see
 * scnrun.c for the guest script that wrote it).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/jsonout.h"
#include "run/counters.h"
#include "run/run.h"
#include "scenario/scngen.h"
#include "scenario/scnrun.h"
#include "scenario/scnrun-int.h"
#include "trace/analysis.h"
#include "trace/drvring.h"
#include "trace/netrx.h"
#include "trace/pktpath.h"
#include "trace/tracedrops.h"
#include "trace/traceset.h"
#include "trace/txpath.h"
#include "vm/backend.h"

/* ---- collection ------------------------------------------------------- */


/* Each VM's files/ of the run in @rundir, and which VM holds each end's NIC. */
static void collect_init(struct collect *c, const struct scenario *s, const struct vm_config *cfg,
			 const char *rundir, struct metrics *m, char **err)
{
	*c = (struct collect){ .s = s, .cfg = cfg, .m = m, .err = err };
	for (unsigned int i = 0; i < VM_MAX_VMS; i++)
		c->files[i] = cfg->topo->n_vms > 1 ? xasprintf("%s/%s/files", rundir, run_vm_name(i))
						   : xasprintf("%s/files", rundir);
	c->end_vm[0] = cfg->nics[scn_tx_nic(s)].vm;
	c->end_vm[1] = cfg->nics[scn_rx_nic(s)].vm;
}

static void collect_release(struct collect *c)
{
	for (unsigned int i = 0; i < VM_MAX_VMS; i++)
		free(c->files[i]);
}

/* Section @i of a scenario with [traffic.NAME] sections: its ends' files are in files/NAME/. */
static void collect_section(struct collect *c, struct scenario *view, size_t i)
{
	scn_traffic_view(c->s, i, view);
	c->s = view;
	c->end_vm[0] = c->cfg->nics[scn_tx_nic(view)].vm;
	c->end_vm[1] = c->cfg->nics[scn_rx_nic(view)].vm;
	for (unsigned int v = 0; v < VM_MAX_VMS; v++) {
		char *dir = c->files[v] ? xasprintf("%s/%s", c->files[v], scn_traffic_name(view, i))
				       : NULL;

		free(c->files[v]);
		c->files[v] = dir;
	}
}

int scnrun_collect_sections(struct collect *c)
{
	const struct scenario *s = c->s;

	metrics_set(c->m, "traffic.sections", (double)s->n_sections);
	for (size_t i = 0; i < s->n_sections; i++) {
		const struct scn_gen *gen = scn_gen_find(s->sections[i].generator);
		bool first = scn_traffic_first_of_family(s, i);
		struct metrics *m = metrics_new();
		struct scenario view;
		struct collect sc = { .s = s, .cfg = c->cfg, .m = m, .err = c->err };
		int ret;

		for (unsigned int v = 0; v < VM_MAX_VMS; v++)
			sc.files[v] = c->files[v] ? xstrdup(c->files[v]) : NULL;
		collect_section(&sc, &view, i);
		ret = gen->collect(&sc, tgen_find(gen->name));
		for (size_t k = 0; !ret && k < metrics_count(m); k++) {
			const char *name;
			char *full;
			double v;

			metrics_at(m, k, &name, &v);
			full = xasprintf("traffic.%s.%s", s->sections[i].name, name);
			metrics_set(c->m, full, v);
			free(full);
			if (scn_traffic_additive(name)) {
				double sum = 0;

				full = xasprintf("traffic." SCN_TRAFFIC_ALL ".%s", name);
				metrics_get(c->m, full, &sum);
				metrics_set(c->m, full, sum + v);
				free(full);
			}
			if (first)
				metrics_set(c->m, name, v);
		}
		collect_release(&sc);
		metrics_free(m);
		if (ret)
			return ret;
	}
	return 0;
}

/* The files of the VM of the sender (role 0) or of the receiver (role 1). */
static const char *files_of(const struct collect *c, unsigned int role)
{
	return c->files[c->end_vm[role]];
}

/* The files of the VM that holds NIC index `nic`. */
static const char *files_of_nic(const struct collect *c, unsigned int nic)
{
	return c->files[c->cfg->nics[nic].vm];
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

		for (size_t k = 0; !ret && k < scnrun_n_snap_sources; k++) {
			const struct snap_source *src = &scnrun_snap_sources[k];
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

/*
 * queues.<L>.{rx,tx}: the queues each NIC had once set up, from the
 * "rx N" / "tx N" lines of its VM's queues-<L> (scnrun.c script_nic_record).
 * A NIC without the file (an older run) has none.
 */
static void collect_queues(struct collect *c)
{
	for (unsigned int i = 0; i < c->cfg->n_nics; i++) {
		char l = c->cfg->nics[i].label;
		char *path = xasprintf("%s/queues-%c", files_of_nic(c, i), l), *text = NULL;
		char *save = NULL;

		if (file_read(path, &text, NULL) == 0) {
			for (char *ln = strtok_r(text, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
				unsigned int n;
				char dir[3], name[32];

				/* "rx 2", not "rx-0 rps_cpus 3" */
				if (sscanf(ln, "%2s %u", dir, &n) != 2 || ln[2] != ' ' ||
				    (strcmp(dir, "rx") && strcmp(dir, "tx")))
					continue;
				snprintf(name, sizeof(name), "queues.%c.%s", l, dir);
				metrics_set(c->m, name, n);
			}
		}
		free(text);
		free(path);
	}
}

/* Counters as deltas over the traffic; ring sizes and offloads as they were after. */
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
		if (!strncmp(name, "ring.", 5) || !strncmp(name, "offload.", 8) ||
		    strstr(name, ".backlog_len"))
			metrics_set(c->m, name, a);
		else if (metrics_get(before, name, &b))
			metrics_set(c->m, name, a - b);
	}
	metrics_free(before);
	metrics_free(after);
	return ret;
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
	struct json_object *j = access(path, R_OK) ? NULL : json_file_get(path), *v, *a;

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

/* trace-cmd record in VM @vm finished cleanly (its file is complete): its note says 0. */
static int trace_recorded(struct collect *c, unsigned int vm)
{
	char *status = scnrun_status_text(c->files[vm]), *bad = NULL;
	long st = 0;
	int ret = 0, r;

	r = vm_status_note_int(status, "trace-cmd.status", 0, 255, &st, &bad);
	if (r == -ERANGE || (!r && st)) {
		char *log = xasprintf("%s/trace-cmd.log", c->files[vm]), num[24];

		snprintf(num, sizeof(num), "%ld", st);
		err_set(c->err,
			"%s: trace-cmd record ended with status %.40s in the guest (see %s): the trace is incomplete\n"
			"hint: a long or busy trace can fill the guest's memory, where it is written first: raise [scenario] mem, shorten the duration, or trace fewer events",
			c->s->path, bad ? "(not a number)" : num, log);
		free(log);
		ret = -EIO;
	}
	free(bad);
	free(status);
	return ret;
}

/*
 * VM @vm's trace.dat through every analysis, in ONE pass (trace/analysis.h),
 * the first time it is asked for; the drops and the path metrics then read
 * the same results. The timeline is the one the run page shows (--worst 1):
 * its metrics do not depend on which trees are kept.
 */
static struct trace_analyses *vm_trace(struct collect *c, unsigned int vm)
{
	struct trace_analyses *ta = &c->trace[vm];

	if (!c->decoded[vm]) {
		static const struct netrx_opts page_timeline = NETRX_OPTS_PAGE;

		c->ring_opts = (struct drvring_opts){ .counters = c->m };
		c->trace_path[vm] = xasprintf("%s/trace.dat", c->files[vm]);
		memset(ta, 0, sizeof(*ta));
		ta->path = c->trace_path[vm];
		for (int id = 0; id < TA_N; id++)
			ta->a[id].want = true;
		ta->a[TA_TIMELINE].opts = &page_timeline;
		ta->a[TA_RING].opts = &c->ring_opts;
		trace_analyses_run(ta);
		c->decoded[vm] = true;
	}
	return ta;
}

/* An analysis's rc, its error copied into *c->err (the results stay for the page). */
static int vm_rc(struct collect *c, struct trace_analyses *ta, enum trace_analysis_id id)
{
	struct trace_analysis *a = &ta->a[id];

	if (a->rc && a->err)
		err_set(c->err, "%s", a->err);
	return a->rc;
}

/* drops.* from each VM's trace.dat, summed over the VMs. */
static int collect_drops(struct collect *c)
{
	for (unsigned int vm = 0; vm < c->cfg->topo->n_vms; vm++) {
		struct trace_analyses *ta;
		int ret;

		if (trace_recorded(c, vm))
			return -EIO;
		ta = vm_trace(c, vm);
		ret = vm_rc(c, ta, TA_DROPS);
		if (ret == -ENODATA) {
			/* A scenario that dropped skb:kfree_skb from its set. */
			free(*c->err);
			*c->err = NULL;
			return 0;
		}
		if (ret)
			return ret;
		trace_analysis_table[TA_DROPS].metrics(ta->a[TA_DROPS].result, c->m);
	}
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

/*
 * One VM's trace metrics: the packet path, then the timeline, then the
 * rings, then the transmit side, as their one pass left them; each only
 * when those before it gave a result, the timeline and the rings only when
 * the ones they followed attached (as separate passes one after the other
 * did). An attach error of the timeline or the rings comes after the
 * results before it; the rings without their events, and the transmit side
 * without its, are no error.
 */
static int trace_path_vm(struct collect *c, struct trace_analyses *ta, struct metrics *m)
{
	static const enum trace_analysis_id after[] = { TA_TIMELINE, TA_RING, TA_TX };
	const struct trace_analysis *a = ta->a;
	char *late_err = NULL;
	int ret, late = 0;

	if (!a[TA_PATH].attached)
		return vm_rc(c, ta, TA_PATH);
	ret = vm_rc(c, ta, TA_PATH);
	if (!ret)
		pktpath_metrics(a[TA_PATH].result, m);
	for (size_t i = 0; i < ARRAY_SIZE(after); i++) {
		enum trace_analysis_id id = after[i];

		if (id == TA_RING && !a[TA_TIMELINE].attached)
			continue;	/* the rings followed the timeline */
		if (!a[id].attached) {
			if (id != TA_TX) {
				late = a[id].rc;
				free(late_err);
				late_err = a[id].err ? xstrdup(a[id].err) : NULL;
			}
			continue;
		}
		if (ret || (id == TA_RING && a[id].rc == -ENODATA))
			continue;
		ret = vm_rc(c, ta, id);
		if (!ret)
			trace_analysis_table[id].metrics(a[id].result, m);
	}
	if (!ret && late) {
		ret = late;
		free(*c->err);
		*c->err = late_err;
		late_err = NULL;
	}
	free(late_err);
	return ret;
}

/* latency.*, flows.* (pktpath) and netrx.*, tx.* (netrx) from each VM's trace. */
static int collect_trace_path(struct collect *c)
{
	for (unsigned int vm = 0; vm < c->cfg->topo->n_vms; vm++) {
		struct metrics *m = metrics_new();
		int ret = trace_path_vm(c, vm_trace(c, vm), m);

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

/* What an end was doing when the path failed it, for people. */
static const char *phase_words(const char *phase)
{
	static const char *const words[][2] = {
		{ "ack", "waiting for the last acknowledgements" },
		{ "send", "sending" },
		{ "receive", "receiving" },
		{ "connect", "connecting" },
		{ "accept", "waiting for the connection" },
		{ "hello", "exchanging the hello" },
		{ "transaction", "in a transaction" },
	};

	for (size_t i = 0; phase && i < ARRAY_SIZE(words); i++)
		if (!strcmp(phase, words[i][0]))
			return words[i][1];
	return phase ? phase : "?";
}

static const char *jstr(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* The line of one end's failure; the generator's message is guest text: sanitised. */
static char *failure_line(const struct tgen *g, bool tx_end, struct json_object *f)
{
	const char *kind = jstr(f, "kind"), *msg = jstr(f, "message");
	double unacked = scn_gen_jnum(f, "unacked_bytes"), idle = scn_gen_jnum(f, "idle_s");
	char *who = xasprintf("%s %s, %s", g->name, tx_end ? g->tx_flag : g->rx_flag,
			      phase_words(jstr(f, "phase")));
	char *first = msg ? xasprintf("%.*s", (int)strcspn(msg, "\n"), msg) : xstrdup("");
	char *out;

	if (!kind || strspn(kind, "abcdefghijklmnopqrstuvwxyz") != strlen(kind))
		kind = "failed";
	for (char *p = first; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
	if (!strcmp(kind, "stalled") && unacked > 0)
		out = xasprintf("stalled: %.0f bytes unacknowledged for %.1f s (%s)", unacked, idle,
				who);
	else if (!strcmp(kind, "stalled") && !isnan(idle))
		out = xasprintf("stalled: no progress for %.1f s (%s): %s", idle, who, first);
	else
		out = xasprintf("%s: %s (%s)", kind, first, who);
	free(who);
	free(first);
	return out;
}

char *scnrun_stall_reason(const struct scenario *s, const struct vm_config *cfg,
			  const char *rundir)
{
	char *out = NULL, *err = NULL;

	for (size_t i = 0; i < scn_n_traffic(s) && !out; i++) {
		const char *gen = i < s->n_sections ? s->sections[i].generator : s->generator;
		const struct tgen *g = tgen_find(gen);
		struct scenario view;
		struct collect c;

		if (!g || !g->can_stall)
			continue;
		collect_init(&c, s, cfg, rundir, NULL, &err);
		if (s->n_sections)
			collect_section(&c, &view, i);
		for (int end = 0; end < 2 && !out; end++) {
			struct json_object *j = NULL, *f;

			if (scn_gen_read_end(&c, end, end ? g->rx_out : g->tx_out, &j) == 0 &&
			    (f = scn_gen_failure(j)))
				out = failure_line(g, !end, f);
			json_object_put(j);
			free(err);
			err = NULL;
		}
		collect_release(&c);
		if (out && s->n_sections) {
			char *named = xasprintf("[traffic.%s] %s", s->sections[i].name, out);

			free(out);
			out = named;
		}
	}
	return out;
}

int scnrun_collect(const struct scenario *s, const struct vm_config *cfg, const char *rundir,
		   struct metrics *m, char **err)
{
	return scnrun_collect_keep(s, cfg, rundir, m, NULL, err);
}

int scnrun_collect_keep(const struct scenario *s, const struct vm_config *cfg, const char *rundir,
			struct metrics *m, struct scnrun_trace *keep, char **err)
{
	const struct scn_gen *gen = scn_gen_find(s->generator);
	int loss = scn_traffic_loss_section(s);
	struct scenario view;
	struct collect c;
	int ret = 0;

	collect_init(&c, s, cfg, rundir, m, err);
	if (s->n_sections) {
		ret = scnrun_collect_sections(&c);
		/* The captures and the loss identity: the first UDP stream's (its port, its direction). */
		scn_traffic_view(s, loss >= 0 ? (size_t)loss : 0, &view);
		c.s = &view;
		c.end_vm[0] = cfg->nics[scn_tx_nic(&view)].vm;
		c.end_vm[1] = cfg->nics[scn_rx_nic(&view)].vm;
		gen = scn_gen_find(view.generator);
	} else if (gen) {	/* else [exec] alone */
		ret = gen->collect(&c, tgen_find(gen->name));
	}
	if (!ret && s->exec)
		ret = scnrun_exec_metrics(s, c.files[scnrun_exec_vm(s, cfg)], rundir, m, err);
	if (!ret)
		ret = collect_counters(&c);
	if (!ret) {
		collect_queues(&c);
		scnrun_cpu_backlog(&c);
	}
	if (!ret)
		ret = scnrun_collect_pcaps(&c, rundir);
	if (!ret)
		collect_acpi(&c, rundir);
	if (!ret && s->trace)
		ret = collect_drops(&c);
	if (!ret && s->trace)
		ret = collect_trace_path(&c);
	if (!ret && s->trace)
		scnrun_collect_nic_tx(&c);
	if (!ret && gen && gen->loss_identity && cfg->n_nics >= 2)
		scnrun_udp_loss(&c);
	if (!ret && s->gdb)
		ret = scnrun_gdb_metrics(s, rundir, m, err);
	for (unsigned int i = 0; i < VM_MAX_VMS; i++) {
		/* One VM's results, once all went well: the run page's (scnrun.h). */
		if (!ret && keep && i == 0 && cfg->topo->n_vms == 1 && c.decoded[i]) {
			keep->ta = c.trace[i];
			keep->path = c.trace_path[i];
			keep->ta.path = keep->path;
			c.trace_path[i] = NULL;
		} else if (c.decoded[i]) {
			trace_analyses_release(&c.trace[i]);
		}
		free(c.trace_path[i]);
	}
	collect_release(&c);
	return ret;
}

void scnrun_trace_release(struct scnrun_trace *t)
{
	trace_analyses_release(&t->ta);
	free(t->path);
	memset(t, 0, sizeof(*t));
}
