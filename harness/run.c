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

#include "initrd.h"
#include "kernel.h"
#include "run.h"
#include "vm.h"
#include "../guest/netlab-proto.h"

extern char **environ;

/* Host-side grace after the kernel printed a panic but QEMU still runs. */
#define PANIC_GRACE_S 5.0

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
	/* QEMU's file chardevs append; create them so tails can open at once. */
	for (const char *const *f = (const char *const[]){ "console.log", "stdout", "stderr",
							     "status", "files.tar", NULL };
	     *f; f++) {
		char *p = xasprintf("%s/%s", dir, *f);

		ret = file_write(p, "", 0);
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
	cfg->append = o->append;
	cfg->rundir = o->out;
	cfg->mem_mb = o->mem_mb;
	cfg->smp = o->smp;
	cfg->timeout_s = o->timeout_s;
	cfg->icount_shift = o->icount_shift;
	cfg->job_lines = o->job_lines;
	cfg->n_job_lines = o->n_job_lines;
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
static void unpack_files(const char *rundir)
{
	char *tar = xasprintf("%s/files.tar", rundir);
	char *dir = xasprintf("%s/files", rundir);
	struct stat st;

	if (stat(tar, &st) == 0 && st.st_size > 0 && mkdir_p(dir, 0755) == 0) {
		/* -m: the guest's clock (under -icount) is not the host's. */
		char *const args[] = { "tar", "-xmf", tar, "-C", dir, NULL };
		pid_t pid;
		int status;

		if (posix_spawnp(&pid, "tar", NULL, NULL, args, environ) == 0)
			waitpid(pid, &status, 0);
	}
	free(tar);
	free(dir);
}

struct run_ctx {
	const struct run_opts *o;
	struct vm_config cfg;
	struct kernel_id kid;
	char *accel_why;
	struct tail tails[4];	/* stdout, stderr, console, status */
	struct run_obs obs;
	double t0, boot_s;
};

static void run_loop(struct run_ctx *c, struct vm_proc *p, volatile sig_atomic_t *stop)
{
	struct tail *console = &c->tails[2], *status = &c->tails[3];
	double deadline = c->t0 + c->o->timeout_s, panic_at = 0;

	for (;;) {
		bool done = vm_wait(p, 100);

		for (int i = 0; i < 4; i++)
			tail_pump(&c->tails[i], c->o);
		if (c->boot_s < 0 && strstr(status->text.s, "agent "))
			c->boot_s = now_s() - c->t0;
		if (done)
			break;
		if (stop && *stop) {
			c->obs.interrupted = true;
			break;
		}
		if (!panic_at && strstr(console->text.s, "Kernel panic - not syncing"))
			panic_at = now_s();
		if (now_s() >= deadline && !panic_at) {
			c->obs.timed_out = true;
			break;
		}
		if (panic_at && now_s() - panic_at > PANIC_GRACE_S)
			break;
	}
	vm_kill(p, 2000);
	for (int i = 0; i < 4; i++)
		tail_pump(&c->tails[i], c->o);
	c->obs.qemu_status = p->exited ? p->status : -1;
}

static int run_vm(struct run_ctx *c, volatile sig_atomic_t *stop, char **err)
{
	static const struct tail proto[4] = {
		{ .name = "stdout", .stream = RUN_STDOUT, .deliver = true },
		{ .name = "stderr", .stream = RUN_STDERR, .deliver = true },
		{ .name = "console.log", .stream = RUN_CONSOLE },
		{ .name = "status", .stream = RUN_CONSOLE },
	};
	struct argv argv;
	struct vm_proc p;
	char *cmdline, *path;
	int ret;

	argv_init(&argv);
	ret = qemu_build_argv(&c->cfg, &argv, err);
	if (ret)
		goto out;
	cmdline = argv_to_shell(&argv);
	path = xasprintf("%s/cmdline", c->o->out);
	file_writef(path, "%s\n", cmdline);
	free(path);
	free(cmdline);

	path = xasprintf("%s/qemu.log", c->o->out);
	c->t0 = now_s();
	ret = vm_spawn(&p, &argv, path, err);
	free(path);
	if (ret)
		goto out;
	for (int i = 0; i < 4; i++) {
		c->tails[i] = proto[i];
		c->tails[i].deliver = proto[i].deliver ||
				      (i == 2 && c->o->stream_console);
		sbuf_init(&c->tails[i].text);
		tail_open(&c->tails[i], c->o->out);
	}
	run_loop(c, &p, stop);
	vm_release(&p);
out:
	argv_release(&argv);
	return ret;
}

static void write_outcome(struct run_ctx *c, struct run_result *res)
{
	struct run_meta meta = {
		.cfg = &c->cfg,
		.command = c->o->exec,
		.kernel_version = c->kid.version,
		.kernel_sha256 = c->kid.sha256,
		.config_sha256 = c->kid.config_sha256[0] ? c->kid.config_sha256 : NULL,
		.accel_reason = c->accel_why,
		.boot_s = c->boot_s,
		.wall_s = now_s() - c->t0,
	};
	char *qlog = NULL, *path;

	path = xasprintf("%s/qemu.log", c->o->out);
	file_read(path, &qlog, NULL);
	free(path);
	c->obs.console = c->tails[2].text.s;
	c->obs.status = c->tails[3].text.s;
	c->obs.qemu_log = qlog;
	run_classify(&c->obs, res);
	free(qlog);

	path = xasprintf("%s/exit-status", c->o->out);
	if (res->exit_status >= 0)
		file_writef(path, "%d\n", res->exit_status);
	free(path);
	unpack_files(c->o->out);
	path = xasprintf("%s/result.json", c->o->out);
	run_result_write_json(path, res, &meta, NULL);
	free(path);
}

static int write_initrd(struct run_ctx *c, char **err)
{
	struct sbuf job;
	char *exec = xasprintf("%s\n", c->o->exec);
	char *path = xasprintf("%s/initrd.img", c->o->out);
	char *jobpath = xasprintf("%s/job", c->o->out);
	int ret;

	sbuf_init(&job);
	job_text(&c->cfg, &job);
	file_write(jobpath, job.s, job.len);
	ret = initrd_assemble(path, job.s, exec, c->o->initrd, err);
	c->cfg.initrd = path;
	sbuf_release(&job);
	free(jobpath);
	free(exec);
	return ret;
}

int run_execute(const struct run_opts *o, volatile sig_atomic_t *stop, struct run_result *res,
		char **err)
{
	struct run_ctx c = { .o = o, .boot_s = -1 };
	int ret;

	memset(res, 0, sizeof(*res));
	ret = check_inputs(o, &c.kid, err);
	if (ret)
		goto out;
	ret = run_config(o, &c.cfg, err);
	if (ret)
		goto out;
	ret = accel_resolve(o, &c.cfg.accel, &c.accel_why, err);
	if (ret)
		goto out;
	ret = prepare_rundir(o->out, err);
	if (ret)
		goto out;
	ret = write_initrd(&c, err);
	if (ret)
		goto out_initrd;
	ret = run_vm(&c, stop, err);
	if (ret)
		goto out_initrd;
	write_outcome(&c, res);
	for (int i = 0; i < 4; i++) {
		if (c.tails[i].fd >= 0)
			close(c.tails[i].fd);
		sbuf_release(&c.tails[i].text);
	}
out_initrd:
	free((char *)c.cfg.initrd);
out:
	free(c.accel_why);
	kernel_id_release(&c.kid);
	return ret;
}
