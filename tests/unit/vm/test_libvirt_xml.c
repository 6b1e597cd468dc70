// SPDX-License-Identifier: GPL-2.0
/*
 * Domain XML of the libvirt backend (libvirt-xml.c): lv_domain_xml(),
 * lv_stage_path(), lv_nic_model().
 *
 * Each document is checked with real XML tools rather than by matching text:
 * libvirt's own `virt-xml-validate FILE domain` (well-formed and valid
 * against libvirt's domain schema, <qemu:commandline> included), and
 * `xmllint --xpath` for what a query finds in it (libvirt-clients and
 * libxml2-utils, both in ci/deps.sh). Without them the tests are skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/esc.h"
#include "vm/libvirt.h"
#include "vm/share.h"
#include "vm/vmcfg.h"

#define QEMU_NS "http://libvirt.org/schemas/domain/qemu/1.0"
/* The values of <qemu:commandline>'s <qemu:arg>s, in the qemu namespace only. */
#define QEMU_ARGS                                                                                  \
	"/domain/*[local-name()='commandline' and namespace-uri()='" QEMU_NS "']"                  \
	"/*[local-name()='arg' and namespace-uri()='" QEMU_NS "']/@value"

static const char stage_dir[] = "/var/tmp/netlab-stage";

static struct vm_config base_cfg(void)
{
	struct vm_config c = {
		.qemu = "qemu-system-x86_64",
		.accel = VM_ACCEL_TCG,
		.kernel = "/k/bzImage",
		.initrd = "/r/initrd.img",
		.rundir = "/r",
		.mem_mb = 256,
		.smp = 1,
		.topo = topology_find("loop"),
		.icount_shift = -1,
	};
	return c;
}

static struct lv_stage base_stage(void)
{
	struct lv_stage st = {
		.name = "dom",
		.dir = stage_dir,
		.kernel = "/var/tmp/netlab-stage/dom.kernel",
		.initrd = "/var/tmp/netlab-stage/dom.initrd",
	};
	return st;
}

/* ---- running the XML tools -------------------------------------------------- */

/* Run argv with stdout into a string (NULL = discard it); returns the exit status. */
static int run_tool(char *const argv[], char **out)
{
	int fd[2], status;
	struct sbuf b;
	char buf[4096];
	ssize_t r;
	pid_t pid;

	assert_int_equal(pipe(fd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(fd[1], 1);
		dup2(null, 2);
		close(fd[0]);
		close(fd[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	sbuf_init(&b);
	while ((r = read(fd[0], buf, sizeof(buf))) > 0)
		sbuf_add(&b, buf, r);
	close(fd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (out)
		*out = sbuf_detach(&b);
	else
		sbuf_release(&b);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static bool have_tool(const char *name)
{
	char *argv[] = { "sh", "-c", "command -v \"$0\"", (char *)name, NULL };

	return run_tool(argv, NULL) == 0;
}

/* A generated document, saved to a file the tools can read. */
struct doc {
	char path[64];
	char *xml;
};

static int setup_tools(void **state)
{
	if (!have_tool("xmllint") || !have_tool("virt-xml-validate")) {
		print_message("xmllint or virt-xml-validate missing (make deps): skipping\n");
		*state = NULL;
	} else {
		*state = (void *)1;
	}
	return 0;
}

static void need_tools(void **state)
{
	if (!*state)
		skip();
}

static void doc_save(struct doc *d, struct sbuf *b)
{
	int fd;

	snprintf(d->path, sizeof(d->path), "/tmp/netlab-lvxml-XXXXXX");
	fd = mkstemp(d->path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, b->s, b->len), (ssize_t)b->len);
	close(fd);
	d->xml = sbuf_detach(b);
}

static void doc_free(struct doc *d)
{
	unlink(d->path);
	free(d->xml);
}

/* The string value of XPath expression `expr` in d (xmllint --xpath, whose
 * newline after it is dropped). Caller frees. */
static char *xq(const struct doc *d, const char *fmt, ...)
{
	char *expr, *out = NULL;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	assert_true(vasprintf(&expr, fmt, ap) >= 0);
	va_end(ap);
	{
		char *argv[] = { "xmllint", "--xpath", expr, (char *)d->path, NULL };

		rc = run_tool(argv, &out);
	}
	/* 10: "XPath set is empty", e.g. string() of nothing on some versions. */
	if (rc != 0 && rc != 10)
		fail_msg("xmllint --xpath \"%s\" %s: exit %d", expr, d->path, rc);
	free(expr);
	if (*out && out[strlen(out) - 1] == '\n')
		out[strlen(out) - 1] = '\0';
	return out;
}

static void assert_xq(const struct doc *d, const char *want, const char *expr)
{
	char *got = xq(d, "%s", expr);

	if (strcmp(got, want))
		fail_msg("%s: got \"%s\", want \"%s\" in:\n%s", expr, got, want, d->xml);
	free(got);
}

static long xq_count(const struct doc *d, const char *nodeset)
{
	char *got = xq(d, "count(%s)", nodeset);
	long n = strtol(got, NULL, 10);

	free(got);
	return n;
}

/* The <qemu:arg> values, in order, as an argument vector. */
static void qemu_args(const struct doc *d, struct argv *a)
{
	long n = xq_count(d, QEMU_ARGS);

	argv_init(a);
	for (long i = 1; i <= n; i++) {
		char *v = xq(d, "string((" QEMU_ARGS ")[%ld])", i);

		argv_add(a, v);
		free(v);
	}
}

/* Index of the first argument equal to s, or -1. */
static int arg_index(const struct argv *a, const char *s)
{
	for (size_t i = 0; i < a->n; i++)
		if (!strcmp(a->v[i], s))
			return (int)i;
	return -1;
}

/* Value following option `opt` whose value starts with `prefix`, or NULL. */
static const char *opt_value(const struct argv *a, const char *opt, const char *prefix)
{
	for (size_t i = 0; i + 1 < a->n; i++)
		if (!strcmp(a->v[i], opt) && !strncmp(a->v[i + 1], prefix, strlen(prefix)))
			return a->v[i + 1];
	return NULL;
}

/* The value after option `opt` starting with `prefix` must be `want`. */
static void assert_opt(const struct argv *a, const char *opt, const char *prefix, const char *want)
{
	const char *got = opt_value(a, opt, prefix);

	if (!got || strcmp(got, want)) {
		char *all = esc_shell_argv(a);

		fail_msg("%s %s...: got \"%s\", want \"%s\" in: %s", opt, prefix,
			 got ? got : "(none)", want, all);
	}
}

/* Set up c's topology, generate VM `vm`'s XML, check that libvirt's schema
 * accepts it, and save it for queries. */
static void gen(struct vm_config *c, unsigned int vm, const struct lv_stage *st, struct doc *d)
{
	char *err = NULL;
	struct sbuf b;

	assert_int_equal(c->topo->setup(c, &err), 0);
	sbuf_init(&b);
	if (lv_domain_xml(c, vm, st, &b, &err))
		fail_msg("lv_domain_xml: %s", err ? err : "(no message)");
	assert_null(err);
	doc_save(d, &b);
	{
		char *argv[] = { "virt-xml-validate", d->path, "domain", NULL };

		if (run_tool(argv, NULL))
			fail_msg("virt-xml-validate %s domain: invalid:\n%s", d->path, d->xml);
	}
}

/* lv_domain_xml() must fail with -EINVAL and a message containing `msg`. */
static void assert_refused(struct vm_config *c, unsigned int vm, const struct lv_stage *st,
			   const char *msg)
{
	char *err = NULL;
	struct sbuf b;

	assert_int_equal(c->topo->setup(c, &err), 0);
	sbuf_init(&b);
	assert_int_equal(lv_domain_xml(c, vm, st, &b, &err), -EINVAL);
	assert_non_null(err);
	if (!strstr(err, msg))
		fail_msg("error \"%s\" does not say \"%s\"", err, msg);
	free(err);
	sbuf_release(&b);
}

/* ---- lv_stage_path(), lv_nic_model() ---------------------------------------- */

static void test_lv_stage_path__is_dir_slash_name_dot_what(void **state)
{
	struct lv_stage st = base_stage();
	char *p = lv_stage_path(&st, "nic-A.pcap");

	assert_string_equal(p, "/var/tmp/netlab-stage/dom.nic-A.pcap");
	free(p);
	st.name = "netlab-h-1-0-b";
	st.dir = "/srv/pool";
	p = lv_stage_path(&st, "stdout.sock");
	assert_string_equal(p, "/srv/pool/netlab-h-1-0-b.stdout.sock");
	free(p);
}

static void test_lv_nic_model__virtio_net_is_virtio_others_keep_their_name(void **state)
{
	assert_string_equal(lv_nic_model(nic_model_find("virtio-net")), "virtio");
	assert_string_equal(lv_nic_model(nic_model_find("e1000e")), "e1000e");
	assert_string_equal(lv_nic_model(nic_model_find("e1000")), "e1000");
}

/* ---- the machine ------------------------------------------------------------ */

static void test_lv_domain_xml__machine_boots_the_staged_kernel_with_netlab_ports(void **state)
{
	struct vm_config c = base_cfg();
	struct lv_stage st = base_stage();
	struct doc d;

	need_tools(state);
	c.mem_mb = 384;
	c.smp = 2;
	gen(&c, 0, &st, &d);
	assert_xq(&d, "dom", "string(/domain/name)");
	assert_xq(&d, "384", "string(/domain/memory[@unit='MiB'])");
	assert_xq(&d, "2", "string(/domain/vcpu)");
	assert_xq(&d, "pc", "string(/domain/os/type/@machine)");
	assert_xq(&d, "/var/tmp/netlab-stage/dom.kernel", "string(/domain/os/kernel)");
	assert_xq(&d, "/var/tmp/netlab-stage/dom.initrd", "string(/domain/os/initrd)");
	assert_int_equal(xq_count(&d, "/domain/features/acpi"), 1);
	assert_xq(&d, "destroy", "string(/domain/on_reboot)");
	assert_int_equal(xq_count(&d, "/domain/devices/serial[@type='pty']"), 1);
	/* Every guest port, as a virtio channel on a staged unix socket. */
	assert_int_equal(xq_count(&d, "/domain/devices/channel"), QEMU_N_PORTS);
	for (size_t i = 0; i < QEMU_N_PORTS; i++) {
		char *what = xasprintf("%s.sock", qemu_port_file(qemu_guest_ports[i]));
		char *path = lv_stage_path(&st, what);
		char *expr = xasprintf("string(/domain/devices/channel[target/@type='virtio' and "
				       "target/@name='%s']/source[@mode='bind']/@path)",
				       qemu_guest_ports[i]);

		assert_xq(&d, path, expr);
		free(expr);
		free(path);
		free(what);
	}
	doc_free(&d);
}

/* A read-only share is squashed; a read-write one mapped (no setuid file or node on the host). */
static void test_lv_domain_xml__rw_share_is_mapped(void **state)
{
	struct vm_config c = base_cfg();
	struct lv_stage st = base_stage();
	struct vm_share sh[2] = {
		{ .host = "/srv/ro", .guest = "/mnt/ro", .rw = false, .tag = "netlab0" },
		{ .host = "/srv/rw", .guest = "/mnt/rw", .rw = true, .tag = "netlab1" },
	};
	struct doc d;

	need_tools(state);
	c.shares = sh;
	c.n_shares = 2;
	gen(&c, 0, &st, &d);
	assert_xq(&d, "squash", "string(/domain/devices/filesystem[target/@dir='netlab0']/@accessmode)");
	assert_int_equal(xq_count(&d, "/domain/devices/filesystem[target/@dir='netlab0']/readonly"), 1);
	assert_xq(&d, "mapped", "string(/domain/devices/filesystem[target/@dir='netlab1']/@accessmode)");
	assert_int_equal(xq_count(&d, "/domain/devices/filesystem[target/@dir='netlab1']/readonly"), 0);
	doc_free(&d);
}

static void test_lv_domain_xml__domain_type_kvm_or_qemu_from_accel(void **state)
{
	struct vm_config c = base_cfg();
	struct lv_stage st = base_stage();
	struct doc d;

	need_tools(state);
	gen(&c, 0, &st, &d);
	assert_xq(&d, "qemu", "string(/domain/@type)");
	doc_free(&d);
	c.accel = VM_ACCEL_KVM;
	gen(&c, 0, &st, &d);
	assert_xq(&d, "kvm", "string(/domain/@type)");
	doc_free(&d);
}

static void test_lv_domain_xml__emulator_only_for_a_path(void **state)
{
	struct vm_config c = base_cfg();
	struct lv_stage st = base_stage();
	struct doc d;

	need_tools(state);
	gen(&c, 0, &st, &d); /* a name: libvirt picks its own QEMU */
	assert_int_equal(xq_count(&d, "//emulator"), 0);
	doc_free(&d);
	c.qemu = "/opt/qemu/bin/qemu-system-x86_64";
	gen(&c, 0, &st, &d);
	assert_int_equal(xq_count(&d, "//emulator"), 1);
	assert_xq(&d, "/opt/qemu/bin/qemu-system-x86_64", "string(/domain/devices/emulator)");
	doc_free(&d);
}

/* ---- loop: a QEMU hub on <qemu:commandline> ---------------------------------- */

static void test_lv_domain_xml__loop_hub_nics_on_qemu_commandline_with_pcaps(void **state)
{
	struct vm_config c = base_cfg();
	struct lv_stage st = base_stage();
	struct doc d;
	struct argv a;

	need_tools(state);
	gen(&c, 0, &st, &d);
	assert_int_equal(xq_count(&d, "//interface"), 0);
	qemu_args(&d, &a);
	assert_opt(&a, "-netdev", "hubport,id=netA", "hubport,id=netA,hubid=0");
	assert_opt(&a, "-netdev", "hubport,id=netB", "hubport,id=netB,hubid=0");
	/* After the virtio-serial controller (slot 2), in the direct backend's order. */
	assert_opt(&a, "-device", "e1000e,",
		   "e1000e,netdev=netA,mac=52:54:00:4e:4c:0a,romfile=,bus=pci.0,addr=0x3");
	assert_opt(&a, "-device", "virtio-net-pci,",
		   "virtio-net-pci,netdev=netB,mac=52:54:00:4e:4c:0b,romfile=,bus=pci.0,"
		   "addr=0x4");
	assert_opt(&a, "-object", "filter-dump,id=dumpA",
		   "filter-dump,id=dumpA,netdev=netA,file=/var/tmp/netlab-stage/"
		   "dom.nic-A.pcap");
	assert_opt(&a, "-object", "filter-dump,id=dumpB",
		   "filter-dump,id=dumpB,netdev=netB,file=/var/tmp/netlab-stage/"
		   "dom.nic-B.pcap");
	assert_opt(&a, "-object", "filter-buffer,id=orderB",
		   "filter-buffer,id=orderB,netdev=netB,queue=tx,interval=100");
	assert_xq(&d, "0x02",
		  "string(/domain/devices/controller[@type='virtio-serial']/address/"
		  "@slot)");
	argv_release(&a);
	doc_free(&d);
}

static void test_lv_domain_xml__loop_nic_models_follow_want_model(void **state)
{
	struct vm_config c = base_cfg();
	struct lv_stage st = base_stage();
	struct doc d;
	struct argv a;

	need_tools(state);
	c.want_model[0] = nic_model_find("e1000");
	c.want_model[1] = nic_model_find("e1000");
	gen(&c, 0, &st, &d);
	qemu_args(&d, &a);
	assert_opt(&a, "-device", "e1000,netdev=netA",
		   "e1000,netdev=netA,mac=52:54:00:4e:4c:0a,romfile=,bus=pci.0,addr=0x3");
	assert_opt(&a, "-device", "e1000,netdev=netB",
		   "e1000,netdev=netB,mac=52:54:00:4e:4c:0b,romfile=,bus=pci.0,addr=0x4");
	assert_null(opt_value(&a, "-device", "virtio-net-pci"));
	argv_release(&a);
	doc_free(&d);
}

/* ---- pair: libvirt's UDP <interface> ------------------------------------------ */

static void check_pair_vm(struct vm_config *c, unsigned int vm, const struct lv_stage *st,
			  char label, const char *model, unsigned int local, unsigned int remote)
{
	struct doc d;
	struct argv a;
	char want[160];
	const char *mac = label == 'A' ? "52:54:00:4e:4c:0a" : "52:54:00:4e:4c:0b";

	gen(c, vm, st, &d);
	assert_int_equal(xq_count(&d, "/domain/devices/interface"), 1);
	assert_int_equal(xq_count(&d, "/domain/devices/interface[@type='udp']"), 1);
	snprintf(want, sizeof(want), "%u", remote);
	assert_xq(&d, want, "string(//interface/source[@address='127.0.0.1']/@port)");
	snprintf(want, sizeof(want), "%u", local);
	assert_xq(&d, want, "string(//interface/source/local[@address='127.0.0.1']/@port)");
	assert_xq(&d, model, "string(//interface/model/@type)");
	assert_xq(&d, mac, "string(//interface/mac/@address)");
	snprintf(want, sizeof(want), "ua-net%c", label);
	assert_xq(&d, want, "string(//interface/alias/@name)");
	assert_xq(&d, "0x03", "string(//interface/address[@type='pci']/@slot)");
	/* No hub in a pair; the capture hangs on libvirt's netdev ("host" + alias). */
	qemu_args(&d, &a);
	assert_null(opt_value(&a, "-netdev", "hubport"));
	assert_int_equal(arg_index(&a, "-device"), -1);
	snprintf(
		want, sizeof(want),
		"filter-dump,id=dump%c,netdev=hostua-net%c,file=/var/tmp/netlab-stage/%s.nic-%c.pcap",
		label, label, st->name, label);
	assert_non_null(opt_value(&a, "-object", "filter-dump"));
	assert_opt(&a, "-object", "filter-dump", want);
	assert_null(opt_value(&a, "-object", "filter-buffer"));
	argv_release(&a);
	doc_free(&d);
}

static void test_lv_domain_xml__pair_one_udp_interface_per_vm_to_the_peers_port(void **state)
{
	struct vm_config c = base_cfg();
	struct lv_stage a = base_stage(), b = base_stage();

	need_tools(state);
	c.topo = topology_find("pair");
	assert_non_null(c.topo);
	a.name = "dom-a";
	b.name = "dom-b";
	a.udp_port[0] = b.udp_port[0] = 40000; /* NIC A's (VM a) own port */
	a.udp_port[1] = b.udp_port[1] = 40001; /* NIC B's (VM b) */
	check_pair_vm(&c, 0, &a, 'A', "e1000e", 40000, 40001);
	check_pair_vm(&c, 1, &b, 'B', "virtio", 40001, 40000);
}

static void test_lv_domain_xml__pair_refuses_a_nic_without_udp_ports(void **state)
{
	struct vm_config c = base_cfg();
	struct lv_stage st = base_stage();

	c.topo = topology_find("pair");
	st.udp_port[0] = 40000; /* the peer's (B) is missing */
	assert_refused(&c, 0, &st, "no UDP port");
}

/* ---- what comes from the user is escaped -------------------------------------- */

static void test_lv_domain_xml__kernel_cmdline_is_escaped(void **state)
{
	static const char append[] = "netlab.x=\"a b\" y='q' z=1&2 <tag> &amp;";
	struct vm_config c = base_cfg();
	struct lv_stage st = base_stage();
	struct doc d;
	char *cmdline;

	need_tools(state);
	c.append = append;
	gen(&c, 0, &st, &d); /* valid XML, else gen() fails */
	/* The parser gives back exactly what the kernel must see. */
	cmdline = xq(&d, "string(/domain/os/cmdline)");
	assert_true(strlen(cmdline) > strlen(append));
	assert_string_equal(cmdline + strlen(cmdline) - strlen(append), append);
	assert_non_null(strstr(cmdline, "console=ttyS0"));
	assert_non_null(strstr(d.xml, "z=1&amp;2 &lt;tag&gt; &amp;amp;"));
	free(cmdline);
	doc_free(&d);
}

static void test_lv_domain_xml__paths_in_attributes_and_text_are_escaped(void **state)
{
	struct vm_config c = base_cfg();
	struct lv_stage st = base_stage();
	struct doc d;
	struct argv a;

	need_tools(state);
	c.qemu = "/opt/q&a's/qemu";
	c.rundir = "/runs/<a&b>";
	c.debug.gdb_socket = "/tmp/it's&\"gdb\".sock";
	st.dir = "/var/tmp/o'neil&co";
	gen(&c, 0, &st, &d);
	assert_xq(&d, "/opt/q&a's/qemu", "string(/domain/devices/emulator)");
	assert_xq(&d, "netlab run /runs/<a&b>, VM a", "string(/domain/description)");
	assert_xq(&d, "/var/tmp/o'neil&co/dom.stdout.sock",
		  "string(/domain/devices/channel[target/@name='netlab.stdout']/source/@path)");
	qemu_args(&d, &a);
	assert_opt(&a, "-object", "filter-dump,id=dumpA",
		   "filter-dump,id=dumpA,netdev=netA,file=/var/tmp/o'neil&co/dom.nic-A.pcap");
	assert_opt(&a, "-chardev", "socket,",
		   "socket,path=/tmp/it's&\"gdb\".sock,server=on,wait=off,id=gdb0");
	argv_release(&a);
	doc_free(&d);
}

/* ---- icount, gdb -------------------------------------------------------------- */

static void test_lv_domain_xml__icount_only_when_shift_is_set(void **state)
{
	struct vm_config c = base_cfg();
	struct lv_stage st = base_stage();
	struct doc d;
	struct argv a;

	need_tools(state);
	gen(&c, 0, &st, &d);
	qemu_args(&d, &a);
	assert_true(a.n > 0); /* the hub is there: the query works */
	assert_int_equal(arg_index(&a, "-icount"), -1);
	argv_release(&a);
	doc_free(&d);
	for (int shift = 0; shift <= 3; shift += 3) {
		char want[64];

		c.icount_shift = shift;
		gen(&c, 0, &st, &d);
		qemu_args(&d, &a);
		snprintf(want, sizeof(want), "shift=%d,sleep=off,align=off", shift);
		assert_opt(&a, "-icount", "shift=", want);
		argv_release(&a);
		doc_free(&d);
	}
}

static void test_lv_domain_xml__gdb_socket_only_for_the_gdb_vm(void **state)
{
	struct vm_config c = base_cfg();
	struct lv_stage st = base_stage();
	struct doc d;
	struct argv a;
	char *cmdline;

	need_tools(state);
	c.topo = topology_find("pair");
	st.udp_port[0] = 40000;
	st.udp_port[1] = 40001;
	c.debug.gdb_socket = "/s/gdb.sock";
	c.debug.gdb_vm = 1;
	gen(&c, 0, &st, &d);
	qemu_args(&d, &a);
	assert_int_equal(arg_index(&a, "-gdb"), -1);
	assert_int_equal(arg_index(&a, "-chardev"), -1);
	cmdline = xq(&d, "string(/domain/os/cmdline)");
	assert_null(strstr(cmdline, "nokaslr"));
	free(cmdline);
	argv_release(&a);
	doc_free(&d);

	gen(&c, 1, &st, &d);
	qemu_args(&d, &a);
	assert_opt(&a, "-chardev", "socket", "socket,path=/s/gdb.sock,server=on,wait=off,id=gdb0");
	assert_opt(&a, "-gdb", "", "chardev:gdb0");
	cmdline = xq(&d, "string(/domain/os/cmdline)");
	assert_non_null(strstr(cmdline, " nokaslr")); /* breakpoints need vmlinux's addresses */
	free(cmdline);
	argv_release(&a);
	doc_free(&d);
}

/* ---- refused ---------------------------------------------------------------- */

static void test_lv_domain_xml__refuses_record_and_replay(void **state)
{
	struct vm_config c = base_cfg();
	struct lv_stage st = base_stage();

	c.debug.rr = VM_RR_RECORD;
	c.debug.rr_vm = -1;
	assert_refused(&c, 0, &st, "record/replay");
	c.debug.rr = VM_RR_REPLAY;
	assert_refused(&c, 0, &st, "hint: drop --backend libvirt");
}

static void test_lv_domain_xml__refuses_a_vm_the_topology_lacks(void **state)
{
	struct vm_config c = base_cfg();
	struct lv_stage st = base_stage();

	assert_refused(&c, 1, &st, "topology 'loop' has no VM 1");
	c.topo = topology_find("pair");
	st.udp_port[0] = 40000;
	st.udp_port[1] = 40001;
	assert_refused(&c, 2, &st, "topology 'pair' has no VM 2");
}

/* ---- the staging pool ------------------------------------------------------- */

static void test_lv_qemu_gid__from_the_dac_base_label_of_the_capabilities(void **state)
{
	static const char caps[] =
		"<capabilities><host><secmodel><model>none</model><doi>0</doi></secmodel>"
		"<secmodel><model>dac</model><doi>0</doi>"
		"<baselabel type='kvm'>+64055:+109</baselabel>"
		"<baselabel type='qemu'>+64055:+64055</baselabel></secmodel></host></capabilities>";

	assert_int_equal(lv_qemu_gid(caps), 64055);
	assert_int_equal(lv_qemu_gid("<capabilities><host/></capabilities>"), -1);
	assert_int_equal(lv_qemu_gid("not xml"), -1);
}

static void test_lv_pool_xml__never_world_writable(void **state)
{
	char *x = lv_pool_xml(64055);
	unsigned int mode;

	assert_non_null(strstr(x, "<mode>0770</mode>"));
	assert_non_null(strstr(x, "<group>64055</group>"));
	assert_non_null(strstr(x, "<path>/var/tmp/netlab-stage</path>"));
	free(x);
	x = lv_pool_xml(-1);	/* no QEMU group known: the daemon's user only */
	assert_non_null(strstr(x, "<mode>0700</mode>"));
	assert_null(strstr(x, "<group>"));
	free(x);
	/* As libvirt shows an active pool: the directory's mode, owner and group. */
#define POOL(m, g)                                                                                 \
	"<pool type='dir'><name>netlab-stage</name><target><path>/var/tmp/netlab-stage</path>"     \
	"<permissions><mode>" m "</mode><owner>0</owner><group>" g "</group></permissions>"        \
	"</target></pool>"
	assert_true(lv_pool_private(POOL("0770", "64055"), 64055, &mode));
	assert_int_equal(mode, 0770);
	assert_false(lv_pool_private(POOL("0777", "0"), 64055, &mode));	/* an earlier netlab's */
	assert_int_equal(mode, 0777);
	assert_false(lv_pool_private(POOL("0770", "0"), 64055, &mode));	/* QEMU cannot write */
	assert_false(lv_pool_private(POOL("0750", "64055"), 64055, &mode));
	assert_false(lv_pool_private(POOL("0771", "64055"), 64055, &mode));
	assert_true(lv_pool_private(POOL("0700", "1000"), -1, &mode));
	assert_false(lv_pool_private("<pool/>", -1, &mode));
#undef POOL
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lv_stage_path__is_dir_slash_name_dot_what),
		cmocka_unit_test(test_lv_nic_model__virtio_net_is_virtio_others_keep_their_name),
		cmocka_unit_test(
			test_lv_domain_xml__machine_boots_the_staged_kernel_with_netlab_ports),
		cmocka_unit_test(test_lv_domain_xml__rw_share_is_mapped),
		cmocka_unit_test(test_lv_domain_xml__domain_type_kvm_or_qemu_from_accel),
		cmocka_unit_test(test_lv_domain_xml__emulator_only_for_a_path),
		cmocka_unit_test(test_lv_domain_xml__loop_hub_nics_on_qemu_commandline_with_pcaps),
		cmocka_unit_test(test_lv_domain_xml__loop_nic_models_follow_want_model),
		cmocka_unit_test(
			test_lv_domain_xml__pair_one_udp_interface_per_vm_to_the_peers_port),
		cmocka_unit_test(test_lv_domain_xml__pair_refuses_a_nic_without_udp_ports),
		cmocka_unit_test(test_lv_domain_xml__kernel_cmdline_is_escaped),
		cmocka_unit_test(test_lv_domain_xml__paths_in_attributes_and_text_are_escaped),
		cmocka_unit_test(test_lv_domain_xml__icount_only_when_shift_is_set),
		cmocka_unit_test(test_lv_domain_xml__gdb_socket_only_for_the_gdb_vm),
		cmocka_unit_test(test_lv_domain_xml__refuses_record_and_replay),
		cmocka_unit_test(test_lv_domain_xml__refuses_a_vm_the_topology_lacks),
		cmocka_unit_test(test_lv_qemu_gid__from_the_dac_base_label_of_the_capabilities),
		cmocka_unit_test(test_lv_pool_xml__never_world_writable),
	};

	return cmocka_run_group_tests(tests, setup_tools, NULL);
}
