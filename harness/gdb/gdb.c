// SPDX-License-Identifier: GPL-2.0
/*
 * gdb on a guest kernel: the kernel's debug files, gdb's command line and
 * first commands, QMP "cont", the replay command line, and oops decoding.
 */
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/jsonout.h"
#include "gdb/gdb.h"
#include "nicmodel.h"

extern char **environ;

/* ---- ELF: .debug_info and the symbol table ------------------------------ */

struct elf_map {
	const unsigned char *base;
	size_t size;
	const Elf64_Shdr *sh;
	unsigned int shnum;
	const char *shstr;
};

static int elf_open(const char *path, struct elf_map *m, char **err)
{
	const Elf64_Ehdr *eh;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	memset(m, 0, sizeof(*m));
	if (fd < 0 || fstat(fd, &st) < 0) {
		int e = errno;

		err_set(err, "cannot read '%s': %s", path, strerror(e));
		if (fd >= 0)
			close(fd);
		return -e;
	}
	m->size = (size_t)st.st_size;
	m->base = m->size >= sizeof(*eh) ? mmap(NULL, m->size, PROT_READ, MAP_PRIVATE, fd, 0)
					 : MAP_FAILED;
	close(fd);
	eh = (const Elf64_Ehdr *)m->base;
	if (m->base == MAP_FAILED || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shoff + (size_t)eh->e_shnum *
	    sizeof(Elf64_Shdr) > m->size || eh->e_shstrndx >= eh->e_shnum) {
		if (m->base != MAP_FAILED)
			munmap((void *)m->base, m->size);
		m->base = NULL;
		err_set(err, "'%s' is not a 64-bit ELF file", path);
		return -EINVAL;
	}
	m->sh = (const Elf64_Shdr *)(m->base + eh->e_shoff);
	m->shnum = eh->e_shnum;
	m->shstr = (const char *)m->base + m->sh[eh->e_shstrndx].sh_offset;
	return 0;
}

static void elf_close(struct elf_map *m)
{
	if (m->base)
		munmap((void *)m->base, m->size);
	m->base = NULL;
}

static const Elf64_Shdr *elf_section(const struct elf_map *m, const char *name)
{
	for (unsigned int i = 0; i < m->shnum; i++)
		if (!strcmp(m->shstr + m->sh[i].sh_name, name))
			return &m->sh[i];
	return NULL;
}

/* The symbol table's text symbols, sorted by address (kallsyms' view). */
struct elf_syms {
	const Elf64_Sym **v;
	size_t n;
};

static int sym_cmp(const void *a, const void *b)
{
	const Elf64_Sym *x = *(const Elf64_Sym *const *)a, *y = *(const Elf64_Sym *const *)b;

	return x->st_value < y->st_value ? -1 : x->st_value > y->st_value;
}

static const char *sym_name(const struct elf_map *m, const Elf64_Sym *sym)
{
	for (unsigned int i = 0; i < m->shnum; i++) {
		const Elf64_Shdr *s = &m->sh[i];

		if (s->sh_type == SHT_SYMTAB && s->sh_link < m->shnum &&
		    sym->st_name < m->sh[s->sh_link].sh_size)
			return (const char *)m->base + m->sh[s->sh_link].sh_offset + sym->st_name;
	}
	return "";
}

static void elf_syms_load(const struct elf_map *m, struct elf_syms *out)
{
	size_t cap = 0;

	memset(out, 0, sizeof(*out));
	for (unsigned int i = 0; i < m->shnum; i++) {
		const Elf64_Shdr *s = &m->sh[i];
		const Elf64_Sym *sym = (const Elf64_Sym *)(m->base + s->sh_offset);

		if (s->sh_type != SHT_SYMTAB)
			continue;
		for (size_t k = 0; k < s->sh_size / sizeof(*sym); k++) {
			unsigned int t = ELF64_ST_TYPE(sym[k].st_info);

			if ((t != STT_FUNC && t != STT_NOTYPE) || !sym[k].st_name ||
			    sym[k].st_shndx == SHN_UNDEF || sym[k].st_shndx >= m->shnum ||
			    !(m->sh[sym[k].st_shndx].sh_flags & SHF_EXECINSTR))
				continue;
			xgrow_array(&out->v, &cap, out->n + 1, sizeof(*out->v));
			out->v[out->n++] = &sym[k];
		}
	}
	if (out->n > 1)	/* qsort(NULL, 0) is undefined */
		qsort(out->v, out->n, sizeof(*out->v), sym_cmp);
}

/*
 * Addresses of the text symbols called `name` whose kallsyms size (the
 * distance to the next symbol, padding included, as scripts/faddr2line
 * computes it) is `size`; size 0: any.
 */
static size_t elf_func_addrs(const struct elf_map *m, const struct elf_syms *ss, const char *name,
			     unsigned long size, unsigned long *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < ss->n && n < max; i++) {
		unsigned long len = 0;

		if (strcmp(sym_name(m, ss->v[i]), name))
			continue;
		for (size_t j = i + 1; j < ss->n; j++) {
			if (ss->v[j]->st_value > ss->v[i]->st_value) {
				len = ss->v[j]->st_value - ss->v[i]->st_value;
				break;
			}
		}
		if (!size || len == size || ss->v[i]->st_size == size)
			out[n++] = ss->v[i]->st_value;
	}
	return n;
}

/* ---- the kernel's debug files ------------------------------------------- */

static char *path_if(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);

	if (!access(p, R_OK))
		return p;
	free(p);
	return NULL;
}

int gdb_kernel_find(const char *bzimage, struct gdb_kernel *k, char **err)
{
	char *real = realpath(bzimage, NULL), *utils;
	struct elf_map m;
	int ret;

	memset(k, 0, sizeof(*k));
	if (!real) {
		err_set(err, "cannot find kernel '%s': %s\nhint: run 'make kernel', or pass --kernel BZIMAGE",
			bzimage, strerror(errno));
		return -EINVAL;
	}
	k->dir = xstrdup(dirname(real));
	free(real);
	k->vmlinux = xasprintf("%s/vmlinux", k->dir);
	ret = elf_open(k->vmlinux, &m, err);
	if (!ret && !elf_section(&m, ".debug_info")) {
		err_set(err, "'%s' has no debug information (.debug_info)\nhint: build the kernel with CONFIG_DEBUG_INFO_DWARF5=y (kconfigs/base.config), 'make kernel'",
			k->vmlinux);
		ret = -EINVAL;
	}
	elf_close(&m);
	if (ret) {
		if (err && *err && !strstr(*err, "hint:")) {
			char *e = *err;

			*err = xasprintf("%s\nhint: netlab gdb needs the vmlinux beside the bzImage ('make kernel' keeps it)",
					 e);
			free(e);
		}
		gdb_kernel_release(k);
		return -EINVAL;
	}
	utils = path_if(k->dir, "gdb/linux/utils.py");
	k->scripts = utils ? xasprintf("%s/gdb", k->dir) : NULL;
	free(utils);
	k->loader = path_if(k->dir, "vmlinux-gdb.py");
	return 0;
}

void gdb_kernel_release(struct gdb_kernel *k)
{
	free(k->dir);
	free(k->vmlinux);
	free(k->scripts);
	free(k->loader);
	memset(k, 0, sizeof(*k));
}

int gdb_find_binary(const char *name, char **path, char **err)
{
	const char *env = getenv("PATH");
	char *copy, *save = NULL;

	if (!name)
		name = getenv("NETLAB_GDB") ? getenv("NETLAB_GDB") : "gdb";
	*path = NULL;
	if (strchr(name, '/')) {
		if (!access(name, X_OK))
			*path = xstrdup(name);
	} else {
		copy = xstrdup(env ? env : "/usr/bin:/bin");
		for (char *d = strtok_r(copy, ":", &save); d && !*path; d = strtok_r(NULL, ":", &save)) {
			char *p = xasprintf("%s/%s", *d ? d : ".", name);

			if (!access(p, X_OK))
				*path = p;
			else
				free(p);
		}
		free(copy);
	}
	if (*path)
		return 0;
	err_set(err, "cannot find gdb ('%s') in PATH\nhint: install gdb (Debian: apt-get install gdb), or set NETLAB_GDB=/path/to/gdb",
		name);
	return -ENOENT;
}

char *gdb_data_dir(void)
{
	char *exe, *p;

	if (getenv("NETLAB_GDB_DIR"))
		return xstrdup(getenv("NETLAB_GDB_DIR"));
	exe = exe_dir();
	if (!exe)
		return NULL;
	/* build/netlab -> harness/gdb of the same tree. */
	p = xasprintf("%s/../harness/gdb", exe);
	free(exe);
	if (!access(p, R_OK))
		return p;
	free(p);
	return NULL;
}

/* ---- gdb's first commands and command line ------------------------------ */

void gdb_init_script(const struct gdb_kernel *k, const struct gdb_session *s, struct sbuf *o)
{
	sbuf_adds(o, "# netlab gdb: written by netlab, read by gdb -x\n"
		     "set pagination off\nset confirm off\nset width 0\nset height 0\n");
	if (!s->batch && s->log)
		sbuf_addf(o, "set logging file %s\nset logging overwrite on\nset logging enabled on\n",
			  s->log);
	sbuf_addf(o, "add-auto-load-safe-path %s\n", k->dir);
	/* vmlinux-gdb.py looks for scripts/gdb; the cache keeps them in gdb/. */
	if (k->scripts && k->loader)
		sbuf_addf(o, "python import sys; sys.path.insert(0, \"%s\")\nsource %s\n", k->scripts,
			  k->loader);
	else
		sbuf_adds(o, "echo netlab: this kernel has no gdb scripts (CONFIG_GDB_SCRIPTS): no lx-* commands\\n\n");
	/* gdb's 2 s for an answer is too short for a replay on a loaded host:
	 * gdb would drop the link ("Remote communication error"). */
	sbuf_addf(o, "set remotetimeout 60\ntarget remote %s\n", s->socket);
	for (size_t i = 0; s->data_dir && i < nic_models_n; i++)
		if (nic_models[i].gdb_helpers)
			sbuf_addf(o, "source %s/%s\n", s->data_dir, nic_models[i].gdb_helpers);
	if (s->data_dir && s->replay)
		sbuf_addf(o, "source %s/replay.py\n", s->data_dir);
	/* Before the kernel runs, only hardware breakpoints are reliable: the
	 * kernel rewrites its text (alternatives, static keys) as it boots. */
	for (size_t i = 0; i < s->n_breaks; i++)
		sbuf_addf(o, "hbreak %s\n", s->breaks[i]);
	if (s->replay && s->until) {
		sbuf_addf(o, "nl-until %s\n", s->until);
		if (!s->batch)
			sbuf_adds(o, "echo \\nnetlab: stopped there; 'nl-back' goes to the previous stop, 'nl-goto ICOUNT' anywhere, 'nl-until next-drop' on.\\n\\n\n");
	} else if (!s->batch) {
		sbuf_addf(o, "echo \\nnetlab: the kernel is stopped before its first instruction%s.\\n"
			     "netlab: 'continue' boots it and the scenario runs; 'nl-help' lists netlab's commands.\\n\\n\n",
			  s->replay ? " of the replay ('nl-icount' shows the instruction count; 'nl-until first-drop', 'nl-goto ICOUNT', 'nl-back')" : "");
	}
}

void gdb_build_argv(const char *gdb, const struct gdb_kernel *k, const char *init,
		    const char *user, bool batch, struct argv *a)
{
	argv_add(a, gdb);
	argv_add(a, "-q");
	if (batch) {
		argv_add(a, "-batch");
		argv_add(a, "-nx");
	}
	/* The kernel's scripts must be on sys.path before vmlinux auto-loads. */
	if (k->scripts) {
		argv_add(a, "-iex");
		argv_addf(a, "python import sys; sys.path.insert(0, \"%s\")", k->scripts);
	}
	argv_add(a, "-iex");
	argv_addf(a, "add-auto-load-safe-path %s", k->dir);
	argv_add(a, "-x");
	argv_add(a, init);
	if (user) {
		argv_add(a, "-x");
		argv_add(a, user);
	}
	argv_add(a, k->vmlinux);
}

/* ---- gdb beside a running QEMU -------------------------------------------- */

void gdb_proc_init(struct gdb_proc *p, const char *qmp_socket, unsigned int timeout_s)
{
	memset(p, 0, sizeof(*p));
	proc_init(&p->proc, NULL);
	p->qmp = qmp_socket ? xstrdup(qmp_socket) : NULL;
	p->timeout_s = timeout_s;
}

/*
 * gdb dies with us, and gets SIGINT and SIGTERM back (^C is gdb's: an
 * interactive `netlab gdb` ignores it). A batch gdb reads nothing, logs
 * everything and has a process group of its own: a ^C at the terminal is
 * not its. An interactive one shares the terminal, and our group.
 */
int gdb_proc_start(struct gdb_proc *p, const char *gdb, const struct gdb_kernel *k,
		   const struct gdb_session *s, const char *dir, const char *script, char **err)
{
	char *init = xasprintf("%s/gdb-init.gdb", dir);
	struct sbuf text;
	struct argv a;
	int ret;

	p->started = now_s();
	sbuf_init(&text);
	gdb_init_script(k, s, &text);
	ret = file_write(init, text.s, text.len);
	sbuf_release(&text);
	if (ret) {
		err_set(err, "cannot write '%s': %s", init, strerror(-ret));
		free(init);
		return ret;
	}
	/* QEMU creates the socket as it starts (server=on,wait=off). */
	for (int i = 0; i < 200 && access(s->socket, F_OK); i++)
		usleep(50000);
	argv_init(&a);
	gdb_build_argv(gdb, k, init, script, s->batch, &a);
	p->batch = s->batch;
	proc_init(&p->proc, (const char *const *)a.v);
	p->proc.death_sig = SIGKILL;
	p->proc.default_signals = true;
	if (s->batch) {
		p->proc.stdin_mode = PROC_NULL;
		p->proc.stdout_mode = PROC_FILE;
		p->proc.stdout_path = s->log;
		p->proc.stderr_mode = PROC_TO_STDOUT;
		p->proc.own_group = true;
	}
	ret = proc_start(&p->proc, err);
	argv_release(&a);
	free(init);
	return ret;
}

/*
 * SIGINT first: gdb stops the guest, abandons the script (a command that
 * waits or a Python sleep alike) and, batch, quits by detaching, which
 * removes its breakpoints and resumes the guest. SIGTERM 3 s later, SIGKILL
 * after 6 s; a killed gdb leaves its breakpoints in QEMU (see the tick).
 * gdb only, not its group.
 */
static void gdb_proc_end(struct gdb_proc *p)
{
	double t;

	if (p->proc.pid <= 0 || p->proc.exited)
		return;
	if (!p->term_at) {
		p->term_at = now_s();
		proc_signal(&p->proc, SIGINT);
		return;
	}
	t = now_s() - p->term_at;
	proc_signal(&p->proc, t > 6 ? SIGKILL : t > 3 ? SIGTERM : 0);
}

void gdb_proc_tick(struct gdb_proc *p)
{
	proc_wait(&p->proc, 0);
	if (!p->proc.exited && p->batch && p->timeout_s && now_s() - p->started > p->timeout_s) {
		p->timed_out = true;
		gdb_proc_end(p);
	}
	/*
	 * Without gdb, nobody resumes a stopped guest. A gdb that was killed
	 * leaves its breakpoints in QEMU's gdbstub, each stopping the guest
	 * again: keep resuming it (every 2 s) until the run ends.
	 */
	if (p->started && (p->proc.exited || p->proc.pid <= 0) && p->qmp &&
	    now_s() - p->cont_at > 2) {
		p->cont_at = now_s();
		gdb_qmp_cont(p->qmp, NULL);
	}
}

void gdb_proc_stop(struct gdb_proc *p, unsigned int grace_s)
{
	double until = now_s() + grace_s;

	if (p->proc.pid <= 0)
		return;
	for (proc_wait(&p->proc, 0); !p->proc.exited && now_s() < until; proc_wait(&p->proc, 0))
		usleep(100000);
	while (!p->proc.exited) {
		gdb_proc_end(p);
		usleep(100000);
		proc_wait(&p->proc, 0);
	}
}

bool gdb_proc_exited(const struct gdb_proc *p)
{
	return p->proc.exited;
}

int gdb_proc_exit_code(const struct gdb_proc *p)
{
	if (!p->proc.exited)
		return -1;
	if (p->timed_out)
		return GDB_EXIT_TIMEOUT;
	return proc_exit_code(&p->proc);
}

void gdb_proc_release(struct gdb_proc *p)
{
	proc_release(&p->proc);
	free(p->qmp);
	p->qmp = NULL;
}

bool gdb_log_ended_guest(const char *log_path)
{
	char *log = NULL;
	bool ended;

	file_read(log_path, &log, NULL);
	ended = log && (strstr(log, "Remote connection closed") ||
			strstr(log, "Target disconnected") || strstr(log, "Remote communication error"));
	free(log);
	return ended;
}

/* ---- a batch gdb for an unattended run ---------------------------------------- */

struct gdb_batch {
	struct gdb_kernel k;
	struct gdb_proc proc;
	struct gdb_session gs;
	char *gdb, *data_dir, *rundir, *socket, *log, *script;
	bool started;
};

int gdb_batch_new(const struct gdb_batch_opts *o, struct gdb_batch **out, char **err)
{
	struct gdb_batch *b = xzalloc(sizeof(*b));
	int ret = gdb_find_binary(NULL, &b->gdb, err);

	if (!ret)
		ret = gdb_kernel_find(o->kernel, &b->k, err);
	if (ret) {
		gdb_batch_free(b);
		return -EINVAL;
	}
	b->data_dir = gdb_data_dir();
	b->rundir = xstrdup(o->rundir);
	b->socket = xasprintf("%s/gdb.sock", o->rundir);
	b->log = xasprintf("%s/gdb.log", o->rundir);
	b->script = xstrdup(o->script);
	b->gs = (struct gdb_session){
		.socket = b->socket, .data_dir = b->data_dir, .breaks = o->breaks,
		.n_breaks = o->n_breaks, .log = b->log, .batch = true,
	};
	gdb_proc_init(&b->proc, o->qmp, o->timeout_s);
	*out = b;
	return 0;
}

const char *gdb_batch_socket(const struct gdb_batch *b)
{
	return b->socket;
}

void gdb_batch_spawned(void *ctx)
{
	struct gdb_batch *b = ctx;
	char *err = NULL;

	b->started = true;
	/* gdb that cannot start leaves its reason where its output would be;
	 * the tick then resumes the guest, and gdb.exit says -1. */
	if (gdb_proc_start(&b->proc, b->gdb, &b->k, &b->gs, b->rundir, b->script, &err))
		file_writef(b->log, "netlab: %s\n", err);
	free(err);
}

void gdb_batch_tick(void *ctx)
{
	struct gdb_batch *b = ctx;

	gdb_proc_tick(&b->proc);
}

int gdb_batch_finish(struct gdb_batch *b)
{
	char *path;
	int code;

	if (!b || !b->started)
		return -1;
	/* The guest is gone: gdb sees its connection close within a moment. */
	gdb_proc_stop(&b->proc, 10);
	code = gdb_proc_exit_code(&b->proc);
	path = xasprintf("%s/gdb.exit", b->rundir);
	file_writef(path, "%d\n", code);
	free(path);
	return code;
}

void gdb_batch_free(struct gdb_batch *b)
{
	if (!b)
		return;
	gdb_kernel_release(&b->k);
	gdb_proc_release(&b->proc);
	free(b->gdb);
	free(b->data_dir);
	free(b->rundir);
	free(b->socket);
	free(b->log);
	free(b->script);
	free(b);
}

/* ---- replay --------------------------------------------------------------- */

static char *replace_all(const char *s, const char *from, const char *to)
{
	struct sbuf b;
	const char *p;

	sbuf_init(&b);
	while ((p = strstr(s, from))) {
		sbuf_add(&b, s, (size_t)(p - s));
		sbuf_adds(&b, to);
		s = p + strlen(from);
	}
	sbuf_adds(&b, s);
	return sbuf_detach(&b);
}

int gdb_replay_argv(const char *vm_dir, const char *out, const char *sock_dir, const char *socket,
		    bool paused, struct argv *a, char **err)
{
	static const char *const need[] = { "replay.argv", "replay.bin" };
	char *text = NULL, *path, *save = NULL;
	int ret;

	for (size_t i = 0; i < ARRAY_SIZE(need); i++) {
		path = xasprintf("%s/%s", vm_dir, need[i]);
		ret = access(path, R_OK) ? -errno : 0;
		if (ret) {
			err_set(err, "'%s' holds no recording: '%s': %s\nhint: record one with 'netlab run --record' (or 'netlab gdb --record')",
				vm_dir, path, strerror(-ret));
			free(path);
			return -EINVAL;
		}
		free(path);
	}
	path = xasprintf("%s/replay.argv", vm_dir);
	ret = file_read(path, &text, NULL);
	free(path);
	if (ret) {
		err_set(err, "cannot read '%s/replay.argv': %s", vm_dir, strerror(-ret));
		return -EINVAL;
	}
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *x = replace_all(l, "@OUT@", out), *y = replace_all(x, "@SOCK@", sock_dir);

		argv_add(a, y);
		free(x);
		free(y);
	}
	free(text);
	if (a->n < 2) {
		err_set(err, "'%s/replay.argv' is empty", vm_dir);
		return -EINVAL;
	}
	if (socket) {
		argv_add(a, "-chardev");
		argv_addf(a, "socket,path=%s,server=on,wait=off,id=gdb0", socket);
		argv_add(a, "-gdb");
		argv_add(a, "chardev:gdb0");
	}
	if (paused)
		argv_add(a, "-S");
	return 0;
}

/* ---- oops decoding -------------------------------------------------------- */

static bool is_sym_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$';
}

bool oops_parse_frame(const char *line, struct oops_frame *f)
{
	for (const char *plus = strstr(line, "+0x"); plus; plus = strstr(plus + 1, "+0x")) {
		const char *start = plus, *p;
		char *end;
		size_t n;

		while (start > line && is_sym_char(start[-1]))
			start--;
		n = (size_t)(plus - start);
		if (!n || n >= sizeof(f->func))
			continue;
		/* The name starts a word: after a space, ':' (RIP: 0010:), or '?'. */
		if (start > line && !strchr(" :\t", start[-1]))
			continue;
		f->off = strtoul(plus + 1, &end, 16);
		if (end == plus + 3 || strncmp(end, "/0x", 3))
			continue;
		p = end + 1;
		f->len = strtoul(p, &end, 16);
		if (end == p + 2)
			continue;
		memcpy(f->func, start, n);
		f->func[n] = '\0';
		f->module[0] = '\0';
		if (end[0] == ' ' && end[1] == '[') {
			const char *close = strchr(end + 2, ']');

			if (close && (size_t)(close - end - 2) < sizeof(f->module)) {
				memcpy(f->module, end + 2, (size_t)(close - end - 2));
				f->module[close - end - 2] = '\0';
			}
		}
		return true;
	}
	return false;
}

#define OOPS_MAX_ADDRS 4	/* same name and size: rare, never many */

struct oops_query {
	struct oops_frame f;
	unsigned long addr[OOPS_MAX_ADDRS];
	size_t n_addr;
};

/* addr2line -aife VMLINUX ADDR...: per address, "0xADDR" then the inline
 * chain as "function\nfile:line" pairs, innermost first. */
static int run_addr2line(const char *vmlinux, const struct argv *addrs, char **out, char **err)
{
	struct proc p;
	struct argv a;
	int ret;

	argv_init(&a);
	argv_add(&a, "addr2line");
	argv_add(&a, "-aife");
	argv_add(&a, vmlinux);
	for (size_t i = 0; i < addrs->n; i++)
		argv_add(&a, addrs->v[i]);
	proc_init(&p, (const char *const *)a.v);
	p.stdin_mode = PROC_NULL;
	p.stdout_mode = PROC_CAPTURE;
	ret = proc_run(&p, 0, NULL);
	argv_release(&a);
	*out = ret ? NULL : proc_take_output(&p);
	proc_release(&p);
	if (ret > 0)
		ret = -EIO;
	if (ret)
		err_set(err, "addr2line on '%s' failed%s\nhint: install binutils", vmlinux,
			ret == -ENOENT ? " (not found in PATH)" : "");
	return ret;
}

/* "/build/src/drivers/x.c:12" -> "drivers/x.c:12" when it starts with `prefix`. */
static const char *rel(const char *path, const char *prefix)
{
	size_t n = prefix ? strlen(prefix) : 0;

	return n && !strncmp(path, prefix, n) ? path + n : path;
}

/* Print the chain of the address at *lines ("0x..." line) and step past it. */
static void print_chain(char ***lines, const char *prefix, struct sbuf *out)
{
	bool first = true;

	if ((*lines)[0] && !strncmp((*lines)[0], "0x", 2))
		(*lines)++;
	while ((*lines)[0] && (*lines)[1] && strncmp((*lines)[0], "0x", 2)) {
		if (strcmp((*lines)[0], "??") || first)
			sbuf_addf(out, "%s%s at %s\n", first ? "" : " (inlined by) ", (*lines)[0],
				  rel((*lines)[1], prefix));
		first = false;
		*lines += 2;
	}
}

static char **split_lines(char *text, size_t *n)
{
	char **v = NULL, *save = NULL;
	size_t cap = 0;

	*n = 0;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		xgrow_array(&v, &cap, *n + 2, sizeof(*v));
		v[(*n)++] = l;
	}
	xgrow_array(&v, &cap, *n + 1, sizeof(*v));
	v[*n] = NULL;
	return v;
}

/* The source tree prefix: start_kernel is in init/main.c in every kernel. */
static char *source_prefix(const char *a2l_path)
{
	const char *p = strstr(a2l_path, "init/main.c");

	return p ? xasprintf("%.*s", (int)(p - a2l_path), a2l_path) : NULL;
}

static size_t collect_frames(const struct elf_map *m, const struct elf_syms *ss, const char *oops,
			     struct oops_query **qs)
{
	char *copy = xstrdup(oops), *save = NULL;
	size_t n = 0, cap = 0;

	*qs = NULL;
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		struct oops_query q = { 0 };

		if (!oops_parse_frame(l, &q.f))
			continue;
		if (!q.f.module[0])
			q.n_addr = elf_func_addrs(m, ss, q.f.func, q.f.len, q.addr, OOPS_MAX_ADDRS);
		xgrow_array(qs, &cap, n + 1, sizeof(**qs));
		(*qs)[n++] = q;
	}
	free(copy);
	return n;
}

int oops_decode(const char *vmlinux, const char *oops, struct sbuf *out, char **err)
{
	struct oops_query *qs;
	struct elf_syms ss;
	struct elf_map m;
	struct argv addrs;
	unsigned long sk = 0;
	char *text = NULL, **lines, **cur, *prefix = NULL;
	size_t n, n_lines;
	int ret = elf_open(vmlinux, &m, err), resolved = 0;

	if (ret)
		return ret;
	elf_syms_load(&m, &ss);
	n = collect_frames(&m, &ss, oops, &qs);
	argv_init(&addrs);
	if (elf_func_addrs(&m, &ss, "start_kernel", 0, &sk, 1))
		argv_addf(&addrs, "0x%lx", sk);
	for (size_t i = 0; i < n; i++) {
		/* A return address at the very end (a call that does not return,
		 * like panic()) belongs to the next symbol: decode the call. */
		unsigned long off = qs[i].f.off && qs[i].f.off >= qs[i].f.len ? qs[i].f.off - 1
									 : qs[i].f.off;

		if (qs[i].f.off > qs[i].f.len)
			continue;	/* past the function: not decoded (below) */
		for (size_t k = 0; k < qs[i].n_addr; k++) {
			argv_addf(&addrs, "0x%lx", qs[i].addr[k] + off);
		}
	}
	ret = addrs.n ? run_addr2line(vmlinux, &addrs, &text, err) : 0;
	if (ret)
		goto out;
	lines = split_lines(text ? text : (char *)"", &n_lines);
	cur = lines;
	if (sk && cur[0] && cur[1] && cur[2]) {
		struct sbuf skip;

		prefix = source_prefix(cur[2]);
		sbuf_init(&skip);
		print_chain(&cur, NULL, &skip);
		sbuf_release(&skip);
	}
	for (size_t i = 0; i < n; i++) {
		const struct oops_frame *f = &qs[i].f;

		if (f->module[0]) {
			sbuf_addf(out, "%s+0x%lx/0x%lx [%s]: in module %s, not in vmlinux\n", f->func,
				  f->off, f->len, f->module, f->module);
			continue;
		}
		if (!qs[i].n_addr) {
			sbuf_addf(out, "%s+0x%lx/0x%lx: no function of that name and size in vmlinux (another kernel?)\n",
				  f->func, f->off, f->len);
			continue;
		}
		if (f->off > f->len) {
			sbuf_addf(out, "%s+0x%lx/0x%lx: warning: the offset lies past the function's 0x%lx bytes (an edited oops, or another kernel): not decoded\n",
				  f->func, f->off, f->len, f->len);
			continue;
		}
		sbuf_addf(out, "%s+0x%lx/0x%lx:\n", f->func, f->off, f->len);
		for (size_t k = 0; k < qs[i].n_addr; k++)
			print_chain(&cur, prefix, out);
		resolved++;
	}
	free(lines);
	ret = resolved;
out:
	free(prefix);
	free(text);
	free(qs);
	free(ss.v);
	argv_release(&addrs);
	elf_close(&m);
	return ret;
}

static const char *jstr(struct json_object *o, const char *a, const char *b)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, a, &v) || (b && !json_object_object_get_ex(v, b, &v)))
		return NULL;
	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

int oops_report(const char *rundir, struct sbuf *out, char **err)
{
	char *path = xasprintf("%s/result.json", rundir), hex[65];
	struct json_object *j = json_file_get(path);
	const char *oops = j ? jstr(j, "oops", NULL) : NULL;
	const char *kernel = j ? jstr(j, "kernel", "path") : NULL, *sha;
	struct gdb_kernel k = { 0 };
	int ret = 0;

	free(path);
	if (!oops)
		goto out;
	if (!kernel) {
		err_set(err, "'%s/result.json' names no kernel (kernel.path)", rundir);
		ret = -EINVAL;
		goto out;
	}
	ret = gdb_kernel_find(kernel, &k, err);
	if (ret)
		goto out;
	sbuf_addf(out, "oops, decoded (faddr2line) with %s:\n", k.vmlinux);
	sha = jstr(j, "kernel", "sha256");
	if (sha && !sha256_file(kernel, hex) && strcmp(hex, sha))
		sbuf_addf(out, "warning: '%s' changed since the run (sha256): lines may be wrong\n",
			  kernel);
	ret = oops_decode(k.vmlinux, oops, out, err);
	ret = ret < 0 ? ret : 1;
out:
	gdb_kernel_release(&k);
	json_object_put(j);
	return ret;
}
