// SPDX-License-Identifier: GPL-2.0
/*
 * netlab regress [SCENARIO|NAME|GLOB ...]: run the regression suite.
 */
#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "scenario/coverage.h"
#include "report/html.h"
#include "scenario/resultsdb.h"
#include "scenario/regress.h"
#include "vm/backend.h"

static const char regress_usage[] =
	"usage: netlab regress [options] [SCENARIO.scn | NAME | 'GLOB' | 'CASE' ...]\n"
	"  runs every scenario of --dir (default: tests/regress), or those named; a case of\n"
	"  a [matrix] is named NAME[AXIS=VALUE,...] (see --list), or matched by a GLOB\n"
	"  -j, --jobs N            guests at a time (default 2); with libvirt, per connection\n"
	"  -o, --out DIR           suite run directory (default runs/regress-DATE-PID)\n"
	"      --dir DIR           where NAME and GLOB are looked up\n"
	"      --repeat N          runs per scenario (default: the scenario's `repeat`)\n"
	"      --deterministic B   yes|no: QEMU -icount (default: the scenario's)\n"
	"      --record            record every run with QEMU record/replay (as 'record = yes');\n"
	"                          replay one with 'netlab gdb --replay RUN_DIR --until first-drop'\n"
	"      --update-baselines  write the measured medians to NAME.baseline.json, with\n"
	"                          their spread and the per-stage latencies\n"
	"      --ktap              KTAP on stdout too (the table goes to stderr); it is\n"
	"                          always written to SUITE/results.ktap\n"
	"      --list              list the scenarios (and matrix cases) that would run, and exit\n"
	"      --generators        the traffic generators and their [traffic] keys, and exit\n"
	"      --coverage          the NIC model x role x frame size x protocol cells the\n"
	"                          scenarios that would run cover, and exit (1 if one is not)\n"
	"      --kernel, --initrd, --modules, --accel, --qemu, --snaplen   as for netlab run\n"
	"      --flavour NAME      the kernel flavour (kconfigs/flavours/NAME, default 'default'):\n"
	"                          its kernel, build/kernel-NAME (make kernel FLAVOUR=NAME); a\n"
	"                          scenario that needs another ('flavour = NAME') is skipped\n"
	"      --share DIR[:GUEST][:rw], --add FILE[:GUEST]   as for netlab run, for every\n"
	"                          scenario (beside a scenario's own share = ...)\n"
	"      --backend NAME      qemu (default) or libvirt\n"
	"      --connect URI       a libvirt connection to run scenarios on (implies --backend\n"
	"                          libvirt); repeat it to spread the suite over several, each\n"
	"                          with -j guests at a time; results merge into one report\n"
	"      --shard I/N         run slice I of N of the cases (round robin in --list's order):\n"
	"                          a CI job matrix runs the N slices, --merge joins them\n"
	"      --merge DIR...      join the suite directories DIR... (slices of one suite) into\n"
	"                          --out: one summary.json, junit.xml, results.ktap, report.html\n"
	"      --db FILE           the results database the suite is recorded in (default\n"
	"                          $NETLAB_DB, else runs/netlab.db; 'none': not recorded)\n"
	"exit status: 0 all pass, 1 a regression, 2 bad input or a scenario that\n"
	"cannot be applied, 125 infrastructure failures only, 130 interrupted.\n";

enum { O_DIR = 256, O_REPEAT, O_DET, O_RECORD, O_UPDATE, O_KTAP, O_LIST, O_KERNEL, O_INITRD, O_MODULES, O_ACCEL,
       O_QEMU, O_BACKEND, O_CONNECT, O_COVERAGE, O_SNAPLEN, O_GENERATORS, O_SHARE, O_ADD, O_FLAVOUR, O_SHARD, O_MERGE, O_DB };

static const struct option longopts[] = {
	{ "jobs", required_argument, NULL, 'j' }, { "out", required_argument, NULL, 'o' },
	{ "dir", required_argument, NULL, O_DIR }, { "repeat", required_argument, NULL, O_REPEAT },
	{ "deterministic", required_argument, NULL, O_DET },
	{ "record", no_argument, NULL, O_RECORD },
	{ "update-baselines", no_argument, NULL, O_UPDATE }, { "ktap", no_argument, NULL, O_KTAP },
	{ "list", no_argument, NULL, O_LIST }, { "kernel", required_argument, NULL, O_KERNEL },
	{ "initrd", required_argument, NULL, O_INITRD }, { "modules", required_argument, NULL, O_MODULES }, { "accel", required_argument, NULL, O_ACCEL },
	{ "qemu", required_argument, NULL, O_QEMU }, { "help", no_argument, NULL, 'h' },
	{ "backend", required_argument, NULL, O_BACKEND },
	{ "connect", required_argument, NULL, O_CONNECT },
	{ "coverage", no_argument, NULL, O_COVERAGE },
	{ "snaplen", required_argument, NULL, O_SNAPLEN },
	{ "generators", no_argument, NULL, O_GENERATORS },
	{ "share", required_argument, NULL, O_SHARE },
	{ "add", required_argument, NULL, O_ADD },
	{ "flavour", required_argument, NULL, O_FLAVOUR },
	{ "shard", required_argument, NULL, O_SHARD },
	{ "merge", no_argument, NULL, O_MERGE },
	{ "db", required_argument, NULL, O_DB },
	{ NULL, 0, NULL, 0 },
};

struct regress_cmd {
	struct regress_opts o;
	const char *dir;
	const char *db;			/* --db */
	bool ktap, list, help, coverage, generators, merge;
	bool backend_given;		/* --backend: else an option may imply one */
	const char **filters;		/* parallel to o.scenarios */
	char **own;
	size_t n_own;
	const char **connect;
	struct cmd_shares shares;	/* --share, --add: every scenario gets them */
};

/* Keep `s` to free it at the end; returns it. */
static char *own(struct regress_cmd *rc, char *s)
{
	rc->own = xrealloc_array(rc->own, rc->n_own + 1, sizeof(*rc->own));
	rc->own[rc->n_own++] = s;
	return s;
}

static void add_scenario_filtered(struct regress_cmd *rc, char *path, const char *filter)
{
	size_t n = rc->o.n_scenarios;

	rc->o.scenarios = xrealloc_array(rc->o.scenarios, n + 1, sizeof(char *));
	rc->filters = xrealloc_array(rc->filters, n + 1, sizeof(char *));
	rc->o.scenarios[n] = path;
	rc->filters[n] = filter;
	rc->o.n_scenarios++;
	rc->o.case_filter = rc->filters;
	own(rc, path);
}

static void add_scenario(struct regress_cmd *rc, char *path)
{
	add_scenario_filtered(rc, path, NULL);
}

/* A case name or glob: every scenario of --dir, keeping the cases it selects. */
static int resolve_case(struct regress_cmd *rc, const char *arg, char **err)
{
	char *p = xasprintf("%s/*.scn", rc->dir);
	glob_t g;

	if (glob(p, 0, NULL, &g) != 0) {
		err_set(err, "no scenario matches '%s' (looked in '%s')\nhint: netlab regress --list",
			arg, rc->dir);
		free(p);
		return -EINVAL;
	}
	for (size_t i = 0; i < g.gl_pathc; i++)
		add_scenario_filtered(rc, xstrdup(g.gl_pathv[i]), arg);
	globfree(&g);
	free(p);
	return 0;
}

/* A file, a NAME in --dir, or a GLOB (in --dir, then as given). */
static int resolve(struct regress_cmd *rc, const char *arg, char **err)
{
	char *p;
	glob_t g;

	if (access(arg, F_OK) == 0 && strstr(arg, ".scn")) {
		add_scenario(rc, xstrdup(arg));
		return 0;
	}
	if (strpbrk(arg, "*?[")) {
		p = strstr(arg, ".scn") ? xasprintf("%s/%s", rc->dir, arg)
					: xasprintf("%s/%s.scn", rc->dir, arg);
		if (glob(p, 0, NULL, &g) != 0 && glob(arg, 0, NULL, &g) != 0) {
			free(p);
			return resolve_case(rc, arg, err);
		}
		for (size_t i = 0; i < g.gl_pathc; i++)
			add_scenario(rc, xstrdup(g.gl_pathv[i]));
		globfree(&g);
		free(p);
		return 0;
	}
	p = xasprintf("%s/%s.scn", rc->dir, arg);
	if (access(p, R_OK) == 0) {
		add_scenario(rc, p);
		return 0;
	}
	err_set(err, "no scenario '%s': neither a file nor '%s'\nhint: netlab regress --list", arg, p);
	free(p);
	return -EINVAL;
}

/*
 * --dir (or the default) is a directory; with no scenario named it must hold
 * one, or the suite would be nothing (or, globbing elsewhere, something else).
 */
static int check_dir(const char *dir, bool need_scn, char **err)
{
	struct stat st;
	char *p;
	glob_t g;
	int n;

	if (stat(dir, &st)) {
		err_set(err, "--dir '%s': %s\nhint: the directory of the scenario files (NAME.scn); the default is tests/regress", dir, strerror(errno));
		return -EINVAL;
	}
	if (!S_ISDIR(st.st_mode)) {
		err_set(err, "--dir '%s': not a directory\nhint: name scenario files as arguments, or give --dir the directory that holds them", dir);
		return -EINVAL;
	}
	if (!need_scn)
		return 0;
	p = xasprintf("%s/*.scn", dir);
	n = glob(p, 0, NULL, &g);
	free(p);
	if (n == 0)
		globfree(&g);
	if (n != 0) {
		err_set(err, "--dir '%s': no scenario file (*.scn) in it\nhint: give --dir the directory that holds NAME.scn, or name the scenarios", dir);
		return -EINVAL;
	}
	return 0;
}

/* No scenario named: every scenario of --dir (check_dir() made sure of one). */
static int resolve_all(struct regress_cmd *rc, char **err)
{
	char *p = xasprintf("%s/*.scn", rc->dir);
	glob_t g;

	if (glob(p, 0, NULL, &g) != 0) {
		err_set(err, "--dir '%s': no scenario file (*.scn) in it", rc->dir);
		free(p);
		return -EINVAL;
	}
	for (size_t i = 0; i < g.gl_pathc; i++)
		add_scenario(rc, xstrdup(g.gl_pathv[i]));
	globfree(&g);
	free(p);
	return 0;
}

/* --shard I/N: 1 <= I <= N <= 64. */
static int parse_shard(const char *opt, const char *arg, struct regress_opts *o, char **err)
{
	unsigned int i, n;
	char end;

	if (sscanf(arg, "%u/%u%c", &i, &n, &end) != 2 || n < 1 || n > 64 || i < 1 || i > n) {
		err_set(err, "%s: bad value '%s'\nhint: I/N, slice I of N, 1 <= I <= N <= 64 (e.g. --shard 2/4)",
			opt, arg);
		return -EINVAL;
	}
	o->shard_i = i;
	o->shard_n = n;
	return 0;
}

static int parse_one(void *ctx, int c, const char *opt, const char *arg, char **err)
{
	struct regress_cmd *rc = ctx;
	unsigned long v;
	bool b;

	switch (c) {
	case 'j':
		if (parse_uint(arg, 1, 64, &v))
			goto bad;
		rc->o.jobs = (unsigned int)v;
		return 0;
	case O_REPEAT:
		if (parse_uint(arg, 1, 100, &v))
			goto bad;
		rc->o.repeat = (unsigned int)v;
		return 0;
	case O_DET:
		if (scn_parse_bool(arg, &b))
			goto bad;
		rc->o.deterministic = b;
		return 0;
	case O_ACCEL:
		if (vm_accel_parse(arg, &rc->o.base.accel))
			goto bad;
		return 0;
	case 'o': rc->o.out = arg; return 0;
	case O_DIR: rc->dir = arg; return 0;
	case O_UPDATE: rc->o.update_baselines = true; return 0;
	case O_RECORD: rc->o.record = true; return 0;
	case O_KTAP: rc->ktap = true; return 0;
	case O_LIST: rc->list = true; return 0;
	case O_GENERATORS: rc->generators = true; return 0;
	case O_COVERAGE: rc->coverage = true; return 0;
	case O_KERNEL: rc->o.base.kernel = arg; return 0;
	case O_FLAVOUR: return cmd_parse_flavour(opt, arg, &rc->o.flavour, err);
	case O_INITRD: rc->o.base.initrd = arg; return 0;
	case O_MODULES: rc->o.base.modules = arg; return 0;
	case O_QEMU: rc->o.base.qemu = arg; return 0;
	case O_SNAPLEN: return cmd_parse_snaplen(arg, &rc->o.base.snaplen, err);
	case O_BACKEND:
		rc->backend_given = true;
		return vm_backend_lookup(opt, arg, &rc->o.base.backend, err);
	case O_CONNECT:
		for (size_t i = 0; i < rc->o.n_connect; i++) {
			if (!strcmp(rc->connect[i], arg)) {
				err_set(err, "--connect '%s' given twice\nhint: -j sets the guests "
					     "at a time per connection", arg);
				return -EINVAL;
			}
		}
		rc->connect = xrealloc_array(rc->connect, rc->o.n_connect + 1, sizeof(*rc->connect));
		rc->connect[rc->o.n_connect++] = arg;
		rc->o.connect = rc->connect;
		return 0;
	case O_SHARE: return cmd_parse_share(arg, false, &rc->shares, err);
	case O_ADD: return cmd_parse_share(arg, true, &rc->shares, err);
	case O_SHARD: return parse_shard(opt, arg, &rc->o, err);
	case O_MERGE: rc->merge = true; return 0;
	case O_DB: rc->db = arg; return 0;
	case 'h': rc->help = true; return 0;
	default:
		err_set(err, "bad option (see 'netlab regress --help')");
		return -EINVAL;
	}
bad:
	err_set(err, "%s: bad value '%s'\nhint: 'netlab regress --help' says what %s takes", opt, arg, opt);
	return -EINVAL;
}

static void fill_defaults(struct regress_cmd *rc)
{
	char *bin = exe_dir();

	if (!rc->dir)
		rc->dir = own(rc, xasprintf("%s/../tests/regress", bin));
	if (!rc->o.base.kernel)
		rc->o.base.kernel = own(rc, cmd_flavour_kernel(rc->o.flavour));
	if (!rc->o.base.initrd)
		rc->o.base.initrd = own(rc, cmd_default_initrd());
	if (!rc->o.out)
		rc->o.out = own(rc, cmd_default_out("regress"));
	free(bin);
}

static int parse(int argc, char **argv, struct regress_cmd *rc, char **err)
{
	const char *iopt;

	memset(rc, 0, sizeof(*rc));
	run_opts_init(&rc->o.base);
	rc->o.jobs = 2;
	rc->o.deterministic = -1;
	if (cmd_getopt(argc, argv, "j:o:h", longopts, "regress", parse_one, rc, err))
		return -EINVAL;
	/* --connect implies a backend that takes connections (libvirt). */
	if (rc->o.n_connect && vm_backend_need(&rc->o.base.backend, &rc->backend_given,
					       VM_BACKEND_CAN_CONNECT, "--connect", err))
		return -EINVAL;
	if (cmd_shares_finish(&rc->shares, &rc->o.base, err))
		return -EINVAL;
	iopt = rc->o.base.initrd ? "--initrd" : "initramfs";
	fill_defaults(rc);
	if (rc->help || rc->generators)
		return 0;
	if (rc->merge) {
		if (optind == argc) {
			err_set(err, "--merge: no suite directory named\nhint: netlab regress --merge -o OUT DIR...");
			return -EINVAL;
		}
		if (rc->o.shard_n || rc->list || rc->coverage || rc->o.update_baselines) {
			err_set(err, "--merge joins suite directories: it takes no --shard, --list, --coverage or --update-baselines");
			return -EINVAL;
		}
		return cmd_check_out(rc->o.out, NULL, err) ? -EINVAL : 0;
	}
	/* Before anything boots; --list and the tables boot nothing. */
	if (!rc->list && !rc->coverage &&
	    (cmd_check_out(rc->o.out, NULL, err) || cmd_check_initrd(iopt, rc->o.base.initrd, err) ||
	     cmd_check_flavour_kernel(rc->o.flavour, rc->o.base.kernel, err)))
		return -EINVAL;
	if (check_dir(rc->dir, optind == argc, err))
		return -EINVAL;
	if (optind == argc && resolve_all(rc, err))
		return -EINVAL;
	for (int i = optind; i < argc; i++)
		if (resolve(rc, argv[i], err))
			return -EINVAL;
	return 0;
}

static void release(struct regress_cmd *rc)
{
	for (size_t i = 0; i < rc->n_own; i++)
		free(rc->own[i]);
	free(rc->own);
	free(rc->o.scenarios);
	free(rc->filters);
	free(rc->connect);
	cmd_shares_release(&rc->shares);
}

/* --coverage: the table, the cells missing; 1 when a required one is. */
static int print_coverage(const struct regress *r)
{
	struct coverage cv;
	unsigned int missing, total = 0;

	memset(&cv, 0, sizeof(cv));
	for (size_t i = 0; i < r->n; i++) {
		const char *models[VM_MAX_NICS] = { NULL };

		for (unsigned int k = 0; k < r->s[i].cfg.n_nics && k < VM_MAX_NICS; k++)
			models[k] = r->s[i].cfg.nics[k].model->name;
		coverage_add(&cv, r->s[i].scn, models);
	}
	printf("%-11s %-4s %-5s", "MODEL", "ROLE", "PROTO");
	for (int c = 0; c < COV_CLASSES; c++)
		printf(" %7s", coverage_class_name(c));
	printf("\n");
	for (int m = 0; m < (int)coverage_models(); m++)
		for (int role = 0; role < COV_ROLES; role++)
			for (int p = 0; p < COV_PROTOS; p++) {
				printf("%-11s %-4s %-5s", coverage_model_name(m),
				       coverage_role_name(role), coverage_proto_name(p));
				for (int c = 0; c < COV_CLASSES; c++) {
					unsigned int n = cv.n[m][role][p][c];

					total += coverage_required(p, c);
					if (n)
						printf(" %7u", n);
					else
						printf(" %7s", coverage_required(p, c) ? "MISSING" : "-");
				}
				printf("\n");
			}
	missing = coverage_missing(&cv);
	printf("cells: the scenarios (matrix cases) that exercise each; '-' is not required\n");
	printf("axes (scenarios each, not required yet):");
	for (int a = 0; a < COV_AXES; a++)
		for (unsigned int v = 0; v < coverage_axis_values(a); v++)
			printf("%s%s%s%s %u", v ? ", " : a ? "; " : " ",
			       v ? "" : coverage_axis_name(a), v ? "" : " ", coverage_axis_value(a, v), cv.ax[a][v]);
	printf("\n");
	printf("topology x family (scenarios, IPv4/IPv6):");
	for (unsigned int v = 0; v < coverage_axis_values(COV_AX_TOPOLOGY); v++)
		printf("%s %s %u/%u", v ? "," : "", coverage_axis_value(COV_AX_TOPOLOGY, v),
		       cv.topo_family[v][0], cv.topo_family[v][1]);
	printf("\n");
	printf("coverage: %u/%u required cells covered by %zu scenarios\n", total - missing, total,
	       r->n);
	return missing ? NL_EXIT_FAIL : NL_EXIT_OK;
}

static volatile sig_atomic_t regress_stop;

static void on_signal(int sig)
{
	regress_stop = sig;
}

/* A run's page, written by its worker from the trace its metrics decoded. */
static int run_page(const char *dir, struct trace_analyses *done, char **err)
{
	return html_run_write_from(dir, NULL, done, err);
}

static void on_progress(void *ctx, const char *line)
{
	fprintf(stderr, "%s\n", line);
}

/*
 * One of the suite's files: 0, or its -errno once said. A full disk is said
 * as such ("disk full: PATH"), with *full set.
 */
static int suite_file(struct regress *r, const char *name, bool *full,
		      int (*write)(const struct regress *, const char *, char **))
{
	char *p = xasprintf("%s/%s", r->dir, name), *err = NULL;
	int ret = write(r, p, &err);

	if (ret == -ENOSPC) {
		fprintf(stderr, "netlab regress: disk full: %s\nhint: free some space there; the runs' own files are in %s\n", p, r->dir);
		*full = true;
	} else if (ret) {
		cmd_error("regress", err);
	}
	free(err);
	free(p);
	return ret;
}

static int report(struct regress_cmd *rc, struct regress *r)
{
	const char *db;
	char *err = NULL;
	bool full = false;
	int ret;

	regress_print_table(r, rc->ktap ? stderr : stdout);
	if (rc->ktap)
		regress_print_ktap(r, stdout);
	/* The room kept since the suite started: for these three, first. */
	regress_reserve_release(r);
	suite_file(r, "summary.json", &full, regress_write_json);
	suite_file(r, "junit.xml", &full, regress_write_junit);
	suite_file(r, "results.ktap", &full, regress_write_ktap);
	/* The pages people look at: each run's report.html, then the suite's. */
	if (full)
		fprintf(stderr, "netlab regress: no report.html: the disk is full\n");
	else if ((ret = html_suite_write(r->dir, NULL, HTML_RUNS_MISSING, &err)))
		cmd_error("regress", err);
	free(err);
	err = NULL;
	/* The results database: a suite not recorded is said, and changes nothing of its verdict. */
	db = resultsdb_path(rc->db);
	if (db && !full && resultsdb_record(db, r, &err))
		fprintf(stderr, "netlab regress: not recorded: %s\n", err);
	free(err);
	ret = regress_exit_code(r);
	/* What the suite found stands; that it could not all be written is 125. */
	return full && ret == NL_EXIT_OK ? NL_EXIT_CANNOT_TEST : ret;
}

int cmd_regress(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };	/* no SA_RESTART: waitpid wakes */
	struct regress_cmd rc;
	struct regress *r = NULL;
	char *err = NULL;
	int ret = NL_EXIT_USAGE;

	if (parse(argc, argv, &rc, &err)) {
		if (!rc.help)
			goto fail;
	}
	if (rc.help) {
		fputs(regress_usage, stdout);
		ret = NL_EXIT_OK;
		goto out;
	}
	if (rc.generators) {
		struct sbuf t;

		sbuf_init(&t);
		scn_generator_table(&t);
		fputs("| generator | options |\n|---------------|---------------------------------|\n",
		      stdout);
		fputs(t.s, stdout);
		sbuf_release(&t);
		ret = NL_EXIT_OK;
		goto out;
	}
	if (rc.merge) {
		if (regress_merge(&rc.o, (const char *const *)argv + optind, (size_t)(argc - optind),
				  &r, &err))
			goto fail;
		ret = report(&rc, r);
		goto out;
	}
	if (regress_load(&rc.o, &r, &err))
		goto fail;
	if (rc.list) {
		for (size_t i = 0; i < r->n; i++)
			printf("%-28s %s\n", r->s[i].scn->name, r->s[i].scn->description ?: "");
		ret = NL_EXIT_OK;
		goto out;
	}
	if (rc.coverage) {
		ret = print_coverage(r);
		goto out;
	}
	if (cmd_check_suite_out(rc.o.out, r, &err))
		goto fail;
	rc.o.progress = on_progress;
	rc.o.run_page = run_page;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	ret = regress_execute(r, &rc.o, &regress_stop, &err);
	if (ret) {
		/* A full disk is no fault of the input: cannot test (git bisect skips). */
		ret = ret == -ENOSPC ? NL_EXIT_CANNOT_TEST : NL_EXIT_USAGE;
		goto fail;
	}
	ret = report(&rc, r);
	goto out;
fail:
	cmd_error("regress", err);
out:
	free(err);
	regress_free(r);
	release(&rc);
	return ret;
}
