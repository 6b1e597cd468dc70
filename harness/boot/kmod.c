// SPDX-License-Identifier: GPL-2.0
/*
 * The modules a distribution kernel needs in netlab's guest (kmod.h).
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "boot/kmod.h"
#include "lib/util.h"
#include "nicmodel.h"

const char *kmod_modinfo(const char *buf, size_t n, const char *field)
{
	const Elf64_Ehdr *eh = (const void *)buf;
	const Elf64_Shdr *sh, *strs;
	size_t flen = strlen(field);

	if (n < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff > n || eh->e_shnum > (n - eh->e_shoff) / sizeof(Elf64_Shdr) ||
	    eh->e_shstrndx >= eh->e_shnum)
		return NULL;
	sh = (const void *)(buf + eh->e_shoff);
	strs = &sh[eh->e_shstrndx];
	if (strs->sh_offset > n || strs->sh_size > n - strs->sh_offset)
		return NULL;
	for (unsigned int i = 0; i < eh->e_shnum; i++) {
		const char *p, *end;

		if (sh[i].sh_name >= strs->sh_size ||
		    strncmp(buf + strs->sh_offset + sh[i].sh_name, ".modinfo",
			    strs->sh_size - sh[i].sh_name) ||
		    sh[i].sh_offset > n || sh[i].sh_size > n - sh[i].sh_offset)
			continue;
		p = buf + sh[i].sh_offset;
		end = p + sh[i].sh_size;
		/* NUL-separated "key=value" strings; the last one must end in the section */
		while (p < end) {
			const char *z = memchr(p, '\0', (size_t)(end - p));

			if (!z)
				return NULL;
			if ((size_t)(z - p) > flen && !strncmp(p, field, flen) && p[flen] == '=')
				return p + flen + 1;
			p = z + 1;
		}
	}
	return NULL;
}

/* Module names compare with '-' and '_' alike. */
static void norm(char *s)
{
	for (; *s; s++)
		if (*s == '-')
			*s = '_';
}

struct index {
	struct kmod *v; /* every .ko of the tree; name normalised */
	size_t n, cap;
	char *compressed; /* the first compressed module seen */
};

static int walk(const char *dir, struct index *ix, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char *path, *dot;
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		if (stat(path, &st)) {
			free(path);
			continue;
		}
		if (S_ISDIR(st.st_mode) && depth < 16) {
			walk(path, ix, depth + 1);
			free(path);
			continue;
		}
		dot = strstr(e->d_name, ".ko");
		if (!S_ISREG(st.st_mode) || !dot) {
			free(path);
			continue;
		}
		if (dot[3]) {
			if (!ix->compressed && (!strcmp(dot, ".ko.xz") || !strcmp(dot, ".ko.zst") ||
						!strcmp(dot, ".ko.gz")))
				ix->compressed = xstrdup(path);
			free(path);
			continue;
		}
		xgrow_array(&ix->v, &ix->cap, ix->n + 1, sizeof(*ix->v));
		ix->v[ix->n].name = xstrndup(e->d_name, (size_t)(dot - e->d_name));
		norm(ix->v[ix->n].name);
		ix->v[ix->n++].path = path;
	}
	closedir(d);
	return 0;
}

static const struct kmod *lookup(const struct index *ix, const char *name)
{
	for (size_t i = 0; i < ix->n; i++)
		if (!strcmp(ix->v[i].name, name))
			return &ix->v[i];
	return NULL;
}

/* lib/modules/VERSION under @dir, or @dir itself when it has kernel/. */
static char *tree_of(const char *dir)
{
	char *k = xasprintf("%s/kernel", dir), *lm;
	struct dirent *e;
	struct stat st;
	DIR *d;

	if (!stat(k, &st) && S_ISDIR(st.st_mode)) {
		free(k);
		return xstrdup(dir);
	}
	free(k);
	lm = xasprintf("%s/lib/modules", dir);
	d = opendir(lm);
	if (!d) {
		free(lm);
		return NULL;
	}
	while ((e = readdir(d))) {
		char *t;

		if (e->d_name[0] == '.')
			continue;
		t = xasprintf("%s/%s/kernel", lm, e->d_name);
		if (!stat(t, &st) && S_ISDIR(st.st_mode)) {
			t[strlen(t) - strlen("/kernel")] = '\0';
			closedir(d);
			free(lm);
			return t;
		}
		free(t);
	}
	closedir(d);
	free(lm);
	return NULL;
}

/* Add @m after its dependencies (depth-first); @seen guards cycles. */
static int add(struct kmod_list *l, const struct index *ix, const struct kmod *m, int depth,
	       char **err)
{
	char *buf = NULL, *deps = NULL, *save = NULL;
	const char *d;
	size_t n = 0;
	int ret;

	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, m->name))
			return 0;
	if (depth > 32) {
		err_set(err, "modules %s: dependencies of '%s' nest deeper than 32: a cycle?", l->dir,
			m->name);
		return -EINVAL;
	}
	ret = file_read(m->path, &buf, &n);
	if (ret) {
		err_set(err, "modules %s: cannot read '%s': %s", l->dir, m->path, strerror(-ret));
		return ret;
	}
	d = kmod_modinfo(buf, n, "depends");
	if (!d && !kmod_modinfo(buf, n, "vermagic")) {
		err_set(err, "modules %s: '%s' is not a kernel module (no .modinfo in an ELF64 file)",
			l->dir, m->path);
		free(buf);
		return -EINVAL;
	}
	if (!l->vermagic && kmod_modinfo(buf, n, "vermagic"))
		l->vermagic = xstrdup(kmod_modinfo(buf, n, "vermagic"));
	deps = xstrdup(d ? d : "");
	free(buf);
	for (char *t = strtok_r(deps, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		const struct kmod *dep;

		norm(t);
		dep = lookup(ix, t);
		if (!dep) {
			err_set(err, "modules %s: '%s' depends on '%s', which the tree lacks",
				l->dir, m->name, t);
			free(deps);
			return -EINVAL;
		}
		ret = add(l, ix, dep, depth + 1, err);
		if (ret) {
			free(deps);
			return ret;
		}
	}
	free(deps);
	l->v = xrealloc_array(l->v, l->n + 1, sizeof(*l->v));
	l->v[l->n].name = xstrdup(m->name);
	l->v[l->n++].path = xstrdup(m->path);
	return 0;
}

int kmod_collect(const char *dir, struct kmod_list *out, char **err)
{
	static const char *const first[] = { KMOD_WANTED_FIRST }, *const last[] = { KMOD_WANTED_LAST };
	const char *wanted[ARRAY_SIZE(first) + NIC_MODELS_MAX * NIC_MODULES_MAX + ARRAY_SIZE(last)];
	size_t n_wanted = 0;
	struct index ix = { 0 };
	char *kernel;
	int ret = 0;

	for (size_t i = 0; i < ARRAY_SIZE(first); i++)
		wanted[n_wanted++] = first[i];
	for (size_t i = 0; i < nic_models_n; i++)
		for (size_t k = 0; k < NIC_MODULES_MAX && nic_models[i].modules[k]; k++)
			wanted[n_wanted++] = nic_models[i].modules[k];
	for (size_t i = 0; i < ARRAY_SIZE(last); i++)
		wanted[n_wanted++] = last[i];
	memset(out, 0, sizeof(*out));
	out->dir = tree_of(dir);
	if (!out->dir) {
		err_set(err,
			"modules %s: no module tree (neither DIR/kernel/ nor DIR/lib/modules/VERSION/kernel/)\nhint: pass the lib/modules/VERSION directory of the kernel, or a distribution kernel package unpacked with dpkg -x",
			dir);
		return -ENOENT;
	}
	kernel = xasprintf("%s/kernel", out->dir);
	walk(kernel, &ix, 0);
	free(kernel);
	if (ix.compressed) {
		err_set(err,
			"modules %s: '%s' is compressed; netlab loads plain .ko files\nhint: decompress the tree first (xz -d / zstd -d / gunzip on each module)",
			out->dir, ix.compressed);
		ret = -EINVAL;
	}
	for (size_t i = 0; !ret && i < n_wanted; i++) {
		const struct kmod *m = lookup(&ix, wanted[i]);

		if (m)
			ret = add(out, &ix, m, 0, err);
	}
	for (size_t i = 0; i < ix.n; i++) {
		free(ix.v[i].name);
		free(ix.v[i].path);
	}
	free(ix.v);
	free(ix.compressed);
	if (ret)
		kmod_list_release(out);
	return ret;
}

void kmod_list_release(struct kmod_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].path);
	}
	free(l->v);
	free(l->dir);
	free(l->vermagic);
	memset(l, 0, sizeof(*l));
}
