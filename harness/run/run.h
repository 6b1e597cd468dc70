/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One run: a fresh guest boots, runs one command, powers off, and leaves a
 * run directory behind (see README, "Run directory").
 */
#ifndef NETLAB_RUN_H
#define NETLAB_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "run/result.h"
#include "vm/vmcfg.h"

enum run_stream {
	RUN_STDOUT,
	RUN_STDERR,
	RUN_CONSOLE,
};

struct vm_backend_ops;

struct run_opts {
	const char *exec;		/* shell command for the guest (VM 0) */
	const char *peer_exec;		/* pair: VM 1's command; NULL = idle until VM 0 ends */
	const char *kernel;		/* bzImage */
	const char *peer_kernel;	/* pair: VM 1's bzImage; NULL = kernel */
	const char *initrd;		/* base initramfs */
	const char *modules;		/* lib/modules/VERSION to load from (boot/kmod.h); NULL: none */
	const char *qemu;		/* QEMU binary */
	const char *out;		/* run directory (created; must be empty) */
	const char *topology;
	const char *append;		/* extra kernel command line */
	const char *nic_model[VM_MAX_NICS];	/* by label, NULL = topology default */
	const char *const *job_lines;	/* extra job lines ("sysctl.NAME=VALUE") */
	size_t n_job_lines;
	/* ACPI tables (.asl/.dsl compiled with iasl, .aml as is) for every VM's
	 * initrd table upgrade; see harness/boot/acpi.h and RUN_DIR/acpi.json. */
	const char *const *acpi;
	size_t n_acpi;
	/* --share directories (virtio-9p) and --add files (an initrd cpio after
	 * the base initramfs), parsed and checked (vm/share.h); borrowed. */
	const struct vm_share *shares;
	size_t n_shares;
	const struct vm_share *adds;
	size_t n_adds;
	enum vm_accel accel;
	unsigned int timeout_s;
	unsigned int mem_mb;
	unsigned int smp;
	unsigned int vm_smp[VM_MAX_VMS];	/* a pair's VM i: its vCPUs; 0 = smp */
	/* Bytes kept of each frame in the NIC captures (QEMU filter-dump
	 * maxlen); 0 = whole frames. Default RUN_SNAPLEN. */
	unsigned int snaplen;
	int icount_shift;		/* -1 = off */
	/* How VMs are started (vm/backend.h: vm_backend_lookup()); run_opts_init()
	 * sets vm_backend_default(). */
	const struct vm_backend_ops *backend;
	const char *connect;		/* its connection (default_uri op); NULL = its default */
	const char *domain_name;	/* libvirt domain name (prefix for pairs); NULL = generated */
	/* Live output: stdout/stderr of the command, console if asked. */
	void (*on_output)(void *ctx, enum run_stream s, const char *buf, size_t n);
	void *ctx;
	bool stream_console;
	/* netlab gdb and --record: gdbstub, -S, record/replay (vmcfg.h). With
	 * record, each recorded VM's directory gets replay.bin, replay.qcow2 and
	 * replay.argv (the QEMU command line that replays it, see gdb.h). */
	struct vm_debug debug;
	/* Called (with ctx) once every VM is spawned, then on each turn of the
	 * run loop (about every 100 ms); NULL = none. */
	void (*on_spawned)(void *ctx);
	void (*on_tick)(void *ctx);
};

/*
 * Headers, and every payload byte netlab's filters read (the generators'
 * marker at UDP payload offset 0..5, IPv6 with extension headers): a bulk
 * TCP run's two captures measured 207 MB each with whole frames.
 */
#define RUN_SNAPLEN 256
/* The most a loaded host stretches a run's timeout: this many times it (run.c run_deadline()). */
#define RUN_LOAD_GRACE 3

/* Defaults: the default backend, loop topology, auto accel, 300 s, 256 MiB, 1 CPU, RUN_SNAPLEN. */
void run_opts_init(struct run_opts *o);

/*
 * Boot, run and classify. Returns 0 with *res filled whatever the verdict,
 * -EINVAL for bad input (exit 2; an ACPI source iasl rejects is one), or
 * another -errno when the run could not be set up (-ENOENT: no iasl); *err
 * says what and why. ACPI tables the kernel did not take make the verdict
 * infra-error: the run could not test what it was asked to. A non-NULL `stop` flag (set from a
 * signal handler) ends the run early with verdict "interrupted".
 */
int run_execute(const struct run_opts *o, volatile sig_atomic_t *stop, struct run_result *res,
		char **err);

/*
 * run_space_estimate() - about how many bytes a run of `o` writes into its
 * run directory: per VM, its initrd copy and RUN_SPACE_PER_VM for the
 * captures, files.tar and what is unpacked from it (measured: at most 77 MB
 * besides the initrd, a bulk TCP run's two 256-byte-snaplen captures). run_execute() refuses
 * to start with less free (and ends a run whose file system fills up);
 * netlab regress asks for it times the runs of a suite before any boots.
 */
#define RUN_SPACE_PER_VM (96ULL << 20)
unsigned long long run_space_estimate(const struct run_opts *o);

/*
 * run_print_xml() - what each VM of `o` would be created from, as
 * run_execute() would start it (libvirt: the domain XML, staged paths in the
 * staging pool): the backend's describe op. 0, or -EINVAL with *err (also
 * when o->backend has no describe op: "--print-xml needs --backend ...").
 */
int run_print_xml(const struct run_opts *o, struct sbuf *out, char **err);

/*
 * RUN_SOCK_TAIL - the longest path of a unix socket netlab makes in a run
 * directory: the QMP socket (gdb.sock is as long). A run with two VMs puts
 * each VM's in its subdirectory (run_vm_name()): RUN_SOCK_BELOW_VMS, which
 * its callers give run_dir_check() as (the end of) @below. A unix socket
 * path is shorter than RUN_SUN_PATH bytes (sun_path, with its NUL).
 */
#define RUN_SOCK_TAIL "/qmp.sock"
#define RUN_SOCK_BELOW_VMS "/vm-b"
#define RUN_SUN_PATH 108
/* RUN_SOCK_BELOW_VMS when @topology (a name, NULL = loop) has two VMs, else "". */
const char *run_sock_below(const char *topology);

/*
 * run_dir_check() - whether @dir can hold runs, before anything is made
 * @what: how the user gave it ("--out"), for the message
 * @dir: the directory
 * @below: what a command puts between @dir and a run's own directory
 *         ("/SCENARIO/run-1"), its longest; NULL when @dir is the run's
 *
 * Refused: a ',' or '=' (QEMU's option syntax, qemu_sock_path_check()), a
 * file where a directory goes, and a path whose longest unix socket
 * (@dir @below RUN_SOCK_TAIL) would not fit sun_path. Return: 0, or -EINVAL
 * with *err naming @what, the path, the limit and what to do.
 */
int run_dir_check(const char *what, const char *dir, const char *below, char **err);

/* Subdirectory of the run directory of VM `vm` in multi-VM topologies. */
const char *run_vm_name(unsigned int vm);
/*
 * run_recording_dir() - where the run directory `dir` keeps a recording
 * (replay.argv): `dir` itself (one VM), else its last VM directory that has
 * one (vm-b before vm-a: the receiver of a pair). NULL when none does.
 * Caller frees.
 */
char *run_recording_dir(const char *dir);

/* The VM configuration run_execute() will use for `o` (topology set up). */
int run_config(const struct run_opts *o, struct vm_config *cfg, char **err);

/*
 * Resolve o->accel as o->backend's accel op does (the direct backend: TCG
 * unless /dev/kvm opens *and* a short probe boot of o's kernel and initrd
 * under KVM completes; the verdict is cached per host kernel and QEMU
 * binary), without opening it. `why` (owned by the caller) says how the
 * choice was made; run_execute() resolves through the backend it opens.
 */
int accel_resolve(const struct run_opts *o, enum vm_accel *out, char **why, char **err);

/*
 * run_unpack_files() - DIR/files.tar (what the guest left in /netlab/out)
 * into DIR/files/, with tar run from an argv (no shell).
 * Return: 0; -ENOENT without a files.tar; -EIO when tar fails; -errno.
 */
int run_unpack_files(const char *dir);

#endif /* NETLAB_RUN_H */
