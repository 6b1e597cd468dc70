// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/esc.h"
#include "lib/jsonout.h"
#include "lib/provenance.h"
#include "netlab-proto.h"
#include "run/result.h"
#include "vm/backend.h"
#include "vm/vm.h"

static const char *const verdict_names[] = {
	[RV_OK] = "ok",
	[RV_FAILED] = "failed",
	[RV_TIMEOUT] = "timeout",
	[RV_PANIC] = "panic",
	[RV_BOOT_FAILURE] = "boot-failure",
	[RV_INFRA] = "infra-error",
	[RV_BAD_INPUT] = "bad-input",
	[RV_INTERRUPTED] = "interrupted",
};

const char *run_verdict_name(enum run_verdict v)
{
	return verdict_names[v];
}

/* Lines that open an oops or panic report on the console. */
static const char *const oops_openers[] = {
	"sysrq: Trigger a crash", "BUG: ", "Oops: ", "general protection fault",
	"kernel BUG at", "Kernel panic - not syncing",
};

static const char *line_start(const char *text, const char *p)
{
	while (p > text && p[-1] != '\n')
		p--;
	return p;
}

char *console_oops_excerpt(const char *console)
{
	const char *start = NULL, *end;
	const char *panic;

	if (!console)
		return NULL;
	panic = strstr(console, "Kernel panic - not syncing");
	for (size_t i = 0; i < ARRAY_SIZE(oops_openers); i++) {
		const char *p = strstr(console, oops_openers[i]);

		if (p && (!start || p < start))
			start = p;
	}
	if (!start)
		return NULL;
	start = line_start(console, start);
	end = panic ? strstr(panic, "---[ end Kernel panic") : NULL;
	if (end)
		end = strchrnul(end, '\n');
	else
		end = console + strlen(console);
	/* Bound the excerpt: an oops is rarely over 80 lines. */
	{
		const char *p = start;

		for (int n = 0; p < end && n < 80; n++)
			p = strchrnul(p, '\n') + (*strchrnul(p, '\n') ? 1 : 0);
		if (p < end)
			end = p;
	}
	return xstrndup(start, (size_t)(end - start));
}

char *text_tail(const char *text, unsigned int lines)
{
	const char *p, *end;

	if (!text)
		return xstrdup("");
	end = text + strlen(text);
	while (end > text && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	p = end;
	for (unsigned int n = 0; p > text; p--)
		if (p[-1] == '\n' && ++n == lines)
			break;
	return xstrndup(p, (size_t)(end - p));
}

static void set_reason(struct run_result *res, char *reason)
{
	free(res->reason);
	res->reason = reason;
}

static void __run_classify(const struct run_obs *obs, struct run_result *res);

/* "QEMU was killed by signal 9 (Killed)" when something else ended it; else NULL. */
static char *qemu_end(int status)
{
	if (status > 0 && WIFSIGNALED(status))
		return xasprintf("QEMU was killed by signal %d (%s)", WTERMSIG(status),
				 strsignal(WTERMSIG(status)));
	return NULL;
}

static void classify_no_exit(const struct run_obs *obs, struct run_result *res)
{
	char *tail;

	/* ("topology ok" and no exit is a guest stopped later, below.) */
	if (obs->status && strstr(obs->status, "topology error " NETLAB_NO_SYSCTL)) {
		const char *t = strstr(obs->status, NETLAB_NO_SYSCTL) + strlen(NETLAB_NO_SYSCTL);
		int n = (int)strcspn(t, "\n");

		res->verdict = RV_BAD_INPUT;
		set_reason(res, xasprintf("the guest's kernel has no sysctl '%.*s' (no /proc/sys "
					  "file of that name in any namespace)\nhint: check the name "
					  "and that the kernel is configured with it", n, t));
		return;
	}
	if (obs->status && strstr(obs->status, "topology error")) {
		const char *t = strstr(obs->status, "topology error");

		res->verdict = RV_INFRA;
		set_reason(res, xstrndup(t, strcspn(t, "\n")));
		return;
	}
	if (res->agent_started) {
		char *how = qemu_end(obs->qemu_status);

		res->verdict = RV_INFRA;
		set_reason(res, how ? xasprintf("%s while the guest ran: the command has no exit status", how)
				    : xstrdup("the guest agent stopped without an exit status"));
		free(how);
		return;
	}
	if (obs->qemu_status != 0 && (!obs->console || !*obs->console)) {
		tail = text_tail(obs->qemu_log, 3);
		res->verdict = RV_INFRA;
		set_reason(res, xasprintf("QEMU failed before the guest printed anything: %s",
					  *tail ? tail : "(no message)"));
		free(tail);
		return;
	}
	tail = text_tail(obs->console, 1);
	res->verdict = RV_BOOT_FAILURE;
	set_reason(res, xasprintf("the kernel did not reach the netlab agent; last console line: %s",
				  *tail ? tail : "(console empty)"));
	free(tail);
}

/*
 * A VM without virtio-serial ports (a recorded VM, see qemu.c) has its
 * agent say "netlab-agent: status: X" on the console instead: those lines,
 * as the status port would have carried them. NULL when there are none.
 */
static char *console_status(const char *console)
{
	static const char tag[] = "netlab-agent: status: ";
	struct sbuf b;

	if (!console || !strstr(console, "netlab-agent: no virtio-serial device"))
		return NULL;
	sbuf_init(&b);
	for (const char *p = strstr(console, tag); p; p = strstr(p + 1, tag))
		if (p == console || p[-1] == '\n')
			sbuf_addf(&b, "%.*s\n", (int)strcspn(p + sizeof(tag) - 1, "\r\n"),
				  p + sizeof(tag) - 1);
	return sbuf_detach(&b);
}

void run_classify(const struct run_obs *obs_in, struct run_result *res)
{
	struct run_obs o = *obs_in;
	const struct run_obs *obs = &o;
	char *cstatus = NULL;

	if (!o.status || !*o.status)
		o.status = cstatus = console_status(o.console);
	__run_classify(obs, res);
	free(cstatus);
}

static void __run_classify(const struct run_obs *obs, struct run_result *res)
{
	memset(res, 0, sizeof(*res));
	res->exit_status = vm_status_exit(obs->status);
	res->agent_started = vm_status_has(obs->status, "agent");
	res->oops = console_oops_excerpt(obs->console);

	if (obs->interrupted) {
		res->verdict = RV_INTERRUPTED;
		res->reason = xstrdup("interrupted by a signal");
	} else if (obs->console && strstr(obs->console, "Kernel panic - not syncing")) {
		const char *p = strstr(obs->console, "Kernel panic - not syncing");

		res->verdict = RV_PANIC;
		res->reason = xstrndup(p, strcspn(p, "\r\n"));
	} else if (obs->no_space) {
		/* Whatever the guest did next, its output could not be kept. */
		res->verdict = RV_INFRA;
		res->reason = xstrdup(obs->no_space);
	} else if (obs->transport_error) {
		res->verdict = RV_INFRA;
		res->reason = xasprintf("the run's output did not all arrive: %s", obs->transport_error);
	} else if (obs->console && strstr(obs->console, "netlab-agent: no ack from the host")) {
		res->verdict = RV_INFRA;
		res->reason = xstrdup("the guest powered off before netlab had drained its ports "
				      "(no ack within the job's wait): its output may be incomplete");
	} else if ((obs->timed_out || vm_status_has(obs->status, "timeout")) && !res->agent_started) {
		/* A kernel that hangs before userspace cannot test anything:
		 * boot-failure (125, which `git bisect run` skips), not a timeout
		 * of the command (1, "bad"). */
		char *tail = text_tail(obs->console, 1);

		res->verdict = RV_BOOT_FAILURE;
		res->reason = xasprintf("the guest did not boot to the netlab agent in time; last console line: %s",
					*tail ? tail : "(console empty)");
		free(tail);
	} else if (obs->timed_out || vm_status_has(obs->status, "timeout")) {
		res->verdict = RV_TIMEOUT;
		res->reason = xstrdup("the command did not finish in time");
	} else if (res->exit_status >= 0 && !vm_status_has(obs->status, "poweroff")) {
		/* The agent says "exit", sends files.tar, then "poweroff": without
		 * it the files (a trace.dat, send.json) may be cut. */
		char *how = qemu_end(obs->qemu_status);

		res->verdict = RV_INFRA;
		res->reason = xasprintf("%s after the command exited with status %d, before the guest "
					"had sent its files: files/ may be incomplete",
					how ? how : "QEMU ended", res->exit_status);
		free(how);
	} else if (res->exit_status >= 0) {
		res->verdict = res->exit_status ? RV_FAILED : RV_OK;
		res->reason = xasprintf("the command exited with status %d", res->exit_status);
	} else {
		classify_no_exit(obs, res);
	}
}

void run_result_release(struct run_result *res)
{
	free(res->reason);
	free(res->oops);
	res->reason = res->oops = NULL;
}

int run_result_exit_code(const struct run_result *res)
{
	switch (res->verdict) {
	case RV_OK:
	case RV_FAILED:
		return res->exit_status;
	case RV_TIMEOUT:
	case RV_PANIC:
		return NL_EXIT_FAIL;
	case RV_INTERRUPTED:
		return NL_EXIT_INTERRUPTED;
	case RV_BAD_INPUT:
		return NL_EXIT_USAGE;
	default:
		return NL_EXIT_CANNOT_TEST;
	}
}

/* Every string of result.json may come from the guest or a file: valid UTF-8 only. */
static void json_add_str(struct json_object *o, const char *k, const char *v)
{
	char *clean = v ? esc_utf8_fix(v) : NULL;

	json_object_object_add(o, k, clean ? json_object_new_string(clean) : NULL);
	free(clean);
}

static struct json_object *json_nics(const struct vm_config *cfg)
{
	struct json_object *arr = json_object_new_array();

	for (unsigned int i = 0; i < cfg->n_nics; i++) {
		const struct vm_nic *n = &cfg->nics[i];
		struct json_object *o = json_object_new_object();
		char label[2] = { n->label, 0 };
		char *pcap = xasprintf("nic-%c.pcap", n->label);

		json_add_str(o, "label", label);
		json_add_str(o, "model", n->model->name);
		json_add_str(o, "driver", n->model->driver);
		json_add_str(o, "mac", n->mac);
		json_add_str(o, "ifname", n->ifname);
		json_add_str(o, "netns", n->netns[0] ? n->netns : NULL);
		json_add_str(o, "ipv4", n->ipv4);
		json_add_str(o, "ipv6", n->ipv6);
		json_add_str(o, "pcap", pcap);
		free(pcap);
		json_object_array_add(arr, o);
	}
	return arr;
}

static struct json_object *json_meta(const struct run_meta *m)
{
	struct json_object *o = json_object_new_object();
	struct json_object *k = json_object_new_object();

	json_add_str(k, "path", m->cfg->kernel);
	json_add_str(k, "version", m->kernel_version);
	json_add_str(k, "sha256", m->kernel_sha256);
	json_add_str(k, "config_sha256", m->config_sha256);
	json_add_str(k, "release", m->kernel_release);
	json_add_str(k, "cache_key", m->kernel_cache_key);
	json_add_str(k, "source", m->kernel_source);
	json_add_str(k, "flavour", m->kernel_flavour);
	json_object_object_add(o, "kernel", k);
	/* On a connection, the VMs run that host's QEMU, not cfg->qemu. */
	if (m->cfg->qemu && !m->connect) {
		struct json_object *q = json_object_new_object();
		char *ver = NULL;

		vm_qemu_version(m->cfg->qemu, &ver);
		json_add_str(q, "path", m->cfg->qemu);
		json_add_str(q, "version", ver);
		json_object_object_add(o, "qemu", q);
		free(ver);
	}
	json_add_str(o, "accel", vm_accel_name(m->cfg->accel));
	json_add_str(o, "accel_reason", m->accel_reason);
	json_add_str(o, "backend", m->backend ? m->backend : "qemu");
	if (m->connect)
		json_add_str(o, "connect", m->connect);
	if (m->domains) {
		struct json_object *d = json_object_new_array();

		for (unsigned int i = 0; i < (m->n_vms ? m->n_vms : 1); i++)
			json_object_array_add(d, json_object_new_string(m->domains[i]));
		json_object_object_add(o, "domains", d);
	}
	json_object_object_add(o, "icount_shift", m->cfg->icount_shift < 0 ? NULL
				: json_object_new_int(m->cfg->icount_shift));
	json_add_str(o, "topology", m->cfg->topo->name);
	json_object_object_add(o, "nics", json_nics(m->cfg));
	json_add_str(o, "command", m->command);
	if (m->peer_command)
		json_add_str(o, "peer_command", m->peer_command);
	if (m->vms) {
		struct json_object *arr = json_object_new_array();

		for (unsigned int i = 0; i < m->n_vms; i++) {
			struct json_object *v = json_object_new_object();
			const struct run_result *r = &m->vms[i];

			json_add_str(v, "name", i ? "vm-b" : "vm-a");	/* run_vm_name() */
			json_add_str(v, "verdict", run_verdict_name(r->verdict));
			json_object_object_add(v, "exit_status", r->exit_status < 0 ? NULL
						: json_object_new_int(r->exit_status));
			json_add_str(v, "reason", r->reason);
			json_add_str(v, "oops", r->oops);
			json_object_array_add(arr, v);
		}
		json_object_object_add(o, "vms", arr);
	}
	json_object_object_add(o, "timeout_s", json_object_new_int((int)m->cfg->timeout_s));
	json_object_object_add(o, "boot_s", m->boot_s < 0 ? NULL : json_object_new_double(m->boot_s));
	json_object_object_add(o, "wall_s", json_object_new_double(m->wall_s));
	return o;
}

struct json_object *run_result_kernel_json(const char *dir)
{
	char *path = xasprintf("%s/result.json", dir);
	struct json_object *res = !access(path, R_OK) ? json_file_get(path) : NULL;
	struct json_object *k = NULL;

	if (res && json_object_object_get_ex(res, "kernel", &k) && json_object_is_type(k, json_type_object))
		k = json_object_get(k);
	else
		k = NULL;
	json_object_put(res);
	free(path);
	return k;
}

int run_result_write_json(const char *path, const struct run_result *res,
			  const struct run_meta *meta, char **err)
{
	struct json_object *o = json_object_new_object();
	int ret;

	provenance_add(o);
	json_add_str(o, "verdict", run_verdict_name(res->verdict));
	json_object_object_add(o, "exit_status", res->exit_status < 0 ? NULL
						 : json_object_new_int(res->exit_status));
	json_add_str(o, "reason", res->reason);
	json_add_str(o, "oops", res->oops);
	json_object_object_add(o, "agent_started", json_object_new_boolean(res->agent_started));
	if (meta) {
		struct json_object *m = json_meta(meta);

		json_object_object_foreach(m, key, val)
			json_object_object_add(o, key, json_object_get(val));
		json_object_put(m);
	}
	ret = json_file_write(path, o);
	if (ret)
		err_set(err, "cannot write '%s': %s", path, strerror(-ret));
	json_object_put(o);
	return ret;
}
