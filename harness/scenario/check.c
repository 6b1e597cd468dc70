// SPDX-License-Identifier: GPL-2.0
/*
 * Check expressions: a lexer, a recursive-descent parser into a small tree,
 * and an evaluator. Precedence, loosest first:
 *
 *	or
 *	and
 *	not			(prefix)
 *	== != < <= > >=		(one per comparison; not chained)
 *	+ -
 *	* /
 *	-			(unary)
 *	number, metric, baseline, ( ... )
 *
 * Every node is a number or a truth value; the parser checks that each
 * operator gets the kind it needs, so the evaluator never has to.
 */
#include "scenario/check.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

enum node_kind {
	/* numbers */
	N_NUM,
	N_METRIC,
	N_BASELINE,
	N_NEG,
	N_ADD,
	N_SUB,
	N_MUL,
	N_DIV,
	/* truth values */
	N_CMP,
	N_NOT,
	N_AND,
	N_OR,
};

struct check_node {
	enum node_kind kind;
	unsigned int col;		/* column of the token that made the node */
	enum check_op op;		/* N_CMP */
	double num;			/* N_NUM */
	char *name;			/* N_METRIC */
	struct check_node *l, *r;	/* r only for binary nodes */
};

struct check_expr {
	char *text;
	struct check_node *root;
	const char *subject;		/* name of the first N_METRIC */
	bool uses_baseline;
};

enum tok_kind {
	T_END,
	T_NUM,
	T_NAME,
	T_BASELINE,
	T_AND,
	T_OR,
	T_NOT,
	T_PLUS,
	T_MINUS,
	T_STAR,
	T_SLASH,
	T_LPAREN,
	T_RPAREN,
	T_CMP,
};

struct token {
	enum tok_kind kind;
	const char *start;		/* NULL: no token yet */
	size_t len;
	unsigned int col;
	double num;
	enum check_op op;
};

struct parser {
	const char *text;
	const char *p;			/* where the lexer resumes */
	struct token tok;		/* current token */
	struct token prev;		/* the one before it */
	char *err;
	struct check_expr *e;
};

static const char *const op_strs[] = { "==", "!=", "<", "<=", ">", ">=" };

const char *check_op_str(enum check_op op)
{
	return op_strs[op];
}

const char *check_status_name(enum check_status s)
{
	static const char *const names[] = { "pass", "fail", "not-measured", "no-baseline",
					     "error" };

	return names[s];
}

static bool is_bool(const struct check_node *n)
{
	return n->kind >= N_CMP;
}

static struct check_node *node_new(enum node_kind kind, unsigned int col)
{
	struct check_node *n = xzalloc(sizeof(*n));

	n->kind = kind;
	n->col = col;
	return n;
}

static void node_free(struct check_node *n)
{
	if (!n)
		return;
	node_free(n->l);
	node_free(n->r);
	free(n->name);
	free(n);
}

static struct check_node *node_bin(enum node_kind kind, const struct token *t,
				   struct check_node *l, struct check_node *r)
{
	struct check_node *n = node_new(kind, t->col);

	n->op = t->op;
	n->l = l;
	n->r = r;
	return n;
}

/* ---- lexer ---------------------------------------------------------------- */

static int perr(struct parser *ps, unsigned int col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int perr(struct parser *ps, unsigned int col, const char *fmt, ...)
{
	struct sbuf b;
	va_list ap;

	if (ps->err)
		return -EINVAL;
	sbuf_init(&b);
	sbuf_addf(&b, "column %u: ", col);
	va_start(ap, fmt);
	sbuf_vaddf(&b, fmt, ap);
	va_end(ap);
	ps->err = sbuf_detach(&b);
	return -EINVAL;
}

static bool is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* 42, 0.5, 1e6, 20k, 1.5M, 2G */
static int lex_number(struct parser *ps, struct token *t)
{
	const char *p = t->start;
	double mult = 1;
	char *num;

	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			;
	if ((*p == 'e' || *p == 'E') &&
	    (isdigit((unsigned char)p[1]) ||
	     ((p[1] == '+' || p[1] == '-') && isdigit((unsigned char)p[2]))))
		for (p += 2; isdigit((unsigned char)*p); p++)
			;
	num = xasprintf("%.*s", (int)(p - t->start), t->start);
	if (*p == 'k')
		mult = 1e3;
	else if (*p == 'M')
		mult = 1e6;
	else if (*p == 'G')
		mult = 1e9;
	if (mult != 1)
		p++;
	t->num = strtod(num, NULL) * mult;
	free(num);
	if (!isfinite(t->num))
		return perr(ps, t->col, "number '%.*s' is out of range", (int)(p - t->start),
			    t->start);
	if (is_name_char(*p) || *p == '.') {
		while (is_name_char(*p) || *p == '.')
			p++;
		return perr(ps, t->col,
			    "bad number '%.*s' (numbers look like 42, 0.5, 1e6, 20k, 1.5M, 2G)",
			    (int)(p - t->start), t->start);
	}
	t->kind = T_NUM;
	t->len = (size_t)(p - t->start);
	return 0;
}

/* A dotted name: udp.lost, nic.A.rx_missed_errors, rr.latency_us.p99_9. */
static int lex_name(struct parser *ps, struct token *t)
{
	static const struct {
		const char *word;
		enum tok_kind kind;
	} keywords[] = {
		{ "and", T_AND }, { "or", T_OR }, { "not", T_NOT }, { "baseline", T_BASELINE },
	};
	const char *p = t->start;

	for (;;) {
		while (is_name_char(*p))
			p++;
		if (*p != '.')
			break;
		if (!is_name_char(p[1]))
			return perr(ps, (unsigned int)(p - ps->text) + 2,
				    "expected a name after '.' in '%.*s'", (int)(p + 1 - t->start),
				    t->start);
		p++;
	}
	t->kind = T_NAME;
	t->len = (size_t)(p - t->start);
	for (size_t i = 0; i < ARRAY_SIZE(keywords); i++)
		if (strlen(keywords[i].word) == t->len &&
		    !strncmp(keywords[i].word, t->start, t->len))
			t->kind = keywords[i].kind;
	return 0;
}

static int lex_cmp(struct parser *ps, struct token *t)
{
	const char *p = t->start;
	bool eq = p[1] == '=';

	t->kind = T_CMP;
	t->len = eq ? 2 : 1;
	switch (*p) {
	case '=':
		if (!eq)
			return perr(ps, t->col, "'=' is not a comparison; use '=='");
		t->op = CHECK_EQ;
		return 0;
	case '!':
		if (!eq)
			return perr(ps, t->col, "use 'not' instead of '!'");
		t->op = CHECK_NE;
		return 0;
	case '<':
		t->op = eq ? CHECK_LE : CHECK_LT;
		return 0;
	default:
		t->op = eq ? CHECK_GE : CHECK_GT;
		return 0;
	}
}

static int lex_punct(struct parser *ps, struct token *t)
{
	static const char punct[] = "+-*/()";
	static const enum tok_kind kinds[] = { T_PLUS, T_MINUS, T_STAR, T_SLASH, T_LPAREN,
					       T_RPAREN };
	unsigned char c = (unsigned char)*t->start;
	const char *hit = strchr(punct, c);

	if (c && hit) {
		t->kind = kinds[hit - punct];
		t->len = 1;
		return 0;
	}
	if (strchr("=!<>", c))
		return lex_cmp(ps, t);
	if (c == '&')
		return perr(ps, t->col, "use 'and' instead of '&&'");
	if (c == '|')
		return perr(ps, t->col, "use 'or' instead of '||'");
	if (isprint(c))
		return perr(ps, t->col, "unexpected character '%c'", c);
	return perr(ps, t->col, "unexpected byte 0x%02x", c);
}

/* Move to the next token. */
static int lex(struct parser *ps)
{
	struct token t = { 0 };
	const char *p = ps->p;
	int ret;

	while (*p == ' ' || *p == '\t')
		p++;
	t.start = p;
	t.col = (unsigned int)(p - ps->text) + 1;
	if (!*p)
		ret = 0;	/* T_END */
	else if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1])))
		ret = lex_number(ps, &t);
	else if (isalpha((unsigned char)*p) || *p == '_')
		ret = lex_name(ps, &t);
	else
		ret = lex_punct(ps, &t);
	if (ret)
		return ret;
	ps->prev = ps->tok;
	ps->tok = t;
	ps->p = p + t.len;
	return 0;
}

/* ---- parser --------------------------------------------------------------- */

/* "after 'x'" or "at the start", for messages. */
static char *after_prev(const struct parser *ps)
{
	if (!ps->prev.start)
		return xstrdup("at the start");
	return xasprintf("after '%.*s'", (int)ps->prev.len, ps->prev.start);
}

static char *tok_desc(const struct token *t)
{
	if (t->kind == T_END)
		return xstrdup("the end");
	return xasprintf("'%.*s'", (int)t->len, t->start);
}

/* n must be a truth value: a number here lacks its comparison. */
static int need_bool(struct parser *ps, const struct check_node *n)
{
	char *after;

	if (is_bool(n))
		return 0;
	after = after_prev(ps);
	perr(ps, ps->tok.col, "expected a comparison (==, !=, <, <=, >, >=) %s", after);
	free(after);
	return -EINVAL;
}

static int need_num(struct parser *ps, const struct check_node *n, const struct token *op)
{
	if (!is_bool(n))
		return 0;
	return perr(ps, op->col, "'%.*s' needs a number on each side, not a comparison",
		    (int)op->len, op->start);
}

static struct check_node *parse_or(struct parser *ps);

static struct check_node *parse_leaf(struct parser *ps)
{
	struct token *t = &ps->tok;
	struct check_node *n;

	switch (t->kind) {
	case T_NUM:
		n = node_new(N_NUM, t->col);
		n->num = t->num;
		break;
	case T_NAME:
		n = node_new(N_METRIC, t->col);
		n->name = xasprintf("%.*s", (int)t->len, t->start);
		if (!ps->e->subject)
			ps->e->subject = n->name;
		break;
	default:	/* T_BASELINE */
		n = node_new(N_BASELINE, t->col);
		ps->e->uses_baseline = true;
		break;
	}
	if (lex(ps)) {
		node_free(n);
		return NULL;
	}
	return n;
}

static struct check_node *parse_primary(struct parser *ps)
{
	struct token open = ps->tok;
	struct check_node *n;
	char *after;

	switch (open.kind) {
	case T_NUM:
	case T_NAME:
	case T_BASELINE:
		return parse_leaf(ps);
	case T_LPAREN:
		if (lex(ps))
			return NULL;
		n = parse_or(ps);
		if (!n)
			return NULL;
		if (ps->tok.kind == T_RPAREN && !lex(ps))
			return n;
		after = after_prev(ps);
		perr(ps, ps->tok.col, "expected ')' to close the '(' at column %u %s", open.col,
		     after);
		break;
	default:
		n = NULL;
		after = after_prev(ps);
		perr(ps, open.col, "expected a metric, number or '(' %s", after);
		break;
	}
	free(after);
	node_free(n);
	return NULL;
}

static struct check_node *parse_unary(struct parser *ps)
{
	struct token op = ps->tok;
	struct check_node *c;

	if (op.kind != T_MINUS)
		return parse_primary(ps);
	if (lex(ps))
		return NULL;
	c = parse_unary(ps);
	if (!c)
		return NULL;
	if (need_num(ps, c, &op)) {
		node_free(c);
		return NULL;
	}
	return node_bin(N_NEG, &op, c, NULL);
}

/*
 * One level of left-associative binary operators: `sub` parses the
 * operands, `kind_of` maps a token to its node kind (-1: not this level).
 */
typedef struct check_node *(*parse_fn)(struct parser *ps);

static struct check_node *parse_binary(struct parser *ps, parse_fn sub,
				       int (*kind_of)(const struct token *), bool logical)
{
	struct check_node *l = sub(ps), *r;

	while (l && kind_of(&ps->tok) >= 0) {
		struct token op = ps->tok;

		if ((logical ? need_bool(ps, l) : need_num(ps, l, &op)) || lex(ps))
			break;
		r = sub(ps);
		if (!r)
			break;
		/* A division by the number zero can never be evaluated. */
		if (kind_of(&op) == N_DIV && r->kind == N_NUM && r->num == 0) {
			perr(ps, op.col, "division by zero");
			node_free(r);
			break;
		}
		l = node_bin((enum node_kind)kind_of(&op), &op, l, r);
		if (logical ? need_bool(ps, r) : need_num(ps, r, &op))
			break;
	}
	if (ps->err) {
		node_free(l);
		return NULL;
	}
	return l;
}

static int mul_kind(const struct token *t)
{
	return t->kind == T_STAR ? N_MUL : t->kind == T_SLASH ? N_DIV : -1;
}

static int add_kind(const struct token *t)
{
	return t->kind == T_PLUS ? N_ADD : t->kind == T_MINUS ? N_SUB : -1;
}

static int and_kind(const struct token *t)
{
	return t->kind == T_AND ? N_AND : -1;
}

static int or_kind(const struct token *t)
{
	return t->kind == T_OR ? N_OR : -1;
}

static struct check_node *parse_mul(struct parser *ps)
{
	return parse_binary(ps, parse_unary, mul_kind, false);
}

static struct check_node *parse_add(struct parser *ps)
{
	return parse_binary(ps, parse_mul, add_kind, false);
}

static struct check_node *parse_cmp(struct parser *ps)
{
	struct check_node *l = parse_add(ps), *r;
	struct token op = ps->tok;

	if (!l || op.kind != T_CMP)
		return l;
	if (need_num(ps, l, &op) || lex(ps) || !(r = parse_add(ps))) {
		node_free(l);
		return NULL;
	}
	l = node_bin(N_CMP, &op, l, r);
	if (!need_num(ps, r, &op) && ps->tok.kind == T_CMP)
		perr(ps, ps->tok.col, "comparisons cannot be chained; join them with 'and'");
	if (ps->err) {
		node_free(l);
		return NULL;
	}
	return l;
}

static struct check_node *parse_not(struct parser *ps)
{
	struct token op = ps->tok;
	struct check_node *c;

	if (op.kind != T_NOT)
		return parse_cmp(ps);
	if (lex(ps))
		return NULL;
	c = parse_not(ps);
	if (c && need_bool(ps, c)) {
		node_free(c);
		return NULL;
	}
	return c ? node_bin(N_NOT, &op, c, NULL) : NULL;
}

static struct check_node *parse_and(struct parser *ps)
{
	return parse_binary(ps, parse_not, and_kind, true);
}

static struct check_node *parse_or(struct parser *ps)
{
	return parse_binary(ps, parse_and, or_kind, true);
}

static struct check_node *parse_check(struct parser *ps)
{
	struct check_node *n;
	char *after, *what;

	if (lex(ps))
		return NULL;
	if (ps->tok.kind == T_END) {
		perr(ps, 1, "empty check; write a comparison such as 'udp.lost == 0'");
		return NULL;
	}
	n = parse_or(ps);
	if (n && ps->tok.kind != T_END) {
		what = tok_desc(&ps->tok);
		after = after_prev(ps);
		perr(ps, ps->tok.col, "unexpected %s %s; expected an operator or the end", what,
		     after);
		free(what);
		free(after);
	}
	if (n && !ps->err && !need_bool(ps, n) && !ps->e->subject)
		perr(ps, 1, "the check names no metric");
	if (ps->err) {
		node_free(n);
		return NULL;
	}
	return n;
}

int check_parse(const char *text, struct check_expr **out, char **err)
{
	struct parser ps = { .text = text, .p = text };

	ps.e = xzalloc(sizeof(*ps.e));
	ps.e->text = xstrdup(text);
	ps.e->root = parse_check(&ps);
	if (!ps.e->root) {
		if (err && !*err)
			*err = ps.err;
		else
			free(ps.err);
		check_expr_free(ps.e);
		return -EINVAL;
	}
	*out = ps.e;
	return 0;
}

void check_expr_free(struct check_expr *e)
{
	if (!e)
		return;
	node_free(e->root);
	free(e->text);
	free(e);
}

const char *check_text(const struct check_expr *e)
{
	return e->text;
}

const char *check_subject(const struct check_expr *e)
{
	return e->subject;
}

bool check_uses_baseline(const struct check_expr *e)
{
	return e->uses_baseline;
}

static int walk_metrics(const struct check_node *n, check_metric_fn fn, void *ctx)
{
	int ret;

	if (!n)
		return 0;
	if (n->kind == N_METRIC)
		return fn(ctx, n->name, n->col);
	ret = walk_metrics(n->l, fn, ctx);
	return ret ? ret : walk_metrics(n->r, fn, ctx);
}

int check_metrics_used(const struct check_expr *e, check_metric_fn fn, void *ctx)
{
	return walk_metrics(e->root, fn, ctx);
}

/* ---- evaluation ----------------------------------------------------------- */

struct eval {
	const struct metrics *m;
	double baseline;
	const char *subject;
	struct check_result *res;
};

static int eval_fail(struct eval *ev, enum check_status st, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int eval_fail(struct eval *ev, enum check_status st, int ret, const char *fmt, ...)
{
	struct sbuf b;
	va_list ap;

	if (ev->res->err)
		return ret;
	sbuf_init(&b);
	va_start(ap, fmt);
	sbuf_vaddf(&b, fmt, ap);
	va_end(ap);
	ev->res->err = sbuf_detach(&b);
	ev->res->status = st;
	return ret;
}

static int eval_num(struct eval *ev, const struct check_node *n, double *out);

static int eval_arith(struct eval *ev, const struct check_node *n, double *out)
{
	double l, r = 0;
	int ret = eval_num(ev, n->l, &l);

	if (!ret && n->r)
		ret = eval_num(ev, n->r, &r);
	if (ret)
		return ret;
	switch (n->kind) {
	case N_NEG:
		*out = -l;
		break;
	case N_ADD:
		*out = l + r;
		break;
	case N_SUB:
		*out = l - r;
		break;
	case N_MUL:
		*out = l * r;
		break;
	default:	/* N_DIV */
		if (r == 0 && n->r->kind == N_METRIC)
			return eval_fail(ev, CHECK_ERROR, -EDOM, "division by zero: '%s' is 0",
					 n->r->name);
		if (r == 0)
			return eval_fail(ev, CHECK_ERROR, -EDOM, "division by zero at column %u",
					 n->col);
		*out = l / r;
		break;
	}
	if (!isfinite(*out))
		return eval_fail(ev, CHECK_ERROR, -EDOM,
				 "the result at column %u is not a finite number", n->col);
	return 0;
}

static int eval_num(struct eval *ev, const struct check_node *n, double *out)
{
	switch (n->kind) {
	case N_NUM:
		*out = n->num;
		return 0;
	case N_METRIC:
		if (!metrics_get(ev->m, n->name, out))
			return eval_fail(ev, CHECK_NOT_MEASURED, -ENOENT,
					 "metric '%s' was not measured", n->name);
		return 0;
	case N_BASELINE:
		*out = ev->baseline;
		if (isnan(*out))
			return eval_fail(
				ev, CHECK_NO_BASELINE, -ENODATA,
				"no baseline for '%s'; run netlab regress --update-baselines",
				ev->subject);
		return 0;
	default:
		return eval_arith(ev, n, out);
	}
}

static bool compare(double l, enum check_op op, double r)
{
	switch (op) {
	case CHECK_EQ:
		return l == r;
	case CHECK_NE:
		return l != r;
	case CHECK_LT:
		return l < r;
	case CHECK_LE:
		return l <= r;
	case CHECK_GT:
		return l > r;
	default:
		return l >= r;
	}
}

/* Both operands are evaluated whatever the first gives: see check_eval(). */
static int eval_bool(struct eval *ev, const struct check_node *n, bool *out)
{
	double l, r;
	bool a, b = false;
	int ret;

	if (n->kind == N_CMP) {
		ret = eval_num(ev, n->l, &l);
		if (!ret)
			ret = eval_num(ev, n->r, &r);
		if (!ret)
			*out = compare(l, n->op, r);
		return ret;
	}
	ret = eval_bool(ev, n->l, &a);
	if (!ret && n->r)
		ret = eval_bool(ev, n->r, &b);
	if (ret)
		return ret;
	*out = n->kind == N_NOT ? !a : n->kind == N_AND ? a && b : a || b;
	return 0;
}

static bool names_metric(const struct check_node *n, const char *name)
{
	if (!n)
		return false;
	if (n->kind == N_METRIC)
		return !strcmp(n->name, name);
	return names_metric(n->l, name) || names_metric(n->r, name);
}

static const struct check_node *main_cmp(const struct check_node *n)
{
	while (n->kind != N_CMP)
		n = n->l;
	return n;
}

static enum check_op op_reversed(enum check_op op)
{
	static const enum check_op rev[] = { CHECK_EQ, CHECK_NE, CHECK_GT, CHECK_GE, CHECK_LT,
					     CHECK_LE };

	return rev[op];
}

/* value/bound/op of the main comparison, for display; quiet on errors. */
static void eval_main(const struct check_expr *e, struct eval *ev)
{
	const struct check_node *c = main_cmp(e->root);
	const struct check_node *vside = c->l, *bside = c->r;
	struct check_result scratch = { 0 };
	struct eval quiet = *ev;
	double v;

	ev->res->op = c->op;
	if (!names_metric(c->l, e->subject) && names_metric(c->r, e->subject)) {
		vside = c->r;
		bside = c->l;
		ev->res->op = op_reversed(c->op);
	}
	quiet.res = &scratch;
	if (!eval_num(&quiet, vside, &v))
		ev->res->value = v;
	if (!eval_num(&quiet, bside, &v))
		ev->res->bound = v;
	free(scratch.err);
}

int check_eval(const struct check_expr *e, const struct metrics *m, double baseline,
	       struct check_result *res)
{
	struct eval ev = { .m = m, .baseline = baseline, .subject = e->subject, .res = res };
	bool pass = false;
	int ret;

	memset(res, 0, sizeof(*res));
	res->value = res->bound = NAN;
	ret = eval_bool(&ev, e->root, &pass);
	eval_main(e, &ev);
	if (!ret)
		res->status = pass ? CHECK_PASS : CHECK_FAIL;
	return ret;
}

void check_result_release(struct check_result *res)
{
	free(res->err);
	res->err = NULL;
}
