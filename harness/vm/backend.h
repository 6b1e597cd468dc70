/* SPDX-License-Identifier: GPL-2.0 */
/*
 * VM backends: how the VMs of a run are started, followed and stopped.
 * Two implement the same table: "qemu" (QEMU processes of netlab's own,
 * vm/backend-qemu.c) and "libvirt" (transient libvirt domains,
 * vm/backend-libvirt.c over vm/libvirt.h). A run opens one backend, starts
 * each VM through it and never asks which one it is.
 *
 * Both leave the same files in a VM's directory: console.log, the ports'
 * files (stdout, stderr, status, files.tar) and qemu.log; the NIC captures
 * in the run directory. The direct backend adds `cmdline`, libvirt
 * domain.xml and libvirt.log.
 *
 * Ownership: strings passed in are borrowed. A backend from open() is
 * freed by vm_backend_close(), a VM from start() by vm_inst_release().
 */
#ifndef NETLAB_VM_BACKEND_H
#define NETLAB_VM_BACKEND_H

#include <stdbool.h>

#include "lib/util.h"
#include "vm/vmcfg.h"

struct vm_backend_ops;

/* A run's open backend (libvirt: its connection). */
struct vm_backend {
	const struct vm_backend_ops *ops;
};

/* One started VM. */
struct vm_inst {
	const struct vm_backend_ops *ops;
};

/* What a run asks of its backend; all borrowed. */
struct vm_backend_args {
	enum vm_accel accel;		/* as asked: auto, kvm or tcg */
	const char *initrd;		/* base initramfs (the direct backend's KVM probe boots it) */
	const char *connect;		/* the connection's URI (default_uri op); NULL = its default */
	const char *domain_name;	/* libvirt domain name (prefix for pairs); NULL = generated */
};

/*
 * One backend: its name (--backend NAME), what it does, and its ops. The
 * table of them is vm/backend.c's backends[]; callers look one up by name
 * (vm_backend_lookup()) and ask it, never which one it is. The ops after
 * `close` are what only some backends can do: NULL = this one cannot, and
 * an option that needs one is refused (vm_backend_need()).
 */
struct vm_backend_ops {
	const char *name;
	const char *help;		/* one line: what runs the VMs */
	/*
	 * The accelerator for `a->accel` (auto, kvm or tcg) as open() will
	 * choose it for `cfg`, without opening: the direct backend probes KVM
	 * once (the verdict is cached), libvirt takes what is asked (TCG
	 * unless kvm). *why (caller frees) says how. 0, or -errno with *err.
	 */
	int (*accel)(const struct vm_backend_args *a, const struct vm_config *cfg,
		     enum vm_accel *out, char **why, char **err);
	/*
	 * Set up the backend for the VMs of `cfg` (not yet started): resolve
	 * cfg->accel from a->accel, with *why (caller frees) saying how; set
	 * what else of `cfg` the backend needs (libvirt: host_ack). `cfg` is
	 * kept: it must outlive the backend. libvirt connects here and names
	 * each VM's domain. 0, or -errno with *err.
	 */
	int (*open)(const struct vm_backend_args *a, struct vm_config *cfg, struct vm_backend **out,
		    char **why, char **err);
	/*
	 * Start VM `vm` of the configuration open() was given (kept: the
	 * caller sets its initrds and directories, vm_dir(), before). Its
	 * kernel, initrd and directory are those of `cfg`; the direct backend
	 * writes its QEMU command line into DIR/cmdline, libvirt its domain
	 * into DIR/domain.xml. 0, or -errno with *err (nothing left running).
	 */
	int (*start)(struct vm_backend *b, unsigned int vm, struct vm_inst **out, char **err);
	/* Wait up to `ms` for the VM to end; true once it has. */
	bool (*wait)(struct vm_inst *v, int ms);
	/* Whether it had ended at the last wait() or kill() (asks nobody). */
	bool (*ended)(const struct vm_inst *v);
	/* Stop it if it still runs: the direct backend SIGTERMs QEMU and
	 * SIGKILLs it after `grace_ms`; libvirt destroys the domain. */
	void (*kill)(struct vm_inst *v, int grace_ms);
	/* QEMU's wait status once ended (0: it powered off); -1 while it runs. */
	int (*status)(const struct vm_inst *v);
	/*
	 * Once ended: bring everything the VM left into its directory and the
	 * captures into `pcap_dir`, and clear what it left elsewhere. Once
	 * only (later calls do nothing). 0, or -errno with *err saying what
	 * did not come back. NULL when there is nothing to do.
	 */
	int (*collect)(struct vm_inst *v, const char *pcap_dir, char **err);
	/* The VM's name on its host (libvirt domain); NULL = it has none. */
	const char *(*vm_name)(const struct vm_inst *v);
	/*
	 * Seconds the VM's QEMU was ready to run and waited for a CPU since
	 * it started (the host's load, from the scheduler's run_delay), or a
	 * negative value when not known. NULL = never known (libvirt).
	 */
	double (*run_delay_s)(const struct vm_inst *v);
	/* Where the VMs run (libvirt URI); NULL = none to tell. */
	const char *(*uri)(const struct vm_backend *b);
	void (*release)(struct vm_inst *v);
	void (*close)(struct vm_backend *b);

	/* ---- what only some backends can do (VM_BACKEND_CAN_*) ---- */
	/*
	 * Connections (--connect URI; regress spreads a suite over several):
	 * the URI used when none is given. NULL = the backend takes none, its
	 * VMs run here, one slot (vm_backend_n_conns()).
	 */
	const char *(*default_uri)(void);
	/*
	 * Pre-flight: whether connection `uri` answers, before anything boots
	 * (regress asks each of its connections once). 0, or -errno with
	 * *err and a hint. NULL = nothing to check.
	 */
	int (*check)(const char *uri, char **err);
	/*
	 * --print-xml: what each VM of `cfg` (its topology set up) would be
	 * created from, as start() would (libvirt: each domain's XML, staged
	 * paths in the staging pool), appended to `out`; starts nothing.
	 * 0, or -EINVAL with *err.
	 */
	int (*describe)(const struct vm_backend_args *a, struct vm_config *cfg, struct sbuf *out,
			char **err);
	/*
	 * The VM's QMP socket and gdbstub are netlab's (vm/vmcfg.h struct
	 * vm_debug): a scenario's [gdb], netlab gdb and --record run on it.
	 */
	bool debug;
};

/* What an option may need of a backend: an op above that is not NULL. */
enum vm_backend_can {
	VM_BACKEND_CAN_CONNECT,		/* default_uri: --connect */
	VM_BACKEND_CAN_CHECK,		/* check */
	VM_BACKEND_CAN_DESCRIBE,	/* describe: --print-xml */
	VM_BACKEND_CAN_DEBUG,		/* debug: [gdb], --record */
};

extern const struct vm_backend_ops vm_backend_qemu;
extern const struct vm_backend_ops vm_backend_libvirt;

/* The backend named `name` ("qemu", "libvirt"), or NULL. */
const struct vm_backend_ops *vm_backend_find(const char *name);
/*
 * vm_backend_lookup() - the backend named `name`, as option `opt` gave it
 * Return: 0 and *out; -EINVAL with *err naming `opt`, `name` and, in a
 * hint, every backend with its help line (*out untouched).
 */
int vm_backend_lookup(const char *opt, const char *name, const struct vm_backend_ops **out,
		      char **err);
/* The default backend (the table's first: qemu). */
const struct vm_backend_ops *vm_backend_default(void);
/* "qemu, libvirt": for hints, in the table's order. Static storage. */
const char *vm_backend_list(void);
/* Whether `ops` can do `what`. */
bool vm_backend_can(const struct vm_backend_ops *ops, enum vm_backend_can what);
/*
 * vm_backend_need() - option `opt` needs `what` of the backend in *ops
 *
 * When *chosen is false (no --backend), *ops becomes the table's first
 * backend that can (so --connect alone means libvirt) and *chosen true.
 * Return: 0; -EINVAL when *ops cannot, with *err "OPT needs --backend X,
 * not Y" (X: those that can).
 */
int vm_backend_need(const struct vm_backend_ops **ops, bool *chosen, enum vm_backend_can what,
		    const char *opt, char **err);
/*
 * The connections runs of `ops` spread over: the `n_connect` URIs given
 * (--connect), else one, the backend's default_uri() (NULL when it takes
 * no connections: a slot of this host). vm_backend_conn_uri() is the k-th.
 */
size_t vm_backend_n_conns(const struct vm_backend_ops *ops, size_t n_connect);
const char *vm_backend_conn_uri(const struct vm_backend_ops *ops, const char *const *connect,
				size_t n_connect, size_t k);

/* ops->open(); *out stays NULL on error. */
int vm_backend_open(const struct vm_backend_ops *ops, const struct vm_backend_args *a,
		    struct vm_config *cfg, struct vm_backend **out, char **why, char **err);
/* NULL is fine. */
void vm_backend_close(struct vm_backend *b);
const char *vm_backend_uri(const struct vm_backend *b);

static inline int vm_backend_start(struct vm_backend *b, unsigned int vm, struct vm_inst **out,
				   char **err)
{
	*out = NULL;
	return b->ops->start(b, vm, out, err);
}

static inline bool vm_inst_wait(struct vm_inst *v, int ms)
{
	return v->ops->wait(v, ms);
}

static inline bool vm_inst_ended(const struct vm_inst *v)
{
	return v->ops->ended(v);
}

static inline void vm_inst_kill(struct vm_inst *v, int grace_ms)
{
	v->ops->kill(v, grace_ms);
}

static inline int vm_inst_status(const struct vm_inst *v)
{
	return v->ops->status(v);
}

static inline int vm_inst_collect(struct vm_inst *v, const char *pcap_dir, char **err)
{
	return v->ops->collect ? v->ops->collect(v, pcap_dir, err) : 0;
}

static inline const char *vm_inst_name(const struct vm_inst *v)
{
	return v->ops->vm_name ? v->ops->vm_name(v) : NULL;
}

static inline double vm_inst_run_delay_s(const struct vm_inst *v)
{
	return v->ops->run_delay_s ? v->ops->run_delay_s(v) : -1;
}

/* NULL is fine. */
void vm_inst_release(struct vm_inst *v);

/*
 * vm_boot_once() - boot VM 0 of `cfg` once with the direct backend, run
 * `exec` in it and wait for its end, at most cfg->timeout_s seconds
 *
 * For a probe (vm_accel_resolve(), vm/backend-qemu.c): `dir` (existing,
 * empty) gets the VM's files and initrd.img (the job, `exec`, then
 * `base_initrd`); cfg->rundir must be `dir`. *ok: the command exited 0 and the guest powered off in time,
 * without a kernel panic. 0 (whatever *ok), or -errno with *err when the
 * VM could not be started.
 */
int vm_boot_once(const struct vm_config *cfg, const char *base_initrd, const char *exec,
		 const char *dir, bool *ok, char **err);

/*
 * vm_accel_resolve() - the direct backend's accelerator for `want`
 * (vm/backend-qemu.c, its accel op): as asked, TCG for VM_ACCEL_AUTO with cfg->icount_shift set,
 * else TCG unless /dev/kvm opens *and* a short probe boot (vm_boot_once() of
 * cfg's kernel and `base_initrd`, without NICs) under KVM completes; that
 * verdict is cached per host kernel and QEMU binary. *why (caller frees)
 * says how the choice was made. 0, or -errno with *err when the probe could
 * not boot at all.
 */
int vm_accel_resolve(const struct vm_config *cfg, const char *base_initrd, enum vm_accel want,
		     enum vm_accel *out, char **why, char **err);

/*
 * The status port's lines (guest/netlab-proto.h): vm_status_exit() is N of
 * the first "exit N" line, or -1; vm_status_has() whether a line is `word`
 * or starts with `word` and a space.
 */
int vm_status_exit(const char *status);
bool vm_status_has(const char *status, const char *word);
/*
 * vm_status_note() - the value of the first "note KEY VALUE" line (what the
 * command's script reported on the agent's note pipe), or NULL. Caller frees.
 * vm_status_note_int() - that value as an integer in [lo, hi]: 0 and *out,
 * -ENOENT without the note, -ERANGE (with *text the value, caller frees) when
 * it is no such integer.
 */
char *vm_status_note(const char *status, const char *key);
int vm_status_note_int(const char *status, const char *key, long lo, long hi, long *out,
		       char **text);

#endif /* NETLAB_VM_BACKEND_H */
