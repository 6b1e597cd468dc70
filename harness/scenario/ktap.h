/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small KTAP / TAP reader for the output of an [exec] command: the
 * kernel's KTAP (Documentation/dev-tools/ktap.rst: "KTAP version 1",
 * "1..N", "ok N name", "not ok N name # SKIP why", subtests indented by
 * further levels, "# Subtest: name" headers) and kselftest's TAP 13
 * (subtest results prefixed by "# ").
 *
 * Pure: text in, counts and per-test results out; no I/O, never exits.
 * Lines that are not test results (diagnostics, the command's own output,
 * garbage) are skipped; a result line without a number is accepted.
 */
#ifndef NETLAB_KTAP_H
#define NETLAB_KTAP_H

#include <stdbool.h>
#include <stddef.h>

enum ktap_status {
	KTAP_PASS,
	KTAP_FAIL,
	KTAP_SKIP,	/* "# SKIP" (or "# TODO") directive */
};

struct ktap_case {
	char *name;		/* metric-safe: [A-Za-z0-9_], '.' between parent and subtest */
	enum ktap_status status;
	unsigned int depth;	/* 0 = top level */
	bool leaf;		/* no subtests of its own */
};

struct ktap_result {
	unsigned int pass, fail, skip;	/* leaf tests; and a failed parent none of whose subtests failed */
	bool bail_out;			/* "Bail out!" seen: counted as one failure */
	struct ktap_case *cases;	/* in output order */
	size_t n_cases;
};

/**
 * ktap_parse() - read KTAP/TAP results from @text into @r
 * @text: NUL-terminated output, may be empty or malformed
 * @r:    zeroed here; release with ktap_release()
 *
 * A case's name is its description, sanitized (ktap_sanitize()), prefixed
 * by its parent's ("suite.case") when a "# Subtest: NAME" header names it;
 * an empty one is "test_N".
 */
void ktap_parse(const char *text, struct ktap_result *r);
void ktap_release(struct ktap_result *r);

/*
 * ktap_sanitize() - @name (@len bytes) as a metric name component into
 * @out: runs of characters other than [A-Za-z0-9_] become one '_', with
 * none at either end. "" when nothing is left.
 */
void ktap_sanitize(const char *name, size_t len, char *out, size_t size);

/* Whether @name is a sanitized name, possibly dotted ("suite.case"). */
bool ktap_name_ok(const char *name);

#endif /* NETLAB_KTAP_H */
