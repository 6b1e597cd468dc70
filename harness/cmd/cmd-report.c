// SPDX-License-Identifier: GPL-2.0
/*
 * netlab report [SECTIONS] [DETAILS] [--json] RUN_DIR|TRACE.DAT
 *
 * What a traced run's trace.dat says, section by section: this file parses
 * the options; report/report.c computes and prints (report/report.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "lib/util.h"
#include "report/report.h"
#include "trace/pktpath.h"
#include "trace/tracefile.h"

#define USAGE                                                                      \
	"usage: netlab report [--drops] [--latency] [--flows] [--timeline] [--ring] [--tx] [--wire]\n" \
	"       [--interval S] [--list] [--packets] [--snoop] [--counters]\n"          \
	"       [--first N | --worst N] [--dev IFNAME] [--top N] [--sort bytes|drops|latency]\n" \
	"       [--json] RUN_DIR|TRACE.DAT\n" \
	"       netlab report --html [-o FILE] RUN_DIR|SUITE_DIR|BISECT_DIR|TRACE.DAT"

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

static int parse_count(const char *opt, const char *s, unsigned int *out, char **err)
{
	unsigned long v;

	if (!s || parse_uint(s, 1, 100000, &v)) {
		err_set(err, "%s '%s': expected a count, 1..100000\nhint: " USAGE, opt, s ? s : "");
		return -EINVAL;
	}
	*out = (unsigned int)v;
	return 0;
}

static int report_parse(int argc, char **argv, struct report_opts *ro, char **err)
{
	static const struct {
		const char *name;
		unsigned int section;
	} sections[] = { { "--drops", REPORT_DROPS },	 { "--latency", REPORT_LATENCY },
			 { "--flows", REPORT_FLOWS },	 { "--timeline", REPORT_TIMELINE },
			 { "--wire", REPORT_WIRE },		 { "--ring", REPORT_RING },
			 { "--tx", REPORT_TX } };

	memset(ro, 0, sizeof(*ro));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;
		bool known = false;

		for (size_t k = 0; k < ARRAY_SIZE(sections); k++)
			if (!strcmp(a, sections[k].name)) {
				ro->sections |= sections[k].section;
				known = true;
			}
		if (known)
			continue;
		if (!strcmp(a, "--json")) {
			ro->json = true;
		} else if (!strcmp(a, "--html")) {
			ro->html = true;
		} else if (!strcmp(a, "-o")) {
			if (!next || !*next) {
				err_set(err, "-o needs a file name\nhint: " USAGE);
				return -EINVAL;
			}
			ro->out = argv[++i];
		} else if (!strcmp(a, "--list")) {
			ro->list = true;
		} else if (!strcmp(a, "--packets")) {
			ro->packets = true;
		} else if (!strcmp(a, "--snoop")) {
			ro->snoop = true;
		} else if (!strcmp(a, "--counters")) {
			ro->counters = true;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			ro->help = true;
		} else if (!strcmp(a, "--first") || !strcmp(a, "--worst")) {
			if (parse_count(a, next, a[2] == 'f' ? &ro->first : &ro->worst, err))
				return -EINVAL;
			i++;
		} else if (!strcmp(a, "--top")) {
			if (parse_count(a, next, &ro->top, err))
				return -EINVAL;
			i++;
		} else if (!strcmp(a, "--sort")) {
			if (!next || (ro->flow_order = pktpath_flow_order_parse(next)) < 0) {
				err_set(err, "--sort '%s': expected bytes, drops or latency\nhint: " USAGE,
					next ? next : "");
				return -EINVAL;
			}
			ro->sections |= REPORT_FLOWS;
			i++;
		} else if (!strcmp(a, "--dev")) {
			if (!next || !*next) {
				err_set(err, "--dev needs an interface name (ethA)\nhint: " USAGE);
				return -EINVAL;
			}
			ro->dev = argv[++i];
		} else if (!strcmp(a, "--interval")) {
			if (parse_interval(next, &ro->interval_ns, err))
				return -EINVAL;
			i++;
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
	if (ro->first && ro->worst) {
		err_set(err, "--first and --worst choose the timeline's trees two ways: give one\nhint: " USAGE);
		return -EINVAL;
	}
	if (ro->out && !ro->html) {
		err_set(err, "-o FILE is where --html writes its page: give --html too\nhint: " USAGE);
		return -EINVAL;
	}
	if (!ro->target && !ro->help) {
		err_set(err, "no run directory or trace.dat given\nhint: " USAGE);
		return -EINVAL;
	}
	return 0;
}

/* Errors reach the user here: "netlab report: ...". */
static void report_error(const char *err)
{
	cmd_error("report", err);
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
		     "What a traced run's trace.dat (RUN_DIR/files/trace.dat, or the file given) says.\n"
		     "Sections (default: every one the input allows):\n"
		     "  --drops       dropwatch: drops per interval and in total, by location and reason\n"
		     "  --latency     stage latency per direction and process (drv->ip->tcp/udp->app, app->ip->qdisc->dev)\n"
		     "  --flows       per flow: packets/bytes in and out, drops, retransmits, CPUs, latency p50/p99,\n"
		     "                sending and receiving tasks (tcptop-like)\n"
		     "  --timeline    perf netdev-times: irq -> softirq -> napi_poll -> skb -> copy/free trees, TX table\n"
		     "  --ring        (driver patches) RX/TX ring occupancy, refills, NAPI budget, irq->poll, low-ring episodes\n"
		     "  --tx          per NIC: frames the stack handed to the driver, what it gave the NIC and what it dropped\n"
		     "  --wire        (run directory) pcap frames per link beside NIC, IP and socket counters\n"
		     "Details:\n"
		     "  --interval S  drop interval in seconds (default 1)\n"
		     "  --list        every drop: time, pid, skb, protocol, location, reason, flow\n"
		     "  --packets     every packet's stage latencies, as the drv-ip/ip-tcp/tcp-app script printed\n"
		     "  --snoop       every segment at IP: time, pid, addresses, length, TCP flags\n"
		     "  --counters    every nonzero counter delta in the wire section\n"
		     "  --first N     the timeline's first N interrupts (default 5)\n"
		     "  --worst N     instead, the N with the worst irq -> copy latency\n"
		     "  --dev IFNAME  the timeline of one device only\n"
		     "  --top N       the flow table's first N flows (default: all)\n"
		     "  --sort ORDER  the flow table by bytes (default), drops (then retransmits)\n"
		     "                or latency (the worse p99 of its two directions)\n"
		     "  --json        one JSON object with the same figures\n"
		     "  --html        one self-contained HTML page with plots (RUN_DIR/report.html; a suite\n"
		     "                directory's report.html from its summary.json, a bisection's from its\n"
		     "                bisect.json and steps), figures as --json --worst 1\n"
		     "  -o FILE       where --html writes the page");
		return NL_EXIT_OK;
	}
	if (ro.html)
		return report_html(&ro, report_error) ? NL_EXIT_USAGE : NL_EXIT_OK;
	if (report_is_dir(ro.target))
		report_oops(&ro, report_error);
	path = tracefile_find(ro.target);
	ret = report_isolated(&ro, path, report_error);
	free(path);
	free(ro.oops);
	return ret ? NL_EXIT_USAGE : NL_EXIT_OK;
}
