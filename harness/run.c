// SPDX-License-Identifier: GPL-2.0
/*
 * One run, from options to result.json.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "acpi.h"
#include "initrd.h"
#include "kernel.h"
#include "run.h"
#include "vm.h"
#include "../guest/netlab-proto.h"

extern char **environ;

/* Host-side grace after the kernel printed a panic but QEMU still runs. */
#define PANIC_GRACE_S 5.0

/* With ACPI tables, the guest's IRQ lines are kept (files/ACPI_IRQ_FILE). */
#define ACPI_IRQ_FILE "acpi-interrupts"

void run_opts_init(struct run_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->qemu = "qemu-system-x86_64";
	o->topology = "loop";
	o->accel = VM_ACCEL_AUTO;
	o->timeout_s = 300;
	o->mem_mb = 256;
	o->smp = 1;
	o->icount_shift = -1;
}

/* Follows a file QEMU writes and hands new bytes to the output callback. */
struct tail {
	const char *name;
	enum run_stream stream;
	bool deliver;
	int fd;
	struct sbuf text;
};

static void tail_open(struct tail *t, const char *rundir)
{
	char *p = xasprintf("%s/%s", rundir, t->name);

	t->fd = open(p, O_RDONLY | O_CLOEXEC);
	free(p);
}

static void tail_pump(struct tail *t, const struct run_opts *o)
{
	char buf[8192];
	ssize_t n;

	if (t->fd < 0)
		return;
	while ((n = read(t->fd, buf, sizeof(buf))) > 0) {
		sbuf_add(&t->text, buf, (size_t)n);
		if (t->deliver && o->on_output)
			o->on_output(o->ctx, t->stream, buf, (size_t)n);
	}
}

/* Create `dir` (and parents); it must be new or empty. */
static int prepare_rundir(const char *dir, char **err)
{
	DIR *d;
	struct dirent *e;
	int ret = mkdir_p(dir, 0755);

	if (ret) {
		err_set(err, "cannot create run directory '%s': %s", dir, strerror(-ret));
		return ret;
	}
	d = opendir(dir);
	if (!d) {
		ret = -errno;
		err_set(err, "cannot open run directory '%s': %s", dir, strerror(errno));
		return ret;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			closedir(d);
			err_set(err, "run directory '%s' is not empty\nhint: pass a new --out DIR, or remove it",
				dir);
			return -EINVAL;
		}
	}
	closedir(d);
	return 0;
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
	cfg->kernel = o->kernel;
	cfg->peer_kernel = o->peer_kernel;
	cfg->append = o->append;
	cfg->rundir = o->out;
	cfg->mem_mb = o->mem_mb;
	cfg->smp = o->smp;
	cfg->timeout_s = o->timeout_s;
	cfg->icount_shift = o->icount_shift;
	cfg->job_lines = o->job_lines;
	cfg->n_job_lines = o->n_job_lines;
	cfg->debug = o->debug;
	return cfg->topo->setup(cfg, err);
}

static int check_inputs(const struct run_opts *o, struct kernel_id *kid, char **err)
{
	if (!o->kernel || !o->initrd || !o->out || !o->exec) {
		err_set(err, "kernel, initramfs, command and run directory are all required");
		return -EINVAL;
	}
	if (kernel_identify(o->kernel, kid, err))
		goto bad_kernel;
	if (o->peer_kernel) {
		struct kernel_id peer;
		int ret = kernel_identify(o->peer_kernel, &peer, err);

		kernel_id_release(&peer);
		if (ret)
			goto bad_kernel;
	}
	if (access(o->initrd, R_OK) < 0) {
		err_set(err, "cannot read initramfs '%s': %s\nhint: run 'make guest', or pass --initrd FILE",
			o->initrd, strerror(errno));
		return -EINVAL;
	}
	return 0;
bad_kernel:
	if (err && *err) {
		char *e = *err;

		*err = xasprintf("%s\nhint: run 'make kernel', or pass --kernel BZIMAGE", e);
		free(e);
	}
	return -EINVAL;
}

/* Unpack files.tar (what the guest left in /netlab/out) into files/. */
static void unpack_files(const char *dir)
{
	char *tar = xasprintf("%s/files.tar", dir);
	char *files = xasprintf("%s/files", dir);
	struct stat st;

	if (stat(tar, &st) == 0 && st.st_size > 0 && mkdir_p(files, 0755) == 0) {
		/* -m: the guest's clock (under -icount) is not the host's. */
		char *const args[] = { "tar", "-xmf", tar, "-C", files, NULL };
		pid_t pid;
		int status;

		if (posix_spawnp(&pid, "tar", NULL, NULL, args, environ) == 0)
			waitpid(pid, &status, 0);
	}
	free(tar);
	free(files);
}

/* One QEMU process of the run and what it leaves behind. */
struct run_vm {
	const char *exec;
	char *dir;			/* console, ports, cmdline, qemu.log */
	char *initrd;
	bool idle;			/* no command: stopped once VM 0 is done */
	bool spawned;
	struct vm_proc p;
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
	struct run_vm vms[VM_MAX_VMS];
	unsigned int n_vms;
	char *sock_dir;
	double t0;
};

static void vm_tails_pump(struct run_ctx *c, struct run_vm *v)
{
	for (int i = 0; i < 4; i++)
		tail_pump(&v->tails[i], c->o);
	if (v->boot_s < 0 && strstr(v->tails[3].text.s, "agent "))
		v->boot_s = now_s() - c->t0;
	if (!v->panic_at && strstr(v->tails[2].text.s, "Kernel panic - not syncing"))
		v->panic_at = now_s();
}

/* Follow every VM until all have exited, the deadline, a panic or a signal. */
static void run_loop(struct run_ctx *c, volatile sig_atomic_t *stop)
{
	double deadline = c->t0 + c->o->timeout_s;

	for (;;) {
		bool all_done = true, panicked = false;

		for (unsigned int i = 0; i < c->n_vms; i++) {
			struct run_vm *v = &c->vms[i];

			vm_wait(&v->p, i ? 0 : 100);
			vm_tails_pump(c, v);
			if (v->panic_at && now_s() - v->panic_at > PANIC_GRACE_S)
				vm_kill(&v->p, 2000);
			all_done &= v->p.exited;
			panicked |= v->panic_at && v->p.exited;
		}
		/* A panic anywhere ends the run: the other VMs are stopped below. */
		if (all_done || panicked)
			break;
		if (c->vms[0].p.exited && c->n_vms > 1 && c->vms[1].idle)
			vm_kill(&c->vms[1].p, 2000);
		if (c->o->on_tick)
			c->o->on_tick(c->o->ctx);
		if (stop && *stop) {
			for (unsigned int i = 0; i < c->n_vms; i++)
				c->vms[i].obs.interrupted = true;
			break;
		}
		if (now_s() >= deadline) {
			for (unsigned int i = 0; i < c->n_vms; i++)
				c->vms[i].obs.timed_out = !c->vms[i].p.exited && !c->vms[i].panic_at;
			break;
		}
	}
	for (unsigned int i = 0; i < c->n_vms; i++) {
		struct run_vm *v = &c->vms[i];

		vm_kill(&v->p, 2000);
		vm_tails_pump(c, v);
		v->obs.qemu_status = v->p.exited ? v->p.status : -1;
	}
}

static int spawn_vm(struct run_ctx *c, unsigned int i, char **err)
{
	static const struct tail proto[4] = {
		{ .name = "stdout", .stream = RUN_STDOUT, .deliver = true },
		{ .name = "stderr", .stream = RUN_STDERR, .deliver = true },
		{ .name = "console.log", .stream = RUN_CONSOLE },
		{ .name = "status", .stream = RUN_CONSOLE },
	};
	struct run_vm *v = &c->vms[i];
	struct argv argv;
	char *cmdline, *path;
	int ret;

	argv_init(&argv);
	ret = qemu_build_argv(&c->cfg, i, &argv, err);
	if (ret)
		goto out;
	cmdline = argv_to_shell(&argv);
	path = xasprintf("%s/cmdline", v->dir);
	file_writef(path, "%s\n", cmdline);
	free(path);
	free(cmdline);
	for (int t = 0; t < 4; t++) {
		v->tails[t] = proto[t];
		/* Only VM 0's output (and console, if asked) reaches the terminal. */
		v->tails[t].deliver = i == 0 && (proto[t].deliver ||
						 (t == 2 && c->o->stream_console));
		sbuf_init(&v->tails[t].text);
		tail_open(&v->tails[t], v->dir);
	}
	path = xasprintf("%s/qemu.log", v->dir);
	ret = vm_spawn(&v->p, &argv, path, err);
	free(path);
	v->spawned = !ret;
out:
	argv_release(&argv);
	return ret;
}

static void write_json(const char *path, struct json_object *j)
{
	file_writef(path, "%s\n", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY |
									JSON_C_TO_STRING_NOSLASHESCAPE));
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
	write_json(path, v->acpi);
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
	run_classify(&v->obs, &v->res);
	free(qlog);
	path = xasprintf("%s/exit-status", v->dir);
	if (v->res.exit_status >= 0)
		file_writef(path, "%d\n", v->res.exit_status);
	free(path);
	unpack_files(v->dir);
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

static void write_outcome(struct run_ctx *c, struct run_result *res)
{
	struct run_result vms[VM_MAX_VMS];
	struct run_meta meta = {
		.cfg = &c->cfg,
		.command = c->o->exec,
		.peer_command = c->n_vms > 1 ? (c->o->peer_exec ? c->o->peer_exec : "(idle)") : NULL,
		.kernel_version = c->kid.version,
		.kernel_sha256 = c->kid.sha256,
		.config_sha256 = c->kid.config_sha256[0] ? c->kid.config_sha256 : NULL,
		.accel_reason = c->accel_why,
		.boot_s = c->vms[0].boot_s,
		.wall_s = now_s() - c->t0,
	};
	char *path;

	for (unsigned int i = 0; i < c->n_vms; i++) {
		write_vm_outcome(c, &c->vms[i]);
		vms[i] = c->vms[i].res;		/* borrowed for result.json */
	}
	if (c->n_vms > 1) {
		meta.vms = vms;
		meta.n_vms = c->n_vms;
	}
	combine(c, res);
	path = xasprintf("%s/result.json", c->o->out);
	run_result_write_json(path, res, &meta, NULL);
	if (c->vms[0].acpi) {
		/* result.json's "acpi": VM 0's acpi.json (each VM has its own). */
		struct json_object *j = json_object_from_file(path);

		if (j) {
			json_object_object_add(j, "acpi", json_object_get(c->vms[0].acpi));
			write_json(path, j);
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

static int write_initrd(struct run_ctx *c, unsigned int i, char **err)
{
	struct run_vm *v = &c->vms[i];
	struct sbuf job;
	struct cpio early;
	char *exec, *jobpath = xasprintf("%s/job", v->dir);
	int ret;

	/* With ACPI tables, keep the IRQ lines as the command starts (NICs are up). */
	exec = c->acpi.n ? xasprintf("cat /proc/interrupts > " NETLAB_GUEST_OUTDIR "/" ACPI_IRQ_FILE
				     " 2>/dev/null\n%s\n", v->exec)
			 : xasprintf("%s\n", v->exec);
	v->initrd = xasprintf("%s/initrd.img", v->dir);
	sbuf_init(&job);
	job_text(&c->cfg, i, &job);
	file_write(jobpath, job.s, job.len);
	cpio_init(&early);
	ret = acpi_cpio_add(&c->acpi, &early, err);
	if (!ret)
		ret = initrd_assemble_with(v->initrd, &early, job.s, exec, c->o->initrd, err);
	cpio_release(&early);
	c->cfg.vm_initrd[i] = v->initrd;
	if (i == 0)
		c->cfg.initrd = v->initrd;
	sbuf_release(&job);
	free(jobpath);
	free(exec);
	return ret;
}

static bool vm_recorded(const struct run_ctx *c, unsigned int i)
{
	const struct vm_debug *d = &c->cfg.debug;

	return d->rr == VM_RR_RECORD && (d->rr_vm < 0 || d->rr_vm == (int)i);
}

/* The empty qcow2 that holds the snapshot a replay starts from. */
static int create_rr_disk(const char *disk, char **err)
{
	char *const args[] = { "qemu-img", "create", "-q", "-f", "qcow2", (char *)disk, "1G", NULL };
	int status = -1;
	pid_t pid;

	if (posix_spawnp(&pid, "qemu-img", NULL, NULL, args, environ) == 0)
		waitpid(pid, &status, 0);
	if (status != 0) {
		err_set(err, "cannot create '%s' with qemu-img\nhint: record/replay needs qemu-img (Debian: qemu-utils)",
			disk);
		return -ENOENT;
	}
	return 0;
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
	int ret = r.debug.rr_snapshot ? create_rr_disk(disk, err) : 0;

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

const char *run_vm_name(unsigned int vm)
{
	return vm ? "vm-b" : "vm-a";
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
			ret = prepare_rundir(v->dir, err);
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

		if (v->spawned)
			vm_release(&v->p);
		for (int t = 0; v->spawned && t < 4; t++) {
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
	free(c->accel_why);
	acpi_set_release(&c->acpi);
	kernel_id_release(&c->kid);
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
	if (abs[2])
		ro->peer_kernel = abs[2];
	return 0;
}

int run_execute(const struct run_opts *o_in, volatile sig_atomic_t *stop, struct run_result *res,
		char **err)
{
	char *abs[3] = { NULL, NULL, NULL };
	struct run_opts ro = *o_in;
	const struct run_opts *o = &ro;
	struct run_ctx c = { .o = &ro };
	int ret;

	memset(res, 0, sizeof(*res));
	ret = check_inputs(o_in, &c.kid, err);
	if (!ret)
		ret = record_opts(o_in, &ro, abs, err);
	if (!ret)
		ret = run_config(o, &c.cfg, err);
	if (!ret)
		ret = prepare_rundir(o->out, err);
	/* Before any boot (the KVM probe's too): a bad table is bad input. */
	if (!ret && o->n_acpi) {
		char *dir = xasprintf("%s/acpi", o->out);

		ret = acpi_prepare(NULL, o->acpi, o->n_acpi, dir, &c.acpi, err);
		free(dir);
	}
	if (!ret) {
		/* The KVM probe boots without NICs: it must not carry the tables. */
		struct run_opts probe = *o;

		probe.acpi = NULL;
		probe.n_acpi = 0;
		ret = accel_resolve(&probe, &c.cfg.accel, &c.accel_why, err);
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
			if (c.vms[i].spawned)
				vm_kill(&c.vms[i].p, 0);
	} else {
		run_loop(&c, stop);
		write_outcome(&c, res);
	}
	release_ctx(&c);
	for (int i = 0; i < 3; i++)
		free(abs[i]);
	return ret;
}
