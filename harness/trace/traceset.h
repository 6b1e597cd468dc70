/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracing set of a scenario: which tracepoints and which kprobe events
 * the guest records, and the guest shell lines that create the probes and
 * start trace-cmd record.
 *
 * The kprobe events are netlab's own (group "netlab"): one per stage of the
 * packet path that has no tracepoint (ip_local_deliver, tcp_v4_rcv, udp_rcv,
 * the sendmsg/recvmsg calls, ip_output, the checksumming copy). Each carries
 * the skb address as `skb`, so it joins the tracepoints' `skbaddr`; the ones
 * at the IP layer also read the IPv4 header, and the socket calls read the
 * socket's addresses and ports. Where these live inside struct sk_buff and
 * struct sock_common is taken from the kernel's own debug info (see
 * kernel_offsets_load()), so the probes follow the kernel under test.
 *
 * Field encodings (x86_64 guest, little endian): addresses are the four
 * bytes of the __be32 read as a little-endian u32 (the first octet is the
 * low byte); `sport`/`dport` read from packet headers, and `dport` read from
 * a socket, are __be16 read as little-endian u16 (swap the bytes); `sport`
 * read from a socket is skc_num, already in host order.
 */
#ifndef NETLAB_TRACESET_H
#define NETLAB_TRACESET_H

#include <stdbool.h>
#include <stddef.h>

#include "nicmodel.h"

struct sbuf;

/* Offsets the probes need, in bytes. */
struct kernel_offsets {
	unsigned int skb_data;		/* struct sk_buff, data (pointer) */
	unsigned int skb_len;		/* struct sk_buff, len */
	unsigned int sk_daddr;		/* struct sock_common, skc_daddr */
	unsigned int sk_rcv_saddr;	/* skc_rcv_saddr */
	unsigned int sk_dport;		/* skc_dport */
	unsigned int sk_num;		/* skc_num */
	unsigned int sk_family;		/* skc_family */
	const char *source;		/* "vmlinux", "cache", or "default (6.1 x86_64)" */
};

/* The values of an x86_64 6.1 kernel, for kernels without debug info. */
extern const struct kernel_offsets kernel_offsets_default;

/**
 * kernel_offsets_load() - the struct offsets of the kernel at @bzimage
 * @bzimage: the kernel image; its directory may hold `vmlinux`
 * @out: the offsets (always set: the defaults when nothing better is known)
 * @note: on return, NULL or a one-line note on why the defaults were used
 *	  (the caller frees it)
 *
 * Reads `netlab-offsets` beside @bzimage when it exists; otherwise asks gdb
 * for the offsets in `vmlinux` beside it (a few seconds) and writes
 * `netlab-offsets` there when the directory is writable.
 */
void kernel_offsets_load(const char *bzimage, struct kernel_offsets *out, char **note);

/* One member of a tracing set. */
struct trace_event {
	char *name;		/* "skb:kfree_skb", "netlab:ip_local_deliver" */
	char *probe;		/* kprobe_events definition (netlab: events), or NULL */
	char *filter;		/* trace-cmd -f filter, or NULL */
	/*
	 * A driver fallback probe (netlab:drv_DRIVER_ROLE, from netlab:drvprobe):
	 * the driver ("e1000e"), the function, and its address (hex, no 0x) when
	 * its name is ambiguous in the kernel (e1000 and e1000e share static
	 * names), else NULL. Such a probe is optional: the guest defines it only
	 * when the kernel has the function, and records it only then.
	 */
	char *driver, *func, *addr;
};

struct traceset {
	struct trace_event *ev;
	size_t n;
	/*
	 * The guest leaves out the fallback probes of a driver that has
	 * netlab_drv events, or (older patches) netlab_drv formats in
	 * tracing/printk_formats: the kernel is patched for it.
	 */
	bool drvprobe_unless_lines;
	/*
	 * The set holds net:napi_gro_receive_entry only as the hand-off of a
	 * driver without lines (the default set, not added by name): where
	 * every driver has lines, their rx_handoff says the same (skb, len,
	 * data_len, protocol) and the tracepoint can go, one event a received
	 * frame fewer.
	 */
	bool gro_for_handoff;
};

/* The drivers netlab has patches and fallback probes for: the NIC models'
 * (guest/nicmodel.h), nic_models[i].driver. */

/* The events the default set holds, blank-separated (for help and README). */
const char *traceset_default_names(void);

/*
 * Whether @name is a netlab kprobe event netlab knows ("netlab:udp_rcv"),
 * a well-formed SYSTEM:EVENT tracepoint spec, or neither.
 */
bool traceset_is_catalogued(const char *name);

/*
 * Whether the set holds netlab:drv, the driver patches' lines: tracepoints
 * of the system netlab_drv (-e netlab_drv where the guest's kernel has
 * them) or, in kernels built with older patches, trace_printk lines, which
 * exist only in the top-level buffer. So such a set records there; any other
 * set records in the instance "netlab", and the drivers' lines stay off.
 */
bool traceset_has_drv_lines(const struct traceset *ts);

/*
 * The driver fallback probes (issue 5): for drivers that print no netlab_drv
 * lines (a series that did not apply, DRIVER_PATCHES=none), kprobe and
 * kretprobe events on the driver functions 6.1 keeps out of line, fetching
 * function arguments and return values only (and skb->len by the offsets):
 *
 *   netlab:drv_DRIVER_poll      NAPI poll entry: napi, budget
 *   netlab:drv_DRIVER_poll_ret  its return: work (the packets it took; ==
 *				budget when the poll stays scheduled)
 *   netlab:drv_DRIVER_irq*      interrupt handler entry (irq_tx*: TX only)
 *   netlab:drv_DRIVER_xmit      ndo_start_xmit: skb, len
 *   netlab:drv_DRIVER_refill    RX refill entry: want (e1000, e1000e)
 *   netlab:drv_DRIVER_rx        one received packet: skb (e1000e
 *				e1000_receive_skb), len (virtio_net receive_buf)
 *
 * The pseudo event netlab:drvprobe adds those of every driver,
 * netlab:drvprobe_DRIVER those of one.
 */
#define TRACESET_DRVPROBE "netlab:drvprobe"

/* Add catalogued events (as in traceset_build()'s @add) / drop them by exact name. */
void traceset_add_names(struct traceset *ts, const char *names, const struct kernel_offsets *off);
void traceset_drop_names(struct traceset *ts, const char *names);

/**
 * traceset_drvprobe_resolve() - addresses for the ambiguous fallback probes
 * @ts: the set
 * @sysmap: the kernel's System.map, or NULL
 *
 * A function name that System.map lists more than once (static functions of
 * e1000 and e1000e) cannot be probed by name: the kernel refuses it. Such a
 * probe gets the address of the copy nearest the driver's own NAPI poll
 * function (each driver is one object file, so its functions lie together).
 * The guest checks that address against /proc/kallsyms before using it.
 * Return: 0, or -errno when @sysmap cannot be read (nothing changed).
 */
int traceset_drvprobe_resolve(struct traceset *ts, const char *sysmap);
bool traceset_spec_ok(const char *name);

/*
 * A user probe definition (`probe.NAME = FUNCTION [FETCHARG...]`): NAME and
 * FUNCTION are C identifiers, the fetch args name=value with no shell
 * metacharacters. Returns NULL when fine, else a static message.
 */
const char *traceset_probe_check(const char *name, const char *def);

/**
 * traceset_build() - the set a scenario records
 * @events: blank-separated list replacing the default set, or NULL
 * @add: blank-separated events added to it, or NULL
 * @drop: blank-separated events removed from it (exact names), or NULL
 * @probe_names, @probe_defs, @n_probes: user kprobe events (added as netlab:NAME)
 * @off: struct offsets for netlab's kprobe events
 * @out: the set; free it with traceset_release()
 */
void traceset_build(const char *events, const char *add, const char *drop,
		    char *const *probe_names, char *const *probe_defs, size_t n_probes,
		    const struct kernel_offsets *off, struct traceset *out);
void traceset_release(struct traceset *ts);

/*
 * Per-CPU buffer size (KB) for @ts in a guest of @mem_mb and @cpus CPUs:
 * TRACESET_BUFFER_KB, at most an eighth of the guest's memory (see
 * traceset.c for the measurements behind it).
 */
#define TRACESET_BUFFER_KB 1024
unsigned int traceset_buffer_kb(const struct traceset *ts, unsigned int mem_mb, unsigned int cpus);

/*
 * Guest shell lines that define the set's kprobe events (failing with
 * `setup_error` naming the probe the kernel refused) and start trace-cmd
 * record into $O/trace.dat in the background, its pid in $T. A fallback
 * probe the kernel refuses (no such function) is left out, not an error;
 * $O/drvprobe.txt lists those defined and the drivers left out.
 */
void traceset_script_start(const struct traceset *ts, unsigned int buffer_kb, struct sbuf *o);

#endif /* NETLAB_TRACESET_H */
