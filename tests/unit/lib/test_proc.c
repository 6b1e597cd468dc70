// SPDX-License-Identifier: GPL-2.0
/*
 * lib/proc: how a child ended (exit status, signal), its streams (files,
 * 2>&1, a bounded capture), its environment and directory, a missing
 * program as an error of its own, a timeout that ends the whole process
 * group (a grandchild that ignores SIGTERM too), and PR_SET_PDEATHSIG.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/proc.h"
#include "lib/util.h"
#include "tmpdir.h"

TMPDIR_FIXTURE("proc")

/* `sh -c SCRIPT`, waited for; its exit code. */
static int sh(struct proc *p, const char **argv, const char *script, int timeout_ms, char **err)
{
	argv[0] = "sh";
	argv[1] = "-c";
	argv[2] = script;
	argv[3] = NULL;
	proc_init(p, argv);
	return proc_run(p, timeout_ms, err);
}

static void test_proc__exit_status_and_signal(void **state)
{
	const char *argv[4];
	struct proc p;

	assert_int_equal(sh(&p, argv, "exit 0", 0, NULL), 0);
	assert_string_equal(proc_how(&p), "exited with status 0");
	proc_release(&p);

	assert_int_equal(sh(&p, argv, "exit 3", 0, NULL), 3);
	assert_true(p.exited);
	assert_int_equal(proc_exit_code(&p), 3);
	assert_string_equal(proc_how(&p), "exited with status 3");
	proc_release(&p);

	assert_int_equal(sh(&p, argv, "kill -TERM $$", 0, NULL), 128 + SIGTERM);
	assert_true(WIFSIGNALED(p.status));
	assert_non_null(strstr(proc_how(&p), "was killed by signal 15 ("));
	proc_release(&p);
}

static void test_proc__streams_env_and_cwd(void **state)
{
	char *in = xasprintf("%s/in", dir), *out = xasprintf("%s/out", dir), *text = NULL;
	const char *env[] = { "NL_PROC_A=one", "HOME=/nonexistent-home", NULL };
	const char *argv[] = { "sh", "-c", "cat; echo err >&2; echo \"$NL_PROC_A $HOME $(pwd)\"",
			       NULL };
	struct proc p;

	assert_int_equal(file_write(in, "abc\n", 4), 0);
	proc_init(&p, argv);
	p.stdin_mode = PROC_FILE;
	p.stdin_path = in;
	p.stdout_mode = PROC_FILE;
	p.stdout_path = out;
	p.stderr_mode = PROC_TO_STDOUT;
	p.env = env;
	p.cwd = "/";
	assert_int_equal(proc_run(&p, 0, NULL), 0);
	proc_release(&p);
	assert_int_equal(file_read(out, &text, NULL), 0);
	assert_string_equal(text, "abc\nerr\none /nonexistent-home /\n");
	free(text);

	/* Appended to, stdin /dev/null, stderr dropped. */
	argv[2] = "cat; echo more; echo err >&2";
	proc_init(&p, argv);
	p.stdin_mode = PROC_NULL;
	p.stdout_mode = PROC_APPEND;
	p.stdout_path = out;
	p.stderr_mode = PROC_NULL;
	assert_int_equal(proc_run(&p, 0, NULL), 0);
	proc_release(&p);
	assert_int_equal(file_read(out, &text, NULL), 0);
	assert_string_equal(text, "abc\nerr\none /nonexistent-home /\nmore\n");
	free(text);
	free(in);
	free(out);
}

static void test_proc__capture_is_bounded(void **state)
{
	const char *argv[] = { "sh", "-c", "printf 'hello\\n'", NULL };
	struct proc p;
	char *out;

	proc_init(&p, argv);
	p.stdout_mode = PROC_CAPTURE;
	assert_int_equal(proc_run(&p, 0, NULL), 0);
	assert_false(p.output_cut);
	out = proc_take_output(&p);
	assert_string_equal(out, "hello\n");
	free(out);
	proc_release(&p);

	/* 1 MB written, 1000 bytes kept; the writer is not blocked by it. */
	argv[2] = "head -c 1000000 /dev/zero | tr '\\0' x";
	proc_init(&p, argv);
	p.stdout_mode = PROC_CAPTURE;
	p.capture_max = 1000;
	assert_int_equal(proc_run(&p, 20000, NULL), 0);
	assert_true(p.output_cut);
	assert_int_equal(p.output.len, 1000);
	assert_int_equal(strspn(p.output.s, "x"), 1000);
	proc_release(&p);
}

static void test_proc__missing_program_is_a_clear_error(void **state)
{
	const char *argv[] = { "netlab-no-such-program", "--flag", NULL };
	struct proc p;
	char *err = NULL;

	proc_init(&p, argv);
	assert_int_equal(proc_start(&p, &err), -ENOENT);
	assert_non_null(err);
	assert_string_equal(err, "cannot run 'netlab-no-such-program': not found in $PATH\n"
				 "hint: install it, or add its directory to $PATH");
	assert_int_equal(p.pid, 0);
	assert_true(p.exec_failed);
	assert_false(p.exited);
	assert_string_equal(proc_how(&p), "never started");
	proc_release(&p);
	free(err);
	err = NULL;

	argv[0] = "/nonexistent/netlab-prog";
	proc_init(&p, argv);
	assert_int_equal(proc_run(&p, 0, &err), -ENOENT);
	assert_string_equal(err, "cannot run '/nonexistent/netlab-prog': No such file or directory");
	proc_release(&p);
	free(err);
	err = NULL;

	argv[0] = "true";
	proc_init(&p, argv);
	p.cwd = "/nonexistent-dir";
	assert_int_equal(proc_run(&p, 0, &err), -ENOENT);
	assert_string_equal(err, "cannot run 'true' in '/nonexistent-dir': No such file or directory");
	assert_false(p.exec_failed);
	proc_release(&p);
	free(err);
	err = NULL;

	proc_init(&p, argv);
	p.stdout_mode = PROC_FILE;
	p.stdout_path = "/nonexistent-dir/log";
	assert_int_equal(proc_start(&p, &err), -ENOENT);
	assert_string_equal(err, "cannot create '/nonexistent-dir/log': No such file or directory");
	assert_false(p.exec_failed);
	proc_release(&p);
	free(err);
}

/* Whether `pid` is gone (or a zombie nobody has reaped yet), within 5 s. */
static bool gone(pid_t pid)
{
	for (int i = 0; i < 500; i++) {
		char *path = xasprintf("/proc/%d/stat", (int)pid), *stat = NULL, *paren;
		bool dead = file_read(path, &stat, NULL) != 0 ||
			    ((paren = strrchr(stat, ')')) && paren[1] == ' ' && paren[2] == 'Z');

		free(stat);
		free(path);
		if (dead)
			return true;
		usleep(10000);
	}
	return false;
}

static pid_t read_pid(const char *path)
{
	char *text = NULL;
	pid_t pid = 0;

	for (int i = 0; i < 500 && !pid; i++) {
		if (!file_read(path, &text, NULL) && strchr(text, '\n'))
			pid = (pid_t)atoi(text);
		free(text);
		text = NULL;
		if (!pid)
			usleep(10000);
	}
	return pid;
}

static void test_proc__timeout_ends_the_whole_group(void **state)
{
	char *pidfile = xasprintf("%s/grandchild.pid", dir), *script, *err = NULL;
	const char *argv[4];
	struct proc p;
	double t0 = now_s();
	pid_t grandchild;

	/* The grandchild ignores SIGTERM: only the group's SIGKILL ends it. */
	script = xasprintf("(trap '' TERM; exec sleep 300) & echo $! >%s; wait", pidfile);
	argv[0] = "sh";
	argv[1] = "-c";
	argv[2] = script;
	argv[3] = NULL;
	proc_init(&p, argv);
	p.own_group = true;
	assert_int_equal(proc_run(&p, 1500, &err), -ETIMEDOUT);
	assert_true(p.timed_out);
	assert_true(p.exited);
	assert_string_equal(proc_how(&p), "was killed at its timeout");
	assert_non_null(strstr(err, "'sh' did not end within 2 s and was killed"));
	assert_true(now_s() - t0 < 1.5 + PROC_KILL_GRACE_MS / 1000.0 + 2);
	grandchild = read_pid(pidfile);
	assert_true(grandchild > 0);
	assert_true(gone(grandchild));
	proc_release(&p);
	free(err);
	free(script);
	free(pidfile);
}

static void test_proc__wait_then_kill(void **state)
{
	const char *argv[] = { "sleep", "300", NULL };
	struct proc p;

	proc_init(&p, argv);
	p.own_group = true;
	assert_int_equal(proc_start(&p, NULL), 0);
	assert_false(proc_wait(&p, 50));
	assert_string_equal(proc_how(&p), "is still running");
	assert_int_equal(proc_exit_code(&p), -1);
	proc_kill(&p, 2000);
	assert_true(p.exited);
	assert_int_equal(proc_exit_code(&p), 128 + SIGTERM);
	assert_true(proc_wait(&p, 0));
	proc_kill(&p, 2000);	/* nothing left to do */
	proc_release(&p);
}

/* A parent that dies takes its PR_SET_PDEATHSIG child with it. */
static void test_proc__death_signal(void **state)
{
	char *pidfile = xasprintf("%s/orphan.pid", dir);
	int status;
	pid_t mid, child;

	mid = fork();
	if (mid == 0) {
		const char *argv[] = { "sleep", "300", NULL };
		struct proc p;

		proc_init(&p, argv);
		p.own_group = true;
		p.death_sig = SIGKILL;
		if (proc_start(&p, NULL))
			_exit(1);
		file_writef(pidfile, "%d\n", (int)p.pid);
		_exit(0);
	}
	assert_int_equal(waitpid(mid, &status, 0), mid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	child = read_pid(pidfile);
	assert_true(child > 0);
	assert_true(gone(child));
	free(pidfile);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_proc__exit_status_and_signal),
		cmocka_unit_test(test_proc__streams_env_and_cwd),
		cmocka_unit_test(test_proc__capture_is_bounded),
		cmocka_unit_test(test_proc__missing_program_is_a_clear_error),
		cmocka_unit_test(test_proc__timeout_ends_the_whole_group),
		cmocka_unit_test(test_proc__wait_then_kill),
		cmocka_unit_test(test_proc__death_signal),
	};

	return cmocka_run_group_tests(tests, dir_setup, dir_teardown);
}
