// SPDX-License-Identifier: GPL-2.0
/*
 * Scenario files, key by key: the syntax of each section's values as inih
 * reads them, and the errors they report (see scenario.c for the reader and
 * the checks across keys).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "generators.h"
#include "boot/flavour.h"
#include "scenario/scenario.h"
#include "scenario/scenario-int.h"
#include "scenario/scngen.h"
#include "vm/share.h"
#include "scenario/matrix.h"
#include "lib/metrics.h"
#include "trace/traceset.h"
#include "lib/util.h"

/* ---- errors and values every section checks ------------------------------ */

/* Keep the error on the earliest line; "PATH:LINE: msg" or "PATH: msg". */
int scn_err(struct parse_ctx *c, unsigned int line, const char *fmt, ...)
{
	struct sbuf b;
	va_list ap;

	if (c->err && !(line && (!c->err_line || line < c->err_line)))
		return -EINVAL;
	sbuf_init(&b);
	if (line)
		sbuf_addf(&b, "%s:%u: ", c->path, line);
	else
		sbuf_addf(&b, "%s: ", c->path);
	va_start(ap, fmt);
	sbuf_vaddf(&b, fmt, ap);
	va_end(ap);
	free(c->err);
	c->err = sbuf_detach(&b);
	c->err_line = line;
	return -EINVAL;
}

int scn_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "yes", "true", "1" };
	static const char *const no[] = { "no", "false", "0" };

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (!strcmp(s, yes[i]) || !strcmp(s, no[i])) {
			*out = !strcmp(s, yes[i]);
			return 0;
		}
	}
	return -EINVAL;
}

/* Every character of s in `set`, or alphanumeric; s non-empty. */
bool scn_chars_ok(const char *s, const char *set)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(set, *s))
			return false;
	return true;
}

/*
 * Values that end up on a guest shell command line (sysctl values, tc
 * arguments) are limited to characters that need no quoting.
 */
#define SAFE_VALUE_CHARS " ._-%:/,+=@"

int scn_need_safe_value(struct parse_ctx *c, const char *section, const char *key,
			const char *value)
{
	if (scn_chars_ok(value, SAFE_VALUE_CHARS))
		return 0;
	return scn_err(c, c->line,
		       "value of '%s' in [%s] may only contain letters, digits, spaces and \"%s\"",
		       key, section, SAFE_VALUE_CHARS + 1);
}

const char *scn_generator_list(void)
{
	static char list[128];

	if (!list[0]) {
		for (const struct tgen *g = tgen_all; g->name; g++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 list[0] ? ", " : "", g->name);
	}
	return list;
}

/* One key: a flag is "(boolean)", a choice lists its values. */
static void generator_key(struct sbuf *out, const char *key, const struct topt *o)
{
	sbuf_addf(out, "`%s`", key);
	if (!o || o->kind == TOPT_FLAG) {
		sbuf_adds(out, " (boolean)");
	} else if (o->choices) {
		sbuf_adds(out, " (");
		for (const char *const *c = o->choices; *c; c++)
			sbuf_addf(out, "%s`%s`", c == o->choices ? "" : c[1] ? ", " : " or ", *c);
		sbuf_adds(out, ")");
	}
}

void scn_generator_table(struct sbuf *out)
{
	for (const struct tgen *g = tgen_all; g->name; g++) {
		sbuf_addf(out, "| `%s` | ", g->name);
		for (const char *const *k = g->keys; *k; k++) {
			sbuf_adds(out, k == g->keys ? "" : ", ");
			generator_key(out, *k, tgen_key_opt(g, *k));
		}
		if (g->v6_key) {
			sbuf_adds(out, ", ");
			generator_key(out, g->v6_key, NULL);
		}
		sbuf_adds(out, " |\n");
	}
}

const char *scn_generator_name(const char *name)
{
	const struct tgen *g = tgen_find(name);

	/* traffic/'s and the harness's descriptors both (a unit test keeps them paired). */
	return g && scn_gen_find(g->name) ? g->name : NULL;
}

/* ---- [scenario] ----------------------------------------------------------- */

static int set_uint(struct parse_ctx *c, const char *key, const char *value,
		    unsigned long min, unsigned long max, unsigned int *out)
{
	unsigned long v;

	if (parse_uint(value, min, max, &v))
		return scn_err(c, c->line, "bad %s '%s': expected an integer in %lu..%lu", key,
			       value, min, max);
	*out = (unsigned int)v;
	return 0;
}

static int set_description(struct parse_ctx *c, const char *value)
{
	c->s->description = xstrdup(value);
	return 0;
}

static int set_topology(struct parse_ctx *c, const char *value)
{
	char *why = NULL, *path = NULL;
	int ret = 0;

	/* A topology file's path is relative to the scenario's directory. */
	if (strchr(value, '/') && value[0] != '/') {
		const char *slash = strrchr(c->path, '/');

		if (slash)
			path = xasprintf("%.*s/%s", (int)(slash - c->path), c->path, value);
	}
	c->s->topo = topology_lookup(path ? path : value, &why);
	c->topology_line = c->line;
	if (!c->s->topo)
		ret = scn_err(c, c->line, "topology '%s': %s", value, why);
	free(why);
	free(path);
	return ret;
}

static int set_append(struct parse_ctx *c, const char *value)
{
	c->s->append = xstrdup(value);
	return 0;
}

static int set_duration(struct parse_ctx *c, const char *value)
{
	c->duration_line = c->line;
	return set_uint(c, "duration", value, 1, 3600, &c->s->duration_s);
}

static int set_repeat(struct parse_ctx *c, const char *value)
{
	return set_uint(c, "repeat", value, 1, 100, &c->s->repeat);
}

static int set_timeout(struct parse_ctx *c, const char *value)
{
	c->timeout_line = c->line;
	return set_uint(c, "timeout", value, 1, 86400, &c->s->timeout_s);
}

static int set_direction(struct parse_ctx *c, const char *value)
{
	c->direction_line = c->line;
	if (!strcmp(value, "A>B"))
		c->s->direction = SCN_DIR_AB;
	else if (!strcmp(value, "B>A"))
		c->s->direction = SCN_DIR_BA;
	else
		return scn_err(c, c->line, "bad direction '%s': expected A>B or B>A (the sender first)",
			       value);
	return 0;
}

static int set_record(struct parse_ctx *c, const char *value)
{
	if (scn_parse_bool(value, &c->s->record))
		return scn_err(c, c->line, "bad record '%s': expected yes/no/true/false/1/0", value);
	return 0;
}

static int set_flavour(struct parse_ctx *c, const char *value)
{
	if (!flavour_name_ok(value) || strlen(value) >= sizeof(c->s->flavour))
		return scn_err(c, c->line, "bad flavour '%s': the name of a directory of "
				   "kconfigs/flavours/ (letters, digits, '_', '-', '.'; at most %zu)",
			       value, sizeof(c->s->flavour) - 1);
	snprintf(c->s->flavour, sizeof(c->s->flavour), "%s", value);
	return 0;
}

static int set_deterministic(struct parse_ctx *c, const char *value)
{
	if (scn_parse_bool(value, &c->s->deterministic))
		return scn_err(c, c->line, "bad deterministic '%s': expected yes/no/true/false/1/0",
			       value);
	return 0;
}

/* Guest memory in MB: the trace is written to the guest's RAM before it leaves. */
static int set_mem(struct parse_ctx *c, const char *value)
{
	return set_uint(c, "mem", value, 64, 16384, &c->s->mem_mb);
}

/*
 * Bytes kept of each captured frame: 0 for whole frames (as --snaplen). A
 * checksum is verified only on a whole packet: a scenario that looks for
 * corruption in frames longer than the default 256 raises it.
 */
static int set_snaplen(struct parse_ctx *c, const char *value)
{
	unsigned int v = 0;
	int ret = set_uint(c, "snaplen", value, 0, 262144, &v);

	if (!ret && v && v < 64)
		return scn_err(c, c->line, "bad snaplen '%s': 0 (whole frames) or 64..262144 bytes",
			       value);
	c->s->snaplen = (int)v;
	return ret;
}

/* acpi = FILE...: relative to the scenario file's directory. */
static int set_acpi(struct parse_ctx *c, const char *value)
{
	const char *slash = strrchr(c->path, '/');
	char *list = xstrdup(value), *rest = list, *f;
	int ret = 0;

	c->s->acpi_line = c->line;
	while (!ret && (f = strsep(&rest, " \t"))) {
		char *path;

		if (!*f)
			continue;
		path = f[0] == '/' || !slash ? xstrdup(f)
					     : xasprintf("%.*s/%s", (int)(slash - c->path), c->path, f);
		if (access(path, R_OK) < 0)
			ret = scn_err(c, c->line, "cannot read ACPI table '%s': %s", path,
				      strerror(errno));
		c->s->acpi = xrealloc_array(c->s->acpi, c->s->n_acpi + 1, sizeof(char *));
		c->s->acpi[c->s->n_acpi++] = path;
	}
	free(list);
	return ret;
}

/* share = DIR[:GUEST][:rw] ...: DIR against the scenario's directory (vm/share.h). */
static int set_share(struct parse_ctx *c, const char *value)
{
	const char *slash = strrchr(c->path, '/');
	char *dir = slash ? xasprintf("%.*s", (int)(slash - c->path), c->path) : NULL;
	char *list = xstrdup(value), *rest = list, *f, *why = NULL;
	struct scenario *s = c->s;
	int ret = 0;

	s->share_line = c->line;
	while (!ret && (f = strsep(&rest, " \t"))) {
		if (!*f)
			continue;
		s->shares = xrealloc_array(s->shares, s->n_shares + 1, sizeof(*s->shares));
		if (share_parse(f, dir, &s->shares[s->n_shares], &why))
			ret = scn_err(c, c->line, "share '%s': %s", f, why);
		else
			s->n_shares++;
		free(why);
		why = NULL;
	}
	if (!ret && share_list_check(s->shares, s->n_shares, NULL, 0, &why))
		ret = scn_err(c, c->line, "share: %s", why);
	free(why);
	free(list);
	free(dir);
	return ret;
}

static const struct {
	const char *key;
	int (*set)(struct parse_ctx *c, const char *value);
} scenario_keys[] = {
	{ "description", set_description },
	{ "topology", set_topology },
	{ "append", set_append },
	{ "duration", set_duration },
	{ "repeat", set_repeat },
	{ "timeout", set_timeout },
	{ "deterministic", set_deterministic },
	{ "record", set_record },
	{ "flavour", set_flavour },
	{ "direction", set_direction },
	{ "mem", set_mem },
	{ "snaplen", set_snaplen },
	{ "acpi", set_acpi },
	{ "share", set_share },
};

#define SCENARIO_KEYS                                                                          \
	"description, topology, nic.<LABEL>, ring.<LABEL>.rx, ring.<LABEL>.tx, "             \
	"coalesce.<LABEL>.PARAM, mtu.<LABEL>, direction, append, duration, " \
	"repeat, timeout, deterministic, record, flavour, mem, snaplen, acpi, share, cpus, cpus.a, "        \
	"cpus.b, queues.<LABEL>, irq.<LABEL>, rps.<LABEL>, xps.<LABEL>, rfs"

/* A NIC label: one of A, B, ... (VM_MAX_NICS of them); -1 otherwise. */
static int label_index(const char *s, size_t len)
{
	return len == 1 ? vm_nic_index(*s) : -1;
}

static int bad_label(struct parse_ctx *c, const char *key, const char *label, size_t len)
{
	return scn_err(c, c->line, "bad NIC label '%.*s' in '%s' (labels are A..%c)", (int)len,
		       label, key, 'A' + VM_MAX_NICS - 1);
}

/* nic.<L> = model */
static int set_nic(struct parse_ctx *c, const char *key, const char *value)
{
	int i = label_index(key + 4, strlen(key + 4));

	if (i < 0)
		return bad_label(c, key, key + 4, strlen(key + 4));
	c->nic_line[i] = c->line;
	c->s->nic_model[i] = nic_model_find(value);
	if (!c->s->nic_model[i])
		return scn_err(c, c->line, "unknown NIC model '%s' (models: %s)", value,
			       nic_model_list());
	return 0;
}

/* ring.<L>.rx / ring.<L>.tx = entries */
static int set_ring(struct parse_ctx *c, const char *key, const char *value)
{
	const char *label = key + 5, *dot = strchr(label, '.');
	size_t len = dot ? (size_t)(dot - label) : strlen(label);
	int i = label_index(label, len);

	if (!dot || (strcmp(dot, ".rx") && strcmp(dot, ".tx")))
		return scn_err(c, c->line,
			       "unknown key '%s' in [scenario] (ring keys are ring.<LABEL>.rx and ring.<LABEL>.tx)",
			       key);
	if (i < 0)
		return bad_label(c, key, label, len);
	if (!c->ring_line[i])
		c->ring_line[i] = c->line;
	return set_uint(c, key, value, 0, 65536,
			!strcmp(dot, ".rx") ? &c->s->ring_rx[i] : &c->s->ring_tx[i]);
}

/* mtu.<L> = BYTES: the NIC's MTU, set in the guest (ip link set mtu). */
static int set_mtu(struct parse_ctx *c, const char *key, const char *value)
{
	int i = label_index(key + 4, strlen(key + 4));

	if (i < 0)
		return bad_label(c, key, key + 4, strlen(key + 4));
	c->mtu_line[i] = c->line;
	return set_uint(c, key, value, 68, 65535, &c->s->mtu[i]);
}

/* coalesce.<L>.<param> = N: interrupt coalescing, for ethtool -C. */
static int set_coalesce(struct parse_ctx *c, const char *key, const char *value)
{
	static const char *const params[] = { "rx-usecs", "rx-frames", "tx-usecs", "tx-frames",
					      "rx-usecs-irq", "rx-frames-irq", "tx-usecs-irq",
					      "tx-frames-irq" };
	const char *label = key + 9, *dot = strchr(label, '.');
	size_t len = dot ? (size_t)(dot - label) : strlen(label);
	int i = label_index(label, len);
	unsigned int v = 0;
	char *all;
	int ret;

	if (dot)
		for (size_t k = 0; k < ARRAY_SIZE(params); k++)
			if (!strcmp(dot + 1, params[k]))
				goto known;
	return scn_err(c, c->line,
		       "unknown key '%s' in [scenario] (coalesce keys are coalesce.<LABEL>.PARAM, PARAM one of rx-usecs, rx-frames, tx-usecs, tx-frames and their -irq forms)",
		       key);
known:
	if (i < 0)
		return bad_label(c, key, label, len);
	if (!c->ring_line[i])
		c->ring_line[i] = c->line;
	ret = set_uint(c, key, value, 0, 1000000, &v);
	if (ret)
		return ret;
	all = c->s->coalesce[i] ? xasprintf("%s %s %u", c->s->coalesce[i], dot + 1, v)
				: xasprintf("%s %u", dot + 1, v);
	free(c->s->coalesce[i]);
	c->s->coalesce[i] = all;
	return 0;
}

/* [scenario] keys by prefix: KEY.<LABEL>... */
static const struct {
	const char *prefix;
	int (*set)(struct parse_ctx *c, const char *key, const char *value);
} scenario_prefixes[] = {
	{ "nic.", set_nic },
	{ "ring.", set_ring },
	{ "coalesce.", set_coalesce },
	{ "mtu.", set_mtu },
};

/* The setter of a [scenario] key, by name or by prefix; -1 when it is none. */
int scn_scenario_key_find(const char *key, bool *by_prefix)
{
	for (size_t i = 0; i < ARRAY_SIZE(scenario_keys); i++) {
		if (!strcmp(key, scenario_keys[i].key)) {
			*by_prefix = false;
			return (int)i;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(scenario_prefixes); i++) {
		if (!strncmp(key, scenario_prefixes[i].prefix,
			     strlen(scenario_prefixes[i].prefix))) {
			*by_prefix = true;
			return (int)i;
		}
	}
	return -1;
}

int scn_key_scenario(struct parse_ctx *c, const char *key, const char *value)
{
	bool by_prefix;
	int i = scn_scenario_key_find(key, &by_prefix);

	if (i < 0)
		return scn_err(c, c->line, "unknown key '%s' in [scenario] (allowed: %s)", key,
			       SCENARIO_KEYS);
	if (by_prefix)
		return scenario_prefixes[i].set(c, key, value);
	return scenario_keys[i].set(c, value);
}

/* ---- the other sections ---------------------------------------------------- */

static void kv_add(struct scn_kv **v, size_t *n, const char *key, const char *value,
		   unsigned int line)
{
	struct scn_kv *nv = xzalloc((*n + 1) * sizeof(*nv));

	if (*n)
		memcpy(nv, *v, *n * sizeof(*nv));
	free(*v);
	*v = nv;
	nv[*n].key = xstrdup(key);
	nv[*n].value = xstrdup(value);
	nv[*n].line = line;
	(*n)++;
}

int scn_key_sysctl(struct parse_ctx *c, const char *key, const char *value)
{
	if (!scn_chars_ok(key, "_.-") || strpbrk(key, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
		return scn_err(c, c->line, "bad sysctl name '%s': expected [a-z0-9_.-]+", key);
	if (scn_need_safe_value(c, "sysctl", key, value))
		return -EINVAL;
	kv_add(&c->s->sysctl, &c->s->n_sysctl, key, value, c->line);
	return 0;
}

/* Options are checked against the generator once the file is read. */
int scn_key_traffic(struct parse_ctx *c, const char *key, const char *value)
{
	if (strcmp(key, "generator")) {
		kv_add(&c->s->traffic, &c->s->n_traffic, key, value, c->line);
		return 0;
	}
	c->generator_line = c->line;
	c->s->generator = scn_generator_name(value);
	if (c->s->generator)
		return 0;
	return scn_err(c, c->line, "unknown generator '%s' (generators: %s)", value,
		       scn_generator_list());
}

/* [netem] and [qdisc]: LABEL = tc arguments */
static int key_tc(struct parse_ctx *c, const char *section, const char *key, const char *value,
		  char **slot, unsigned int *lines)
{
	int i = label_index(key, strlen(key));

	if (i < 0)
		return scn_err(c, c->line, "bad key '%s': keys here are NIC labels (A..%c)", key,
			       'A' + VM_MAX_NICS - 1);
	if (scn_need_safe_value(c, section, key, value))
		return -EINVAL;
	slot[i] = xstrdup(value);
	lines[i] = c->line;
	return 0;
}

int scn_key_netem(struct parse_ctx *c, const char *key, const char *value)
{
	return key_tc(c, "netem", key, value, c->s->netem, c->netem_line);
}

int scn_key_qdisc(struct parse_ctx *c, const char *key, const char *value)
{
	return key_tc(c, "qdisc", key, value, c->s->qdisc, c->qdisc_line);
}

int scn_key_checks(struct parse_ctx *c, const char *key, const char *value)
{
	struct scenario *s = c->s;
	struct check_expr *e = NULL;
	struct scn_check *v;
	char *why = NULL, *name = xstrdup(key), *cond = strchr(name, '[');
	size_t n;

	if (cond) {
		*cond++ = '\0';
		n = strlen(cond);
		if (!n || cond[n - 1] != ']' || n == 1) {
			scn_err(c, c->line, "bad check name '%s': expected NAME or NAME[AXIS=VALUE,...]",
				key);
			free(name);
			return -EINVAL;
		}
		cond[n - 1] = '\0';
	}
	if (!scn_chars_ok(name, "_-") || strpbrk(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ")) {
		scn_err(c, c->line, "bad check name '%s': expected [a-z0-9_-]+", name);
		free(name);
		return -EINVAL;
	}
	if (check_parse(value, &e, &why)) {
		scn_err(c, c->line, "check '%s': %s", name, why);
		free(why);
		free(name);
		return -EINVAL;
	}
	v = xzalloc((s->n_checks + 1) * sizeof(*v));
	if (s->n_checks)
		memcpy(v, s->checks, s->n_checks * sizeof(*v));
	free(s->checks);
	s->checks = v;
	v[s->n_checks].name = name;
	v[s->n_checks].cond = cond ? xstrdup(cond) : NULL;
	v[s->n_checks].expr = e;
	v[s->n_checks].line = c->line;
	s->n_checks++;
	return 0;
}

/* A blank-separated list of events for [trace] events/add/drop. */
static int trace_list(struct parse_ctx *c, const char *key, const char *value, char **slot)
{
	char *copy = xstrdup(value), *save = NULL;
	int ret = 0;

	for (char *e = strtok_r(copy, " \t", &save); e && !ret; e = strtok_r(NULL, " \t", &save)) {
		if (!traceset_spec_ok(e))
			ret = scn_err(c, c->line, "bad event '%s' in %s: expected SYSTEM:EVENT, e.g. skb:kfree_skb, net:* or netlab:udp_rcv",
				      e, key);
		else if (!strncmp(e, "netlab:", 7) && !traceset_is_catalogued(e) &&
			 strcmp(key, "drop"))
			ret = scn_err(c, c->line, "unknown netlab kprobe event '%s' in %s: netlab defines %s; define your own with probe.NAME = FUNCTION ARGS",
				      e, key, "the netlab:* events listed in README");
	}
	free(copy);
	if (ret)
		return ret;
	free(*slot);
	*slot = xstrdup(value);
	return 0;
}

/* [trace]: what the guest records around the traffic (see README). */
int scn_key_trace(struct parse_ctx *c, const char *key, const char *value)
{
	struct scenario *s = c->s;

	if (!strcmp(key, "enabled")) {
		if (scn_parse_bool(value, &s->trace))
			return scn_err(c, c->line, "bad enabled '%s': expected yes/no/true/false/1/0",
				       value);
		return 0;
	}
	if (!strcmp(key, "buffer_kb")) {
		if (!strcmp(value, "auto")) {
			s->trace_buffer_kb = 0;
			return 0;
		}
		return set_uint(c, "buffer_kb", value, 64, 1048576, &s->trace_buffer_kb);
	}
	if (!strcmp(key, "events"))
		return trace_list(c, key, value, &s->trace_events);
	if (!strcmp(key, "add"))
		return trace_list(c, key, value, &s->trace_add);
	if (!strcmp(key, "drop"))
		return trace_list(c, key, value, &s->trace_drop);
	if (!strncmp(key, "probe.", 6)) {
		const char *why = traceset_probe_check(key + 6, value);
		size_t n = s->n_trace_probes;

		if (why)
			return scn_err(c, c->line, "bad kprobe event %s = '%s': %s", key, value, why);
		s->trace_probe_names = xrealloc_array(s->trace_probe_names, n + 1, sizeof(char *));
		s->trace_probe_defs = xrealloc_array(s->trace_probe_defs, n + 1, sizeof(char *));
		s->trace_probe_names[n] = xstrdup(key + 6);
		s->trace_probe_defs[n] = xstrdup(value);
		s->n_trace_probes++;
		return 0;
	}
	return scn_err(c, c->line,
		       "unknown key '%s' in [trace] (allowed: enabled, events, add, drop, probe.NAME, buffer_kb)",
		       key);
}

/* ---- [gdb] ------------------------------------------------------------------- */

/* A path written in the scenario: relative to the scenario file's directory. */
static char *scn_relative(const struct parse_ctx *c, const char *f)
{
	const char *slash = strrchr(c->path, '/');

	if (f[0] == '/' || !slash)
		return xstrdup(f);
	return xasprintf("%.*s/%s", (int)(slash - c->path), c->path, f);
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n > k && !strcmp(s + n - k, suffix);
}

int scn_gdb_script(struct parse_ctx *c, const char *value)
{
	struct scenario *s = c->s;

	s->gdb_script = scn_relative(c, value);
	if (!has_suffix(value, ".gdb") && !has_suffix(value, ".py"))
		return scn_err(c, c->line, "bad script '%s' in [gdb]: expected a .gdb or .py file",
			       value);
	if (access(s->gdb_script, R_OK) < 0)
		return scn_err(c, c->line, "cannot read gdb script '%s' (script in [gdb]): %s",
			       s->gdb_script, strerror(errno));
	return 0;
}

/* break = FUNC...: gdb locations (function, FILE:LINE, *ADDR), one word each. */
static int gdb_break(struct parse_ctx *c, const char *value)
{
	struct scenario *s = c->s;
	char *list = xstrdup(value), *rest = list, *f;
	int ret = 0;

	while (!ret && (f = strsep(&rest, " \t"))) {
		if (!*f)
			continue;
		if (!scn_chars_ok(f, "_.:/*+-")) {
			ret = scn_err(c, c->line, "bad break '%s' in [gdb]: expected a function, FILE:LINE or *ADDRESS",
				      f);
			break;
		}
		s->gdb_breaks = xrealloc_array(s->gdb_breaks, s->n_gdb_breaks + 1, sizeof(char *));
		s->gdb_breaks[s->n_gdb_breaks++] = xstrdup(f);
	}
	free(list);
	return ret;
}

/*
 * Repetition operators outside bracket expressions: glibc's regcomp()
 * doubles its parse tree for each (20 of them took 0.7 GB and 3 s here).
 */
#define GDB_MATCH_MAX_REPEATS 10

static unsigned int regex_repeats(const char *re)
{
	unsigned int n = 0;
	bool bracket = false;

	for (const char *p = re; *p; p++) {
		if (*p == '\\' && p[1])
			p++;
		else if (*p == '[')
			bracket = true;
		else if (*p == ']')
			bracket = false;
		else if (!bracket && strchr("*+?{", *p))
			n++;
	}
	return n;
}

/* match.NAME = REGEX: NAME becomes a metric name component. */
int scn_gdb_match(struct parse_ctx *c, const char *key, const char *value)
{
	struct scenario *s = c->s;
	const char *name = key + 6;
	struct scn_gdb_match *m;
	char why[256];
	int rc;

	if (!scn_chars_ok(name, "_") || strpbrk(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
		return scn_err(c, c->line, "bad match name '%s' in [gdb]: expected match.NAME, NAME [a-z0-9_]+",
			       key);
	if (regex_repeats(value) > GDB_MATCH_MAX_REPEATS)
		return scn_err(c, c->line, "regex in %s has more than %d repetition operators (* + ? {): glibc's regcomp grows exponentially with them",
			       key, GDB_MATCH_MAX_REPEATS);
	s->gdb_match = xrealloc_array(s->gdb_match, s->n_gdb_match + 1, sizeof(*s->gdb_match));
	m = &s->gdb_match[s->n_gdb_match];
	memset(m, 0, sizeof(*m));
	rc = regcomp(&m->re, value, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		regerror(rc, &m->re, why, sizeof(why));
		return scn_err(c, c->line, "bad regex in %s '%s': %s (POSIX extended regex)", key,
			       value, why);
	}
	m->name = xstrdup(name);
	m->regex = xstrdup(value);
	m->line = c->line;
	s->n_gdb_match++;
	return 0;
}

/* [gdb]: a batch gdb attached to a guest during every run (see README). */
int scn_key_gdb(struct parse_ctx *c, const char *key, const char *value)
{
	struct scenario *s = c->s;

	if (!strcmp(key, "script"))
		return scn_gdb_script(c, value);
	if (!strcmp(key, "break"))
		return gdb_break(c, value);
	if (!strcmp(key, "vm")) {
		c->gdb_vm_line = c->line;
		if ((value[0] == 'a' || value[0] == 'b') && !value[1]) {
			s->gdb_vm = value[0] - 'a';
			return 0;
		}
		return scn_err(c, c->line, "bad vm '%s' in [gdb]: expected a or b", value);
	}
	if (!strcmp(key, "timeout")) {
		c->gdb_timeout_line = c->line;
		return set_uint(c, "[gdb] timeout", value, 1, 86400, &s->gdb_timeout_s);
	}
	if (!strncmp(key, "match.", 6))
		return scn_gdb_match(c, key, value);
	return scn_err(c, c->line,
		       "unknown key '%s' in [gdb] (allowed: script, break, vm, timeout, match.NAME)",
		       key);
}

/* [matrix]: KEY = VALUES; read once, from the file (a case has a copy). */
int scn_key_matrix(struct parse_ctx *c, const char *key, const char *value)
{
	struct scenario *s = c->s;
	struct scn_axis ax;
	char *why = NULL;

	if (c->case_values)
		return 0;
	if (matrix_axis_parse(key, value, c->line, &ax, &why)) {
		scn_err(c, c->line, "[matrix]: %s", why);
		free(why);
		return -EINVAL;
	}
	s->axes = xrealloc_array(s->axes, s->n_axes + 1, sizeof(*s->axes));
	s->axes[s->n_axes++] = ax;
	if (!matrix_n_cases(s->axes, s->n_axes))
		return scn_err(c, c->line, "[matrix] has more than %d cases", MATRIX_MAX_CASES);
	return 0;
}
