// SPDX-License-Identifier: GPL-2.0
/*
 * What every command shares: error printing and the default paths of the
 * kernel, the initramfs and the run directory.
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "boot/flavour.h"
#include "boot/initrd.h"
#include "cmd/cmd.h"
#include "scenario/regress.h"
#include "vm/share.h"

void cmd_error(const char *what, const char *err)
{
	fprintf(stderr, "netlab %s: %s\n", what, err ? err : "failed");
}

/* $ENV when set and not empty, else FILE beside the netlab binary. */
static char *default_path(const char *env, const char *file)
{
	const char *v = getenv(env);
	char *dir, *p;

	if (v && *v)
		return xstrdup(v);
	dir = exe_dir();
	p = xasprintf("%s/%s", dir, file);
	free(dir);
	return p;
}

char *cmd_default_kernel(void)
{
	return default_path("KERNEL", "kernel/bzImage");
}

int cmd_parse_flavour(const char *opt, const char *arg, const char **out, char **err)
{
	char *dir = flavour_dir(), *why = NULL;
	int ret = flavour_check(dir, arg, &why);

	free(dir);
	if (ret) {
		err_set(err, "%s: %s", opt, why);
		free(why);
		return ret;
	}
	*out = arg;
	return 0;
}

char *cmd_flavour_kernel(const char *flavour)
{
	char *bin, *p;

	if (flavour_is_default(flavour))
		return cmd_default_kernel();
	bin = exe_dir();
	p = flavour_kernel(bin, flavour);
	free(bin);
	return p;
}

int cmd_check_flavour_kernel(const char *flavour, const char *kernel, char **err)
{
	if (flavour_is_default(flavour) || !kernel || access(kernel, R_OK) == 0)
		return 0;
	err_set(err, "kernel flavour '%s' is not built: cannot read '%s': %s\n"
		     "hint: make kernel FLAVOUR=%s (a cold build takes 20 minutes or more), "
		     "or give --kernel FILE",
		flavour, kernel, strerror(errno), flavour);
	return -EINVAL;
}

char *cmd_default_initrd(void)
{
	return default_path("INITRD", "initramfs.cpio.gz");
}

char *cmd_default_out(const char *kind)
{
	char stamp[32];
	time_t t = time(NULL);

	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&t));
	return xasprintf("runs/%s-%s-%d", kind, stamp, (int)getpid());
}

int cmd_check_out(const char *out, const char *below, char **err)
{
	return run_dir_check("--out", out, below, err);
}

int cmd_check_suite_out(const char *out, const struct regress *r, char **err)
{
	char *deepest = NULL;
	int ret;

	for (size_t i = 0; i < r->n; i++) {
		char *name = scn_file_name(r->s[i].scn);
		const struct scenario *s = r->s[i].scn;
		char *below = xasprintf("/%s/run-%u%s", name, s->repeat,
					s->topo && s->topo->n_vms > 1 ? RUN_SOCK_BELOW_VMS : "");

		free(name);
		if (deepest && strlen(deepest) >= strlen(below)) {
			free(below);
			continue;
		}
		free(deepest);
		deepest = below;
	}
	ret = cmd_check_out(out, deepest, err);
	free(deepest);
	return ret;
}

int cmd_check_initrd(const char *opt, const char *path, char **err)
{
	char *why = NULL;

	if (!initrd_check(path, &why))
		return 0;
	err_set(err, "%s '%s': %s\nhint: run 'make guest', or pass --initrd with a cpio archive "
		     "(gzip, xz, zstd, lz4, bzip2 or lzma compressed, or not)", opt, path, why);
	free(why);
	return -EINVAL;
}

int cmd_parse_snaplen(const char *arg, unsigned int *out, char **err)
{
	unsigned long v;

	if (parse_uint(arg, 0, 65535, &v) || (v && v < 64)) {
		err_set(err, "--snaplen '%s': expected 0 (whole frames) or a number of bytes from 64 "
			     "to 65535\nhint: the default, 256, keeps every header and the payload "
			     "bytes netlab's filters read", arg);
		return -EINVAL;
	}
	*out = (unsigned int)v;
	return 0;
}

int cmd_parse_domain_name(const char *arg, const char **out, char **err)
{
	size_t n = strlen(arg);

	if (n == 0 || n > 48 || strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					   "0123456789_.-") != n || arg[0] == '-' || arg[0] == '.') {
		err_set(err, "--domain-name '%s': expected 1 to 48 letters, digits, '_', '.' or '-', "
			     "not starting with '-' or '.'", arg);
		return -EINVAL;
	}
	*out = arg;
	return 0;
}

const char *cmd_opt_name(const struct option *longopts, int li, int c, char *buf, size_t n)
{
	if (li >= 0 && longopts[li].name)
		snprintf(buf, n, "--%s", longopts[li].name);
	else
		snprintf(buf, n, "-%c", c);
	return buf;
}

int cmd_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
	       const char *cmd, int (*one)(void *ctx, int c, const char *opt, const char *arg,
					   char **err),
	       void *ctx, char **err)
{
	int c, li = -1;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, &li)) != -1) {
		char name[64];

		if (c == '?' || c == ':') {
			err_set(err, "bad option '%s' (see 'netlab %s --help')", argv[optind - 1], cmd);
			return -EINVAL;
		}
		if (one(ctx, c, cmd_opt_name(longopts, li, c, name, sizeof(name)), optarg, err))
			return -EINVAL;
		li = -1;
	}
	return 0;
}

int cmd_parse_share(const char *spec, bool add, struct cmd_shares *cs, char **err)
{
	struct vm_share sh;
	char *why = NULL;

	if (add ? add_parse(spec, NULL, &sh, &why) : share_parse(spec, NULL, &sh, &why)) {
		err_set(err, "--%s '%s': %s", add ? "add" : "share", spec, why);
		free(why);
		return -EINVAL;
	}
	if (add) {
		cs->adds = xrealloc_array(cs->adds, cs->n_adds + 1, sizeof(*cs->adds));
		cs->adds[cs->n_adds++] = sh;
	} else {
		cs->shares = xrealloc_array(cs->shares, cs->n_shares + 1, sizeof(*cs->shares));
		cs->shares[cs->n_shares++] = sh;
	}
	return 0;
}

int cmd_shares_finish(struct cmd_shares *cs, struct run_opts *o, char **err)
{
	char *why = NULL;

	if (share_list_check(cs->shares, cs->n_shares, cs->adds, cs->n_adds, &why)) {
		err_set(err, "--share/--add: %s", why);
		free(why);
		return -EINVAL;
	}
	o->shares = cs->shares;
	o->n_shares = cs->n_shares;
	o->adds = cs->adds;
	o->n_adds = cs->n_adds;
	return 0;
}

void cmd_shares_release(struct cmd_shares *cs)
{
	share_array_free(cs->shares, cs->n_shares);
	share_array_free(cs->adds, cs->n_adds);
	memset(cs, 0, sizeof(*cs));
}
