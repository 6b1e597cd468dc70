// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vm/vm.h"

static void child_exec(const struct argv *argv, int logfd, pid_t parent)
{
	int null = open("/dev/null", O_RDONLY);

	/* Own process group: the harness kills the group, and a terminal's
	 * ^C reaches only the harness, which then stops QEMU itself. */
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	if (null >= 0)
		dup2(null, 0);
	dup2(logfd, 1);
	dup2(logfd, 2);
	execvp(argv->v[0], argv->v);
	dprintf(2, "netlab: cannot execute '%s': %s\n", argv->v[0], strerror(errno));
	_exit(127);
}

int vm_spawn(struct vm_proc *p, const struct argv *argv, const char *log, char **err)
{
	pid_t parent = getpid();
	int logfd;

	memset(p, 0, sizeof(*p));
	p->pidfd = -1;
	logfd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (logfd < 0) {
		int e = errno;

		err_set(err, "cannot create '%s': %s", log, strerror(e));
		return -e;
	}
	p->pid = fork();
	if (p->pid < 0) {
		int e = errno;

		close(logfd);
		err_set(err, "cannot fork: %s", strerror(e));
		return -e;
	}
	if (p->pid == 0)
		child_exec(argv, logfd, parent);
	close(logfd);
	setpgid(p->pid, p->pid);
	p->pidfd = (int)syscall(SYS_pidfd_open, p->pid, 0);
	return 0;
}

bool vm_wait(struct vm_proc *p, int ms)
{
	if (p->exited)
		return true;
	if (p->pidfd >= 0) {
		struct pollfd pfd = { .fd = p->pidfd, .events = POLLIN };

		if (poll(&pfd, 1, ms) == 0)
			return false;
	} else if (ms > 0) {
		usleep((useconds_t)ms * 1000);
	}
	if (waitpid(p->pid, &p->status, WNOHANG) == p->pid)
		p->exited = true;
	return p->exited;
}

void vm_kill(struct vm_proc *p, int grace_ms)
{
	if (p->pid <= 0 || p->exited)
		return;
	kill(-p->pid, SIGTERM);
	kill(p->pid, SIGTERM);
	if (vm_wait(p, grace_ms))
		return;
	kill(-p->pid, SIGKILL);
	kill(p->pid, SIGKILL);
	if (waitpid(p->pid, &p->status, 0) == p->pid)
		p->exited = true;
}

void vm_release(struct vm_proc *p)
{
	if (p->pidfd >= 0)
		close(p->pidfd);
	p->pidfd = -1;
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
	struct argv a;
	char *out = NULL;

	if (text)
		*text = NULL;
	if (!qemu)
		return 0;
	if (!cached_bin || strcmp(cached_bin, qemu)) {
		argv_init(&a);
		argv_add(&a, qemu);
		argv_add(&a, "--version");
		spawn_capture(&a, &out);
		argv_release(&a);
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
	char *const argv[] = { "qemu-img", "create", "-q", "-f", "qcow2", (char *)path, "1G", NULL };
	int status = -1;
	pid_t pid;

	if (posix_spawnp(&pid, "qemu-img", NULL, NULL, argv, environ) ||
	    waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		err_set(err, "cannot create the snapshot disk '%s' with qemu-img\n"
			     "hint: record/replay needs qemu-img (Debian: qemu-utils)", path);
		return -EIO;
	}
	return 0;
}
