/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's own selftests (tools/testing/selftests) under netlab: build
 * them from a kernel tree, and turn one test into an [exec] scenario that
 * the regress engine runs in a guest of its own.
 *
 *	char *inst = NULL, *err = NULL;
 *	const char *t[] = { "net" };
 *
 *	ret = ksft_build(ksrc, t, 1, NULL, &inst, &err);	// cached per tree + targets
 *	ret = ksft_write_scenario("net:reuseport_addr_any.sh", inst, KSFT_GUEST_DIR,
 *				  300, "STEP/reuseport_addr_any.scn", &err);
 *	// netlab regress STEP/reuseport_addr_any.scn: the metric exec.ktap.fail
 *	// is 0 when the test passed or skipped; exec.ktap.skip 1 when it skipped
 *
 * The build is harness/ksft-build.sh (KSRC OUTDIR TARGET...; exit 0 built,
 * 1 build failure, 2 bad input); its install directory holds
 * run_kselftest.sh, kselftest-list.txt and ksft-missing.txt (the tests that
 * did not build, "TARGET:NAME<TAB>REASON").
 *
 * Like the rest of the library these never print to stdout nor exit; they
 * return 0 or a negative errno with *err (caller frees) saying what and a
 * "hint:" line.
 */
#ifndef NETLAB_KSFT_H
#define NETLAB_KSFT_H

#include <stddef.h>

/* Where the guest mounts the install directory (a read-only --share). */
#define KSFT_GUEST_DIR "/mnt/ksft"
/* The runner's timeout when a target's "settings" names none (kselftest's). */
#define KSFT_DEFAULT_TIMEOUT 45

/**
 * ksft_build() - build (or find in the cache) the selftests of @targets
 * @ksrc:     the kernel tree (its tools/testing/selftests and UAPI headers)
 * @targets:  @n_targets kselftest targets: "net", "net/forwarding",
 *            "drivers/net" (6.1: its subtargets), ...
 * @outdir:   the build directory (ksft-build.sh's OUTDIR); NULL: the cache,
 *            CACHE/selftests/KEY, KEY a hash of the tree's path and the targets
 *            (the script rebuilds when the tree's content changed)
 * @install:  set to OUTDIR/install (caller frees)
 * @err:      on failure, the script's message and hint (or why it could not run)
 *
 * Runs harness/ksft-build.sh next to the netlab binary's tree (or
 * $NETLAB_KSFT_BUILD); its progress goes to our stderr. A target that built
 * in part is success: ksft_missing() says what did not.
 * Return: 0; -EINVAL bad input (no tree, unknown target: exit 2); -EIO the
 * build failed (exit 1); another -errno when the script could not run.
 */
int ksft_build(const char *ksrc, const char *const *targets, size_t n_targets,
	       const char *outdir, char **install, char **err);

/*
 * ksft_build_script() - the ksft-build.sh this netlab runs: $NETLAB_KSFT_BUILD,
 * else BIN/../harness/ksft-build.sh. Caller frees. (netlab bisect --selftest
 * runs it under its own interrupt and log handling.)
 */
char *ksft_build_script(void);

/*
 * ksft_cache_dir() - the OUTDIR ksft_build() uses for @ksrc and @targets
 * when given none. Caller frees.
 */
char *ksft_cache_dir(const char *ksrc, const char *const *targets, size_t n_targets);

/**
 * ksft_timeout() - the runner's per-test timeout for @test ("TARGET:TEST")
 * @install: the install directory
 *
 * Its target's "settings" file's timeout=N, else KSFT_DEFAULT_TIMEOUT (as
 * kselftest/runner.sh reads it). Return: seconds.
 */
unsigned int ksft_timeout(const char *install, const char *test);

/*
 * ksft_settings_timeout() - the timeout=N of a target's "settings" text
 * (cut into lines in place), else KSFT_DEFAULT_TIMEOUT: what ksft_timeout()
 * reads from the install, and netlab bisect --selftest from the tree.
 */
unsigned int ksft_settings_timeout(char *settings);

/*
 * ksft_listed() - is @test ("TARGET:TEST") a line of the install's
 * kselftest-list.txt (the tests that built)?
 * Return: 0; -EINVAL when it is not; -ENOENT when the list cannot be read.
 * *err says which, with a hint.
 */
int ksft_listed(const char *install, const char *test, char **err);

/**
 * ksft_write_scenario() - an [exec] scenario that runs one selftest
 * @test:       "TARGET:TEST", as in kselftest-list.txt
 * @install:    the install directory (shared read-only into the guest)
 * @guest_path: where the guest mounts it (KSFT_GUEST_DIR)
 * @timeout_s:  the runner's per-test timeout (0: ksft_timeout()); the
 *              [exec] timeout is 30 s more, so the runner reports it
 * @path:       the .scn file to write (its directory must exist)
 *
 * The scenario boots the loop topology (NICs A and B, B in netns "b"), and
 * runs "./netlab-ksft.sh TEST" (ksft-build.sh's wrapper of
 * "run_kselftest.sh -t TEST") in the root netns with ktap = yes. Its checks: `no_fail = exec.ktap.fail == 0` and
 * `ran = exec.ktap.pass + exec.ktap.skip > 0` (a runner that printed no
 * verdict fails). A test that skipped passes these checks; exec.ktap.skip
 * is 1 for it.
 * Return: 0; -EINVAL for a test not in the install's kselftest-list.txt;
 * -errno when the file cannot be written.
 */
int ksft_write_scenario(const char *test, const char *install, const char *guest_path,
			unsigned int timeout_s, const char *path, char **err);

/**
 * ksft_tools_initrd() - the initrd of a selftests run: @base (the guest's
 * initramfs) followed by the selftests' tools cpio, written to @out
 * @tools: the tools cpio; NULL: ksft-tools.cpio.gz beside the netlab
 *         binary ('make guest' builds it: bash, dash as /bin/sh, socat, nc,
 *         ping, coreutils timeout and mktemp, devlink, bridge, jq, ...)
 *
 * Boot the scenarios of ksft_write_scenario() with it (run_opts.initrd):
 * without it most net selftests cannot start (no bash).
 * Return: 0, or -errno with *err (a missing tools cpio: hint 'make guest').
 */
int ksft_tools_initrd(const char *base, const char *tools, const char *out, char **err);

/**
 * ksft_kernel_modules() - the modules image of the kernel @kernel boots
 * @kernel: the kernel image (bzImage) in its cache directory
 *
 * harness/kbuild-flavour.sh writes modules.cpio.gz beside a flavour's
 * kernel built with CONFIG_MODULES: lib/modules/RELEASE with
 * modules.builtin (and .modinfo), modules.dep and the =m modules (full-net:
 * test_bpf, test_blackhole_dev), and /sbin/modprobe (busybox's, which takes
 * a module listed in modules.builtin as loaded). A test's `modprobe X` then
 * succeeds for a built-in X instead of failing on a missing /lib/modules.
 * Return: its path (caller frees), or NULL when there is none (the default
 * kernel, a kernel cached before the file existed: the guest has no
 * /lib/modules, as before).
 */
char *ksft_kernel_modules(const char *kernel);

/**
 * ksft_initrd_append() - @out: the initrd @initrd followed by the cpio @extra
 * (the kernel unpacks concatenated archives in order). @out may be @initrd.
 * Return: 0, or -errno with *err naming the file that could not be read
 * or written.
 */
int ksft_initrd_append(const char *initrd, const char *extra, const char *out, char **err);

/*
 * ksft_missing() - the reason @test did not build, from the install's
 * ksft-missing.txt, or NULL when it is not listed there. Caller frees.
 */
char *ksft_missing(const char *install, const char *test);

#endif /* NETLAB_KSFT_H */
