// SPDX-License-Identifier: GPL-2.0
/* netlab gdb: oops lines, gdb's command line and first commands, replay argv. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "gdb/gdb.h"
#include "gdb/replay.h"

static void test_oops__call_trace_frame(void **state)
{
	struct oops_frame f;

	assert_true(oops_parse_frame("[   12.345678]  sysrq_handle_crash+0x16/0x20", &f));
	assert_string_equal(f.func, "sysrq_handle_crash");
	assert_int_equal(f.off, 0x16);
	assert_int_equal(f.len, 0x20);
	assert_string_equal(f.module, "");
}

static void test_oops__unreliable_frame_and_module(void **state)
{
	struct oops_frame f;

	assert_true(oops_parse_frame(" ? e1000_clean_rx_irq+0x1a5/0x4c0 [e1000e]", &f));
	assert_string_equal(f.func, "e1000_clean_rx_irq");
	assert_int_equal(f.off, 0x1a5);
	assert_int_equal(f.len, 0x4c0);
	assert_string_equal(f.module, "e1000e");
}

static void test_oops__rip_line_and_dotted_names(void **state)
{
	struct oops_frame f;

	assert_true(oops_parse_frame("RIP: 0010:__napi_poll.constprop.0+0x2b/0x170", &f));
	assert_string_equal(f.func, "__napi_poll.constprop.0");
	assert_int_equal(f.off, 0x2b);
	assert_int_equal(f.len, 0x170);
}

static void test_oops__lines_without_frames(void **state)
{
	struct oops_frame f;

	assert_false(oops_parse_frame("Kernel panic - not syncing: sysrq triggered crash", &f));
	assert_false(oops_parse_frame("RSP: 0018:ffffc90000213e50 EFLAGS: 00010246", &f));
	assert_false(oops_parse_frame("x+0x10", &f));			/* no /0xlen */
	assert_false(oops_parse_frame("a=b+0x10/0x20", &f));		/* not a word start */
	assert_false(oops_parse_frame(" f+0x/0x20", &f));		/* no digits */
}

static struct gdb_kernel kern(void)
{
	struct gdb_kernel k = {
		.dir = "/k", .vmlinux = "/k/vmlinux", .scripts = "/k/gdb", .loader = "/k/vmlinux-gdb.py",
	};
	return k;
}

static int arg_index(const struct argv *a, const char *s)
{
	for (size_t i = 0; i < a->n; i++)
		if (!strcmp(a->v[i], s))
			return (int)i;
	return -1;
}

static void test_gdb__batch_argv_loads_init_then_user_script_on_vmlinux(void **state)
{
	struct gdb_kernel k = kern();
	struct argv a;
	int init, user;

	argv_init(&a);
	gdb_build_argv("/usr/bin/gdb", &k, "/r/gdb-init.gdb", "/t/x.gdb", true, &a);
	assert_string_equal(a.v[0], "/usr/bin/gdb");
	assert_true(arg_index(&a, "-batch") > 0);
	assert_true(arg_index(&a, "-nx") > 0);
	init = arg_index(&a, "/r/gdb-init.gdb");
	user = arg_index(&a, "/t/x.gdb");
	assert_true(init > 0 && user > init);
	assert_string_equal(a.v[init - 1], "-x");
	assert_string_equal(a.v[a.n - 1], "/k/vmlinux");
	/* Before vmlinux loads (and auto-loads vmlinux-gdb.py). */
	assert_true(arg_index(&a, "add-auto-load-safe-path /k") > 0);
	assert_true(arg_index(&a, "python import sys; sys.path.insert(0, \"/k/gdb\")") > 0);
	argv_release(&a);
}

static void test_gdb__interactive_argv_has_no_batch(void **state)
{
	struct gdb_kernel k = kern();
	struct argv a;

	argv_init(&a);
	gdb_build_argv("gdb", &k, "/r/i.gdb", NULL, false, &a);
	assert_int_equal(arg_index(&a, "-batch"), -1);
	assert_int_equal(arg_index(&a, "/t/x.gdb"), -1);
	argv_release(&a);
}

static void test_gdb__init_script_loads_kernel_scripts_connects_and_hbreaks(void **state)
{
	struct gdb_kernel k = kern();
	const char *breaks[] = { "e1000_clean_rx_irq", "net_rx_action" };
	struct gdb_session s = {
		.socket = "/r/gdb.sock", .data_dir = "/h/gdb", .breaks = breaks, .n_breaks = 2,
		.batch = true,
	};
	struct sbuf b;
	char *target, *hb;

	sbuf_init(&b);
	gdb_init_script(&k, &s, &b);
	assert_non_null(strstr(b.s, "add-auto-load-safe-path /k\n"));
	assert_non_null(strstr(b.s, "source /k/vmlinux-gdb.py\n"));
	target = strstr(b.s, "target remote /r/gdb.sock\n");
	assert_non_null(target);
	assert_non_null(strstr(b.s, "source /h/gdb/e1000e.gdb\n"));
	hb = strstr(b.s, "hbreak e1000_clean_rx_irq\nhbreak net_rx_action\n");
	assert_true(hb && hb > target);
	/* Hardware breakpoints only, before the kernel runs. */
	assert_null(strstr(b.s, "\nbreak "));
	sbuf_release(&b);
}

static void test_gdb__missing_binary_is_a_clear_enoent(void **state)
{
	char *path = NULL, *err = NULL;
	char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;

	setenv("PATH", "/nonexistent-netlab", 1);
	assert_int_equal(gdb_find_binary("gdb", &path, &err), -ENOENT);
	assert_null(path);
	assert_non_null(strstr(err, "hint:"));
	free(err);
	if (old)
		setenv("PATH", old, 1);
	free(old);
}

static void test_gdb__kernel_without_debug_info_is_rejected(void **state)
{
	char dir[] = "/tmp/netlab-test-gdb-XXXXXX", *bz, *vml, *err = NULL;
	struct gdb_kernel k;

	assert_non_null(mkdtemp(dir));
	bz = xasprintf("%s/bzImage", dir);
	vml = xasprintf("%s/vmlinux", dir);
	file_write(bz, "x", 1);
	/* No vmlinux at all. */
	assert_int_equal(gdb_kernel_find(bz, &k, &err), -EINVAL);
	assert_non_null(strstr(err, "vmlinux"));
	free(err);
	err = NULL;
	/* An ELF without .debug_info (Debian strips /bin/true). */
	assert_int_equal(symlink("/bin/true", vml), 0);
	assert_int_equal(gdb_kernel_find(bz, &k, &err), -EINVAL);
	assert_non_null(strstr(err, "debug information"));
	free(err);
	unlink(vml);
	unlink(bz);
	rmdir(dir);
	free(bz);
	free(vml);
}

/*
 * oops_decode() grows three arrays (the ELF's text symbols, the frames of
 * the oops, addr2line's lines) past their first 8 slots: this test's own
 * binary has hundreds of symbols, and 20 frames give 40+ lines. Each frame
 * must come back decoded, in order (no slot lost or overwritten on growth).
 */
static void test_oops__decode_grows_past_eight_frames(void **state)
{
	struct sbuf oops, out;
	char *err = NULL, *self = realpath("/proc/self/exe", NULL);
	const char *p;
	int n = 0;

	assert_non_null(self);
	sbuf_init(&oops);
	sbuf_init(&out);
	for (int i = 0; i < 20; i++)
		sbuf_addf(&oops, "[    1.%06d]  %s+0x0/0x0\n", i, i % 2 ? "main" : "oops_decode");
	assert_int_equal(oops_decode(self, oops.s, &out, &err), 20);
	assert_null(err);
	for (p = out.s; (p = strstr(p, "+0x0/0x0:\n")); p++)
		n++;
	assert_int_equal(n, 20);
	assert_non_null(strstr(out.s, "main+0x0/0x0:\n"));
	assert_non_null(strstr(out.s, "oops_decode+0x0/0x0:\n"));
	sbuf_release(&oops);
	sbuf_release(&out);
	free(self);
}

/*
 * The session's directory (gdb/replay.c, once in cmd-gdb.c): made, made
 * absolute, the QMP socket in it; one too deep for a unix socket path
 * (108 bytes) is refused with a hint before QEMU starts.
 */
static void test_gdb__session_dir_absolute_or_refused_when_too_deep(void **state)
{
	char dir[] = "/tmp/netlab-test-gdb-XXXXXX", *out, *deep, *err = NULL;
	struct gdb_opts o = { .vm = -1 };
	struct gdb_sess s = { .o = &o };

	assert_non_null(mkdtemp(dir));
	out = xasprintf("%s/run/./x", dir);
	assert_int_equal(gdb_sess_dir(&s, out, &err), 0);
	assert_null(err);
	assert_int_equal(s.dir[0], '/');
	assert_null(strstr(s.dir, "/./"));
	assert_non_null(s.qmp);
	assert_int_equal(strncmp(s.qmp, s.dir, strlen(s.dir)), 0);
	assert_string_equal(s.qmp + strlen(s.dir), "/qmp.sock");
	gdb_sess_release(&s);

	memset(&s, 0, sizeof(s));
	s.o = &o;
	deep = xasprintf("%s/%0100d", dir, 0);
	assert_int_equal(gdb_sess_dir(&s, deep, &err), -EINVAL);
	assert_non_null(strstr(err, "too deep for a unix socket path"));
	assert_non_null(strstr(err, "hint: pass a shorter --out DIR"));
	free(err);
	gdb_sess_release(&s);
	rmdir(deep);
	free(deep);
	rm_rf(dir);
	free(out);
}

static void test_gdb__replay_argv_substitutes_and_adds_gdbstub(void **state)
{
	char dir[] = "/tmp/netlab-test-rr-XXXXXX", *p, *err = NULL;
	struct argv a;

	assert_non_null(mkdtemp(dir));
	argv_init(&a);
	/* Nothing recorded: a clear error. */
	assert_int_equal(gdb_replay_argv(dir, "/o", "/s", NULL, false, &a, &err), -EINVAL);
	assert_non_null(strstr(err, "no recording"));
	free(err);
	err = NULL;
	p = xasprintf("%s/replay.argv", dir);
	file_writef(p, "qemu\n-chardev\nfile,id=console,path=@OUT@/console.log\n-netdev\n"
		       "dgram,id=netB,local.path=@SOCK@/B.sock\n");
	free(p);
	p = xasprintf("%s/replay.bin", dir);
	file_write(p, "", 0);
	free(p);
	assert_int_equal(gdb_replay_argv(dir, "/o", "/s", "/o/gdb.sock", true, &a, &err), 0);
	assert_string_equal(a.v[0], "qemu");
	assert_string_equal(a.v[2], "file,id=console,path=/o/console.log");
	assert_string_equal(a.v[4], "dgram,id=netB,local.path=/s/B.sock");
	assert_string_equal(a.v[6], "socket,path=/o/gdb.sock,server=on,wait=off,id=gdb0");
	assert_string_equal(a.v[a.n - 1], "-S");
	argv_release(&a);
	rm_rf(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oops__call_trace_frame),
		cmocka_unit_test(test_oops__unreliable_frame_and_module),
		cmocka_unit_test(test_oops__rip_line_and_dotted_names),
		cmocka_unit_test(test_oops__lines_without_frames),
		cmocka_unit_test(test_oops__decode_grows_past_eight_frames),
		cmocka_unit_test(test_gdb__session_dir_absolute_or_refused_when_too_deep),
		cmocka_unit_test(test_gdb__batch_argv_loads_init_then_user_script_on_vmlinux),
		cmocka_unit_test(test_gdb__interactive_argv_has_no_batch),
		cmocka_unit_test(test_gdb__init_script_loads_kernel_scripts_connects_and_hbreaks),
		cmocka_unit_test(test_gdb__missing_binary_is_a_clear_enoent),
		cmocka_unit_test(test_gdb__kernel_without_debug_info_is_rejected),
		cmocka_unit_test(test_gdb__replay_argv_substitutes_and_adds_gdbstub),
	};

	return cmocka_run_group_tests_name("gdb", tests, NULL, NULL);
}
