// SPDX-License-Identifier: GPL-2.0
/* The concurrency axes of --coverage (coverage.c): cpus, queues, steering. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "scenario/coverage.h"
#include "lib/util.h"

#ifndef FIXTURES
#define FIXTURES "tests/unit/fixtures"
#endif

static void add(struct coverage *cv, const char *name, const char *a, const char *b)
{
	char *path = xasprintf("%s/scenarios/%s", FIXTURES, name), *err = NULL;
	const char *models[VM_MAX_NICS] = { a, b };
	struct scenario *s = NULL;

	if (scn_parse(path, &s, &err))
		fail_msg("%s", err);
	coverage_add(cv, s, models);
	scn_free(s);
	free(path);
}

static void test_coverage_axes__cpus_queues_steering(void **state)
{
	struct coverage cv;

	memset(&cv, 0, sizeof(cv));
	add(&cv, "good-udp.scn", "e1000e", "virtio-net");
	add(&cv, "good-smp.scn", "virtio-net", "igb");
	assert_int_equal(cv.ax[COV_AX_CPUS][0], 1);
	assert_int_equal(cv.ax[COV_AX_CPUS][1], 1);
	assert_int_equal(cv.ax[COV_AX_QUEUES][0], 1);
	assert_int_equal(cv.ax[COV_AX_QUEUES][1], 1);
	assert_int_equal(cv.ax[COV_AX_STEERING][0], 1);	/* none */
	assert_int_equal(cv.ax[COV_AX_STEERING][1], 1);	/* rps */
	assert_int_equal(cv.ax[COV_AX_STEERING][2], 1);	/* rfs */
	assert_int_equal(cv.ax[COV_AX_STEERING][3], 1);	/* xps */
	assert_string_equal(coverage_axis_name(COV_AX_STEERING), "steering");
	assert_int_equal(coverage_axis_values(COV_AX_STEERING), 4);
	assert_int_equal(coverage_axis_values(COV_AX_CPUS), 2);
	assert_string_equal(coverage_axis_value(COV_AX_QUEUES, 1), "2+");
}

/* igb on 2 CPUs takes 2 queues by default (min(cpus, 8)), without queues.B. */
static void test_coverage_axes__igb_default_queues_follow_cpus(void **state)
{
	struct coverage cv;

	memset(&cv, 0, sizeof(cv));
	add(&cv, "good-smp-pair.scn", "virtio-net", "igb");
	assert_int_equal(cv.ax[COV_AX_CPUS][1], 1);
	assert_int_equal(cv.ax[COV_AX_QUEUES][1], 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_coverage_axes__cpus_queues_steering),
		cmocka_unit_test(test_coverage_axes__igb_default_queues_follow_cpus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
