// SPDX-License-Identifier: GPL-2.0
/*
 * The libvirt backend's table (vm/backend.h): the VMs of a run as transient
 * domains of one connection (libvirt.h), named and wired here.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vm/backend.h"
#include "vm/libvirt.h"

struct lv_backend {
	struct vm_backend b;
	const struct vm_config *cfg;
	struct lv_conn *conn;
	char *uri;
	char *names[VM_MAX_VMS];		/* each VM's domain name */
	unsigned int udp_port[VM_MAX_NICS];	/* pair wiring */
};

struct lv_inst {
	struct vm_inst i;
	struct lv_vm *lv;
	const char *name;		/* the backend's */
	char *qemu_log;			/* VM_DIR/qemu.log, where collect() notes a failure */
};

#define LB(b) ((struct lv_backend *)((char *)(b) - offsetof(struct lv_backend, b)))
#define LI(v) ((struct lv_inst *)((char *)(v) - offsetof(struct lv_inst, i)))

/*
 * TCG (domain type 'qemu') unless --accel kvm. netlab does not probe KVM
 * on a libvirt host; record/replay is the direct backend's.
 */
static int lvb_accel(const struct vm_backend_args *a, const struct vm_config *cfg,
		     enum vm_accel *out, char **why, char **err)
{
	if (cfg->debug.rr != VM_RR_OFF) {
		err_set(err, "record/replay runs only with the direct QEMU backend\n"
			     "hint: drop --backend libvirt to use --record");
		return -EINVAL;
	}
	*out = a->accel == VM_ACCEL_KVM ? VM_ACCEL_KVM : VM_ACCEL_TCG;
	*why = xstrdup(a->accel == VM_ACCEL_KVM ? "libvirt backend: domain type 'kvm' (--accel kvm)"
						: "libvirt backend: domain type 'qemu' (TCG); --accel kvm "
						  "asks for 'kvm', netlab does not probe a libvirt host");
	return 0;
}

/*
 * Each VM's domain name (the prefix alone for one VM, PREFIX-a and
 * PREFIX-b for two) and, for a pair, the UDP ports that wire NIC A to NIC B
 * on the libvirt host (an even port in 20000..59999 picked per run).
 */
static void lv_names(const char *domain_name, unsigned int n_vms, char *names[VM_MAX_VMS],
		     unsigned int udp_port[VM_MAX_NICS])
{
	char *prefix = domain_name ? xstrdup(domain_name) : lv_default_name();
	unsigned int base;

	for (unsigned int i = 0; i < n_vms; i++)
		names[i] = n_vms > 1 ? xasprintf("%s-%c", prefix, 'a' + i) : xstrdup(prefix);
	free(prefix);
	base = 20000 + (((unsigned int)getpid() * 2654435761u ^ (unsigned int)(now_s() * 1e3)) % 20000) * 2;
	for (unsigned int i = 0; i < VM_MAX_NICS; i++)
		udp_port[i] = base + i;
}

static void lv_backend_free(struct lv_backend *lb)
{
	lv_close(lb->conn);
	for (unsigned int i = 0; i < VM_MAX_VMS; i++)
		free(lb->names[i]);
	free(lb->uri);
	free(lb);
}

static int lvb_open(const struct vm_backend_args *a, struct vm_config *cfg, struct vm_backend **out,
		    char **why, char **err)
{
	struct lv_backend *lb;
	int ret;

	/* The ports are streams: the guest waits for netlab to drain them. */
	cfg->host_ack = true;
	ret = lvb_accel(a, cfg, &cfg->accel, why, err);
	if (ret)
		return ret;
	lb = xzalloc(sizeof(*lb));
	lb->b.ops = &vm_backend_libvirt;
	lb->cfg = cfg;
	lb->uri = xstrdup(a->connect ? a->connect : lv_default_uri());
	ret = lv_open(lb->uri, &lb->conn, err);
	if (ret) {
		lv_backend_free(lb);
		return ret;
	}
	lv_names(a->domain_name, cfg->topo->n_vms, lb->names, lb->udp_port);
	*out = &lb->b;
	return 0;
}

static int lvb_start(struct vm_backend *b, unsigned int vm, struct vm_inst **out, char **err)
{
	struct lv_backend *lb = LB(b);
	const struct vm_config *cfg = lb->cfg;
	struct lv_vm_opts lo = {
		.cfg = cfg,
		.vm = vm,
		.name = lb->names[vm],
		.kernel = vm == 1 && cfg->peer_kernel ? cfg->peer_kernel : cfg->kernel,
		.initrd = cfg->vm_initrd[vm] ? cfg->vm_initrd[vm] : cfg->initrd,
		.local_dir = vm_dir(cfg, vm),
		.paused = cfg->debug.paused && cfg->debug.gdb_vm == vm,
		.udp_port = lb->udp_port,
	};
	struct lv_vm *lv;
	struct lv_inst *li;
	int ret = lv_vm_start(lb->conn, &lo, &lv, err);

	if (ret)
		return ret;
	li = xzalloc(sizeof(*li));
	li->i.ops = &vm_backend_libvirt;
	li->lv = lv;
	li->name = lb->names[vm];
	li->qemu_log = xasprintf("%s/qemu.log", lo.local_dir);
	*out = &li->i;
	return 0;
}

static bool lvb_wait(struct vm_inst *v, int ms)
{
	return lv_vm_wait(LI(v)->lv, ms);
}

static bool lvb_ended(const struct vm_inst *v)
{
	return lv_vm_ended(LI(v)->lv);
}

static void lvb_kill(struct vm_inst *v, int grace_ms)
{
	lv_vm_kill(LI(v)->lv);
}

static int lvb_status(const struct vm_inst *v)
{
	const struct lv_vm *lv = LI(v)->lv;

	return lv_vm_ended(lv) ? lv_vm_status(lv) : -1;
}

/* Drain the streams, bring the captures back, clear the host; a failure
 * is noted in qemu.log too. */
static int lvb_collect(struct vm_inst *v, const char *pcap_dir, char **err)
{
	struct lv_inst *li = LI(v);
	char *e = NULL;
	int ret = lv_vm_finish(li->lv, pcap_dir, &e);

	if (ret) {
		FILE *f = fopen(li->qemu_log, "a");

		if (f) {
			fprintf(f, "netlab: %s\n", e);
			fclose(f);
		}
		err_set(err, "%s", e);
	}
	free(e);
	return ret;
}

static const char *lvb_vm_name(const struct vm_inst *v)
{
	return LI(v)->name;
}

static const char *lvb_uri(const struct vm_backend *b)
{
	return LB(b)->uri;
}

static void lvb_release(struct vm_inst *v)
{
	struct lv_inst *li = LI(v);

	lv_vm_release(li->lv);
	free(li->qemu_log);
	free(li);
}

static void lvb_close(struct vm_backend *b)
{
	lv_backend_free(LB(b));
}

/* The domain XML of each VM as lvb_start() would create it (staged paths). */
static int lvb_describe(const struct vm_backend_args *a, struct vm_config *cfg, struct sbuf *out,
			char **err)
{
	char *names[VM_MAX_VMS] = { NULL }, *initrd0 = NULL;
	unsigned int udp_port[VM_MAX_NICS];
	char *why = NULL;
	int ret = lvb_accel(a, cfg, &cfg->accel, &why, err);

	free(why);
	if (ret)
		return ret;
	lv_names(a->domain_name, cfg->topo->n_vms, names, udp_port);
	for (unsigned int i = 0; !ret && i < cfg->topo->n_vms; i++) {
		struct lv_stage st = { .name = names[i], .dir = LV_POOL_DIR };
		char *kernel = lv_stage_path(&st, "kernel"), *initrd = lv_stage_path(&st, "initrd");

		st.kernel = kernel;
		st.initrd = initrd;
		memcpy(st.udp_port, udp_port, sizeof(st.udp_port));
		if (!cfg->initrd)
			cfg->initrd = initrd0 = xstrdup(initrd);
		ret = lv_domain_xml(cfg, i, &st, out, err);
		free(kernel);
		free(initrd);
	}
	if (initrd0)
		cfg->initrd = NULL;
	free(initrd0);
	for (unsigned int i = 0; i < VM_MAX_VMS; i++)
		free(names[i]);
	return ret;
}

const struct vm_backend_ops vm_backend_libvirt = {
	.name = "libvirt",
	.help = "transient libvirt domains, on this host or over --connect URI",
	.accel = lvb_accel,
	.open = lvb_open,
	.start = lvb_start,
	.wait = lvb_wait,
	.ended = lvb_ended,
	.kill = lvb_kill,
	.status = lvb_status,
	.collect = lvb_collect,
	.vm_name = lvb_vm_name,
	.uri = lvb_uri,
	.release = lvb_release,
	.close = lvb_close,
	.default_uri = lv_default_uri,
	.check = lv_check,
	.describe = lvb_describe,
};

