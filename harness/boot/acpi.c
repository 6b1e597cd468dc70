// SPDX-License-Identifier: GPL-2.0
/*
 * ACPI table overrides for the guest: compile, deliver in the initrd, and
 * read back from the console what the kernel did with them.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "boot/acpi.h"
#include "lib/proc.h"

#define ACPI_HEADER_LEN 36

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Copy a fixed-width, possibly NUL-padded field. */
static void field(char *dst, const unsigned char *src, size_t n)
{
	size_t i;

	for (i = 0; i < n && src[i]; i++)
		dst[i] = (char)src[i];
	dst[i] = '\0';
}

int acpi_header_parse(const void *data, size_t len, struct acpi_table *t, char **err)
{
	const unsigned char *p = data;
	unsigned char sum = 0;

	if (len < ACPI_HEADER_LEN) {
		err_set(err, "%zu bytes is shorter than an ACPI table header (36)", len);
		return -EINVAL;
	}
	for (int i = 0; i < 4; i++) {
		if (!isupper(p[i]) && !isdigit(p[i]) && p[i] != '_') {
			err_set(err, "not an ACPI table: bad signature");
			return -EINVAL;
		}
	}
	if (le32(p + 4) != len) {
		err_set(err, "header length %u does not match the file's %zu bytes", le32(p + 4),
			len);
		return -EINVAL;
	}
	for (size_t i = 0; i < len; i++)
		sum += p[i];
	if (sum) {
		err_set(err, "bad checksum (the bytes sum to 0x%02x, not 0)", sum);
		return -EINVAL;
	}
	field(t->signature, p, 4);
	t->length = (uint32_t)len;
	t->revision = p[8];
	field(t->oem_id, p + 10, 6);
	field(t->oem_table_id, p + 16, 8);
	t->oem_revision = le32(p + 24);
	return 0;
}

/* iasl's error lines ("x.asl(4) : error    6126 - syntax error"), spaces squeezed. */
static char *iasl_errors(const char *log)
{
	struct sbuf b;

	sbuf_init(&b);
	for (const char *l = log; l && *l;) {
		const char *nl = strchrnul(l, '\n');

		if (memmem(l, (size_t)(nl - l), ": error", 7) || !strncasecmp(l, "error ", 6)) {
			if (b.len)
				sbuf_adds(&b, "\n");
			for (const char *c = l; c < nl; c++)
				if (*c != ' ' || (c > l && c[-1] != ' '))
					sbuf_add(&b, c, 1);
		}
		l = *nl ? nl + 1 : nl;
	}
	return sbuf_detach(&b);
}

/* iasl's exit code, its output (stdout and stderr) in `log`; or -errno. */
static int run_iasl(const char *iasl, const char *src, const char *prefix, const char *log,
		    char **err)
{
	const char *argv[] = { iasl, "-ve", "-vi", "-p", prefix, src, NULL };
	char *why = NULL;
	struct proc p;
	int ret;

	proc_init(&p, argv);
	p.stdin_mode = PROC_NULL;
	p.stdout_mode = PROC_FILE;
	p.stdout_path = log;
	p.stderr_mode = PROC_TO_STDOUT;
	ret = proc_run(&p, 0, &why);
	proc_release(&p);
	if (ret == -ENOENT && p.exec_failed)
		err_set(err, "cannot compile '%s': the ACPI compiler '%s' is not installed\nhint: run 'make deps' (Debian package acpica-tools), or pass the table as .aml",
			src, iasl);
	else if (ret < 0)
		err_set(err, "%s", why);
	free(why);
	return ret;
}

int acpi_compile(const char *iasl, const char *src, const char *prefix, char **err)
{
	char *log = xasprintf("%s.log", prefix), *aml = xasprintf("%s.aml", prefix);
	char *text = NULL, *msg;
	int ret;

	if (!iasl)
		iasl = "iasl";
	if (access(src, R_OK) < 0) {
		ret = errno == ENOENT ? -EINVAL : -errno;
		err_set(err, "cannot read ACPI source '%s': %s", src, strerror(errno));
		goto out;
	}
	unlink(aml);
	ret = run_iasl(iasl, src, prefix, log, err);
	if (ret < 0)
		goto out;
	file_read(log, &text, NULL);
	if (ret == 0 && access(aml, R_OK) == 0)
		goto out;
	msg = iasl_errors(text);
	err_set(err, "ACPI source '%s' does not compile:\n%s\nhint: fix it; iasl's whole output is in %s",
		src, *msg ? msg : "(iasl printed no error line)", log);
	free(msg);
	ret = -EINVAL;
out:
	free(text);
	free(log);
	free(aml);
	return ret;
}

static bool is_aml(const char *path)
{
	size_t n = strlen(path);

	return n > 4 && !strcasecmp(path + n - 4, ".aml");
}

/* "dir/x.asl" -> "x" */
static char *stem(const char *path)
{
	const char *b = strrchr(path, '/'), *dot;

	b = b ? b + 1 : path;
	dot = strrchr(b, '.');
	return xasprintf("%.*s", (int)(dot && dot != b ? dot - b : (long)strlen(b)), b);
}

static int prepare_one(const char *iasl, const char *src, size_t i, const char *dir,
		       struct acpi_table *t, char **err)
{
	char *name = stem(src), *prefix = xasprintf("%s/%02zu-%s", dir, i, name);
	char *data = NULL, *why = NULL;
	size_t len;
	int ret;

	t->source = xstrdup(src);
	t->aml = xasprintf("%s.aml", prefix);
	if (is_aml(src)) {
		ret = file_read(src, &data, &len);
		if (ret) {
			err_set(err, "cannot read ACPI table '%s': %s", src, strerror(-ret));
			ret = ret == -ENOENT ? -EINVAL : ret;
			goto out;
		}
		ret = file_write(t->aml, data, len);
		free(data);
		data = NULL;
		if (ret) {
			err_set(err, "cannot write '%s': %s", t->aml, strerror(-ret));
			goto out;
		}
	} else {
		ret = acpi_compile(iasl, src, prefix, err);
		if (ret)
			goto out;
		if (file_read(src, &data, NULL) == 0)
			acpi_expect_parse(data, t);
		free(data);
		data = NULL;
	}
	ret = file_read(t->aml, &data, &len);
	if (!ret)
		ret = acpi_header_parse(data, len, t, &why);
	if (ret) {
		err_set(err, "ACPI table '%s': %s", src, why ? why : strerror(-ret));
		ret = -EINVAL;
		goto out;
	}
	sha256_file(t->aml, t->sha256);
	t->cpio_name = xasprintf(ACPI_CPIO_DIR "/%02zu-%s.aml", i, t->signature);
	for (char *c = t->cpio_name + strlen(ACPI_CPIO_DIR); *c; c++)
		*c = (char)tolower(*c);
out:
	free(why);
	free(data);
	free(prefix);
	free(name);
	return ret;
}

int acpi_prepare(const char *iasl, const char *const *files, size_t n, const char *dir,
		 struct acpi_set *set, char **err)
{
	int ret = 0;

	memset(set, 0, sizeof(*set));
	if (!n)
		return 0;
	ret = mkdir_p(dir, 0755);
	if (ret) {
		err_set(err, "cannot create '%s': %s", dir, strerror(-ret));
		return ret;
	}
	set->t = xzalloc(n * sizeof(*set->t));
	for (size_t i = 0; i < n && !ret; i++, set->n++)
		ret = prepare_one(iasl, files[i], i, dir, &set->t[i], err);
	if (ret)
		acpi_set_release(set);
	return ret;
}

void acpi_expect_parse(const char *text, struct acpi_table *t)
{
	static const char key[] = "netlab-expect-irq:";

	for (const char *p = text; (p = strstr(p, key));) {
		const char *nl = strchrnul(p, '\n');
		char *line = xasprintf("%.*s", (int)(nl - p - strlen(key)), p + strlen(key));
		char *rest = line, *tok, *end;
		unsigned long irq;

		p = nl;
		tok = strtok_r(rest, " \t*/", &end);
		if (!tok || parse_uint(tok, 0, 4095, &irq)) {
			free(line);
			continue;
		}
		while ((tok = strtok_r(NULL, " \t*/,", &end))) {
			t->expect = xrealloc_array(t->expect, t->n_expect + 1, sizeof(*t->expect));
			t->expect[t->n_expect].irq = (unsigned int)irq;
			t->expect[t->n_expect++].action = xstrdup(tok);
		}
		free(line);
	}
}

void acpi_set_release(struct acpi_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		for (size_t e = 0; e < set->t[i].n_expect; e++)
			free(set->t[i].expect[e].action);
		free(set->t[i].expect);
		free(set->t[i].source);
		free(set->t[i].aml);
		free(set->t[i].cpio_name);
	}
	free(set->t);
	memset(set, 0, sizeof(*set));
}

int acpi_validate(const char *const *files, size_t n, char **err)
{
	char dir[] = "/tmp/netlab-acpi-XXXXXX";
	struct acpi_set set;
	int ret;

	if (!n)
		return 0;
	if (!mkdtemp(dir)) {
		err_set(err, "cannot create '%s': %s", dir, strerror(errno));
		return -errno;
	}
	ret = acpi_prepare(NULL, files, n, dir, &set, err);
	acpi_set_release(&set);
	rm_rf(dir);
	/* The hint's log went with the directory. */
	if (ret == -EINVAL && err && *err && strstr(*err, "\nhint: fix it;")) {
		char *e = *err;

		*strstr(e, "\nhint: fix it;") = '\0';
		*err = xasprintf("%s\nhint: fix it; 'iasl FILE' shows iasl's whole output", e);
		free(e);
	}
	return ret;
}

int acpi_cpio_add(const struct acpi_set *set, struct cpio *c, char **err)
{
	if (!set || !set->n)
		return 0;
	cpio_add_dir(c, "kernel", 0755);
	cpio_add_dir(c, "kernel/firmware", 0755);
	cpio_add_dir(c, ACPI_CPIO_DIR, 0755);
	for (size_t i = 0; i < set->n; i++) {
		char *data;
		size_t len;
		int ret = file_read(set->t[i].aml, &data, &len);

		if (ret) {
			err_set(err, "cannot read '%s': %s", set->t[i].aml, strerror(-ret));
			return ret;
		}
		cpio_add_file(c, set->t[i].cpio_name, 0644, data, len);
		free(data);
	}
	return 0;
}

/* ---- the console --------------------------------------------------------- */

static void trim_copy(char *dst, const char *src, size_t n)
{
	while (n && *src == ' ')
		src++, n--;
	while (n && src[n - 1] == ' ')
		n--;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void push_str(char ***v, size_t *n, const char *s, size_t len)
{
	*v = xrealloc_array(*v, *n + 1, sizeof(**v));
	(*v)[(*n)++] = xasprintf("%.*s", (int)len, s);
}

/* "...Table Upgrade: override [DSDT-BOCHS -BXPC    ]": fields are %4.4s-%6.6s-%8.8s. */
static void parse_upgrade(struct acpi_console *c, const char *l, size_t len, const char *at)
{
	const char *kind = at + strlen("Table Upgrade: ");
	const char *br = memchr(kind, '[', (size_t)(l + len - kind));
	size_t klen = strcspn(kind, " [");
	struct acpi_upgrade u = { 0 };
	const char *start = strstr(l, "] ");

	if (!br || l + len - br < 1 + 4 + 1 + 6 + 1 + 8 + 1 || br[5] != '-' || br[12] != '-' ||
	    br[21] != ']')
		return;
	trim_copy(u.action, kind, klen < sizeof(u.action) ? klen : sizeof(u.action) - 1);
	trim_copy(u.signature, br + 1, 4);
	trim_copy(u.oem_id, br + 6, 6);
	trim_copy(u.oem_table_id, br + 13, 8);
	/* Without the "[    0.018099] " timestamp. */
	start = start && start < at ? start + 2 : l;
	u.line = xasprintf("%.*s", (int)(l + len - start), start);
	c->up = xrealloc_array(c->up, c->n_up + 1, sizeof(*c->up));
	c->up[c->n_up++] = u;
}

void acpi_console_parse(const char *console, struct acpi_console *out)
{
	memset(out, 0, sizeof(*out));
	for (const char *l = console; l && *l;) {
		const char *nl = strchrnul(l, '\n'), *at;
		size_t len = (size_t)(nl - l);
		char *line = xasprintf("%.*s", (int)len, l);

		if (len && line[len - 1] == '\r')
			line[--len] = '\0';
		if ((at = strstr(line, "Table Upgrade: ")))
			parse_upgrade(out, line, len, at);
		else if ((at = strstr(line, "ACPI table found in initrd [")))
			push_str(&out->found, &out->n_found, at + 28, strcspn(at + 28, "]"));
		else if ((at = strstr(line, "ACPI OVERRIDE: ")))
			push_str(&out->errors, &out->n_errors, at, strlen(at));
		free(line);
		l = *nl ? nl + 1 : nl;
	}
}

void acpi_console_release(struct acpi_console *c)
{
	for (size_t i = 0; i < c->n_up; i++)
		free(c->up[i].line);
	for (size_t i = 0; i < c->n_found; i++)
		free(c->found[i]);
	for (size_t i = 0; i < c->n_errors; i++)
		free(c->errors[i]);
	free(c->up);
	free(c->found);
	free(c->errors);
	memset(c, 0, sizeof(*c));
}

bool acpi_table_taken(const struct acpi_table *t, const struct acpi_console *c,
		      const char **how)
{
	char oem_id[7], table_id[9];

	trim_copy(oem_id, t->oem_id, strlen(t->oem_id));
	trim_copy(table_id, t->oem_table_id, strlen(t->oem_table_id));
	for (size_t i = 0; i < c->n_up; i++) {
		const struct acpi_upgrade *u = &c->up[i];

		if (!strcmp(u->signature, t->signature) && !strcmp(u->oem_id, oem_id) &&
		    !strcmp(u->oem_table_id, table_id)) {
			if (how)
				*how = u->action;
			return true;
		}
	}
	return false;
}

/* ---- /proc/interrupts ------------------------------------------------------ */

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static char *token(const char **p)
{
	const char *s = skip_ws(*p), *e = s;

	while (*e && *e != ' ' && *e != '\t' && *e != '\n')
		e++;
	*p = e;
	return e > s ? xasprintf("%.*s", (int)(e - s), s) : NULL;
}

static void irq_line_clear(struct acpi_irq_line *l)
{
	free(l->irq);
	free(l->chip);
	free(l->hwirq);
	for (size_t a = 0; a < l->n_actions; a++)
		free(l->actions[a]);
	free(l->actions);
	memset(l, 0, sizeof(*l));
}

/* One "IRQ: counts... chip hwirq actions" line; false when it has no handler. */
static bool irq_line(const char *l, unsigned int ncpu, struct acpi_irq_line *out)
{
	const char *p = strchr(l, ':'), *end;
	char *acts;

	memset(out, 0, sizeof(*out));
	if (!p || !isdigit((unsigned char)*skip_ws(l)))
		return false;
	out->irq = xasprintf("%.*s", (int)(p - skip_ws(l)), skip_ws(l));
	p++;
	for (unsigned int i = 0; i < ncpu; i++) {
		p = skip_ws(p);
		if (!isdigit((unsigned char)*p))
			goto none;
		while (isdigit((unsigned char)*p))
			p++;
	}
	out->chip = token(&p);
	out->hwirq = token(&p);
	p = skip_ws(p);
	end = strchrnul(p, '\n');
	while (end > p && (end[-1] == ' ' || end[-1] == '\r'))
		end--;
	if (!out->chip || !out->hwirq || end == p)
		goto none;
	acts = xasprintf("%.*s", (int)(end - p), p);
	for (char *s = acts, *tok; (tok = strsep(&s, ","));) {
		tok = (char *)skip_ws(tok);
		if (*tok)
			push_str(&out->actions, &out->n_actions, tok, strlen(tok));
	}
	free(acts);
	if (out->n_actions)
		return true;
none:
	irq_line_clear(out);
	return false;
}

void acpi_irq_parse(const char *text, struct acpi_irq_line **lines, size_t *n)
{
	unsigned int ncpu = 0;
	const char *l = text;

	*lines = NULL;
	*n = 0;
	if (!text)
		return;
	/* The header names one column per CPU. */
	for (const char *p = text, *nl = strchrnul(text, '\n'); (p = strstr(p, "CPU")) && p < nl;
	     p += 3)
		ncpu++;
	l = strchr(text, '\n');
	while (l && *++l) {
		struct acpi_irq_line one;

		if (irq_line(l, ncpu, &one)) {
			*lines = xrealloc_array(*lines, *n + 1, sizeof(**lines));
			(*lines)[(*n)++] = one;
		}
		l = strchr(l, '\n');
	}
}

void acpi_irq_release(struct acpi_irq_line *lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		irq_line_clear(&lines[i]);
	free(lines);
}

const struct acpi_irq_line *acpi_irq_find(const struct acpi_irq_line *lines, size_t n,
					  const char *action)
{
	for (size_t i = 0; i < n; i++)
		for (size_t a = 0; a < lines[i].n_actions; a++)
			if (!strcmp(lines[i].actions[a], action))
				return &lines[i];
	return NULL;
}

/* ---- the report ------------------------------------------------------------ */

static struct json_object *json_strs(char *const *v, size_t n)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

static struct json_object *json_table(const struct acpi_table *t, const struct acpi_console *c)
{
	struct json_object *o = json_object_new_object();
	const char *how = NULL;
	bool taken = acpi_table_taken(t, c, &how);

	json_object_object_add(o, "source", json_object_new_string(t->source));
	json_object_object_add(o, "aml", json_object_new_string(t->aml));
	json_object_object_add(o, "initrd_name", json_object_new_string(t->cpio_name));
	json_object_object_add(o, "signature", json_object_new_string(t->signature));
	json_object_object_add(o, "oem_id", json_object_new_string(t->oem_id));
	json_object_object_add(o, "oem_table_id", json_object_new_string(t->oem_table_id));
	json_object_object_add(o, "revision", json_object_new_int(t->revision));
	json_object_object_add(o, "oem_revision", json_object_new_int64(t->oem_revision));
	json_object_object_add(o, "length", json_object_new_int64(t->length));
	json_object_object_add(o, "sha256", json_object_new_string(t->sha256));
	json_object_object_add(o, "taken", json_object_new_boolean(taken));
	json_object_object_add(o, "how", how ? json_object_new_string(how) : NULL);
	return o;
}

static struct json_object *json_irqs(const struct acpi_irq_line *l, size_t n, bool shared_only)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++) {
		struct json_object *o;

		if (shared_only && l[i].n_actions < 2)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "irq", json_object_new_int(atoi(l[i].irq)));
		if (!shared_only) {
			json_object_object_add(o, "chip", json_object_new_string(l[i].chip));
			json_object_object_add(o, "hwirq", json_object_new_string(l[i].hwirq));
		}
		json_object_object_add(o, "actions", json_strs(l[i].actions, l[i].n_actions));
		json_object_array_add(a, o);
	}
	return a;
}

/*
 * Each table's netlab-expect-irq lines against the guest's IRQ lines. Not
 * checked when the guest left no /proc/interrupts (the command never ran).
 */
static struct json_object *json_expect(const struct acpi_set *set,
				       const struct acpi_irq_line *irqs, size_t n_irqs,
				       bool have, bool *all_ok, char **why)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < set->n; i++) {
		for (size_t e = 0; e < set->t[i].n_expect; e++) {
			const struct acpi_expect *x = &set->t[i].expect[e];
			const struct acpi_irq_line *l = acpi_irq_find(irqs, n_irqs, x->action);
			struct json_object *o = json_object_new_object();
			bool ok = l && (unsigned int)atoi(l->irq) == x->irq;

			json_object_object_add(o, "action", json_object_new_string(x->action));
			json_object_object_add(o, "irq", json_object_new_int((int)x->irq));
			json_object_object_add(o, "found", l ? json_object_new_int(atoi(l->irq)) : NULL);
			json_object_object_add(o, "ok", have ? json_object_new_boolean(ok) : NULL);
			json_object_array_add(a, o);
			if (!have || ok || !*all_ok)
				continue;
			*all_ok = false;
			err_set(why, "ACPI table from '%s' routes '%s' to IRQ %u, but the guest has it %s%s\nhint: the kernel took the table but routed otherwise; the table may not match this QEMU's machine or devices (see acpi.json and console.log)",
				set->t[i].source, x->action, x->irq, l ? "on IRQ " : "on no IRQ line",
				l ? l->irq : "");
		}
	}
	return a;
}

/* Why `t` was not taken, from what the kernel did say. */
static char *not_taken_why(const struct acpi_table *t, const struct acpi_console *c)
{
	const char *name = t->cpio_name;
	bool found = false;

	for (size_t i = 0; i < c->n_found; i++)
		found |= !strcmp(c->found[i], name);
	for (size_t i = 0; i < c->n_errors; i++)
		if (strstr(c->errors[i], name))
			return xasprintf("the kernel rejected it: %s", c->errors[i]);
	if (!found)
		return xasprintf("the kernel never saw %s in the initrd\nhint: the kernel needs CONFIG_ACPI_TABLE_UPGRADE=y (kconfigs/trace.config)",
				 name);
	return xasprintf("the kernel saw it but kept the firmware's table\nhint: to replace a table, its OEM ID and OEM table ID must equal the firmware's (QEMU's: \"BOCHS \"/\"BXPC    \") and its OEM revision must be higher; a table made for another QEMU version, machine or device set may differ (see console.log: 'ACPI: %s')",
			 t->signature);
}

void *acpi_report(const struct acpi_set *set, const char *console, const char *interrupts,
		  bool *all_taken, char **why)
{
	struct json_object *o = json_object_new_object(), *tables = json_object_new_array();
	struct json_object *kl = json_object_new_array();
	struct acpi_irq_line *irqs;
	struct acpi_console c;
	size_t n_irqs, taken = 0;

	acpi_console_parse(console, &c);
	*all_taken = true;
	for (size_t i = 0; i < set->n; i++) {
		const struct acpi_table *t = &set->t[i];

		json_object_array_add(tables, json_table(t, &c));
		if (acpi_table_taken(t, &c, NULL)) {
			taken++;
		} else if (*all_taken) {
			char *w = not_taken_why(t, &c);

			*all_taken = false;
			err_set(why, "ACPI table %s \"%s\" \"%s\" rev %u from '%s' was not taken: %s",
				t->signature, t->oem_id, t->oem_table_id, t->oem_revision, t->source,
				w);
			free(w);
		}
	}
	json_object_object_add(o, "tables", tables);
	json_object_object_add(o, "given", json_object_new_int((int)set->n));
	json_object_object_add(o, "taken", json_object_new_int((int)taken));
	for (size_t i = 0; i < c.n_up; i++)
		json_object_array_add(kl, json_object_new_string(c.up[i].line));
	json_object_object_add(o, "kernel_lines", kl);
	json_object_object_add(o, "initrd_files_seen", json_strs(c.found, c.n_found));
	json_object_object_add(o, "errors", json_strs(c.errors, c.n_errors));
	acpi_irq_parse(interrupts, &irqs, &n_irqs);
	json_object_object_add(o, "expect", json_expect(set, irqs, n_irqs, interrupts != NULL,
						      all_taken, why));
	json_object_object_add(o, "interrupts", interrupts ? json_irqs(irqs, n_irqs, false) : NULL);
	json_object_object_add(o, "shared", interrupts ? json_irqs(irqs, n_irqs, true) : NULL);
	acpi_irq_release(irqs, n_irqs);
	acpi_console_release(&c);
	return o;
}
