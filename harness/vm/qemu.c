// SPDX-License-Identifier: GPL-2.0
/*
 * QEMU command line and guest job, derived from a struct vm_config.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm/vm.h"
#include "vm/share.h"
#include "vm/vmcfg.h"
#include "netlab-proto.h"

/* Always on the kernel command line: see README, "host/guest contract". */
#define KERNEL_BASE_APPEND "console=ttyS0 panic=-1 oops=panic rdinit=/init"

const char *const qemu_guest_ports[QEMU_N_PORTS] = {
	NETLAB_PORT_STDOUT, NETLAB_PORT_STDERR, NETLAB_PORT_STATUS, NETLAB_PORT_FILES,
};

/* Host file behind each port, relative to the run directory. */
const char *qemu_port_file(const char *port)
{
	if (!strcmp(port, NETLAB_PORT_STDOUT))
		return "stdout";
	if (!strcmp(port, NETLAB_PORT_STDERR))
		return "stderr";
	if (!strcmp(port, NETLAB_PORT_STATUS))
		return "status";
	return "files.tar";
}

int qemu_path_check(const char *what, const char *path, char **err)
{
	if (!path || !strchr(path, ','))
		return 0;
	err_set(err, "%s '%s' holds a ',', which QEMU's option syntax splits on\n"
		     "hint: use a path without commas", what, path);
	return -EINVAL;
}

int qemu_sock_path_check(const char *what, const char *path, char **err)
{
	if (qemu_path_check(what, path, err))
		return -EINVAL;
	if (!path || !strchr(path, '='))
		return 0;
	err_set(err, "%s '%s' holds a '=', which QEMU's option syntax reads as KEY=VALUE in "
		     "a unix socket path (-qmp unix:PATH)\nhint: use a path without '='", what, path);
	return -EINVAL;
}

/* Every path of cfg that QEMU parses: qemu_path_check(), qemu_sock_path_check(). */
static int check_comma_paths(const struct vm_config *cfg, char **err)
{
	const struct { const char *what, *path; bool sock; } paths[] = {
		{ "run directory (--out)", cfg->rundir, true }, { "kernel", cfg->kernel, false },
		{ "initrd", cfg->initrd, false }, { "peer kernel", cfg->peer_kernel, false },
		{ "VM directory", cfg->vm_dir[0], true }, { "VM directory", cfg->vm_dir[1], true },
		{ "VM initrd", cfg->vm_initrd[0], false }, { "VM initrd", cfg->vm_initrd[1], false },
		{ "socket directory", cfg->sock_dir, true },
		{ "gdb socket", cfg->debug.gdb_socket, true },
		{ "replay log", cfg->debug.rr_file, false }, { "replay disk", cfg->debug.rr_disk, false },
	};

	for (size_t i = 0; i < ARRAY_SIZE(paths); i++)
		if ((paths[i].sock ? qemu_sock_path_check : qemu_path_check)(paths[i].what,
									       paths[i].path, err))
			return -EINVAL;
	return 0;
}

int qemu_check_config(const struct vm_config *cfg, unsigned int vm, char **err)
{
	if (!cfg->qemu || !cfg->kernel || !cfg->initrd || !cfg->rundir || !cfg->topo) {
		err_set(err, "incomplete VM configuration (qemu, kernel, initrd, rundir, topology)");
		return -EINVAL;
	}
	if (check_comma_paths(cfg, err))
		return -EINVAL;
	if (cfg->accel != VM_ACCEL_KVM && cfg->accel != VM_ACCEL_TCG) {
		err_set(err, "accelerator must be resolved to kvm or tcg before building argv");
		return -EINVAL;
	}
	if (cfg->icount_shift >= 0 && cfg->accel != VM_ACCEL_TCG) {
		err_set(err, "-icount needs TCG, not %s", vm_accel_name(cfg->accel));
		return -EINVAL;
	}
	if (cfg->debug.rr != VM_RR_OFF && cfg->accel != VM_ACCEL_TCG) {
		err_set(err, "record/replay needs TCG, not %s", vm_accel_name(cfg->accel));
		return -EINVAL;
	}
	if (cfg->mem_mb < 64 || cfg->smp < 1) {
		err_set(err, "memory %u MiB / %u CPUs is too small", cfg->mem_mb, cfg->smp);
		return -EINVAL;
	}
	for (unsigned int i = 0; i < cfg->n_nics; i++) {
		if (!cfg->nics[i].model) {
			err_set(err, "NIC %c has no model", cfg->nics[i].label);
			return -EINVAL;
		}
	}
	if (vm >= cfg->topo->n_vms) {
		err_set(err, "topology '%s' has no VM %u", cfg->topo->name, vm);
		return -EINVAL;
	}
	return 0;
}

unsigned int vm_smp(const struct vm_config *cfg, unsigned int vm)
{
	return vm < VM_MAX_VMS && cfg->vm_smp[vm] ? cfg->vm_smp[vm] : cfg->smp;
}

const char *vm_dir(const struct vm_config *cfg, unsigned int vm)
{
	return vm < VM_MAX_VMS && cfg->vm_dir[vm] ? cfg->vm_dir[vm] : cfg->rundir;
}

static void add_ports(const char *dir, struct argv *a)
{
	argv_add(a, "-device");
	argv_add(a, "virtio-serial-pci,id=vser0");
	for (size_t i = 0; i < QEMU_N_PORTS; i++) {
		argv_add(a, "-chardev");
		argv_addf(a, "file,id=port%zu,path=%s/%s", i, dir, qemu_port_file(qemu_guest_ports[i]));
		argv_add(a, "-device");
		argv_addf(a, "virtserialport,bus=vser0.0,chardev=port%zu,name=%s", i,
			  qemu_guest_ports[i]);
	}
}

/* Whether VM `vm` is recorded or replayed. */
static bool rr_on(const struct vm_config *cfg, unsigned int vm)
{
	return cfg->debug.rr != VM_RR_OFF && (cfg->debug.rr_vm < 0 || cfg->debug.rr_vm == (int)vm);
}

/*
 * QEMU record/replay: icount driven by the log, every packet that reaches
 * a NIC recorded (filter-replay on each netdev of the VM), and, if asked,
 * an initial snapshot ("init", in an empty qcow2) for reverse debugging.
 *
 * The recorded VM has no virtio-serial ports (see qemu_build_argv()): the
 * agent then says everything on the console, which is replayed too.
 */
static void add_rr(const struct vm_config *cfg, unsigned int vm, struct argv *a)
{
	const char *dir = vm_dir(cfg, vm);
	struct sbuf b;

	sbuf_init(&b);
	sbuf_addf(&b, "shift=auto,rr=%s,rrfile=", cfg->debug.rr == VM_RR_RECORD ? "record" : "replay");
	if (cfg->debug.rr_file)
		sbuf_adds(&b, cfg->debug.rr_file);
	else
		sbuf_addf(&b, "%s/replay.bin", dir);
	if (cfg->debug.rr_snapshot)
		sbuf_adds(&b, ",rrsnapshot=init");
	argv_add(a, "-icount");
	argv_add(a, b.s);
	sbuf_release(&b);
	if (!cfg->debug.rr_snapshot)
		return;
	argv_add(a, "-drive");
	if (cfg->debug.rr_disk)
		argv_addf(a, "file=%s,if=none,id=rrdisk,format=qcow2", cfg->debug.rr_disk);
	else
		argv_addf(a, "file=%s/replay.qcow2,if=none,id=rrdisk,format=qcow2", dir);
}

/*
 * A recorded NIC's transmit must not wait on the other end of its link.
 * In a replay filter-replay drops every frame a NIC sends (the frames it
 * receives come from the log), so a NIC's transmit always completes at
 * once. In the recording the frame went on to the hub (or socket), and
 * when the other end could not take it (e1000e before its link is up, a
 * full ring) the sender's transmit waited: virtio-net holds its TX queue
 * until the frame is gone. The replay then leaves the recording and
 * stalls for good (measured: B pinging A while ethA is down stalls every
 * replay; without it about 1 recording in 15 of t16's planted drop
 * stalled, where ethB sent before ethA's link was up).
 *
 * filter-buffer on the frames a NIC sends (queue=rx: "received by the
 * netdev") takes each frame at once, in the recording as in the replay,
 * and passes it on at the next tick of the virtual clock, every
 * RELEASE_US; a frame the other end cannot take waits in the link's
 * queue as before. It is added after filter-replay, so it sees the
 * NIC's frames first. Cost: up to RELEASE_US more latency per frame
 * in recorded runs only.
 */
static void add_rr_filters(const struct vm_config *cfg, unsigned int vm, struct argv *a)
{
	for (unsigned int i = 0; i < cfg->n_nics; i++) {
		char netdev[8];

		if (cfg->nics[i].vm != vm)
			continue;
		snprintf(netdev, sizeof(netdev), "net%c", cfg->nics[i].label);
		argv_add(a, "-object");
		argv_addf(a, "filter-replay,id=replay%c,netdev=%s", cfg->nics[i].label, netdev);
		qemu_release_filter_args(&cfg->nics[i], "rrtx", netdev, "rx", a);
	}
}

bool qemu_rr_ports(const struct vm_config *cfg, unsigned int vm)
{
	return !rr_on(cfg, vm) || cfg->qemu_version >= VM_QEMU_RR_PORTS;
}

/* Never a TCP port. */
void qemu_gdbstub_args(const struct vm_config *cfg, struct argv *a)
{
	if (!cfg->debug.gdb_socket)
		return;
	argv_add(a, "-chardev");
	argv_addf(a, "socket,path=%s,server=on,wait=off,id=gdb0", cfg->debug.gdb_socket);
	argv_add(a, "-gdb");
	argv_add(a, "chardev:gdb0");
}

/* Virtual time follows the instruction count: in-guest timings repeat run
 * after run. sleep=off warps over idle time; NETLAB_ICOUNT_SLEEP=on (an
 * experiment, netlab(1)) lets an idle guest's clock follow the host's. */
void qemu_icount_args(const struct vm_config *cfg, struct argv *a)
{
	const char *sleep = getenv("NETLAB_ICOUNT_SLEEP");

	if (cfg->icount_shift < 0)
		return;
	argv_add(a, "-icount");
	argv_addf(a, "shift=%d,sleep=%s,align=off", cfg->icount_shift,
		  sleep && !strcmp(sleep, "on") ? "on" : "off");
}

/* The gdbstub; -S: wait for gdb's continue. */
static void add_gdb(const struct vm_config *cfg, struct argv *a)
{
	qemu_gdbstub_args(cfg, a);
	if (cfg->debug.paused)
		argv_add(a, "-S");
}

void qemu_kernel_append(const struct vm_config *cfg, unsigned int vm, struct sbuf *b)
{
	/* Breakpoints and a replay need the addresses of vmlinux. */
	bool nokaslr = (cfg->debug.gdb_socket && vm == cfg->debug.gdb_vm) || rr_on(cfg, vm);

	sbuf_adds(b, KERNEL_BASE_APPEND);
	if (nokaslr)
		sbuf_adds(b, " nokaslr");
	if (cfg->append && *cfg->append)
		sbuf_addf(b, " %s", cfg->append);
}

static void add_append(const struct vm_config *cfg, unsigned int vm, struct argv *a)
{
	struct sbuf b;

	sbuf_init(&b);
	qemu_kernel_append(cfg, vm, &b);
	argv_add(a, "-append");
	argv_add(a, b.s);
	sbuf_release(&b);
}

int qemu_build_argv(const struct vm_config *cfg, unsigned int vm, struct argv *a, char **err)
{
	const char *dir = vm_dir(cfg, vm);
	const char *kernel = vm == 1 && cfg->peer_kernel ? cfg->peer_kernel : cfg->kernel;
	const char *initrd = vm < VM_MAX_VMS && cfg->vm_initrd[vm] ? cfg->vm_initrd[vm] : cfg->initrd;
	int ret = qemu_check_config(cfg, vm, err);

	if (ret)
		return ret;
	argv_add(a, cfg->qemu);
	argv_add(a, "-name");
	argv_add(a, "netlab,debug-threads=on");
	argv_add(a, "-nodefaults");
	argv_add(a, "-no-user-config");
	argv_add(a, "-display");
	argv_add(a, "none");
	argv_add(a, "-no-reboot");
	argv_add(a, "-accel");
	argv_add(a, vm_accel_name(cfg->accel));
	if (rr_on(cfg, vm))
		add_rr(cfg, vm, a);
	else
		qemu_icount_args(cfg, a);
	argv_add(a, "-m");
	argv_addf(a, "%u", cfg->mem_mb);
	argv_add(a, "-smp");
	argv_addf(a, "%u", vm_smp(cfg, vm));
	argv_add(a, "-kernel");
	argv_add(a, kernel);
	argv_add(a, "-initrd");
	argv_add(a, initrd);
	add_append(cfg, vm, a);
	argv_add(a, "-chardev");
	argv_addf(a, "file,id=console,path=%s/console.log", dir);
	argv_add(a, "-serial");
	argv_add(a, "chardev:console");
	argv_add(a, "-qmp");
	argv_addf(a, "unix:%s/qmp.sock,server=on,wait=off", dir);
	/*
	 * QEMU 7.2 does not replay a VM with netlab's virtio-serial ports
	 * (file chardevs): the replay stops for good where the guest command
	 * starts. Without them a recorded VM replays to its end, its agent
	 * reporting on the console. QEMU 10 replays them (README
	 * "Record/replay"): a recorded run keeps its files and trace.
	 */
	if (qemu_rr_ports(cfg, vm))
		add_ports(dir, a);
	cfg->topo->qemu_args(cfg, vm, a);
	qemu_share_args(cfg, a);
	if (rr_on(cfg, vm))
		add_rr_filters(cfg, vm, a);
	if (vm == cfg->debug.gdb_vm)
		add_gdb(cfg, a);
	return 0;
}

/*
 * A read-only share: security_model=none. A read-write one: mapped, so that
 * nothing the guest writes becomes a setuid file or a device node on the
 * host (share_security_model()).
 */
void qemu_share_args(const struct vm_config *cfg, struct argv *a)
{
	for (size_t i = 0; i < cfg->n_shares; i++) {
		const struct vm_share *s = &cfg->shares[i];

		argv_add(a, "-fsdev");
		argv_addf(a, "local,id=fs%zu,path=%s,security_model=%s%s", i, s->host,
			  share_security_model(s), s->rw ? "" : ",readonly=on");
		argv_add(a, "-device");
		argv_addf(a, "virtio-9p-pci,fsdev=fs%zu,mount_tag=%s", i, s->tag);
	}
}

void job_text(const struct vm_config *cfg, unsigned int vm, struct sbuf *out)
{
	unsigned int n_nics = 0;

	for (unsigned int i = 0; i < cfg->n_nics; i++)
		n_nics += cfg->nics[i].vm == vm;
	sbuf_addf(out, "# netlab job, see guest/netlab-proto.h\n");
	sbuf_addf(out, "%s=%d\n", NETLAB_KEY_VERSION, NETLAB_PROTO_VERSION);
	sbuf_addf(out, "%s=%s\n", NETLAB_KEY_TOPOLOGY, n_nics ? cfg->topo->name : "none");
	sbuf_addf(out, "%s=%u\n", NETLAB_KEY_TIMEOUT, cfg->timeout_s);
	if (cfg->host_ack)
		sbuf_addf(out, "%s=1\n", NETLAB_KEY_ACK);
	for (size_t i = 0; i < cfg->n_job_lines; i++)
		sbuf_addf(out, "%s\n", cfg->job_lines[i]);
	for (size_t i = 0; i < cfg->n_shares; i++)
		share_job_line(&cfg->shares[i], out);
	for (unsigned int i = 0; i < cfg->n_nics; i++) {
		const struct vm_nic *n = &cfg->nics[i];

		if (n->vm != vm)
			continue;
		sbuf_addf(out, "nic.%c.model=%s\n", n->label, n->model->name);
		sbuf_addf(out, "nic.%c.mac=%s\n", n->label, n->mac);
		sbuf_addf(out, "nic.%c.ifname=%s\n", n->label, n->ifname);
		if (n->netns[0])
			sbuf_addf(out, "nic.%c.netns=%s\n", n->label, n->netns);
		if (n->ipv4[0])
			sbuf_addf(out, "nic.%c.ipv4=%s\n", n->label, n->ipv4);
		if (n->ipv6[0])
			sbuf_addf(out, "nic.%c.ipv6=%s\n", n->label, n->ipv6);
	}
}
