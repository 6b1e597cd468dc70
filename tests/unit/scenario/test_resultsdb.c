// SPDX-License-Identifier: GPL-2.0
/*
 * The results database (scenario/resultsdb.h): a suite recorded twice into
 * a new SQLite file reads back as each metric's values and each check's
 * flake count; the flake rule on its own (a failure a later pass on the
 * same kernel follows).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/util.h"
#include "scenario/resultsdb.h"

#ifndef FIXTURES
#define FIXTURES "tests/unit/fixtures"
#endif

static void test_resultsdb__flaky_fold(void **state)
{
	const char *const k[] = { "a", "a", "b", "b", "a" };
	const bool p1[] = { false, true, false, false, false };
	const bool p2[] = { false, false, false, true, true };
	const bool all[] = { true, true, true, true, true };

	(void)state;
	/* a's fail then pass: 1; b's fails never pass on b; a's last fail has nothing after */
	assert_int_equal(rdb_flaky_fold(k, p1, 5), 1);
	/* every fail of a before a pass of a, and b's first fail before b's pass: 3 */
	assert_int_equal(rdb_flaky_fold(k, p2, 5), 3);
	assert_int_equal(rdb_flaky_fold(k, all, 5), 0);
	/* a fail then a pass on another kernel: a fix, not a flake */
	assert_int_equal(rdb_flaky_fold((const char *const[]){ "a", "b" }, (const bool[]){ false, true }, 2), 0);
}

/* The fixture suite, its one case given an outcome, a median and one check verdict. */
static struct regress *suite(const char *dir, double lost, bool pass)
{
	char *path = xasprintf("%s/scenarios/good-udp.scn", FIXTURES), *err = NULL;
	char *scns[] = { path };
	struct regress_opts o = { .scenarios = scns, .n_scenarios = 1 };
	struct regress *r = NULL;
	struct regress_scn *rs;

	if (regress_load(&o, &r, &err))
		fail_msg("%s", err);
	free(path);
	r->dir = xstrdup(dir);
	rs = &r->s[0];
	rs->outcome = pass ? RO_PASS : RO_FAIL;
	rs->median = metrics_new();
	metrics_set(rs->median, "udp.lost", lost);
	metrics_set(rs->median, "udp.sent", 1000);
	rs->checks = xzalloc((rs->scn->n_checks + 1) * sizeof(*rs->checks));
	for (size_t c = 0; c < rs->scn->n_checks; c++) {
		rs->checks[c].check = &rs->scn->checks[c];
		rs->checks[c].res.status = c == 0 && !pass ? CHECK_FAIL : CHECK_PASS;
		rs->checks[c].res.value = c == 0 ? lost : 0;
	}
	return r;
}

static void test_resultsdb__record_values_flakes(void **state)
{
	char dir[] = "/tmp/netlab-test-rdb-XXXXXX";
	char *db, *err = NULL;
	struct rdb_value *v;
	struct rdb_flake *f;
	size_t n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	db = xasprintf("%s/sub/netlab.db", dir);	/* its directory is made */
	for (int i = 0; i < 2; i++) {
		struct regress *r = suite(dir, i ? 0 : 7, i == 1);

		if (resultsdb_record(db, r, &err))
			fail_msg("%s", err);
		regress_free(r);
	}
	if (resultsdb_values(db, "udp.lost", NULL, &v, &n, &err))
		fail_msg("%s", err);
	assert_int_equal(n, 2);
	assert_true(v[0].value == 7 && v[1].value == 0);
	assert_string_equal(v[0].outcome, "fail");
	assert_string_equal(v[1].outcome, "pass");
	assert_true(v[0].suite < v[1].suite);
	resultsdb_values_free(v, n);
	/* a case glob that matches nothing */
	assert_int_equal(resultsdb_values(db, "udp.lost", "nosuch*", &v, &n, &err), 0);
	assert_int_equal(n, 0);
	resultsdb_values_free(v, n);
	if (resultsdb_flakes(db, NULL, &f, &n, &err))
		fail_msg("%s", err);
	assert_true(n >= 2);
	/* no_loss: failed, then passed on the same (unknown: "") kernel; the others passed */
	for (size_t i = 0; i < n; i++) {
		bool no_loss = !strcmp(f[i].check, "no_loss");

		assert_string_equal(f[i].case_name, "good-udp");
		assert_int_equal(f[i].runs, 2);
		assert_int_equal(f[i].failed, no_loss);
		assert_int_equal(f[i].flaky, no_loss);
	}
	resultsdb_flakes_free(f, n);
	/* no database: an error naming it */
	free(db);
	db = xasprintf("%s/none.db", dir);
	assert_int_not_equal(resultsdb_values(db, "udp.lost", NULL, &v, &n, &err), 0);
	assert_non_null(strstr(err, "none.db"));
	free(err);
	free(db);
	rm_rf(dir);
}

static void test_resultsdb__path(void **state)
{
	(void)state;
	unsetenv("NETLAB_DB");
	assert_string_equal(resultsdb_path(NULL), "runs/netlab.db");
	assert_string_equal(resultsdb_path("x.db"), "x.db");
	setenv("NETLAB_DB", "none", 1);
	assert_null(resultsdb_path(NULL));
	assert_string_equal(resultsdb_path("y.db"), "y.db");
	unsetenv("NETLAB_DB");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resultsdb__flaky_fold),
		cmocka_unit_test(test_resultsdb__record_values_flakes),
		cmocka_unit_test(test_resultsdb__path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
