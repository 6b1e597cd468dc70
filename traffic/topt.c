// SPDX-License-Identifier: GPL-2.0
/*
 * Table-driven option parsing: see topt.h.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "terr.h"
#include "tjson.h"
#include "topt.h"

#define FIELD(opts, o, type) ((type *)((char *)(opts) + (o)->off))
#define CFIELD(opts, o, type) ((const type *)((const char *)(opts) + (o)->off))

/* Digits with an optional fraction; no sign, exponent, hex, inf or nan. */
static const char *parse_decimal(const char *s, double *v)
{
	double scale = 0.1;
	const char *p = s;

	*v = 0;
	while (isdigit((unsigned char)*p))
		*v = *v * 10 + (*p++ - '0');
	if (p == s)
		return NULL;
	if (*p == '.') {
		if (!isdigit((unsigned char)p[1]))
			return NULL;
		for (p++; isdigit((unsigned char)*p); p++, scale /= 10)
			*v += (*p - '0') * scale;
	}
	return p;
}

/* Decimal digits only, no sign; -EINVAL, or -ERANGE above UINT64_MAX. */
static const char *parse_digits(const char *s, uint64_t *v, int *ret)
{
	const char *p = s;

	*v = 0;
	*ret = 0;
	for (; isdigit((unsigned char)*p); p++) {
		if (*v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			*ret = -ERANGE;
		*v = *v * 10 + (uint64_t)(*p - '0');
	}
	if (p == s)
		*ret = -EINVAL;
	return p;
}

/**
 * topt_parse_uint() - parse a decimal integer
 * @s: the text
 * @v: the result
 *
 * Return: 0, -EINVAL for anything but digits, -ERANGE if it does not fit.
 */
int topt_parse_uint(const char *s, uint64_t *v)
{
	int ret;
	const char *p = parse_digits(s, v, &ret);

	if (!ret && *p)
		ret = -EINVAL;
	return ret;
}

/**
 * topt_parse_bytes() - parse a byte count: digits with optional K, M or G
 * @s: the text ("4096", "64K", "1M"; K = 1024)
 * @v: the result
 *
 * Return: 0, -EINVAL for bad syntax, -ERANGE if it does not fit.
 */
int topt_parse_bytes(const char *s, uint64_t *v)
{
	int ret, shift = 0;
	const char *p = parse_digits(s, v, &ret);

	if (ret)
		return ret;
	switch (*p) {
	case 'k':
	case 'K':
		shift = 10;
		break;
	case 'm':
	case 'M':
		shift = 20;
		break;
	case 'g':
	case 'G':
		shift = 30;
		break;
	case '\0':
		return 0;
	default:
		return -EINVAL;
	}
	if (p[1])
		return -EINVAL;
	if (*v > UINT64_MAX >> shift)
		return -ERANGE;
	*v <<= shift;
	return 0;
}

/**
 * topt_parse_seconds() - parse decimal seconds into ns
 * @s: the text ("2", "0.5")
 * @ns: the result
 *
 * Return: 0, -EINVAL for bad syntax, -ERANGE above ~100 years.
 */
int topt_parse_seconds(const char *s, uint64_t *ns)
{
	double v;
	const char *p = parse_decimal(s, &v);

	if (!p || *p)
		return -EINVAL;
	if (v > 3.2e9)
		return -ERANGE;
	*ns = (uint64_t)(v * 1e9 + 0.5);
	return 0;
}

static double prefix_scale(char c)
{
	switch (c) {
	case 'k':
	case 'K':
		return 1e3;
	case 'm':
	case 'M':
		return 1e6;
	case 'g':
	case 'G':
		return 1e9;
	}
	return 0;
}

/**
 * topt_parse_rate() - parse a rate (syntax in pacer.h)
 * @s: the text
 * @bare: the unit of a number without prefix and unit (PACER_PPS or PACER_BPS)
 * @r: the result
 *
 * Return: 0, -EINVAL for bad syntax, -ERANGE for 0 or above PACER_MAX_*.
 */
int topt_parse_rate(const char *s, enum pacer_unit bare, struct pacer_rate *r)
{
	double v, scale = 1;
	const char *p = parse_decimal(s, &v);

	if (!p)
		return -EINVAL;
	if (prefix_scale(*p)) {
		scale = prefix_scale(*p++);
		bare = PACER_BPS;
	}
	if (!strcasecmp(p, "pps"))
		r->unit = PACER_PPS;
	else if (!strcasecmp(p, "bps"))
		r->unit = PACER_BPS;
	else if (!*p)
		r->unit = bare;
	else
		return -EINVAL;
	r->value = v * scale;
	if (r->value <= 0)
		return -ERANGE;
	if (r->value > (r->unit == PACER_PPS ? PACER_MAX_PPS : PACER_MAX_BPS))
		return -ERANGE;
	return 0;
}

static const char *expected(const struct topt *o)
{
	switch (o->kind) {
	case TOPT_UINT:
		return "a decimal integer";
	case TOPT_BYTES:
		return "a byte count like 1400, 64K or 4M (K = 1024)";
	case TOPT_SECONDS:
		return "seconds like 2 or 0.5";
	case TOPT_USEC:
		return "an integer number of microseconds";
	case TOPT_RATE:
		return "packets/s (20000, 20kpps) or bits/s with an SI prefix (100M, 1G, 1500k)";
	case TOPT_BITRATE:
		return "bits/s like 100M, 1G, 1500k or 2000000 (SI prefixes)";
	default:
		return "a value";
	}
}

/* Show a bound in the unit the user typed. */
static void format_bound(const struct topt *o, uint64_t v, char *buf, size_t n)
{
	if (o->kind == TOPT_SECONDS)
		snprintf(buf, n, "%g s", (double)v / 1e9);
	else if (o->kind == TOPT_USEC)
		snprintf(buf, n, "%llu us", (unsigned long long)(v / 1000));
	else
		snprintf(buf, n, "%llu", (unsigned long long)v);
}

static int check_bounds(const struct topt *o, uint64_t v, const char *val, char **err)
{
	char b[64];

	if (v < o->min) {
		format_bound(o, o->min, b, sizeof(b));
		return terr_fmt(err, -EINVAL,
				"option '--%s': '%s' is too small (minimum %s)\nhint: --%s %s: %s",
				o->name, val, b, o->name, o->arg, o->help);
	}
	if (o->max && v > o->max) {
		format_bound(o, o->max, b, sizeof(b));
		return terr_fmt(err, -EINVAL,
				"option '--%s': '%s' is too large (maximum %s)\nhint: --%s %s: %s",
				o->name, val, b, o->name, o->arg, o->help);
	}
	return 0;
}

static int parse_choice(const struct topt *o, const char *val, int *idx)
{
	int i;

	for (i = 0; o->choices[i]; i++) {
		if (!strcmp(o->choices[i], val)) {
			*idx = i;
			return 0;
		}
	}
	return -EINVAL;
}

/* Parse @val into @o's field; 0 or a negative errno (message by caller). */
static int parse_value(const struct topt *o, const char *val, void *opts, uint64_t *num)
{
	struct pacer_rate *r = FIELD(opts, o, struct pacer_rate);
	int ret;

	*num = 0;
	switch (o->kind) {
	case TOPT_STR:
		*FIELD(opts, o, const char *) = val;
		return *val ? 0 : -EINVAL;
	case TOPT_UINT:
		ret = topt_parse_uint(val, num);
		break;
	case TOPT_BYTES:
		ret = topt_parse_bytes(val, num);
		break;
	case TOPT_SECONDS:
		ret = topt_parse_seconds(val, num);
		break;
	case TOPT_USEC:
		ret = topt_parse_uint(val, num);
		if (!ret && *num > UINT64_MAX / 1000)
			ret = -ERANGE;
		*num *= 1000;
		break;
	case TOPT_RATE:
		return topt_parse_rate(val, PACER_PPS, r);
	case TOPT_BITRATE:
		ret = topt_parse_rate(val, PACER_BPS, r);
		return !ret && r->unit == PACER_PPS ? -EINVAL : ret;
	case TOPT_CHOICE:
		return parse_choice(o, val, FIELD(opts, o, int));
	default:
		return -EINVAL;
	}
	if (!ret)
		*FIELD(opts, o, uint64_t) = *num;
	return ret;
}

static int bad_value(const struct topt *o, const char *val, int ret, char **err)
{
	char list[256] = "";
	int i;

	if (o->kind == TOPT_CHOICE) {
		for (i = 0; o->choices[i]; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 i ? ", " : "", o->choices[i]);
		return terr_fmt(err, -EINVAL,
				"option '--%s': invalid value '%s'\nhint: choose one of: %s",
				o->name, val, list);
	}
	if (o->kind == TOPT_STR)
		return terr_fmt(err, -EINVAL, "option '--%s': empty value\nhint: --%s %s: %s",
				o->name, o->name, o->arg, o->help);
	return terr_fmt(err, -EINVAL, "option '--%s': %s value '%s'\nhint: expected %s", o->name,
			ret == -ERANGE ? "out-of-range" : "invalid", val, expected(o));
}

static const struct topt *find(const struct topt *tab, const char *name, size_t len)
{
	for (; tab->name; tab++) {
		if (strlen(tab->name) == len && !strncmp(tab->name, name, len))
			return tab;
	}
	return NULL;
}

/* Reject an option given twice, or two options that set the same field. */
static int check_seen(const struct topt *tab, const struct topt *o, uint64_t *seen, char **err)
{
	size_t i, me = (size_t)(o - tab);

	if (*seen & (1ull << me))
		return terr_fmt(err, -EINVAL,
				"option '--%s' given twice\nhint: give each option once", o->name);
	for (i = 0; tab[i].name; i++) {
		if ((*seen & (1ull << i)) && tab[i].off == o->off)
			return terr_fmt(
				err, -EINVAL,
				"options '--%s' and '--%s' cannot be combined\nhint: give one of them",
				tab[i].name, o->name);
	}
	*seen |= 1ull << me;
	return 0;
}

/**
 * topt_check_only() - reject options given without the role flag they need
 * @tab: the option table
 * @opts: the options struct, after topt_parse()
 * @seen: the options given, from topt_parse()
 * @err: the message, naming the option and the flag
 *
 * Return: 0, or -EINVAL.
 */
int topt_check_only(const struct topt *tab, const void *opts, uint64_t seen, char **err)
{
	const struct topt *flag;
	size_t i;

	for (i = 0; tab[i].name; i++) {
		if (!(seen & (1ull << i)) || !tab[i].only)
			continue;
		flag = find(tab, tab[i].only, strlen(tab[i].only));
		if (flag && !*CFIELD(opts, flag, bool))
			return terr_fmt(err, -EINVAL,
					"option '--%s' only applies with --%s\nhint: --%s%s%s: %s",
					tab[i].name, tab[i].only, tab[i].name,
					tab[i].arg ? " " : "", tab[i].arg ? tab[i].arg : "",
					tab[i].help);
	}
	return 0;
}

static int parse_one(const struct topt *tab, int argc, char **argv, int *i, void *opts,
		     uint64_t *seen, char **err)
{
	const char *arg = argv[*i], *eq = strchr(arg, '='), *val;
	const struct topt *o;
	uint64_t num;
	int ret;

	if (strncmp(arg, "--", 2) || !arg[2])
		return terr_fmt(
			err, -EINVAL,
			"unexpected argument '%s'\nhint: options are --name value; see --help",
			arg);
	o = find(tab, arg + 2, eq ? (size_t)(eq - arg - 2) : strlen(arg + 2));
	if (!o)
		return terr_fmt(err, -EINVAL,
				"unknown option '%.*s'\nhint: see --help for the options",
				eq ? (int)(eq - arg) : (int)strlen(arg), arg);
	ret = check_seen(tab, o, seen, err);
	if (ret)
		return ret;
	if (o->kind == TOPT_FLAG) {
		if (eq)
			return terr_fmt(err, -EINVAL,
					"option '--%s' takes no value\nhint: write just --%s",
					o->name, o->name);
		*FIELD(opts, o, bool) = true;
		return 0;
	}
	if (eq) {
		val = eq + 1;
	} else if (*i + 1 < argc && strncmp(argv[*i + 1], "--", 2)) {
		val = argv[++*i];
	} else {
		return terr_fmt(err, -EINVAL, "option '--%s' needs a value\nhint: --%s %s: %s",
				o->name, o->name, o->arg, o->help);
	}
	ret = parse_value(o, val, opts, &num);
	if (ret)
		return bad_value(o, val, ret, err);
	if (o->kind == TOPT_UINT || o->kind == TOPT_BYTES || o->kind == TOPT_SECONDS ||
	    o->kind == TOPT_USEC)
		return check_bounds(o, num, val, err);
	return 0;
}

/**
 * topt_parse() - parse argv[1..] into an options struct
 * @tab: the option table, ended by an entry with name NULL; at most
 *       TOPT_MAX_OPTS entries
 * @argc: argument count
 * @argv: arguments; string values keep pointing into it
 * @opts: the options struct, holding the defaults
 * @seen: set to the options given (bit i: tab[i]), for topt_check_only()
 * @err: on error, a malloc'ed message naming the option, with a hint line
 *
 * Return: 0, -EINVAL, or -E2BIG if @tab is too long (a bug).
 */
int topt_parse(const struct topt *tab, int argc, char **argv, void *opts, uint64_t *seen,
	       char **err)
{
	int i, ret;

	*seen = 0;
	for (i = 0; tab[i].name; i++) {
		if (i == TOPT_MAX_OPTS)
			return terr_fmt(err, -E2BIG, "option table longer than %d entries",
					TOPT_MAX_OPTS);
	}
	for (i = 1; i < argc; i++) {
		ret = parse_one(tab, argc, argv, &i, opts, seen, err);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * topt_usage() - print the options part of --help
 * @f: where to print
 * @tab: the option table
 */
void topt_usage(FILE *f, const struct topt *tab)
{
	char left[64];

	for (; tab->name; tab++) {
		snprintf(left, sizeof(left), "--%s%s%s", tab->name, tab->arg ? " " : "",
			 tab->arg ? tab->arg : "");
		fprintf(f, "  %-24s %s\n", left, tab->help);
	}
}

static struct json_object *rate_to_json(const struct pacer_rate *r)
{
	struct json_object *o;

	if (r->unit == PACER_NONE)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "value", tjson_new_double(r->value));
	json_object_object_add(o, "unit",
			       json_object_new_string(r->unit == PACER_PPS ? "pps" : "bps"));
	return o;
}

static struct json_object *value_to_json(const struct topt *o, const void *opts)
{
	const char *s;
	uint64_t v;

	switch (o->kind) {
	case TOPT_FLAG:
		return json_object_new_boolean(*CFIELD(opts, o, bool));
	case TOPT_STR:
		s = *CFIELD(opts, o, const char *);
		return s ? json_object_new_string(s) : NULL;
	case TOPT_RATE:
	case TOPT_BITRATE:
		return rate_to_json(CFIELD(opts, o, struct pacer_rate));
	case TOPT_CHOICE:
		return json_object_new_string(o->choices[*CFIELD(opts, o, int)]);
	default:
		break;
	}
	v = *CFIELD(opts, o, uint64_t);
	if (!v && o->zero_unset)
		return NULL;
	if (o->kind == TOPT_SECONDS)
		return tjson_new_double((double)v / 1e9);
	if (o->kind == TOPT_USEC)
		return json_object_new_uint64(v / 1000);
	return json_object_new_uint64(v);
}

/**
 * topt_to_json() - the options as a JSON object, one key per option
 * @tab: the option table; entries with a NULL key, or whose .only flag is not
 *       set (options of the other role), are left out
 * @opts: the options struct, after parsing
 *
 * Return: a new object (the caller owns it), or NULL (ENOMEM).
 */
struct json_object *topt_to_json(const struct topt *tab, const void *opts)
{
	struct json_object *o = json_object_new_object();

	const struct topt *t, *flag;

	for (t = tab; o && t->name; t++) {
		flag = t->only ? find(tab, t->only, strlen(t->only)) : NULL;
		if (t->key && !(flag && !*CFIELD(opts, flag, bool)))
			json_object_object_add(o, t->key, value_to_json(t, opts));
	}
	return o;
}
