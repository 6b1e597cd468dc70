// SPDX-License-Identifier: GPL-2.0
/*
 * netlab guest agent: /init (PID 1) of the netlab guest.
 *
 * Mounts the pseudo filesystems, finds the named virtio-serial ports, reads
 * the job (NETLAB_JOB_FILE), applies sysctls, brings up the topology with
 * iproute2 (/sbin/ip), runs NETLAB_EXEC_FILE with its output on the ports,
 * streams NETLAB_GUEST_OUTDIR as a tar, and powers off. See netlab-proto.h.
 *
 * As PID 1 it never returns: every path ends in agent_poweroff(), which falls
 * back to pause() forever if even reboot(2) fails. The kernel runs with
 * panic=-1 and QEMU with -no-reboot, so a crash of the agent also ends the VM.
 *
 * Build (static, no libraries besides libc):
 *   make build/guest/netlab-agent (an object per file in build/guest/, so that
 *   the call graph between them can be checked: t20)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <poll.h>
#include <sys/reboot.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "agent-job.h"
#include "agent-int.h"
#include "agent-note.h"
#include "agent-pci.h"
#include "netlab-proto.h"


#define SH_BIN "/bin/sh"
#define TAR_BIN "/bin/busybox"
#define PORT_WAIT_MS 2000
#define REAP_WAIT_MS 2000

/*
 * busybox sh runs its own "ip" and "tc" applets before searching $PATH, and
 * those know nothing of netns, netem, etc. The command is sourced after two
 * functions that route the names to iproute2. (Commands started by busybox
 * applets such as env, timeout or xargs still get the applets: use /sbin/ip.)
 */
#define SH_PRELUDE "ip() { /sbin/ip \"$@\"; }; tc() { /sbin/tc \"$@\"; }; . " NETLAB_EXEC_FILE

/* SIGKILL every process but PID 1, then reap them, waiting at most @ms. */
static void kill_and_reap(long ms)
{
	long long deadline = agent_now_ms() + ms;

	kill(-1, SIGKILL);
	for (;;) {
		pid_t pid = waitpid(-1, NULL, WNOHANG);

		if (pid > 0)
			continue;
		if (pid < 0 || agent_now_ms() >= deadline)
			return;	/* ECHILD: nobody left */
		agent_sleep_ms(10);
	}
}

static void port_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/*
 * Hosts that stream the ports (libvirt) may still hold data when QEMU
 * exits: wait until the host says it has everything (one byte on the
 * status port). No guest-side timeout: under -icount with sleep=off an idle
 * guest's clock warps, and a 20 s wait passed in microseconds of host time.
 * The host bounds the wait (it acks at the latest 20 s after "poweroff",
 * and its run timeout ends the VM).
 */
static void wait_ack(struct agent *a)
{
	struct pollfd p = { .fd = a->status_fd, .events = POLLIN };
	ssize_t r = -1;
	int n = 0;
	char c;

	for (;;) {
		n = poll(&p, 1, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		r = read(a->status_fd, &c, 1);
		if (r == 1) {
			agent_say("the host has every port's data");
			return;
		}
		if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN))
			break;	/* the host side of the port went away */
	}
	agent_say("no ack from the host; powering off anyway (poll %d revents %#x, read %zd)", n,
	    p.revents, r);
}

/* The end of every path: report, flush, power off; never returns. */
static void __attribute__((noreturn)) agent_poweroff(struct agent *a)
{
	kill_and_reap(REAP_WAIT_MS);
	agent_status(a, "poweroff");
	agent_mark("%s", NETLAB_MARK_POWEROFF);
	/* Blocking virtio-serial writes return once the host took the data. */
	port_close(&a->stdout_fd);
	port_close(&a->stderr_fd);
	port_close(&a->files_fd);
	if (a->job.ack && a->status_fd >= 0)
		wait_ack(a);
	port_close(&a->status_fd);
	sync();
	tcdrain(STDERR_FILENO);
	reboot(RB_POWER_OFF);
	agent_say("reboot(RB_POWER_OFF) failed: %s; halting here", strerror(errno));
	for (;;)
		pause();
}

static void __attribute__((noreturn, format(printf, 2, 3))) fatal(struct agent *a,
								   const char *fmt, ...)
{
	char buf[ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	agent_status(a, "error %s", buf);
	agent_poweroff(a);
}

/* Guest uptime on the console, for boot-time measurements. */
static void say_uptime(void)
{
	char up[64];

	if (agent_read_small("/proc/uptime", up, sizeof(up)) > 0)
		agent_say("uptime %.*s s", (int)strcspn(up, " "), up);
}

/* ---- early boot: mounts and console ------------------------------------ */

static void mount_one(const char *src, const char *dir, const char *type, unsigned long flags,
		      const char *data)
{
	if (mkdir(dir, 0755) && errno != EEXIST && errno != ENOENT && errno != EROFS)
		agent_say("cannot create '%s': %s", dir, strerror(errno));
	if (!mount(src, dir, type, flags, data) || errno == EBUSY)
		return;
	if (errno == ENOENT || errno == ENODEV)
		agent_say("%s not mounted on '%s': %s (kernel built without it?)", type, dir,
		    strerror(errno));
	else
		agent_say("cannot mount %s on '%s': %s", type, dir, strerror(errno));
}

/* Make fds 0-2 the console if the kernel could not open it for us. */
static void console_setup(void)
{
	int fd, i;

	for (i = 0; i < 3; i++)
		if (fcntl(i, F_GETFD) < 0)
			break;
	if (i == 3)
		return;
	fd = open("/dev/console", O_RDWR | O_NOCTTY);
	if (fd < 0)
		return;	/* nothing to report it on */
	for (i = 0; i < 3; i++)
		if (fcntl(i, F_GETFD) < 0)
			dup2(fd, i);
	if (fd > 2)
		close(fd);
}

/*
 * The ring buffer starts on at boot, and the driver patches' trace_printk
 * lines go to it whether or not anyone records: turn it off, so that an
 * untraced run pays nothing for them. trace-cmd record (and start) turn it
 * on; a command that reads the buffer itself writes 1 to tracing_on.
 *
 * A kernel with trace_printk() in it also expands the top buffer at boot
 * (1410 KB per CPU). With SLOB, tinyconfig's allocator, an idle buffer's size
 * alone cost throughput on the NIC path (each of its pages has a small
 * descriptor on SLOB's first-fit list; Documentation/design/tracing-cost.md:
 * 20000 datagrams under -icount, 2.47 s with 4 KB against 2.63 s with
 * 1410 KB). With SLUB the size costs nothing, but netlab's kernel (tinyconfig)
 * and users' small kernels use SLOB, and an idle buffer is memory taken from
 * a small guest. So it is cut to the minimum, a page or two per CPU:
 * trace-cmd record sets its own size (-b) when it records there, and a
 * command that reads the buffer itself writes buffer_size_kb as it writes
 * tracing_on. An unpatched kernel starts unexpanded, so both kinds of kernel
 * run untraced with the same idle buffer.
 */
#define AGENT_TOP_BUFFER_KB "4\n"

static void tracing_off(void)
{
	static const char *const writes[][2] = {
		{ "/sys/kernel/tracing/tracing_on", "0\n" },
		{ "/sys/kernel/tracing/buffer_size_kb", AGENT_TOP_BUFFER_KB },
	};

	for (size_t i = 0; i < sizeof(writes) / sizeof(writes[0]); i++) {
		int fd = open(writes[i][0], O_WRONLY | O_CLOEXEC);
		size_t n = strlen(writes[i][1]);

		if (fd < 0 || write(fd, writes[i][1], n) != (ssize_t)n)
			agent_say("cannot write '%.*s' to %s: %s", (int)n - 1, writes[i][1],
				  writes[i][0], strerror(errno));
		if (fd >= 0)
			close(fd);
	}
}

static void mounts_setup(void)
{
	const unsigned long nosuid = MS_NOSUID | MS_NODEV | MS_NOEXEC;

	mount_one("devtmpfs", "/dev", "devtmpfs", MS_NOSUID, "mode=0755");
	console_setup();
	mount_one("proc", "/proc", "proc", nosuid, NULL);
	mount_one("sysfs", "/sys", "sysfs", nosuid, NULL);
	mount_one("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777");
	mount_one("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755");
	mount_one("tracefs", "/sys/kernel/tracing", "tracefs", nosuid, NULL);
	mount_one("debugfs", "/sys/kernel/debug", "debugfs", nosuid, NULL);
	tracing_off();
	/*
	 * As on systemd hosts, where iproute2 and friends are tested. (Not strictly
	 * needed: "ip netns add" makes /run/netns a shared mount itself.)
	 */
	if (mount(NULL, "/", NULL, MS_REC | MS_SHARED, NULL))
		agent_say("cannot make '/' shared: %s", strerror(errno));
}

/* ---- virtio-serial ports ----------------------------------------------- */

/* Is there a virtio console device (id 3), i.e. are ports worth waiting for? */
static bool virtio_console_present(void)
{
	DIR *d = opendir("/sys/bus/virtio/devices");
	struct dirent *e;
	bool found = false;
	char path[PATH_MAX], id[32];

	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/virtio/devices/%s/device", e->d_name);
		found = agent_read_small(path, id, sizeof(id)) > 0 && strtol(id, NULL, 0) == 3;
	}
	closedir(d);
	return found;
}

/*
 * Scan /sys/class/virtio-ports: put the device path of port @name in @dev.
 * Return 1 found, 0 not found; *unnamed counts ports whose name is not known yet.
 */
static int port_scan(const char *name, char *dev, size_t size, int *unnamed)
{
	DIR *d = opendir("/sys/class/virtio-ports");
	char path[PATH_MAX], pname[256];
	struct dirent *e;
	int found = 0, ports = 0;

	*unnamed = 0;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		ports++;
		snprintf(path, sizeof(path), "/sys/class/virtio-ports/%s/name", e->d_name);
		if (agent_read_small(path, pname, sizeof(pname)) <= 0) {
			(*unnamed)++;
			continue;
		}
		if (!found && !strcmp(pname, name)) {
			snprintf(dev, size, "/dev/%s", e->d_name);
			found = 1;
		}
	}
	closedir(d);
	if (!ports)
		(*unnamed)++;	/* the device is there but has announced no port yet */
	return found;
}

/* Open port @name for writing; -1 if it does not exist. */
static int port_open(const char *name, long long deadline)
{
	char dev[PATH_MAX];
	int unnamed, fd;

	while (!port_scan(name, dev, sizeof(dev), &unnamed)) {
		if (!unnamed || agent_now_ms() >= deadline) {
			agent_say("no virtio-serial port '%s'", name);
			return -1;
		}
		agent_sleep_ms(10);
	}
	/* Read-write: the status port carries the host's ack (job key "ack"). */
	fd = open(dev, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		agent_say("cannot open port '%s' (%s): %s", name, dev, strerror(errno));
	return fd;
}

static void ports_open(struct agent *a)
{
	long long deadline = agent_now_ms() + PORT_WAIT_MS;

	if (!virtio_console_present()) {
		agent_say("no virtio-serial device: all output goes to the console");
		return;
	}
	a->status_fd = port_open(NETLAB_PORT_STATUS, deadline);
	a->stdout_fd = port_open(NETLAB_PORT_STDOUT, deadline);
	a->stderr_fd = port_open(NETLAB_PORT_STDERR, deadline);
	a->files_fd = port_open(NETLAB_PORT_FILES, deadline);
}

/* ---- the job ------------------------------------------------------------ */

static void job_warn(void *ctx, unsigned int lineno, const char *msg)
{
	(void)ctx;
	agent_say("%s:%u: %s (line ignored)", NETLAB_JOB_FILE, lineno, msg);
}

static void job_load(struct agent *a)
{
	struct stat st;
	char *text;
	ssize_t n;
	int fd;

	fd = open(NETLAB_JOB_FILE, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		fatal(a, "cannot read job '%s': %s", NETLAB_JOB_FILE, strerror(errno));
	text = malloc(st.st_size + 1);
	if (!text)
		fatal(a, "cannot read job '%s': %s", NETLAB_JOB_FILE, strerror(ENOMEM));
	n = read(fd, text, st.st_size);
	if (n < 0)
		fatal(a, "cannot read job '%s': %s", NETLAB_JOB_FILE, strerror(errno));
	close(fd);
	text[n] = '\0';
	if (job_parse(&a->job, text, job_warn, NULL))
		fatal(a, "cannot parse job '%s': %s", NETLAB_JOB_FILE, strerror(ENOMEM));
	free(text);
	if (a->job.version > NETLAB_PROTO_VERSION)
		agent_say("job version %d is newer than this agent's %d: unknown keys are ignored",
		    a->job.version, NETLAB_PROTO_VERSION);
}

/* mkdir -p @path (absolute); 0 or -errno. */
static int mkdir_p(const char *path)
{
	char buf[PATH_MAX];

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (char *p = buf + 1;; p++) {
		if (*p && *p != '/')
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		if (!c)
			return 0;
		*p = c;
	}
}

/* The job's share.* over virtio-9p, before anything runs; a failure ends the run. */
static void shares_mount(struct agent *a)
{
	for (size_t i = 0; i < a->job.n_shares; i++) {
		const char *tag = a->job.shares[i].name, *v = a->job.shares[i].value;
		bool ro = v[1] == 'o';
		const char *path = v + 3;
		int e = mkdir_p(path);

		if (!e && mount(tag, path, "9p", ro ? MS_RDONLY : 0,
				"trans=virtio,version=9p2000.L,msize=262144,cache=none"))
			e = -errno;
		if (e)
			fatal(a, "cannot mount share '%s' on '%s': %s", tag, path, strerror(-e));
		agent_say("share '%s' mounted on '%s' (%s)", tag, path, ro ? "read-only" : "read-write");
	}
}

/* ---- child processes ---------------------------------------------------- */

/* In a fresh child: default signal mask, as exec(2) keeps it. */
static void child_reset(void)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* Wait for @pid only (others stay for kill_and_reap); return its wait status or -errno. */
static int wait_for(pid_t pid)
{
	int ws;

	while (waitpid(pid, &ws, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return ws;
}

/* Exit status as the protocol reports it: 0..255, or 128+signal. */
static int exit_code(int ws)
{
	if (WIFEXITED(ws))
		return WEXITSTATUS(ws);
	if (WIFSIGNALED(ws))
		return 128 + WTERMSIG(ws);
	return 255;
}

/* Read the child's output from @fd into @out (truncated), copying all of it to the console. */
static void drain_output(int fd, char *out, size_t size)
{
	size_t len = 0;
	char buf[512];
	ssize_t n;

	out[0] = '\0';
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		agent_console(buf, n);
		if (len + 1 < size) {
			size_t take = (size_t)n < size - len - 1 ? (size_t)n : size - len - 1;

			memcpy(out + len, buf, take);
			len += take;
			out[len] = '\0';
		}
	}
}

/*
 * Run @path with @argv; its stdout and stderr go to the console and, truncated,
 * to @out. Return its wait status, or -errno if it could not be started.
 */
int agent_run_captured(const char *path, const char *const *argv, char *out, size_t size)
{
	int pipefd[2], err;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid == 0) {
		child_reset();
		dup2(pipefd[1], STDOUT_FILENO);
		dup2(pipefd[1], STDERR_FILENO);
		execv(path, (char **)argv);
		dprintf(STDERR_FILENO, "cannot run '%s': %s\n", path, strerror(errno));
		_exit(127);
	}
	err = errno;
	close(pipefd[1]);
	if (pid > 0)
		drain_output(pipefd[0], out, size);
	close(pipefd[0]);
	return pid < 0 ? -err : wait_for(pid);
}

/* ---- the command --------------------------------------------------------- */

/* PATH, HOME, TERM, then the job's env.* (which may override them). NULL on ENOMEM. */
static char **command_env(const struct job *job)
{
	static const char *const base[] = {
		"PATH=/sbin:/bin:/usr/sbin:/usr/bin:/netlab/bin", "HOME=/root", "TERM=dumb",
	};
	char **env = calloc(3 + job->n_envs + 1, sizeof(*env));
	size_t n = 0, i, k;

	if (!env)
		return NULL;
	for (i = 0; i < 3; i++)
		env[n++] = (char *)base[i];
	for (i = 0; i < job->n_envs; i++) {
		const struct job_var *v = &job->envs[i];
		size_t len = strlen(v->name);

		for (k = 0; k < n; k++)
			if (!strncmp(env[k], v->name, len) && env[k][len] == '=')
				break;
		if (asprintf(&env[k], "%s=%s", v->name, v->value) < 0)
			return NULL;	/* PID 1 powers off next: nothing to free */
		if (k == n)
			n++;
	}
	return env;
}

/* Child side: new session, cwd /, stdin /dev/null, stdout/stderr to the ports, notes on fd 3. */
static void __attribute__((noreturn)) command_exec(const struct agent *a, char **env, int note_fd)
{
	char *argv[] = { "sh", "-c", SH_PRELUDE, NETLAB_EXEC_FILE, NULL };
	int null;

	child_reset();
	setsid();
	if (chdir("/"))
		agent_say("cannot chdir to '/': %s", strerror(errno));
	null = open("/dev/null", O_RDONLY);
	if (null >= 0 && null != STDIN_FILENO) {
		dup2(null, STDIN_FILENO);
		close(null);
	}
	if (a->stdout_fd >= 0)
		dup2(a->stdout_fd, STDOUT_FILENO);
	if (a->stderr_fd >= 0)
		dup2(a->stderr_fd, STDERR_FILENO);
	/* dup2() onto itself keeps O_CLOEXEC: clear it then */
	if (note_fd == NETLAB_NOTE_FD)
		fcntl(note_fd, F_SETFD, 0);
	else if (note_fd >= 0)
		dup2(note_fd, NETLAB_NOTE_FD);
	execve(SH_BIN, argv, env);
	dprintf(STDERR_FILENO, "netlab-agent: cannot run '%s': %s\n", SH_BIN, strerror(errno));
	_exit(127);
}

struct notes {
	const struct agent *a;
	int fd;			/* the pipe's read end, non-blocking; -1 without one */
	struct note_reader r;
};

static void note_emit(const char *line, void *arg)
{
	agent_status(((struct notes *)arg)->a, "note %s", line);
}

/* Forward what the note pipe holds now (a bounded amount: the rest waits). */
static void notes_drain(struct notes *nt)
{
	char buf[4096];
	ssize_t n;

	for (int i = 0; nt->fd >= 0 && i < 16; i++) {
		n = read(nt->fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		note_feed(&nt->r, buf, (size_t)n, note_emit, nt);
	}
}

/*
 * Reap every child until @pid ends; SIGCHLD is blocked, so it is waited for with
 * sigtimedwait(). After @timeout seconds (0: never) kill @pid's process group.
 * Forward the notes as they come. Return @pid's wait status.
 */
static int command_wait(const struct agent *a, pid_t pid, unsigned int timeout, struct notes *nt)
{
	long long deadline = timeout ? agent_now_ms() + timeout * 1000LL : 0, left;
	struct timespec ts;
	sigset_t chld;
	pid_t got;
	int ws;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	for (;;) {
		notes_drain(nt);
		while ((got = waitpid(-1, &ws, WNOHANG)) > 0)
			if (got == pid) {
				notes_drain(nt);	/* what it wrote last */
				return ws;
			}
		if (got < 0 && errno != EINTR)
			return -1;	/* ECHILD: cannot happen while @pid lives */
		if (deadline && agent_now_ms() >= deadline) {
			kill(-pid, SIGKILL);
			agent_status(a, "timeout");
			deadline = 0;
		}
		left = deadline ? deadline - agent_now_ms() : 1000;
		left = left > 1000 ? 1000 : left < 1 ? 1 : left;
		ts.tv_sec = left / 1000;
		ts.tv_nsec = left % 1000 * 1000000L;
		sigtimedwait(&chld, NULL, &ts);
	}
}

static void command_run(struct agent *a)
{
	struct notes nt = { .a = a, .fd = -1 };
	int ws, pfd[2] = { -1, -1 };
	char **env;
	pid_t pid;

	if (access(NETLAB_EXEC_FILE, R_OK))
		fatal(a, "cannot read command '%s': %s", NETLAB_EXEC_FILE, strerror(errno));
	env = command_env(&a->job);
	if (!env)
		fatal(a, "cannot build the environment: %s", strerror(ENOMEM));
	if (pipe2(pfd, O_CLOEXEC))
		agent_say("no note pipe: %s", strerror(errno));	/* the host misses the notes */
	pid = fork();
	if (pid < 0)
		fatal(a, "cannot fork the command: %s", strerror(errno));
	if (pid == 0)
		command_exec(a, env, pfd[1]);
	if (pfd[1] >= 0) {
		close(pfd[1]);
		nt.fd = pfd[0];
		fcntl(nt.fd, F_SETFL, O_NONBLOCK);
	}
	agent_status(a, "exec %d", (int)pid);
	agent_mark("%s %d", NETLAB_MARK_EXEC, (int)pid);
	ws = command_wait(a, pid, a->job.timeout, &nt);
	if (nt.r.bad)
		agent_say("dropped %u malformed or surplus note lines", nt.r.bad);
	if (nt.fd >= 0)
		close(nt.fd);
	if (ws < 0)
		fatal(a, "lost the command (pid %d): %s", (int)pid, strerror(errno));
	agent_status(a, "exit %d", exit_code(ws));
	agent_mark("%s %d", NETLAB_MARK_EXIT, exit_code(ws));
	kill_and_reap(REAP_WAIT_MS);
}

/* ---- output files and main ----------------------------------------------- */

static bool dir_has_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	bool found = false;

	if (!d)
		return false;
	while (!found && (e = readdir(d)))
		found = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return found;
}

/* Stream a tar of NETLAB_GUEST_OUTDIR to the files port. */
static void files_send(const struct agent *a)
{
	pid_t pid;
	int ws;

	if (a->files_fd < 0 || !dir_has_entries(NETLAB_GUEST_OUTDIR))
		return;
	pid = fork();
	if (pid == 0) {
		child_reset();
		dup2(a->files_fd, STDOUT_FILENO);
		execl(TAR_BIN, "tar", "-C", NETLAB_GUEST_OUTDIR, "-cf", "-", ".", (char *)NULL);
		dprintf(STDERR_FILENO, "netlab-agent: cannot run '%s': %s\n", TAR_BIN,
			strerror(errno));
		_exit(127);
	}
	if (pid < 0) {
		agent_say("cannot fork tar: %s", strerror(errno));
		return;
	}
	ws = wait_for(pid);
	if (ws)
		agent_say("tar of '%s' failed (wait status %#x)", NETLAB_GUEST_OUTDIR, ws);
	else
		agent_say("sent '%s' to port '%s'", NETLAB_GUEST_OUTDIR, NETLAB_PORT_FILES);
}

static int finit_module_fd(int fd)
{
	return syscall(SYS_finit_module, fd, "", 0) ? -errno : 0;
}

/* --modules: the host's modules, before the ports (virtio_console) and the NICs. */
static void modules_load(void)
{
	int n = agent_modules_load("/netlab/modules", finit_module_fd, agent_say);

	if (n > 0)
		agent_say("loaded %d modules", n);
}

int main(void)
{
	struct agent a = { .status_fd = -1, .stdout_fd = -1, .stderr_fd = -1, .files_fd = -1 };
	sigset_t chld;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	mounts_setup();
	agent_mark("%s", NETLAB_MARK_AGENT);
	say_uptime();
	modules_load();
	ports_open(&a);
	agent_status(&a, "agent %d", NETLAB_PROTO_VERSION);
	a.root_netns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (a.root_netns < 0)
		fatal(&a, "cannot open '/proc/self/ns/net': %s", strerror(errno));
	job_load(&a);
	shares_mount(&a);
	if (agent_topology_up(&a) == 0)
		command_run(&a);
	files_send(&a);
	agent_poweroff(&a);
}
