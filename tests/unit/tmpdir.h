/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One temporary directory per test program: TMPDIR_FIXTURE("name") defines
 * `dir` (made by the group setup, removed with what is in it by the group
 * teardown) and `dir_setup`/`dir_teardown` for cmocka_run_group_tests().
 * Include after util.h.
 */
#ifndef NETLAB_TEST_TMPDIR_H
#define NETLAB_TEST_TMPDIR_H

#include <stdlib.h>

#define TMPDIR_FIXTURE(name)                                                 \
	static char dir[] = "/tmp/netlab-test-" name "-XXXXXX";              \
	static int dir_setup(void **state)                                   \
	{                                                                    \
		(void)state;                                                 \
		return mkdtemp(dir) ? 0 : -1;                                \
	}                                                                    \
	static int dir_teardown(void **state)                                \
	{                                                                    \
		(void)state;                                                 \
		return rm_rf(dir);                                           \
	}

#endif /* NETLAB_TEST_TMPDIR_H */
