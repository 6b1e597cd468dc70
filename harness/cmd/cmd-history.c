// SPDX-License-Identifier: GPL-2.0
/*
 * netlab history [--db FILE] [--case GLOB] METRIC... | --flaky [--html FILE]:
 * what the results database (scenario/resultsdb.h) holds of past suites.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "report/html.h"
#include "scenario/resultsdb.h"

static const char history_usage[] =
	"usage: netlab history [options] METRIC...\n"
	"       netlab history [options] --flaky\n"
	"  what the results database holds of every suite netlab regress, bisect and\n"
	"  selftests ran: a metric's values, suite by suite, or each check's flake rate\n"
	"      --db FILE       the database (default $NETLAB_DB, else runs/netlab.db)\n"
	"      --case GLOB     only the cases (scenarios, matrix cases) GLOB matches\n"
	"      --flaky         each check: runs, failures, failures a later run on the same\n"
	"                      kernel passed (flaky), and the flake rate (flaky / runs)\n"
	"      --html FILE     the first METRIC's trend as a page (one series per case)\n"
	"  -h, --help          this text\n"
	"exit status: 0, 1 when --flaky found a flaky check, 2 bad input or no database.\n";

enum { O_DB = 256, O_CASE, O_FLAKY, O_HTML };

static const struct option longopts[] = {
	{ "db", required_argument, NULL, O_DB },     { "case", required_argument, NULL, O_CASE },
	{ "flaky", no_argument, NULL, O_FLAKY },     { "html", required_argument, NULL, O_HTML },
	{ "help", no_argument, NULL, 'h' },	     { NULL, 0, NULL, 0 },
};

struct history_cmd {
	const char *db, *case_glob, *html;
	bool flaky, help;
};

static int parse_one(void *ctx, int c, const char *opt, const char *arg, char **err)
{
	struct history_cmd *hc = ctx;

	switch (c) {
	case O_DB: hc->db = arg; return 0;
	case O_CASE: hc->case_glob = arg; return 0;
	case O_FLAKY: hc->flaky = true; return 0;
	case O_HTML: hc->html = arg; return 0;
	case 'h': hc->help = true; return 0;
	default:
		err_set(err, "bad option (see 'netlab history --help')");
		return -EINVAL;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Each value, then per case: how many, min, median, max. */
static void print_values(const char *metric, const struct rdb_value *v, size_t n)
{
	double *vals = xcalloc(n ? n : 1, sizeof(*vals));
	bool *done = xzalloc((n ? n : 1) * sizeof(*done));

	printf("%s\n%6s  %-20s  %-36s  %-36s  %14s  %s\n", metric, "SUITE", "AT", "KERNEL", "CASE",
	       "VALUE", "OUTCOME");
	for (size_t i = 0; i < n; i++)
		printf("%6lld  %-20s  %-36.36s  %-36s  %14.6g  %s\n", v[i].suite, v[i].at, v[i].kernel,
		       v[i].case_name, v[i].value, v[i].outcome);
	printf("per case: %-36s  %5s  %14s  %14s  %14s\n", "CASE", "N", "MIN", "MEDIAN", "MAX");
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;

		if (done[i])
			continue;
		for (size_t j = i; j < n; j++) {
			if (done[j] || strcmp(v[j].case_name, v[i].case_name))
				continue;
			done[j] = true;
			if (!isnan(v[j].value))
				vals[k++] = v[j].value;
		}
		qsort(vals, k, sizeof(*vals), cmp_double);
		if (k)
			printf("          %-36s  %5zu  %14.6g  %14.6g  %14.6g\n", v[i].case_name, k, vals[0],
			       k % 2 ? vals[k / 2] : (vals[k / 2 - 1] + vals[k / 2]) / 2, vals[k - 1]);
	}
	free(vals);
	free(done);
}

static int flaky(const char *db, const char *glob, char **err)
{
	struct rdb_flake *f;
	size_t n;
	unsigned int found = 0;

	if (resultsdb_flakes(db, glob, &f, &n, err))
		return NL_EXIT_USAGE;
	printf("%-40s %-24s %5s %6s %5s %6s\n", "CASE", "CHECK", "RUNS", "FAILED", "FLAKY", "RATE");
	for (size_t i = 0; i < n; i++) {
		printf("%-40s %-24s %5u %6u %5u %6.2f%s\n", f[i].case_name, f[i].check, f[i].runs,
		       f[i].failed, f[i].flaky, f[i].runs ? (double)f[i].flaky / f[i].runs : 0,
		       f[i].flaky ? "  flaky" : "");
		found += f[i].flaky > 0;
	}
	printf("%zu checks, %u flaky (a failure that a later run on the same kernel passed)\n", n,
	       found);
	resultsdb_flakes_free(f, n);
	return found ? NL_EXIT_FAIL : NL_EXIT_OK;
}

static int write_html(const char *path, const char *metric, const struct rdb_value *v, size_t n,
		      char **err)
{
	struct sbuf b;
	FILE *f = fopen(path, "w");
	int ret = 0;

	if (!f) {
		err_set(err, "--html '%s': %s", path, strerror(errno));
		return -errno;
	}
	sbuf_init(&b);
	html_history_render(&b, metric, v, n);
	if (fwrite(b.s, 1, b.len, f) != b.len)
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	if (ret)
		err_set(err, "--html '%s': %s", path, strerror(-ret));
	sbuf_release(&b);
	return ret;
}

int cmd_history(int argc, char **argv)
{
	struct history_cmd hc = { 0 };
	const char *db;
	char *err = NULL;
	int ret = NL_EXIT_USAGE;

	if (cmd_getopt(argc, argv, "h", longopts, "history", parse_one, &hc, &err))
		goto fail;
	if (hc.help) {
		fputs(history_usage, stdout);
		return NL_EXIT_OK;
	}
	db = resultsdb_path(hc.db);
	if (!db) {
		err_set(&err, "no results database: --db or NETLAB_DB is 'none'");
		goto fail;
	}
	if (hc.flaky) {
		ret = flaky(db, hc.case_glob, &err);
		if (ret == NL_EXIT_USAGE)
			goto fail;
		return ret;
	}
	if (optind == argc) {
		err_set(&err, "no METRIC named\nhint: netlab history udp.lost, or netlab history --flaky");
		goto fail;
	}
	for (int i = optind; i < argc; i++) {
		struct rdb_value *v;
		size_t n;

		if (resultsdb_values(db, argv[i], hc.case_glob, &v, &n, &err))
			goto fail;
		if (!n)
			fprintf(stderr, "netlab history: no value of '%s' in %s%s%s\n", argv[i], db,
				hc.case_glob ? " for cases " : "", hc.case_glob ? hc.case_glob : "");
		print_values(argv[i], v, n);
		if (hc.html && i == optind && write_html(hc.html, argv[i], v, n, &err)) {
			resultsdb_values_free(v, n);
			goto fail;
		}
		resultsdb_values_free(v, n);
	}
	return NL_EXIT_OK;
fail:
	cmd_error("history", err);
	free(err);
	return ret;
}
