// SPDX-License-Identifier: GPL-2.0
/*
 * KTAP / TAP results of an [exec] command. See ktap.h.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/util.h"
#include "scenario/ktap.h"

#define KTAP_MAX_DEPTH 16

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

void ktap_sanitize(const char *name, size_t len, char *out, size_t size)
{
	size_t n = 0;
	bool gap = false;

	for (size_t i = 0; i < len && n + 2 < size; i++) {
		if (!name_char(name[i])) {
			gap = n > 0;
			continue;
		}
		if (gap)
			out[n++] = '_';
		gap = false;
		out[n++] = name[i];
	}
	out[n] = '\0';
}

bool ktap_name_ok(const char *name)
{
	bool empty = true;

	for (; *name; name++) {
		if (*name == '.') {
			if (empty)
				return false;
			empty = true;
		} else if (name_char(*name)) {
			empty = false;
		} else {
			return false;
		}
	}
	return !empty;
}

/* Per nesting level: the subtest header seen, and whether results came. */
struct level {
	char name[128];		/* "# Subtest: NAME", sanitized; "" = none */
	unsigned int results;	/* result lines at this level since its parent's */
	unsigned int fails;	/* of them, failures counted in r->fail */
};

struct parser {
	struct ktap_result *r;
	struct level lv[KTAP_MAX_DEPTH + 2];
};

/* Leading indentation (spaces, a tab is 8) and "# " prefixes, as a depth. */
static const char *line_depth(const char *l, unsigned int *depth)
{
	unsigned int sp = 0, hash = 0;

	for (;;) {
		if (*l == ' ')
			sp++;
		else if (*l == '\t')
			sp += 8;
		else if (*l == '#' && l[1] == ' ' &&
			 (!strncmp(l + 2, "ok", 2) || !strncmp(l + 2, "not ok", 6) ||
			  !strncmp(l + 2, "# Subtest:", 10) || !strncmp(l + 2, "KTAP", 4) ||
			  !strncmp(l + 2, "TAP", 3) || !strncmp(l + 2, "1..", 3)))
			hash++, l++;	/* kselftest: a nested test's lines behind "# " */
		else
			break;
		l++;
	}
	*depth = sp / 2 + hash;
	if (*depth > KTAP_MAX_DEPTH)
		*depth = KTAP_MAX_DEPTH;
	return l;
}

static void add_case(struct parser *p, const char *name, enum ktap_status st, unsigned int depth)
{
	struct ktap_result *r = p->r;
	struct ktap_case *c;
	bool leaf = p->lv[depth + 1].results == 0;

	r->cases = xrealloc_array(r->cases, r->n_cases + 1, sizeof(*r->cases));
	c = &r->cases[r->n_cases++];
	c->name = depth && p->lv[depth].name[0] ? xasprintf("%s.%s", p->lv[depth].name, name)
						: xstrdup(name);
	c->status = st;
	c->depth = depth;
	c->leaf = leaf;
	if (leaf) {
		if (st == KTAP_PASS)
			r->pass++;
		else if (st == KTAP_FAIL)
			r->fail++;
		else
			r->skip++;
	} else if (st == KTAP_FAIL && !p->lv[depth + 1].fails) {
		/*
		 * A parent that failed with no failing subtest failed on its own
		 * (a kselftest script that exits 1 after its cases passed, e.g.
		 * a helper it could not source): a failure, never hidden.
		 */
		r->fail++;
	}
	if (st == KTAP_FAIL)
		p->lv[depth].fails++;
	p->lv[depth + 1].results = 0;
	p->lv[depth + 1].fails = 0;
	p->lv[depth + 1].name[0] = '\0';
	p->lv[depth].results++;
}

/* "ok 3 - name # SKIP why" after its "ok"/"not ok"; false if malformed. */
static bool result_line(struct parser *p, const char *l, bool ok, unsigned int depth)
{
	const char *desc, *hash;
	enum ktap_status st = ok ? KTAP_PASS : KTAP_FAIL;
	unsigned long num = 0;
	char name[128];
	char *end;

	if (*l && *l != ' ')
		return false;	/* "okay", "ok3" */
	l += strspn(l, " ");
	if (isdigit((unsigned char)*l)) {
		num = strtoul(l, &end, 10);
		l = end;
		if (*l && *l != ' ')
			return false;
	}
	l += strspn(l, " ");
	if (*l == '-' && (l[1] == ' ' || !l[1]))
		l += 1 + strspn(l + 1, " ");
	desc = l;
	hash = strchr(desc, '#');
	if (hash) {
		const char *d = hash + 1 + strspn(hash + 1, " ");

		if (!strncasecmp(d, "SKIP", 4) || !strncasecmp(d, "TODO", 4))
			st = KTAP_SKIP;
	}
	ktap_sanitize(desc, hash ? (size_t)(hash - desc) : strlen(desc), name, sizeof(name));
	if (!name[0])
		snprintf(name, sizeof(name), "test_%lu", num);
	add_case(p, name, st, depth);
	return true;
}

static void parse_line(struct parser *p, const char *line)
{
	unsigned int depth;
	const char *l = line_depth(line, &depth);

	if (!strncmp(l, "ok", 2)) {
		result_line(p, l + 2, true, depth);
	} else if (!strncmp(l, "not ok", 6)) {
		result_line(p, l + 6, false, depth);
	} else if (!strncmp(l, "# Subtest:", 10)) {
		const char *n = l + 10 + strspn(l + 10, " ");

		/* The header sits at the subtests' own indentation (KTAP). */
		ktap_sanitize(n, strlen(n), p->lv[depth + (depth == 0)].name,
			      sizeof(p->lv[0].name));
		if (depth)
			p->lv[depth].results = 0;
	} else if (!strncmp(l, "Bail out!", 9)) {
		p->r->bail_out = true;
		p->r->fail++;
	}
}

void ktap_parse(const char *text, struct ktap_result *r)
{
	struct parser p = { .r = r };

	memset(r, 0, sizeof(*r));
	while (text && *text) {
		size_t len = strcspn(text, "\n");
		char *line = xasprintf("%.*s", (int)len, text);

		line[strcspn(line, "\r")] = '\0';
		parse_line(&p, line);
		free(line);
		text += len + (text[len] == '\n');
	}
}

void ktap_release(struct ktap_result *r)
{
	for (size_t i = 0; i < r->n_cases; i++)
		free(r->cases[i].name);
	free(r->cases);
	memset(r, 0, sizeof(*r));
}
