/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of the packet-path reader share: pktpath.c (names, the
 * small tables, open packets and closing them), pktpath-ev.c (the events,
 * attach and finish), pktpath-setup.c (resolving the events and their fields
 * at attach time) and pktpath-drv.c (the driver lines and fallback probes).
 * Internal to them; pktpath.h is the interface.
 */
#ifndef NETLAB_PKTPATH_INT_H
#define NETLAB_PKTPATH_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <event-parse.h>
#include <trace-seq.h>
#include <trace-cmd.h>

#include "trace/drvring.h"
#include "trace/pktpath.h"
#include "trace/tracefile.h"

#define RECORD_AGAIN                                                                               \
	"record it with netlab's default [trace] set (its tracepoints and netlab:* kprobe events), or with trace-cmd record -e net -e skb and the netlab kprobe events"

#define AF_INET_ 2
#define IPPROTO_TCP_ 6
#define IPPROTO_UDP_ 17
#define ETH_P_IP_ 0x0800
#define IP_MF 0x2000
#define IP_OFFSET 0x1fff
#define TCP_PSH 0x08
#define IRQ_CONTEXT (TRACE_FLAG_HARDIRQ | TRACE_FLAG_SOFTIRQ | 0x40 /* NMI */)

/* ---- the events ------------------------------------------------------------ */

enum ev {
	EV_NONE,
	EV_BPRINT,
	EV_PRINT,
	EV_GRO,
	EV_NETIF,
	EV_IP_IN,
	EV_TCP_RCV,
	EV_UDP_RCV,
	EV_COPY_IOV,
	EV_UDP_RECV_SKB,
	EV_COPY_CSUM,
	EV_IP_OUT,
	EV_QUEUE,
	EV_START,
	EV_XMIT,
	EV_CONSUME,
	EV_KFREE,
	EV_TCP_SEND,
	EV_UDP_SEND,
	EV_TCP_RECV,
	EV_UDP_RECV,
	EV_UDP_CONSUME,
	EV_RETRANS,
	EV_N,
	/* the fallback probes of a kernel without driver lines (no events[] entry) */
	EV_P_IRQ = EV_N,
	EV_P_POLL,
	EV_P_POLL_RET,
	/* a driver line as a tracepoint (system DRVRING_TP_SYSTEM), read as EV_BPRINT's */
	EV_DRVTP,
	EV_ALL
};

struct evf {
	struct tep_event *ev;
	struct tep_format_field *skb, *len, *vihl, *frag, *proto, *saddr, *daddr, *sport, *dport,
		*flags, *family, *protocol, *data_len, *rc, *loc, *reason, *fmt;
	struct tep_format_field *name; /* the device's name (net:*), a __data_loc string */
	/*
	 * The header as 8-byte words (traceset.c): ipN bytes N..N+7 of the IPv4
	 * header and what follows, skcN of struct sock_common; NULL where the
	 * trace has a field each instead (or, for ip24, nothing).
	 */
	struct tep_format_field *ipw[5], *skw[3];
};

/* Stages of a packet, per direction. */
enum { S_DRV, S_GRO, S_NET, S_IP, S_L4, S_COPY, S_N };
enum { T_IP, T_QUEUE, T_START, T_XMIT, T_FREE };

enum { D_IRQ, D_POLL, D_DESC };
enum { D_XMIT, D_DONE };

/* C_DONE: net_dev_xmit when the trace has no free events to end a transmission. */
enum close_how { C_COPY, C_DONE, C_CONSUME, C_KFREE, C_REUSE, C_END };

/* pkt.fl */
enum {
	F_V4 = 1,
	F_IP = 2,
	F_PORTS = 4,
	F_GUESSED = 8,
	F_FRAG = 16,
	F_FLAGS = 32,
	F_DRV = 64,
	F_TCP_L4 = 128,
	F_HEADLEN = 256,
};

struct pkt {
	uint64_t skb; /* the key; 0 for an empty slot */
	uint64_t ts[S_N]; /* per stage of its direction, 0 when not seen */
	uint64_t t_app; /* tx: the matched sendmsg */
	/*
	 * The driver's own lines (driver-patches/), 0 when not seen: rx the
	 * interrupt, NAPI poll start and descriptor before its hand-off
	 * (D_IRQ, D_POLL, D_DESC); tx the driver's xmit and tx_done lines
	 * (D_XMIT, D_DONE).
	 */
	uint64_t drv[3];
	uint32_t saddr, daddr;
	uint16_t sport, dport;
	uint16_t ip_len, frag, headlen;
	uint16_t fl;
	uint8_t dir, stage, proto, vihl, tcpflags;
	uint8_t dev; /* the device it passed: index + 1 in pktpath.devs, 0 while unknown */
	uint32_t flow; /* index + 1, 0 for none */
	int pid; /* rx: the copying task; tx: the sending task; -1 */
	int16_t ip_cpu, copy_cpu; /* the CPU of its IP-stage event and of its copy; -1 */
	int16_t q; /* the queue its driver line named; -1 */
};

/* Per task: its latest socket calls, for the sendmsg join. */
#define SENDS 4
struct tstate {
	struct {
		struct pktpath_tuple t;
		uint64_t ts;
	} send[SENDS];
	uint64_t last_recv;
	struct pktpath_tuple recv[2]; /* tcp, udp */
	bool has_recv[2];
	bool last_recv_udp; /* the latest recvmsg was udp_recvmsg */
};

struct loc_name {
	uint64_t addr;
	char *name;
	bool list; /* in kfree_skb_list_reason: a fragment freed with its packet */
};

struct reason_name {
	long long value;
	char *name;
};

struct fmt_kind {
	uint64_t fmt;
	int kind; /* 0 not ours, 1 a netlab_drv line pktpath follows, 2 one it only counts */
};

/*
 * Per device (interface name): the driver's latest lines of its receive
 * side, which the next hand-off takes as its interrupt, poll and descriptor.
 */
#define DRV_DEVS 16
struct drvdev {
	char ifname[16];
	uint64_t irq; /* the latest receive (or shared) interrupt */
	uint64_t poll; /* the latest poll_start */
	uint64_t poll_irq; /* the interrupt that poll answered; 0 for a repoll */
	uint64_t desc; /* the latest rx_desc in this poll, 0 once handed off */
};

/* Index hash: slots hold an array index + 1. */
struct ihash {
	uint32_t *slot;
	size_t cap, n;
};

struct reader {
	struct pktpath *p;
	const struct pktpath_opts *o;
	struct tracefile *tf;
	struct tep_handle *tep;
	struct evf f[EV_N];
	uint8_t *kind; /* event id -> enum ev */
	int max_id;
	bool has_free; /* consume_skb or kfree_skb recorded */
	bool open_at[2][S_N]; /* may a packet open at this stage (no earlier stage recorded) */

	struct pkt *tab; /* open packets */
	size_t tab_cap, tab_n;

	struct tstate *ts; /* parallel to p->procs */
	size_t procs_cap;
	struct ihash proc_h;
	size_t flows_cap;
	struct ihash flow_h;
	struct pair {
		uint32_t saddr, daddr, flow;
		uint8_t proto;
	} * pairs;
	size_t n_pairs, pairs_cap;
	struct ihash pair_h;

	struct loc_name *locs;
	size_t n_locs, locs_cap;
	struct reason_name *reasons;
	size_t n_reasons, reasons_cap;
	struct fmt_kind fmts[64];
	size_t n_fmts;
	struct drvdev devs[DRV_DEVS];
	size_t n_devs;
	/*
	 * The names of pktpath.devs, as two words each (a Linux interface
	 * name has at most 15 bytes), zero-padded: a device is found by
	 * comparing words, not strings.
	 */
	uint64_t devkey[PKTPATH_MAX_DEVS][2];
	/*
	 * Without driver lines, the fallback probes: a packet handed to GRO
	 * inside a poll on its CPU takes that poll (and the driver's receive
	 * interrupt before it, when the poll was the driver's first since).
	 */
	int8_t *probe_drv; /* event id -> driver index, for EV_P_* */
	uint64_t p_irq[DRVRING_PROBE_DRIVERS], p_last_poll[DRVRING_PROBE_DRIVERS];
	struct {
		uint64_t poll, poll_irq; /* 0: no poll open on this CPU */
	} p_cpu[DRVRING_MAX_CPUS];
	struct trace_seq seq;

	bool started;
	int rc;
};

static inline uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

static inline uint16_t swap16(uint64_t v)
{
	return (uint16_t)(((v & 0xff) << 8) | ((v >> 8) & 0xff));
}

/* The linear part of a received skb of @len bytes, @data_len of them paged. */
static inline void pktpath_pkt_headlen(struct pkt *k, uint64_t len, uint64_t data_len)
{
	uint64_t h = len > data_len ? len - data_len : 0;

	k->headlen = (uint16_t)(h > 0xffff ? 0xffff : h);
	k->fl |= F_HEADLEN;
}

/* pktpath.c */
size_t pktpath_proc_get(struct reader *r, int pid);
uint32_t pktpath_flow_get(struct reader *r, const struct pktpath_tuple *t);
bool pktpath_tuple_eq(const struct pktpath_tuple *a, const struct pktpath_tuple *b);
void pktpath_pair_set(struct reader *r, const struct pkt *k, uint32_t flow);
uint32_t pktpath_pair_flow(const struct reader *r, const struct pkt *k);
int pktpath_task_add(struct pktpath_task **v, size_t *n, const struct pktpath_task *t);
struct pkt *pktpath_pkt_find(struct reader *r, uint64_t skb);
struct pkt *pktpath_pkt_new(struct reader *r, uint64_t skb, int dir, int stage, uint64_t ts);
void pktpath_pkt_delete(struct reader *r, struct pkt *k);
bool pktpath_tcp_control(const struct pkt *k);
int pktpath_pkt_close(struct reader *r, struct pkt *k, enum close_how how, bool list_free);
int pktpath_advance(struct reader *r, uint64_t skb, int dir, int stage, uint64_t ts,
		    struct pkt **out);
uint8_t pktpath_dev_get(struct reader *r, const char *name, size_t n);

/* Give @k the device @name (@n bytes) unless it has one. */
static inline void pktpath_pkt_dev(struct reader *r, struct pkt *k, const char *name, size_t n)
{
	if (k && !k->dev)
		k->dev = pktpath_dev_get(r, name, n);
}

/*
 * pktpath-setup.c: look up the events of @r's trace and their fields, fill
 * pktpath.present and .missing, the event id -> kind tables and open_at.
 * Return: 0; -ENODATA (@err names @path) when the trace holds no packet-path
 * event; -ENOMEM.
 */
int pktpath_find_events(struct reader *r, const char *path, char **err);

/* pktpath-drv.c */
int pktpath_drv_event(struct reader *r, struct tep_record *rec, int e);
void pktpath_probe_event(struct reader *r, struct tep_record *rec, int e);

#endif
