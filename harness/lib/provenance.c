// SPDX-License-Identifier: GPL-2.0
/*
 * Format version, netlab version and commit, timestamp (see provenance.h).
 */
#include <time.h>

#include "lib/provenance.h"

static const char *build_version = "unknown", *build_commit = "unknown";

void provenance_set_build(const char *version, const char *commit)
{
	build_version = version && *version ? version : "unknown";
	build_commit = commit && *commit ? commit : "unknown";
}

const char *provenance_version(void)
{
	return build_version;
}

const char *provenance_commit(void)
{
	return build_commit;
}

const char *provenance_utc_now(char *buf, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm))
		buf[0] = '\0';
	return buf;
}

void provenance_add(struct json_object *o)
{
	struct json_object *n = json_object_new_object();
	char now[32];

	json_object_object_add(o, "format_version", json_object_new_int(NETLAB_FORMAT_VERSION));
	json_object_object_add(n, "version", json_object_new_string(build_version));
	json_object_object_add(n, "commit", json_object_new_string(build_commit));
	json_object_object_add(o, "netlab", n);
	json_object_object_add(o, "generated_at",
			       json_object_new_string(provenance_utc_now(now, sizeof(now))));
}
