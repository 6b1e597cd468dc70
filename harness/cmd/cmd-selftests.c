// SPDX-License-Identifier: GPL-2.0
/*
 * netlab selftests [TARGET[:TEST] ...]: the kernel's own selftests, built
 * from the kernel's tree, each in a guest of its own through the regress
 * engine, folded into the suite outputs.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "lib/outlock.h"
#include "report/html.h"
#include "scenario/resultsdb.h"
#include "scenario/regress.h"
#include "selftests/ksft-suite.h"
#include "selftests/ksft.h"

static const char selftests_usage[] =
	"usage: netlab selftests [--ksrc DIR] [options] [TARGET[:TEST] ...]\n"
	"  builds the kernel's selftests (tools/testing/selftests) for the TARGETs (default\n"
	"  net; also net/forwarding, drivers/net, ...) from the kernel's tree, and runs each\n"
	"  test with kselftest's runner in a guest of its own (as netlab regress runs a scenario)\n"
	"      --ksrc DIR          the kernel tree (default: the one the default kernel was built from)\n"
	"  -j, --jobs N            guests at a time (default 2)\n"
	"  -o, --out DIR           suite run directory (default runs/selftests-DATE-PID)\n"
	"      --timeout S         each test's timeout in seconds (default: its target's\n"
	"                          settings file, kselftest's 45 without one)\n"
	"      --no-tools          boot the base guest only, without the selftests' tools\n"
	"                          (bash, dash as sh, socat, nc, ping, timeout, ...)\n"
	"      --list              build, list the tests (TARGET:TEST) and exit\n"
	"      --ktap              KTAP on stdout too (the table goes to stderr); it is\n"
	"                          always written to SUITE/results.ktap\n"
	"      --kernel, --initrd, --accel, --qemu   as for netlab run\n"
	"      --flavour NAME      the kernel of flavour NAME, as for netlab run (the net\n"
	"                          selftests want full-net: make kernel FLAVOUR=full-net)\n"
	"exit status: 0 all passed or skipped, 1 a test failed, 2 bad input (an unknown\n"
	"target or test, no tree), 125 the build or the runs could not test, 130 interrupted.\n";

enum { O_KSRC = 256, O_TIMEOUT, O_NO_TOOLS, O_LIST, O_KTAP, O_KERNEL, O_INITRD, O_ACCEL, O_QEMU,
       O_FLAVOUR };

static const struct option longopts[] = {
	{ "ksrc", required_argument, NULL, O_KSRC }, { "jobs", required_argument, NULL, 'j' },
	{ "out", required_argument, NULL, 'o' }, { "timeout", required_argument, NULL, O_TIMEOUT },
	{ "no-tools", no_argument, NULL, O_NO_TOOLS }, { "list", no_argument, NULL, O_LIST },
	{ "ktap", no_argument, NULL, O_KTAP }, { "kernel", required_argument, NULL, O_KERNEL },
	{ "initrd", required_argument, NULL, O_INITRD }, { "accel", required_argument, NULL, O_ACCEL },
	{ "qemu", required_argument, NULL, O_QEMU }, { "help", no_argument, NULL, 'h' },
	{ "flavour", required_argument, NULL, O_FLAVOUR },
	{ NULL, 0, NULL, 0 },
};

struct selftests_cmd {
	struct regress_opts o;
	const char *ksrc;
	unsigned int timeout_s;
	bool no_tools, list, ktap, help;
	const char **args;		/* TARGET[:TEST] */
	size_t n_args;
	char *own[8];
	size_t n_own;
};

static const char *own(struct selftests_cmd *sc, char *s)
{
	if (sc->n_own < ARRAY_SIZE(sc->own))
		sc->own[sc->n_own++] = s;
	return s;
}

static int parse_one(void *ctx, int c, const char *opt, const char *arg, char **err)
{
	struct selftests_cmd *sc = ctx;
	unsigned long v;

	switch (c) {
	case 'j':
		if (parse_uint(arg, 1, 64, &v))
			goto bad;
		sc->o.jobs = (unsigned int)v;
		return 0;
	case O_TIMEOUT:
		if (parse_uint(arg, 1, 86400, &v))
			goto bad;
		sc->timeout_s = (unsigned int)v;
		return 0;
	case O_ACCEL:
		if (vm_accel_parse(arg, &sc->o.base.accel))
			goto bad;
		return 0;
	case O_KSRC: sc->ksrc = arg; return 0;
	case 'o': sc->o.out = arg; return 0;
	case O_NO_TOOLS: sc->no_tools = true; return 0;
	case O_LIST: sc->list = true; return 0;
	case O_KTAP: sc->ktap = true; return 0;
	case O_KERNEL: sc->o.base.kernel = arg; return 0;
	case O_FLAVOUR: return cmd_parse_flavour(opt, arg, &sc->o.flavour, err);
	case O_INITRD: sc->o.base.initrd = arg; return 0;
	case O_QEMU: sc->o.base.qemu = arg; return 0;
	case 'h': sc->help = true; return 0;
	default:
		err_set(err, "bad option (see 'netlab selftests --help')");
		return -EINVAL;
	}
bad:
	err_set(err, "%s: bad value '%s'\nhint: 'netlab selftests --help' says what %s takes", opt,
		arg, opt);
	return -EINVAL;
}

/* The tree the kernel was built from: kbuild.sh's "source" file beside it. */
static int default_ksrc(struct selftests_cmd *sc, char **err)
{
	char *k = xstrdup(sc->o.base.kernel), *src = NULL, *p, *cache;
	size_t len;

	p = xasprintf("%s/source", dirname(k));
	if (!file_read(p, &src, &len)) {
		src[strcspn(src, "\n")] = 0;
		cache = cache_dir();
		if (!strncmp(src, "debian-linux-source-", 20)) {
			sc->ksrc = own(sc, xasprintf("%s/src/%s", cache, src));
			if (access(sc->ksrc, F_OK))
				sc->ksrc = NULL;
		}
		free(cache);
	}
	if (!sc->ksrc)
		err_set(err, "cannot tell which kernel tree '%s' was built from ('%s'%s)\n"
			"hint: --ksrc DIR, the tree of the kernel under test; 'make kernel' extracts "
			"the default one", sc->o.base.kernel, p, src ? " names no tree here" : " is missing");
	free(src);
	free(p);
	free(k);
	return sc->ksrc ? 0 : -EINVAL;
}

static int parse(int argc, char **argv, struct selftests_cmd *sc, char **err)
{
	static const char *const dflt[] = { "net" };
	const char *iopt;

	memset(sc, 0, sizeof(*sc));
	run_opts_init(&sc->o.base);
	sc->o.jobs = 2;
	sc->o.deterministic = -1;
	if (cmd_getopt(argc, argv, "j:o:h", longopts, "selftests", parse_one, sc, err))
		return -EINVAL;
	if (sc->help)
		return 0;
	if (!sc->o.base.kernel)
		sc->o.base.kernel = own(sc, cmd_flavour_kernel(sc->o.flavour));
	if (cmd_check_flavour_kernel(sc->o.flavour, sc->o.base.kernel, err))
		return -EINVAL;
	iopt = sc->o.base.initrd ? "--initrd" : "initramfs";
	if (!sc->o.base.initrd)
		sc->o.base.initrd = own(sc, cmd_default_initrd());
	if (!sc->o.out)
		sc->o.out = own(sc, cmd_default_out("selftests"));
	if (!sc->list && (cmd_check_out(sc->o.out, NULL, err) ||
			  cmd_check_initrd(iopt, sc->o.base.initrd, err)))
		return -EINVAL;
	sc->args = optind < argc ? (const char **)argv + optind : (const char **)dflt;
	sc->n_args = optind < argc ? (size_t)(argc - optind) : 1;
	if (sc->ksrc && access(sc->ksrc, F_OK)) {
		err_set(err, "--ksrc '%s': %s\nhint: the top of the kernel tree under test", sc->ksrc,
			strerror(errno));
		return -EINVAL;
	}
	return sc->ksrc ? 0 : default_ksrc(sc, err);
}

#define MAX_TARGETS 64

/* The targets to build: each argument's TARGET part, once (at most MAX_TARGETS). */
static size_t targets_of(const struct selftests_cmd *sc, char **t)
{
	size_t n = 0;

	for (size_t i = 0; i < sc->n_args && n < MAX_TARGETS; i++) {
		char *x = ksft_target_of(sc->args[i]);
		bool dup = false;

		for (size_t k = 0; k < n; k++)
			dup |= !strcmp(t[k], x);
		if (dup)
			free(x);
		else
			t[n++] = x;
	}
	return n;
}

/* The guest's initrd: the base one, then the selftests' tools (ksft_tools_initrd()). */
static int tools_initrd(struct selftests_cmd *sc, char **err)
{
	char *out = xasprintf("%s/initrd-selftests.img", sc->o.out);
	int ret = ksft_tools_initrd(sc->o.base.initrd, NULL, out, err);

	if (ret) {
		free(out);
		return ret;
	}
	sc->o.base.initrd = own(sc, out);
	return 0;
}

/*
 * The kernel's modules image, when it has one (ksft_kernel_modules(): a
 * flavour's kernel with CONFIG_MODULES), after the rest: /lib/modules/RELEASE
 * for the tests' modprobe. The default kernel has none: the initrd is as before.
 */
static int modules_initrd(struct selftests_cmd *sc, char **err)
{
	char *mods = ksft_kernel_modules(sc->o.base.kernel), *out;
	int ret;

	if (!mods)
		return 0;
	out = xasprintf("%s/initrd-selftests.img", sc->o.out);
	ret = ksft_initrd_append(sc->o.base.initrd, mods, out, err);
	free(mods);
	if (ret) {
		free(out);
		return ret;
	}
	if (strcmp(sc->o.base.initrd, out))
		sc->o.base.initrd = own(sc, out);
	else
		free(out);
	return 0;
}

/* One [exec] scenario per test that built, in SUITE/scenarios/. */
static int write_scenarios(struct selftests_cmd *sc, const struct ksft_suite *s, const char *inst,
			   char **err)
{
	char *dir = xasprintf("%s/scenarios", sc->o.out);
	int ret = mkdir_p(dir, 0755);

	for (size_t i = 0; i < s->n && !ret; i++) {
		char *p;

		if (s->t[i].not_built)
			continue;
		p = xasprintf("%s/%s.scn", dir, s->t[i].scn_name);
		ret = ksft_write_scenario(s->t[i].name, inst, KSFT_GUEST_DIR, sc->timeout_s, p, err);
		sc->o.scenarios = xrealloc_array(sc->o.scenarios, sc->o.n_scenarios + 1, sizeof(char *));
		sc->o.scenarios[sc->o.n_scenarios++] = p;
	}
	free(dir);
	return ret;
}

static volatile sig_atomic_t selftests_stop;

static void on_signal(int sig)
{
	selftests_stop = sig;
}

static void on_progress(void *ctx, const char *line)
{
	fprintf(stderr, "%s\n", line);
}

/* The outputs: table and note, results.ktap, junit.xml, summary.json, report.html. */
static void report(struct selftests_cmd *sc, struct ksft_suite *s, struct regress *r, double wall)
{
	char *p, *err = NULL;
	int ret;

	ksft_print(s, wall, sc->ktap ? stderr : stdout);
	regress_reserve_release(r);	/* the room kept for these files */
	p = xasprintf("%s/results.ktap", sc->o.out);
	if (ksft_write_ktap(s, p, &err))
		cmd_error("selftests", err);
	if (sc->ktap) {
		char *k = NULL;
		size_t len;

		if (!file_read(p, &k, &len))
			fputs(k, stdout);
		free(k);
	}
	free(p);
	free(err);
	err = NULL;
	if (r) {
		p = xasprintf("%s/junit.xml", sc->o.out);
		if (regress_write_junit(r, p, &err))
			cmd_error("selftests", err);
		free(p);
		free(err);
		err = NULL;
		p = xasprintf("%s/summary.json", sc->o.out);
		ret = regress_write_json(r, p, &err);
		if (!ret)
			ret = ksft_json_add(s, p, &err);
		if (ret == -ENOSPC)
			fprintf(stderr, "netlab selftests: disk full: %s\nhint: free some space there\n", p);
		else if (ret)
			cmd_error("selftests", err);
		free(p);
		free(err);
		err = NULL;
		/* The page reads summary.json back: none without it. */
		if (!ret && html_suite_write(sc->o.out, NULL, true, &err))
			cmd_error("selftests", err);
		free(err);
	}
	fprintf(sc->ktap ? stderr : stdout, "results in %s\n", sc->o.out);
}

static int run_suite(struct selftests_cmd *sc, char **err)
{
	struct sigaction sa = { .sa_handler = on_signal };
	char *targets[MAX_TARGETS] = { NULL }, *inst = NULL;
	size_t n_t = targets_of(sc, targets);
	struct ksft_suite s = { 0 };
	struct regress *r = NULL;
	double t0 = now_s();
	int ret, lock_fd = -1;

	ret = ksft_build(sc->ksrc, (const char *const *)targets, n_t, NULL, &inst, err);
	if (ret) {
		ret = ret == -EINVAL ? NL_EXIT_USAGE : NL_EXIT_CANNOT_TEST;
		goto out;
	}
	if (ksft_select(inst, sc->args, sc->n_args, &s, err)) {
		ret = NL_EXIT_USAGE;
		goto out;
	}
	if (sc->list) {
		for (size_t i = 0; i < s.n; i++)
			printf("%s%s%s\n", s.t[i].name, s.t[i].not_built ? "  # SKIP " : "",
			       s.t[i].not_built ?: "");
		ret = NL_EXIT_OK;
		goto out;
	}
	/* One writer per --out, for the whole suite (regress_execute() too). */
	lock_fd = outlock_take(sc->o.out, err);
	if (lock_fd < 0) {
		ret = lock_fd == -ENOSPC ? NL_EXIT_CANNOT_TEST : NL_EXIT_USAGE;
		goto out;
	}
	sc->o.out_locked = true;
	ret = NL_EXIT_USAGE;
	if (write_scenarios(sc, &s, inst, err) || (!sc->no_tools && tools_initrd(sc, err)) ||
	    modules_initrd(sc, err))
		goto out;
	if (sc->o.n_scenarios) {
		if (regress_load(&sc->o, &r, err) || cmd_check_suite_out(sc->o.out, r, err))
			goto out;
		sc->o.progress = on_progress;
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		if (regress_execute(r, &sc->o, &selftests_stop, err)) {
			ret = NL_EXIT_CANNOT_TEST;
			goto out;
		}
		ksft_suite_fold(&s, r);
		if (resultsdb_path(NULL)) {
			char *why = NULL;

			if (resultsdb_record(resultsdb_path(NULL), r, &why))
				fprintf(stderr, "netlab selftests: not recorded: %s\n", why);
			free(why);
		}
	}
	report(sc, &s, r, now_s() - t0);
	ret = ksft_exit_code(&s, r);
out:
	regress_free(r);
	outlock_release(lock_fd);
	ksft_suite_release(&s);
	for (size_t i = 0; i < n_t; i++)
		free(targets[i]);
	free(inst);
	return ret;
}

int cmd_selftests(int argc, char **argv)
{
	struct selftests_cmd sc;
	char *err = NULL;
	int ret = NL_EXIT_USAGE;

	if (parse(argc, argv, &sc, &err) && !sc.help) {
		cmd_error("selftests", err);
		goto out;
	}
	if (sc.help) {
		fputs(selftests_usage, stdout);
		ret = NL_EXIT_OK;
		goto out;
	}
	ret = run_suite(&sc, &err);
	if (ret && err)
		cmd_error("selftests", err);
out:
	free(err);
	for (size_t i = 0; i < sc.n_own; i++)
		free(sc.own[i]);
	for (size_t i = 0; i < sc.o.n_scenarios; i++)
		free(sc.o.scenarios[i]);
	free(sc.o.scenarios);
	return ret;
}
