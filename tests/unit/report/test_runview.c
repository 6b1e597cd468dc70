// SPDX-License-Identifier: GPL-2.0
/*
 * Wire vs stack of a run directory. The wire counts were checked against
 * tcpdump on the same pcaps:
 *   tcpdump -nr nic-A.pcap ether src 52:54:00:4e:4c:0a | wc -l   (213 for udp-path)
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "report/runview.h"
#include "lib/util.h"

static struct runview *read_ok(const char *name)
{
	char *dir = xasprintf("%s/runs/%s", FIXTURES, name), *err = NULL;
	struct runview *v = NULL;

	if (runview_read(dir, &v, &err))
		fail_msg("%s", err);
	free(dir);
	return v;
}

static void test_runview__udp_wire_and_stack_per_link(void **state)
{
	struct runview *v = read_ok("udp-path");
	const struct runview_link *a = &v->links[0], *b = &v->links[1];

	assert_int_equal(v->n_links, 2);
	assert_int_equal(a->label, 'A');
	assert_string_equal(a->model, "e1000e");
	/* tcpdump: 221 frames on each link; A sent 213 of them, B 8. */
	assert_true(a->have_pcap && b->have_pcap);
	assert_int_equal(a->wire_frames, 221);
	assert_int_equal(a->wire_tx, 213);
	assert_int_equal(a->wire_rx, 8);
	assert_int_equal(b->wire_tx, 8);
	assert_int_equal(b->wire_rx, 213);
	/* The guest's counters: 205 datagrams (200 + 5 END copies) out of A, into B's socket. */
	assert_true(a->ip_out == 205);
	assert_true(b->ip_in == 205);
	assert_true(b->delivered == 205);
	assert_true(b->stack_errors == 0);
	assert_true(a->nic_tx == 212);
	assert_true(b->nic_rx == 206);
	assert_null(v->note);
	runview_free(v);
}

static void test_runview__text_and_json_say_the_same(void **state)
{
	struct runview *v = read_ok("tcp-rr");
	struct json_object *j = runview_to_json(v), *links, *l0, *x;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	runview_print(v, f, true);
	fclose(f);
	assert_non_null(strstr(text, "A    ethA   e1000e           214      212"));
	assert_non_null(strstr(text, "counter deltas (nonzero):"));
	assert_non_null(strstr(text, "snmp.B.Tcp.InSegs"));
	assert_true(json_object_object_get_ex(j, "links", &links));
	l0 = json_object_array_get_idx(links, 0);
	assert_true(json_object_object_get_ex(l0, "wire_tx", &x));
	assert_int_equal(json_object_get_int(x), 214);
	assert_true(json_object_object_get_ex(j, "counters", &x));
	assert_non_null(json_object_object_get(x, "snmp.B.Tcp.InSegs"));
	json_object_put(j);
	free(text);
	runview_free(v);
}

static void test_runview__bad_run_directories(void **state)
{
	char dir[] = "/tmp/netlab-rv.XXXXXX", *p, *err = NULL;
	struct runview *v = NULL;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(runview_read(dir, &v, &err), -ENOENT);
	assert_non_null(strstr(err, "result.json' not found"));
	free(err);
	err = NULL;
	p = xasprintf("%s/result.json", dir);
	assert_int_equal(file_writef(p, "{\"nics\": ["), 0);
	assert_int_equal(runview_read(dir, &v, &err), -EINVAL);
	assert_non_null(strstr(err, "result.json"));
	free(err);
	err = NULL;
	/* A run without metrics.json (netlab run) and a pcap that is not one. */
	assert_int_equal(file_writef(p, "{\"nics\": [{\"label\": \"A\", \"mac\": \"52:54:00:4e:4c:0a\", \"pcap\": \"nic-A.pcap\"}]}"), 0);
	free(p);
	p = xasprintf("%s/nic-A.pcap", dir);
	assert_int_equal(file_writef(p, "garbage"), 0);
	assert_int_equal(runview_read(dir, &v, &err), -EINVAL);
	assert_non_null(strstr(err, "nic-A.pcap"));
	free(err);
	err = NULL;
	unlink(p);
	assert_int_equal(runview_read(dir, &v, &err), 0);
	assert_non_null(v->note);
	assert_false(v->links[0].have_pcap);
	runview_free(v);
	free(p);
	p = xasprintf("%s/result.json", dir);
	unlink(p);
	free(p);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runview__udp_wire_and_stack_per_link),
		cmocka_unit_test(test_runview__text_and_json_say_the_same),
		cmocka_unit_test(test_runview__bad_run_directories),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
