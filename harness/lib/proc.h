/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One way to run a process, after git's run-command API: an argv (never a
 * shell string); stdin, stdout and stderr each inherited, /dev/null, a file
 * or (stdout) captured into a bounded buffer; optionally a process group of
 * its own and PR_SET_PDEATHSIG; a wait with a timeout (on a pidfd where the
 * kernel has them); the whole group ended (SIGTERM, then SIGKILL after a
 * grace); how it ended, as text for error messages.
 *
 *	const char *argv[] = { "git", "rev-parse", "HEAD", NULL };
 *	struct proc p;
 *
 *	proc_init(&p, argv);
 *	p.stdout_mode = PROC_CAPTURE;
 *	ret = proc_run(&p, 0, &err);	// its exit code, or -errno with *err
 *	... p.output.s ...
 *	proc_release(&p);
 *
 * The struct owns its descriptors and the captured output: proc_release()
 * frees them. It neither waits nor kills: end the process first.
 */
#ifndef NETLAB_PROC_H
#define NETLAB_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "lib/util.h"

/* Where one of the child's stdin, stdout and stderr goes. */
enum proc_io {
	PROC_INHERIT = 0,	/* ours */
	PROC_NULL,		/* /dev/null */
	PROC_FILE,		/* its *_path: read, or created/truncated and written */
	PROC_APPEND,		/* stdout/stderr: its *_path, created or appended to */
	PROC_CAPTURE,		/* stdout only: into p->output, at most capture_max bytes */
	PROC_TO_STDOUT,		/* stderr only: where stdout goes (2>&1) */
};

/* The capture bound when capture_max is 0. */
#define PROC_CAPTURE_MAX (16u << 20)
/* How long proc_run() gives a process past its timeout between SIGTERM and SIGKILL. */
#define PROC_KILL_GRACE_MS 2000

/*
 * struct proc - one child process
 *
 * The first part says what to run; proc_init() zeroes it (everything
 * inherited, our group, no death signal). The second part is proc_start()'s
 * and the calls that follow.
 */
struct proc {
	const char *const *argv;	/* argv[0] searched in $PATH unless it has a '/' */
	const char *cwd;		/* NULL: ours */
	const char *const *env;		/* "NAME=VALUE" entries over our environ, or NULL */
	enum proc_io stdin_mode, stdout_mode, stderr_mode;
	const char *stdin_path, *stdout_path, *stderr_path;
	size_t capture_max;		/* PROC_CAPTURE's bound; 0: PROC_CAPTURE_MAX */
	bool own_group;			/* a process group of its own: a terminal's ^C is not
					 * its, and proc_kill() ends the whole group */
	int death_sig;			/* PR_SET_PDEATHSIG: its signal when we die; 0: none */
	bool default_signals;		/* SIGINT, SIGTERM back to SIG_DFL (ours may be SIG_IGN) */

	pid_t pid;			/* 0: not started */
	bool exec_failed;		/* proc_start() failed as the program could not be
					 * executed (errno: its return) */
	bool exited;			/* reaped: `status` is set */
	int status;			/* waitpid()'s, once exited */
	bool timed_out;			/* proc_run() ended it at its timeout */
	struct sbuf output;		/* PROC_CAPTURE: what it wrote, NUL-terminated */
	bool output_cut;		/* it wrote more than the bound; the rest was dropped */
	int pidfd, outfd;		/* -1: none */
	char how[80];			/* proc_how()'s text */
};

/* Zero `p`, to run `argv` (which must outlive the process's start). */
void proc_init(struct proc *p, const char *const *argv);

/*
 * proc_start() - start the process described by `p`
 *
 * The files it reads or writes are opened before it starts; a program that
 * cannot be executed (not found, not executable) or a cwd it cannot enter
 * fails here, with the reason, rather than as an exit status 127.
 * Return: 0, or a negative errno with *err.
 */
int proc_start(struct proc *p, char **err);

/*
 * proc_wait() - wait up to `ms` (< 0: for ever) for the process to end,
 * reading what it writes to a PROC_CAPTURE stdout meanwhile, and reap it.
 * Returns early when a signal arrives, so that a caller can look at its
 * flags. With ms < 0 the capture is read to its end (as a grandchild may
 * hold it open, that can be after the process has ended).
 * Return: whether it has ended (p->exited).
 */
bool proc_wait(struct proc *p, int ms);

/* Send `sig` to the process only (not its group). 0 or -errno. */
int proc_signal(struct proc *p, int sig);

/*
 * proc_kill() - SIGTERM the process (and its group, when own_group),
 * SIGKILL them if it has not ended `grace_ms` later (or a signal came
 * meanwhile), and reap it. Nothing when it has ended already.
 */
void proc_kill(struct proc *p, int grace_ms);

/*
 * proc_run() - proc_start(), then wait for it to end; past `timeout_ms`
 * (0: no limit) kill it (proc_kill(), PROC_KILL_GRACE_MS) and fail.
 * Signals do not end the wait.
 * Return: its exit code (proc_exit_code()), or a negative errno with *err:
 * -ETIMEDOUT when it ran past the timeout.
 */
int proc_run(struct proc *p, int timeout_ms, char **err);

/* 0..255 as it exited, 128 + the signal that ended it; -1 while it runs. */
int proc_exit_code(const struct proc *p);

/*
 * proc_how() - how it ended, for an error message: "exited with status 2",
 * "was killed by signal 9 (Killed)", "was killed at its timeout",
 * "is still running", "never started". Valid until the next call on `p`.
 */
const char *proc_how(struct proc *p);

/* What PROC_CAPTURE read (caller frees; "" when nothing, NULL without a capture). */
char *proc_take_output(struct proc *p);

/* Close its descriptors and free its output. Does not wait or kill. Safe
 * on a zeroed struct (never started). */
void proc_release(struct proc *p);

/*
 * proc_decode_limits() - bound this process for decoding an untrusted file
 * @path: the file (its size scales the CPU time); NULL: the base time
 *
 * libtracecmd and libtraceevent trust the sizes and pages they decode: on
 * a corrupted file they may read out of bounds or try to allocate
 * gigabytes. A child that decodes under these limits (3 GiB of address
 * space, 120 s + 2 s per MB of CPU) turns that into an error, not a core
 * dump or a machine that swaps. netlab report and its HTML page call it in
 * the child that reads the trace.
 */
void proc_decode_limits(const char *path);

#endif /* NETLAB_PROC_H */
