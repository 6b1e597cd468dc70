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

#include "traceset.h"
#include "util.h"

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
	struct sbuf out;
	char *cmd, *line, buf[4096];
	FILE *f;
	size_t n;
	int ret;

	argv_init(&a);
	argv_add(&a, "timeout");
	argv_add(&a, "120");
	argv_add(&a, "gdb");
	argv_add(&a, "-batch");
	argv_add(&a, "-nx");
	for (size_t i = 0; i < N_OFFSETS; i++)
		argv_addf(&a, "-ex=print/d (long)%s", offset_exprs[i].expr);
	argv_add(&a, vmlinux);
	line = argv_to_shell(&a);
	cmd = xasprintf("%s 2>/dev/null", line);
	free(line);
	argv_release(&a);
	f = popen(cmd, "r");
	free(cmd);
	if (!f)
		return -errno;
	sbuf_init(&out);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		sbuf_add(&out, buf, n);
	ret = pclose(f);
	if (ret == 0) {
		char *text = sbuf_detach(&out);
		char *first = strstr(text, "$1 =");

		ret = first ? offsets_parse(first, k) : -EINVAL;
		free(text);
	} else {
		sbuf_release(&out);
		ret = -EINVAL;
	}
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

/* Fetch args: %1$u data, %2$u len, %3$u daddr, %4$u rcv_saddr, %5$u dport, %6$u num, %7$u family */
#define IPHDR(S)                                                                    \
	"len=+%2$u(" S "):u32 vihl=+0(+%1$u(" S ")):u8 frag=+6(+%1$u(" S ")):u16 "   \
	"proto=+9(+%1$u(" S ")):u8 "                                                   \
	"saddr=+12(+%1$u(" S ")):u32 daddr=+16(+%1$u(" S ")):u32 "                 \
	"sport=+20(+%1$u(" S ")):u16 dport=+22(+%1$u(" S ")):u16 "                 \
	"tcpflags=+33(+%1$u(" S ")):u8"
#define SOCK(S)                                                                     \
	"sk=" S ":x64 family=+%7$u(" S "):u16 saddr=+%4$u(" S "):u32 "             \
	"daddr=+%3$u(" S "):u32 sport=+%6$u(" S "):u16 dport=+%5$u(" S "):u16"

static const struct {
	const char *name;	/* without "netlab:" */
	const char *type_func;	/* "p FUNCTION" */
	const char *args;	/* printf format over the offsets */
	bool dflt;
} kprobes[] = {
	{ "ip_local_deliver", "p ip_local_deliver", "skb=$arg1:x64 " IPHDR("$arg1"), true },
	{ "tcp_v4_rcv", "p tcp_v4_rcv", "skb=$arg1:x64", true },
	{ "udp_rcv", "p udp_rcv", "skb=$arg1:x64", true },
	{ "skb_copy_csum", "p skb_copy_and_csum_datagram_msg", "skb=$arg1:x64", true },
	/*
	 * The skb udp_recvmsg() takes off the socket for the application: a
	 * linear UDP skb is then copied by copy_linear_skb(), which has no
	 * tracepoint, so this return is the receive path's copy stage.
	 */
	{ "udp_recv_skb", "r __skb_recv_udp", "skb=$retval:x64", true },
	{ "tcp_recvmsg", "p tcp_recvmsg", SOCK("$arg1") " size=$arg3:u64", true },
	{ "udp_recvmsg", "p udp_recvmsg", SOCK("$arg1") " size=$arg3:u64", true },
	{ "tcp_sendmsg", "p tcp_sendmsg", SOCK("$arg1") " size=$arg3:u64", true },
	{ "udp_sendmsg", "p udp_sendmsg", SOCK("$arg1") " size=$arg3:u64", true },
	{ "ip_output", "p ip_output", "skb=$arg3:x64 " IPHDR("$arg3"), true },
	/* Not in the default set: the list-receive entry and the TCP clone point. */
	{ "ip_rcv", "p ip_rcv", "skb=$arg1:x64", false },
	{ "ip_queue_xmit", "p ip_queue_xmit", "skb=$arg2:x64 " SOCK("$arg1"), false },
};

static const struct {
	const char *name;
	const char *filter;
} tracepoints[] = {
	{ "skb:kfree_skb", NULL },
	{ "skb:consume_skb", NULL },
	{ "skb:skb_copy_datagram_iovec", NULL },
	{ "net:napi_gro_receive_entry", NULL },
	{ "net:netif_receive_skb", NULL },
	{ "net:net_dev_queue", NULL },
	{ "net:net_dev_start_xmit", NULL },
	{ "net:net_dev_xmit", NULL },
	{ "qdisc:qdisc_dequeue", NULL },
	{ "napi:napi_poll", NULL },
	{ "irq:irq_handler_entry", NULL },
	{ "irq:irq_handler_exit", NULL },
	/* NET_TX (2) and NET_RX (3) only: timers and RCU would swamp the buffer. */
	{ "irq:softirq_raise", "vec == 2 || vec == 3" },
	{ "irq:softirq_entry", "vec == 2 || vec == 3" },
	{ "irq:softirq_exit", "vec == 2 || vec == 3" },
	{ "sock:sock_rcvqueue_full", NULL },
	{ "udp:udp_fail_queue_rcv_skb", NULL },
	{ "tcp:tcp_retransmit_skb", NULL },
	{ "tcp:tcp_send_reset", NULL },
};

/*
 * The driver patches' trace_printk lines: not an event but the top-level
 * ring buffer, the only one trace_printk writes to. A set with it records
 * there; a set without it records in an instance, so the top buffer stays
 * off and the patched drivers skip their lines (see driver-patches/).
 */
#define DRV_LINES "netlab:drv"
#define INSTANCE "netlab"

static const char *default_names;

const char *traceset_default_names(void)
{
	if (!default_names) {
		struct sbuf b;

		sbuf_init(&b);
		for (size_t i = 0; i < ARRAY_SIZE(tracepoints); i++)
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
	return kprobe_find(name) >= 0 || !strcmp(name, DRV_LINES);
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
	if (!strncmp(name, "netlab", 6))
		return "the probe name is one of netlab's own kprobe events: choose another";
	if (!ident_ok(def, flen))
		return "expected FUNCTION [NAME=FETCHARG...], e.g. tcp_ack skb=$arg2:x64";
	/* Fetch args: $argN, %reg, +OFF(...), @sym, :type. No quoting or shell. */
	if (strspn(def + flen, " abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_=$%+-()@:.[]/") !=
	    strlen(def + flen))
		return "fetch args may hold letters, digits and _ = $ % + - ( ) @ : . [ ] / only";
	return NULL;
}

static void ts_add(struct traceset *ts, const char *name, char *probe, const char *filter)
{
	for (size_t i = 0; i < ts->n; i++)
		if (!strcmp(ts->ev[i].name, name)) {
			free(probe);
			return;
		}
	ts->ev = realloc(ts->ev, (ts->n + 1) * sizeof(*ts->ev));
	if (!ts->ev)
		abort();
	ts->ev[ts->n].name = xstrdup(name);
	ts->ev[ts->n].probe = probe;
	ts->ev[ts->n].filter = filter ? xstrdup(filter) : NULL;
	ts->n++;
}

static void ts_add_name(struct traceset *ts, const char *name, const struct kernel_offsets *o)
{
	int k = kprobe_find(name);

	if (k >= 0) {
		char *args = xasprintf(kprobes[k].args, o->skb_data, o->skb_len, o->sk_daddr,
				       o->sk_rcv_saddr, o->sk_dport, o->sk_num, o->sk_family);
		char *def = xasprintf("%c:netlab/%s %s %s", kprobes[k].type_func[0], kprobes[k].name,
				      kprobes[k].type_func + 2, args);

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
	if (add)
		ts_add_list(out, add, off);
	for (size_t i = 0; i < n_probes; i++) {
		char *name = xasprintf("netlab:%s", probe_names[i]);
		size_t flen = strcspn(probe_defs[i], " ");

		ts_add(out, name, xasprintf("p:netlab/%s %.*s%s", probe_names[i], (int)flen,
					    probe_defs[i], probe_defs[i] + flen), NULL);
		free(name);
	}
	if (drop) {
		char *copy = xstrdup(drop), *save = NULL;

		for (char *e = strtok_r(copy, " \t", &save); e; e = strtok_r(NULL, " \t", &save))
			for (size_t i = 0; i < out->n; i++)
				if (!strcmp(out->ev[i].name, e)) {
					free(out->ev[i].name);
					free(out->ev[i].probe);
					free(out->ev[i].filter);
					memmove(&out->ev[i], &out->ev[i + 1],
						(out->n - i - 1) * sizeof(*out->ev));
					out->n--;
					break;
				}
		free(copy);
	}
}

void traceset_release(struct traceset *ts)
{
	for (size_t i = 0; i < ts->n; i++) {
		free(ts->ev[i].name);
		free(ts->ev[i].probe);
		free(ts->ev[i].filter);
	}
	free(ts->ev);
	memset(ts, 0, sizeof(*ts));
}

unsigned int traceset_buffer_kb(const struct traceset *ts, unsigned int mem_mb, unsigned int cpus)
{
	/*
	 * trace-cmd record streams each CPU's buffer to the file, so the
	 * buffer only has to hold what arrives while the reader lags: about
	 * 1 MB per event kind per CPU covers a 1 s lag at the TCG packet
	 * rates we measured. Never more than an eighth of the guest's memory.
	 */
	unsigned long kb = 1024ul * (ts->n ? ts->n : 1);
	unsigned long cap = (unsigned long)mem_mb * 1024 / 8 / (cpus ? cpus : 1);

	if (kb < 4096)
		kb = 4096;
	if (kb > 32768)
		kb = 32768;
	if (cap >= 1024 && kb > cap)
		kb = cap;
	return (unsigned int)kb;
}

void traceset_script_start(const struct traceset *ts, unsigned int buffer_kb, struct sbuf *o)
{
	bool probes = false;

	for (size_t i = 0; i < ts->n; i++) {
		if (!ts->ev[i].probe)
			continue;
		if (!probes)
			sbuf_adds(o, "KE=/sys/kernel/tracing/kprobe_events\n");
		probes = true;
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

	sbuf_addf(o, "trace-cmd record --file-version 6%s -b %u", top ? "" : " -B " INSTANCE,
		  buffer_kb);
	for (size_t i = 0; i < ts->n; i++) {
		if (!strcmp(ts->ev[i].name, DRV_LINES))
			continue;
		sbuf_addf(o, " -e %s", ts->ev[i].name);
		if (ts->ev[i].filter)
			sbuf_addf(o, " -f '%s'", ts->ev[i].filter);
	}
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
