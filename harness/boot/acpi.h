/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ACPI table overrides for the guest (issue 5): ASL sources compiled with
 * iasl, delivered through the kernel's initrd table upgrade
 * (CONFIG_ACPI_TABLE_UPGRADE: files under kernel/firmware/acpi/ in the first,
 * uncompressed cpio archives), and what the kernel said about them.
 *
 * Ownership: struct acpi_set, struct acpi_console and the interrupt lines
 * own every string they hold; release them with the matching function.
 */
#ifndef NETLAB_ACPI_H
#define NETLAB_ACPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot/initrd.h"

/* Where the kernel looks for tables in the initrd (drivers/acpi/tables.c). */
#define ACPI_CPIO_DIR "kernel/firmware/acpi"

struct acpi_expect {
	unsigned int irq;
	char *action;			/* "ethA" */
};

/* One table given for a run. */
struct acpi_table {
	char *source;			/* as given: .asl/.dsl (compiled) or .aml (copied) */
	char *aml;			/* the table as delivered, in the run directory */
	char *cpio_name;		/* kernel/firmware/acpi/NN-sig.aml */
	char signature[5];
	char oem_id[7];			/* trailing spaces kept, as in the table */
	char oem_table_id[9];
	uint8_t revision;
	uint32_t oem_revision;
	uint32_t length;
	char sha256[65];
	/* "netlab-expect-irq: IRQ NAME..." lines of the source: each handler
	 * NAME must be on line IRQ in the guest's /proc/interrupts. */
	struct acpi_expect *expect;
	size_t n_expect;
};

struct acpi_set {
	struct acpi_table *t;
	size_t n;
};

/*
 * acpi_header_parse() - the header of one ACPI table
 * @data, @len: the whole table (an .aml file)
 * @t:   signature, OEM ids, revisions and length are filled in
 * @err: what is wrong with it
 *
 * The length field must equal @len and the bytes must sum to zero.
 * Return: 0 or -EINVAL.
 */
int acpi_header_parse(const void *data, size_t len, struct acpi_table *t, char **err);

/*
 * acpi_compile() - compile an ASL source with iasl
 * @iasl:   the compiler, NULL for "iasl" on PATH
 * @src:    the .asl/.dsl file
 * @prefix: output prefix: PREFIX.aml is written, iasl's output goes to PREFIX.log
 * @err:    iasl's own error lines ("FILE(LINE) : error NNNN - message")
 *
 * Return: 0; -EINVAL when the source does not compile; -ENOENT when iasl is
 * not installed (the hint names acpica-tools); another -errno otherwise.
 */
int acpi_compile(const char *iasl, const char *src, const char *prefix, char **err);

/*
 * acpi_prepare() - compile or copy every table into @dir
 * @files: .asl/.dsl/.aml paths, in the order the kernel will see them
 * @dir:   created if needed; holds NN-NAME.aml, NN-NAME.log
 * @set:   the tables, on success; acpi_set_release() it
 *
 * Return: 0, -EINVAL for a bad source or table, -ENOENT without iasl.
 */
int acpi_prepare(const char *iasl, const char *const *files, size_t n, const char *dir,
		 struct acpi_set *set, char **err);
void acpi_set_release(struct acpi_set *set);

/* The "netlab-expect-irq: IRQ NAME..." lines of an ASL source's text. */
void acpi_expect_parse(const char *text, struct acpi_table *t);

/* acpi_validate() - acpi_prepare() into a temporary directory, then remove it. */
int acpi_validate(const char *const *files, size_t n, char **err);

/*
 * acpi_cpio_add() - the tables as kernel/firmware/acpi/NN-sig.aml entries
 *
 * Add them before anything else in the per-run cpio: acpi_table_upgrade()
 * reads the leading uncompressed archives of the initrd. Returns 0 or -errno
 * when an .aml cannot be read back.
 */
int acpi_cpio_add(const struct acpi_set *set, struct cpio *c, char **err);

/* What the kernel logged about table upgrades. */
struct acpi_upgrade {
	char action[12];		/* "override" or "install" */
	char signature[5];
	char oem_id[7];			/* spaces trimmed */
	char oem_table_id[9];		/* spaces trimmed */
	char *line;			/* the console line */
};

struct acpi_console {
	struct acpi_upgrade *up;	/* "ACPI: Table Upgrade: override [DSDT-BOCHS -BXPC    ]" */
	size_t n_up;
	char **found;			/* initrd file names the kernel saw ("...found in initrd [F]") */
	size_t n_found;
	char **errors;			/* "ACPI OVERRIDE: ..." lines */
	size_t n_errors;
};

void acpi_console_parse(const char *console, struct acpi_console *out);
void acpi_console_release(struct acpi_console *c);

/*
 * acpi_table_taken() - did the kernel take @t?
 *
 * True when an upgrade line names its signature, OEM ID and OEM table ID;
 * *how is then "override" or "install".
 */
bool acpi_table_taken(const struct acpi_table *t, const struct acpi_console *c,
		      const char **how);

/* One numbered line of /proc/interrupts ("11: ... IO-APIC 11-fasteoi ethA, ethB"). */
struct acpi_irq_line {
	char *irq;			/* "11" */
	char *chip;			/* "IO-APIC" */
	char *hwirq;			/* "11-fasteoi" */
	char **actions;			/* "ethA", "ethB" */
	size_t n_actions;
};

/* Parse /proc/interrupts text; lines without handlers, and the per-CPU
 * counter lines (NMI, LOC, ...), are left out. */
void acpi_irq_parse(const char *text, struct acpi_irq_line **lines, size_t *n);
void acpi_irq_release(struct acpi_irq_line *lines, size_t n);
/* The line a handler (action name) is on, or NULL. */
const struct acpi_irq_line *acpi_irq_find(const struct acpi_irq_line *lines, size_t n,
					  const char *action);

/*
 * acpi_report() - what was given and what the kernel made of it
 * @interrupts: /proc/interrupts as the guest saw it, or NULL
 *
 * Returns a json-c object (struct json_object *; the caller puts it):
 * {"tables": [{source, aml, signature, oem_id, oem_table_id, revision,
 * oem_revision, length, sha256, taken, how}], "given", "taken",
 * "kernel_lines" (the upgrade lines), "initrd_files_seen", "errors" (the
 * kernel's "ACPI OVERRIDE:" lines), "interrupts": [{irq, chip, hwirq, actions}],
 * "shared": [{irq, actions}], "expect": [{action, irq, found, ok}]}.
 * *all_taken is false when a table was not taken, or when the IRQ lines
 * are not what a table's netlab-expect-irq lines ask for; *why says which.
 */
void *acpi_report(const struct acpi_set *set, const char *console, const char *interrupts,
		  bool *all_taken, char **why);

#endif /* NETLAB_ACPI_H */
