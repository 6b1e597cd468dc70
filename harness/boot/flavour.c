// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel flavours: the kconfigs/flavours/ directories (boot/flavour.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "boot/flavour.h"
#include "lib/util.h"

char *flavour_dir(void)
{
	char *bin = exe_dir(), *dir = xasprintf("%s/../kconfigs/flavours", bin);

	free(bin);
	return dir;
}

bool flavour_name_ok(const char *name)
{
	if (!name || !*name || *name == '.')
		return false;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' || *p == '.'))
			return false;
	return true;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char *flavour_list(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0;
	struct sbuf b;

	while (d && (e = readdir(d))) {
		char *p;
		struct stat st;

		if (!flavour_name_ok(e->d_name))
			continue;
		p = xasprintf("%s/%s", dir, e->d_name);
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			names = xrealloc_array(names, n + 1, sizeof(*names));
			names[n++] = xstrdup(e->d_name);
		}
		free(p);
	}
	if (d)
		closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	sbuf_init(&b);
	for (size_t i = 0; i < n; i++) {
		sbuf_addf(&b, "%s%s", i ? ", " : "", names[i]);
		free(names[i]);
	}
	free(names);
	return sbuf_detach(&b);
}

int flavour_check(const char *dir, const char *name, char **err)
{
	char *p, *list;
	struct stat st;
	bool ok;

	if (!flavour_name_ok(name)) {
		list = flavour_list(dir);
		err_set(err,
			"bad kernel flavour name '%s': a directory of kconfigs/flavours/ "
			"(letters, digits, '_', '-', '.')\nhint: the flavours are: %s",
			name ? name : "", *list ? list : "(none)");
		free(list);
		return -EINVAL;
	}
	p = xasprintf("%s/%s", dir, name);
	ok = stat(p, &st) == 0 && S_ISDIR(st.st_mode);
	free(p);
	if (ok)
		return 0;
	list = flavour_list(dir);
	err_set(err,
		"unknown kernel flavour '%s': no directory kconfigs/flavours/%s\n"
		"hint: the flavours are: %s",
		name, name, *list ? list : "(none)");
	free(list);
	return -EINVAL;
}

bool flavour_is_default(const char *name)
{
	return !name || !*name || !strcmp(name, FLAVOUR_DEFAULT);
}

char *flavour_kernel(const char *build_dir, const char *name)
{
	if (flavour_is_default(name))
		return xasprintf("%s/kernel/bzImage", build_dir);
	return xasprintf("%s/kernel-%s/bzImage", build_dir, name);
}
