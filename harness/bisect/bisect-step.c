// SPDX-License-Identifier: GPL-2.0
/*
 * netlab bisect, one step: build the commit checked out in the worktree
 * (harness/kbuild.sh), run the scenario through the regress library, take
 * the median of each metric and decide good, bad or skip.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/jsonout.h"
#include "scenario/baseline.h"
#include "bisect/bisect.h"
#include "boot/initrd.h"
#include "lib/metrics.h"
#include "boot/flavour.h"
#include "scenario/regress.h"
#include "scenario/resultsdb.h"
#include "scenario/scenario.h"
#include "selftests/ksft.h"
#include "lib/util.h"

static double jnum(struct json_object *o, const char *k)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, k, &v) || !v)
		return NAN;
	return json_object_get_double(v);
}

/* ---- one step ------------------------------------------------------------------ */

struct step_ctx {
	const struct bisect_config *c;
	struct bisect_step *s;
	volatile sig_atomic_t *stop;
	void (*progress)(void *ctx, const char *line);
	void *ctx;
	struct scenario *scn;
	struct metrics *baseline;
	struct baseline_extra bx;	/* its "_spread": each check's noise band */
	struct metrics **ms;	/* each run that gave metrics */
	size_t n_ms;
	size_t n_tried, n_panic;
	double boot_sum, scn_sum;
	size_t n_timed;
	char *infra;		/* why a run gave no metrics (the first) */
	char *initrd;		/* --module: the step's initrd (with the module), else NULL */
	bool bad_scenario;
};

static void say(struct step_ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(struct step_ctx *x, const char *fmt, ...)
{
	struct sbuf b;
	va_list ap;

	if (!x->progress)
		return;
	sbuf_init(&b);
	sbuf_addf(&b, "[bisect] step %u %.12s: ", x->s->n, x->s->commit);
	va_start(ap, fmt);
	sbuf_vaddf(&b, fmt, ap);
	va_end(ap);
	x->progress(x->ctx, b.s);
	sbuf_release(&b);
}

static void forward(void *ctx, const char *line)
{
	struct step_ctx *x = ctx;

	say(x, "%s", line);
}

/*
 * --module: build the driver tree checked out in the worktree as a module
 * against the kernel kbuild.sh built (its own default tree, or $KSRC), in
 * that kernel's object directory. The module and its PCI driver are renamed
 * nl_DRIVER, so that they do not clash with the built-in DRIVER: the step
 * writes its own Kbuild (every top-level .c) into a copy of the tree and
 * renames `char X_driver_name[] = "DRIVER"`. Prints "DRIVER KO-PATH".
 * $1 worktree, $2 build copy, $3 the kernel's cache dir, $4 cache, $5 kbuild.sh.
 */
static const char module_build_sh[] =
	"set -eu\n"
	"wt=$1 m=$2 kdir=$3 cache=$4 kbuild=$5\n"
	"fail() { echo \"netlab kbuild: $1\" >&2; exit 1; }\n"
	"if [ -n \"${KSRC:-}\" ]; then src=$(cd \"$KSRC\" && pwd); "
	"else src=$cache/src/$(cat \"$kdir/source\"); fi\n"
	"obj=$cache/build/$(echo \"$src\" | sha256sum | cut -c1-12)/obj\n"
	"if ! cmp -s \"$obj/System.map\" \"$kdir/System.map\"; then\n"
	"	echo \"[module] $obj holds another build: rebuilding the kernel there\" >&2\n"
	"	\"$kbuild\" --force >/dev/null\n"
	"	cmp -s \"$obj/System.map\" \"$kdir/System.map\" ||"
	" fail \"the kernel object directory '$obj' does not match '$kdir'\"\n"
	"fi\n"
	"rm -rf \"$m\"; mkdir -p \"$m\"\n"
	"cp \"$wt\"/*.c \"$m/\" 2>/dev/null || fail \"no .c files at the top of the module tree\"\n"
	"cp \"$wt\"/*.h \"$m/\" 2>/dev/null || true\n"
	"drv=$(sed -n 's/^char [A-Za-z0-9_]*_driver_name\\[\\] = \"\\([A-Za-z0-9_]*\\)\";.*/\\1/p'"
	" \"$m\"/*.c | head -1)\n"
	"[ -n \"$drv\" ] || fail \"no 'char X_driver_name[] = \\\"NAME\\\";' in the module's .c files\"\n"
	/* The instrumentation series of DRIVER (kbuild.sh's), with paths cut to
	 * the module's flat tree and without its Makefile hunks (the module has
	 * its own Kbuild): its netlab_drv lines, as the built-in has. */
	"series=${DRIVER_PATCHES:-$(dirname \"$kbuild\")/../driver-patches}/$drv\n"
	"if [ \"${DRIVER_PATCHES:-}\" != none ] && ls \"$series\"/*.patch >/dev/null 2>&1; then\n"
	"	for p in \"$series\"/*.patch; do\n"
	"		lvl=$(($(sed -n 's|^+++ b/||p' \"$p\" | head -1 | tr -cd / | wc -c) + 1))\n"
	"		if ! awk '/^diff --git / { skip = $NF ~ /\\/Makefile$/ } !skip' \"$p\" |"
	" patch -d \"$m\" -p$lvl --forward --batch --no-backup-if-mismatch"
	" --reject-file=- >&2; then\n"
	"			echo \"[module] driver patch ${p##*/} does not apply: built without"
	" netlab_drv lines\" >&2\n"
	"			cp \"$wt\"/*.c \"$m/\"; cp \"$wt\"/*.h \"$m/\" 2>/dev/null || true\n"
	"			break\n"
	"		fi\n"
	"	done\n"
	"fi\n"
	"sed -i \"s/_driver_name\\[\\] = \\\"$drv\\\";/_driver_name[] = \\\"nl_$drv\\\";/\" \"$m\"/*.c\n"
	/* Its netlab_drv events as nl_DRIVER_*: the built-in driver's events keep
	 * their names, and tracefs refuses a second event of the same name. */
	"sed -i 's/^\\(DEFINE_EVENT\\(_PRINT\\)\\{0,1\\}(netlab_[a-z0-9_]*_line, \\)/\\1nl_/' \"$m\"/*.h\n"
	"sed -i \"s/trace_${drv}_##ev/trace_nl_${drv}_##ev/g\" \"$m\"/*.c\n"
	"objs=$(cd \"$m\" && ls *.c | sed 's/\\.c$/.o/' | tr '\\n' ' ')\n"
	"printf 'obj-m := nl_%s.o\\nnl_%s-y := %s\\nccflags-y := -I$(src)\\n' \"$drv\" \"$drv\" \"$objs\""
	" >\"$m/Kbuild\"\n"
	"cc=gcc; command -v ccache >/dev/null && cc='ccache gcc'\n"
	"[ -f \"$obj/scripts/module.lds\" ] ||"
	" make -C \"$obj\" ARCH=x86_64 CC=\"$cc\" modules_prepare >&2\n"
	"echo \"[module] building nl_$drv.ko against $obj\" >&2\n"
	"make -C \"$obj\" M=\"$m\" ARCH=x86_64 CC=\"$cc\" -j\"${JOBS:-$(nproc)}\" modules >&2 ||"
	" fail \"the module does not build\"\n"
	"[ -f \"$m/nl_$drv.ko\" ] || fail \"no nl_$drv.ko after the build\"\n"
	"echo \"$drv $m/nl_$drv.ko\"\n";

/*
 * The guest's /init for a module step: unbind DRIVER's devices, load the
 * module (which binds to them under the name nl_DRIVER), then start the
 * agent, which finds the NICs by MAC as always. %s: the driver name.
 */
static const char module_init_fmt[] =
	"#!/bin/sh\n"
	"# netlab bisect --module: the driver under test takes over %1$s's devices\n"
	"/bin/busybox mount -t sysfs sysfs /sys\n"
	"for d in /sys/bus/pci/drivers/%1$s/0000:*; do\n"
	"	[ -e \"$d\" ] && echo \"${d##*/}\" >/sys/bus/pci/drivers/%1$s/unbind\n"
	"done\n"
	"/bin/busybox insmod /netlab/module/nl_%1$s.ko ||"
	" echo \"netlab-bisect: insmod nl_%1$s.ko failed\"\n"
	"/bin/busybox umount /sys\n"
	"exec /netlab/module/agent\n";

/* STEP/initrd.img: the base initramfs, then a cpio with the module, an
 * /init that loads it and the agent it starts. */
static int module_initrd(struct step_ctx *x, const char *drv, const char *ko, char **err)
{
	char *bin = exe_dir(), *agent_path = xasprintf("%s/guest/netlab-agent", bin);
	char *out = xasprintf("%s/initrd.img", x->s->dir), *base = NULL, *kmod = NULL, *agent = NULL;
	char *init = xasprintf(module_init_fmt, drv), *name = xasprintf("netlab/module/nl_%s.ko", drv);
	size_t n_base = 0, n_ko = 0, n_agent = 0;
	struct cpio c;
	struct sbuf b;
	int ret;

	ret = file_read(x->c->initrd, &base, &n_base);
	if (!ret)
		ret = file_read(ko, &kmod, &n_ko);
	if (!ret)
		ret = file_read(agent_path, &agent, &n_agent);
	if (ret) {
		err_set(err, "cannot read the initramfs, module or agent: %s", strerror(-ret));
		goto out;
	}
	sbuf_init(&b);
	sbuf_add(&b, base, n_base);
	while (b.len % 4)
		sbuf_add(&b, "", 1);	/* the kernel skips zeros between archives */
	cpio_init(&c);
	cpio_add_dir(&c, "netlab", 0755);
	cpio_add_dir(&c, "netlab/module", 0755);
	cpio_add_file(&c, name, 0644, kmod, n_ko);
	cpio_add_file(&c, "netlab/module/agent", 0755, agent, n_agent);
	cpio_add_file(&c, "init", 0755, init, strlen(init));	/* replaces the agent as /init */
	cpio_finish(&c);
	sbuf_add(&b, c.buf.s, c.buf.len);
	cpio_release(&c);
	ret = file_write(out, b.s, b.len);
	if (ret)
		err_set(err, "cannot write '%s': %s", out, strerror(-ret));
	sbuf_release(&b);
	if (!ret) {
		free(x->initrd);
		x->initrd = out;
		out = NULL;
	}
out:
	free(bin);
	free(agent_path);
	free(out);
	free(base);
	free(kmod);
	free(agent);
	free(init);
	free(name);
	return ret;
}

/* --module: the module against the kernel in s->kernel_dir, and its initrd. */
static int build_module(struct step_ctx *x, const char *kbuild, const char *log)
{
	struct bisect_step *s = x->s;
	char *cache = cache_dir(), *parent = xstrdup(x->c->worktree), *dir, *err = NULL;
	char *out = NULL, *ko;
	int ret;

	if (strrchr(parent, '/'))
		*strrchr(parent, '/') = '\0';
	dir = xasprintf("%s/module-build", parent);	/* fixed per tree, beside the worktree */
	{
		const char *argv[] = { "sh", "-c", module_build_sh, "sh", x->c->worktree, dir,
				       s->kernel_dir, cache, kbuild, NULL };

		ret = bisect_exec(argv, NULL, NULL, &out, NULL, log);
	}
	if (ret == 0 && (!out || !(ko = strchr(out, ' '))))
		ret = 1;
	if (ret == 0) {
		*ko++ = '\0';
		ko[strcspn(ko, "\n")] = '\0';
		ret = module_initrd(x, out, ko, &err);
		if (ret) {
			FILE *f = fopen(log, "a");

			if (f) {
				fprintf(f, "netlab kbuild: %s\n", err);
				fclose(f);
			}
		}
	}
	free(err);
	free(out);
	free(dir);
	free(parent);
	free(cache);
	return ret;
}

static int build(struct step_ctx *x)
{
	struct bisect_step *s = x->s;
	char *bin = exe_dir(), *kbuild = xasprintf("%s/../harness/kbuild.sh", bin);
	/* --flavour: its fragments over kconfigs/ (the default flavour is kbuild.sh's). */
	char *kflav = xasprintf("%s/../harness/kbuild-flavour.sh", bin);
	char *ksrc = xasprintf("KSRC=%s", x->c->worktree), *log = xasprintf("%s/build.log", s->dir);
	/*
	 * kbuild.sh hard-links the worktree into its patched copy, which
	 * changes every file's ctime: git would then hash the whole tree
	 * (8-16 s) to name the source. The files' mtimes and sizes decide.
	 */
	const char *argv[] = { kbuild, NULL, NULL }, *env[] = { ksrc, "GIT_CONFIG_COUNT=1",
		"GIT_CONFIG_KEY_0=core.trustctime", "GIT_CONFIG_VALUE_0=false", NULL };
	char *out = NULL, *last;
	double t0 = now_s();
	int ret;

	if (!flavour_is_default(x->c->flavour)) {
		argv[0] = kflav;
		argv[1] = x->c->flavour;
	}
	say(x, "building%s (log: %s)", x->c->module ? " the module" : "", log);
	ret = bisect_exec(argv, NULL, x->c->module ? NULL : env, &out, NULL, log);
	if (ret == 0 && out && (last = strrchr(out, '\n'))) {
		*last = '\0';
		last = strrchr(out, '\n');
		s->kernel_dir = xstrdup(last ? last + 1 : out);
		if (x->c->module && build_module(x, kbuild, log)) {
			free(s->kernel_dir);
			s->kernel_dir = NULL;
			ret = 1;
		}
	}
	s->build_s = now_s() - t0;
	if (!s->kernel_dir && x->stop && *x->stop) {
		s->verdict = BV_INTERRUPTED;
		s->why = xstrdup("interrupted while building");
	} else if (!s->kernel_dir) {
		char *what = file_last_line(log, "netlab kbuild:");

		s->verdict = BV_SKIP;
		s->why = xasprintf("the %s does not build (exit %d): %s; log %s",
				   x->c->module ? "module" : "kernel", ret,
				   what ? what + strlen("netlab kbuild: ") : "see the log", log);
		free(what);
	}
	say(x, "build %s in %.1f s", s->kernel_dir ? "done" : "failed", s->build_s);
	free(out);
	free(bin);
	free(kbuild);
	free(kflav);
	free(ksrc);
	free(log);
	return s->kernel_dir ? 0 : -1;
}

/*
 * --selftest: the step's tree's selftests of TARGET into RUN_DIR/ksft
 * (harness/ksft-build.sh; its install/ is what selftest.scn shares), or the
 * verdict skip when they do not build, or when TEST is not among them.
 */
static int build_selftest(struct step_ctx *x, const char *run_dir)
{
	struct bisect_step *s = x->s;
	const char *colon = strchr(x->c->selftest, ':');
	char *script = ksft_build_script();
	char *target = xasprintf("%.*s", (int)(colon - x->c->selftest), x->c->selftest);
	char *out_dir = xasprintf("%s/ksft", run_dir), *log = xasprintf("%s/ksft-build.log", s->dir);
	char *inst = xasprintf("%s/install", out_dir), *why = NULL;
	const char *argv[] = { script, x->c->worktree, out_dir, target, NULL };
	double t0 = now_s();
	int ret;

	say(x, "building the selftests of %s (log: %s)", target, log);
	ret = bisect_exec(argv, NULL, NULL, NULL, log, log);
	s->build_s += now_s() - t0;
	if (ret && x->stop && *x->stop) {
		s->verdict = BV_INTERRUPTED;
		s->why = xstrdup("interrupted while building the selftests");
	} else if (ret) {
		char *what = file_last_line(log, "ksft-build.sh:");

		s->verdict = BV_SKIP;
		s->why = xasprintf("the selftests of %s do not build (exit %d): %s; log %s", target,
				   ret, what ? what : "see the log", log);
		free(what);
	} else if (ksft_listed(inst, x->c->selftest, &why)) {
		/* kselftest-list.txt names the tests that built, COLLECTION:TEST */
		s->verdict = BV_SKIP;
		s->why = xasprintf("selftest %s did not build at this commit (not in "
				   "%s/kselftest-list.txt); log %s", x->c->selftest, inst, log);
		ret = -1;
	}
	say(x, "selftests %s in %.1f s", ret ? "not built" : "built", now_s() - t0);
	free(why);
	free(inst);
	free(log);
	free(out_dir);
	free(target);
	free(script);
	return ret ? -1 : 0;
}

static void read_boot(struct step_ctx *x, const struct regress_run *run)
{
	char *p = xasprintf("%s/result.json", run->dir);
	struct json_object *j = json_file_get(p);
	double boot = j ? jnum(j, "boot_s") : NAN;

	if (isfinite(boot) && run->wall_s > 0) {
		x->boot_sum += boot;
		x->scn_sum += run->wall_s - boot;
		x->n_timed++;
	}
	json_object_put(j);
	free(p);
}

static struct metrics *read_metrics(const char *dir)
{
	char *p = xasprintf("%s/metrics.json", dir);
	struct json_object *j = json_file_get(p);
	struct metrics *m = NULL;

	if (j) {
		m = metrics_new();
		metrics_add_json(m, NULL, j);
		json_object_put(j);
	}
	free(p);
	return m;
}

/* One batch of `runs` runs of the scenario, in s->dir/NAME. */
static int run_batch(struct step_ctx *x, const char *name, unsigned int runs, char **err)
{
	struct bisect_step *s = x->s;
	char *kernel = xasprintf("%s/bzImage", s->kernel_dir), *out = xasprintf("%s/%s", s->dir, name);
	char *scenarios[] = { x->c->scenario };
	struct regress_opts o = {
		.scenarios = scenarios, .n_scenarios = 1, .out = out, .jobs = x->c->jobs,
		.repeat = runs, .deterministic = x->c->deterministic, .progress = forward, .ctx = x,
		.flavour = x->c->flavour,
	};
	struct regress *r = NULL;
	int ret;

	run_opts_init(&o.base);
	o.base.kernel = kernel;
	o.base.initrd = x->initrd ? x->initrd : x->c->initrd;
	/* --share/--add, after the scenario's own shares (regress merges them) */
	o.base.shares = x->c->shares;
	o.base.n_shares = x->c->n_shares;
	o.base.adds = x->c->adds;
	o.base.n_adds = x->c->n_adds;
	ret = regress_load(&o, &r, err);
	if (!ret)
		ret = regress_execute(r, &o, x->stop, err);
	if (ret)
		goto out;
	/*
	 * Each step's suite in the results database, as netlab regress's: the
	 * one netlab bisect named in NETLAB_DB (an absolute path: a step runs
	 * in the kernel's worktree, which must not get a file of ours).
	 */
	if (getenv("NETLAB_DB") && resultsdb_path(NULL)) {
		char *why = NULL;

		if (resultsdb_record(resultsdb_path(NULL), r, &why))
			fprintf(stderr, "netlab bisect: step not recorded: %s\n", why);
		free(why);
	}
	for (unsigned int i = 0; i < r->s[0].n_runs; i++) {
		const struct regress_run *run = &r->s[0].runs[i];
		struct metrics *m = run->verdict == RV_OK ? read_metrics(run->dir) : NULL;

		s->run_dirs = xrealloc_array(s->run_dirs, s->n_run_dirs + 1, sizeof(char *));
		s->run_dirs[s->n_run_dirs++] = xstrdup(run->dir);
		x->n_tried++;
		read_boot(x, run);
		if (m) {
			x->ms = xrealloc_array(x->ms, x->n_ms + 1, sizeof(*x->ms));
			x->ms[x->n_ms++] = m;
			continue;
		}
		x->n_panic += run->verdict == RV_PANIC;
		if (!x->infra)
			x->infra = xasprintf("run %u: %s: %s", i + 1, run_verdict_name(run->verdict),
					     run->reason ? run->reason : "no metrics");
	}
	/* Skipped: the scenario needs another kernel flavour than --flavour's. */
	x->bad_scenario |= r->s[0].outcome == RO_BAD || r->s[0].outcome == RO_SKIP;
	if ((r->s[0].outcome == RO_BAD || r->s[0].outcome == RO_SKIP) && r->s[0].reason) {
		free(x->infra);
		x->infra = xstrdup(r->s[0].reason);
	}
	if (r->interrupted)
		ret = -EINTR;
out:
	regress_free(r);
	free(kernel);
	free(out);
	return ret;
}

/* The noise band of check sc: widened by its baseline's recorded spread. */
static double check_band(const struct step_ctx *x, const struct scn_check *sc, enum check_op op,
			 double base)
{
	struct baseline_spread sp;

	/* Equality has no band (bisect_call_check()): nothing to widen. */
	if (op == CHECK_EQ || op == CHECK_NE || !baseline_spread(&x->bx, x->scn, sc->expr, &sp))
		return BISECT_BAND;
	return bisect_band(&sp, base);
}

/* Call every (selected) check on the runs so far; the step's call. */
static enum bisect_call judge(struct step_ctx *x, char **why)
{
	struct bisect_step *s = x->s;
	struct metrics *median = metrics_median(x->ms, x->n_ms);
	bool *pass = xzalloc((x->n_ms + 1) * sizeof(bool));
	enum bisect_call *calls = xzalloc((x->scn->n_checks + 1) * sizeof(*calls)), call;
	size_t n = 0;

	bisect_step_clear_checks(s);
	s->checks = xzalloc((x->scn->n_checks + 1) * sizeof(*s->checks));
	for (size_t c = 0; c < x->scn->n_checks; c++) {
		const struct scn_check *sc = &x->scn->checks[c];
		struct bisect_check_sample *cs;
		double base = baseline_value(x->baseline, x->scn, sc->expr);
		struct check_result res = { 0 };

		if (x->c->check && strcmp(x->c->check, sc->name))
			continue;
		cs = &s->checks[s->n_checks++];
		cs->name = xstrdup(sc->name);
		cs->text = xstrdup(check_text(sc->expr));
		cs->subject = xstrdup(check_subject(sc->expr));
		cs->values = xzalloc((x->n_ms + 1) * sizeof(double));
		check_eval(sc->expr, median, base, &res);
		cs->median = res.value;
		cs->bound = res.bound;
		cs->op = res.op;
		if (res.status != CHECK_PASS && res.status != CHECK_FAIL) {
			cs->call = BC_AMBIGUOUS;
			if (!*why)
				*why = xasprintf("check '%s': %s", sc->name,
						 res.err ? res.err : check_status_name(res.status));
			check_result_release(&res);
			calls[n++] = BC_AMBIGUOUS;
			continue;
		}
		for (size_t i = 0; i < x->n_ms; i++) {
			struct check_result rr = { 0 };

			check_eval(sc->expr, x->ms[i], base, &rr);
			pass[i] = rr.status == CHECK_PASS;
			cs->values[cs->n_values++] = metrics_value(x->ms[i], cs->subject, NAN);
			check_result_release(&rr);
		}
		cs->band = check_band(x, sc, res.op, base);
		cs->call = bisect_call_check(res.status == CHECK_PASS, pass, x->n_ms, res.value,
					     res.op, res.bound, cs->band);
		calls[n++] = cs->call;
		check_result_release(&res);
	}
	call = bisect_call_step(calls, n);
	metrics_free(median);
	free(pass);
	free(calls);
	return call;
}

static unsigned int next_step_number(const char *run_dir)
{
	char *p = xasprintf("%s/bisect.log.jsonl", run_dir), *text = NULL;
	unsigned int n = 1;

	if (file_read(p, &text, NULL) == 0)
		for (const char *q = text; *q; q++)
			n += *q == '\n';
	free(text);
	free(p);
	return n;
}

static void step_log(const char *run_dir, const struct bisect_step *s)
{
	char *json = bisect_step_to_json(s), *text = bisect_step_to_text(s);
	char *p = xasprintf("%s/bisect.log.jsonl", run_dir);
	FILE *f = fopen(p, "a");

	if (f) {
		fprintf(f, "%s\n", json);
		fclose(f);
	}
	free(p);
	p = xasprintf("%s/bisect.txt", run_dir);
	f = fopen(p, "a");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	free(p);
	free(json);
	free(text);
}

/* Run the scenario (more runs when too close to call) and set the verdict. */
static void test_kernel(struct step_ctx *x)
{
	struct bisect_step *s = x->s;
	unsigned int need = (x->c->runs + 1) / 2;
	char *err = NULL, *why = NULL, *bpath;
	enum bisect_call call = BC_AMBIGUOUS;

	if (scn_parse(x->c->scenario, &x->scn, &err)) {
		s->verdict = BV_SKIP;
		s->why = err;
		return;
	}
	bpath = baseline_path(x->scn->path);
	baseline_load(bpath, &x->baseline, NULL);
	baseline_load_extra(bpath, &x->bx, NULL);
	free(bpath);
	for (unsigned int batch = 1; batch <= 2; batch++) {
		char name[16];
		int ret;

		snprintf(name, sizeof(name), "runs-%u", batch);
		ret = run_batch(x, name, x->c->runs, &err);
		if (ret == -EINTR || (x->stop && *x->stop)) {
			s->verdict = BV_INTERRUPTED;
			s->why = xstrdup("interrupted");
			return;
		}
		if (ret) {
			s->verdict = BV_SKIP;
			s->why = xasprintf("cannot run the scenario: %s", err ? err : strerror(-ret));
			free(err);
			return;
		}
		if (x->n_ms < need * batch) {
			bool panic = x->n_panic * 2 >= x->n_tried;

			s->verdict = panic ? BV_BAD : BV_SKIP;
			s->why = xasprintf("%s: %zu of %zu runs gave metrics: %s",
					   panic ? "the kernel panicked" : "cannot test", x->n_ms,
					   x->n_tried, x->infra ? x->infra : "?");
			return;
		}
		free(why);
		why = NULL;
		call = judge(x, &why);
		if (call != BC_AMBIGUOUS || why)
			break;
		say(x, "too close to call after %zu runs: %u more", x->n_ms, x->c->runs);
	}
	s->n_runs = (unsigned int)x->n_ms;
	if (call == BC_PASS) {
		s->verdict = BV_GOOD;
		s->why = xstrdup("every check passes");
	} else if (call == BC_FAIL) {
		s->verdict = BV_BAD;
		s->why = xstrdup("a check fails");
	} else {
		s->verdict = BV_SKIP;
		s->why = why ? why : xasprintf("within the noise band after %zu runs", x->n_ms);
		why = NULL;
	}
	free(why);
}

int bisect_step_run(const struct bisect_config *c, const char *run_dir, const char *label,
		    volatile sig_atomic_t *stop, void (*progress)(void *ctx, const char *line),
		    void *ctx, struct bisect_step *s, char **err)
{
	struct step_ctx x = { .c = c, .s = s, .stop = stop, .progress = progress, .ctx = ctx };
	int ret;

	memset(s, 0, sizeof(*s));
	s->label = label ? xstrdup(label) : NULL;
	s->verdict = BV_SKIP;
	if (bisect_git(c->worktree, &s->commit, "rev-parse", "HEAD", NULL) || !s->commit) {
		err_set(err, "'%s' is not a git worktree", c->worktree);
		return -EINVAL;
	}
	bisect_git(c->worktree, &s->subject, "log", "-1", "--format=%s", "HEAD", NULL);
	s->n = next_step_number(run_dir);
	s->dir = xasprintf("%s/steps/%02u-%.12s", run_dir, s->n, s->commit);
	ret = mkdir_p(s->dir, 0755);
	if (ret) {
		err_set(err, "cannot create '%s': %s", s->dir, strerror(-ret));
		return ret;
	}
	say(&x, "%s%s%s", s->subject ? s->subject : "", label ? ", the endpoint --" : "",
	    label ? label : "");
	if (build(&x) == 0 && (!c->selftest || build_selftest(&x, run_dir) == 0))
		test_kernel(&x);
	s->n_runs = (unsigned int)x.n_ms;
	if (x.n_timed) {
		s->boot_s = x.boot_sum / (double)x.n_timed;
		s->scenario_s = x.scn_sum / (double)x.n_timed;
	}
	say(&x, "%s: %s", bisect_verdict_name(s->verdict), s->why ? s->why : "");
	step_log(run_dir, s);
	for (size_t i = 0; i < x.n_ms; i++)
		metrics_free(x.ms[i]);
	free(x.ms);
	free(x.infra);
	free(x.initrd);
	metrics_free(x.baseline);
	baseline_extra_release(&x.bx);
	scn_free(x.scn);
	return 0;
}

/* "%g" without exponent noise for counters: 125, 0.25, 1.2e+09. */
static void add_num(struct sbuf *b, double v)
{
	if (isnan(v))
		sbuf_adds(b, "-");
	else if (v == floor(v) && fabs(v) < 1e15)
		sbuf_addf(b, "%.0f", v);
	else
		sbuf_addf(b, "%.4g", v);
}

/* "udp.lost = 125 [120..130] (3 runs) vs == 0" */
void bisect_sample_text(struct sbuf *b, const struct bisect_check_sample *cs)
{
	double lo = INFINITY, hi = -INFINITY;

	sbuf_addf(b, "%s = ", cs->subject ? cs->subject : "?");
	add_num(b, cs->median);
	for (size_t k = 0; k < cs->n_values; k++) {
		lo = fmin(lo, cs->values[k]);
		hi = fmax(hi, cs->values[k]);
	}
	if (cs->n_values > 1) {
		sbuf_adds(b, " [");
		add_num(b, lo);
		sbuf_adds(b, "..");
		add_num(b, hi);
		sbuf_addf(b, "] (%zu runs)", cs->n_values);
	}
	sbuf_addf(b, " vs %s ", check_op_str(cs->op));
	add_num(b, cs->bound);
	if (cs->band > BISECT_BAND)
		sbuf_addf(b, " (noise band %.1f%%, from the baseline's spread)", cs->band * 100);
}

char *bisect_step_to_text(const struct bisect_step *s)
{
	struct sbuf b;

	sbuf_init(&b);
	sbuf_addf(&b, "step %-3u %.12s  %-5s  build %.1f s  boot %.1f s  scenario %.1f s  ", s->n,
		  s->commit ? s->commit : "?", bisect_verdict_name(s->verdict), s->build_s,
		  s->boot_s, s->scenario_s);
	if (s->label)
		sbuf_addf(&b, "(--%s) ", s->label);
	sbuf_addf(&b, "%s\n", s->subject ? s->subject : "");
	for (size_t i = 0; i < s->n_checks; i++) {
		sbuf_addf(&b, "    %s: ", s->checks[i].name);
		bisect_sample_text(&b, &s->checks[i]);
		sbuf_addf(&b, ": %s\n", bisect_call_name(s->checks[i].call));
	}
	if (s->why)
		sbuf_addf(&b, "    why: %s\n", s->why);
	if (s->dir)
		sbuf_addf(&b, "    dir: %s\n", s->dir);
	return sbuf_detach(&b);
}

static void add_metrics(struct sbuf *b, const char *what, const struct bisect_step *s)
{
	if (!s) {
		sbuf_addf(b, "%s: not measured in this bisection\n", what);
		return;
	}
	for (size_t i = 0; i < s->n_checks; i++) {
		sbuf_addf(b, "%s: %s: ", what, s->checks[i].name);
		bisect_sample_text(b, &s->checks[i]);
		sbuf_addf(b, ": %s (step %u, %.12s)\n", bisect_call_name(s->checks[i].call), s->n,
			  s->commit);
	}
}

char *bisect_result_to_text(const struct bisect_result *r)
{
	struct sbuf b;

	sbuf_init(&b);
	if (!r->first_bad) {
		sbuf_adds(&b, "no single first bad commit: only skipped commits are left; it is one of:\n");
		for (size_t i = 0; i < r->n_candidates; i++)
			sbuf_addf(&b, "  %s\n", r->candidates[i]);
		return sbuf_detach(&b);
	}
	sbuf_addf(&b, "first bad commit: %s %s\n", r->first_bad, r->subject ? r->subject : "");
	add_metrics(&b, "before", r->before);
	add_metrics(&b, "after ", r->after);
	if (r->repro)
		sbuf_addf(&b, "reproduce: %s\n", r->repro);
	return sbuf_detach(&b);
}
