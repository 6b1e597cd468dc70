/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Table-driven long-option parsing for the traffic tools.
 *
 * A tool describes its options once, in a table of struct topt; the same
 * table parses argv into the tool's options struct, prints --help and echoes
 * the options into the JSON result, so the three never drift apart.
 *
 * Accepted forms: "--name value" and "--name=value" (flags: "--name" only).
 * Rejected, with a message that names the option: unknown options, positional
 * arguments, a missing or malformed value, a value out of bounds, an option
 * given twice, two options that set the same field (--rate, --bitrate), and
 * (topt_check_only()) an option whose role flag (.only, e.g. "recv") is not
 * given.
 */
#ifndef TRAFFIC_TOPT_H
#define TRAFFIC_TOPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pacer.h"

struct json_object;

enum topt_kind {
	TOPT_FLAG, /* bool */
	TOPT_STR, /* const char *, points into argv */
	TOPT_UINT, /* uint64_t, decimal integer */
	TOPT_BYTES, /* uint64_t, integer with optional K/M/G suffix (x 1024) */
	TOPT_SECONDS, /* uint64_t ns, from decimal seconds ("2", "0.5") */
	TOPT_USEC, /* uint64_t ns, from integer microseconds */
	TOPT_RATE, /* struct pacer_rate, bare number = packets/s */
	TOPT_BITRATE, /* struct pacer_rate, bare number = bits/s */
	TOPT_CHOICE, /* int: index into choices */
};

struct topt {
	const char *name; /* long option, without "--"; NULL ends the table */
	enum topt_kind kind;
	size_t off; /* offset of the field in the options struct */
	const char *arg; /* name of the value in --help */
	const char *help;
	const char *key; /* key in the JSON options echo; NULL: not echoed */
	uint64_t min; /* numeric kinds: bounds in the field's unit (ns */
	uint64_t max; /* for times); max 0 = no upper bound */
	const char *const *choices; /* TOPT_CHOICE: NULL-terminated */
	bool zero_unset; /* 0 means "not given": echoed as null */
	const char *only; /* name of the flag this option needs, or NULL */
};

#define TOPT_MAX_OPTS 64

int topt_parse(const struct topt *tab, int argc, char **argv, void *opts, uint64_t *seen,
	       char **err);
int topt_check_only(const struct topt *tab, const void *opts, uint64_t seen, char **err);
void topt_usage(FILE *f, const struct topt *tab);
struct json_object *topt_to_json(const struct topt *tab, const void *opts);

int topt_parse_uint(const char *s, uint64_t *v);
int topt_parse_bytes(const char *s, uint64_t *v);
int topt_parse_seconds(const char *s, uint64_t *ns);
int topt_parse_rate(const char *s, enum pacer_unit bare, struct pacer_rate *r);

#endif /* TRAFFIC_TOPT_H */
