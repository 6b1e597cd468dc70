// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel flavours: names, the list of kconfigs/flavours/, the error for an
 * unknown one, the kernel each selects, and the scenario key `flavour`.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "boot/flavour.h"
#include "scenario/scenario.h"
#include "lib/util.h"

static char tmpdir[] = "/tmp/netlab-flavour-XXXXXX";

static int setup(void **state)
{
	char *p;

	if (!mkdtemp(tmpdir))
		return -1;
	/* Two flavours, a file and a hidden directory that are none. */
	p = xasprintf("%s/full-net", tmpdir);
	mkdir(p, 0755);
	free(p);
	p = xasprintf("%s/default", tmpdir);
	mkdir(p, 0755);
	free(p);
	p = xasprintf("%s/.hidden", tmpdir);
	mkdir(p, 0755);
	free(p);
	p = xasprintf("%s/README", tmpdir);
	file_write(p, "not a flavour\n", 14);
	free(p);
	return 0;
}

static int teardown(void **state)
{
	return rm_rf(tmpdir);
}

static void test_flavour__names(void **state)
{
	assert_true(flavour_name_ok("default"));
	assert_true(flavour_name_ok("full-net"));
	assert_true(flavour_name_ok("net_2.1"));
	assert_false(flavour_name_ok(""));
	assert_false(flavour_name_ok(NULL));
	assert_false(flavour_name_ok("../kconfigs"));
	assert_false(flavour_name_ok("a/b"));
	assert_false(flavour_name_ok(".hidden"));
	assert_false(flavour_name_ok("full net"));
}

static void test_flavour__list_is_the_directories_sorted(void **state)
{
	char *l = flavour_list(tmpdir), *none = xasprintf("%s/nosuch", tmpdir);

	assert_string_equal(l, "default, full-net");
	free(l);
	l = flavour_list(none);
	assert_string_equal(l, "");
	free(l);
	free(none);
}

static void test_flavour__unknown_names_the_directory_and_lists(void **state)
{
	char *err = NULL;

	assert_int_equal(flavour_check(tmpdir, "full-net", &err), 0);
	assert_null(err);
	assert_int_equal(flavour_check(tmpdir, "default", &err), 0);
	assert_int_equal(flavour_check(tmpdir, "nosuch", &err), -EINVAL);
	assert_string_equal(err,
			    "unknown kernel flavour 'nosuch': no directory "
			    "kconfigs/flavours/nosuch\nhint: the flavours are: default, full-net");
	free(err);
	err = NULL;
	/* A file beside the flavours is none; a path is refused, not followed. */
	assert_int_equal(flavour_check(tmpdir, "README", &err), -EINVAL);
	free(err);
	err = NULL;
	assert_int_equal(flavour_check(tmpdir, "../netlab-flavour", &err), -EINVAL);
	assert_non_null(strstr(err, "bad kernel flavour name '../netlab-flavour'"));
	assert_non_null(strstr(err, "hint: the flavours are: default, full-net"));
	free(err);
}

/* The default flavour is build/kernel, today's link; another build/kernel-NAME. */
static void test_flavour__kernel_of_each(void **state)
{
	char *k;

	assert_true(flavour_is_default(NULL));
	assert_true(flavour_is_default(""));
	assert_true(flavour_is_default("default"));
	assert_false(flavour_is_default("full-net"));
	k = flavour_kernel("/b", NULL);
	assert_string_equal(k, "/b/kernel/bzImage");
	free(k);
	k = flavour_kernel("/b", "default");
	assert_string_equal(k, "/b/kernel/bzImage");
	free(k);
	k = flavour_kernel("/b", "full-net");
	assert_string_equal(k, "/b/kernel-full-net/bzImage");
	free(k);
}

static int parse_text(const char *text, struct scenario **s, char **err)
{
	char *p = xasprintf("%s/f.scn", tmpdir);
	int ret;

	file_write(p, text, strlen(text));
	ret = scn_parse(p, s, err);
	free(p);
	return ret;
}

static void test_flavour__scenario_key(void **state)
{
	static const char rest[] =
		"[traffic]\ngenerator = udp-stream\n[checks]\nok = udp.lost == 0\n";
	struct scenario *s = NULL;
	char *text, *err = NULL;

	text = xasprintf("[scenario]\n%s", rest);
	assert_int_equal(parse_text(text, &s, &err), 0);
	assert_string_equal(s->flavour, ""); /* any flavour */
	scn_free(s);
	free(text);
	text = xasprintf("[scenario]\nflavour = full-net\n%s", rest);
	assert_int_equal(parse_text(text, &s, &err), 0);
	assert_string_equal(s->flavour, "full-net");
	scn_free(s);
	free(text);
	text = xasprintf("[scenario]\nflavour = ../x\n%s", rest);
	assert_int_equal(parse_text(text, &s, &err), -EINVAL);
	assert_non_null(strstr(err, "f.scn:2: bad flavour '../x'"));
	free(err);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flavour__names),
		cmocka_unit_test(test_flavour__list_is_the_directories_sorted),
		cmocka_unit_test(test_flavour__unknown_names_the_directory_and_lists),
		cmocka_unit_test(test_flavour__kernel_of_each),
		cmocka_unit_test(test_flavour__scenario_key),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
