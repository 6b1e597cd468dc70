// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm/vm.h"

/*
 * Its own process group: the harness kills the group, and a terminal's ^C
 * reaches only the harness, which then stops QEMU itself. PR_SET_PDEATHSIG:
 * QEMU never outlives the harness, even after a SIGKILL.
 */
int vm_spawn(struct vm_proc *p, const struct argv *argv, const char *log, char **err)
{
	int ret;

	memset(p, 0, sizeof(*p));
	proc_init(&p->proc, (const char *const *)argv->v);
	p->proc.stdin_mode = PROC_NULL;
	p->proc.stdout_mode = PROC_FILE;
	p->proc.stdout_path = log;
	p->proc.stderr_mode = PROC_TO_STDOUT;
	p->proc.own_group = true;
	p->proc.death_sig = SIGKILL;
	ret = proc_start(&p->proc, err);
	if (ret)
		proc_release(&p->proc);
	return ret;
}

bool vm_wait(struct vm_proc *p, int ms)
{
	proc_wait(&p->proc, ms);
	return p->proc.exited;
}

void vm_kill(struct vm_proc *p, int grace_ms)
{
	proc_kill(&p->proc, grace_ms);
}

void vm_release(struct vm_proc *p)
{
	proc_release(&p->proc);
}

static unsigned int parse_version(const char *out, char **text)
{
	const char *p = strstr(out, "version ");
	unsigned int a = 0, b = 0, c = 0;
	int n = 0;

	if (!p || sscanf(p + 8, "%u.%u%n.%u%n", &a, &b, &n, &c, &n) < 2 || a > 999 || b > 99 || c > 99)
		return 0;
	if (text)
		*text = xasprintf("%u.%u.%u", a, b, c);
	return a * 10000 + b * 100 + c;
}

unsigned int vm_qemu_version(const char *qemu, char **text)
{
	static char *cached_bin, *cached_text;
	static unsigned int cached;
	const char *argv[] = { qemu, "--version", NULL };
	struct proc p;
	char *out = NULL;

	if (text)
		*text = NULL;
	if (!qemu)
		return 0;
	if (!cached_bin || strcmp(cached_bin, qemu)) {
		proc_init(&p, argv);
		p.stdin_mode = PROC_NULL;
		p.stdout_mode = PROC_CAPTURE;
		if (proc_run(&p, 0, NULL) >= 0)
			out = proc_take_output(&p);
		proc_release(&p);
		free(cached_bin);
		free(cached_text);
		cached_text = NULL;
		cached = out ? parse_version(out, &cached_text) : 0;
		cached_bin = xstrdup(qemu);
		free(out);
	}
	if (text && cached_text)
		*text = xstrdup(cached_text);
	return cached;
}

int vm_qcow2_create(const char *path, char **err)
{
	const char *argv[] = { "qemu-img", "create", "-q", "-f", "qcow2", path, "1G", NULL };
	struct proc p;
	int ret;

	proc_init(&p, argv);
	ret = proc_run(&p, 0, NULL);
	proc_release(&p);
	if (ret) {
		err_set(err, "cannot create the snapshot disk '%s' with qemu-img\n"
			     "hint: record/replay needs qemu-img (Debian: qemu-utils)", path);
		return -EIO;
	}
	return 0;
}
