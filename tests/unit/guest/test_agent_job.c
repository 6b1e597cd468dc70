// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the guest agent's job file parser (guest/agent-job.c).
 *
 * Build and run:
 *   gcc -O2 -Wall -Wextra -Iguest -o build/tests/test_agent_job \
 *	tests/unit/guest/test_agent_job.c guest/agent-job.c -lcmocka
 *   build/tests/test_agent_job
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "agent-job.h"
#include "netlab-proto.h"

/* Collects the warnings of one parse. */
struct warnings {
	unsigned int count;
	unsigned int lines[8];
	char last[256];
};

static void collect(void *ctx, unsigned int lineno, const char *msg)
{
	struct warnings *w = ctx;

	if (w->count < 8)
		w->lines[w->count] = lineno;
	w->count++;
	snprintf(w->last, sizeof(w->last), "%s", msg);
}

static void parse_ok(struct job *job, const char *text, struct warnings *w)
{
	memset(w, 0, sizeof(*w));
	assert_int_equal(job_parse(job, text, collect, w), 0);
}

static void test_job__parses_the_loop_job_of_the_harness(void **state)
{
	static const char text[] =
		"version=1\ntopology=loop\n"
		"nic.A.mac=52:54:00:4e:4c:0a\nnic.A.model=e1000e\nnic.A.ifname=ethA\n"
		"nic.A.ipv4=" NETLAB_LOOP_A_IPV4 "\nnic.A.ipv6=" NETLAB_LOOP_A_IPV6 "\n"
		"nic.B.mac=52:54:00:4e:4c:0b\nnic.B.ifname=ethB\nnic.B.netns=b\n"
		"nic.B.ipv4=" NETLAB_LOOP_B_IPV4 "\nnic.B.ipv6=" NETLAB_LOOP_B_IPV6 "\n"
		"timeout=60\n";
	struct warnings w;
	struct job job;

	(void)state;
	parse_ok(&job, text, &w);
	assert_int_equal(w.count, 0);
	assert_int_equal(job.version, 1);
	assert_string_equal(job.topology, "loop");
	assert_int_equal(job.timeout, 60);
	assert_int_equal(job.n_nics, 2);
	assert_string_equal(job.nics[0].id, "A");
	assert_string_equal(job.nics[0].mac, "52:54:00:4e:4c:0a");
	assert_string_equal(job.nics[0].model, "e1000e");
	assert_string_equal(job.nics[0].ifname, "ethA");
	assert_null(job.nics[0].netns);
	assert_string_equal(job.nics[0].ipv4, "198.18.0.1/24");
	assert_string_equal(job.nics[0].ipv6, "2001:2::1/64");
	assert_string_equal(job.nics[1].id, "B");
	assert_string_equal(job.nics[1].netns, "b");
	assert_null(job.nics[1].model);
	assert_string_equal(job.nics[1].ipv6, "2001:2::2/64");
	job_release(&job);
	assert_null(job.nics);
}

static void test_job__ignores_unknown_keys(void **state)
{
	struct warnings w;
	struct job job;

	(void)state;
	parse_ok(&job, "future.key=1\nnic.A.speed=10G\ntopology=loop\nbogus=\n", &w);
	assert_int_equal(w.count, 0);
	assert_string_equal(job.topology, "loop");
	assert_int_equal(job.n_nics, 0);	/* an unknown field creates no NIC */
	job_release(&job);
}

static void test_job__skips_comments_and_blank_lines(void **state)
{
	struct warnings w;
	struct job job;

	(void)state;
	parse_ok(&job, "# a comment\n\n   \n  # indented=comment\ntimeout=5\n", &w);
	assert_int_equal(w.count, 0);
	assert_int_equal(job.timeout, 5);
	job_release(&job);
}

static void test_job__keeps_equals_hash_and_spaces_in_values(void **state)
{
	struct warnings w;
	struct job job;

	(void)state;
	parse_ok(&job, "env.OPTS=-a b=c  # not a comment\n", &w);
	assert_int_equal(w.count, 0);
	assert_int_equal(job.n_envs, 1);
	assert_string_equal(job.envs[0].name, "OPTS");
	assert_string_equal(job.envs[0].value, "-a b=c  # not a comment");
	job_release(&job);
}

static void test_job__trims_trailing_blanks_and_cr(void **state)
{
	struct warnings w;
	struct job job;

	(void)state;
	parse_ok(&job, "topology=loop \t\r\nnic.A.ifname = ethA\r\ntimeout=7\r", &w);
	assert_int_equal(w.count, 0);
	assert_string_equal(job.topology, "loop");
	assert_string_equal(job.nics[0].ifname, "ethA");
	assert_int_equal(job.timeout, 7);
	job_release(&job);
}

static void test_job__reports_malformed_lines_and_goes_on(void **state)
{
	struct warnings w;
	struct job job;

	(void)state;
	parse_ok(&job, "topology=loop\nno equals sign\n=empty key\ntimeout=9\n", &w);
	assert_int_equal(w.count, 2);
	assert_int_equal(w.lines[0], 2);
	assert_int_equal(w.lines[1], 3);
	assert_non_null(strstr(w.last, "empty key"));
	assert_string_equal(job.topology, "loop");
	assert_int_equal(job.timeout, 9);
	job_release(&job);
}

static void test_job__rejects_a_non_numeric_timeout(void **state)
{
	struct warnings w;
	struct job job;

	(void)state;
	parse_ok(&job, "timeout=30\ntimeout=-1\ntimeout=5s\ntimeout=\ntimeout=99999999999\n", &w);
	assert_int_equal(w.count, 4);
	assert_int_equal(job.timeout, 30);	/* the last good value stays */
	job_release(&job);
}

static void test_job__accepts_any_number_of_nics_in_order(void **state)
{
	struct warnings w;
	struct job job;

	(void)state;
	parse_ok(&job, "nic.C.mac=c\nnic.A.mac=a\nnic.B.mac=b\nnic.A.ifname=x\nnic.D.netns=d\n", &w);
	assert_int_equal(w.count, 0);
	assert_int_equal(job.n_nics, 4);
	assert_string_equal(job.nics[0].id, "C");
	assert_string_equal(job.nics[1].id, "A");
	assert_string_equal(job.nics[1].ifname, "x");
	assert_string_equal(job.nics[2].id, "B");
	assert_string_equal(job.nics[3].id, "D");
	assert_null(job.nics[3].mac);
	job_release(&job);
}

static void test_job__reports_malformed_nic_keys(void **state)
{
	struct warnings w;
	struct job job;

	(void)state;
	parse_ok(&job, "nic.A=1\nnic..mac=2\nnic.A.=3\n", &w);
	assert_int_equal(w.count, 3);
	assert_int_equal(job.n_nics, 0);
	job_release(&job);
}

static void test_job__later_value_replaces_earlier(void **state)
{
	struct warnings w;
	struct job job;

	(void)state;
	parse_ok(&job, "topology=none\nsysctl.net.core.rmem_max=1\nenv.X=1\n"
		       "sysctl.net.ipv4.ip_forward=1\nsysctl.net.core.rmem_max=2\nenv.X=2\n"
		       "topology=loop\n", &w);
	assert_string_equal(job.topology, "loop");
	assert_int_equal(job.n_sysctls, 2);
	assert_string_equal(job.sysctls[0].name, "net.core.rmem_max");
	assert_string_equal(job.sysctls[0].value, "2");
	assert_string_equal(job.sysctls[1].name, "net.ipv4.ip_forward");
	assert_int_equal(job.n_envs, 1);
	assert_string_equal(job.envs[0].value, "2");
	job_release(&job);
}

static void test_job__rejects_bad_env_and_sysctl_names(void **state)
{
	struct warnings w;
	struct job job;

	(void)state;
	parse_ok(&job, "env.1X=a\nenv.A-B=b\nenv.=c\nsysctl.=d\nsysctl.net..x=e\n"
		       "sysctl.net.a/../../x=f\nsysctl.kernel.x y=g\nenv._OK9=h\n", &w);
	assert_int_equal(w.count, 7);
	assert_int_equal(job.n_sysctls, 0);
	assert_int_equal(job.n_envs, 1);
	assert_string_equal(job.envs[0].name, "_OK9");
	job_release(&job);
}

static void test_job__keeps_shares_in_order_and_rejects_bad_ones(void **state)
{
	struct warnings w;
	struct job job;

	(void)state;
	parse_ok(&job, "share.netlab1=rw /mnt/w\nshare.netlab0=ro /mnt/share/d\n"
		       "share.=ro /x\nshare.netlab2=ro relative\nshare.netlab3=xx /y\n", &w);
	assert_int_equal(w.count, 3);
	assert_int_equal(job.n_shares, 2);
	assert_string_equal(job.shares[0].name, "netlab1");
	assert_string_equal(job.shares[0].value, "rw /mnt/w");
	assert_string_equal(job.shares[1].value, "ro /mnt/share/d");
	job_release(&job);
}

static void test_job__sysctl_path_turns_dots_into_slashes(void **state)
{
	char buf[128];

	(void)state;
	assert_int_equal(job_sysctl_path("net.ipv4.ip_forward", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/proc/sys/net/ipv4/ip_forward");
	assert_int_equal(job_sysctl_path("net.ipv4.conf.eth0/100.rp_filter", buf, sizeof(buf)),
			 0);
	assert_string_equal(buf, "/proc/sys/net/ipv4/conf/eth0.100/rp_filter");
	assert_int_equal(job_sysctl_path("net.ipv6.conf.ethA.disable_ipv6", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/proc/sys/net/ipv6/conf/ethA/disable_ipv6");
}

static void test_job__sysctl_path_refuses_escapes(void **state)
{
	char buf[128];

	(void)state;
	assert_int_equal(job_sysctl_path("", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(job_sysctl_path(".net", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(job_sysctl_path("net.", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(job_sysctl_path("net../..x", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(job_sysctl_path("net./.", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(job_sysctl_path("net.a*b", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(job_sysctl_path("net.core.rmem_max", buf, 12), -ENAMETOOLONG);
}

static void test_job__empty_text_gives_defaults(void **state)
{
	struct warnings w;
	struct job job;

	(void)state;
	parse_ok(&job, "", &w);
	assert_int_equal(w.count, 0);
	assert_int_equal(job.version, 0);
	assert_null(job.topology);
	assert_int_equal(job.timeout, 0);
	assert_int_equal(job.n_nics + job.n_sysctls + job.n_envs, 0);
	job_release(&job);
}

static void test_job__works_without_a_warn_callback(void **state)
{
	struct job job;

	(void)state;
	assert_int_equal(job_parse(&job, "garbage\ntimeout=3\n", NULL, NULL), 0);
	assert_int_equal(job.timeout, 3);
	job_release(&job);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_job__parses_the_loop_job_of_the_harness),
		cmocka_unit_test(test_job__ignores_unknown_keys),
		cmocka_unit_test(test_job__skips_comments_and_blank_lines),
		cmocka_unit_test(test_job__keeps_equals_hash_and_spaces_in_values),
		cmocka_unit_test(test_job__trims_trailing_blanks_and_cr),
		cmocka_unit_test(test_job__reports_malformed_lines_and_goes_on),
		cmocka_unit_test(test_job__rejects_a_non_numeric_timeout),
		cmocka_unit_test(test_job__accepts_any_number_of_nics_in_order),
		cmocka_unit_test(test_job__reports_malformed_nic_keys),
		cmocka_unit_test(test_job__later_value_replaces_earlier),
		cmocka_unit_test(test_job__rejects_bad_env_and_sysctl_names),
		cmocka_unit_test(test_job__keeps_shares_in_order_and_rejects_bad_ones),
		cmocka_unit_test(test_job__sysctl_path_turns_dots_into_slashes),
		cmocka_unit_test(test_job__sysctl_path_refuses_escapes),
		cmocka_unit_test(test_job__empty_text_gives_defaults),
		cmocka_unit_test(test_job__works_without_a_warn_callback),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
