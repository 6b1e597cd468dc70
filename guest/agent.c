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
 *   gcc -static -O2 -Wall -Wextra -Iguest -o build/guest/netlab-agent \
 *	guest/agent.c guest/agent-job.c
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
#include "netlab-proto.h"

#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP 0x10000	/* <linux/if.h>, which clashes with <net/if.h> */
#endif
#ifndef IF_OPER_UP
#define IF_OPER_UP 6
#endif

#define IP_BIN "/sbin/ip"
#define SH_BIN "/bin/sh"
#define TAR_BIN "/bin/busybox"
#define ERRLEN 512
#define LINK_WAIT_MS 5000
#define PORT_WAIT_MS 2000
#define REAP_WAIT_MS 2000

/*
 * busybox sh runs its own "ip" and "tc" applets before searching $PATH, and
 * those know nothing of netns, netem, etc. The command is sourced after two
 * functions that route the names to iproute2. (Commands started by busybox
 * applets such as env, timeout or xargs still get the applets: use /sbin/ip.)
 */
#define SH_PRELUDE "ip() { /sbin/ip \"$@\"; }; tc() { /sbin/tc \"$@\"; }; . " NETLAB_EXEC_FILE

/* Everything the agent holds; ports are -1 when absent. */
struct agent {
	int status_fd;
	int stdout_fd;
	int stderr_fd;
	int files_fd;
	int root_netns;		/* fd of the initial network namespace */
	struct job job;
};

/* Best effort: a console that fails has no one to complain to. */
static void console_copy(const char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(STDERR_FILENO, buf, n);

		if (w <= 0)
			return;
		buf += w;
		n -= w;
	}
}

/* Format one line into @buf, newline added, truncated to fit; return its length. */
static int vline(char *buf, size_t size, const char *fmt, va_list ap)
{
	int n = vsnprintf(buf, size - 1, fmt, ap);

	n = n < 0 ? 0 : n > (int)size - 2 ? (int)size - 2 : n;
	buf[n++] = '\n';
	return n;
}

/* A message on the console: "netlab-agent: <text>". */
static void __attribute__((format(printf, 1, 2))) say(const char *fmt, ...)
{
	static const char prefix[] = "netlab-agent: ";
	char buf[1024];
	va_list ap;
	int n;

	memcpy(buf, prefix, sizeof(prefix) - 1);
	va_start(ap, fmt);
	n = vline(buf + sizeof(prefix) - 1, sizeof(buf) - sizeof(prefix) + 1, fmt, ap);
	va_end(ap);
	console_copy(buf, sizeof(prefix) - 1 + n);
}

/* A NETLAB_MARK_* line on the console (the markers carry their own prefix). */
static void __attribute__((format(printf, 1, 2))) mark(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vline(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	console_copy(buf, n);
}

/* One line on the status port (if any), echoed on the console. */
static void __attribute__((format(printf, 2, 3))) status(const struct agent *a, const char *fmt,
							  ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vline(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	say("status: %.*s", n - 1, buf);
	if (a->status_fd >= 0 && write(a->status_fd, buf, n) != n)
		say("cannot write to port '%s': %s", NETLAB_PORT_STATUS, strerror(errno));
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* SIGKILL every process but PID 1, then reap them, waiting at most @ms. */
static void kill_and_reap(long ms)
{
	long long deadline = now_ms() + ms;

	kill(-1, SIGKILL);
	for (;;) {
		pid_t pid = waitpid(-1, NULL, WNOHANG);

		if (pid > 0)
			continue;
		if (pid < 0 || now_ms() >= deadline)
			return;	/* ECHILD: nobody left */
		sleep_ms(10);
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
			say("the host has every port's data");
			return;
		}
		if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN))
			break;	/* the host side of the port went away */
	}
	say("no ack from the host; powering off anyway (poll %d revents %#x, read %zd)", n,
	    p.revents, r);
}

/* The end of every path: report, flush, power off; never returns. */
static void __attribute__((noreturn)) agent_poweroff(struct agent *a)
{
	kill_and_reap(REAP_WAIT_MS);
	status(a, "poweroff");
	mark("%s", NETLAB_MARK_POWEROFF);
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
	say("reboot(RB_POWER_OFF) failed: %s; halting here", strerror(errno));
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
	status(a, "error %s", buf);
	agent_poweroff(a);
}

/* Read a small file into @buf, trailing newline stripped. Return length or -errno. */
static int read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return n;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		n--;
	buf[n] = '\0';
	return n;
}

/* Guest uptime on the console, for boot-time measurements. */
static void say_uptime(void)
{
	char up[64];

	if (read_small("/proc/uptime", up, sizeof(up)) > 0)
		say("uptime %.*s s", (int)strcspn(up, " "), up);
}

/* ---- early boot: mounts and console ------------------------------------ */

static void mount_one(const char *src, const char *dir, const char *type, unsigned long flags,
		      const char *data)
{
	if (mkdir(dir, 0755) && errno != EEXIST && errno != ENOENT && errno != EROFS)
		say("cannot create '%s': %s", dir, strerror(errno));
	if (!mount(src, dir, type, flags, data) || errno == EBUSY)
		return;
	if (errno == ENOENT || errno == ENODEV)
		say("%s not mounted on '%s': %s (kernel built without it?)", type, dir,
		    strerror(errno));
	else
		say("cannot mount %s on '%s': %s", type, dir, strerror(errno));
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
 */
static void tracing_off(void)
{
	int fd = open("/sys/kernel/tracing/tracing_on", O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, "0\n", 2) != 2)
		say("cannot turn tracing off: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
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
		say("cannot make '/' shared: %s", strerror(errno));
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
		found = read_small(path, id, sizeof(id)) > 0 && strtol(id, NULL, 0) == 3;
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
		if (read_small(path, pname, sizeof(pname)) <= 0) {
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
		if (!unnamed || now_ms() >= deadline) {
			say("no virtio-serial port '%s'", name);
			return -1;
		}
		sleep_ms(10);
	}
	/* Read-write: the status port carries the host's ack (job key "ack"). */
	fd = open(dev, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		say("cannot open port '%s' (%s): %s", name, dev, strerror(errno));
	return fd;
}

static void ports_open(struct agent *a)
{
	long long deadline = now_ms() + PORT_WAIT_MS;

	if (!virtio_console_present()) {
		say("no virtio-serial device: all output goes to the console");
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
	say("%s:%u: %s (line ignored)", NETLAB_JOB_FILE, lineno, msg);
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
		say("job version %d is newer than this agent's %d: unknown keys are ignored",
		    a->job.version, NETLAB_PROTO_VERSION);
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
		console_copy(buf, n);
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
static int run_captured(const char *path, const char *const *argv, char *out, size_t size)
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

/*
 * Run "/sbin/ip [-n @netns] <NULL-terminated arguments>" (@netns NULL or "": none).
 * On failure @err gets "ip <args>: <first line of its output>". Return 0 or -1.
 */
static int __attribute__((sentinel)) run_ip(char *err, const char *netns, const char *arg, ...)
{
	const char *argv[24] = { "ip" };
	char cmd[256] = "ip", out[256];
	int argc = 1, ws;
	va_list ap;

	if (netns && *netns) {
		argv[argc++] = "-n";
		argv[argc++] = netns;
		snprintf(cmd, sizeof(cmd), "ip -n %s", netns);
	}
	va_start(ap, arg);
	for (; arg && argc < 23; arg = va_arg(ap, const char *)) {
		argv[argc++] = arg;
		snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), " %s", arg);
	}
	va_end(ap);
	ws = run_captured(IP_BIN, argv, out, sizeof(out));
	if (ws == 0)
		return 0;
	if (ws < 0)
		snprintf(out, sizeof(out), "cannot start: %s", strerror(-ws));
	out[strcspn(out, "\n")] = '\0';
	snprintf(err, ERRLEN, "%s: %s", cmd, out[0] ? out : "failed");
	say("'%s' failed (wait status %#x)", cmd, ws);
	return -1;
}

/* ---- network namespaces and sysctls ------------------------------------ */

/* Switch the agent into netns @name (NULL or "": the root one). Return 0 or -errno. */
static int netns_enter(const struct agent *a, const char *name)
{
	char path[PATH_MAX];
	int fd, ret = 0;

	if (!name || !*name)
		return setns(a->root_netns, CLONE_NEWNET) ? -errno : 0;
	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (setns(fd, CLONE_NEWNET))
		ret = -errno;
	close(fd);
	return ret;
}

static int sysctl_write(const struct job_var *v)
{
	char path[PATH_MAX];
	size_t len = strlen(v->value);
	int fd, ret = 0;

	if (job_sysctl_path(v->name, path, sizeof(path)))
		return -EINVAL;	/* the parser already refused it */
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, v->value, len) != (ssize_t)len)
		ret = -errno;
	close(fd);
	return ret;
}

/* What bringing up the topology keeps track of. */
struct topo {
	const struct agent *a;
	char (*names)[IFNAMSIZ];	/* final interface name of each NIC */
	struct sysctl_state {
		bool root_pending;	/* not yet written in the root namespace */
		bool applied;		/* written in at least one namespace */
		int last_err;		/* errno of the last failed write */
	} *sysctls;			/* one per job sysctl */
	char err[ERRLEN];		/* what failed */
};

/*
 * Root namespace: write the sysctls not written yet. A missing file (ENOENT: it
 * may name an interface renamed or moved later) stays pending; any other error
 * fails the topology.
 */
static int sysctls_root(struct topo *t)
{
	const struct job *job = &t->a->job;
	size_t i;
	int ret;

	for (i = 0; i < job->n_sysctls; i++) {
		const struct job_var *v = &job->sysctls[i];
		struct sysctl_state *st = &t->sysctls[i];

		if (!st->root_pending)
			continue;
		ret = sysctl_write(v);
		if (ret == -ENOENT) {
			st->last_err = ENOENT;
			continue;
		}
		if (ret) {
			snprintf(t->err, ERRLEN, "sysctl %s=%s: %s", v->name, v->value,
				 strerror(-ret));
			return -1;
		}
		st->root_pending = false;
		st->applied = true;
		say("sysctl %s=%s", v->name, v->value);
	}
	return 0;
}

/*
 * Namespace @netns: write the net.* sysctls there too, as they are per namespace.
 * Best effort: some (net.core.rmem_max...) exist only in the root namespace.
 */
static void sysctls_netns(struct topo *t, const char *netns, bool quiet)
{
	const struct job *job = &t->a->job;
	size_t i;
	int ret;

	ret = netns_enter(t->a, netns);
	if (ret) {
		say("cannot enter netns '%s': %s", netns, strerror(-ret));
		return;
	}
	for (i = 0; i < job->n_sysctls; i++) {
		const struct job_var *v = &job->sysctls[i];

		if (strncmp(v->name, "net.", 4))
			continue;
		ret = sysctl_write(v);
		if (ret) {
			t->sysctls[i].last_err = -ret;
			if (ret != -ENOENT)
				say("sysctl %s=%s not set in netns '%s': %s", v->name, v->value,
				    netns, strerror(-ret));
			continue;
		}
		t->sysctls[i].applied = true;
		if (!quiet)
			say("sysctl %s=%s in netns '%s'", v->name, v->value, netns);
	}
	ret = netns_enter(t->a, NULL);
	if (ret)
		say("cannot return to the root netns: %s", strerror(-ret));
}

/* Every sysctl must have been written somewhere. */
static int sysctls_check(struct topo *t)
{
	const struct job *job = &t->a->job;
	size_t i;

	for (i = 0; i < job->n_sysctls; i++) {
		if (t->sysctls[i].applied)
			continue;
		snprintf(t->err, ERRLEN, "sysctl %s=%s: %s",
			 job->sysctls[i].name, job->sysctls[i].value,
			 strerror(t->sysctls[i].last_err));
		return -1;
	}
	return 0;
}

/* ---- topology ------------------------------------------------------------ */

/* Name of the root-namespace interface with MAC @mac into @name. Return 0 or -1. */
static int nic_find(const char *mac, char name[IFNAMSIZ])
{
	DIR *d = opendir("/sys/class/net");
	char path[PATH_MAX], addr[64];
	struct dirent *e;
	int ret = -1;

	if (!d)
		return -1;
	while (ret && (e = readdir(d))) {
		if (e->d_name[0] == '.' || strlen(e->d_name) >= IFNAMSIZ)
			continue;
		snprintf(path, sizeof(path), "/sys/class/net/%s/address", e->d_name);
		if (read_small(path, addr, sizeof(addr)) > 0 && !strcasecmp(addr, mac)) {
			strcpy(name, e->d_name);
			ret = 0;
		}
	}
	closedir(d);
	return ret;
}

static bool iface_exists(const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/class/net/%s", name);
	return !access(path, F_OK);
}

static int netns_create(struct topo *t, const char *netns)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/run/netns/%s", netns);
	if (!access(path, F_OK))
		return 0;	/* another NIC made it */
	if (run_ip(t->err, NULL, "netns", "add", netns, NULL) ||
	    run_ip(t->err, netns, "link", "set", "dev", "lo", "up", NULL))
		return -1;
	sysctls_netns(t, netns, true);	/* early, for conf.default.*; again later */
	return 0;
}

/*
 * Find NIC @i by MAC, rename it to its ifname (moving a holder of that name out
 * of the way) and move it into its netns. Its final name goes to t->names[i].
 */
static int nic_place(struct topo *t, size_t i)
{
	const struct job_nic *nic = &t->a->job.nics[i];
	char cur[IFNAMSIZ], tmp[IFNAMSIZ], *name = t->names[i];

	if (!nic->mac || nic_find(nic->mac, cur)) {
		snprintf(t->err, ERRLEN, "nic %s: no interface with MAC '%s'", nic->id,
			 nic->mac ? nic->mac : "(no nic.<ID>.mac key)");
		return -1;
	}
	if (nic->ifname && (!*nic->ifname || strlen(nic->ifname) >= IFNAMSIZ)) {
		snprintf(t->err, ERRLEN, "nic %s: bad ifname '%s'", nic->id, nic->ifname);
		return -1;
	}
	strcpy(name, nic->ifname ? nic->ifname : cur);
	if (strcmp(cur, name)) {
		snprintf(tmp, sizeof(tmp), "netlab%u", (unsigned int)(i % 1000));
		if (iface_exists(name) &&
		    run_ip(t->err, NULL, "link", "set", "dev", name, "name", tmp, NULL))
			return -1;
		if (run_ip(t->err, NULL, "link", "set", "dev", cur, "name", name, NULL))
			return -1;
	}
	if (!nic->netns || !*nic->netns)
		return 0;
	if (netns_create(t, nic->netns))
		return -1;
	return run_ip(t->err, NULL, "link", "set", "dev", name, "netns", nic->netns, NULL);
}

/* Addresses (IPv6 without DAD, usable at once), then link up. */
static int nic_configure(const struct job_nic *nic, const char *name, char *err)
{
	const char *ns = nic->netns;

	if (nic->ipv4 && run_ip(err, ns, "addr", "add", nic->ipv4, "dev", name, NULL))
		return -1;
	if (nic->ipv6 && run_ip(err, ns, "addr", "add", nic->ipv6, "dev", name, "nodad", NULL))
		return -1;
	return run_ip(err, ns, "link", "set", "dev", name, "up", NULL);
}

/* A netlink socket of network namespace @netns (it stays bound to it). Return fd or -errno. */
static int netns_rtnl_socket(const struct agent *a, const char *netns)
{
	int s, ret;

	ret = netns_enter(a, netns);
	if (ret)
		return ret;
	s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	ret = s < 0 ? -errno : s;
	netns_enter(a, NULL);
	return ret;
}

/*
 * Does @name in @netns have carrier (IFF_LOWER_UP) and operstate UP? Return 1, 0
 * or -errno. (SIOCGIFFLAGS cannot tell: its IFF_RUNNING is also set while the
 * operstate is still UNKNOWN, and its flags are too short for IFF_LOWER_UP.)
 */
static int link_up(const struct agent *a, const char *netns, const char *name)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
		char attr[RTA_SPACE(IFNAMSIZ)];
	} req = { 0 };
	struct nlmsghdr *nh;
	char reply[4096] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct rtattr *rta = (struct rtattr *)req.attr;
	struct ifinfomsg *ifi;
	int s, len, oper = -1;

	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.ifi)) + RTA_LENGTH(strlen(name) + 1);
	req.nh.nlmsg_type = RTM_GETLINK;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	rta->rta_type = IFLA_IFNAME;
	rta->rta_len = RTA_LENGTH(strlen(name) + 1);
	strcpy(RTA_DATA(rta), name);
	s = netns_rtnl_socket(a, netns);
	if (s < 0)
		return s;
	len = send(s, &req, req.nh.nlmsg_len, 0);
	if (len >= 0)
		len = recv(s, reply, sizeof(reply), 0);
	if (len < 0)
		len = -errno;
	close(s);
	nh = (struct nlmsghdr *)reply;
	if (len < 0 || !NLMSG_OK(nh, (unsigned int)len))
		return len < 0 ? len : -EPROTO;
	if (nh->nlmsg_type == NLMSG_ERROR)
		return ((struct nlmsgerr *)NLMSG_DATA(nh))->error ?: -EPROTO;
	ifi = NLMSG_DATA(nh);
	len = IFLA_PAYLOAD(nh);
	for (rta = IFLA_RTA(ifi); RTA_OK(rta, len); rta = RTA_NEXT(rta, len))
		if (rta->rta_type == IFLA_OPERSTATE)
			oper = *(unsigned char *)RTA_DATA(rta);
	return (ifi->ifi_flags & IFF_LOWER_UP) && oper == IF_OPER_UP;
}

static int links_wait(struct topo *t)
{
	const struct job *job = &t->a->job;
	long long start = now_ms();
	size_t i = 0;
	int up;

	while (i < job->n_nics) {
		up = link_up(t->a, job->nics[i].netns, t->names[i]);
		if (up > 0) {
			say("%s is up after %lld ms", t->names[i], now_ms() - start);
			i++;
			continue;
		}
		if (up < 0 || now_ms() - start >= LINK_WAIT_MS) {
			snprintf(t->err, ERRLEN, "nic %s (%s): %s", job->nics[i].id, t->names[i],
				 up < 0 ? strerror(-up) : "no carrier or operstate not up after 5 s");
			return -1;
		}
		sleep_ms(20);
	}
	return 0;
}

/* Is NIC @i the first one in its (non-root) netns? */
static bool netns_first_use(const struct job *job, size_t i)
{
	const char *ns = job->nics[i].netns;
	size_t j;

	if (!ns || !*ns)
		return false;
	for (j = 0; j < i; j++)
		if (job->nics[j].netns && !strcmp(job->nics[j].netns, ns))
			return false;
	return true;
}

/*
 * Root sysctls, lo up, every NIC placed (found, renamed, moved), sysctls again
 * now that the interfaces have their names and namespaces, addresses and link
 * up, carrier.
 */
static int topology_setup(struct topo *t)
{
	const struct job *job = &t->a->job;
	size_t i;

	if (sysctls_root(t) || run_ip(t->err, NULL, "link", "set", "dev", "lo", "up", NULL))
		return -1;
	for (i = 0; i < job->n_nics; i++)
		if (nic_place(t, i))
			return -1;
	if (sysctls_root(t))
		return -1;
	for (i = 0; i < job->n_nics; i++)
		if (netns_first_use(job, i))
			sysctls_netns(t, job->nics[i].netns, false);
	if (sysctls_check(t))
		return -1;
	for (i = 0; i < job->n_nics; i++)
		if (nic_configure(&job->nics[i], t->names[i], t->err))
			return -1;
	return links_wait(t);
}

/* Bring the topology up; report "topology ok" or "topology error <text>". */
static int topology_up(const struct agent *a)
{
	const char *kind = a->job.topology ? a->job.topology : "none";
	struct topo t = { .a = a };
	int ret = -1;
	size_t i;

	t.names = calloc(a->job.n_nics + 1, IFNAMSIZ);
	t.sysctls = calloc(a->job.n_sysctls + 1, sizeof(*t.sysctls));
	if (!t.names || !t.sysctls) {
		snprintf(t.err, ERRLEN, "%s", strerror(ENOMEM));
		goto out;
	}
	for (i = 0; i < a->job.n_sysctls; i++)
		t.sysctls[i].root_pending = true;
	if (!strcmp(kind, "none")) {	/* sysctls, and lo up: basic system setup */
		ret = sysctls_root(&t) || sysctls_check(&t) ||
		      run_ip(t.err, NULL, "link", "set", "dev", "lo", "up", NULL) ? -1 : 0;
	} else {
		if (strcmp(kind, "loop"))
			say("topology '%s' is not known here: configuring its NICs anyway", kind);
		ret = topology_setup(&t);
	}
out:
	if (ret)
		status(a, "topology error %s", t.err);
	else
		status(a, "topology ok");
	free(t.names);
	free(t.sysctls);
	return ret;
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

/* Child side: new session, cwd /, stdin /dev/null, stdout/stderr to the ports. */
static void __attribute__((noreturn)) command_exec(const struct agent *a, char **env)
{
	char *argv[] = { "sh", "-c", SH_PRELUDE, NETLAB_EXEC_FILE, NULL };
	int null;

	child_reset();
	setsid();
	if (chdir("/"))
		say("cannot chdir to '/': %s", strerror(errno));
	null = open("/dev/null", O_RDONLY);
	if (null >= 0 && null != STDIN_FILENO) {
		dup2(null, STDIN_FILENO);
		close(null);
	}
	if (a->stdout_fd >= 0)
		dup2(a->stdout_fd, STDOUT_FILENO);
	if (a->stderr_fd >= 0)
		dup2(a->stderr_fd, STDERR_FILENO);
	execve(SH_BIN, argv, env);
	dprintf(STDERR_FILENO, "netlab-agent: cannot run '%s': %s\n", SH_BIN, strerror(errno));
	_exit(127);
}

/*
 * Reap every child until @pid ends; SIGCHLD is blocked, so it is waited for with
 * sigtimedwait(). After @timeout seconds (0: never) kill @pid's process group.
 * Return @pid's wait status.
 */
static int command_wait(const struct agent *a, pid_t pid, unsigned int timeout)
{
	long long deadline = timeout ? now_ms() + timeout * 1000LL : 0, left;
	struct timespec ts;
	sigset_t chld;
	pid_t got;
	int ws;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	for (;;) {
		while ((got = waitpid(-1, &ws, WNOHANG)) > 0)
			if (got == pid)
				return ws;
		if (got < 0 && errno != EINTR)
			return -1;	/* ECHILD: cannot happen while @pid lives */
		if (deadline && now_ms() >= deadline) {
			kill(-pid, SIGKILL);
			status(a, "timeout");
			deadline = 0;
		}
		left = deadline ? deadline - now_ms() : 1000;
		left = left > 1000 ? 1000 : left < 1 ? 1 : left;
		ts.tv_sec = left / 1000;
		ts.tv_nsec = left % 1000 * 1000000L;
		sigtimedwait(&chld, NULL, &ts);
	}
}

static void command_run(struct agent *a)
{
	char **env;
	pid_t pid;
	int ws;

	if (access(NETLAB_EXEC_FILE, R_OK))
		fatal(a, "cannot read command '%s': %s", NETLAB_EXEC_FILE, strerror(errno));
	env = command_env(&a->job);
	if (!env)
		fatal(a, "cannot build the environment: %s", strerror(ENOMEM));
	pid = fork();
	if (pid < 0)
		fatal(a, "cannot fork the command: %s", strerror(errno));
	if (pid == 0)
		command_exec(a, env);
	status(a, "exec %d", (int)pid);
	mark("%s %d", NETLAB_MARK_EXEC, (int)pid);
	ws = command_wait(a, pid, a->job.timeout);
	if (ws < 0)
		fatal(a, "lost the command (pid %d): %s", (int)pid, strerror(errno));
	status(a, "exit %d", exit_code(ws));
	mark("%s %d", NETLAB_MARK_EXIT, exit_code(ws));
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
		say("cannot fork tar: %s", strerror(errno));
		return;
	}
	ws = wait_for(pid);
	if (ws)
		say("tar of '%s' failed (wait status %#x)", NETLAB_GUEST_OUTDIR, ws);
	else
		say("sent '%s' to port '%s'", NETLAB_GUEST_OUTDIR, NETLAB_PORT_FILES);
}

int main(void)
{
	struct agent a = { .status_fd = -1, .stdout_fd = -1, .stderr_fd = -1, .files_fd = -1 };
	sigset_t chld;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	mounts_setup();
	mark("%s", NETLAB_MARK_AGENT);
	say_uptime();
	ports_open(&a);
	status(&a, "agent %d", NETLAB_PROTO_VERSION);
	a.root_netns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (a.root_netns < 0)
		fatal(&a, "cannot open '/proc/self/ns/net': %s", strerror(errno));
	job_load(&a);
	if (topology_up(&a) == 0)
		command_run(&a);
	files_send(&a);
	agent_poweroff(&a);
}
