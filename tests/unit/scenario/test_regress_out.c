// SPDX-License-Identifier: GPL-2.0
/*
 * The suite's JUnit file stays well-formed XML (read back with libxml2)
 * whatever the names, bounds and reasons hold: markup characters in a
 * scenario or matrix case name, a '<=' bound, control characters in a
 * reason.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <libxml/parser.h>

#include "scenario/regress.h"
#include "lib/util.h"
#include "tmpdir.h"

TMPDIR_FIXTURE("regress-out")

static const char text[] = "[scenario]\nduration = 2\n"
			   "[traffic]\ngenerator = udp-stream\n"
			   "[checks]\n"
			   "no_loss = udp.lost <= 0\n"
			   "driver = loss.lost_in_driver == 0\n"
			   "[matrix]\ndirection = A>B\n";

/* One scenario (a matrix case) whose first check failed, second could not be evaluated. */
static void one_failing(struct regress *r, struct regress_scn *rs, const char *path)
{
	struct scenario **cases = NULL;
	size_t n = 0;
	char *err = NULL;

	if (scn_parse_cases(path, &cases, &n, &err))
		fail_msg("%s", err);
	assert_int_equal(n, 1);
	memset(r, 0, sizeof(*r));
	memset(rs, 0, sizeof(*rs));
	rs->scn = cases[0];
	free(cases);
	rs->median = metrics_new();
	rs->outcome = RO_FAIL;
	rs->reason = xstrdup("run 1: \x01\x1b[31mbad\x7f & <worse>\n\"quoted\"");
	rs->checks = xzalloc(2 * sizeof(*rs->checks));
	rs->checks[0].check = &rs->scn->checks[0];
	rs->checks[0].res = (struct check_result){ .status = CHECK_FAIL, .value = 719,
						    .op = CHECK_LE, .bound = 0 };
	rs->checks[1].check = &rs->scn->checks[1];
	rs->checks[1].res = (struct check_result){ .status = CHECK_ERROR, .value = NAN,
						    .err = xstrdup("division by zero: \x02<&>") };
	r->s = rs;
	r->n = 1;
	r->dir = dir;
}

static void test_regress_out__junit_is_well_formed_with_markup_and_control_characters(void **state)
{
	char *path = xasprintf("%s/a&b\"<c>'.scn", dir), *junit = xasprintf("%s/junit.xml", dir);
	char *err = NULL, *xml = NULL;
	struct regress r;
	struct regress_scn rs;
	xmlDocPtr doc;

	assert_int_equal(file_write(path, text, strlen(text)), 0);
	one_failing(&r, &rs, path);
	assert_int_equal(regress_write_junit(&r, junit, &err), 0);
	doc = xmlReadFile(junit, NULL, XML_PARSE_NONET);
	assert_non_null(doc);
	xmlFreeDoc(doc);
	assert_int_equal(file_read(junit, &xml, NULL), 0);
	/* The name and the bound as XML carries them. */
	assert_non_null(strstr(xml, "name=\"a&amp;b&quot;&lt;c&gt;'[direction=A&gt;B]\""));
	assert_non_null(strstr(xml, "bound &lt;= 0"));
	assert_null(strchr(xml, '\x01'));
	assert_null(strchr(xml, '\x7f'));
	free(xml);
	check_result_release(&rs.checks[1].res);
	free(rs.checks);
	free(rs.reason);
	metrics_free(rs.median);
	scn_free(rs.scn);
	free(path);
	free(junit);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regress_out__junit_is_well_formed_with_markup_and_control_characters),
	};

	return cmocka_run_group_tests(tests, dir_setup, dir_teardown);
}
