// SPDX-License-Identifier: GPL-2.0
/*
 * One run, from options to result.json.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "boot/acpi.h"
#include "boot/initrd.h"
#include "boot/kmod.h"
#include "lib/jsonout.h"
#include "lib/outlock.h"
#include "lib/proc.h"
#include "boot/kernel.h"
#include "run/run.h"
#include "vm/topofile.h"
#include "run/rundir.h"
#include "vm/backend.h"
#include "vm/share.h"
#include "vm/vm.h"
#include "netlab-proto.h"

extern char **environ;

/* Host-side grace after the kernel printed a panic but QEMU still runs. */
#define PANIC_GRACE_S 5.0

/* With ACPI tables, the guest's IRQ lines are kept (files/ACPI_IRQ_FILE). */
#define ACPI_IRQ_FILE "acpi-interrupts"

void run_opts_init(struct run_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->backend = vm_backend_default();
	o->qemu = "qemu-system-x86_64";
	o->topology = "loop";
	o->accel = VM_ACCEL_AUTO;
	o->timeout_s = 300;
	o->mem_mb = 256;
	o->smp = 1;
	o->snaplen = RUN_SNAPLEN;
	o->icount_shift = -1;
}

/*
 * Follows a file QEMU writes and hands new bytes to the output callback.
 * With `keep`, it also keeps the text for the verdict (console, status),
 * bounded: a guest that floods its console must not take the host's
 * memory. Past TAIL_HEAD + 2 * TAIL_KEEP bytes it keeps the first
 * TAIL_HEAD (the boot), a marker, and the last TAIL_KEEP (an oops, the
 * last line). The file on disk keeps everything.
 */
#define TAIL_HEAD (256u << 10)
#define TAIL_KEEP (4u << 20)
#define TAIL_GAP "\n[netlab: part of this log is not kept in memory; the file has all of it]\n"

struct tail {
	const char *name;
	enum run_stream stream;
	bool deliver;
	bool keep;
	int fd;
	size_t fixed;		/* once cut: the head and the marker, kept */
	size_t fresh;		/* bytes the last tail_pump() added at the end */
	struct sbuf text;
};

static void tail_open(struct tail *t, const char *rundir)
{
	char *p = xasprintf("%s/%s", rundir, t->name);

	t->fd = open(p, O_RDONLY | O_CLOEXEC);
	free(p);
}

static void tail_cut(struct tail *t)
{
	struct sbuf *b = &t->text;
	size_t len = b->len;

	if (len <= TAIL_HEAD + 2 * TAIL_KEEP)
		return;
	/* The marker lands well before the last TAIL_KEEP bytes it keeps. */
	if (!t->fixed) {
		memcpy(b->s + TAIL_HEAD, TAIL_GAP, sizeof(TAIL_GAP) - 1);
		t->fixed = TAIL_HEAD + sizeof(TAIL_GAP) - 1;
	}
	memmove(b->s + t->fixed, b->s + len - TAIL_KEEP, TAIL_KEEP);
	b->len = t->fixed + TAIL_KEEP;
	b->s[b->len] = '\0';
}

static void tail_pump(struct tail *t, const struct run_opts *o)
{
	char buf[65536];
	ssize_t n;

	t->fresh = 0;
	if (t->fd < 0)
		return;
	/* Bounded: a guest writing faster than this reads must not keep the
	 * run loop (its deadline, signals) from its next turn. */
	for (int i = 0; i < 64 && (n = read(t->fd, buf, sizeof(buf))) > 0; i++) {
		if (t->keep) {
			sbuf_add(&t->text, buf, (size_t)n);
			t->fresh += (size_t)n;
		}
		if (t->deliver && o->on_output)
			o->on_output(o->ctx, t->stream, buf, (size_t)n);
	}
	if (t->keep && t->text.len > TAIL_HEAD + 2 * TAIL_KEEP) {
		tail_cut(t);
		if (t->fresh > TAIL_KEEP)
			t->fresh = TAIL_KEEP;
	}
}

/* Whether the bytes the last tail_pump() added hold `word` (or end it). */
static bool tail_fresh_has(const struct tail *t, const char *word)
{
	size_t back = t->fresh + strlen(word), from = t->text.len > back ? t->text.len - back : 0;

	return t->fresh && memmem(t->text.s + from, t->text.len - from, word, strlen(word));
}

/* QEMU's file chardevs append; create them so tails can open at once. */
static int create_vm_files(const char *dir, char **err)
{
	static const char *const files[] = { "console.log", "stdout", "stderr", "status",
					     "files.tar" };

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *p = xasprintf("%s/%s", dir, files[i]);
		int ret = file_write(p, "", 0);

		free(p);
		if (ret) {
			err_set(err, "cannot write in run directory '%s': %s", dir, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

int run_config(const struct run_opts *o, struct vm_config *cfg, char **err)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->topo = topology_find(o->topology);
	if (!cfg->topo) {
		err_set(err, "unknown topology '%s'\nhint: choose one of: %s", o->topology,
			topology_list());
		return -EINVAL;
	}
	for (int i = 0; i < VM_MAX_NICS; i++) {
		if (!o->nic_model[i])
			continue;
		cfg->want_model[i] = nic_model_find(o->nic_model[i]);
		if (!cfg->want_model[i]) {
			err_set(err, "unknown NIC model '%s' for NIC %c\nhint: choose one of: %s",
				o->nic_model[i], 'A' + i, nic_model_list());
			return -EINVAL;
		}
	}
	cfg->qemu = o->qemu;
	cfg->qemu_version = vm_qemu_version(o->qemu, NULL);
	cfg->kernel = o->kernel;
	cfg->peer_kernel = o->peer_kernel;
	cfg->append = o->append;
	cfg->rundir = o->out;
	cfg->mem_mb = o->mem_mb;
	cfg->smp = o->smp;
	memcpy(cfg->vm_smp, o->vm_smp, sizeof(cfg->vm_smp));
	cfg->snaplen = o->snaplen;
	cfg->timeout_s = o->timeout_s;
	cfg->icount_shift = o->icount_shift;
	cfg->job_lines = o->job_lines;
	cfg->n_job_lines = o->n_job_lines;
	cfg->shares = o->shares;
	cfg->n_shares = o->n_shares;
	cfg->debug = o->debug;
	return cfg->topo->setup(cfg, err);
}

static int check_inputs(const struct run_opts *o, struct kernel_id *kid, char **err)
{
	const struct vm_backend_ops *ops = o->backend;
	bool chosen = true;
	char *why = NULL;

	if (!o->kernel || !o->initrd || !o->out || !o->exec) {
		err_set(err, "kernel, initramfs, command and run directory are all required");
		return -EINVAL;
	}
	if (o->connect && vm_backend_need(&ops, &chosen, VM_BACKEND_CAN_CONNECT, "--connect", err))
		return -EINVAL;
	if (kernel_identify(o->kernel, kid, err))
		goto bad_kernel;
	if (o->peer_kernel) {
		struct kernel_id peer;
		int ret = kernel_identify(o->peer_kernel, &peer, err);

		kernel_id_release(&peer);
		if (ret)
			goto bad_kernel;
	}
	if (initrd_check(o->initrd, &why)) {
		err_set(err, "initramfs '%s': %s\nhint: run 'make guest', or pass --initrd FILE",
			o->initrd, why);
		free(why);
		return -EINVAL;
	}
	return run_dir_check("run directory", o->out, run_sock_below(o->topology), err);
bad_kernel:
	if (err && *err) {
		char *e = *err;

		*err = xasprintf("%s\nhint: run 'make kernel', or pass --kernel BZIMAGE", e);
		free(e);
	}
	return -EINVAL;
}

/* One QEMU process of the run and what it leaves behind. */
struct run_vm {
	const char *exec;
	char *dir;			/* console, ports, cmdline, qemu.log */
	char *initrd;
	bool idle;			/* no command: stopped once VM 0 is done */
	struct vm_inst *inst;		/* once started, by whichever backend */
	char *transport_error;		/* what did not come back (libvirt) */
	bool tails_open;
	struct tail tails[4];		/* stdout, stderr, console, status */
	struct run_obs obs;
	struct run_result res;
	struct json_object *acpi;	/* acpi.json, with ACPI tables */
	double boot_s;
	double panic_at;
};

struct run_ctx {
	const struct run_opts *o;
	struct vm_config cfg;
	struct kernel_id kid;
	char *accel_why;
	struct acpi_set acpi;
	struct kmod_list kmods;		/* --modules */
	struct run_vm vms[VM_MAX_VMS];
	int lock_fd;			/* the run directory's (outlock.h), or -1 */
	unsigned int n_vms;
	char *sock_dir;
	struct vm_backend *be;		/* the run's backend, open */
	double t0;
	double space_at;		/* when free space was last looked at */
	char *no_space;			/* the run directory's file system is full */
};

static void vm_tails_pump(struct run_ctx *c, struct run_vm *v)
{
	for (int i = 0; i < 4; i++)
		tail_pump(&v->tails[i], c->o);
	if (v->boot_s < 0 && tail_fresh_has(&v->tails[3], "agent "))
		v->boot_s = now_s() - c->t0;
	if (!v->panic_at && tail_fresh_has(&v->tails[2], "Kernel panic - not syncing"))
		v->panic_at = now_s();
}

/* Whatever the VM left on its backend's host, into the run directory. */
static void collect_vm(struct run_ctx *c, struct run_vm *v)
{
	char *err = NULL;

	if (vm_inst_collect(v->inst, c->o->out, &err) && !v->transport_error)
		v->transport_error = xstrdup(err);
	free(err);
}

/* nftw() has no context argument. */
static unsigned long long dir_bytes_total;

static int dir_bytes_add(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	if (type == FTW_F)
		dir_bytes_total += (unsigned long long)st->st_blocks * 512;
	return 0;
}

/* Bytes the files under `dir` take on disk. */
static unsigned long long run_dir_bytes(const char *dir)
{
	dir_bytes_total = 0;
	nftw(dir, dir_bytes_add, 16, FTW_PHYS);
	return dir_bytes_total;
}

/*
 * The run's deadline: its timeout after the start, plus the time the host
 * kept its QEMUs waiting for a CPU (the worst VM's), up to RUN_LOAD_GRACE
 * times the timeout more. A guest is given its timeout in CPU it could
 * have had: on a host loaded with other guests and builds, a scenario
 * that needs 40 s of a free core took 128 s of wall clock, and ran out.
 * A guest that hangs asleep waits for nothing and ends at its timeout.
 */
static double run_deadline(const struct run_ctx *c)
{
	double delay = 0, cap = RUN_LOAD_GRACE * c->o->timeout_s;

	for (unsigned int i = 0; i < c->n_vms; i++) {
		double d = vm_inst_run_delay_s(c->vms[i].inst);

		delay = d > delay ? d : delay;
	}
	return c->t0 + c->o->timeout_s + (delay < cap ? delay : cap);
}

/* Follow every VM until all have exited, the deadline, a panic or a signal. */
static void run_loop(struct run_ctx *c, volatile sig_atomic_t *stop)
{
	double deadline = c->t0 + c->o->timeout_s;

	for (;;) {
		bool all_done = true, panicked = false;

		for (unsigned int i = 0; i < c->n_vms; i++) {
			struct run_vm *v = &c->vms[i];

			vm_inst_wait(v->inst, i ? 0 : 100);
			vm_tails_pump(c, v);
			if (v->panic_at && now_s() - v->panic_at > PANIC_GRACE_S)
				vm_inst_kill(v->inst, 2000);
			all_done &= vm_inst_ended(v->inst);
			panicked |= v->panic_at && vm_inst_ended(v->inst);
		}
		/* A panic anywhere ends the run: the other VMs are stopped below. */
		if (all_done || panicked)
			break;
		if (vm_inst_ended(c->vms[0].inst) && c->n_vms > 1 && c->vms[1].idle)
			vm_inst_kill(c->vms[1].inst, 2000);
		if (c->o->on_tick)
			c->o->on_tick(c->o->ctx);
		if (stop && *stop) {
			for (unsigned int i = 0; i < c->n_vms; i++)
				c->vms[i].obs.interrupted = true;
			break;
		}
		if (now_s() >= deadline && (deadline = run_deadline(c)) <= now_s()) {
			for (unsigned int i = 0; i < c->n_vms; i++)
				c->vms[i].obs.timed_out = !vm_inst_ended(c->vms[i].inst) &&
							   !c->vms[i].panic_at;
			break;
		}
		/* QEMU writes the captures and ports itself and does not stop on a
		 * full disk (its guest then blocks on a port until the timeout):
		 * look once a second, and end the run at once. */
		if (now_s() - c->space_at >= 1.0) {
			unsigned long long avail;

			c->space_at = now_s();
			if (!disk_avail(c->o->out, &avail) && avail < DISK_FLOOR &&
			    (c->no_space = disk_short(c->o->out, run_space_estimate(c->o) +
								 run_dir_bytes(c->o->out)))) {
				for (unsigned int i = 0; i < c->n_vms; i++)
					c->vms[i].obs.no_space = c->no_space;
				break;
			}
		}
	}
	for (unsigned int i = 0; i < c->n_vms; i++) {
		struct run_vm *v = &c->vms[i];

		vm_inst_kill(v->inst, 2000);
		v->obs.qemu_status = vm_inst_status(v->inst);
		collect_vm(c, v);
		vm_tails_pump(c, v);
	}
}

static int spawn_vm(struct run_ctx *c, unsigned int i, char **err)
{
	static const struct tail proto[4] = {
		{ .name = "stdout", .stream = RUN_STDOUT, .deliver = true },
		{ .name = "stderr", .stream = RUN_STDERR, .deliver = true },
		{ .name = "console.log", .stream = RUN_CONSOLE, .keep = true },
		{ .name = "status", .stream = RUN_CONSOLE, .keep = true },
	};
	struct run_vm *v = &c->vms[i];

	for (int t = 0; t < 4; t++) {
		v->tails[t] = proto[t];
		/* Only VM 0's output (and console, if asked) reaches the terminal. */
		v->tails[t].deliver = i == 0 && (proto[t].deliver ||
						 (t == 2 && c->o->stream_console));
		sbuf_init(&v->tails[t].text);
		tail_open(&v->tails[t], v->dir);
	}
	v->tails_open = true;
	return vm_backend_start(c->be, i, &v->inst, err);
}

/*
 * VM_DIR/acpi.json: the tables given, whether the kernel took them, and the
 * IRQ lines the guest saw. A table not taken means the run did not test
 * what it was asked to: infra-error, unless the run already failed worse.
 */
static void acpi_outcome(struct run_ctx *c, struct run_vm *v)
{
	char *path = xasprintf("%s/files/" ACPI_IRQ_FILE, v->dir), *irqs = NULL, *why = NULL;
	bool all_taken;

	file_read(path, &irqs, NULL);
	free(path);
	v->acpi = acpi_report(&c->acpi, v->tails[2].text.s, irqs, &all_taken, &why);
	path = xasprintf("%s/acpi.json", v->dir);
	json_file_write(path, v->acpi);
	free(path);
	if (!all_taken && (v->res.verdict == RV_OK || v->res.verdict == RV_FAILED)) {
		v->res.verdict = RV_INFRA;
		free(v->res.reason);
		v->res.reason = why;
		why = NULL;
	}
	free(why);
	free(irqs);
}

static void write_vm_outcome(struct run_ctx *c, struct run_vm *v)
{
	char *qlog = NULL, *path;

	path = xasprintf("%s/qemu.log", v->dir);
	file_read(path, &qlog, NULL);
	free(path);
	v->obs.console = v->tails[2].text.s;
	v->obs.status = v->tails[3].text.s;
	v->obs.qemu_log = qlog;
	v->obs.transport_error = v->transport_error;
	run_classify(&v->obs, &v->res);
	free(qlog);
	path = xasprintf("%s/exit-status", v->dir);
	if (v->res.exit_status >= 0)
		file_writef(path, "%d\n", v->res.exit_status);
	free(path);
	run_unpack_outcome(v->dir, v->obs.no_space != NULL, &v->res);
	if (c->acpi.n)
		acpi_outcome(c, v);
}

/*
 * The run's verdict from its VMs': a panic anywhere wins; then VM 0's; a
 * peer with a command of its own must succeed too. An idle peer (stopped
 * by the harness) counts only if it panicked. `res` gets copies.
 */
static void combine(const struct run_ctx *c, struct run_result *res)
{
	const struct run_vm *v0 = &c->vms[0], *v1 = c->n_vms > 1 ? &c->vms[1] : NULL;
	const struct run_vm *pick = v0;

	if (v1 && v1->res.verdict == RV_PANIC && v0->res.verdict != RV_PANIC)
		pick = v1;
	else if (v1 && !v1->idle && v0->res.verdict == RV_OK && v1->res.verdict != RV_OK)
		pick = v1;
	*res = pick->res;
	res->oops = pick->res.oops ? xstrdup(pick->res.oops) : NULL;
	if (pick == v1)
		res->reason = xasprintf("peer VM (B): %s", pick->res.reason ? pick->res.reason : "");
	else
		res->reason = pick->res.reason ? xstrdup(pick->res.reason) : NULL;
}

static bool vm_recorded(const struct run_ctx *c, unsigned int i)
{
	const struct vm_debug *d = &c->cfg.debug;

	return d->rr == VM_RR_RECORD && (d->rr_vm < 0 || d->rr_vm == (int)i);
}

static void write_outcome(struct run_ctx *c, struct run_result *res)
{
	struct run_result vms[VM_MAX_VMS];
	const char *domains[VM_MAX_VMS];
	struct run_meta meta = {
		.cfg = &c->cfg,
		.command = c->o->exec,
		.peer_command = c->n_vms > 1 ? (c->o->peer_exec ? c->o->peer_exec : "(idle)") : NULL,
		.kernel_version = c->kid.version,
		.kernel_sha256 = c->kid.sha256,
		.config_sha256 = c->kid.config_sha256[0] ? c->kid.config_sha256 : NULL,
		.kernel_release = c->kid.release[0] ? c->kid.release : NULL,
		.kernel_cache_key = c->kid.cache_key[0] ? c->kid.cache_key : NULL,
		.kernel_source = c->kid.source[0] ? c->kid.source : NULL,
		.kernel_flavour = c->kid.flavour[0] ? c->kid.flavour : NULL,
		.accel_reason = c->accel_why,
		.backend = c->be->ops->name,
		.connect = vm_backend_uri(c->be),
		.boot_s = c->vms[0].boot_s,
		.wall_s = now_s() - c->t0,
	};
	char *path;

	/* On a full disk, make room for result.json: a run's initrd.img is
	 * only its job (kept) added to the base initrd, and a run that ended
	 * here is no replay's input. */
	for (unsigned int i = 0; c->no_space && i < c->n_vms; i++)
		if (!vm_recorded(c, i))
			unlink(c->vms[i].initrd);
	for (unsigned int i = 0; i < c->n_vms; i++) {
		write_vm_outcome(c, &c->vms[i]);
		vms[i] = c->vms[i].res;		/* borrowed for result.json */
	}
	if (c->n_vms > 1) {
		meta.vms = vms;
		meta.n_vms = c->n_vms;
	}
	for (unsigned int i = 0; i < c->n_vms; i++)
		domains[i] = vm_inst_name(c->vms[i].inst);
	if (domains[0])
		meta.domains = domains;
	combine(c, res);
	path = xasprintf("%s/result.json", c->o->out);
	run_reserve_release(c->o->out);
	if (run_result_write_json(path, res, &meta, NULL) == -ENOSPC) {
		/* Room taken since (not by what the guest left): its initrd goes. */
		for (unsigned int i = 0; i < c->n_vms; i++)
			if (!vm_recorded(c, i))
				unlink(c->vms[i].initrd);
		run_result_write_json(path, res, &meta, NULL);
	}
	if (c->vms[0].acpi) {
		/* result.json's "acpi": VM 0's acpi.json (each VM has its own). */
		struct json_object *j = json_file_get(path);

		if (j) {
			json_object_object_add(j, "acpi", json_object_get(c->vms[0].acpi));
			json_file_write(path, j);
			json_object_put(j);
		}
	}
	free(path);
	if (c->n_vms > 1 && res->exit_status >= 0) {
		path = xasprintf("%s/exit-status", c->o->out);
		file_writef(path, "%d\n", res->exit_status);
		free(path);
	}
}

/* --modules: the modules the guest needs, for this kernel (bad input: -EINVAL). */
static int modules_prepare(struct run_ctx *c, char **err)
{
	size_t kv = strcspn(c->kid.version, " ");
	int ret = kmod_collect(c->o->modules, &c->kmods, err);

	if (ret)
		return ret == -ENOENT ? -EINVAL : ret;
	if (c->kmods.vermagic && *c->kid.version &&
	    (strcspn(c->kmods.vermagic, " ") != kv || strncmp(c->kmods.vermagic, c->kid.version, kv))) {
		err_set(err,
			"modules %s: built for %.*s, the kernel is %.*s\nhint: pass the lib/modules/VERSION of the kernel you boot",
			c->kmods.dir, (int)strcspn(c->kmods.vermagic, " "), c->kmods.vermagic, (int)kv,
			c->kid.version);
		return -EINVAL;
	}
	return 0;
}

/* netlab/modules/NN-NAME.ko in load order, for the agent (guest/agent-pci.h). */
static int modules_cpio_add(const struct kmod_list *l, struct cpio *c, char **err)
{
	if (!l->n)
		return 0;
	cpio_add_dir(c, "netlab", 0755);
	cpio_add_dir(c, "netlab/modules", 0755);
	for (size_t i = 0; i < l->n; i++) {
		char *data = NULL, *name;
		size_t n = 0;
		int ret = file_read(l->v[i].path, &data, &n);

		if (ret) {
			err_set(err, "cannot read module '%s': %s", l->v[i].path, strerror(-ret));
			return ret;
		}
		name = xasprintf("netlab/modules/%02zu-%s.ko", i, l->v[i].name);
		cpio_add_file(c, name, 0644, data, n);
		free(name);
		free(data);
	}
	return 0;
}

static int write_initrd(struct run_ctx *c, unsigned int i, char **err)
{
	struct run_vm *v = &c->vms[i];
	struct sbuf job;
	struct cpio early;
	char *exec, *jobpath = xasprintf("%s/job", v->dir);
	int ret;

	struct sbuf sb;

	/* With ACPI tables, keep the IRQ lines as the command starts (NICs are up). */
	sbuf_init(&sb);
	if (c->acpi.n)
		sbuf_adds(&sb, "cat /proc/interrupts > " NETLAB_GUEST_OUTDIR "/" ACPI_IRQ_FILE
			       " 2>/dev/null\n");
	/* A topology file's namespaces, devices and routes, before the command. */
	topo_setup_script(c->cfg.topo, i, &sb);
	sbuf_addf(&sb, "%s\n", v->exec);
	exec = sbuf_detach(&sb);
	v->initrd = xasprintf("%s/initrd.img", v->dir);
	sbuf_init(&job);
	job_text(&c->cfg, i, &job);
	file_write(jobpath, job.s, job.len);
	cpio_init(&early);
	ret = acpi_cpio_add(&c->acpi, &early, err);
	if (!ret)
		ret = modules_cpio_add(&c->kmods, &early, err);
	if (!ret)
		ret = initrd_assemble_with(v->initrd, &early, job.s, exec, c->o->initrd, err);
	cpio_release(&early);
	if (!ret && c->o->n_adds)
		ret = share_adds_append(v->initrd, c->o->adds, c->o->n_adds, err);
	c->cfg.vm_initrd[i] = v->initrd;
	if (i == 0)
		c->cfg.initrd = v->initrd;
	sbuf_release(&job);
	free(jobpath);
	free(exec);
	return ret;
}

/*
 * VM_DIR/replay.argv: the QEMU command line (one argument a line) that
 * replays VM `i` from its replay.bin, with @OUT@ where the replay's own
 * console, ports and pcaps go and @SOCK@ for a socket directory.
 */
static int prepare_record(struct run_ctx *c, unsigned int i, char **err)
{
	struct run_vm *v = &c->vms[i];
	struct vm_config r = c->cfg;
	char *disk = xasprintf("%s/replay.qcow2", v->dir), *bin = xasprintf("%s/replay.bin", v->dir);
	char *path = xasprintf("%s/replay.argv", v->dir);
	struct argv a;
	struct sbuf text;
	int ret = r.debug.rr_snapshot ? vm_qcow2_create(disk, err) : 0;

	r.debug.rr = VM_RR_REPLAY;
	r.debug.rr_vm = (int)i;
	r.debug.rr_file = bin;
	r.debug.rr_disk = disk;
	r.debug.gdb_socket = NULL;
	r.debug.paused = false;
	r.rundir = "@OUT@";
	r.vm_dir[i] = "@OUT@";
	r.sock_dir = "@SOCK@";
	argv_init(&a);
	sbuf_init(&text);
	if (!ret)
		ret = qemu_build_argv(&r, i, &a, err);
	for (size_t k = 0; !ret && k < a.n; k++)
		sbuf_addf(&text, "%s\n", a.v[k]);
	if (!ret && (ret = file_write(path, text.s, text.len)))
		err_set(err, "cannot write '%s': %s", path, strerror(-ret));
	sbuf_release(&text);
	argv_release(&a);
	free(path);
	free(bin);
	free(disk);
	return ret;
}

const char *run_sock_below(const char *topology)
{
	const struct topology *t = topology_find(topology ? topology : "loop");

	return t && t->n_vms > 1 ? RUN_SOCK_BELOW_VMS : "";
}

const char *run_vm_name(unsigned int vm)
{
	return vm ? "vm-b" : "vm-a";
}

static bool has_recording(const char *dir)
{
	char *p = xasprintf("%s/replay.argv", dir);
	bool yes = !access(p, F_OK);

	free(p);
	return yes;
}

char *run_recording_dir(const char *dir)
{
	if (has_recording(dir))
		return xstrdup(dir);
	for (unsigned int vm = VM_MAX_VMS; vm-- > 0;) {
		char *d = xasprintf("%s/%s", dir, run_vm_name(vm));

		if (has_recording(d))
			return d;
		free(d);
	}
	return NULL;
}

/* Directories and initrds of each VM; the socket directory of a pair. */
static int prepare_vms(struct run_ctx *c, char **err)
{
	int ret = 0;

	c->n_vms = c->cfg.topo->n_vms;
	for (unsigned int i = 0; !ret && i < c->n_vms; i++) {
		struct run_vm *v = &c->vms[i];

		v->boot_s = -1;
		v->exec = i ? (c->o->peer_exec ? c->o->peer_exec : "exec sleep 2147483647")
			    : c->o->exec;
		v->idle = i && !c->o->peer_exec;
		v->dir = c->n_vms > 1 ? xasprintf("%s/%s", c->o->out, run_vm_name(i))
				      : xstrdup(c->o->out);
		if (c->n_vms > 1) {
			c->cfg.vm_dir[i] = v->dir;
			ret = run_dir_prepare(v->dir, NULL, err);
		}
		if (!ret)
			ret = create_vm_files(v->dir, err);
		if (!ret)
			ret = write_initrd(c, i, err);
	}
	if (!ret && c->n_vms > 1) {
		/* Unix socket paths are short (108 bytes): not under the run dir. */
		c->sock_dir = xstrdup("/tmp/netlab-pair-XXXXXX");
		if (!mkdtemp(c->sock_dir)) {
			ret = -errno;
			err_set(err, "cannot create '%s': %s", c->sock_dir, strerror(errno));
		}
		c->cfg.sock_dir = c->sock_dir;
	}
	for (unsigned int i = 0; !ret && i < c->n_vms; i++)
		if (vm_recorded(c, i))
			ret = prepare_record(c, i, err);
	return ret;
}

static void release_ctx(struct run_ctx *c)
{
	for (unsigned int i = 0; i < c->n_vms; i++) {
		struct run_vm *v = &c->vms[i];

		if (v->inst)
			collect_vm(c, v);	/* no-op once done: clears the host on errors */
		vm_inst_release(v->inst);
		free(v->transport_error);
		for (int t = 0; v->tails_open && t < 4; t++) {
			if (v->tails[t].fd >= 0)
				close(v->tails[t].fd);
			sbuf_release(&v->tails[t].text);
		}
		run_result_release(&v->res);
		json_object_put(v->acpi);
		free(v->dir);
		free(v->initrd);
	}
	if (c->sock_dir) {
		char *a = xasprintf("%s/A.sock", c->sock_dir), *b = xasprintf("%s/B.sock", c->sock_dir);

		unlink(a);
		unlink(b);
		rmdir(c->sock_dir);
		free(a);
		free(b);
		free(c->sock_dir);
	}
	vm_backend_close(c->be);
	free(c->no_space);
	free(c->accel_why);
	acpi_set_release(&c->acpi);
	kmod_list_release(&c->kmods);
	kernel_id_release(&c->kid);
}

unsigned long long run_space_estimate(const struct run_opts *o)
{
	const struct topology *t = topology_find(o->topology);
	unsigned int n = t ? t->n_vms : 1;
	struct stat st;
	unsigned long long initrd = 0;

	if (o->initrd && stat(o->initrd, &st) == 0)
		initrd = (unsigned long long)st.st_size;
	return n * (initrd + RUN_SPACE_PER_VM);
}

/*
 * A recording is replayed from anywhere: its replay.argv holds absolute
 * paths. `abs` owns them; TCG is the only accelerator that records.
 */
static int record_opts(const struct run_opts *o, struct run_opts *ro, char *abs[3], char **err)
{
	*ro = *o;
	if (o->debug.rr != VM_RR_RECORD)
		return 0;
	if (o->accel == VM_ACCEL_KVM) {
		err_set(err, "--record needs TCG, not kvm\nhint: drop --accel kvm");
		return -EINVAL;
	}
	ro->accel = VM_ACCEL_TCG;
	if (mkdir_p(o->out, 0755) == 0)
		abs[0] = realpath(o->out, NULL);
	abs[1] = realpath(o->kernel, NULL);
	abs[2] = o->peer_kernel ? realpath(o->peer_kernel, NULL) : NULL;
	if (!abs[0] || !abs[1] || (o->peer_kernel && !abs[2])) {
		err_set(err, "cannot resolve the run directory or kernel path: %s", strerror(errno));
		return -EINVAL;
	}
	ro->out = abs[0];
	ro->kernel = abs[1];
	if (run_dir_check("run directory (absolute, to record)", ro->out,
			  run_sock_below(ro->topology), err))
		return -EINVAL;
	if (abs[2])
		ro->peer_kernel = abs[2];
	return 0;
}

static void backend_args(const struct run_opts *o, struct vm_backend_args *a)
{
	*a = (struct vm_backend_args){
		.accel = o->accel,
		.initrd = o->initrd,
		.connect = o->connect,
		.domain_name = o->domain_name,
	};
}

int run_print_xml(const struct run_opts *o, struct sbuf *out, char **err)
{
	const struct vm_backend_ops *ops = o->backend;
	bool chosen = true;
	struct vm_backend_args a;
	struct vm_config cfg;
	int ret = vm_backend_need(&ops, &chosen, VM_BACKEND_CAN_DESCRIBE, "--print-xml", err);

	if (!ret)
		ret = run_config(o, &cfg, err);
	if (ret)
		return ret;
	backend_args(o, &a);
	cfg.rundir = o->out ? o->out : "RUN_DIR";
	return ops->describe(&a, &cfg, out, err);
}

int accel_resolve(const struct run_opts *o, enum vm_accel *out, char **why, char **err)
{
	/* What the KVM probe boots: the kernel and initrd of `o`, no NICs. */
	struct run_opts p = *o;
	struct vm_config cfg;
	int ret;

	p.topology = "none";
	memset(p.nic_model, 0, sizeof(p.nic_model));
	ret = run_config(&p, &cfg, err);
	if (!ret) {
		struct vm_backend_args a;

		backend_args(o, &a);
		ret = o->backend->accel(&a, &cfg, out, why, err);
	}
	return ret;
}

int run_execute(const struct run_opts *o_in, volatile sig_atomic_t *stop, struct run_result *res,
		char **err)
{
	char *abs[3] = { NULL, NULL, NULL };
	struct run_opts ro = *o_in;
	const struct run_opts *o = &ro;
	struct run_ctx c = { .o = &ro, .lock_fd = -1 };
	int ret;

	memset(res, 0, sizeof(*res));
	ret = check_inputs(o_in, &c.kid, err);
	if (!ret)
		ret = record_opts(o_in, &ro, abs, err);
	if (!ret)
		ret = run_config(o, &c.cfg, err);
	if (!ret)
		ret = run_dir_prepare(o->out, &c.lock_fd, err);
	/* Before any boot (the KVM probe's too): a bad table is bad input. */
	if (!ret && o->n_acpi) {
		char *dir = xasprintf("%s/acpi", o->out);

		ret = acpi_prepare(NULL, o->acpi, o->n_acpi, dir, &c.acpi, err);
		free(dir);
	}
	if (!ret && o->modules)
		ret = modules_prepare(&c, err);
	if (!ret) {
		/* (The direct backend's KVM probe boots without NICs or tables.) */
		struct vm_backend_args a;

		backend_args(o, &a);
		ret = vm_backend_open(o->backend, &a, &c.cfg, &c.be, &c.accel_why, err);
	}
	if (!ret && (c.no_space = disk_short(o->out, run_space_estimate(o)))) {
		err_set(err, "%s/: %s\nhint: free some space there, or pass --out on a file "
			     "system with more room", o->out, c.no_space);
		ret = -ENOSPC;
	}
	if (!ret)
		ret = prepare_vms(&c, err);
	for (unsigned int i = 0; !ret && i < c.n_vms; i++) {
		if (i == 0)
			c.t0 = now_s();
		ret = spawn_vm(&c, i, err);
	}
	if (!ret && o->on_spawned)
		o->on_spawned(o->ctx);
	if (ret) {
		/* Whatever did start must not outlive us. */
		for (unsigned int i = 0; i < c.n_vms; i++)
			if (c.vms[i].inst)
				vm_inst_kill(c.vms[i].inst, 0);
	} else {
		run_write_provisional(c.o->out);
		run_loop(&c, stop);
		write_outcome(&c, res);
	}
	release_ctx(&c);
	outlock_release(c.lock_fd);
	for (int i = 0; i < 3; i++)
		free(abs[i]);
	return ret;
}
