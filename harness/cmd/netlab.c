// SPDX-License-Identifier: GPL-2.0
/*
 * netlab: boot instrumented kernels in QEMU and check how they move packets.
 * main(), the command table and `netlab help`; each command lives in cmd-*.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "lib/esc.h"
#include "lib/proc.h"
#include "lib/provenance.h"
#include "lib/util.h"
#include "version.h"

static const struct cmd commands[] = {
	{ "run", cmd_run, "boot a kernel, run a command in the guest, collect a run directory" },
	{ "regress", cmd_regress, "run the regression suite: scenarios, checks, baselines" },
	{ "selftests", cmd_selftests, "build the kernel's selftests and run each in a guest" },
	{ "pcap", cmd_pcap, "count the packets of a capture (libpcap), optionally by BPF filter" },
	{ "bisect", cmd_bisect, "find the kernel commit that breaks a scenario's checks (git bisect run)" },
	{ "report", cmd_report, "what a traced run's trace says: drops, stage latency, flows, NET_RX, rings, wire" },
	{ "gdb", cmd_gdb, "debug a scenario's guest kernel in gdb (gdbstub), interactively or in batch" },
	{ "history", cmd_history, "the results database: a metric's trend over suites, each check's flake rate" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: netlab <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'netlab <command> --help' lists a command's options.\n");
	fprintf(f, "'netlab help <command>' shows its manual page; 'netlab help scenario' the scenario files.\n");
	fprintf(f, "'netlab --version' tells the build.\n");
}

static const struct cmd *cmd_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

/* `man -w SECTION PAGE` (or `man -w -l FILE`), quietly: can man show that page? */
static bool man_finds(const char *section, const char *page)
{
	const char *const argv[] = { "man", "-w", section, page, NULL };
	struct proc p;
	bool found;

	proc_init(&p, argv);
	p.stdin_mode = p.stdout_mode = p.stderr_mode = PROC_NULL;
	found = proc_run(&p, 0, NULL) == 0;	/* its exit code, or -errno */
	proc_release(&p);
	return found;
}

/* Copy a file to stdout (the page's source, when there is no pager to show it). */
static int cat_file(const char *path)
{
	char *data;
	size_t len;
	int ret = file_read(path, &data, &len);

	if (ret) {
		fprintf(stderr, "netlab help: cannot read '%s': %s\n", path, strerror(-ret));
		return NL_EXIT_FAIL;
	}
	fwrite(data, 1, len, stdout);
	free(data);
	return fflush(stdout) ? NL_EXIT_FAIL : NL_EXIT_OK;
}

/*
 * The page's markdown source through $PAGER (split on blanks, no shell), else
 * through pager(1) or less(1) on a terminal, else copied to stdout.
 */
static int show_source(const char *path)
{
	const char *pager = getenv("PAGER");
	struct argv a;

	argv_init(&a);
	if (pager && *pager) {
		char *words = xstrdup(pager), *save = NULL;

		for (char *w = strtok_r(words, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
			argv_add(&a, w);
		free(words);
	}
	if (a.n) {
		argv_add(&a, path);
		fflush(NULL);
		execvp(a.v[0], a.v);
	} else if (isatty(STDOUT_FILENO)) {
		fflush(NULL);
		execlp("pager", "pager", path, (char *)NULL);
		execlp("less", "less", path, (char *)NULL);
	}
	argv_release(&a);
	return cat_file(path);
}

/*
 * netlab help TOPIC: the manual page netlab-TOPIC as man finds it, else the one
 * `make doc` built beside this binary (build/man), else its source in the tree's
 * Documentation/ (build/netlab -> Documentation/ of the same tree), else the
 * command's --help. Nothing here is handed to a shell.
 */
static int help(const char *topic)
{
	const struct cmd *c = cmd_find(topic);
	const char *section = "1";
	char *page, *dir, *path;
	int ret;

	if (!c && strcmp(topic, "scenario")) {
		fprintf(stderr, "netlab help: unknown command '%s'\n", topic);
		fprintf(stderr, "hint: 'netlab help' lists the commands; 'netlab help scenario' describes scenario files\n");
		return NL_EXIT_USAGE;
	}
	if (!c)
		section = "5";
	page = xasprintf("netlab-%s", topic);
	if (man_finds(section, page)) {
		fflush(NULL);
		execlp("man", "man", section, page, (char *)NULL);
	}
	dir = exe_dir();
	path = xasprintf("%s/man/man%s/%s.%s", dir, section, page, section);
	if (!access(path, R_OK) && man_finds("-l", path)) {
		fflush(NULL);
		execlp("man", "man", "-l", path, (char *)NULL);
	}
	free(path);
	path = xasprintf("%s/../Documentation/%s.txt", dir, page);
	if (!access(path, R_OK)) {
		ret = show_source(path);
	} else if (c) {
		char *argv[] = { (char *)c->name, "--help", NULL };

		ret = c->run(2, argv);
	} else {
		fprintf(stderr, "netlab help: no manual page '%s(%s)' found\n", page, section);
		fprintf(stderr, "hint: run 'make doc' (or 'make install') in netlab's tree\n");
		ret = NL_EXIT_FAIL;
	}
	free(path);
	free(dir);
	free(page);
	return ret;
}

static FILE *real_stdout, *real_stderr;

/* At exit: write out what the filters hold back, and print unfiltered after that. */
static void terminal_flush(void)
{
	FILE *o = stdout, *e = stderr;

	stdout = real_stdout;
	stderr = real_stderr;
	fclose(o);
	fclose(e);
	fflush(stdout);
}

/*
 * Everything netlab prints goes through esc_term() (lib/esc.h): a guest's
 * trace lines, names, console and kernel log, and any file's strings, cannot
 * drive the user's terminal with escape sequences or print invalid UTF-8.
 * Newlines and tabs stay; JSON, XML and HTML, which never hold a raw
 * control character, come out unchanged. Child processes write to the
 * descriptors directly.
 */
static void terminal_safe(void)
{
	FILE *o = esc_term_stream(STDOUT_FILENO, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF);
	FILE *e = o ? esc_term_stream(STDERR_FILENO, _IONBF) : NULL;

	if (!o || !e) {
		if (o)
			fclose(o);
		return;
	}
	fflush(stdout);
	real_stdout = stdout;
	real_stderr = stderr;
	stdout = o;
	stderr = e;
	atexit(terminal_flush);
}

int main(int argc, char **argv)
{
	const struct cmd *c;

	terminal_safe();
	provenance_set_build(NETLAB_VERSION, NETLAB_COMMIT);
	if (argc < 2) {
		usage(stderr);
		return NL_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    (!strcmp(argv[1], "help") && argc == 2)) {
		usage(stdout);
		return NL_EXIT_OK;
	}
	if (!strcmp(argv[1], "help")) {
		if (argc > 3) {
			cmd_error("help", "too many arguments\nhint: netlab help [COMMAND | scenario]");
			return NL_EXIT_USAGE;
		}
		return help(argv[2]);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("netlab %s (commit %s)\n", NETLAB_VERSION, NETLAB_COMMIT);
		return NL_EXIT_OK;
	}
	c = cmd_find(argv[1]);
	if (c)
		return c->run(argc - 1, argv + 1);
	fprintf(stderr, "netlab: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return NL_EXIT_USAGE;
}
