/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Building blocks of the tools' JSON results (json-c). Key names are
 * snake_case with the unit in the name (latency_us, goodput_bps, duration_s).
 */
#ifndef TRAFFIC_TJSON_H
#define TRAFFIC_TJSON_H

#include <stdint.h>
#include <stdio.h>

struct hist;
struct json_object;

/* Errno values counted one by one; larger ones share the last slot. */
#define TJSON_ERRNO_SLOTS 256

struct json_object *tjson_new_double(double v);
void tjson_u64(struct json_object *o, const char *key, uint64_t v);
void tjson_double(struct json_object *o, const char *key, double v, int decimals);
void tjson_null(struct json_object *o, const char *key);
void tjson_str(struct json_object *o, const char *key, const char *s);

struct json_object *tjson_latency_us(const struct hist *h);
struct json_object *tjson_errnos(const uint64_t counts[TJSON_ERRNO_SLOTS]);
void tjson_count_errno(uint64_t counts[TJSON_ERRNO_SLOTS], int errnum);
uint64_t tjson_errno_total(const uint64_t counts[TJSON_ERRNO_SLOTS]);

void tjson_print_text(FILE *f, struct json_object *o, const char *prefix);

#endif /* TRAFFIC_TJSON_H */
