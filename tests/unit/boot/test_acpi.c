// SPDX-License-Identifier: GPL-2.0
/*
 * ACPI table overrides: iasl invocation and its errors, table headers, the
 * initrd layout the kernel's table upgrade reads, and the console and
 * /proc/interrupts lines recorded from real guests (fixtures/acpi/).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "boot/acpi.h"

#ifndef FIXTURES
#define FIXTURES "tests/unit/fixtures"
#endif

static char tmpdir[] = "/tmp/netlab-acpi-test-XXXXXX";

static int setup(void **state)
{
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	return rm_rf(tmpdir);
}

static bool have_iasl(void)
{
	return system("command -v iasl >/dev/null 2>&1") == 0;
}

static char *fixture(const char *name)
{
	char *path = xasprintf("%s/acpi/%s", FIXTURES, name), *data = NULL;

	assert_int_equal(file_read(path, &data, NULL), 0);
	free(path);
	return data;
}

/* A table with a valid checksum: header fields as given, body "NETLAB!!". */
static size_t make_table(unsigned char *buf, const char *sig, const char *oem, const char *tid,
			 unsigned int oem_rev)
{
	unsigned char sum = 0;
	size_t len = 44;

	memset(buf, 0, len);
	memcpy(buf, sig, 4);
	buf[4] = (unsigned char)len;
	buf[8] = 2;
	memcpy(buf + 10, oem, strlen(oem));
	memcpy(buf + 16, tid, strlen(tid));
	buf[24] = (unsigned char)oem_rev;
	memcpy(buf + 36, "NETLAB!!", 8);
	for (size_t i = 0; i < len; i++)
		sum += buf[i];
	buf[9] = (unsigned char)(0x100 - sum);
	return len;
}

static void test_acpi__header_fields_from_the_table(void **state)
{
	unsigned char buf[64];
	size_t len = make_table(buf, "DSDT", "BOCHS ", "BXPC    ", 2);
	struct acpi_table t = { 0 };
	char *err = NULL;

	assert_int_equal(acpi_header_parse(buf, len, &t, &err), 0);
	assert_string_equal(t.signature, "DSDT");
	assert_string_equal(t.oem_id, "BOCHS ");
	assert_string_equal(t.oem_table_id, "BXPC    ");
	assert_int_equal(t.oem_revision, 2);
	assert_int_equal(t.revision, 2);
	assert_int_equal(t.length, len);
}

static void test_acpi__header_rejects_bad_checksum_length_and_signature(void **state)
{
	unsigned char buf[64];
	size_t len = make_table(buf, "SSDT", "NETLAB", "NLTEST", 1);
	struct acpi_table t = { 0 };
	char *err = NULL;

	buf[40] ^= 1;
	assert_int_equal(acpi_header_parse(buf, len, &t, &err), -EINVAL);
	assert_non_null(strstr(err, "checksum"));
	free(err);
	err = NULL;
	make_table(buf, "SSDT", "NETLAB", "NLTEST", 1);
	assert_int_equal(acpi_header_parse(buf, len - 1, &t, &err), -EINVAL);
	assert_non_null(strstr(err, "length"));
	free(err);
	err = NULL;
	assert_int_equal(acpi_header_parse(buf, 20, &t, &err), -EINVAL);
	free(err);
	err = NULL;
	make_table(buf, "ds t", "NETLAB", "NLTEST", 1);
	assert_int_equal(acpi_header_parse(buf, len, &t, &err), -EINVAL);
	assert_non_null(strstr(err, "signature"));
	free(err);
}

static void test_acpi__compiles_asl_and_reads_its_header(void **state)
{
	const char *files[] = { FIXTURES "/acpi/ssdt.asl" };
	char *dir = xasprintf("%s/ok", tmpdir), *err = NULL;
	struct acpi_set set;

	if (!have_iasl()) {
		free(dir);
		skip();
	}
	assert_int_equal(acpi_prepare(NULL, files, 1, dir, &set, &err), 0);
	assert_int_equal(set.n, 1);
	assert_string_equal(set.t[0].signature, "SSDT");
	assert_string_equal(set.t[0].oem_id, "NETLAB");
	assert_string_equal(set.t[0].oem_table_id, "NLTEST");
	assert_int_equal(set.t[0].oem_revision, 7);
	assert_string_equal(set.t[0].cpio_name, "kernel/firmware/acpi/00-ssdt.aml");
	assert_int_equal(access(set.t[0].aml, R_OK), 0);
	assert_int_equal(strlen(set.t[0].sha256), 64);
	/* The source's netlab-expect-irq line. */
	assert_int_equal(set.t[0].n_expect, 2);
	assert_int_equal(set.t[0].expect[0].irq, 5);
	assert_string_equal(set.t[0].expect[0].action, "ethA");
	assert_string_equal(set.t[0].expect[1].action, "ethB");
	acpi_set_release(&set);
	free(dir);
}

static void test_acpi__broken_asl_gives_iasl_file_and_line(void **state)
{
	const char *files[] = { FIXTURES "/acpi/broken.asl" };
	char *dir = xasprintf("%s/broken", tmpdir), *err = NULL;
	struct acpi_set set;

	if (!have_iasl()) {
		free(dir);
		skip();
	}
	assert_int_equal(acpi_prepare(NULL, files, 1, dir, &set, &err), -EINVAL);
	assert_int_equal(set.n, 0);
	/* iasl's own message: FILE(LINE) : error NNNN - text. Line 4 is "Name (EFGH 2)". */
	assert_non_null(strstr(err, "broken.asl(4) : error 6126 - syntax error"));
	assert_non_null(strstr(err, "does not compile"));
	assert_non_null(strstr(err, "00-broken.log"));
	free(err);
	free(dir);
}

static void test_acpi__missing_iasl_names_the_package(void **state)
{
	char *prefix = xasprintf("%s/x", tmpdir), *err = NULL;

	assert_int_equal(acpi_compile("/nonexistent/iasl", FIXTURES "/acpi/ssdt.asl", prefix, &err),
			 -ENOENT);
	assert_non_null(strstr(err, "acpica-tools"));
	assert_non_null(strstr(err, "make deps"));
	free(err);
	free(prefix);
}

static void test_acpi__aml_is_taken_as_is_and_missing_file_is_bad_input(void **state)
{
	unsigned char buf[64];
	size_t len = make_table(buf, "SSDT", "NETLAB", "RAWAML", 3);
	char *aml = xasprintf("%s/raw.aml", tmpdir), *dir = xasprintf("%s/raw", tmpdir);
	const char *files[] = { aml }, *missing[] = { "/nonexistent/x.aml" };
	struct acpi_set set;
	char *err = NULL, *data = NULL;
	size_t n;

	assert_int_equal(file_write(aml, buf, len), 0);
	assert_int_equal(acpi_prepare("/nonexistent/iasl", files, 1, dir, &set, &err), 0);
	assert_string_equal(set.t[0].oem_table_id, "RAWAML");
	assert_int_equal(file_read(set.t[0].aml, &data, &n), 0);
	assert_int_equal(n, len);
	assert_memory_equal(data, buf, len);
	free(data);
	acpi_set_release(&set);
	assert_int_equal(acpi_prepare(NULL, missing, 1, dir, &set, &err), -EINVAL);
	assert_non_null(strstr(err, "/nonexistent/x.aml"));
	free(err);
	free(aml);
	free(dir);
}

/* The kernel's find_cpio_data() wants kernel/firmware/acpi/ files; they come first. */
static void test_acpi__tables_lead_the_initrd_before_the_job(void **state)
{
	unsigned char buf[64];
	size_t len = make_table(buf, "SSDT", "NETLAB", "RAWAML", 3);
	char *aml = xasprintf("%s/t.aml", tmpdir), *dir = xasprintf("%s/cpio", tmpdir);
	char *base = xasprintf("%s/base", tmpdir), *out = xasprintf("%s/initrd.img", tmpdir);
	const char *files[] = { aml, aml };
	struct acpi_set set;
	struct cpio early;
	char *err = NULL, *cmd, *list = NULL;

	assert_int_equal(file_write(aml, buf, len), 0);
	assert_int_equal(file_write(base, "BASE", 4), 0);
	assert_int_equal(acpi_prepare(NULL, files, 2, dir, &set, &err), 0);
	cpio_init(&early);
	assert_int_equal(acpi_cpio_add(&set, &early, &err), 0);
	assert_int_equal(initrd_assemble_with(out, &early, "version=1\n", "true\n", base, &err), 0);
	cpio_release(&early);
	cmd = xasprintf("cpio -it --quiet < '%s' > '%s/list' 2>/dev/null", out, tmpdir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	cmd = xasprintf("%s/list", tmpdir);
	assert_int_equal(file_read(cmd, &list, NULL), 0);
	assert_string_equal(list, "kernel\nkernel/firmware\nkernel/firmware/acpi\n"
				  "kernel/firmware/acpi/00-ssdt.aml\nkernel/firmware/acpi/01-ssdt.aml\n"
				  "netlab\nnetlab/out\nnetlab/job\nnetlab/exec.sh\n");
	free(list);
	free(cmd);
	/* Byte-exact table inside the archive. */
	cmd = xasprintf("cd '%s' && mkdir x && cd x && cpio -id --quiet < ../initrd.img 2>/dev/null && "
			"cmp kernel/firmware/acpi/01-ssdt.aml '%s'", tmpdir, aml);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	acpi_set_release(&set);
	free(aml);
	free(dir);
	free(base);
	free(out);
}

static void test_acpi__console_override_line_recorded_from_a_guest(void **state)
{
	char *console = fixture("console-override.log");
	struct acpi_table t = { .signature = "DSDT", .oem_id = "BOCHS ",
				.oem_table_id = "BXPC    ", .cpio_name = "kernel/firmware/acpi/00-dsdt.aml" };
	struct acpi_console c;
	const char *how = NULL;

	acpi_console_parse(console, &c);
	assert_int_equal(c.n_up, 1);
	assert_string_equal(c.up[0].action, "override");
	assert_string_equal(c.up[0].signature, "DSDT");
	assert_string_equal(c.up[0].oem_id, "BOCHS");
	assert_string_equal(c.up[0].oem_table_id, "BXPC");
	assert_string_equal(c.up[0].line, "ACPI: Table Upgrade: override [DSDT-BOCHS -BXPC    ]");
	assert_int_equal(c.n_found, 1);
	assert_string_equal(c.found[0], "kernel/firmware/acpi/00-dsdt.aml");
	assert_true(acpi_table_taken(&t, &c, &how));
	assert_string_equal(how, "override");
	strcpy(t.oem_table_id, "OTHER");
	assert_false(acpi_table_taken(&t, &c, NULL));
	acpi_console_release(&c);
	free(console);
}

/* "%8.8s" pads a 6-byte table id on the left: "[SSDT-NETLAB-  NLTEST]". */
static void test_acpi__console_install_and_a_table_kept_back(void **state)
{
	char *console = fixture("console-install-not-taken.log");
	struct acpi_table ssdt = { .signature = "SSDT", .oem_id = "NETLAB", .oem_table_id = "NLTEST" };
	struct acpi_table dsdt = { .signature = "DSDT", .oem_id = "BOCHS ",
				   .oem_table_id = "BXPC    " };
	struct acpi_console c;
	const char *how = NULL;

	acpi_console_parse(console, &c);
	assert_int_equal(c.n_up, 1);
	assert_string_equal(c.up[0].oem_table_id, "NLTEST");
	assert_true(acpi_table_taken(&ssdt, &c, &how));
	assert_string_equal(how, "install");
	assert_int_equal(c.n_found, 2);
	/* Seen in the initrd, but its OEM revision was not above the firmware's. */
	assert_false(acpi_table_taken(&dsdt, &c, NULL));
	acpi_console_release(&c);
	free(console);
}

static void test_acpi__proc_interrupts_shared_line(void **state)
{
	char *text = fixture("interrupts-shared.txt");
	struct acpi_irq_line *l;
	const struct acpi_irq_line *a, *b;
	size_t n;

	acpi_irq_parse(text, &l, &n);
	assert_int_equal(n, 8);			/* numbered lines only; NMI, LOC... left out */
	a = acpi_irq_find(l, n, "ethA");
	b = acpi_irq_find(l, n, "ethB");
	assert_non_null(a);
	assert_ptr_equal(a, b);
	assert_string_equal(a->irq, "5");
	assert_string_equal(a->chip, "IO-APIC");
	assert_string_equal(a->hwirq, "5-fasteoi");
	assert_int_equal(a->n_actions, 2);
	assert_string_equal(acpi_irq_find(l, n, "acpi")->irq, "9");
	assert_null(acpi_irq_find(l, n, "Local"));
	acpi_irq_release(l, n);
	free(text);
}

static void test_acpi__proc_interrupts_two_cpus(void **state)
{
	const char *text = "           CPU0       CPU1       \n"
			   " 11:         12          3   IO-APIC  11-fasteoi   ethA\n"
			   " 24:          0          0   PCI-MSI 32768-edge      virtio0-config\n"
			   "  2:          0          0    XT-PIC  cascade\n";
	struct acpi_irq_line *l;
	size_t n;

	acpi_irq_parse(text, &l, &n);
	assert_int_equal(n, 2);
	assert_string_equal(acpi_irq_find(l, n, "ethA")->irq, "11");
	assert_string_equal(l[1].actions[0], "virtio0-config");
	acpi_irq_release(l, n);
}

/* acpi.json: taken per table, and the expected routing checked. */
static void test_acpi__report_taken_and_routing(void **state)
{
	char *console = fixture("console-override.log"), *irqs = fixture("interrupts-shared.txt");
	struct acpi_expect want[] = { { 5, "ethA" }, { 5, "ethB" } }, wrong[] = { { 11, "ethA" } };
	struct acpi_table t = { .source = "irq-share.asl", .aml = "a", .cpio_name = "c",
				.signature = "DSDT", .oem_id = "BOCHS ", .oem_table_id = "BXPC    ",
				.oem_revision = 2, .expect = want, .n_expect = 2 };
	struct acpi_set set = { &t, 1 };
	struct json_object *j, *v;
	char *why = NULL;
	bool ok;

	j = acpi_report(&set, console, irqs, &ok, &why);
	assert_true(ok);
	assert_null(why);
	assert_true(json_object_object_get_ex(j, "taken", &v));
	assert_int_equal(json_object_get_int(v), 1);
	assert_true(json_object_object_get_ex(j, "shared", &v));
	assert_int_equal(json_object_array_length(v), 1);
	assert_int_equal(json_object_get_int(json_object_object_get(
				 json_object_array_get_idx(v, 0), "irq")), 5);
	json_object_put(j);

	t.expect = wrong;
	t.n_expect = 1;
	j = acpi_report(&set, console, irqs, &ok, &why);
	assert_false(ok);
	assert_non_null(strstr(why, "routes 'ethA' to IRQ 11, but the guest has it on IRQ 5"));
	json_object_put(j);
	free(why);
	why = NULL;

	/* Not taken: the reason says so, and names the table. */
	j = acpi_report(&set, "no upgrade here\n", irqs, &ok, &why);
	assert_false(ok);
	assert_non_null(strstr(why, "was not taken"));
	assert_non_null(strstr(why, "irq-share.asl"));
	assert_non_null(strstr(why, "CONFIG_ACPI_TABLE_UPGRADE"));
	json_object_put(j);
	free(why);
	free(console);
	free(irqs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_acpi__header_fields_from_the_table),
		cmocka_unit_test(test_acpi__header_rejects_bad_checksum_length_and_signature),
		cmocka_unit_test(test_acpi__compiles_asl_and_reads_its_header),
		cmocka_unit_test(test_acpi__broken_asl_gives_iasl_file_and_line),
		cmocka_unit_test(test_acpi__missing_iasl_names_the_package),
		cmocka_unit_test(test_acpi__aml_is_taken_as_is_and_missing_file_is_bad_input),
		cmocka_unit_test(test_acpi__tables_lead_the_initrd_before_the_job),
		cmocka_unit_test(test_acpi__console_override_line_recorded_from_a_guest),
		cmocka_unit_test(test_acpi__console_install_and_a_table_kept_back),
		cmocka_unit_test(test_acpi__proc_interrupts_shared_line),
		cmocka_unit_test(test_acpi__proc_interrupts_two_cpus),
		cmocka_unit_test(test_acpi__report_taken_and_routing),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
