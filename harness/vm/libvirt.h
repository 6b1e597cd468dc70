/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The libvirt backend: the VMs of a run as transient libvirt domains, on the
 * local host or a remote one, through libvirt's C API.
 *
 * What goes where (see README, "libvirt backend"):
 *  - the kernel and the per-run initrd are uploaded as volumes of a
 *    directory storage pool ("netlab-stage") on the libvirt host;
 *  - the serial console and the guest's virtio-serial ports are streamed
 *    back over the connection (virDomainOpenConsole, virDomainOpenChannel)
 *    into the local run directory, as the direct backend's files are;
 *  - each NIC's capture (QEMU filter-dump) is written into the pool and
 *    downloaded once the domain has ended.
 * Domains are created paused with VIR_DOMAIN_START_AUTODESTROY: if netlab
 * dies, even by SIGKILL, libvirt destroys them when the connection closes.
 *
 * Ownership: strings passed in are borrowed; every struct that allocates
 * is freed by its _release()/_close().
 */
#ifndef NETLAB_LIBVIRT_H
#define NETLAB_LIBVIRT_H

#include <stdbool.h>

#include "lib/util.h"
#include "vm/vmcfg.h"

/* The staging pool, and its directory on the libvirt host. */
#define LV_POOL_NAME "netlab-stage"
#define LV_POOL_DIR "/var/tmp/netlab-stage"

/* At the latest this long after the guest said "poweroff", netlab lets it
 * power off even if its ports are still busy (the run is then infra-error). */
#define LV_ACK_S 20

/* Where a domain's files are on the libvirt host, and how it is wired. */
struct lv_stage {
	const char *name;		/* domain name; staged files are NAME.* */
	const char *dir;		/* the pool directory */
	const char *kernel;		/* staged kernel and initrd paths */
	const char *initrd;
	/* pair: each NIC's local UDP port (by NIC index); its peer's is the
	 * other NIC's. 0 = not wired by UDP. */
	unsigned int udp_port[VM_MAX_NICS];
};

/* "DIR/NAME.WHAT": a staged file's path on the libvirt host. Caller frees. */
char *lv_stage_path(const struct lv_stage *st, const char *what);

/*
 * lv_domain_xml() - the domain XML of VM `vm` of `cfg`
 *
 * libvirt's own elements wherever it has one (direct kernel boot, memory,
 * vCPUs, ACPI, serial console, virtio-serial channels, UDP-wired NICs);
 * <qemu:commandline> only for what it has none of: the QEMU hub of the
 * loop topology and the NICs on it, filter-dump captures, -icount and the
 * gdbstub on a unix socket. Record/replay is refused (-EINVAL). On error,
 * `out` may hold a partial document: discard it.
 */
int lv_domain_xml(const struct vm_config *cfg, unsigned int vm, const struct lv_stage *st,
		  struct sbuf *out, char **err);

/* libvirt's NIC model name for a netlab model ("virtio" for virtio-net). */
const char *lv_nic_model(const struct nic_model *m);

/* Default domain name prefix: "netlab-HOST-PID-N", N counting per process. */
char *lv_default_name(void);
/* "netlab-HOST-": what every default name of this host starts with. */
char *lv_name_prefix(void);

/*
 * The staging pool's permissions (README "libvirt backend", "Staging"):
 * never world-writable. The directory belongs to the daemon's user and the
 * group QEMU runs as, mode 0770, so that QEMU can create the captures and
 * nobody else can swap a staged file or plant a link there.
 */
/* The gid libvirt runs QEMU as, from its capabilities XML (the DAC model's
 * base label "+UID:+GID"); -1 when it has none (no DAC model). */
long lv_qemu_gid(const char *caps);
/* The pool's XML: mode 0770 and group `gid`; mode 0700 when gid < 0. Caller frees. */
char *lv_pool_xml(long gid);
/* Whether pool XML `pool_xml` (libvirt's, after a refresh: the directory's
 * actual mode and owner) is as lv_pool_xml(gid) asks; *mode = its mode. */
bool lv_pool_private(const char *pool_xml, long gid, unsigned int *mode);
/* The pool's directory from its XML; NULL if none. Caller frees. */
char *lv_pool_path(const char *pool_xml);

/* Default URI: $NETLAB_LIBVIRT_URI, else qemu:///system as root, else qemu:///session. */
const char *lv_default_uri(void);

/* ---- runtime (vm/libvirt*.c) ------------------------------------------------ */

struct lv_conn;
struct lv_vm;

/*
 * lv_open() - connect to `uri` and make sure the staging pool is there
 * Return: 0; -EINVAL when the URI is bad, unreachable or its daemon is not
 * running (*err says which, with a hint).
 */
int lv_open(const char *uri, struct lv_conn **out, char **err);
void lv_close(struct lv_conn *c);
/* lv_open() and lv_close() without starting libvirt's event loop thread:
 * for a parent that forks workers afterwards. */
int lv_check(const char *uri, char **err);

struct lv_vm_opts {
	const struct vm_config *cfg;
	unsigned int vm;
	const char *name;		/* domain name */
	const char *kernel;		/* local files to stage */
	const char *initrd;
	const char *local_dir;		/* console.log, ports, domain.xml, qemu.log */
	bool paused;			/* leave the CPUs stopped (gdb) */
	const unsigned int *udp_port;	/* [VM_MAX_NICS], see struct lv_stage; may be NULL */
};

/*
 * lv_vm_start() - stage, define the transient domain, attach the console
 * and the ports, and start its CPUs
 *
 * Return: 0; -EINVAL for a domain name already in use (nothing of the other
 * domain is touched) or a domain libvirt refuses; another -errno when
 * staging or streaming failed. On error nothing is left on the host.
 */
int lv_vm_start(struct lv_conn *c, const struct lv_vm_opts *o, struct lv_vm **out, char **err);
/* Wait up to `ms` for the domain to end; true once it has. */
bool lv_vm_wait(struct lv_vm *v, int ms);
/* Whether the domain had ended at the last lv_vm_wait() (no call to libvirt). */
bool lv_vm_ended(const struct lv_vm *v);
/* Destroy the domain if it still runs. */
void lv_vm_kill(struct lv_vm *v);
/* 0 when the domain shut itself down, else a wait status (SIGKILL). */
int lv_vm_status(const struct lv_vm *v);
/*
 * lv_vm_finish() - once ended: drain the streams, download the captures to
 * `pcap_dir`, delete every staged file. 0 or -errno with *err (the run's
 * artifacts are kept as far as they came).
 */
int lv_vm_finish(struct lv_vm *v, const char *pcap_dir, char **err);
void lv_vm_release(struct lv_vm *v);

#endif /* NETLAB_LIBVIRT_H */
