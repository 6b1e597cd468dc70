// SPDX-License-Identifier: GPL-2.0
/*
 * Accelerator choice. "/dev/kvm opens" is not enough: on some hosts (nested
 * virtualisation) KVM_CREATE_VM succeeds but a guest hangs early in boot. So
 * `auto` boots the kernel once under KVM with a short timeout and falls back
 * to TCG, caching the verdict per (host kernel, QEMU binary).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "vm/backend.h"

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
