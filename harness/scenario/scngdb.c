// SPDX-License-Identifier: GPL-2.0
/*
 * A scenario's guest under gdb (scenario/scngdb.h): the run netlab gdb
 * SCENARIO.scn starts, paused for gdb. Moved out of cmd/cmd-gdb.c.
 */
#include "scenario/scngdb.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/scenario.h"
#include "scenario/scnrun.h"
#include "vm/share.h"
#include "vm/vm.h"

struct scn_session {
	struct scenario *scn;
	struct vm_config cfg;
	char *script[VM_MAX_VMS];
	char **job_lines;
	char *append;
	char *sock;
	struct vm_share *shares;	/* the scenario's and --share's (share_merge()) */
	size_t n_shares;
};

static int load_scenario(const struct gdb_opts *o, struct scn_session *ss, struct run_opts *ro,
			 char **err)
{
	struct scenario *s;
	int ret = scn_parse(o->target, &ss->scn, err);

	if (ret)
		return -EINVAL;
	s = ss->scn;
	ss->append = scn_kernel_append(s);
	ss->job_lines = xzalloc((s->n_sysctl + 1) * sizeof(char *));
	for (size_t i = 0; i < s->n_sysctl; i++)
		ss->job_lines[i] = xasprintf("sysctl.%s=%s", s->sysctl[i].key, s->sysctl[i].value);
	ro->topology = s->topo->name;
	for (int i = 0; i < VM_MAX_NICS; i++)
		ro->nic_model[i] = s->nic_model[i] ? s->nic_model[i]->name : NULL;
	ro->append = ss->append;
	ro->timeout_s = o->timeout_s ? o->timeout_s : o->batch ? s->timeout_s + 120 : 86400;
	if (s->mem_mb)
		ro->mem_mb = s->mem_mb;
	ro->icount_shift = s->deterministic ? 3 : -1;
	ro->job_lines = (const char *const *)ss->job_lines;
	ro->n_job_lines = s->n_sysctl;
	ro->acpi = (const char *const *)s->acpi;
	ro->n_acpi = s->n_acpi;
	ret = share_merge(s->shares, s->n_shares, o->shares, o->n_shares, o->adds, o->n_adds,
			  &ss->shares, &ss->n_shares, err);
	if (ret)
		return -EINVAL;
	ro->shares = ss->shares;
	ro->n_shares = ss->n_shares;
	ro->adds = o->adds;
	ro->n_adds = o->n_adds;
	if (run_config(ro, &ss->cfg, err))
		return -EINVAL;
	for (unsigned int vm = 0; vm < ss->cfg.topo->n_vms; vm++) {
		struct sbuf b;

		sbuf_init(&b);
		ret = scnrun_script(s, &ss->cfg, vm, &b, err);
		ss->script[vm] = sbuf_detach(&b);
		if (ret)
			return -EINVAL;
	}
	ro->exec = ss->script[0];
	ro->peer_exec = ss->script[1];
	return 0;
}

static void scn_session_release(struct scn_session *ss)
{
	for (size_t i = 0; ss->scn && i < ss->scn->n_sysctl; i++)
		free(ss->job_lines[i]);
	free(ss->job_lines);
	for (int i = 0; i < VM_MAX_VMS; i++)
		free(ss->script[i]);
	free(ss->append);
	free(ss->sock);
	free(ss->shares);
	scn_free(ss->scn);
}

/* The VM to debug: --vm, else the one with a NIC gdb has helpers for (nicmodel.h), else VM a. */
static unsigned int pick_vm(const struct gdb_opts *o, const struct vm_config *cfg)
{
	return o->vm >= 0 ? (unsigned int)o->vm : vm_gdb_default(cfg);
}

int scngdb_run(struct gdb_sess *s, struct run_result *res, char **err)
{
	const struct gdb_opts *o = s->o;
	struct scn_session ss = { 0 };
	struct run_opts ro;
	unsigned int vm;
	int ret;

	run_opts_init(&ro);
	ro.kernel = o->kernel;
	ro.initrd = o->initrd;
	ro.modules = o->modules;	/* NULL: none */
	if (o->qemu)
		ro.qemu = o->qemu;
	ret = load_scenario(o, &ss, &ro, err);
	if (ret)
		goto out;
	vm = pick_vm(o, &ss.cfg);
	if (vm >= ss.cfg.topo->n_vms) {
		err_set(err, "--vm %c: topology '%s' has one VM", 'a' + vm, ss.cfg.topo->name);
		ret = -EINVAL;
		goto out;
	}
	ret = gdb_sess_dir(s, o->out, err);
	if (ret)
		goto out;
	ro.out = s->dir;
	if (ss.cfg.topo->n_vms > 1) {
		free(s->qmp);
		s->qmp = xasprintf("%s/%s/qmp.sock", s->dir, run_vm_name(vm));
	}
	ss.sock = xasprintf("%s/gdb.sock", s->dir);
	ro.debug.gdb_socket = ss.sock;
	ro.debug.gdb_vm = vm;
	ro.debug.paused = true;
	ro.debug.rr = o->record ? VM_RR_RECORD : VM_RR_OFF;
	ro.debug.rr_vm = (int)vm;	/* the VM under gdb */
	ro.on_spawned = gdb_sess_spawn;
	ro.on_tick = gdb_sess_tick;
	ro.ctx = s;
	ret = run_execute(&ro, NULL, res, err);
out:
	scn_session_release(&ss);
	return ret;
}
