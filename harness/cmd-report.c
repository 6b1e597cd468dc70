// SPDX-License-Identifier: GPL-2.0
/*
 * netlab report [--interval S] [--list] [--json] RUN_DIR|TRACE.DAT
 *
 * Where a traced run dropped packets, dropwatch-style: drops per interval
 * and in total, by location (symbol+0xoff) and by reason, from the
 * skb:kfree_skb records of the run's trace.dat. Text and JSON print the same
 * aggregate (struct tracedrops); nothing is computed twice.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cmd.h"
#include "tracedrops.h"
#include "util.h"

#define USAGE "usage: netlab report [--interval S] [--list] [--json] RUN_DIR|TRACE.DAT"

struct report_opts {
	const char *target;
	uint64_t interval_ns;
	bool list;
	bool json;
	bool help;
};

/* What the per-drop callback writes to: stdout (text) or a JSON array. */
struct report_list {
	bool json;
	bool header_done;
	struct json_object *arr;
};

static int parse_interval(const char *s, uint64_t *ns, char **err)
{
	char *end;
	double v;

	errno = 0;
	v = s ? strtod(s, &end) : NAN;
	if (!s || errno || end == s || *end || !isfinite(v) || v < 1e-6 || v > 86400) {
		err_set(err,
			"--interval '%s': expected seconds, more than 0 (e.g. 1, 0.1)\nhint: " USAGE,
			s ? s : "");
		return -EINVAL;
	}
	*ns = (uint64_t)llround(v * 1e9);
	return 0;
}

static int report_parse(int argc, char **argv, struct report_opts *ro, char **err)
{
	memset(ro, 0, sizeof(*ro));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--json")) {
			ro->json = true;
		} else if (!strcmp(a, "--list")) {
			ro->list = true;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			ro->help = true;
		} else if (!strcmp(a, "--interval")) {
			if (parse_interval(i + 1 < argc ? argv[++i] : NULL, &ro->interval_ns, err))
				return -EINVAL;
		} else if (!strncmp(a, "--interval=", 11)) {
			if (parse_interval(a + 11, &ro->interval_ns, err))
				return -EINVAL;
		} else if (a[0] == '-' && a[1]) {
			err_set(err, "unknown option '%s'\nhint: " USAGE, a);
			return -EINVAL;
		} else if (!ro->target) {
			ro->target = a;
		} else {
			err_set(err, "too many arguments ('%s')\nhint: " USAGE, a);
			return -EINVAL;
		}
	}
	if (!ro->target && !ro->help) {
		err_set(err, "no run directory or trace.dat given\nhint: " USAGE);
		return -EINVAL;
	}
	return 0;
}

/* RUN_DIR/files/trace.dat, RUN_DIR/trace.dat, or the file itself; caller frees. */
static char *find_trace(const char *target, char **err)
{
	static const char *const rel[] = { "files/trace.dat", "trace.dat" };
	struct stat st;

	if (stat(target, &st) || !S_ISDIR(st.st_mode))
		return xstrdup(target);
	for (size_t i = 0; i < ARRAY_SIZE(rel); i++) {
		char *p = xasprintf("%s/%s", target, rel[i]);

		if (!access(p, F_OK))
			return p;
		free(p);
	}
	err_set(err,
		"cannot read trace '%s/files/trace.dat': %s\nhint: the run recorded no trace; run its command under trace-cmd record -e skb:kfree_skb -o /netlab/out/trace.dat",
		target, strerror(ENOENT));
	return NULL;
}

/* "12.345678": ns as seconds with microseconds, rounded like trace-cmd report. */
static void fmt_us(char *buf, size_t n, uint64_t ns)
{
	ns += 500;
	snprintf(buf, n, "%llu.%06llu", (unsigned long long)(ns / 1000000000ull),
		 (unsigned long long)(ns % 1000000000ull / 1000));
}

static int list_drop(void *ctx, const struct tracedrops_drop *d)
{
	struct report_list *l = ctx;
	const char *pname = tracedrops_proto_name(d->protocol);
	char t[32], ts[32], proto[16];

	if (l->json) {
		struct json_object *o = tracedrops_drop_to_json(d);

		if (!o || json_object_array_add(l->arr, o))
			return -ENOMEM;
		return 0;
	}
	if (!l->header_done) {
		printf("%12s %14s %4s %7s  %-18s  %-6s  %-40s %s\n", "time_s", "trace_ts", "cpu",
		       "pid", "skbaddr", "proto", "location", "reason");
		l->header_done = true;
	}
	fmt_us(t, sizeof(t), d->rel);
	fmt_us(ts, sizeof(ts), d->ts);
	if (!pname)
		snprintf(proto, sizeof(proto), "0x%04x", d->protocol);
	printf("%12s %14s %4d %7d  0x%016llx  %-6s  %-40s %s\n", t, ts, d->cpu, d->pid,
	       (unsigned long long)d->skbaddr, pname ? pname : proto, d->site->location,
	       d->site->reason);
	return 0;
}

static void print_header(const struct tracedrops *td)
{
	char t0[32], t1[32], iv[32];

	fmt_us(t0, sizeof(t0), td->t0);
	fmt_us(t1, sizeof(t1), td->last_ts);
	snprintf(iv, sizeof(iv), "%.9g", (double)td->interval_ns / 1e9);
	printf("trace %s: %d CPU%s, %llu events from %s to %s s (trace clock)\n", td->path,
	       td->cpus, td->cpus == 1 ? "" : "s", (unsigned long long)td->events, t0, t1);
	if (td->lost_gaps)
		printf("warning: the ring buffer lost %llu events in %llu place%s (%llu of unknown size): drop counts are a lower bound\n",
		       (unsigned long long)td->lost, (unsigned long long)td->lost_gaps,
		       td->lost_gaps == 1 ? "" : "s", (unsigned long long)td->lost_unknown);
	else
		printf("no events lost\n");
	printf("%llu drops (skb:kfree_skb); intervals of %s s from the first event\n",
	       (unsigned long long)td->total, iv);
	if (!td->has_reason)
		printf("note: this kernel's skb:kfree_skb has no reason field (before 5.17)\n");
	if (td->unresolved)
		printf("note: %zu locations are not in the trace's kallsyms and are shown as addresses\n",
		       td->unresolved);
}

static void print_intervals(const struct tracedrops *td)
{
	if (td->n_intervals)
		putchar('\n');
	for (size_t i = 0; i < td->n_intervals; i++) {
		const struct tracedrops_interval *iv = &td->intervals[i];
		double a = tracedrops_interval_start(td, iv), w = (double)td->interval_ns / 1e9;
		int prec = td->interval_ns % 1000000 ? 6 : 3;

		printf("%9.*f-%.*f s: %llu drops", prec, a, prec, a + w,
		       (unsigned long long)iv->total);
		for (size_t j = 0; j < iv->n_slots; j++) {
			const struct tracedrops_site *s = &td->sites[iv->slots[j].site];

			printf("%s %llu at %s (%s)", j ? "," : ":",
			       (unsigned long long)iv->slots[j].count, s->location, s->reason);
		}
		if (iv->lost || iv->lost_unknown)
			printf("; lost %llu events%s", (unsigned long long)iv->lost,
			       iv->lost_unknown ? " and more (unknown count)" : "");
		putchar('\n');
	}
}

static void print_totals(const char *title, const struct tracedrops_total *t, size_t n,
			 uint64_t total)
{
	if (!n)
		return;
	printf("\nby %s:\n", title);
	for (size_t i = 0; i < n; i++)
		printf("%10llu  %5.1f%%  %s\n", (unsigned long long)t[i].count,
		       total ? 100.0 * (double)t[i].count / (double)total : 0.0, t[i].name);
}

static void print_text(const struct tracedrops *td)
{
	print_header(td);
	print_intervals(td);
	print_totals("location", td->by_location, td->n_by_location, td->total);
	print_totals("reason", td->by_reason, td->n_by_reason, td->total);
}

static int print_json(const struct tracedrops *td, struct json_object *list)
{
	struct json_object *o = tracedrops_to_json(td), *drops;

	if (!o)
		return -ENOMEM;
	if (list && json_object_object_get_ex(o, "drops", &drops))
		json_object_object_add(drops, "list", json_object_get(list));
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
						       JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return 0;
}

static int __cmd_report(const struct report_opts *ro, const char *path, char **err)
{
	struct report_list l = { .json = ro->json };
	struct tracedrops_opts o = { .interval_ns = ro->interval_ns };
	struct tracedrops *td = NULL;
	int ret;

	if (ro->list) {
		o.on_drop = list_drop;
		o.ctx = &l;
		if (ro->json && !(l.arr = json_object_new_array()))
			return -ENOMEM;
	}
	ret = tracedrops_read(path, &o, &td, err);
	if (!ret && ro->list && !ro->json && l.header_done)
		putchar('\n');
	if (!ret)
		ret = ro->json ? print_json(td, l.arr) : (print_text(td), 0);
	if (ret == -ENOMEM)
		err_set(err, "cannot read trace '%s': %s", path, strerror(ENOMEM));
	tracedrops_free(td);
	json_object_put(l.arr);
	return ret;
}

static int report_exit(const struct report_opts *ro, const char *path)
{
	char *err = NULL;

	if (!__cmd_report(ro, path, &err))
		return NL_EXIT_OK;
	cmd_error("report", err);
	free(err);
	return NL_EXIT_USAGE;
}

/*
 * libtracecmd and libtraceevent trust the sizes and pages they decode: on a
 * corrupted file they may read out of bounds (trace-cmd report itself
 * crashes on such files) or try to allocate gigabytes. The read runs in a
 * child with bounded memory and CPU time, so that any of this becomes an
 * error message and exit 2, not a core dump or a machine that swaps. The
 * analysis itself streams and needs a few MB; the limits are far above it.
 */
#define REPORT_MAX_AS (3ull << 30)
#define REPORT_CPU_S_BASE 120
#define REPORT_CPU_S_PER_MB 2

static void report_limits(const char *path)
{
	struct rlimit as = { REPORT_MAX_AS, REPORT_MAX_AS }, cpu;
	struct stat st;
	rlim_t mb = stat(path, &st) ? 0 : (rlim_t)(st.st_size >> 20);

	cpu.rlim_cur = REPORT_CPU_S_BASE + REPORT_CPU_S_PER_MB * mb;
	cpu.rlim_max = cpu.rlim_cur + 5;
	setrlimit(RLIMIT_AS, &as);
	setrlimit(RLIMIT_CPU, &cpu);
}

/* Signals by which the child dies of the file, not of something done to it. */
static bool report_crashed(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL ||
	       sig == SIGABRT || sig == SIGXCPU || sig == SIGSYS;
}

/* Returns the exit status; the child frees its copy of `path` before it exits. */
static int report_isolated(const struct report_opts *ro, char *path)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return report_exit(ro, path);
	if (!pid) {
		report_limits(path);
		status = report_exit(ro, path);
		free(path);
		fflush(NULL);
		_exit(status);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return NL_EXIT_USAGE;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (!report_crashed(WTERMSIG(status))) {
		/* Killed from outside (SIGPIPE from `| head`, SIGINT, ...): so are we. */
		signal(WTERMSIG(status), SIG_DFL);
		raise(WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	fflush(stdout);
	fprintf(stderr,
		"netlab report: cannot read trace '%s': decoding it failed (%s): the file is truncated or corrupted\nhint: trace-cmd report is likely to fail on it too; record it again\n",
		path, strsignal(WTERMSIG(status)));
	return NL_EXIT_USAGE;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts ro;
	char *err = NULL, *path;
	int ret;

	if (report_parse(argc, argv, &ro, &err)) {
		cmd_error("report", err);
		free(err);
		return NL_EXIT_USAGE;
	}
	if (ro.help) {
		puts(USAGE "\n\n"
		     "Drops in a trace.dat recorded with trace-cmd record -e skb:kfree_skb: per interval\n"
		     "and in total, by location (symbol+0xoff, from the trace's kallsyms) and by reason\n"
		     "(from the event's own format). RUN_DIR/files/trace.dat is read for a run directory.\n\n"
		     "  --interval S  interval length in seconds (default 1)\n"
		     "  --list        also list every drop: time, cpu, pid, skb, protocol, location, reason\n"
		     "  --json        one JSON object with the same figures");
		return NL_EXIT_OK;
	}
	path = find_trace(ro.target, &err);
	if (!path) {
		cmd_error("report", err);
		free(err);
		return NL_EXIT_USAGE;
	}
	ret = report_isolated(&ro, path);
	free(path);
	return ret;
}
