// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's selftests: the build (harness/ksft-build.sh, run as a
 * process) and the [exec] scenario of one test. See ksft.h.
 */
#include <errno.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/proc.h"
#include "lib/util.h"
#include "selftests/ksft.h"

char *ksft_build_script(void)
{
	const char *env = getenv("NETLAB_KSFT_BUILD");
	char *bin, *p;

	if (env && *env)
		return xstrdup(env);
	bin = exe_dir();
	p = xasprintf("%s/../harness/ksft-build.sh", bin);
	free(bin);
	return p;
}

char *ksft_cache_dir(const char *ksrc, const char *const *targets, size_t n_targets)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0;
	char real[PATH_MAX], hex[17], *cache, *dir;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	if (!realpath(ksrc, real))
		snprintf(real, sizeof(real), "%s", ksrc);
	EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	EVP_DigestUpdate(ctx, real, strlen(real) + 1);
	for (size_t i = 0; i < n_targets; i++)
		EVP_DigestUpdate(ctx, targets[i], strlen(targets[i]) + 1);
	EVP_DigestFinal_ex(ctx, md, &len);
	EVP_MD_CTX_free(ctx);
	for (int i = 0; i < 8; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	cache = cache_dir();
	dir = xasprintf("%s/selftests/%s", cache, hex);
	free(cache);
	return dir;
}

/* The script's last "ksft-build.sh: ..." and "hint:" lines, from its stderr log. */
static char *script_error(const char *log)
{
	char *data = NULL, *line, *save = NULL;
	struct sbuf b;
	size_t len;

	if (file_read(log, &data, &len))
		return NULL;
	sbuf_init(&b);
	for (line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "ksft-build.sh: ", 15)) {
			sbuf_release(&b);
			sbuf_init(&b);
			sbuf_adds(&b, line + 15);
		} else if (!strncmp(line, "hint:", 5) && b.len) {
			sbuf_addf(&b, "\n%s", line);
		}
	}
	free(data);
	if (!b.len) {
		sbuf_release(&b);
		return NULL;
	}
	return sbuf_detach(&b);
}

int ksft_build(const char *ksrc, const char *const *targets, size_t n_targets,
	       const char *outdir, char **install, char **err)
{
	char *script = ksft_build_script(), *dir = outdir ? xstrdup(outdir)
						       : ksft_cache_dir(ksrc, targets, n_targets);
	char *log = NULL, *msg = NULL;
	struct argv a;
	struct proc p;
	int ret;

	*install = NULL;
	if (access(script, X_OK)) {
		err_set(err, "the selftests builder '%s' is not there: %s\nhint: run netlab from "
			"its tree, or set NETLAB_KSFT_BUILD", script, strerror(errno));
		ret = -ENOENT;
		goto out;
	}
	if (mkdir_p(dir, 0755)) {
		err_set(err, "cannot create '%s': %s", dir, strerror(errno));
		ret = -errno;
		goto out;
	}
	argv_init(&a);
	argv_add(&a, script);
	argv_add(&a, ksrc);
	argv_add(&a, dir);
	for (size_t i = 0; i < n_targets; i++)
		argv_add(&a, targets[i]);
	log = xasprintf("%s/build.err", dir);
	proc_init(&p, (const char *const *)a.v);
	p.stdout_mode = PROC_CAPTURE;
	p.stderr_mode = PROC_FILE;
	p.stderr_path = log;
	ret = proc_run(&p, 0, err);
	if (ret >= 0) {
		/* Its progress, for whoever watches; its error comes back in *err. */
		char *data = NULL;
		size_t len;

		char *save = NULL;

		if (!file_read(log, &data, &len))
			for (char *l = strtok_r(data, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
				if (strncmp(l, "ksft-build.sh: ", 15) && strncmp(l, "hint:", 5))
					fprintf(stderr, "%s\n", l);
		free(data);
	}
	if (ret == 0) {
		char *o = proc_take_output(&p), *nl;

		while ((nl = strrchr(o, '\n')) && !nl[1])
			*nl = 0;
		nl = strrchr(o, '\n');
		*install = xstrdup(nl ? nl + 1 : o);
		free(o);
	} else if (ret > 0) {
		msg = script_error(log);
		err_set(err, "%s", msg ? msg : "the selftests build failed");
		ret = ret == 2 ? -EINVAL : -EIO;
	}
	proc_release(&p);
	argv_release(&a);
out:
	free(msg);
	free(log);
	free(dir);
	free(script);
	return ret;
}

int ksft_tools_initrd(const char *base, const char *tools, const char *out, char **err)
{
	char *bin = exe_dir(), *t = tools ? xstrdup(tools) : xasprintf("%s/ksft-tools.cpio.gz", bin);
	int ret = 0;

	if (access(t, R_OK)) {
		ret = -errno;
		err_set(err, "no selftests tools image '%s': %s\nhint: 'make guest' builds it", t,
			strerror(errno));
	} else {
		ret = ksft_initrd_append(base, t, out, err);
	}
	free(t);
	free(bin);
	return ret;
}

char *ksft_kernel_modules(const char *kernel)
{
	const char *slash = strrchr(kernel, '/');
	char *p = slash ? xasprintf("%.*s/modules.cpio.gz", (int)(slash - kernel), kernel)
			: xstrdup("modules.cpio.gz");

	if (access(p, R_OK)) {
		free(p);
		return NULL;
	}
	return p;
}

int ksft_initrd_append(const char *initrd, const char *extra, const char *out, char **err)
{
	char *a = NULL, *b = NULL;
	size_t la, lb;
	int ret;

	if ((ret = file_read(initrd, &a, &la))) {
		err_set(err, "cannot read the initrd '%s': %s\nhint: make guest", initrd, strerror(-ret));
	} else if ((ret = file_read(extra, &b, &lb))) {
		err_set(err, "cannot read '%s': %s\nhint: 'make guest' writes the tools' image, "
			"'make kernel FLAVOUR=NAME' a kernel's modules.cpio.gz", extra, strerror(-ret));
	} else {
		a = xrealloc_array(a, la + lb, 1);
		memcpy(a + la, b, lb);
		ret = file_write(out, a, la + lb);
		if (ret)
			err_set(err, "cannot write '%s': %s", out, strerror(-ret));
	}
	free(a);
	free(b);
	return ret;
}

unsigned int ksft_settings_timeout(char *settings)
{
	char *line, *save = NULL;
	unsigned long v = KSFT_DEFAULT_TIMEOUT;

	for (line = strtok_r(settings, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, "timeout=", 8) && parse_uint(line + 8, 1, 86400, &v))
			v = KSFT_DEFAULT_TIMEOUT;
	return (unsigned int)v;
}

unsigned int ksft_timeout(const char *install, const char *test)
{
	const char *colon = strrchr(test, ':');
	char *path, *data = NULL;
	unsigned long v = KSFT_DEFAULT_TIMEOUT;
	size_t len;

	if (!colon)
		return KSFT_DEFAULT_TIMEOUT;
	path = xasprintf("%s/%.*s/settings", install, (int)(colon - test), test);
	if (!file_read(path, &data, &len))
		v = ksft_settings_timeout(data);
	free(data);
	free(path);
	return (unsigned int)v;
}

int ksft_listed(const char *install, const char *test, char **err)
{
	char *path = xasprintf("%s/kselftest-list.txt", install), *data = NULL, *line, *save = NULL;
	size_t len;
	int ret = file_read(path, &data, &len);

	if (ret) {
		err_set(err, "cannot read '%s': %s\nhint: build the selftests first (ksft_build())",
			path, strerror(-ret));
		free(path);
		return -ENOENT;
	}
	ret = -EINVAL;
	for (line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strcmp(line, test))
			ret = 0;
	if (ret)
		err_set(err, "no selftest '%s' in '%s'\nhint: its lines are TARGET:TEST", test, path);
	free(data);
	free(path);
	return ret;
}

int ksft_write_scenario(const char *test, const char *install, const char *guest_path,
			unsigned int timeout_s, const char *path, char **err)
{
	int ret = ksft_listed(install, test, err);

	if (ret)
		return ret;
	if (!timeout_s)
		timeout_s = ksft_timeout(install, test) + 30;
	if (strpbrk(test, " \t\n'\"\\$`;&|<>") || strpbrk(install, "\n :") ||
	    strpbrk(guest_path, "\n :")) {
		err_set(err, "selftest '%s' or directory '%s' has a character a scenario cannot carry",
			test, install);
		return -EINVAL;
	}
	ret = file_writef(path,
			  "; netlab selftests: the kernel's selftest %s in a guest of its own\n"
			  "[scenario]\n"
			  "description = kselftest %s\n"
			  "share = %s:%s\n"
			  "\n"
			  "[exec]\n"
			  "run = ./netlab-ksft.sh %s\n"
			  "netns = root\n"
			  "timeout = %us\n"
			  "ktap = yes\n"
			  "\n"
			  "[checks]\n"
			  "no_fail = exec.ktap.fail == 0\n"
			  "ran = exec.ktap.pass + exec.ktap.skip > 0\n",
			  test, test, install, guest_path, test, timeout_s);
	if (ret)
		err_set(err, "cannot write '%s': %s", path, strerror(-ret));
	return ret;
}

char *ksft_missing(const char *install, const char *test)
{
	char *path = xasprintf("%s/ksft-missing.txt", install), *data = NULL, *line, *save = NULL;
	char *why = NULL;
	size_t len, n = strlen(test);

	if (!file_read(path, &data, &len)) {
		for (line = strtok_r(data, "\n", &save); line && !why; line = strtok_r(NULL, "\n", &save))
			if (!strncmp(line, test, n) && line[n] == '\t')
				why = xstrdup(line + n + 1);
	}
	free(data);
	free(path);
	return why;
}
