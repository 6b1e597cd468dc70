// SPDX-License-Identifier: GPL-2.0
/*
 * Child processes, one way (proc.h): fork, set the child up, exec; the
 * child tells us over a close-on-exec pipe why it could not exec, so that a
 * missing program is an error of proc_start() and not an exit status 127.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/proc.h"

extern char **environ;

void proc_init(struct proc *p, const char *const *argv)
{
	memset(p, 0, sizeof(*p));
	p->argv = argv;
	p->pidfd = -1;
	p->outfd = -1;
}

/* ---- starting ---------------------------------------------------------------- */

/* What the child could not do, sent to the parent before it exits 127. */
struct child_report {
	int what;	/* CHILD_CHDIR or CHILD_EXEC */
	int err;	/* errno */
};

enum { CHILD_CHDIR = 1, CHILD_EXEC };

/* A close-on-exec descriptor above 2, so that no dup2() in the child
 * overwrites another that is still to be placed. */
static int fd_above_stdio(int fd)
{
	int high, e;

	if (fd < 0 || fd > 2)
		return fd;
	high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	e = errno;
	close(fd);
	errno = e;
	return high;
}

/* The descriptor the child gets as `which` (0, 1, 2) in *fd, -1 when it
 * keeps ours (or, for stderr, takes stdout's). */
static int open_stream(struct proc *p, int which, enum proc_io mode, const char *path, int *fd,
		       char **err)
{
	int flags = which ? O_WRONLY | O_CREAT | O_CLOEXEC : O_RDONLY | O_CLOEXEC, e;
	int pipefd[2];

	*fd = -1;
	if (mode == PROC_INHERIT || (mode == PROC_TO_STDOUT && which == 2))
		return 0;
	if (mode == PROC_CAPTURE && which == 1) {
		if (pipe2(pipefd, O_CLOEXEC)) {
			e = errno;
			err_set(err, "cannot run '%s': no pipe: %s", p->argv[0], strerror(e));
			return -e;
		}
		fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
		p->outfd = fd_above_stdio(pipefd[0]);
		*fd = fd_above_stdio(pipefd[1]);
		if (p->outfd >= 0 && *fd >= 0)
			return 0;
		e = errno;
		err_set(err, "cannot run '%s': %s", p->argv[0], strerror(e));
		return -e;	/* proc_start() closes what is open */
	}
	if (mode == PROC_NULL) {
		path = "/dev/null";
		flags &= ~O_CREAT;
	} else if (mode == PROC_FILE || (mode == PROC_APPEND && which)) {
		if (!path) {
			err_set(err, "cannot run '%s': its fd %d goes to a file, but none is named",
				p->argv[0], which);
			return -EINVAL;
		}
		if (which)
			flags |= mode == PROC_APPEND ? O_APPEND : O_TRUNC;
	} else {
		err_set(err, "cannot run '%s': redirection %d is not one for fd %d", p->argv[0],
			(int)mode, which);
		return -EINVAL;
	}
	*fd = fd_above_stdio(open(path, flags, 0644));
	if (*fd < 0) {
		e = errno;
		err_set(err, "cannot %s '%s': %s", which ? "create" : "read", path, strerror(e));
		return -e;
	}
	return 0;
}

/* NAME=VALUE entries of `add` over our environment (NULL: ours as it is). */
static char **env_build(const char *const *add)
{
	size_t n = 0, m = 0, k = 0;
	char **v;

	if (!add)
		return NULL;
	while (environ && environ[n])
		n++;
	while (add[m])
		m++;
	v = xrealloc_array(NULL, n + m + 1, sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		size_t len = strcspn(environ[i], "=");
		bool over = false;

		for (size_t j = 0; j < m && !over; j++)
			over = !strncmp(add[j], environ[i], len) && add[j][len] == '=';
		if (!over)
			v[k++] = environ[i];
	}
	for (size_t j = 0; j < m; j++)
		v[k++] = (char *)add[j];
	v[k] = NULL;
	return v;
}

/* In the child, between fork() and exec: async-signal-safe calls only. */
static void child(const struct proc *p, const int fd[3], char *const *envp, pid_t parent,
		  int report)
{
	struct child_report r = { .what = CHILD_CHDIR };

	/* Its own group: we end the group, and a terminal's ^C reaches only us. */
	if (p->own_group)
		setpgid(0, 0);
	if (p->death_sig) {
		prctl(PR_SET_PDEATHSIG, p->death_sig);
		if (getppid() != parent)	/* we died before prctl() */
			_exit(127);
	}
	if (p->default_signals) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
	}
	for (int i = 0; i < 3; i++)
		if (fd[i] >= 0)
			dup2(fd[i], i);
	if (p->stderr_mode == PROC_TO_STDOUT)
		dup2(1, 2);
	if (!p->cwd || !chdir(p->cwd)) {
		r.what = CHILD_EXEC;
		execvpe(p->argv[0], (char *const *)p->argv, envp);
	}
	r.err = errno;
	if (write(report, &r, sizeof(r)) < 0)
		_exit(127);
	_exit(127);
}

/* The child could not exec: why, for the user. */
static void report_error(const struct proc *p, const struct child_report *r, char **err)
{
	const char *name = p->argv[0];

	if (r->what == CHILD_CHDIR)
		err_set(err, "cannot run '%s' in '%s': %s", name, p->cwd, strerror(r->err));
	else if (r->err == ENOENT && !strchr(name, '/'))
		err_set(err, "cannot run '%s': not found in $PATH\nhint: install it, or add its directory to $PATH",
			name);
	else
		err_set(err, "cannot run '%s': %s", name, strerror(r->err));
}

int proc_start(struct proc *p, char **err)
{
	int fd[3] = { -1, -1, -1 }, report[2] = { -1, -1 }, ret = 0;
	struct child_report r;
	pid_t parent = getpid();
	char **envp = NULL;
	ssize_t n;

	p->pid = 0;
	p->exited = p->timed_out = p->output_cut = p->exec_failed = false;
	p->status = 0;
	p->pidfd = p->outfd = -1;
	sbuf_release(&p->output);
	if (!p->argv || !p->argv[0]) {
		err_set(err, "cannot run an empty command");
		return -EINVAL;
	}
	ret = open_stream(p, 0, p->stdin_mode, p->stdin_path, &fd[0], err);
	if (!ret)
		ret = open_stream(p, 1, p->stdout_mode, p->stdout_path, &fd[1], err);
	if (!ret)
		ret = open_stream(p, 2, p->stderr_mode, p->stderr_path, &fd[2], err);
	if (!ret && pipe2(report, O_CLOEXEC)) {
		ret = -errno;
		err_set(err, "cannot run '%s': %s", p->argv[0], strerror(-ret));
	}
	if (ret)
		goto out;
	envp = env_build(p->env);
	if (p->stdout_mode == PROC_CAPTURE)
		sbuf_init(&p->output);
	fflush(NULL);
	p->pid = fork();
	if (p->pid == 0)
		child(p, fd, envp ? envp : environ, parent, report[1]);
	if (p->pid < 0) {
		ret = -errno;
		p->pid = 0;
		err_set(err, "cannot fork to run '%s': %s", p->argv[0], strerror(-ret));
		goto out;
	}
	/* Both sides set the group: a kill(-pid) right after fork() reaches it. */
	if (p->own_group)
		setpgid(p->pid, p->pid);
	close(report[1]);
	report[1] = -1;
	do
		n = read(report[0], &r, sizeof(r));
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(r)) {
		while (waitpid(p->pid, &p->status, 0) < 0 && errno == EINTR)
			;
		p->pid = 0;
		p->exec_failed = r.what == CHILD_EXEC;
		report_error(p, &r, err);
		ret = -r.err;
		goto out;
	}
	p->pidfd = (int)syscall(SYS_pidfd_open, p->pid, 0);
out:
	for (int i = 0; i < 3; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	for (int i = 0; i < 2; i++)
		if (report[i] >= 0)
			close(report[i]);
	if (ret && p->outfd >= 0) {
		close(p->outfd);
		p->outfd = -1;
	}
	free(envp);
	return ret;
}

/* ---- waiting ----------------------------------------------------------------- */

static void reap(struct proc *p, bool block)
{
	pid_t r;

	if (p->pid <= 0 || p->exited)
		return;
	do
		r = waitpid(p->pid, &p->status, block ? 0 : WNOHANG);
	while (block && r < 0 && errno == EINTR);
	if (r == p->pid)
		p->exited = true;
}

/* One read of the capture: kept up to the bound, the rest dropped. */
static void read_output(struct proc *p)
{
	size_t max = p->capture_max ? p->capture_max : PROC_CAPTURE_MAX;
	char chunk[65536];
	ssize_t n = read(p->outfd, chunk, sizeof(chunk));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close(p->outfd);
		p->outfd = -1;
		return;
	}
	if (p->output.len + (size_t)n > max) {
		p->output_cut = true;
		n = (ssize_t)(max - p->output.len);
	}
	sbuf_add(&p->output, chunk, (size_t)n);
}

bool proc_wait(struct proc *p, int ms)
{
	double end = now_s() + (ms > 0 ? ms : 0) / 1000.0;

	if (p->pid <= 0)
		return p->exited;
	for (bool first = true;; first = false) {
		struct pollfd pfd[2];
		nfds_t n = 0;
		int left = -1, r;

		reap(p, false);
		if (p->exited && p->outfd < 0)
			return true;
		if (ms >= 0) {
			double l = (end - now_s()) * 1000.0;

			left = l > 0 ? (int)l + 1 : 0;
			if (!first && left == 0)
				break;
		}
		if (p->outfd >= 0)
			pfd[n++] = (struct pollfd){ .fd = p->outfd, .events = POLLIN };
		if (p->pidfd >= 0 && !p->exited)
			pfd[n++] = (struct pollfd){ .fd = p->pidfd, .events = POLLIN };
		if (!n) {
			/* No pidfd (a kernel before 5.3): look again in a while. */
			if (left < 0) {
				reap(p, true);
				continue;
			}
			if (left && usleep((useconds_t)(left < 50 ? left : 50) * 1000) < 0)
				break;
			continue;
		}
		r = poll(pfd, n, left);
		if (r < 0 && errno == EINTR)
			break;
		if (r > 0 && p->outfd >= 0 && pfd[0].revents)
			read_output(p);
	}
	reap(p, false);
	return p->exited;
}

int proc_signal(struct proc *p, int sig)
{
	if (p->pid <= 0 || p->exited)
		return -ESRCH;
	return kill(p->pid, sig) ? -errno : 0;
}

void proc_kill(struct proc *p, int grace_ms)
{
	if (p->pid <= 0 || p->exited)
		return;
	if (p->own_group)
		kill(-p->pid, SIGTERM);
	kill(p->pid, SIGTERM);
	if (!proc_wait(p, grace_ms)) {
		if (p->own_group)
			kill(-p->pid, SIGKILL);
		kill(p->pid, SIGKILL);
		reap(p, true);
	}
	/* What is left of its group (a child that ignores SIGTERM) goes now. */
	if (p->own_group)
		kill(-p->pid, SIGKILL);
}

int proc_run(struct proc *p, int timeout_ms, char **err)
{
	double end = now_s() + timeout_ms / 1000.0;
	int ret = proc_start(p, err);

	if (ret)
		return ret;
	for (;;) {
		int left = -1;

		if (timeout_ms > 0) {
			double l = (end - now_s()) * 1000.0;

			left = l > 0 ? (int)l + 1 : 0;
		}
		if (proc_wait(p, left) && p->outfd < 0)
			break;
		if (timeout_ms > 0 && now_s() >= end) {
			/* Past the timeout: end it, or stop reading what a
			 * process it left behind still holds open. */
			if (!p->exited) {
				p->timed_out = true;
				proc_kill(p, PROC_KILL_GRACE_MS);
			}
			break;
		}
	}
	if (p->timed_out) {
		err_set(err, "'%s' did not end within %d s and was killed\nhint: see what it was waiting for; it may need more time",
			p->argv[0], (timeout_ms + 999) / 1000);
		return -ETIMEDOUT;
	}
	return proc_exit_code(p);
}

/* ---- how it ended ------------------------------------------------------------ */

int proc_exit_code(const struct proc *p)
{
	if (!p->exited)
		return -1;
	if (WIFEXITED(p->status))
		return WEXITSTATUS(p->status);
	return 128 + (WIFSIGNALED(p->status) ? WTERMSIG(p->status) : 0);
}

const char *proc_how(struct proc *p)
{
	size_t n = sizeof(p->how);
	int st = p->status;

	if (!p->exited)
		snprintf(p->how, n, "%s", p->pid > 0 ? "is still running" : "never started");
	else if (p->timed_out)
		snprintf(p->how, n, "was killed at its timeout");
	else if (WIFEXITED(st))
		snprintf(p->how, n, "exited with status %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(p->how, n, "was killed by signal %d (%s)", WTERMSIG(st),
			 strsignal(WTERMSIG(st)));
	else
		snprintf(p->how, n, "ended (wait status 0x%x)", (unsigned int)st);
	return p->how;
}

char *proc_take_output(struct proc *p)
{
	return p->output.s ? sbuf_detach(&p->output) : NULL;
}

void proc_release(struct proc *p)
{
	/* Descriptors are open only after a start (pid 0 before and after a
	 * failed one): a zeroed struct's 0s are not ours to close. */
	if (p->pid > 0 && p->pidfd >= 0)
		close(p->pidfd);
	if (p->pid > 0 && p->outfd >= 0)
		close(p->outfd);
	p->pidfd = p->outfd = -1;
	sbuf_release(&p->output);
}

#define DECODE_MAX_AS (3ull << 30)
#define DECODE_CPU_S_BASE 120
#define DECODE_CPU_S_PER_MB 2

void proc_decode_limits(const char *path)
{
	struct rlimit as = { DECODE_MAX_AS, DECODE_MAX_AS }, cpu;
	struct stat st;
	rlim_t mb = !path || stat(path, &st) ? 0 : (rlim_t)(st.st_size >> 20);

	cpu.rlim_cur = DECODE_CPU_S_BASE + DECODE_CPU_S_PER_MB * mb;
	cpu.rlim_max = cpu.rlim_cur + 5;
	setrlimit(RLIMIT_AS, &as);
	setrlimit(RLIMIT_CPU, &cpu);
}
