// SPDX-License-Identifier: GPL-2.0
/*
 * Topology files: the shipped router as NICs, links, namespaces and the
 * guest's setup lines; each kind of bad input named by its line.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/util.h"
#include "tmpdir.h"
#include "vm/topofile.h"
#include "vm/vmcfg.h"

TMPDIR_FIXTURE("topofile")

static void test_topofile__router_nics_links_and_setup(void **state)
{
	struct vm_config cfg = { 0 };
	char *err = NULL;
	const struct topology *t = topology_lookup("router", &err);
	struct sbuf b;

	(void)state;
	assert_non_null(t);
	assert_null(err);
	assert_ptr_equal(topology_lookup("router", NULL), t);	/* loaded once */
	assert_non_null(strstr(topology_list(), "router"));
	cfg.topo = t;
	assert_int_equal(t->setup(&cfg, &err), 0);
	assert_int_equal(cfg.n_nics, 4);
	/* A and C share link 0, D and B link 1; C and D in namespace r */
	assert_int_equal(cfg.nics[0].hub, 0);
	assert_int_equal(cfg.nics[2].hub, 0);
	assert_int_equal(cfg.nics[1].hub, 1);
	assert_int_equal(cfg.nics[3].hub, 1);
	assert_string_equal(cfg.nics[2].netns, "r");
	assert_string_equal(cfg.nics[3].ifname, "ethD");
	assert_string_equal(cfg.nics[1].tr_ipv4, "198.18.1.2/24");
	assert_string_equal(cfg.nics[1].model->name, "virtio-net");
	assert_int_equal(t->data->n_hops, 1);
	assert_int_equal(t->data->hops[0].in, 'C');
	assert_false(t->data->hops[0].bridge);
	sbuf_init(&b);
	topo_setup_script(t, 0, &b);
	assert_non_null(strstr(b.s, "/sbin/ip netns exec r sysctl -qw net.ipv4.ip_forward=1"));
	assert_non_null(strstr(b.s, "/sbin/ip route add 198.18.1.0/24 via 198.18.0.254 2>"));
	assert_non_null(strstr(b.s, "/sbin/ip -n b -6 route add 2001:2::/64 via 2001:2:1::fe 2>"));
	sbuf_release(&b);
	sbuf_init(&b);
	topo_setup_script(t, 1, &b);		/* nothing for another VM */
	assert_int_equal(b.len, 0);
	sbuf_release(&b);
	assert_int_equal(topology_lookup("vlan", NULL)->data->n_nics, 2);
}

static void test_topofile__vlan_endpoint_and_quoting(void **state)
{
	struct vm_config cfg = { 0 };
	char *err = NULL, *path = xasprintf("%s/q.topo", dir);
	const struct topology *t;
	struct sbuf b;

	(void)state;
	file_writef(path, "[topology]\ndescription = q\n[nic.A]\nlink = 0\n[nic.B]\nlink = 0\n"
			  "netns = b\n[netns.b]\nip = link set dev ethB alias $(reboot)\n"
			  "[endpoint.B]\nipv4 = 10.0.0.2/24\n");
	t = topology_lookup(path, &err);
	assert_non_null(t);
	cfg.topo = t;
	assert_int_equal(t->setup(&cfg, &err), 0);
	assert_string_equal(cfg.nics[1].tr_ipv4, "10.0.0.2/24");
	assert_string_equal(cfg.nics[1].tr_netns, "b");
	assert_string_equal(cfg.nics[0].tr_ipv4, "");
	sbuf_init(&b);
	topo_setup_script(t, 0, &b);
	/* each word one shell word: no command substitution reaches the shell */
	assert_non_null(strstr(b.s, "alias '$(reboot)'"));
	sbuf_release(&b);
	free(path);
}

/* Write @text to a file and expect its load to fail with @want in the message. */
static void expect_bad(const char *name, const char *text, const char *want)
{
	char *err = NULL, *path = xasprintf("%s/%s.topo", dir, name);

	if (text)
		file_writef(path, "%s", text);
	assert_null(topology_lookup(path, &err));
	assert_non_null(err);
	if (!strstr(err, want))
		fail_msg("%s: got '%s', want '%s'", name, err, want);
	free(err);
	free(path);
}

static void test_topofile__bad_input_named(void **state)
{
	/* Each body follows a valid [topology] header (two lines). */
	static const struct { const char *name, *body, *want; } bad[] = {
		{ "link", "[nic.A]\nlink = 0\n[nic.B]\nlink = 8\n",
		  "link.topo:6: link '8': expected a link number 0 to 7" },
		{ "oneNIC", "[nic.A]\nlink = 0\n", "needs NICs A and B" },
		{ "gap", "[nic.A]\nlink = 0\n[nic.B]\nlink = 0\n[nic.D]\nlink = 1\n",
		  "NIC D without NIC C" },
		{ "key", "[nic.A]\nspeed = 10\n", "key.topo:4: [nic.A] has no key 'speed'" },
		{ "model", "[nic.A]\nmodel = ne2k\n", "model 'ne2k': not a NIC model" },
		{ "layer", "[hop.r]\nlayer = magic\n", "layer 'magic': expected forwarding or bridge" },
		{ "hop", "[nic.A]\nlink = 0\n[nic.B]\nlink = 0\n[hop.r]\nin = A\nout = Q\n",
		  "out 'Q': expected a NIC label" },
		{ "ns", "[netns.Bad!]\nforwarding = yes\n", "section [netns.Bad!]" },
		{ "section", "[wires]\nx = 1\n", "unknown section [wires]" },
	};

	(void)state;
	expect_bad("nodesc", "[nic.A]\nlink = 0\n[nic.B]\nlink = 0\n", "description is missing");
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char *t = xasprintf("[topology]\ndescription = x\n%s", bad[i].body);

		expect_bad(bad[i].name, t, bad[i].want);
		free(t);
	}
	expect_bad("missing", NULL, "missing.topo: cannot read the topology file");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_topofile__router_nics_links_and_setup),
		cmocka_unit_test(test_topofile__vlan_endpoint_and_quoting),
		cmocka_unit_test(test_topofile__bad_input_named),
	};

	return cmocka_run_group_tests(tests, dir_setup, dir_teardown);
}
