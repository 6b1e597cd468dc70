// SPDX-License-Identifier: GPL-2.0
/*
 * Tracing sets: tracepoints plus netlab's kprobe events (see traceset.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/traceset.h"
#include "lib/proc.h"
#include "lib/util.h"

const struct kernel_offsets kernel_offsets_default = {
	.skb_data = 200, .skb_len = 104, .sk_daddr = 0, .sk_rcv_saddr = 4,
	.sk_dport = 12, .sk_num = 14, .sk_family = 16, .source = "default (6.1 x86_64)",
};

/* ---- struct offsets from the kernel's debug info ------------------------ */

static const struct {
	const char *expr;
	size_t off;
} offset_exprs[] = {
#define OFF(f) offsetof(struct kernel_offsets, f)
	{ "&((struct sk_buff *)0)->data", OFF(skb_data) },
	{ "&((struct sk_buff *)0)->len", OFF(skb_len) },
	{ "&((struct sock_common *)0)->skc_daddr", OFF(sk_daddr) },
	{ "&((struct sock_common *)0)->skc_rcv_saddr", OFF(sk_rcv_saddr) },
	{ "&((struct sock_common *)0)->skc_dport", OFF(sk_dport) },
	{ "&((struct sock_common *)0)->skc_num", OFF(sk_num) },
	{ "&((struct sock_common *)0)->skc_family", OFF(sk_family) },
#undef OFF
};

#define N_OFFSETS ARRAY_SIZE(offset_exprs)
#define OFFSETS_FILE "netlab-offsets"

static unsigned int *off_field(struct kernel_offsets *k, size_t i)
{
	return (unsigned int *)((char *)k + offset_exprs[i].off);
}

/* "skb_data=200 skb_len=104 ..." in offset_exprs order: one value per line. */
static int offsets_parse(const char *text, struct kernel_offsets *k)
{
	size_t i = 0;
	const char *p = text;

	while (*p && i < N_OFFSETS) {
		unsigned long v;
		char *end;

		/* gdb prints "$N = VALUE"; the cache file holds "VALUE". */
		const char *eq = strchr(p, '=');
		const char *nl = strchr(p, '\n');

		if (eq && (!nl || eq < nl))
			p = eq + 1;
		while (*p == ' ')
			p++;
		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno || end == p || v > 4096)
			return -EINVAL;
		*off_field(k, i++) = (unsigned int)v;
		p = strchr(end, '\n');
		if (!p)
			break;
		p++;
	}
	return i == N_OFFSETS ? 0 : -EINVAL;
}

static int offsets_from_gdb(const char *vmlinux, struct kernel_offsets *k)
{
	struct argv a;
	struct proc p;
	int ret;

	/* An argv, never a shell: the kernel's path is anybody's. */
	argv_init(&a);
	argv_add(&a, "gdb");
	argv_add(&a, "-batch");
	argv_add(&a, "-nx");
	for (size_t i = 0; i < N_OFFSETS; i++)
		argv_addf(&a, "-ex=print/d (long)%s", offset_exprs[i].expr);
	argv_add(&a, vmlinux);
	proc_init(&p, (const char *const *)a.v);
	p.stdin_mode = p.stderr_mode = PROC_NULL;
	p.stdout_mode = PROC_CAPTURE;
	p.own_group = true;
	ret = proc_run(&p, 120 * 1000, NULL);	/* gdb's exit code, or -errno */
	if (ret == 0) {
		char *text = proc_take_output(&p);
		char *first = text ? strstr(text, "$1 =") : NULL;

		ret = first ? offsets_parse(first, k) : -EINVAL;
		free(text);
	} else {
		ret = -EINVAL;
	}
	proc_release(&p);
	argv_release(&a);
	return ret;
}

void kernel_offsets_load(const char *bzimage, struct kernel_offsets *out, char **note)
{
	char *dir = xstrdup(bzimage ? bzimage : "."), *slash = strrchr(dir, '/');
	char *cache, *vmlinux, *text = NULL;
	struct kernel_offsets k = kernel_offsets_default;

	*note = NULL;
	*out = kernel_offsets_default;
	if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	cache = xasprintf("%s/" OFFSETS_FILE, dir);
	vmlinux = xasprintf("%s/vmlinux", dir);
	if (file_read(cache, &text, NULL) == 0 && offsets_parse(text, &k) == 0) {
		k.source = "cache";
		*out = k;
	} else if (!bzimage) {
		*note = xstrdup("no kernel image named: kprobe fetch offsets are netlab's defaults for 6.1 x86_64");
	} else if (access(vmlinux, R_OK) != 0) {
		*note = xasprintf("no vmlinux beside %s: kprobe fetch offsets are netlab's defaults for 6.1 x86_64",
				  bzimage);
	} else if (offsets_from_gdb(vmlinux, &k) != 0) {
		*note = xasprintf("gdb could not read struct offsets from %s (no debug info?): using netlab's defaults for 6.1 x86_64",
				  vmlinux);
	} else {
		struct sbuf b;

		k.source = "vmlinux";
		*out = k;
		sbuf_init(&b);
		for (size_t i = 0; i < N_OFFSETS; i++)
			sbuf_addf(&b, "%u\n", *off_field(&k, i));
		/* A read-only kernel directory is fine: ask gdb again next time. */
		(void)file_write(cache, b.s, b.len);
		sbuf_release(&b);
	}
	free(text);
	free(cache);
	free(vmlinux);
	free(dir);
}

/* ---- the catalog ---------------------------------------------------------- */

/*
 * Fetch args: %1$u is skb->data's offset, %2$u skb->len's. The IPv4 header
 * and the L4 ports and TCP flags after it come as whole 8-byte words, ipN
 * holding bytes N..N+7 (pktpath decodes them): 4 arguments instead of 9. A
 * kprobe pays for every argument and every read (bench/evcost: 11
 * arguments of one field each cost ~3700 guest instructions an event,
 * against ~900 for one). An array ("ip=...:x64[5]") would be cheaper
 * still, but libtraceevent 1.7 prints the kernel 6.1 format of a kprobe
 * array ("u64 ip[]") as zeros, so trace-cmd report and KernelShark would
 * show a wrong header.
 */
#define IPW(S, N) "ip" #N "=+" #N "(+%1$u(" S ")):x64"
#define IPHDR(S) "len=+%2$u(" S "):u32 " IPW(S, 0) " " IPW(S, 8) " " IPW(S, 16) " " IPW(S, 32)

static const struct {
	const char *name;	/* without "netlab:" */
	const char *type_func;	/* "p FUNCTION" */
	const char *args;	/* printf format over the offsets */
	bool dflt;
	bool sock;		/* and the socket in $arg1: sock_args() */
} kprobes[] = {
	{ "ip_local_deliver", "p ip_local_deliver", "skb=$arg1:x64 " IPHDR("$arg1"), true, false },
	{ "tcp_v4_rcv", "p tcp_v4_rcv", "skb=$arg1:x64", true, false },
	{ "udp_rcv", "p udp_rcv", "skb=$arg1:x64", true, false },
	{ "skb_copy_csum", "p skb_copy_and_csum_datagram_msg", "skb=$arg1:x64", true, false },
	/*
	 * UDP's receive, one event per datagram the application gets: the
	 * socket and the skb udp_recvmsg() (or udpv6_recvmsg()) has copied,
	 * handed back for its free. A linear UDP skb is copied by
	 * copy_linear_skb(), which has no tracepoint, so this is the receive
	 * path's copy stage, and the receiving task's recvmsg. It replaces
	 * udp_recvmsg and udp_recv_skb in the default set: four events a
	 * datagram (a reader's last recvmsg finds nothing and returns EAGAIN),
	 * one of them a return probe, against one.
	 */
	{ "udp_consume", "p skb_consume_udp", "skb=$arg2:x64 len=$arg3:s32", true, true },
	/* The skb udp_recvmsg() takes off the socket, when it has one. */
	{ "udp_recv_skb", "r __skb_recv_udp", "skb=$retval:x64", false, false },
	{ "tcp_recvmsg", "p tcp_recvmsg", "size=$arg3:u64", true, true },
	{ "udp_recvmsg", "p udp_recvmsg", "size=$arg3:u64", false, true },
	{ "tcp_sendmsg", "p tcp_sendmsg", "size=$arg3:u64", true, true },
	{ "udp_sendmsg", "p udp_sendmsg", "size=$arg3:u64", true, true },
	{ "ip_output", "p ip_output", "skb=$arg3:x64 " IPHDR("$arg3"), true, false },
	/* Not in the default set: the list-receive entry and the TCP clone point. */
	{ "ip_rcv", "p ip_rcv", "skb=$arg1:x64", false, false },
	{ "ip_queue_xmit", "p ip_queue_xmit", "skb=$arg2:x64", false, true },
};

/*
 * The socket in $arg1: its address, its addresses, ports and family. Where
 * struct sock_common starts as it has since Linux 2.6 (daddr 0, rcv_saddr 4,
 * dport 12, num 14, family 16), its first 24 bytes as 3 words, skcN holding
 * bytes N..N+7; else a field each, at the kernel's offsets.
 */
static char *sock_args(const struct kernel_offsets *o)
{
	if (o->sk_daddr == 0 && o->sk_rcv_saddr == 4 && o->sk_dport == 12 && o->sk_num == 14 &&
	    o->sk_family == 16)
		return xstrdup("sk=$arg1:x64 skc0=+0($arg1):x64 skc8=+8($arg1):x64 "
			       "skc16=+16($arg1):x64");
	return xasprintf("sk=$arg1:x64 family=+%u($arg1):u16 saddr=+%u($arg1):u32 "
			 "daddr=+%u($arg1):u32 sport=+%u($arg1):u16 dport=+%u($arg1):u16",
			 o->sk_family, o->sk_rcv_saddr, o->sk_daddr, o->sk_num, o->sk_dport);
}

/*
 * The tracepoints the default set holds (dflt), and the filters of those a
 * scenario may add. irq_handler_exit and softirq_exit say only when a
 * handler ended, at an event each per interrupt and softirq (a UDP flood
 * has 3 interrupts and 2 softirqs a datagram): the NET_RX timeline reads
 * the context of the other records instead (netrx.h); add them for the
 * exact end of each.
 */
static const struct {
	const char *name;
	const char *filter;
	bool dflt;
} tracepoints[] = {
	{ "skb:kfree_skb", NULL, true },
	{ "skb:consume_skb", NULL, true },
	{ "skb:skb_copy_datagram_iovec", NULL, true },
	{ "net:napi_gro_receive_entry", NULL, true },
	{ "net:netif_receive_skb", NULL, true },
	{ "net:net_dev_queue", NULL, true },
	{ "net:net_dev_start_xmit", NULL, true },
	{ "net:net_dev_xmit", NULL, true },
	{ "qdisc:qdisc_dequeue", NULL, true },
	{ "napi:napi_poll", NULL, true },
	{ "irq:irq_handler_entry", NULL, true },
	{ "irq:irq_handler_exit", NULL, false },
	/* NET_TX (2) and NET_RX (3) only: timers and RCU would swamp the buffer. */
	{ "irq:softirq_raise", "vec == 2 || vec == 3", true },
	{ "irq:softirq_entry", "vec == 2 || vec == 3", true },
	{ "irq:softirq_exit", "vec == 2 || vec == 3", false },
	{ "sock:sock_rcvqueue_full", NULL, true },
	{ "udp:udp_fail_queue_rcv_skb", NULL, true },
	{ "tcp:tcp_retransmit_skb", NULL, true },
	{ "tcp:tcp_send_reset", NULL, true },
};

/*
 * The driver patches' lines: the events of the system netlab_drv or, in a
 * kernel built with older patches, trace_printk lines, which only the
 * top-level buffer takes. A set with them records there; a set without
 * them records in an instance (see driver-patches/).
 */
#define DRV_LINES "netlab:drv"
#define INSTANCE "netlab"

/* ---- driver fallback probes (traceset.h) ---------------------------------- */

/* The drivers and their probes: guest/nicmodel.c, one row per NIC model. */

/* The model of "netlab:drvprobe_DRIVER" (-1: all for "netlab:drvprobe"), else -2. */
static int drvprobe_pseudo(const char *name)
{
	size_t n = strlen(TRACESET_DRVPROBE);

	if (strncmp(name, TRACESET_DRVPROBE, n))
		return -2;
	if (!name[n])
		return -1;
	for (size_t d = 0; name[n] == '_' && d < nic_models_n; d++)
		if (!strcmp(name + n + 1, nic_models[d].driver))
			return (int)d;
	return -2;
}

/* "netlab:drv_DRIVER_ROLE": its model's index and probe's in *@d, *@k; 0, or -1. */
static int drvprobe_find(const char *name, size_t *d, size_t *k)
{
	if (strncmp(name, "netlab:drv_", 11))
		return -1;
	for (*d = 0; *d < nic_models_n; (*d)++) {
		const struct nic_model *m = &nic_models[*d];
		size_t n = strlen(m->driver);

		if (strncmp(name + 11, m->driver, n) || name[11 + n] != '_')
			continue;
		for (*k = 0; *k < NIC_KPROBES_MAX && m->kprobes[*k].role; (*k)++)
			if (!strcmp(name + 12 + n, m->kprobes[*k].role))
				return 0;
	}
	return -1;
}

static const char *default_names;

const char *traceset_default_names(void)
{
	if (!default_names) {
		struct sbuf b;

		sbuf_init(&b);
		for (size_t i = 0; i < ARRAY_SIZE(tracepoints); i++)
			if (tracepoints[i].dflt)
				sbuf_addf(&b, "%s%s", b.len ? " " : "", tracepoints[i].name);
		for (size_t i = 0; i < ARRAY_SIZE(kprobes); i++)
			if (kprobes[i].dflt)
				sbuf_addf(&b, " netlab:%s", kprobes[i].name);
		sbuf_adds(&b, " " DRV_LINES);
		default_names = sbuf_detach(&b);
	}
	return default_names;
}

static int kprobe_find(const char *name)
{
	if (strncmp(name, "netlab:", 7))
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(kprobes); i++)
		if (!strcmp(kprobes[i].name, name + 7))
			return (int)i;
	return -1;
}

bool traceset_is_catalogued(const char *name)
{
	size_t d, k;

	return kprobe_find(name) >= 0 || !strcmp(name, DRV_LINES) || drvprobe_pseudo(name) >= -1 ||
	       !drvprobe_find(name, &d, &k);
}

bool traceset_has_drv_lines(const struct traceset *ts)
{
	for (size_t i = 0; i < ts->n; i++)
		if (!strcmp(ts->ev[i].name, DRV_LINES))
			return true;
	return false;
}

bool traceset_spec_ok(const char *e)
{
	const char *colon = strchr(e, ':');

	return colon && colon != e && colon[1] && !strchr(colon + 1, ':') &&
	       strspn(e, "abcdefghijklmnopqrstuvwxyz0123456789_:*") == strlen(e);
}

static bool ident_ok(const char *s, size_t n)
{
	if (!n || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '.')
			return false;
	return true;
}

const char *traceset_probe_check(const char *name, const char *def)
{
	size_t flen = strcspn(def, " ");

	if (!ident_ok(name, strlen(name)) || strchr(name, '.'))
		return "the probe name must be a C identifier (letters, digits, _)";
	for (size_t i = 0; i < ARRAY_SIZE(kprobes); i++)
		if (!strcmp(kprobes[i].name, name))
			return "the probe name is one of netlab's own kprobe events: choose another";
	if (!strncmp(name, "netlab", 6) || !strncmp(name, "drv_", 4))
		return "the probe name is one of netlab's own kprobe events: choose another";
	if (!ident_ok(def, flen))
		return "expected FUNCTION [NAME=FETCHARG...], e.g. tcp_ack skb=$arg2:x64";
	/* Fetch args: $argN, %reg, +OFF(...), @sym, :type. No quoting or shell. */
	if (strspn(def + flen, " abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_=$%+-()@:.[]/") !=
	    strlen(def + flen))
		return "fetch args may hold letters, digits and _ = $ % + - ( ) @ : . [ ] / only";
	return NULL;
}

static struct trace_event *ts_add(struct traceset *ts, const char *name, char *probe,
				   const char *filter)
{
	for (size_t i = 0; i < ts->n; i++)
		if (!strcmp(ts->ev[i].name, name)) {
			free(probe);
			return NULL;
		}
	ts->ev = xrealloc_array(ts->ev, ts->n + 1, sizeof(*ts->ev));
	memset(&ts->ev[ts->n], 0, sizeof(*ts->ev));
	ts->ev[ts->n].name = xstrdup(name);
	ts->ev[ts->n].probe = probe;
	ts->ev[ts->n].filter = filter ? xstrdup(filter) : NULL;
	return &ts->ev[ts->n++];
}

/* Probe @k of NIC model @d as an optional probe of the set. */
static void ts_add_drvprobe(struct traceset *ts, size_t d, size_t k, const struct kernel_offsets *o)
{
	const char *drv = nic_models[d].driver;
	const struct nic_kprobe *p = &nic_models[d].kprobes[k];
	char *name = xasprintf("netlab:drv_%s_%s", drv, p->role);
	char *args = xasprintf(p->args, 0u, o->skb_len);
	struct trace_event *e = ts_add(ts, name,
				       xasprintf("%c:netlab/%s %s %s", p->type_func[0], name + 7,
						 p->type_func + 2, args),
				       NULL);

	if (e) {
		e->driver = xstrdup(drv);
		e->func = xstrdup(p->type_func + 2);
	}
	free(args);
	free(name);
}

static void ts_add_name(struct traceset *ts, const char *name, const struct kernel_offsets *o)
{
	int k, d = drvprobe_pseudo(name);
	size_t pd, pk;

	if (d >= -1) {
		for (size_t m = 0; m < nic_models_n; m++)
			for (size_t i = 0; (d == -1 || (size_t)d == m) && i < NIC_KPROBES_MAX &&
					   nic_models[m].kprobes[i].role;
			     i++)
				ts_add_drvprobe(ts, m, i, o);
		return;
	}
	if (!drvprobe_find(name, &pd, &pk)) {
		ts_add_drvprobe(ts, pd, pk, o);
		return;
	}
	k = kprobe_find(name);

	if (k >= 0) {
		char *args = xasprintf(kprobes[k].args, o->skb_data, o->skb_len);
		char *sock = kprobes[k].sock ? sock_args(o) : NULL;
		char *def = xasprintf("%c:netlab/%s %s %s%s%s", kprobes[k].type_func[0],
				      kprobes[k].name, kprobes[k].type_func + 2, sock ? sock : "",
				      sock ? " " : "", args);

		free(sock);
		free(args);
		ts_add(ts, name, def, NULL);
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(tracepoints); i++)
		if (!strcmp(tracepoints[i].name, name)) {
			ts_add(ts, name, NULL, tracepoints[i].filter);
			return;
		}
	ts_add(ts, name, NULL, NULL);
}

static void ts_add_list(struct traceset *ts, const char *list, const struct kernel_offsets *o)
{
	char *copy = xstrdup(list), *save = NULL;

	for (char *e = strtok_r(copy, " \t", &save); e; e = strtok_r(NULL, " \t", &save))
		ts_add_name(ts, e, o);
	free(copy);
}

void traceset_build(const char *events, const char *add, const char *drop,
		    char *const *probe_names, char *const *probe_defs, size_t n_probes,
		    const struct kernel_offsets *off, struct traceset *out)
{
	memset(out, 0, sizeof(*out));
	ts_add_list(out, events ? events : traceset_default_names(), off);
	out->gro_for_handoff = !events && !(add && strstr(add, "napi_gro_receive_entry"));
	if (add)
		ts_add_list(out, add, off);
	for (size_t i = 0; i < n_probes; i++) {
		char *name = xasprintf("netlab:%s", probe_names[i]);
		size_t flen = strcspn(probe_defs[i], " ");

		ts_add(out, name, xasprintf("p:netlab/%s %.*s%s", probe_names[i], (int)flen,
					    probe_defs[i], probe_defs[i] + flen), NULL);
		free(name);
	}
	if (drop)
		traceset_drop_names(out, drop);
}

void traceset_add_names(struct traceset *ts, const char *names, const struct kernel_offsets *off)
{
	ts_add_list(ts, names, off);
}

static void ev_release(struct trace_event *e)
{
	free(e->name);
	free(e->probe);
	free(e->filter);
	free(e->driver);
	free(e->func);
	free(e->addr);
}

void traceset_drop_names(struct traceset *ts, const char *names)
{
	char *copy = xstrdup(names), *save = NULL;

	for (char *e = strtok_r(copy, " \t", &save); e; e = strtok_r(NULL, " \t", &save))
		for (size_t i = 0; i < ts->n; i++)
			if (!strcmp(ts->ev[i].name, e)) {
				ev_release(&ts->ev[i]);
				memmove(&ts->ev[i], &ts->ev[i + 1], (ts->n - i - 1) * sizeof(*ts->ev));
				ts->n--;
				break;
			}
	free(copy);
}

void traceset_release(struct traceset *ts)
{
	for (size_t i = 0; i < ts->n; i++)
		ev_release(&ts->ev[i]);
	free(ts->ev);
	memset(ts, 0, sizeof(*ts));
}

/* One System.map symbol of the fallback probes: its name and address. */
struct msym {
	const char *name;
	unsigned long long addr;
};

static int drv_index(const char *driver)
{
	const struct nic_model *m = nic_model_by_driver(driver);

	return m ? (int)nic_model_index(m) : -1;
}

/*
 * The kernel takes $argN only in a probe placed by function name; at an
 * address, the x86_64 argument registers say the same at the entry.
 * "$argN" (N 1..6) -> "%di" ...: never longer, rewritten in place.
 */
static void probe_args_to_regs(char *def)
{
	static const char *const regs[] = { "%di", "%si", "%dx", "%cx", "%r8", "%r9" };
	char *p;

	while ((p = strstr(def, "$arg")) && p[4] >= '1' && p[4] <= '6') {
		memcpy(p, regs[p[4] - '1'], 3);
		memmove(p + 3, p + 5, strlen(p + 5) + 1);
	}
}

int traceset_drvprobe_resolve(struct traceset *ts, const char *sysmap)
{
	char *text = NULL, *save = NULL;
	struct msym *syms = NULL;
	size_t n = 0;
	int ret = sysmap ? file_read(sysmap, &text, NULL) : -ENOENT;

	if (ret)
		return ret;
	/* "ffffffff8126dfce t e1000e_poll": the text symbols the set probes. */
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(l, ' ');
		bool want = false;

		if (!sp || (sp[1] != 't' && sp[1] != 'T') || sp[2] != ' ')
			continue;
		for (size_t i = 0; i < ts->n && !want; i++)
			want = ts->ev[i].func && !strcmp(ts->ev[i].func, sp + 3);
		for (size_t d = 0; d < nic_models_n && !want; d++)
			want = !strcmp(nic_models[d].poll_func, sp + 3);
		if (!want)
			continue;
		syms = xrealloc_array(syms, n + 1, sizeof(*syms));
		syms[n].name = sp + 3;
		syms[n++].addr = strtoull(l, NULL, 16);
	}
	for (size_t i = 0; i < ts->n; i++) {
		struct trace_event *e = &ts->ev[i];
		unsigned long long anchor = 0, best = 0, dist = ~0ull;
		size_t copies = 0;
		int d = e->driver ? drv_index(e->driver) : -1;

		if (d < 0)
			continue;
		for (size_t k = 0; k < n; k++)
			if (!strcmp(syms[k].name, nic_models[d].poll_func))
				anchor = syms[k].addr;
		for (size_t k = 0; k < n; k++) {
			unsigned long long a = syms[k].addr;

			if (strcmp(syms[k].name, e->func))
				continue;
			copies++;
			if ((a > anchor ? a - anchor : anchor - a) < dist) {
				dist = a > anchor ? a - anchor : anchor - a;
				best = a;
			}
		}
		free(e->addr);
		e->addr = NULL;
		if (copies > 1 && anchor) {
			e->addr = xasprintf("%016llx", best);
			probe_args_to_regs(e->probe);
		}
	}
	free(syms);
	free(text);
	return 0;
}

unsigned int traceset_buffer_kb(const struct traceset *ts, unsigned int mem_mb, unsigned int cpus)
{
	/*
	 * trace-cmd record streams each CPU's buffer to the file while the
	 * traffic runs, and its reader kept up: a 16 KB buffer lost no event
	 * under the UDP flood with the whole default set (per_cpu/cpu0/stats
	 * overrun 0 of 279160 events read). On a kernel with SLOB (tinyconfig's
	 * allocator, netlab's kernel's) a larger buffer also cost
	 * throughput by itself, traced or not: a 256 MB guest with only
	 * buffer_size_kb raised and tracing off kept 0.94 (1 MB), 0.73 (4 MB),
	 * 0.47 (16 MB) and 0.23 (64 MB) of the UDP flood's packet rate
	 * (Documentation/design/tracing-cost.md); with SLUB it costs nothing.
	 * So 1 MB per CPU, whatever the set (the loss, if any, is reported as
	 * lost events), and never more than an eighth of the guest's memory.
	 */
	unsigned long kb = TRACESET_BUFFER_KB;
	unsigned long cap = (unsigned long)mem_mb * 1024 / 8 / (cpus ? cpus : 1);

	(void)ts;
	if (cap >= 64 && kb > cap)
		kb = cap;
	return (unsigned int)kb;
}

static bool drvprobes_in(const struct traceset *ts)
{
	for (size_t i = 0; i < ts->n; i++)
		if (ts->ev[i].driver)
			return true;
	return false;
}

/*
 * The fallback probes: a shell function that defines one when the kernel has
 * its function (at the address System.map gave, if /proc/kallsyms agrees),
 * and collects the -e options of those defined in $DP.
 */
static void script_drvprobes(const struct traceset *ts, struct sbuf *o)
{
	bool addr = false;

	for (size_t i = 0; i < ts->n; i++)
		addr |= ts->ev[i].addr != NULL;
	if (!drvprobes_in(ts))
		return;
	sbuf_adds(o, "DP=; DPON=; DPSKIP=; KS=\n");
	if (ts->drvprobe_unless_lines) {
		sbuf_adds(o, "for d in");
		for (size_t d = 0; d < nic_models_n; d++)
			sbuf_addf(o, " %s", nic_models[d].driver);
		sbuf_adds(o, "; do { [ -d /sys/kernel/tracing/events/netlab_drv/${d}_poll_start ] || "
			     "grep -q \"netlab_drv: $d \" /sys/kernel/tracing/printk_formats; } "
			     "2>/dev/null && DPSKIP=\"$DPSKIP $d\"; done\n");
	}
	if (addr) {
		sbuf_adds(o, "KS=$(grep -wE '");
		for (size_t i = 0, n = 0; i < ts->n; i++) {
			bool dup = false;

			for (size_t j = 0; j < i && ts->ev[i].addr; j++)
				dup |= ts->ev[j].addr && !strcmp(ts->ev[j].func, ts->ev[i].func);
			if (ts->ev[i].addr && !dup)
				sbuf_addf(o, "%s%s", n++ ? "|" : "", ts->ev[i].func);
		}
		sbuf_adds(o, "' /proc/kallsyms)\n");
	}
	sbuf_adds(o, "drvprobe() { # DRIVER EVENT TYPE:GROUP/NAME FUNCTION ADDRESS ARGS\n"
		     "\tcase \" $DPSKIP \" in *\" $1 \"*) return 0;; esac\n"
		     "\tat=$4\n"
		     "\tif [ -n \"$5\" ]; then\n"
		     "\t\techo \"$KS\" | grep -q \"^$5 [tT] $4\\$\" || return 0\n"
		     "\t\tat=0x$5\n\tfi\n"
		     "\techo \"$3 $at $6\" >> $KE 2>/dev/null || return 0\n"
		     "\tDP=\"$DP -e $2\"; DPON=\"$DPON ${2#netlab:}\"\n}\n");
}

static void script_drvprobe(const struct trace_event *e, struct sbuf *o)
{
	size_t head = strcspn(e->probe, " ");
	const char *args = e->probe + head + 1 + strlen(e->func);

	sbuf_addf(o, "drvprobe %s %s %.*s %s '%s' '%s'\n", e->driver, e->name, (int)head, e->probe,
		  e->func, e->addr ? e->addr : "", *args ? args + 1 : "");
}

void traceset_script_start(const struct traceset *ts, unsigned int buffer_kb, struct sbuf *o)
{
	bool probes = false;

	for (size_t i = 0; i < ts->n; i++) {
		if (!ts->ev[i].probe)
			continue;
		if (!probes) {
			sbuf_adds(o, "KE=/sys/kernel/tracing/kprobe_events\n");
			script_drvprobes(ts, o);
		}
		probes = true;
		if (ts->ev[i].driver) {
			script_drvprobe(&ts->ev[i], o);
			continue;
		}
		/* The kernel says why in tracing/error_log; keep its last line. */
		sbuf_addf(o, "echo '%s' >> $KE 2>/dev/null || setup_error \"[trace]: the kernel refused "
			     "kprobe event %s: $(tail -n 2 /sys/kernel/tracing/error_log 2>/dev/null | tr '\\n' ' ')\"\n",
			  ts->ev[i].probe, ts->ev[i].name);
	}
	/*
	 * File version 6 (uncompressed): libtracecmd before 1.5 keeps every
	 * decompressed chunk of a version 7 file, so the host's streaming
	 * analysis would grow with the trace.
	 */
	bool top = traceset_has_drv_lines(ts);
	const char *dir = top ? "/sys/kernel/tracing" : "/sys/kernel/tracing/instances/" INSTANCE;

	if (drvprobes_in(ts))
		sbuf_adds(o, "echo \"defined:$DPON; left out for drivers with netlab_drv lines:"
			     "$DPSKIP\" > $O/drvprobe.txt\n");

	/*
	 * The driver lines: tracepoints (system netlab_drv) in a kernel built
	 * with today's patches, trace_printk into the top buffer in one built
	 * with older ones. Recording in the top buffer takes either.
	 */
	if (top)
		sbuf_adds(o, "DRVEV=; [ -d /sys/kernel/tracing/events/netlab_drv ] && "
			     "DRVEV=' -e netlab_drv'\n");
	sbuf_addf(o, "trace-cmd record --file-version 6%s -b %u%s", top ? "" : " -B " INSTANCE,
		  buffer_kb, top ? "$DRVEV" : "");
	for (size_t i = 0; i < ts->n; i++) {
		if (!strcmp(ts->ev[i].name, DRV_LINES) || ts->ev[i].driver)
			continue;
		sbuf_addf(o, " -e %s", ts->ev[i].name);
		if (ts->ev[i].filter)
			sbuf_addf(o, " -f '%s'", ts->ev[i].filter);
	}
	if (drvprobes_in(ts))
		sbuf_adds(o, " $DP");
	sbuf_adds(o, " -o $O/trace.dat > $O/trace-cmd.log 2>&1 &\nT=$!\n");
	/*
	 * trace-cmd turns tracing off, sets the events, starts its readers
	 * and turns tracing on last: wait for that.
	 */
	sbuf_addf(o, "i=0; until grep -q . %s/set_event 2>/dev/null &&\n"
		     "\t[ \"$(cat %s/tracing_on 2>/dev/null)\" = 1 ]; do\n", dir, dir);
	sbuf_adds(o,
		     "\ti=$((i+1)); [ $i -gt 400 ] && setup_error \"[trace]: trace-cmd record did not "
		     "start: $(tail -n 2 $O/trace-cmd.log)\"\n"
		     "\tkill -0 $T 2>/dev/null || setup_error \"[trace]: trace-cmd record failed: "
		     "$(tail -n 2 $O/trace-cmd.log)\"\n\tsleep 0.05\ndone\n");
}
