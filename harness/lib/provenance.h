/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every JSON file netlab writes for other programs says about itself:
 * the version of its format, the netlab that wrote it, and when
 * (Documentation/json-schemas.md).
 */
#ifndef NETLAB_PROVENANCE_H
#define NETLAB_PROVENANCE_H

#include <stddef.h>

#include <json-c/json.h>

/*
 * The format version of summary.json, result.json, netlab report --json and
 * a baselines file's "_meta". Bump it when a field changes meaning or goes
 * away; adding a field does not bump it (readers skip what they do not know).
 */
#define NETLAB_FORMAT_VERSION 1

/* Set once by main() from version.h; both default to "unknown" (unit tests). */
void provenance_set_build(const char *version, const char *commit);
const char *provenance_version(void);
const char *provenance_commit(void);

/* "2024-05-01T12:00:00Z": now, UTC, ISO 8601, in buf (>= 21 bytes). */
const char *provenance_utc_now(char *buf, size_t n);

/*
 * provenance_add() - add "format_version", "netlab" { "version", "commit" }
 * and "generated_at" (now, UTC) to the object o.
 */
void provenance_add(struct json_object *o);

#endif /* NETLAB_PROVENANCE_H */
