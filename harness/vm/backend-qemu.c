// SPDX-License-Identifier: GPL-2.0
/*
 * The direct backend: each VM is a QEMU process of netlab's own (vm/vm.h),
 * its command line from qemu_build_argv(), its console and ports files in
 * the VM's directory.
 *
 * Its accelerator choice lives here too, since it boots through this
 * backend: "/dev/kvm opens" is not enough: on some hosts (nested
 * virtualisation) KVM_CREATE_VM succeeds but a guest hangs early in boot.
 * So `auto` boots the kernel once under KVM with a short timeout
 * (vm_boot_once()) and falls back to TCG, caching the verdict per (host
 * kernel, QEMU binary).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "lib/esc.h"
#include "boot/initrd.h"
#include "vm/backend.h"
#include "vm/vm.h"

struct qemu_backend {
	struct vm_backend b;
	const struct vm_config *cfg;
};

struct qemu_inst {
	struct vm_inst i;
	struct vm_proc p;
};

#define QB(b) ((struct qemu_backend *)((char *)(b) - offsetof(struct qemu_backend, b)))
#define QI(v) ((struct qemu_inst *)((char *)(v) - offsetof(struct qemu_inst, i)))

static int qemu_accel(const struct vm_backend_args *a, const struct vm_config *cfg,
		      enum vm_accel *out, char **why, char **err)
{
	return vm_accel_resolve(cfg, a->initrd, a->accel, out, why, err);
}

static int qemu_open(const struct vm_backend_args *a, struct vm_config *cfg, struct vm_backend **out,
		     char **why, char **err)
{
	struct qemu_backend *qb;
	int ret = qemu_accel(a, cfg, &cfg->accel, why, err);

	if (ret)
		return ret;
	qb = xzalloc(sizeof(*qb));
	qb->b.ops = &vm_backend_qemu;
	qb->cfg = cfg;
	*out = &qb->b;
	return 0;
}

static int qemu_start(struct vm_backend *b, unsigned int vm, struct vm_inst **out, char **err)
{
	const struct vm_config *cfg = QB(b)->cfg;
	const char *dir = vm_dir(cfg, vm);
	struct qemu_inst *qi;
	struct argv argv;
	char *cmdline, *path;
	int ret;

	argv_init(&argv);
	ret = qemu_build_argv(cfg, vm, &argv, err);
	if (ret)
		goto out;
	cmdline = esc_shell_argv(&argv);
	path = xasprintf("%s/cmdline", dir);
	file_writef(path, "%s\n", cmdline);
	free(path);
	free(cmdline);
	qi = xzalloc(sizeof(*qi));
	qi->i.ops = &vm_backend_qemu;
	path = xasprintf("%s/qemu.log", dir);
	ret = vm_spawn(&qi->p, &argv, path, err);
	free(path);
	if (ret)
		free(qi);
	else
		*out = &qi->i;
out:
	argv_release(&argv);
	return ret;
}

static bool qemu_wait(struct vm_inst *v, int ms)
{
	return vm_wait(&QI(v)->p, ms);
}

static bool qemu_ended(const struct vm_inst *v)
{
	return QI(v)->p.proc.exited;
}

static void qemu_kill(struct vm_inst *v, int grace_ms)
{
	vm_kill(&QI(v)->p, grace_ms);
}

static int qemu_status(const struct vm_inst *v)
{
	const struct vm_proc *p = &QI(v)->p;

	return p->proc.exited ? p->proc.status : -1;
}

/*
 * The longest run_delay of QEMU's threads (/proc/PID/task/TID/schedstat:
 * on-CPU ns, runnable-but-waiting ns, slices): under -icount one thread
 * runs the guest, and its wait is the guest's. -1 when unreadable.
 */
static double qemu_run_delay_s(const struct vm_inst *v)
{
	const struct vm_proc *p = &QI(v)->p;
	char *dir, *path = NULL;
	unsigned long long worst = 0;
	bool any = false;
	struct dirent *e;
	DIR *d;

	if (p->proc.exited || p->proc.pid <= 0)
		return -1;
	dir = xasprintf("/proc/%d/task", (int)p->proc.pid);
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		unsigned long long on, wait;
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		free(path);
		path = xasprintf("%s/%s/schedstat", dir, e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%llu %llu", &on, &wait) == 2) {
			any = true;
			worst = wait > worst ? wait : worst;
		}
		fclose(f);
	}
	if (d)
		closedir(d);
	free(path);
	free(dir);
	return any ? (double)worst / 1e9 : -1;
}

static void qemu_release(struct vm_inst *v)
{
	struct qemu_inst *qi = QI(v);

	vm_release(&qi->p);
	free(qi);
}

static void qemu_close(struct vm_backend *b)
{
	free(QB(b));
}

/* No connections, nothing to describe: those ops stay NULL. */
const struct vm_backend_ops vm_backend_qemu = {
	.name = "qemu",
	.help = "QEMU processes of netlab's own, on this host (the default)",
	.accel = qemu_accel,
	.open = qemu_open,
	.start = qemu_start,
	.wait = qemu_wait,
	.ended = qemu_ended,
	.kill = qemu_kill,
	.status = qemu_status,
	.run_delay_s = qemu_run_delay_s,
	.release = qemu_release,
	.close = qemu_close,
	.debug = true,
};

/* ---- one boot, for a probe ----------------------------------------------- */

/* The guest's files (as run_execute() creates them), and its initrd. */
static int boot_files(struct vm_config *cfg, const char *base_initrd, const char *exec,
		      const char *dir, char **initrd, char **err)
{
	static const char *const files[] = { "console.log", "stdout", "stderr", "status",
					     "files.tar" };
	struct sbuf job;
	char *script;
	int ret = 0;

	for (size_t i = 0; !ret && i < ARRAY_SIZE(files); i++) {
		char *p = xasprintf("%s/%s", dir, files[i]);

		ret = file_write(p, "", 0);
		if (ret)
			err_set(err, "cannot write in '%s': %s", dir, strerror(-ret));
		free(p);
	}
	if (ret)
		return ret;
	*initrd = xasprintf("%s/initrd.img", dir);
	cfg->initrd = *initrd;
	cfg->vm_initrd[0] = *initrd;
	sbuf_init(&job);
	job_text(cfg, 0, &job);
	script = xasprintf("%s\n", exec);
	ret = initrd_assemble(*initrd, job.s, script, base_initrd, err);
	free(script);
	sbuf_release(&job);
	return ret;
}

static char *dir_file(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name), *text = NULL;

	file_read(path, &text, NULL);
	free(path);
	return text;
}

int vm_boot_once(const struct vm_config *cfg_in, const char *base_initrd, const char *exec,
		 const char *dir, bool *ok, char **err)
{
	struct vm_config cfg = *cfg_in;
	struct qemu_backend qb = { .b.ops = &vm_backend_qemu, .cfg = &cfg };
	struct vm_inst *v = NULL;
	char *initrd = NULL, *status, *console;
	double deadline;
	bool timed_out;
	int ret;

	*ok = false;
	ret = boot_files(&cfg, base_initrd, exec, dir, &initrd, err);
	if (!ret)
		ret = vm_backend_start(&qb.b, 0, &v, err);
	if (ret)
		goto out;
	deadline = now_s() + cfg.timeout_s;
	while (!vm_inst_wait(v, 100) && now_s() < deadline)
		;
	timed_out = !vm_inst_ended(v);
	vm_inst_kill(v, 2000);
	qemu_release(v);	/* this backend's own: vm/backend.c lists this file */
	status = dir_file(dir, "status");
	console = dir_file(dir, "console.log");
	/* What run_classify() calls "ok" for a VM of the direct backend. */
	*ok = !timed_out && !(console && strstr(console, "Kernel panic - not syncing")) &&
	      !vm_status_has(status, "timeout") && vm_status_has(status, "poweroff") &&
	      vm_status_exit(status) == 0;
	free(status);
	free(console);
out:
	free(initrd);
	return ret;
}

/* ---- the accelerator --------------------------------------------------- */

/* A KVM boot of the minimal kernel takes ~1 s; TCG ~3 s. */
#define ACCEL_PROBE_TIMEOUT_S 20

/* The cache's accel/ directory, created if need be; caller frees. */
static char *accel_dir(void)
{
	char *cache = cache_dir(), *dir = xasprintf("%s/accel", cache);

	mkdir_p(dir, 0755);
	free(cache);
	return dir;
}

static char *probe_cache_path(const char *qemu)
{
	struct utsname u;
	struct stat st;
	char *dir = accel_dir(), *path;
	char *qpath = NULL;

	uname(&u);
	/* Resolve the QEMU binary on PATH for its identity (size, mtime). */
	if (!strchr(qemu, '/')) {
		const char *env = getenv("PATH");
		char *dirs = xstrdup(env ? env : "/usr/bin:/bin"), *save = NULL;

		for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
			char *p = xasprintf("%s/%s", d, qemu);

			if (access(p, X_OK) == 0) {
				qpath = p;
				break;
			}
			free(p);
		}
		free(dirs);
	}
	memset(&st, 0, sizeof(st));
	stat(qpath ? qpath : qemu, &st);
	path = xasprintf("%s/%s-%lld-%lld", dir, u.release, (long long)st.st_size,
			 (long long)st.st_mtime);
	free(qpath);
	free(dir);
	return path;
}

/* The probe's configuration: the run's, in `dir`, under KVM, without NICs. */
static int probe_config(const struct vm_config *run, const char *dir, struct vm_config *p,
			char **err)
{
	*p = *run;
	p->accel = VM_ACCEL_KVM;
	p->topo = topology_find("none");
	memset(p->want_model, 0, sizeof(p->want_model));
	memset(p->nics, 0, sizeof(p->nics));
	p->n_nics = 0;
	p->initrd = NULL;
	memset(p->vm_initrd, 0, sizeof(p->vm_initrd));
	memset(p->vm_dir, 0, sizeof(p->vm_dir));
	p->sock_dir = NULL;
	p->rundir = dir;
	p->host_ack = false;
	p->icount_shift = -1;
	p->timeout_s = ACCEL_PROBE_TIMEOUT_S;
	return p->topo->setup(p, err);
}

static int probe_kvm(const struct vm_config *cfg, const char *initrd, bool *works, char **err)
{
	struct vm_config p;
	char *dir = accel_dir();
	char *tmpl = xasprintf("%s/probe.XXXXXX", dir);
	int ret;

	if (!mkdtemp(tmpl)) {
		ret = -errno;
		err_set(err, "cannot create '%s': %s", tmpl, strerror(errno));
		goto out;
	}
	ret = probe_config(cfg, tmpl, &p, err);
	if (!ret)
		ret = vm_boot_once(&p, initrd, "true", tmpl, works, err);
	*works &= !ret;
	rm_rf(tmpl);		/* the probe's directory is of no further use */
out:
	free(tmpl);
	free(dir);
	return ret;
}

int vm_accel_resolve(const struct vm_config *cfg, const char *base_initrd, enum vm_accel want,
		     enum vm_accel *out, char **why, char **err)
{
	char *path, *cached = NULL;
	bool works = false;
	int fd, ret;

	if (want == VM_ACCEL_AUTO && cfg->icount_shift >= 0) {
		*out = VM_ACCEL_TCG;
		*why = xstrdup("-icount (deterministic mode) needs TCG");
		return 0;
	}
	if (want != VM_ACCEL_AUTO) {
		*out = want;
		*why = xasprintf("--accel %s", vm_accel_name(want));
		return 0;
	}
	fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		*out = VM_ACCEL_TCG;
		*why = xasprintf("/dev/kvm: %s", strerror(errno));
		return 0;
	}
	close(fd);
	path = probe_cache_path(cfg->qemu);
	if (file_read(path, &cached, NULL) == 0 && vm_accel_parse(strtok(cached, "\n"), out) == 0 &&
	    *out != VM_ACCEL_AUTO) {
		*why = xasprintf("cached probe verdict (%s)", path);
		goto out;
	}
	ret = probe_kvm(cfg, base_initrd, &works, err);
	if (ret) {
		free(path);
		free(cached);
		return ret;
	}
	*out = works ? VM_ACCEL_KVM : VM_ACCEL_TCG;
	*why = xasprintf(works ? "probe: a KVM boot completed" :
				 "probe: /dev/kvm opens but a KVM boot did not complete in %d s",
			 ACCEL_PROBE_TIMEOUT_S);
	file_writef(path, "%s\n%s\n", vm_accel_name(*out), *why);
out:
	free(path);
	free(cached);
	return 0;
}
