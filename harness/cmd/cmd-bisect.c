// SPDX-License-Identifier: GPL-2.0
/*
 * netlab bisect --ksrc DIR --good REV --bad REV --scenario FILE: find the
 * commit that breaks a scenario's checks, with `git bisect run` in a
 * worktree of DIR. Each step is `netlab bisect --step --state RUN_DIR`.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bisect/bisect.h"
#include "lib/esc.h"
#include "cmd/cmd.h"
#include "scenario/resultsdb.h"
#include "scenario/scenario.h"
#include "selftests/ksft.h"
#include "lib/outlock.h"
#include "lib/util.h"
#include "report/html.h"
#include "vm/share.h"

static const char bisect_usage[] =
	"usage: netlab bisect --ksrc DIR --good REV --bad REV --scenario FILE [options]\n"
	"       netlab bisect --module DIR --good REV --bad REV --scenario FILE [options]\n"
	"       netlab bisect --ksrc DIR --good REV --bad REV --selftest TARGET:TEST [options]\n"
	"       netlab bisect --resume RUN_DIR\n"
	"  finds the first commit of DIR whose kernel fails the scenario's checks\n"
	"      --ksrc DIR          kernel git tree (never modified: a worktree is used)\n"
	"      --module DIR        instead: a git tree of one out-of-tree PCI driver (its .c\n"
	"                          and .h files), built as module nl_DRIVER against\n"
	"                          harness/kbuild.sh's kernel and loaded in the guest in\n"
	"                          place of the built-in DRIVER\n"
	"      --good REV          a commit that passes\n"
	"      --bad REV           a later commit that fails\n"
	"      --scenario FILE     a regression scenario (.scn)\n"
	"      --selftest TARGET:TEST  instead: the kernel's own selftest decides (e.g.\n"
	"                          net:sk_connect_zero_addr); each step builds it from\n"
	"                          its tree and runs it as netlab selftests does\n"
	"      --check NAME        decide by this check only (default: all)\n"
	"      --runs N            runs per step; the median decides, and a step too\n"
	"                          close to call runs N more (default 1)\n"
	"      --deterministic B   yes|no: QEMU -icount (default: the scenario's)\n"
	"  -j, --jobs N            guests at a time (default 1)\n"
	"  -o, --out DIR           run directory (default runs/bisect-DATE-PID)\n"
	"      --resume RUN_DIR    continue an interrupted bisection\n"
	"      --initrd FILE       as for netlab run\n"
	"      --flavour NAME      each step builds kernel flavour NAME (kconfigs/flavours/NAME,\n"
	"                          default 'default'); a scenario that needs one says which\n"
	"      --share DIR[:GUEST][:rw], --add FILE[:GUEST]   as for netlab regress: every\n"
	"                          step's runs get them (beside the scenario's share = ...);\n"
	"                          repeatable, kept in bisect.json for --resume\n"
	"      --modules DIR       refused: bisect builds its own kernels, drivers built in\n"
	"exit status: 0 first bad commit found, 2 bad input or endpoints that do not\n"
	"verify (good fails, bad passes), 125 an endpoint cannot be tested or only\n"
	"skipped commits are left, 130 interrupted (--resume continues).\n";

enum { O_KSRC = 256, O_GOOD, O_BAD, O_SCN, O_CHECK, O_RUNS, O_DET, O_RESUME, O_INITRD, O_STEP,
       O_STATE, O_MODULE, O_SHARE, O_ADD, O_MODULES, O_SELFTEST, O_FLAVOUR };

static const struct option longopts[] = {
	{ "ksrc", required_argument, NULL, O_KSRC }, { "good", required_argument, NULL, O_GOOD },
	{ "bad", required_argument, NULL, O_BAD }, { "scenario", required_argument, NULL, O_SCN },
	{ "check", required_argument, NULL, O_CHECK }, { "runs", required_argument, NULL, O_RUNS },
	{ "deterministic", required_argument, NULL, O_DET },
	{ "jobs", required_argument, NULL, 'j' }, { "out", required_argument, NULL, 'o' },
	{ "resume", required_argument, NULL, O_RESUME },
	{ "initrd", required_argument, NULL, O_INITRD }, { "step", no_argument, NULL, O_STEP },
	{ "state", required_argument, NULL, O_STATE }, { "module", required_argument, NULL, O_MODULE },
	{ "share", required_argument, NULL, O_SHARE }, { "add", required_argument, NULL, O_ADD },
	{ "modules", required_argument, NULL, O_MODULES },
	{ "flavour", required_argument, NULL, O_FLAVOUR },
	{ "selftest", required_argument, NULL, O_SELFTEST },
	{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
};

static int parse_one(void *ctx, int c, const char *opt, const char *arg, char **err)
{
	struct bisect_cmd *bc = ctx;
	unsigned long v;
	bool b;

	switch (c) {
	case O_KSRC: bc->ksrc = arg; return 0;
	case O_GOOD: bc->good = arg; return 0;
	case O_BAD: bc->bad = arg; return 0;
	case O_SCN: bc->scenario = arg; return 0;
	case O_SELFTEST: bc->selftest = arg; return 0;
	case O_CHECK: bc->check = arg; return 0;
	case 'o': bc->out = arg; return 0;
	case O_RESUME: bc->resume = arg; return 0;
	case O_INITRD: bc->initrd = arg; return 0;
	case O_STEP: bc->step = true; return 0;
	case O_STATE: bc->state = arg; return 0;
	case O_MODULE: bc->module = arg; return 0;
	case O_FLAVOUR: return cmd_parse_flavour(opt, arg, &bc->flavour, err);
	case O_SHARE: return cmd_parse_share(arg, false, &bc->shares, err);
	case O_ADD: return cmd_parse_share(arg, true, &bc->shares, err);
	case O_MODULES:
		/* Each step boots the kernel it built: its drivers are built in
		 * (kconfigs/), and --module's driver comes in as its own module. */
		err_set(err, "--modules '%s': netlab bisect builds the kernel of each step, with its "
			     "NIC drivers built in: it loads no distribution kernel's modules\n"
			     "hint: bisect the kernel tree (--ksrc) or the driver's (--module); "
			     "'netlab regress --kernel FILE --modules DIR' tests one prebuilt kernel", arg);
		return -EINVAL;
	case 'h': bc->help = true; return 0;
	case O_RUNS:
		if (parse_uint(arg, 1, 50, &v))
			goto bad;
		bc->runs = (unsigned int)v;
		return 0;
	case 'j':
		if (parse_uint(arg, 1, 16, &v))
			goto bad;
		bc->jobs = (unsigned int)v;
		return 0;
	case O_DET:
		if (scn_parse_bool(arg, &b))
			goto bad;
		bc->deterministic = b;
		return 0;
	default:
		err_set(err, "bad option (see 'netlab bisect --help')");
		return -EINVAL;
	}
bad:
	err_set(err, "%s: bad value '%s'\nhint: 'netlab bisect --help' says what %s takes", opt, arg, opt);
	return -EINVAL;
}

int bisect_cmd_parse(int argc, char **argv, struct bisect_cmd *bc, char **err)
{
	char *why = NULL;

	memset(bc, 0, sizeof(*bc));
	bc->runs = 1;
	bc->jobs = 1;
	bc->deterministic = -1;
	if (cmd_getopt(argc, argv, "j:o:h", longopts, "bisect", parse_one, bc, err))
		return -EINVAL;
	if (bc->help)
		return 0;
	if (optind < argc) {
		err_set(err, "unexpected argument '%s' (see 'netlab bisect --help')", argv[optind]);
		return -EINVAL;
	}
	if (bc->step) {
		if (!bc->state) {
			err_set(err, "--step needs --state RUN_DIR");
			return -EINVAL;
		}
		return 0;
	}
	if (bc->resume) {
		if (bc->shares.n_shares || bc->shares.n_adds) {
			err_set(err, "--share/--add with --resume: a bisection keeps those it started "
				     "with (bisect.json)\nhint: start a new bisection to change them");
			return -EINVAL;
		}
		return 0;
	}
	if (bc->module && bc->ksrc) {
		err_set(err, "--module and --ksrc exclude each other\n"
			"hint: --module DIR bisects a driver's tree against kbuild.sh's kernel (KSRC=... picks it)");
		return -EINVAL;
	}
	if (bc->selftest && bc->scenario) {
		err_set(err, "--selftest and --scenario exclude each other\n"
			"hint: --selftest TARGET:TEST bisects on one kernel selftest; a scenario of yours "
			"can run it too ([exec] run = ...)");
		return -EINVAL;
	}
	if (bc->module && bc->flavour && strcmp(bc->flavour, "default")) {
		err_set(err, "--module with --flavour '%s': the module is built against the default "
			     "kernel\nhint: bisect the kernel tree (--ksrc) on that flavour instead",
			bc->flavour);
		return -EINVAL;
	}
	if (bc->selftest && bc->module) {
		err_set(err, "--selftest with --module: the kernel's selftests come from a kernel tree\n"
			"hint: --ksrc DIR --selftest TARGET:TEST bisects the kernel tree on it");
		return -EINVAL;
	}
	if ((!bc->ksrc && !bc->module) || !bc->good || !bc->bad || (!bc->scenario && !bc->selftest)) {
		err_set(err, "missing %s\nhint: netlab bisect --ksrc DIR --good REV --bad REV --scenario FILE",
			!bc->ksrc && !bc->module ? "--ksrc DIR" : !bc->good ? "--good REV"
			: !bc->bad ? "--bad REV" : "--scenario FILE (or --selftest TARGET:TEST)");
		return -EINVAL;
	}
	if (share_list_check(bc->shares.shares, bc->shares.n_shares, bc->shares.adds,
			     bc->shares.n_adds, &why)) {
		err_set(err, "--share/--add: %s", why);
		free(why);
		return -EINVAL;
	}
	return 0;
}

void bisect_cmd_release(struct bisect_cmd *bc)
{
	cmd_shares_release(&bc->shares);
}

/* The steps' own copies of --share/--add (bisect.json keeps them). */
static struct vm_share *shares_dup(const struct vm_share *v, size_t n)
{
	struct vm_share *out = xzalloc((n + 1) * sizeof(*out));

	for (size_t i = 0; i < n; i++) {
		out[i].host = xstrdup(v[i].host);
		out[i].guest = xstrdup(v[i].guest);
		out[i].rw = v[i].rw;
	}
	return out;
}

static volatile sig_atomic_t bisect_stop;

static void on_signal(int sig)
{
	bisect_stop = sig;
}

static void on_progress(void *ctx, const char *line)
{
	fprintf(stderr, "%s\n", line);
}

/* The bisection's page again, with this step: an interrupted bisection leaves one. */
static void step_page(const char *run_dir, const struct bisect_step *s)
{
	char *err = NULL;

	if (html_bisect_write(run_dir, NULL, &err))
		fprintf(stderr, "[bisect] step %u %.12s: no report.html: %s\n", s->n, s->commit, err);
	free(err);
}

static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };	/* no SA_RESTART: waitpid wakes */

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* The hidden step `git bisect run` calls: its exit status is the verdict. */
static int step(const struct bisect_cmd *bc)
{
	struct bisect_config c;
	struct bisect_step s;
	char *err = NULL;
	int ret;

	if (bisect_config_load(bc->state, &c, &err)) {
		cmd_error("bisect", err);
		free(err);
		return NL_EXIT_CANNOT_TEST;
	}
	catch_signals();
	ret = bisect_step_run(&c, bc->state, NULL, &bisect_stop, on_progress, NULL, &s, &err);
	if (ret) {
		cmd_error("bisect", err);
		ret = NL_EXIT_CANNOT_TEST;
	} else {
		step_page(bc->state, &s);
		ret = s.verdict;
	}
	bisect_step_release(&s);
	bisect_config_release(&c);
	free(err);
	return ret;
}

/* Make *path absolute (it exists): steps run in the worktree. */
static void absolute(char **path)
{
	char *abs = realpath(*path, NULL);

	if (abs) {
		free(*path);
		*path = abs;
	}
}

/*
 * --selftest: RUN_DIR/selftest.scn runs TARGET:TEST from RUN_DIR/ksft, where
 * each step installs the selftests of its tree; then it is validated as a
 * --scenario is (--check names one of its checks).
 */
static int selftest_scenario(struct bisect_config *c, const char *run_dir, char **err)
{
	const char *colon = strchr(c->selftest, ':');
	char *inst = xasprintf("%s/ksft/install", run_dir), *list = NULL, *spec, *settings = NULL;
	char *tools = NULL;
	unsigned int timeout_s = KSFT_DEFAULT_TIMEOUT;
	int ret = mkdir_p(inst, 0755);

	if (ret) {
		err_set(err, "cannot create '%s': %s", inst, strerror(-ret));
		goto out;
	}
	/* Until the first step installs the selftests, the list names the one
	 * test (ksft_write_scenario() refuses a test the install lacks). */
	list = xasprintf("%s/kselftest-list.txt", inst);
	ret = file_writef(list, "%s\n", c->selftest);
	if (ret) {
		err_set(err, "cannot write '%s': %s", list, strerror(-ret));
		goto out;
	}
	/* The runner's timeout, as the tree at --bad sets it for the target. */
	spec = xasprintf("%s:tools/testing/selftests/%.*s/settings", c->bad,
			 (int)(colon - c->selftest), c->selftest);
	if (!bisect_git(c->ksrc, &settings, "show", spec, NULL) && settings)
		timeout_s = ksft_settings_timeout(settings);
	free(spec);
	/* The steps boot with the selftests' tools (bash, socat, ping, ...),
	 * as netlab selftests does: bisect.json keeps this initrd. */
	tools = xasprintf("%s/initrd-selftests.img", run_dir);
	ret = ksft_tools_initrd(c->initrd, NULL, tools, err);
	if (ret)
		goto out;
	free(c->initrd);
	c->initrd = tools;
	tools = NULL;
	c->scenario = xasprintf("%s/selftest.scn", run_dir);
	ret = ksft_write_scenario(c->selftest, inst, KSFT_GUEST_DIR,
				  timeout_s + 30, c->scenario, err);
	if (!ret)
		ret = bisect_validate_scenario(c, err);
out:
	free(tools);
	free(settings);
	free(list);
	free(inst);
	return ret;
}

/* A new bisection: validate, the run directory, the worktree. */
/*
 * --out before anything is made: each step's runs go to (absolute)
 * OUT/steps/NN-COMMIT/runs-N/SCENARIO/run-N (bisect-step.c, regress.c).
 */
static int check_out(const struct bisect_config *c, const char *out, char **err)
{
	const char *scn = c->scenario ? c->scenario : "selftest.scn";
	const char *base = strrchr(scn, '/') ? strrchr(scn, '/') + 1 : scn;
	size_t n = strlen(base) > 4 && !strcmp(base + strlen(base) - 4, ".scn") ? strlen(base) - 4
										 : strlen(base);
	char *cwd = out[0] == '/' ? NULL : getcwd(NULL, 0);
	struct scenario *s = NULL;
	bool two = c->scenario && !scn_parse(c->scenario, &s, NULL) && s->topo && s->topo->n_vms > 1;
	char *below = xasprintf("/steps/00-000000000000/runs-2/%.*s/run-%u%s", (int)n, base, c->runs,
				two ? RUN_SOCK_BELOW_VMS : "");
	char *abs = cwd ? xasprintf("%s/%s", cwd, out) : xstrdup(out);
	int ret = cmd_check_out(abs, below, err);

	scn_free(s);
	free(abs);
	free(below);
	free(cwd);
	return ret;
}

static int start(const struct bisect_cmd *bc, struct bisect_config *c, char **run_dir, char **err)
{
	char *warn = NULL, *link;
	int ret;

	memset(c, 0, sizeof(*c));
	c->ksrc = xstrdup(bc->module ? bc->module : bc->ksrc);
	c->module = bc->module != NULL;
	c->good_rev = xstrdup(bc->good);
	c->bad_rev = xstrdup(bc->bad);
	c->scenario = bc->scenario ? xstrdup(bc->scenario) : NULL;
	c->selftest = bc->selftest ? xstrdup(bc->selftest) : NULL;
	c->check = bc->check ? xstrdup(bc->check) : NULL;
	c->runs = bc->runs;
	c->jobs = bc->jobs;
	c->deterministic = bc->deterministic;
	c->initrd = bc->initrd ? xstrdup(bc->initrd) : cmd_default_initrd();
	c->flavour = bc->flavour && strcmp(bc->flavour, "default") ? xstrdup(bc->flavour) : NULL;
	c->phase = xstrdup("verify");
	c->shares = shares_dup(bc->shares.shares, bc->shares.n_shares);
	c->n_shares = bc->shares.n_shares;
	c->adds = shares_dup(bc->shares.adds, bc->shares.n_adds);
	c->n_adds = bc->shares.n_adds;
	ret = bisect_validate(c, &warn, err);
	if (ret)
		return ret;
	if (warn)
		fprintf(stderr, "netlab bisect: warning: %s\n", warn);
	free(warn);
	if (cmd_check_initrd(bc->initrd ? "--initrd" : "initramfs", c->initrd, err))
		return -EINVAL;
	c->worktree = bisect_worktree_path(c->ksrc);
	*run_dir = bc->out ? xstrdup(bc->out) : cmd_default_out("bisect");
	if (check_out(c, *run_dir, err))
		return -EINVAL;
	if (access(*run_dir, F_OK) == 0) {
		err_set(err, "'%s' exists already\nhint: pass a new --out DIR, or --resume %s", *run_dir,
			*run_dir);
		return -EINVAL;
	}
	/* One writer per --out; the lock lasts as long as the process. */
	ret = outlock_take(*run_dir, err);
	if (ret < 0)
		return ret;
	ret = bisect_lock(c, err);
	if (ret)
		return ret;
	absolute(run_dir);
	absolute(&c->initrd);
	if (c->selftest) {
		ret = selftest_scenario(c, *run_dir, err);
		if (ret) {
			rm_rf(*run_dir);	/* ours, made just now: bad input leaves nothing */
			return ret;
		}
	}
	link = xasprintf("%s/worktree", *run_dir);
	if (symlink(c->worktree, link)) {
		/* only a convenience */
	}
	free(link);
	return bisect_config_save(c, *run_dir, err);
}

/* The logged step of an endpoint, if it was decided already (--resume). */
static const struct bisect_step *logged_endpoint(const struct bisect_step *steps, size_t n,
						 const char *label)
{
	for (size_t i = n; i > 0; i--)
		if (steps[i - 1].label && !strcmp(steps[i - 1].label, label) &&
		    steps[i - 1].verdict != BV_INTERRUPTED)
			return &steps[i - 1];
	return NULL;
}

static void print_checks(const struct bisect_step *s)
{
	char *t = bisect_step_to_text(s);

	fputs(t, stderr);
	free(t);
}

/* Good must pass and bad must fail. Returns an exit code, 0 to go on. */
/* How to go on after an interrupt, the directory quoted for a shell. */
static void print_resume_hint(const char *run_dir)
{
	char *q = esc_shell_str(run_dir);

	fprintf(stderr, "netlab bisect: interrupted\nhint: netlab bisect --resume %s\n", q);
	free(q);
}

static int verify_endpoints(struct bisect_config *c, const char *run_dir)
{
	static const char *const labels[] = { "good", "bad" };
	struct bisect_step *steps = NULL, now;
	size_t n = 0;
	char *err = NULL;
	int ret = 0;

	bisect_log_load(run_dir, &steps, &n, NULL);
	for (int i = 0; i < 2 && !ret; i++) {
		const char *rev = i ? c->bad : c->good, *given = i ? c->bad_rev : c->good_rev;
		const struct bisect_step *s = logged_endpoint(steps, n, labels[i]);
		int want = i ? BV_BAD : BV_GOOD;

		memset(&now, 0, sizeof(now));
		if (!s) {
			fprintf(stderr, "netlab bisect: verifying --%s %s (%.12s)\n", labels[i], given, rev);
			if (bisect_worktree_prepare(c, rev, &err) ||
			    bisect_step_run(c, run_dir, labels[i], &bisect_stop, on_progress, NULL, &now,
					    &err)) {
				cmd_error("bisect", err);
				bisect_step_release(&now);
				ret = NL_EXIT_CANNOT_TEST;
				break;
			}
			step_page(run_dir, &now);
			s = &now;
		}
		if (s->verdict == want) {
			bisect_step_release(&now);
			continue;
		}
		print_checks(s);
		if (s->verdict == BV_INTERRUPTED) {
			print_resume_hint(run_dir);
			ret = NL_EXIT_INTERRUPTED;
		} else if (s->verdict == BV_SKIP) {
			fprintf(stderr, "netlab bisect: cannot test --%s '%s' (%.12s): %s\n"
				"hint: see %s; pick an endpoint that builds and boots\n", labels[i], given,
				rev, s->why ? s->why : "", s->dir);
			ret = NL_EXIT_CANNOT_TEST;
		} else {
			fprintf(stderr, "netlab bisect: --%s '%s' (%.12s) %s its checks: nothing to bisect\n"
				"hint: %s\n", labels[i], given, rev, i ? "passes" : "fails",
				i ? "pick a --bad commit where the regression shows"
				  : "pick an older --good commit, one where the scenario passes");
			ret = NL_EXIT_USAGE;
		}
		bisect_step_release(&now);
	}
	for (size_t i = 0; i < n; i++)
		bisect_step_release(&steps[i]);
	free(steps);
	free(err);
	return ret;
}

/* Start `git bisect` in the worktree, or replay the log into it (--resume). */
static int bisect_begin(const struct bisect_config *c, const char *run_dir)
{
	const char *log_argv[] = { "git", "bisect", "log", NULL };
	const char *start_argv[] = { "git", "bisect", "start", c->bad, c->good, NULL };
	struct bisect_step *steps = NULL;
	size_t n = 0;
	int ret;

	if (bisect_exec(log_argv, c->worktree, NULL, NULL, NULL, NULL) == 0)
		return 0;	/* a bisection in progress: git bisect run goes on from HEAD */
	ret = bisect_exec(start_argv, c->worktree, NULL, NULL, NULL, "-");
	if (ret)
		return ret;
	bisect_log_load(run_dir, &steps, &n, NULL);
	for (size_t i = 0; i < n; i++) {
		const char *what = steps[i].verdict == BV_GOOD ? "good"
				   : steps[i].verdict == BV_BAD ? "bad" : "skip";
		const char *argv[] = { "git", "bisect", what, steps[i].commit, NULL };

		if (!steps[i].label && steps[i].verdict != BV_INTERRUPTED)
			bisect_exec(argv, c->worktree, NULL, NULL, NULL, NULL);
		bisect_step_release(&steps[i]);
	}
	free(steps);
	return 0;
}

static int finish(struct bisect_config *c, const char *run_dir, const char *output)
{
	const char *reset_argv[] = { "git", "bisect", "reset", NULL };
	struct bisect_step *steps = NULL;
	struct bisect_result r;
	size_t n = 0;
	char *err = NULL, *text, *p;
	int ret;

	bisect_log_load(run_dir, &steps, &n, NULL);
	if (bisect_stop || (n && steps[n - 1].verdict == BV_INTERRUPTED)) {
		print_resume_hint(run_dir);
		ret = NL_EXIT_INTERRUPTED;
		goto out;
	}
	if (bisect_result_parse(c, output, steps, n, &r, &err)) {
		cmd_error("bisect", err);
		fprintf(stderr, "hint: see %s/git-bisect-run.log\n", run_dir);
		ret = NL_EXIT_CANNOT_TEST;
		goto out;
	}
	text = bisect_result_to_text(&r);
	fputs(text, stdout);
	p = xasprintf("%s/bisect.txt", run_dir);
	{
		FILE *f = fopen(p, "a");

		if (f) {
			fprintf(f, "\n%s", text);
			fclose(f);
		}
	}
	free(p);
	free(text);
	printf("log: %s/bisect.txt\n", run_dir);
	ret = r.first_bad ? NL_EXIT_OK : NL_EXIT_CANNOT_TEST;
	bisect_result_release(&r);
	bisect_exec(reset_argv, c->worktree, NULL, NULL, NULL, NULL);
	free(c->phase);
	c->phase = xstrdup("done");
	bisect_config_save(c, run_dir, NULL);
out:
	for (size_t i = 0; i < n; i++)
		bisect_step_release(&steps[i]);
	free(steps);
	free(err);
	return ret;
}

static int run_bisect(struct bisect_config *c, const char *run_dir)
{
	char *self = exe_dir(), *netlab = xasprintf("%s/netlab", self);
	char *log = xasprintf("%s/git-bisect-run.log", run_dir), *output = NULL;
	const char *argv[] = { "git", "bisect", "run", netlab, "bisect", "--step", "--state",
			       run_dir, NULL };
	int ret;

	/* The steps run in the worktree: the results database by its absolute path. */
	if (resultsdb_path(NULL)) {
		char *cwd = getcwd(NULL, 0), *db = NULL;

		if (resultsdb_path(NULL)[0] != '/' && cwd)
			db = xasprintf("%s/%s", cwd, resultsdb_path(NULL));
		setenv("NETLAB_DB", db ? db : resultsdb_path(NULL), 1);
		free(db);
		free(cwd);
	}
	ret = bisect_begin(c, run_dir);
	if (ret) {
		fprintf(stderr, "netlab bisect: git bisect start failed in '%s' (exit %d)\n", c->worktree, ret);
		ret = NL_EXIT_CANNOT_TEST;
		goto out;
	}
	fprintf(stderr, "netlab bisect: git bisect run in %s (log %s)\n", c->worktree, log);
	ret = bisect_exec(argv, c->worktree, NULL, &output, NULL, "-");
	if (output)
		file_write(log, output, strlen(output));
	ret = finish(c, run_dir, output);
out:
	free(output);
	free(log);
	free(netlab);
	free(self);
	return ret;
}

static int __cmd_bisect(const struct bisect_cmd *bc)
{
	struct bisect_config c = { 0 };
	char *run_dir = NULL, *err = NULL;
	int ret;

	if (bc->resume) {
		run_dir = xstrdup(bc->resume);
		absolute(&run_dir);
		ret = bisect_config_load(run_dir, &c, &err);
		if (!ret && (ret = outlock_take(run_dir, &err)) >= 0)
			ret = bisect_lock(&c, &err);
	} else {
		ret = start(bc, &c, &run_dir, &err);
	}
	if (ret) {
		cmd_error("bisect", err);
		ret = NL_EXIT_USAGE;
		goto out;
	}
	fprintf(stderr, "netlab bisect: run directory %s\n", run_dir);
	catch_signals();
	if (!strcmp(c.phase, "verify")) {
		ret = verify_endpoints(&c, run_dir);
		if (ret)
			goto out;
		free(c.phase);
		c.phase = xstrdup("bisect");
		bisect_config_save(&c, run_dir, NULL);
	}
	if (!strcmp(c.phase, "done")) {
		char *p = xasprintf("%s/bisect.txt", run_dir), *text = NULL;

		fprintf(stderr, "netlab bisect: this bisection is over; its log:\n");
		ret = file_read(p, &text, NULL) ? NL_EXIT_USAGE : NL_EXIT_OK;
		if (text)
			fputs(text, stdout);
		free(text);
		free(p);
		goto out;
	}
	ret = run_bisect(&c, run_dir);
out:
	bisect_config_release(&c);
	free(run_dir);
	free(err);
	return ret;
}

int cmd_bisect(int argc, char **argv)
{
	struct bisect_cmd bc;
	char *err = NULL;
	int ret;

	if (bisect_cmd_parse(argc, argv, &bc, &err)) {
		cmd_error("bisect", err);
		free(err);
		bisect_cmd_release(&bc);
		return NL_EXIT_USAGE;
	}
	if (bc.help) {
		fputs(bisect_usage, stdout);
		ret = NL_EXIT_OK;
	} else if (bc.step) {
		ret = step(&bc);
	} else {
		ret = __cmd_bisect(&bc);
	}
	bisect_cmd_release(&bc);
	return ret;
}
