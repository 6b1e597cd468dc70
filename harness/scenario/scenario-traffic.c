// SPDX-License-Identifier: GPL-2.0
/*
 * Named traffic sections: [traffic.NAME], several generators in one
 * scenario (README-scenarios.md). Their headers and keys as the reader
 * meets them, their checks across sections once the file is read (one
 * generator each, distinct ports per transport), the traffic.NAME.*
 * metrics a check may name, and the helpers that walk the sections of any
 * scenario, plain [traffic] included.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generators.h"
#include "lib/metrics.h"
#include "lib/util.h"
#include "scenario/scenario.h"
#include "scenario/scenario-int.h"
#include "scenario/scngen.h"

/* ---- walking the sections ------------------------------------------------ */

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


size_t scn_n_traffic(const struct scenario *s)
{
	return s->n_sections ? s->n_sections : s->generator ? 1 : 0;
}

void scn_traffic_view(const struct scenario *s, size_t i, struct scenario *view)
{
	*view = *s;
	if (!s->n_sections || i >= s->n_sections)
		return;
	view->generator = s->sections[i].generator;
	view->traffic = s->sections[i].opts;
	view->n_traffic = s->sections[i].n_opts;
	view->direction = s->sections[i].direction;
}

const char *scn_traffic_name(const struct scenario *s, size_t i)
{
	return i < s->n_sections ? s->sections[i].name : NULL;
}

double scn_traffic_start(const struct scenario *s, size_t i)
{
	return i < s->n_sections ? s->sections[i].start_s : 0;
}

int scn_traffic_find(const struct scenario *s, const char *name)
{
	for (size_t i = 0; i < s->n_sections; i++)
		if (!strcmp(s->sections[i].name, name))
			return (int)i;
	return -1;
}

/* family = 6, else the generator's v6_key (dst-ipv6 = yes): the one place the family is decided. */
bool scn_traffic_v6(const struct scenario *s)
{
	const struct tgen *g = s->generator ? tgen_find(s->generator) : NULL;
	const char *f = scn_traffic_value(s, TGEN_FAMILY_KEY);

	if (f)
		return !strcmp(f, "6");
	return g && g->v6_key && scn_traffic_true(s, g->v6_key);
}

void scn_family_validate(struct parse_ctx *c, const struct tgen *g, const struct scn_kv *opts,
			 size_t n)
{
	const struct scn_kv *fam = NULL, *v6 = NULL;
	bool b = false;

	for (size_t i = 0; i < n; i++) {
		if (!strcmp(opts[i].key, TGEN_FAMILY_KEY))
			fam = &opts[i];
		else if (g->v6_key && !strcmp(opts[i].key, g->v6_key))
			v6 = &opts[i];
	}
	if (!fam)
		return;
	if (strcmp(fam->value, "4") && strcmp(fam->value, "6")) {
		scn_err(c, fam->line, "bad family '%s': expected 4 or 6 (IPv4 or IPv6)", fam->value);
		return;
	}
	if (v6 && !scn_parse_bool(v6->value, &b) && b != !strcmp(fam->value, "6"))
		scn_err(c, fam->line > v6->line ? fam->line : v6->line,
			"family = %s and %s = %s disagree (line %u): %s = yes is family = 6; give one of them",
			fam->value, v6->key, v6->value, fam->line > v6->line ? v6->line : fam->line,
			v6->key);
}

/* The metric family (tgen->metric) of section i, or NULL. */
static const char *family_of(const struct scenario *s, size_t i)
{
	const char *gen = i < s->n_sections ? s->sections[i].generator : s->generator;
	const struct tgen *g = gen ? tgen_find(gen) : NULL;

	return g ? g->metric : NULL;
}

bool scn_traffic_first_of_family(const struct scenario *s, size_t i)
{
	const char *fam = family_of(s, i);

	for (size_t j = 0; fam && j < i; j++)
		if (family_of(s, j) && !strcmp(family_of(s, j), fam))
			return false;
	return fam != NULL;
}

int scn_traffic_loss_section(const struct scenario *s)
{
	for (size_t i = 0; i < scn_n_traffic(s); i++) {
		const struct scn_gen *d =
			scn_gen_find(i < s->n_sections ? s->sections[i].generator : s->generator);

		if (d && d->loss_identity)
			return (int)i;
	}
	return -1;
}

/* ---- headers and keys ------------------------------------------------------ */

static struct scn_traffic *section_named(struct parse_ctx *c, const char *name)
{
	int i = scn_traffic_find(c->s, name);

	return i < 0 ? NULL : &c->s->sections[i];
}

void scn_traffic_header(struct parse_ctx *c, const char *name, size_t len)
{
	struct scenario *s = c->s;
	char *n = xasprintf("%.*s", (int)len, name);
	struct scn_traffic *t = section_named(c, n);

	if (!scn_chars_ok(n, "_-") || strpbrk(n, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") || len > 32) {
		scn_err(c, c->line, "bad section name [traffic.%s]: NAME is [a-z0-9_-]+, at most 32 characters",
			n);
	} else if (!strcmp(n, SCN_TRAFFIC_ALL)) {
		scn_err(c, c->line, "bad section name [traffic.%s]: traffic.%s.* are the sums over every section; name it otherwise",
			n, n);
	} else if (t) {
		scn_err(c, c->line, "duplicate section [traffic.%s] (first at line %u)", n, t->line);
	} else if (c->sec_line[SEC_TRAFFIC]) {
		scn_err(c, c->line,
			"[traffic.%s] beside [traffic] (line %u): a scenario has either one [traffic] or named [traffic.NAME] sections",
			n, c->sec_line[SEC_TRAFFIC]);
	} else {
		s->sections = xrealloc_array(s->sections, s->n_sections + 1, sizeof(*s->sections));
		s->sections[s->n_sections++] = (struct scn_traffic){ .name = n, .line = c->line };
		return;
	}
	free(n);
}

/* In a matrix case, the case's value of traffic.NAME.KEY, or NULL. */
static const char *section_case_value(struct parse_ctx *c, const char *name, const char *key)
{
	size_t n = strlen(name);

	for (size_t i = 0; c->case_values && i < c->s->n_axes; i++) {
		const char *ak = c->s->axes[i].key;

		if (!strncmp(ak, "traffic.", 8) && !strncmp(ak + 8, name, n) && ak[8 + n] == '.' &&
		    !strcmp(ak + 9 + n, key)) {
			c->axis_used[i] = true;
			return c->case_values[i];
		}
	}
	return NULL;
}

static int set_start(struct parse_ctx *c, struct scn_traffic *t, const char *value)
{
	char *end = NULL;
	double v = strtod(value, &end);

	if (end == value || *end || !isfinite(v) || v < 0 || v > 3600)
		return scn_err(c, c->line,
			       "bad start '%s' in [traffic.%s]: expected seconds in 0..3600 (decimals allowed)",
			       value, t->name);
	t->start_s = v;
	return 0;
}

static int section_key(struct parse_ctx *c, struct scn_traffic *t, const char *key,
		       const char *value)
{
	if (!strcmp(key, "generator")) {
		t->generator_line = c->line;
		t->generator = scn_generator_name(value);
		if (!t->generator)
			return scn_err(c, c->line, "unknown generator '%s' in [traffic.%s] (generators: %s)",
				       value, t->name, scn_generator_list());
		return 0;
	}
	if (!strcmp(key, "direction")) {
		t->direction_line = c->line;
		if (!strcmp(value, "A>B") || !strcmp(value, "B>A")) {
			t->direction = value[0] == 'A' ? SCN_DIR_AB : SCN_DIR_BA;
			return 0;
		}
		return scn_err(c, c->line,
			       "bad direction '%s' in [traffic.%s]: expected A>B or B>A (the sender first)",
			       value, t->name);
	}
	if (!strcmp(key, "start")) {
		t->start_line = c->line;
		return set_start(c, t, value);
	}
	t->opts = xrealloc_array(t->opts, t->n_opts + 1, sizeof(*t->opts));
	t->opts[t->n_opts++] = (struct scn_kv){ .key = xstrdup(key), .value = xstrdup(value),
						.line = c->line };
	return 0;
}

/* The line of key @key in @t so far, 0 when it has none. */
static unsigned int key_line(const struct scn_traffic *t, const char *key)
{
	if (!strcmp(key, "generator"))
		return t->generator_line;
	if (!strcmp(key, "direction"))
		return t->direction_line;
	if (!strcmp(key, "start"))
		return t->start_line;
	for (size_t i = 0; i < t->n_opts; i++)
		if (!strcmp(t->opts[i].key, key))
			return t->opts[i].line;
	return 0;
}

int scn_key_traffic_named(struct parse_ctx *c, const char *name, const char *key,
			  const char *value)
{
	struct scn_traffic *t = section_named(c, name);
	unsigned int first;

	if (!t)
		return 0;	/* reported at its header */
	first = key_line(t, key);
	if (first)
		return scn_err(c, c->line, "duplicate key '%s' in [traffic.%s] (first at line %u)", key,
			       name, first);
	if (!*value)
		return scn_err(c, c->line, "key '%s' has no value", key);
	return section_key(c, t, key, section_case_value(c, name, key) ?: value);
}

int scn_traffic_axis_add(struct parse_ctx *c, const char *key, const char *value)
{
	const char *name = key + 8, *dot = strchr(name, '.');
	char *n = dot ? xasprintf("%.*s", (int)(dot - name), name) : NULL;
	struct scn_traffic *t = n ? section_named(c, n) : NULL;
	int ret;

	if (!t) {
		ret = scn_err(c, c->line,
			      "[matrix] axis '%s': no section [traffic.%s] (an axis of a section's key is traffic.NAME.KEY)",
			      key, n ? n : name);
		free(n);
		return ret;
	}
	free(n);
	return section_key(c, t, dot + 1, value);
}

/* ---- across sections, once the file is read ------------------------------- */

/* The port section i's receiver listens on: its port option, else its generator's default. */
static unsigned int section_port(const struct scenario *s, size_t i, unsigned int *line)
{
	const struct scn_traffic *t = &s->sections[i];
	const struct tgen *g = tgen_find(t->generator);

	*line = t->line;
	for (size_t k = 0; k < t->n_opts; k++) {
		if (!strcmp(t->opts[k].key, "port")) {
			*line = t->opts[k].line;
			return (unsigned int)strtoul(t->opts[k].value, NULL, 10);
		}
	}
	return g->default_port;
}

/* "tcp" or "udp": section t's transport (its proto option, else its generator's). */
static const char *section_l4(const struct scn_traffic *t)
{
	const struct tgen *g = tgen_find(t->generator);

	for (size_t k = 0; g->proto_opt && k < t->n_opts; k++)
		if (!strcmp(t->opts[k].key, g->proto_opt))
			return t->opts[k].value;
	return g->default_proto;
}

/* Two sections of one transport on one port: their receivers would share it. */
static void validate_ports(struct parse_ctx *c)
{
	struct scenario *s = c->s;

	for (size_t j = 1; j < s->n_sections; j++) {
		const char *l4 = section_l4(&s->sections[j]);
		unsigned int lj, pj = section_port(s, j, &lj);

		for (size_t i = 0; i < j; i++) {
			unsigned int li, pi = section_port(s, i, &li);

			if (pi != pj || strcmp(section_l4(&s->sections[i]), l4))
				continue;
			scn_err(c, lj,
				"[traffic.%s] and [traffic.%s] (line %u) both use %s port %u: give each a port = ...",
				s->sections[j].name, s->sections[i].name, li, l4, pj);
			return;
		}
	}
}

void scn_validate_sections(struct parse_ctx *c)
{
	struct scenario *s = c->s;

	for (size_t i = 0; i < s->n_sections; i++) {
		struct scn_traffic *t = &s->sections[i];
		if (!t->generator) {
			scn_err(c, t->line, "[traffic.%s] has no generator (%s)", t->name,
				scn_generator_list());
			continue;
		}
		if (!t->direction_line)
			t->direction = s->direction;
		else if (strlen(s->labels) < 2)
			scn_err(c, t->direction_line, "direction needs two NICs; topology '%s' has %zu",
				s->topo->name, strlen(s->labels));
	}
	if (c->err)
		return;
	validate_ports(c);
	/* What knows one generator sees the first section (scenario.h). */
	s->generator = s->sections[0].generator;
	s->traffic = s->sections[0].opts;
	s->n_traffic = s->sections[0].n_opts;
	s->direction = s->sections[0].direction;
}

/* ---- metrics --------------------------------------------------------------- */

static char *section_list(const struct scenario *s)
{
	struct sbuf b;

	sbuf_init(&b);
	for (size_t i = 0; i < s->n_sections; i++)
		sbuf_addf(&b, "%s%s", i ? ", " : "", s->sections[i].name);
	return sbuf_detach(&b);
}

/*
 * The metrics traffic.all.* sums over the sections: counts and rates, not
 * percentiles or ratios. A leaf (the name's last word) in this list.
 */
static const char *const additive[] = {
	"sent",	       "received",    "unique",	     "lost",	      "misdelivered", "reordered",
	"duplicated",  "bytes",	      "goodput_bps", "retransmits", "transactions", "stalled",
	"flows",       "flows_lossy", "sockets",     "sockets_used", "connections",
};

bool scn_traffic_additive(const char *metric)
{
	const char *leaf = strrchr(metric, '.');

	if (strstr(metric, ".flow."))
		return false; /* per flow: flow K of one section is not flow K of another */
	leaf = leaf ? leaf + 1 : metric;
	for (size_t i = 0; i < ARRAY_SIZE(additive); i++)
		if (!strcmp(leaf, additive[i]))
			return true;
	return false;
}

/* traffic.all.METRIC: an additive metric of at least one section's generator. */
static int all_metric_check(const struct scenario *s, const char *name, char **why)
{
	const char *metric = name + strlen("traffic." SCN_TRAFFIC_ALL ".");

	if (!scn_traffic_additive(metric)) {
		err_set(why, "metric '%s': traffic.%s.* sums the sections' counts and rates (sent, lost, bytes, goodput_bps, ...), not '%s'",
			name, SCN_TRAFFIC_ALL, metric);
		return -EINVAL;
	}
	for (size_t i = 0; i < s->n_sections; i++)
		if (!metrics_gen_name_check(metric, scn_gen_metrics, s->sections[i].generator, NULL))
			return 0;
	err_set(why, "metric '%s': no section's generator has '%s'", name, metric);
	return -EINVAL;
}

/* traffic.NAME.METRIC: METRIC one of the section's generator's own. */
static int section_metric_check(const struct scenario *s, const char *name, char **why)
{
	const char *rest = strchr(name + 8, '.');
	char *n = xasprintf("%.*s", rest ? (int)(rest - name - 8) : (int)strlen(name + 8), name + 8);
	int i = scn_traffic_find(s, n), ret = 0;
	char *list, *w = NULL;

	if (i < 0) {
		list = section_list(s);
		err_set(why, "metric '%s': no section [traffic.%s] (sections: %s)", name, n, list);
		free(list);
		ret = -EINVAL;
	} else if (!rest || !rest[1]) {
		err_set(why, "metric '%s': expected traffic.%s.METRIC, METRIC one of %s's", name, n,
			s->sections[i].generator);
		ret = -EINVAL;
	} else if (metrics_gen_name_check(rest + 1, scn_gen_metrics, s->sections[i].generator,
					  &w)) {
		err_set(why, "metric '%s' of [traffic.%s]: %s", name, n, w);
		ret = -EINVAL;
	}
	free(w);
	free(n);
	return ret;
}

int scn_sections_metric_check(const struct scenario *s, const char *name, char **why)
{
	char *first = NULL;

	if (!strcmp(name, "traffic.sections"))
		return 0;
	if (!strncmp(name, "traffic." SCN_TRAFFIC_ALL ".", strlen("traffic." SCN_TRAFFIC_ALL ".")))
		return all_metric_check(s, name, why);
	if (!strncmp(name, "traffic.", 8))
		return section_metric_check(s, name, why);
	/* udp.*, tcp.*, rr.*: the first section of the family's; loss.*: the first UDP stream's. */
	for (size_t i = 0; i < s->n_sections; i++) {
		char *w = NULL;

		if (!metrics_name_check(name, scn_gen_metrics, s->sections[i].generator, s->labels,
					&w)) {
			free(first);
			return 0;
		}
		if (!first)
			first = w;
		else
			free(w);
	}
	err_set(why, "%s", first ? first : "unknown metric");
	free(first);
	return -EINVAL;
}

/* Whether a check of the scenario has METRIC as its subject. */
static bool has_subject(const struct scenario *s, const char *metric)
{
	for (size_t i = 0; i < s->n_checks; i++) {
		const char *sub = check_subject(s->checks[i].expr);

		if (sub && !strcmp(sub, metric))
			return true;
	}
	return false;
}

static bool has_check(const struct scenario *s, const char *name)
{
	for (size_t i = 0; i < s->n_checks; i++)
		if (!strcmp(s->checks[i].name, name))
			return true;
	return false;
}

/*
 * Each section whose flow can stall gets no_stall_NAME =
 * traffic.NAME.METRIC.stalled == 0 (as a plain [traffic] gets no_stall),
 * unless a check has that subject already, or METRIC.stalled for the first
 * section of its family.
 */
void scn_sections_stall_checks(struct parse_ctx *c)
{
	struct scenario *s = c->s;

	for (size_t i = 0; i < s->n_sections; i++) {
		const struct tgen *g = tgen_find(s->sections[i].generator);
		char *subject, *plain, *text, *name;
		struct check_expr *e = NULL;
		bool skip;

		if (!g || !g->can_stall)
			continue;
		subject = xasprintf("traffic.%s.%s.stalled", s->sections[i].name, g->metric);
		plain = xasprintf("%s.stalled", g->metric);
		skip = has_subject(s, subject) ||
		       (scn_traffic_first_of_family(s, i) && has_subject(s, plain));
		text = xasprintf("%s == 0", subject);
		name = xasprintf("no_stall_%s", s->sections[i].name);
		if (has_check(s, name)) {
			free(name);
			name = xasprintf("netlab_no_stall_%s", s->sections[i].name);
		}
		if (!skip && !check_parse(text, &e, NULL)) {
			s->checks = xrealloc_array(s->checks, s->n_checks + 1, sizeof(*s->checks));
			s->checks[s->n_checks++] = (struct scn_check){ .name = name, .expr = e,
								       .implicit = true };
			name = NULL;
		}
		free(name);
		free(text);
		free(plain);
		free(subject);
	}
}

void scn_sections_free(struct scenario *s)
{
	for (size_t i = 0; i < s->n_sections; i++) {
		for (size_t k = 0; k < s->sections[i].n_opts; k++) {
			free(s->sections[i].opts[k].key);
			free(s->sections[i].opts[k].value);
		}
		free(s->sections[i].opts);
		free(s->sections[i].name);
	}
	free(s->sections);
}
