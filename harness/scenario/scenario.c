// SPDX-License-Identifier: GPL-2.0
/*
 * Scenario files, parsed with inih.
 *
 * inih as Debian builds it calls the handler without a line number, does
 * not report section headers, joins indented lines onto the key above, and
 * cuts lines at 200 bytes. So inih reads through scn_reader(), which counts
 * lines, records section headers, strips leading blanks (no continuation
 * lines), and rejects over-long lines instead of letting them be cut.
 *
 * Parsing happens in two passes: key by key while inih reads (syntax of
 * each value), then across keys once the file is read (labels against the
 * topology, options against the generator, metrics against both). Of all
 * errors, the one on the earliest line is reported.
 */
#include "scenario/scenario.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ini.h>

#include "scenario/matrix.h"
#include "scenario/metrics.h"
#include "trace/traceset.h"
#include "lib/util.h"

enum scn_section {
	SEC_SCENARIO,
	SEC_SYSCTL,
	SEC_TRAFFIC,
	SEC_NETEM,
	SEC_QDISC,
	SEC_CHECKS,
	SEC_TRACE,
	SEC_GDB,
	SEC_MATRIX,
	N_SECTIONS,
};

/* Key of one line, remembered to catch duplicates. */
struct seen_key {
	enum scn_section sec;
	char *key;
	unsigned int line;
};

struct parse_ctx {
	const char *path;
	struct scenario *s;
	/* reader */
	const char *p;			/* rest of the file */
	unsigned int line;		/* line last handed to inih */
	/* what was seen, and where */
	unsigned int sec_line[N_SECTIONS];	/* header line, 0 = absent */
	struct seen_key *seen;
	size_t n_seen;
	unsigned int topology_line, generator_line, duration_line, timeout_line;
	unsigned int nic_line[VM_MAX_NICS], ring_line[VM_MAX_NICS];
	unsigned int netem_line[VM_MAX_NICS], qdisc_line[VM_MAX_NICS];
	unsigned int gdb_vm_line, gdb_timeout_line;
	unsigned int mtu_line[VM_MAX_NICS], direction_line;
	/* A matrix case: the value of each axis of s->axes, and whether the
	 * file has the axis's key (else it is added after the file is read). */
	char **case_values;
	bool *axis_used;
	/* the earliest error */
	char *err;
	unsigned int err_line;		/* 0: about the whole file */
};

static int scn_err(struct parse_ctx *c, unsigned int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Keep the error on the earliest line; "PATH:LINE: msg" or "PATH: msg". */
static int scn_err(struct parse_ctx *c, unsigned int line, const char *fmt, ...)
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

const char *scn_traffic_value(const struct scenario *s, const char *key)
{
	for (size_t i = 0; i < s->n_traffic; i++)
		if (!strcmp(s->traffic[i].key, key))
			return s->traffic[i].value;
	return NULL;
}

bool scn_traffic_true(const struct scenario *s, const char *key)
{
	const char *v = scn_traffic_value(s, key);
	bool b = false;

	return v && scn_parse_bool(v, &b) == 0 && b;
}

/* Every character of s in `set`, or alphanumeric; s non-empty. */
static bool chars_ok(const char *s, const char *set)
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

static int need_safe_value(struct parse_ctx *c, const char *section, const char *key,
			   const char *value)
{
	if (chars_ok(value, SAFE_VALUE_CHARS))
		return 0;
	return scn_err(c, c->line,
		       "value of '%s' in [%s] may only contain letters, digits, spaces and \"%s\"",
		       key, section, SAFE_VALUE_CHARS + 1);
}

/* ---- traffic generators ------------------------------------------------- */

enum opt_kind {
	OPT_VALUE,	/* passed on as --key value */
	OPT_BOOL,	/* --key when true */
	OPT_CHOICE,	/* --key value, value one of choices */
};

struct gen_opt {
	const char *name;
	enum opt_kind kind;
	const char *const *choices;
};

static const char *const rr_protos[] = { "tcp", "udp", NULL };

#define VAL(n) { .name = n, .kind = OPT_VALUE }
#define BOOL(n) { .name = n, .kind = OPT_BOOL }
#define CHOICE(n, c) { .name = n, .kind = OPT_CHOICE, .choices = c }

static const struct gen_opt udp_stream_opts[] = {
	VAL("rate"), VAL("bitrate"), VAL("size"), VAL("size-max"), VAL("seed"), VAL("burst"),
	VAL("burst-gap"), VAL("count"), VAL("rcvbuf"), VAL("read-delay"), VAL("port"),
	BOOL("dst-ipv6"), { .name = NULL },
};

static const struct gen_opt tcp_stream_opts[] = {
	VAL("size"), VAL("port"), VAL("cc"), BOOL("bidir"), { .name = NULL },
};

static const struct gen_opt rr_opts[] = {
	CHOICE("proto", rr_protos), VAL("req-size"), VAL("resp-size"), VAL("count"), VAL("port"),
	{ .name = NULL },
};

static const struct scn_generator {
	const char *name;
	const struct gen_opt *opts;
} generators[] = {
	{ "udp-stream", udp_stream_opts },
	{ "tcp-stream", tcp_stream_opts },
	{ "rr", rr_opts },
};

const char *scn_generator_list(void)
{
	return "udp-stream, tcp-stream, rr";
}

static const struct scn_generator *generator_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(generators); i++)
		if (!strcmp(generators[i].name, name))
			return &generators[i];
	return NULL;
}

static const struct gen_opt *gen_opt_find(const struct scn_generator *g, const char *name)
{
	for (const struct gen_opt *o = g->opts; o->name; o++)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

static char *gen_opt_list(const struct scn_generator *g)
{
	struct sbuf b;

	sbuf_init(&b);
	sbuf_adds(&b, "generator");
	for (const struct gen_opt *o = g->opts; o->name; o++)
		sbuf_addf(&b, ", %s", o->name);
	return sbuf_detach(&b);
}

static char *choice_list(const char *const *choices)
{
	struct sbuf b;

	sbuf_init(&b);
	for (; *choices; choices++)
		sbuf_addf(&b, "%s%s", b.len ? ", " : "", *choices);
	return sbuf_detach(&b);
}

void scn_traffic_args(const struct scenario *s, struct argv *a)
{
	const struct scn_generator *g = generator_find(s->generator);

	for (size_t i = 0; i < s->n_traffic; i++) {
		const struct scn_kv *kv = &s->traffic[i];
		const struct gen_opt *o = gen_opt_find(g, kv->key);
		bool on = false;

		if (o->kind == OPT_BOOL) {
			scn_parse_bool(kv->value, &on);
			if (on)
				argv_addf(a, "--%s", kv->key);
			continue;
		}
		argv_addf(a, "--%s", kv->key);
		argv_add(a, kv->value);
	}
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
	c->s->topo = topology_find(value);
	c->topology_line = c->line;
	if (!c->s->topo)
		return scn_err(c, c->line, "unknown topology '%s' (topologies: %s)", value,
			       topology_list());
	return 0;
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
	{ "direction", set_direction },
	{ "mem", set_mem },
	{ "acpi", set_acpi },
};

#define SCENARIO_KEYS                                                                          \
	"description, topology, nic.<LABEL>, ring.<LABEL>.rx, ring.<LABEL>.tx, "             \
	"coalesce.<LABEL>.PARAM, mtu.<LABEL>, direction, append, duration, " \
	"repeat, timeout, deterministic, record, mem, acpi"

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
static int scenario_key_find(const char *key, bool *by_prefix)
{
	for (size_t i = 0; i < ARRAY_SIZE(scenario_keys); i++) {
		if (!strcmp(key, scenario_keys[i].key)) {
			*by_prefix = false;
			return (int)i;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(scenario_prefixes); i++) {
		if (!strncmp(key, scenario_prefixes[i].prefix, strlen(scenario_prefixes[i].prefix))) {
			*by_prefix = true;
			return (int)i;
		}
	}
	return -1;
}

static int key_scenario(struct parse_ctx *c, const char *key, const char *value)
{
	bool by_prefix;
	int i = scenario_key_find(key, &by_prefix);

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

static int key_sysctl(struct parse_ctx *c, const char *key, const char *value)
{
	if (!chars_ok(key, "_.-") || strpbrk(key, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
		return scn_err(c, c->line, "bad sysctl name '%s': expected [a-z0-9_.-]+", key);
	if (need_safe_value(c, "sysctl", key, value))
		return -EINVAL;
	kv_add(&c->s->sysctl, &c->s->n_sysctl, key, value, c->line);
	return 0;
}

/* Options are checked against the generator once the file is read. */
static int key_traffic(struct parse_ctx *c, const char *key, const char *value)
{
	if (strcmp(key, "generator")) {
		kv_add(&c->s->traffic, &c->s->n_traffic, key, value, c->line);
		return 0;
	}
	c->generator_line = c->line;
	for (size_t i = 0; i < ARRAY_SIZE(generators); i++) {
		if (!strcmp(value, generators[i].name)) {
			c->s->generator = generators[i].name;
			return 0;
		}
	}
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
	if (need_safe_value(c, section, key, value))
		return -EINVAL;
	slot[i] = xstrdup(value);
	lines[i] = c->line;
	return 0;
}

static int key_netem(struct parse_ctx *c, const char *key, const char *value)
{
	return key_tc(c, "netem", key, value, c->s->netem, c->netem_line);
}

static int key_qdisc(struct parse_ctx *c, const char *key, const char *value)
{
	return key_tc(c, "qdisc", key, value, c->s->qdisc, c->qdisc_line);
}

static int key_checks(struct parse_ctx *c, const char *key, const char *value)
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
	if (!chars_ok(name, "_-") || strpbrk(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ")) {
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
static int key_trace(struct parse_ctx *c, const char *key, const char *value)
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
		s->trace_probe_names = realloc(s->trace_probe_names, (n + 1) * sizeof(char *));
		s->trace_probe_defs = realloc(s->trace_probe_defs, (n + 1) * sizeof(char *));
		if (!s->trace_probe_names || !s->trace_probe_defs)
			abort();
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

static int gdb_script(struct parse_ctx *c, const char *value)
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
		if (!chars_ok(f, "_.:/*+-")) {
			ret = scn_err(c, c->line, "bad break '%s' in [gdb]: expected a function, FILE:LINE or *ADDRESS",
				      f);
			break;
		}
		s->gdb_breaks = realloc(s->gdb_breaks, (s->n_gdb_breaks + 1) * sizeof(char *));
		if (!s->gdb_breaks)
			abort();
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
static int gdb_match(struct parse_ctx *c, const char *key, const char *value)
{
	struct scenario *s = c->s;
	const char *name = key + 6;
	struct scn_gdb_match *m;
	char why[256];
	int rc;

	if (!chars_ok(name, "_") || strpbrk(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
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
static int key_gdb(struct parse_ctx *c, const char *key, const char *value)
{
	struct scenario *s = c->s;

	if (!strcmp(key, "script"))
		return gdb_script(c, value);
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
		return gdb_match(c, key, value);
	return scn_err(c, c->line,
		       "unknown key '%s' in [gdb] (allowed: script, break, vm, timeout, match.NAME)",
		       key);
}

/* [matrix]: KEY = VALUES; read once, from the file (a case has a copy). */
static int key_matrix(struct parse_ctx *c, const char *key, const char *value)
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

static const struct {
	const char *name;
	int (*key)(struct parse_ctx *c, const char *key, const char *value);
} sections[N_SECTIONS] = {
	[SEC_SCENARIO] = { "scenario", key_scenario },
	[SEC_SYSCTL] = { "sysctl", key_sysctl },
	[SEC_TRAFFIC] = { "traffic", key_traffic },
	[SEC_NETEM] = { "netem", key_netem },
	[SEC_QDISC] = { "qdisc", key_qdisc },
	[SEC_CHECKS] = { "checks", key_checks },
	[SEC_TRACE] = { "trace", key_trace },
	[SEC_GDB] = { "gdb", key_gdb },
	[SEC_MATRIX] = { "matrix", key_matrix },
};

#define SECTION_LIST "scenario, sysctl, traffic, netem, qdisc, checks, trace, gdb, matrix"

/*
 * The section a [matrix] axis key sets, and the key within it: sysctl.NAME
 * is [sysctl]'s NAME, a [scenario] key is one of its table's, any other
 * word is a [traffic] key (checked against the generator as usual).
 */
static enum scn_section axis_section(const char *key, const char **skey)
{
	bool by_prefix;

	*skey = key;
	if (!strncmp(key, "sysctl.", 7)) {
		*skey = key + 7;
		return SEC_SYSCTL;
	}
	return scenario_key_find(key, &by_prefix) >= 0 ? SEC_SCENARIO : SEC_TRAFFIC;
}

/* In a matrix case, the case's value for (sec, key), or NULL. */
static const char *case_override(struct parse_ctx *c, int sec, const char *key)
{
	for (size_t i = 0; c->case_values && i < c->s->n_axes; i++) {
		const char *skey;

		if ((int)axis_section(c->s->axes[i].key, &skey) == sec && !strcmp(skey, key)) {
			c->axis_used[i] = true;
			return c->case_values[i];
		}
	}
	return NULL;
}

/* The axes whose keys the file does not have: added to their section. */
static void case_add_missing(struct parse_ctx *c)
{
	for (size_t i = 0; c->case_values && i < c->s->n_axes; i++) {
		const char *skey;
		int sec = axis_section(c->s->axes[i].key, &skey);

		if (c->axis_used[i])
			continue;
		c->line = c->s->axes[i].line;
		if (!c->sec_line[sec])
			c->sec_line[sec] = c->line;
		sections[sec].key(c, skey, c->case_values[i]);
	}
}

static int section_find(const char *name, size_t len)
{
	for (int i = 0; i < N_SECTIONS; i++)
		if (strlen(sections[i].name) == len && !strncmp(sections[i].name, name, len))
			return i;
	return -1;
}

/* ---- inih glue ------------------------------------------------------------- */

/* A "[name]" line, as inih will read it. */
static void section_header(struct parse_ctx *c, const char *line)
{
	const char *end = strchr(line, ']');
	size_t len;
	int i;

	if (*line != '[' || !end)
		return;	/* not a header, or inih's syntax error */
	len = (size_t)(end - line - 1);
	i = section_find(line + 1, len);
	if (i < 0) {
		scn_err(c, c->line, "unknown section [%.*s] (sections: %s)", (int)len, line + 1,
			SECTION_LIST);
		return;
	}
	if (c->sec_line[i]) {
		scn_err(c, c->line, "duplicate section [%s] (first at line %u)", sections[i].name,
			c->sec_line[i]);
		return;
	}
	c->sec_line[i] = c->line;
}

/* inih's line reader over the file in memory; see the comment at the top. */
static char *scn_reader(char *str, int num, void *stream)
{
	struct parse_ctx *c = stream;
	const char *p = c->p;
	size_t len = strcspn(p, "\n");

	if (!*p)
		return NULL;
	c->line++;
	c->p = p + len + (p[len] == '\n');
	if (c->line == 1 && !strncmp(p, "\xef\xbb\xbf", 3)) {
		p += 3;
		len -= 3;
	}
	for (; len && (*p == ' ' || *p == '\t'); len--)
		p++;
	if (len > (size_t)num - 2) {
		scn_err(c, c->line, "line too long (more than %d characters)", num - 2);
		len = (size_t)num - 2;
	}
	memcpy(str, p, len);
	str[len] = '\n';
	str[len + 1] = '\0';
	section_header(c, str);
	return str;
}

static bool seen_before(struct parse_ctx *c, enum scn_section sec, const char *key)
{
	struct seen_key *v;

	for (size_t i = 0; i < c->n_seen; i++) {
		if (c->seen[i].sec != sec || strcmp(c->seen[i].key, key))
			continue;
		scn_err(c, c->line, "duplicate %s '%s' in [%s] (first at line %u)",
			sec == SEC_CHECKS ? "check" : "key", key, sections[sec].name,
			c->seen[i].line);
		return true;
	}
	v = xzalloc((c->n_seen + 1) * sizeof(*v));
	if (c->n_seen)
		memcpy(v, c->seen, c->n_seen * sizeof(*v));
	free(c->seen);
	c->seen = v;
	v[c->n_seen].sec = sec;
	v[c->n_seen].key = xstrdup(key);
	v[c->n_seen].line = c->line;
	c->n_seen++;
	return false;
}

static int scn_handler(void *user, const char *section, const char *key, const char *value);

/*
 * NAME[AXIS=VALUE,...] = EXPR: inih split the line at its first '=', inside
 * the condition. Join it again and split after the ']'.
 */
static int check_with_condition(struct parse_ctx *c, const char *key, const char *value)
{
	char *line = xasprintf("%s=%s", key, value), *end = strchr(line, ']'), *expr;

	if (!end) {
		scn_err(c, c->line, "bad check name '%s': expected NAME or NAME[AXIS=VALUE,...]", key);
		free(line);
		return 1;
	}
	expr = end + 1 + strspn(end + 1, " \t");
	if (*expr != '=') {
		scn_err(c, c->line, "check '%.*s': expected '=' after the condition", (int)(end + 1 - line),
			line);
		free(line);
		return 1;
	}
	end[1] = '\0';
	expr += 1 + strspn(expr + 1, " \t");
	scn_handler(c, sections[SEC_CHECKS].name, line, expr);
	free(line);
	return 1;
}

/* Always returns 1: errors are kept in the context, with their line. */
static int scn_handler(void *user, const char *section, const char *key, const char *value)
{
	struct parse_ctx *c = user;
	int i = section_find(section, strlen(section));

	if (c->err)
		return 1;	/* later lines cannot beat it */
	if (!*section) {
		scn_err(c, c->line, "key '%s' is outside any section; start with [scenario]", key);
		return 1;
	}
	if (i < 0)
		return 1;	/* reported at the section header */
	if (i == SEC_CHECKS && strchr(key, '[') && !strchr(key, ']'))
		return check_with_condition(c, key, value);
	if (seen_before(c, i, key))
		return 1;
	if (!*value) {
		scn_err(c, c->line, "key '%s' has no value", key);
		return 1;
	}
	sections[i].key(c, key, case_override(c, i, key) ?: value);
	return 1;
}

/* ---- checks across keys ---------------------------------------------------- */

/* The topology's NIC labels, from its own setup on a scratch config. */
static void topology_labels(const struct topology *t, char *labels)
{
	struct vm_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.topo = t;
	labels[0] = '\0';
	if (t->setup(&cfg, NULL))
		return;
	for (unsigned int i = 0; i < cfg.n_nics && i < VM_MAX_NICS; i++)
		labels[i] = cfg.nics[i].label;
	labels[cfg.n_nics < VM_MAX_NICS ? cfg.n_nics : VM_MAX_NICS] = '\0';
}

static void need_label(struct parse_ctx *c, int i, unsigned int line, const char *what)
{
	const char *l = c->s->labels;
	struct sbuf b;

	if (!line || strchr(l, 'A' + i))
		return;
	sbuf_init(&b);
	for (; *l; l++)
		sbuf_addf(&b, "%s%c", b.len ? ", " : "NICs ", *l);
	scn_err(c, line, "%s for NIC %c, but topology '%s' has %s", what, 'A' + i,
		c->s->topo->name, b.len ? b.s : "no NICs");
	sbuf_release(&b);
}

static void validate_nics(struct parse_ctx *c)
{
	topology_labels(c->s->topo, c->s->labels);
	for (int i = 0; i < VM_MAX_NICS; i++) {
		need_label(c, i, c->nic_line[i], "NIC model");
		need_label(c, i, c->ring_line[i], "ring size");
		need_label(c, i, c->netem_line[i], "[netem]");
		need_label(c, i, c->qdisc_line[i], "[qdisc]");
		/* Both would be the root qdisc of the NIC's egress. */
		if (c->netem_line[i] && c->qdisc_line[i])
			scn_err(c, c->netem_line[i] > c->qdisc_line[i] ? c->netem_line[i]
									: c->qdisc_line[i],
				"NIC %c has both [netem] and [qdisc]; each sets its root qdisc",
				'A' + i);
	}
}

static void validate_timeout(struct parse_ctx *c)
{
	struct scenario *s = c->s;

	if (!c->timeout_line)
		s->timeout_s = s->duration_s * 4 + 120;
	else if (s->timeout_s <= s->duration_s)
		scn_err(c, c->timeout_line, "timeout %u s is not longer than the duration, %u s",
			s->timeout_s, s->duration_s);
}


static void validate_option(struct parse_ctx *c, const struct scn_generator *g,
			    const struct scn_kv *kv)
{
	const struct gen_opt *o = gen_opt_find(g, kv->key);
	const char *const *ch;
	char *list;
	bool b;

	if (!o) {
		list = gen_opt_list(g);
		scn_err(c, kv->line, "unknown option '%s' for generator '%s' (allowed: %s)",
			kv->key, g->name, list);
		free(list);
		return;
	}
	switch (o->kind) {
	case OPT_BOOL:
		if (scn_parse_bool(kv->value, &b))
			scn_err(c, kv->line, "bad %s '%s': expected yes/no/true/false/1/0", kv->key,
				kv->value);
		return;
	case OPT_CHOICE:
		for (ch = o->choices; *ch; ch++)
			if (!strcmp(*ch, kv->value))
				return;
		list = choice_list(o->choices);
		scn_err(c, kv->line, "bad %s '%s' for generator '%s' (choices: %s)", kv->key,
			kv->value, g->name, list);
		free(list);
		return;
	default:
		if (strpbrk(kv->value, " \t"))
			scn_err(c, kv->line, "bad %s '%s': expected one word", kv->key, kv->value);
		else if (!strcmp(kv->key, "size") && strstr(kv->value, "..") &&
			 strcmp(g->name, "udp-stream"))
			scn_err(c, kv->line, "bad size '%s': a range MIN..MAX is for udp-stream only",
				kv->value);
		else if (!strcmp(kv->key, "size") && strstr(kv->value, "..") &&
			 (strstr(kv->value, "..")[2] == '\0' || kv->value[0] == '.'))
			scn_err(c, kv->line, "bad size '%s': expected MIN..MAX, e.g. 32..1472",
				kv->value);
		return;
	}
}

static void validate_traffic(struct parse_ctx *c)
{
	const struct scn_generator *g;

	if (!c->sec_line[SEC_TRAFFIC]) {
		scn_err(c, 0, "no [traffic] section: a scenario needs a generator (%s)",
			scn_generator_list());
		return;
	}
	if (!c->s->generator) {
		scn_err(c, c->sec_line[SEC_TRAFFIC], "[traffic] has no generator (%s)",
			scn_generator_list());
		return;
	}
	g = generator_find(c->s->generator);
	for (size_t i = 0; i < c->s->n_traffic; i++)
		validate_option(c, g, &c->s->traffic[i]);
}

/* [gdb] against the rest: a script, a VM the topology has, a timeout within the run's. */
static void validate_gdb(struct parse_ctx *c)
{
	struct scenario *s = c->s;
	unsigned int line = c->sec_line[SEC_GDB];

	s->gdb = line != 0;
	if (!s->gdb)
		return;
	if (!s->gdb_script)
		scn_err(c, line, "[gdb] has no script (script = FILE.gdb or FILE.py, next to the scenario)");
	if (s->gdb_vm >= (int)s->topo->n_vms)
		scn_err(c, c->gdb_vm_line, "vm %c in [gdb], but topology '%s' has one VM (a)",
			'a' + s->gdb_vm, s->topo->name);
	if (!c->gdb_timeout_line)
		s->gdb_timeout_s = s->timeout_s > 240 ? 120 : s->timeout_s / 2;
	else if (s->gdb_timeout_s >= s->timeout_s)
		scn_err(c, c->gdb_timeout_line,
			"timeout %u s in [gdb] is not shorter than the run's timeout, %u s",
			s->gdb_timeout_s, s->timeout_s);
}

/* gdb.exit and gdb.lines_matching.NAME: only with [gdb], and its match.NAME. */
static int gdb_metric_check(const struct scenario *s, const char *name, char **why)
{
	const char *lm = "gdb.lines_matching.";
	struct sbuf b;

	if (!s->gdb) {
		err_set(why, "metric '%s' needs a [gdb] section", name);
		return -EINVAL;
	}
	if (!strcmp(name, "gdb.exit"))
		return 0;
	if (strncmp(name, lm, strlen(lm))) {
		err_set(why, "unknown metric '%s' (gdb metrics: gdb.exit, gdb.lines_matching.NAME)",
			name);
		return -EINVAL;
	}
	for (size_t i = 0; i < s->n_gdb_match; i++)
		if (!strcmp(s->gdb_match[i].name, name + strlen(lm)))
			return 0;
	sbuf_init(&b);
	for (size_t i = 0; i < s->n_gdb_match; i++)
		sbuf_addf(&b, "%s%s", i ? ", " : "", s->gdb_match[i].name);
	err_set(why, "metric '%s': [gdb] has no match.%s (matches: %s)", name, name + strlen(lm),
		b.len ? b.s : "none");
	sbuf_release(&b);
	return -EINVAL;
}

struct metric_ctx {
	struct parse_ctx *c;
	const struct scn_check *chk;
};

static int validate_metric(void *ctx, const char *name, unsigned int column)
{
	struct metric_ctx *mc = ctx;
	const struct scenario *s = mc->c->s;
	char *why = NULL;

	(void)column;
	if (!strncmp(name, "gdb.", 4) ? !gdb_metric_check(s, name, &why)
				       : !metrics_name_check(name, s->generator, s->labels, &why))
		return 0;
	scn_err(mc->c, mc->chk->line, "check '%s': %s", mc->chk->name, why);
	free(why);
	return -EINVAL;
}

static void validate_checks(struct parse_ctx *c)
{
	struct metric_ctx mc = { .c = c };

	if (!c->s->n_checks) {
		scn_err(c, 0, "no checks: a scenario must check something");
		return;
	}
	if (!c->s->generator)
		return;	/* reported; every generator-bound metric would be wrong too */
	for (size_t i = 0; i < c->s->n_checks; i++) {
		mc.chk = &c->s->checks[i];
		check_metrics_used(mc.chk->expr, validate_metric, &mc);
	}
}

/* ---- entry points ------------------------------------------------------------ */

static char *scn_name_of(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t len;

	base = base ? base + 1 : path;
	len = strlen(base);
	if (len > 4 && !strcmp(base + len - 4, ".scn"))
		len -= 4;
	return xasprintf("%.*s", (int)len, base);
}

static struct scenario *scn_new(const char *path)
{
	struct scenario *s = xzalloc(sizeof(*s));

	s->path = xstrdup(path);
	s->name = scn_name_of(path);
	s->topo = topology_find("loop");
	s->duration_s = 10;
	s->repeat = 1;
	s->deterministic = true;
	s->trace = true;
	s->trace_buffer_kb = 0;
	s->gdb_vm = -1;
	return s;
}

/*
 * NAME[COND] checks: conditions against the matrix; in a case, only the
 * checks whose condition holds stay, and their names must then be unique.
 */
static void apply_conditions(struct parse_ctx *c)
{
	struct scenario *s = c->s;
	size_t keep = 0;

	for (size_t i = 0; i < s->n_checks; i++) {
		struct scn_check *chk = &s->checks[i];
		char *why = NULL;

		if (chk->cond && matrix_cond_check(chk->cond, s->axes, s->n_axes, &why)) {
			scn_err(c, chk->line, "check '%s[%s]': %s", chk->name, chk->cond, why);
			free(why);
		} else if (chk->cond && c->case_values &&
			   !matrix_cond_holds(chk->cond, s->axes, s->n_axes,
					      (const char *const *)c->case_values)) {
			free(chk->name);
			free(chk->cond);
			check_expr_free(chk->expr);
			continue;
		}
		s->checks[keep++] = *chk;
	}
	s->n_checks = keep;
	if (s->n_axes && !c->case_values)
		return;	/* the file as a whole: each case is checked on its own */
	for (size_t i = 0; i < s->n_checks; i++)
		for (size_t j = i + 1; j < s->n_checks; j++)
			if (!strcmp(s->checks[i].name, s->checks[j].name))
				scn_err(c, s->checks[j].line,
					"check '%s' applies twice to a case (also at line %u): make their [conditions] exclusive",
					s->checks[j].name, s->checks[i].line);
}

static void validate_mtu(struct parse_ctx *c)
{
	for (int i = 0; i < VM_MAX_NICS; i++)
		need_label(c, i, c->mtu_line[i], "MTU");
	if (c->direction_line && strlen(c->s->labels) < 2)
		scn_err(c, c->direction_line, "direction needs two NICs; topology '%s' has %zu",
			c->s->topo->name, strlen(c->s->labels));
}

static void parse_text(struct parse_ctx *c, const char *text)
{
	int bad_line;

	c->p = text;
	bad_line = ini_parse_stream(scn_reader, c, scn_handler, c);
	if (bad_line > 0)
		scn_err(c, (unsigned int)bad_line, "expected 'key = value' or '[section]'");
	if (!c->err)
		case_add_missing(c);
	if (!c->err)
		apply_conditions(c);
	/* A matrix file as a whole: each case is validated on its own. */
	if (c->err || (c->s->n_axes && !c->case_values))
		return;
	validate_nics(c);
	validate_mtu(c);
	validate_timeout(c);
	validate_traffic(c);
	validate_gdb(c);
	validate_checks(c);
}

char *scn_kernel_append(const struct scenario *s)
{
	if (!s->trace || (s->append && strstr(s->append, "no_hash_pointers")))
		return s->append ? xstrdup(s->append) : NULL;
	return s->append ? xasprintf("%s no_hash_pointers", s->append) : xstrdup("no_hash_pointers");
}

/*
 * Parse text as the file at path: the file itself (axes NULL), or the case
 * with `values` of the matrix `axes`. On error, *err and NULL.
 */
static struct scenario *parse_case(const char *path, const char *text, const struct scn_axis *axes,
				   size_t n_axes, const char *const *values, char **err)
{
	struct parse_ctx c = { .path = path };
	bool used[64] = { false };

	c.s = scn_new(path);
	if (axes) {
		c.s->axes = matrix_axes_dup(axes, n_axes);
		c.s->n_axes = n_axes;
		c.s->case_values = xzalloc((n_axes + 1) * sizeof(char *));
		for (size_t i = 0; i < n_axes; i++)
			c.s->case_values[i] = xstrdup(values[i]);
		c.s->case_id = matrix_case_id(axes, n_axes, values);
		char *plain = c.s->name;

		c.s->name = xasprintf("%s[%s]", plain, c.s->case_id);
		free(plain);
		c.case_values = c.s->case_values;
		c.axis_used = used;
	}
	parse_text(&c, text);
	for (size_t i = 0; i < c.n_seen; i++)
		free(c.seen[i].key);
	free(c.seen);
	if (!c.err)
		return c.s;
	if (axes) {
		char *e = xasprintf("%s (case %s)", c.err, c.s->name);

		free(c.err);
		c.err = e;
	}
	if (err && !*err)
		*err = c.err;
	else
		free(c.err);
	scn_free(c.s);
	return NULL;
}

int scn_parse_cases(const char *path, struct scenario ***out, size_t *n, char **err)
{
	struct scenario *base, **cases;
	const char **values;
	size_t nc, len = 0;
	char *text;
	int ret;

	ret = file_read(path, &text, &len);
	if (ret) {
		err_set(err, "%s: %s", path, strerror(-ret));
		return ret;
	}
	/* The reader stops at a NUL: the rest of the file would go unread. */
	if (memchr(text, '\0', len)) {
		size_t at = strlen(text);
		unsigned int line = 1;

		for (size_t i = 0; i < at; i++)
			line += text[i] == '\n';
		err_set(err, "%s:%u: a NUL byte: a scenario is a text file", path, line);
		free(text);
		return -EINVAL;
	}
	base = parse_case(path, text, NULL, 0, NULL, err);
	if (!base || !base->n_axes) {
		free(text);
		if (!base)
			return -EINVAL;
		*out = xzalloc(2 * sizeof(**out));
		(*out)[0] = base;
		*n = 1;
		return 0;
	}
	if (base->n_axes > 64) {
		err_set(err, "%s: [matrix] has more than 64 axes", path);
		scn_free(base);
		free(text);
		return -EINVAL;
	}
	nc = matrix_n_cases(base->axes, base->n_axes);
	cases = xzalloc((nc + 1) * sizeof(*cases));
	values = xzalloc((base->n_axes + 1) * sizeof(*values));
	for (size_t k = 0; k < nc && !ret; k++) {
		matrix_case_values(base->axes, base->n_axes, k, values);
		cases[k] = parse_case(path, text, base->axes, base->n_axes, values, err);
		ret = cases[k] ? 0 : -EINVAL;
	}
	free(values);
	free(text);
	scn_free(base);
	if (ret) {
		for (size_t k = 0; k < nc; k++)
			scn_free(cases[k]);
		free(cases);
		return ret;
	}
	*out = cases;
	*n = nc;
	return 0;
}

int scn_parse(const char *path, struct scenario **out, char **err)
{
	struct scenario **cases = NULL;
	size_t n = 0;
	int ret = scn_parse_cases(path, &cases, &n, err);

	if (ret)
		return ret;
	if (n > 1 || cases[0]->case_id) {
		err_set(err, "%s: a [matrix] of %zu cases, where one scenario is expected\n"
			     "hint: write the values of the case you want in the file's sections, without [matrix]",
			path, n);
		for (size_t k = 0; k < n; k++)
			scn_free(cases[k]);
		free(cases);
		return -EINVAL;
	}
	*out = cases[0];
	free(cases);
	return 0;
}

unsigned int scn_tx_nic(const struct scenario *s)
{
	return s->direction == SCN_DIR_BA ? 1 : 0;
}

unsigned int scn_rx_nic(const struct scenario *s)
{
	return s->direction == SCN_DIR_BA ? 0 : 1;
}

const char *scn_case_value(const struct scenario *s, const char *key)
{
	for (size_t i = 0; s->case_values && i < s->n_axes; i++)
		if (!strcmp(s->axes[i].key, key))
			return s->case_values[i];
	return NULL;
}

char *scn_file_name(const struct scenario *s)
{
	const char *base_end = s->case_id ? strchr(s->name, '[') : NULL;
	size_t n = base_end ? (size_t)(base_end - s->name) : strlen(s->name);
	struct sbuf b;

	sbuf_init(&b);
	for (size_t i = 0; i < n; i++)	/* ',' is QEMU's option separator */
		sbuf_add(&b, s->name[i] == ',' ? "_" : &s->name[i], 1);
	/* A case: its values only, so that the path stays short (QEMU's unix
	 * sockets live in it) and holds neither '=' nor ',' (QEMU's option
	 * syntax). */
	for (size_t i = 0; s->case_id && i < s->n_axes; i++) {
		sbuf_adds(&b, "+");
		for (const char *p = s->case_values[i]; *p; p++) {
			if (*p == '>')
				sbuf_adds(&b, "to");
			else if (isalnum((unsigned char)*p) || strchr("._-", *p))
				sbuf_add(&b, p, 1);
			else
				sbuf_adds(&b, "_");
		}
	}
	return sbuf_detach(&b);
}

static void kv_free(struct scn_kv *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].key);
		free(v[i].value);
	}
	free(v);
}

void scn_free(struct scenario *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_checks; i++) {
		free(s->checks[i].name);
		free(s->checks[i].cond);
		check_expr_free(s->checks[i].expr);
	}
	free(s->checks);
	kv_free(s->sysctl, s->n_sysctl);
	kv_free(s->traffic, s->n_traffic);
	for (int i = 0; i < VM_MAX_NICS; i++) {
		free(s->netem[i]);
		free(s->coalesce[i]);
		free(s->qdisc[i]);
	}
	free(s->trace_events);
	free(s->trace_add);
	free(s->trace_drop);
	for (size_t i = 0; i < s->n_trace_probes; i++) {
		free(s->trace_probe_names[i]);
		free(s->trace_probe_defs[i]);
	}
	free(s->trace_probe_names);
	free(s->trace_probe_defs);
	free(s->gdb_script);
	for (size_t i = 0; i < s->n_gdb_breaks; i++)
		free(s->gdb_breaks[i]);
	free(s->gdb_breaks);
	for (size_t i = 0; i < s->n_gdb_match; i++) {
		free(s->gdb_match[i].name);
		free(s->gdb_match[i].regex);
		regfree(&s->gdb_match[i].re);
	}
	free(s->gdb_match);
	for (size_t i = 0; i < s->n_acpi; i++)
		free(s->acpi[i]);
	free(s->acpi);
	for (size_t i = 0; i < s->n_axes; i++) {
		matrix_axis_free(&s->axes[i]);
		free(s->case_values ? s->case_values[i] : NULL);
	}
	free(s->axes);
	free(s->case_values);
	free(s->case_id);
	free(s->append);
	free(s->description);
	free(s->name);
	free(s->path);
	free(s);
}
