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
#include "scenario/scenario-int.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ini.h>

#include "generators.h"
#include "scenario/matrix.h"
#include "lib/metrics.h"
#include "scenario/scngen.h"
#include "trace/traceset.h"
#include "lib/util.h"

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

const char *scn_traffic_l4(const struct scenario *s)
{
	const struct tgen *g = s->generator ? tgen_find(s->generator) : NULL;
	const char *v = g && g->proto_opt ? scn_traffic_value(s, g->proto_opt) : NULL;

	return g ? (v ? v : g->default_proto) : NULL;
}

bool scn_traffic_v6(const struct scenario *s)
{
	const struct tgen *g = s->generator ? tgen_find(s->generator) : NULL;

	return g && g->v6_key && scn_traffic_true(s, g->v6_key);
}

/* ---- traffic generators ------------------------------------------------- */

/*
 * The generators and their options are traffic/'s (generators.h): [traffic]
 * keys are checked against each tool's own option table. A flag option is a
 * boolean key (--key when true), a choice a key with its choices, any other
 * option one word passed on as --key value; the v6_key is a boolean too.
 */

static bool key_is_bool(const struct tgen *g, const char *key)
{
	const struct topt *o = tgen_key_opt(g, key);

	return o ? o->kind == TOPT_FLAG : tgen_key_ok(g, key);
}

static char *gen_opt_list(const struct tgen *g)
{
	struct sbuf b;

	sbuf_init(&b);
	sbuf_adds(&b, "generator");
	for (const char *const *k = g->keys; *k; k++)
		sbuf_addf(&b, ", %s", *k);
	if (g->v6_key)
		sbuf_addf(&b, ", %s", g->v6_key);
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
	const struct tgen *g = tgen_find(s->generator);

	for (size_t i = 0; i < s->n_traffic; i++) {
		const struct scn_kv *kv = &s->traffic[i];
		bool on = false;

		if (key_is_bool(g, kv->key)) {
			scn_parse_bool(kv->value, &on);
			if (on)
				argv_addf(a, "--%s", kv->key);
			continue;
		}
		argv_addf(a, "--%s", kv->key);
		argv_add(a, kv->value);
	}
}

/* [scenario]: the SMP and steering keys (scenario-smp.c), then the others. */
static int key_scenario(struct parse_ctx *c, const char *key, const char *value)
{
	if (scn_smp_key_known(key))
		return scn_key_smp(c, key, value);
	return scn_key_scenario(c, key, value);
}

static const struct {
	const char *name;
	int (*key)(struct parse_ctx *c, const char *key, const char *value);
} sections[N_SECTIONS] = {
	[SEC_SCENARIO] = { "scenario", key_scenario },
	[SEC_SYSCTL] = { "sysctl", scn_key_sysctl },
	[SEC_TRAFFIC] = { "traffic", scn_key_traffic },
	[SEC_NETEM] = { "netem", scn_key_netem },
	[SEC_QDISC] = { "qdisc", scn_key_qdisc },
	[SEC_CHECKS] = { "checks", scn_key_checks },
	[SEC_TRACE] = { "trace", scn_key_trace },
	[SEC_GDB] = { "gdb", scn_key_gdb },
	[SEC_MATRIX] = { "matrix", scn_key_matrix },
	[SEC_EXEC] = { "exec", scn_key_exec },
};

#define SECTION_LIST "scenario, sysctl, traffic, netem, qdisc, checks, trace, gdb, matrix, exec"

/*
 * The section a [matrix] axis key sets, and the key within it: sysctl.NAME
 * is [sysctl]'s NAME, a [scenario] key is one of its table's, any other
 * word is a [traffic] key (checked against the generator as usual).
 */
static enum scn_section axis_section(const char *key, const char **skey)
{
	bool by_prefix;

	*skey = key;
	/* traffic.NAME.KEY: a named section's (scenario-traffic.c), no section of the table. */
	if (!strncmp(key, "traffic.", 8))
		return N_SECTIONS;
	if (!strncmp(key, "sysctl.", 7)) {
		*skey = key + 7;
		return SEC_SYSCTL;
	}
	if (scn_smp_key_known(key))
		return SEC_SCENARIO;
	return scn_scenario_key_find(key, &by_prefix) >= 0 ? SEC_SCENARIO : SEC_TRAFFIC;
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
		if (sec == N_SECTIONS) {
			scn_traffic_axis_add(c, c->s->axes[i].key, c->case_values[i]);
			continue;
		}
		if (sec == SEC_TRAFFIC && c->s->n_sections) {
			scn_err(c, c->line,
				"[matrix] axis '%s': the traffic is in named sections; write traffic.NAME.%s",
				skey, skey);
			continue;
		}
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
	if (len > 8 && !strncmp(line + 1, "traffic.", 8)) {
		scn_traffic_header(c, line + 9, len - 8);
		return;
	}
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
	if (i == SEC_TRAFFIC && c->s->n_sections) {
		scn_err(c, c->line,
			"[traffic] beside [traffic.%s] (line %u): a scenario has either one [traffic] or named [traffic.NAME] sections",
			c->s->sections[0].name, c->s->sections[0].line);
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
	if (i < 0 && !strncmp(section, "traffic.", 8)) {
		scn_key_traffic_named(c, section + 8, key, value);
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

static void validate_option(struct parse_ctx *c, const struct tgen *g, const struct scn_kv *kv)
{
	const struct topt *o = tgen_key_opt(g, kv->key);
	const char *const *ch;
	char *list;
	bool b;

	if (!tgen_key_ok(g, kv->key)) {
		list = gen_opt_list(g);
		scn_err(c, kv->line, "unknown option '%s' for generator '%s' (allowed: %s)",
			kv->key, g->name, list);
		free(list);
		return;
	}
	if (key_is_bool(g, kv->key)) {
		if (scn_parse_bool(kv->value, &b))
			scn_err(c, kv->line, "bad %s '%s': expected yes/no/true/false/1/0", kv->key,
				kv->value);
		return;
	}
	switch (o->kind) {
	case TOPT_CHOICE:
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
			 !scn_gen_find(g->name)->size_range)
			scn_err(c, kv->line, "bad size '%s': a range MIN..MAX is for %s only",
				kv->value, scn_gen_size_range_list());
		else if (!strcmp(kv->key, "size") && strstr(kv->value, "..") &&
			 (strstr(kv->value, "..")[2] == '\0' || kv->value[0] == '.'))
			scn_err(c, kv->line, "bad size '%s': expected MIN..MAX, e.g. 32..1472",
				kv->value);
		return;
	}
}

static void validate_traffic(struct parse_ctx *c)
{
	const struct tgen *g;

	for (size_t i = 0; i < c->s->n_sections; i++) {
		const struct scn_traffic *t = &c->s->sections[i];

		for (size_t k = 0; t->generator && k < t->n_opts; k++)
			validate_option(c, tgen_find(t->generator), &t->opts[k]);
	}
	if (c->s->n_sections) {
		scn_validate_sections(c);
		return;
	}
	if (!c->sec_line[SEC_TRAFFIC]) {
		if (!c->sec_line[SEC_EXEC])
			scn_err(c, 0, "no [traffic] or [exec] section: a scenario needs a "
				      "generator (%s) or a command", scn_generator_list());
		return;
	}
	if (!c->s->generator) {
		scn_err(c, c->sec_line[SEC_TRAFFIC], "[traffic] has no generator (%s)",
			scn_generator_list());
		return;
	}
	g = tgen_find(c->s->generator);
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
	if (!strncmp(name, "exec.", 5) ? !scn_exec_metric_check(s, name, &why) :
	    !strncmp(name, "gdb.", 4) ? !gdb_metric_check(s, name, &why) :
	    s->n_sections	      ? !scn_sections_metric_check(s, name, &why)
				      : !metrics_name_check(name, scn_gen_metrics, s->generator,
							    s->labels, &why))
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
	if (!c->s->generator && !c->sec_line[SEC_EXEC])
		return;	/* reported; every generator-bound metric would be wrong too */
	for (size_t i = 0; i < c->s->n_checks; i++) {
		mc.chk = &c->s->checks[i];
		check_metrics_used(mc.chk->expr, validate_metric, &mc);
	}
}

/*
 * A generator whose flow can stall (generators.h) gets the check
 * no_stall = METRIC.stalled == 0, unless one of the scenario's checks has
 * METRIC.stalled as its subject already: a flow the path stopped is a
 * regression (exit 1), never a run that "cannot test".
 */
static void add_stall_check(struct parse_ctx *c)
{
	struct scenario *s = c->s;
	const struct tgen *g = s->generator ? tgen_find(s->generator) : NULL;
	const char *name = "no_stall";
	struct check_expr *e = NULL;
	struct scn_check *v;
	char *subject, *text;
	int ret;

	if (!g || !g->can_stall)
		return;
	subject = xasprintf("%s.stalled", g->metric);
	for (size_t i = 0; i < s->n_checks; i++) {
		const char *sub = check_subject(s->checks[i].expr);

		if (sub && !strcmp(sub, subject)) {
			free(subject);
			return;
		}
		if (!strcmp(s->checks[i].name, name))
			name = "netlab_no_stall";
	}
	text = xasprintf("%s == 0", subject);
	ret = check_parse(text, &e, NULL);
	free(text);
	free(subject);
	if (ret)
		return;
	v = xzalloc((s->n_checks + 1) * sizeof(*v));
	if (s->n_checks)
		memcpy(v, s->checks, s->n_checks * sizeof(*v));
	free(s->checks);
	s->checks = v;
	v[s->n_checks] = (struct scn_check){ .name = xstrdup(name), .expr = e, .implicit = true };
	s->n_checks++;
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
	s->snaplen = -1;
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
	scn_validate_steering(c);
	validate_timeout(c);
	validate_traffic(c);
	validate_gdb(c);
	scn_validate_exec(c);
	validate_checks(c);
	if (!c->err && c->s->n_sections)
		scn_sections_stall_checks(c);
	else if (!c->err)
		add_stall_check(c);
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
	/* ',' and '=' are QEMU's option syntax: a run directory holds sockets. */
	for (size_t i = 0; i < n; i++)
		sbuf_add(&b, strchr(",=", s->name[i]) ? "_" : &s->name[i], 1);
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

char *scn_sysctl_where(const struct scenario *s, const char *text)
{
	for (size_t i = 0; text && i < s->n_sysctl; i++) {
		char *q = xasprintf("'%s'", s->sysctl[i].key);
		bool named = strstr(text, q) != NULL;

		free(q);
		if (named)
			return xasprintf("%s:%u: [sysctl] %s", s->path, s->sysctl[i].line,
					 s->sysctl[i].key);
	}
	return NULL;
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
	if (!s->n_sections || s->traffic != s->sections[0].opts)
		kv_free(s->traffic, s->n_traffic);
	scn_sections_free(s);
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
	scn_exec_free(s);
	scn_smp_free(s);
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
