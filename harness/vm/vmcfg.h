/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a VM is made of: NIC models, topologies, and the configuration from
 * which the QEMU command line and the guest job are derived.
 *
 * Ownership: a struct vm_config holds borrowed strings (options, paths owned
 * by the caller) and fixed-size arrays; it allocates nothing itself.
 */
#ifndef NETLAB_VMCFG_H
#define NETLAB_VMCFG_H

#include <stdbool.h>

#include "lib/util.h"
#include "nicmodel.h" /* guest/: the NIC models, shared with the agent */

#define VM_MAX_NICS 4

struct vm_nic {
	char label;			/* 'A', 'B', ... */
	const struct nic_model *model;
	char mac[18];
	char ifname[16];
	char netns[16];			/* "" = root namespace */
	char ipv4[48];
	char ipv6[64];
	unsigned int hub;		/* QEMU hub the NIC's link joins */
	unsigned int vm;		/* the VM the NIC is in (0, or 1 for pair's B) */
	/* The traffic's end on this NIC (A, B): its namespace and addresses,
	 * the NIC's own unless the topology puts the end elsewhere (a VLAN, a
	 * bridge, a tunnel, a namespace behind a veth pair). */
	char tr_netns[16];
	char tr_ipv4[48];
	char tr_ipv6[64];
};

/* Set n's traffic end to the NIC itself. */
void vm_nic_traffic_default(struct vm_nic *n);

#define VM_MAX_VMS 2

enum vm_accel {
	VM_ACCEL_AUTO,
	VM_ACCEL_KVM,
	VM_ACCEL_TCG,
};

const char *vm_accel_name(enum vm_accel a);
int vm_accel_parse(const char *s, enum vm_accel *out);

struct topology;
struct topo_data;
struct vm_share;

struct vm_config {
	const char *qemu;		/* QEMU binary */
	unsigned int qemu_version;	/* vm_qemu_version(): 100002 = 10.0.2, 0 unknown */
	enum vm_accel accel;		/* resolved: KVM or TCG */
	const char *kernel;		/* bzImage (of VM 0) */
	const char *initrd;		/* the per-run initrd (job cpio + base) of VM 0 */
	/* Multi-VM topologies (pair): per-VM overrides, NULL = the above. */
	const char *peer_kernel;	/* VM 1's kernel */
	const char *vm_initrd[VM_MAX_VMS];
	const char *vm_dir[VM_MAX_VMS];	/* VM i's console, ports, QMP; NULL = rundir */
	const char *sock_dir;		/* short directory for inter-VM unix sockets */
	const char *append;		/* extra kernel command line, may be NULL */
	const char *rundir;		/* where every artifact goes */
	unsigned int mem_mb;
	unsigned int smp;
	unsigned int vm_smp[VM_MAX_VMS];	/* VM i's vCPUs; 0 = smp (vm_smp()) */
	unsigned int timeout_s;		/* guest-side command timeout */
	unsigned int snaplen;		/* bytes kept of each captured frame, 0 = whole */
	bool host_ack;			/* job "ack": the guest waits for the host at poweroff */
	int icount_shift;		/* -icount shift (deterministic TCG), -1 = off */
	const struct topology *topo;
	/* Extra "key=value" job lines, e.g. "sysctl.net.core.rmem_max=4194304". */
	const char *const *job_lines;
	size_t n_job_lines;
	/* Host directories mounted in every VM over virtio-9p (vm/share.h). */
	const struct vm_share *shares;
	size_t n_shares;
	/* NIC models asked for on the command line, by label; NULL = default. */
	const struct nic_model *want_model[VM_MAX_NICS];
	struct vm_nic nics[VM_MAX_NICS];
	unsigned int n_nics;
	/* Debugging (netlab gdb) and record/replay; all off when zeroed. */
	struct vm_debug {
		const char *gdb_socket;	/* gdbstub on this unix socket, NULL = none */
		unsigned int gdb_vm;	/* the VM with the gdbstub */
		bool paused;		/* -S: that VM's CPU waits for gdb's continue */
		enum vm_rr { VM_RR_OFF, VM_RR_RECORD, VM_RR_REPLAY } rr;
		int rr_vm;		/* the VM recorded/replayed (-1 = every VM) */
		const char *rr_file;	/* replay log; NULL = <vm dir>/replay.bin */
		/* rrsnapshot=init in an empty qcow2 (rr_disk, NULL = <vm dir>/
		 * replay.qcow2): what reverse debugging starts from. Off by
		 * default: with QEMU 7.2 here a replay from it never starts. */
		bool rr_snapshot;
		const char *rr_disk;
	} debug;
};

/*
 * A topology: how NICs are created, wired and addressed. The "loop"
 * topology is one VM with NIC A and NIC B on one QEMU hub, B in netns "b".
 */
struct topology {
	const char *name;
	const char *desc;
	unsigned int n_vms;
	/* Fill cfg->nics from the topology and cfg->want_model. */
	int (*setup)(struct vm_config *cfg, char **err);
	/* Append -netdev/-device/-object arguments for the NICs of VM `vm`. */
	void (*qemu_args)(const struct vm_config *cfg, unsigned int vm, struct argv *a);
	/* A topology file's contents (vm/topofile.h); NULL for the built-in ones. */
	const struct topo_data *data;
};

/*
 * A built-in topology (loop, pair, none), a shipped topology file
 * (harness/vm/topologies/NAME.topo), or the topology file at a path (a name
 * with a '/' or ending in .topo). NULL when there is none; *err (may be
 * NULL) then says why, naming a bad file's line.
 */
const struct topology *topology_lookup(const char *name, char **err);	/* vm/topofile.c */
const struct topology *topology_find(const char *name);
/* Every topology's name, the shipped files' included, comma-separated. */
const char *topology_list(void);
/* loop, pair or none (vm/topo.c); NULL for another name. */
const struct topology *topology_builtin(const char *name);
/* The model of NIC `label` when neither the topology nor the user names one. */
const struct nic_model *topology_default_model(char label);
/* Each NIC on a hub port (cfg->nics[].hub), with its capture. */
void vm_hub_nics_qemu_args(const struct vm_config *cfg, unsigned int vm, struct argv *a);

/* Label -> index ('A' -> 0); -1 when out of range. */
int vm_nic_index(char label);
/* The VM of the first NIC whose model has gdb helpers (nicmodel.h), else 0. */
unsigned int vm_gdb_default(const struct vm_config *cfg);

/* Build the QEMU argument vector of VM `vm`. Returns 0 or -EINVAL with *err. */
int qemu_build_argv(const struct vm_config *cfg, unsigned int vm, struct argv *a, char **err);
/* Whether VM `vm` has netlab's virtio-serial ports: always, except when it
 * is recorded or replayed by a QEMU older than VM_QEMU_RR_PORTS. */
bool qemu_rr_ports(const struct vm_config *cfg, unsigned int vm);
/* VM `vm`'s vCPUs: vm_smp[vm], else smp. */
unsigned int vm_smp(const struct vm_config *cfg, unsigned int vm);
/* Where VM `vm` keeps its console, ports and QMP socket. */
const char *vm_dir(const struct vm_config *cfg, unsigned int vm);

/*
 * QEMU arguments both backends pass: the direct one on its command line,
 * libvirt's in <qemu:commandline>.
 */
/* -icount of deterministic mode; nothing when cfg->icount_shift < 0. */
void qemu_icount_args(const struct vm_config *cfg, struct argv *a);
/* The gdbstub on the unix socket cfg->debug.gdb_socket; nothing without one. */
void qemu_gdbstub_args(const struct vm_config *cfg, struct argv *a);
/* NIC n's -netdev hubport (id "net<label>") on its hub. */
void qemu_hubport_args(const struct vm_nic *n, struct argv *a);
/* NIC n's -device on netdev `netdev`, in PCI slot `slot` (0: QEMU's choice). */
void qemu_nic_device_args(const struct vm_nic *n, const char *netdev, unsigned int slot,
			  struct argv *a);
/* A filter-dump of NIC n's link (netdev `netdev`) into the pcap file `path`,
 * `snaplen` bytes of each frame (0: whole frames). */
void qemu_nic_dump_args(const struct vm_nic *n, const char *netdev, const char *path,
			unsigned int snaplen, struct argv *a);
/*
 * A filter-buffer on NIC n's link (netdev `netdev`) that holds the frames
 * of one direction (`queue`: "rx", the frames the NIC sends; "tx", the
 * frames the link hands it) and passes them on, in order, at each
 * RELEASE_US tick of QEMU's virtual clock. Object id: `id` + n's label.
 * The hub's order filter (topo.c) and record/replay's (qemu.c) are this.
 */
#define RELEASE_US 100
void qemu_release_filter_args(const struct vm_nic *n, const char *id, const char *netdev,
			      const char *queue, struct argv *a);
/* The filter that keeps frames to NIC n in order on a hub (topo.c). */
void qemu_hub_order_args(const struct vm_nic *n, const char *netdev, struct argv *a);

/* -fsdev/-device virtio-9p-pci of each of cfg->shares. */
void qemu_share_args(const struct vm_config *cfg, struct argv *a);

/* The kernel command line of VM `vm` (netlab's base, nokaslr, cfg->append). */
void qemu_kernel_append(const struct vm_config *cfg, unsigned int vm, struct sbuf *out);
/* What every backend needs of a configuration and its VM `vm`; -EINVAL with *err. */
int qemu_check_config(const struct vm_config *cfg, unsigned int vm, char **err);
/*
 * A path QEMU reads inside its own option syntax (path=, file=, unix:...),
 * where ',' separates options and would cut it: 0, or -EINVAL with *err
 * naming `what` and the path, and a hint.
 */
int qemu_path_check(const char *what, const char *path, char **err);
/*
 * qemu_sock_path_check() - qemu_path_check() for a path that is, or holds, a
 * unix socket (-qmp unix:PATH,server=on...): QEMU's legacy socket syntax also
 * splits it at '='. 0, or -EINVAL with *err naming `what` and the path.
 */
int qemu_sock_path_check(const char *what, const char *path, char **err);

/* The guest's virtio-serial port names (guest/netlab-proto.h). */
#define QEMU_N_PORTS 4
extern const char *const qemu_guest_ports[QEMU_N_PORTS];

/* Host file (relative to the run dir) behind a guest port name. */
const char *qemu_port_file(const char *port);

/* The guest job file (see guest/netlab-proto.h) of VM `vm`. */
void job_text(const struct vm_config *cfg, unsigned int vm, struct sbuf *out);

#endif /* NETLAB_VMCFG_H */
