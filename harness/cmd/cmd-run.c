// SPDX-License-Identifier: GPL-2.0
/*
 * netlab run: boot a kernel with the topology's NICs, run one command in the
 * guest, and exit with its status.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "vm/backend.h"

#define DEFAULT_EXEC "/sbin/ip -br addr; /sbin/ip -n b -br addr"

static const char run_usage[] =
	"usage: netlab run [options]\n"
	"  -e, --exec CMD        shell command to run in the guest (default: show addresses)\n"
	"      --kernel FILE     bzImage (default: $KERNEL, else the one 'make kernel' built)\n"
	"      --flavour NAME    the kernel of flavour NAME (kconfigs/flavours/NAME), the one\n"
	"                        'make kernel FLAVOUR=NAME' built (default: 'default')\n"
	"      --initrd FILE     base initramfs (default: the one 'make guest' built)\n"
	"      --modules DIR     the kernel's lib/modules/VERSION (or a kernel package\n"
	"                        unpacked with dpkg -x): its NIC drivers, virtio, qdisc and\n"
	"                        9p modules, with their dependencies, loaded at boot\n"
	"      --accel MODE      auto|kvm|tcg (default auto: probe KVM once, fall back to TCG)\n"
	"      --timeout S       stop the guest after S seconds (default 300)\n"
	"  -o, --out DIR         run directory (default runs/run-DATE-PID); must be new or empty\n"
	"      --topology NAME   loop|pair|none, a topology file's name (harness/vm/topologies/)\n"
	"                        or FILE.topo (default loop)\n"
	"      --peer-exec CMD   pair: command for VM B (default: idle until A's command ends)\n"
	"      --peer-kernel F   pair: bzImage for VM B (default: --kernel)\n"
	"      --nic L=MODEL     NIC model for NIC L (A, B): %s\n"
	"      --append ARGS     extra kernel command line\n"
	"      --mem MB          guest memory (default 256)\n"
	"      --smp N           guest CPUs (default 1)\n"
	"      --snaplen BYTES   bytes kept of each frame in the NIC captures (default 256:\n"
	"                        headers; 0 = whole frames)\n"
	"      --sysctl N=V      set guest sysctl N (dotted, e.g. net.core.rmem_max) to V\n"
	"      --acpi FILE       ACPI table for the kernel's initrd table upgrade: .asl/.dsl\n"
	"                        (compiled with iasl) or .aml; repeatable (see RUN_DIR/acpi.json)\n"
	CMD_SHARE_HELP
	"      --icount SHIFT    deterministic TCG: virtual time follows instruction count\n"
	"                        (QEMU -icount shift=SHIFT,sleep=off; 3 is a good start)\n"
	"      --record[=VM]     record the run with QEMU record/replay (TCG): every VM, or VM a\n"
	"                        or b; replay it with 'netlab gdb --replay RUN_DIR'\n"
	"      --qemu PATH       QEMU binary (default qemu-system-x86_64)\n"
	"      --backend NAME    qemu (default: QEMU processes of netlab's own) or libvirt\n"
	"                        (transient libvirt domains, see README \"libvirt backend\")\n"
	"      --connect URI     libvirt URI (implies --backend libvirt; default\n"
	"                        $NETLAB_LIBVIRT_URI, else qemu:///system as root, else qemu:///session)\n"
	"      --domain-name N   libvirt domain name (N-a, N-b for a pair; default netlab-HOST-PID-N)\n"
	"      --print-xml       print the libvirt domain XML of each VM and exit\n"
	"  -v, --verbose         stream the guest console to stderr\n"
	"  -q, --quiet           do not stream the command's output\n"
	"exit status: the command's, 1 on timeout or panic, 2 on bad input,\n"
	"125 when the guest could not boot or QEMU failed, 130 when interrupted.\n";

enum {
	OPT_KERNEL = 256, OPT_INITRD, OPT_MODULES, OPT_ACCEL, OPT_TIMEOUT, OPT_TOPOLOGY, OPT_NIC,
	OPT_APPEND, OPT_MEM, OPT_SMP, OPT_QEMU, OPT_ICOUNT, OPT_SYSCTL, OPT_PEER_EXEC, OPT_PEER_KERNEL,
	OPT_ACPI, OPT_RECORD, OPT_BACKEND, OPT_CONNECT, OPT_DOMAIN_NAME, OPT_PRINT_XML, OPT_SNAPLEN,
	OPT_SHARE, OPT_ADD, OPT_FLAVOUR,
};

static const struct option run_longopts[] = {
	{ "exec", required_argument, NULL, 'e' },
	{ "kernel", required_argument, NULL, OPT_KERNEL },
	{ "flavour", required_argument, NULL, OPT_FLAVOUR },
	{ "initrd", required_argument, NULL, OPT_INITRD },
	{ "modules", required_argument, NULL, OPT_MODULES },
	{ "accel", required_argument, NULL, OPT_ACCEL },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "out", required_argument, NULL, 'o' },
	{ "topology", required_argument, NULL, OPT_TOPOLOGY },
	{ "nic", required_argument, NULL, OPT_NIC },
	{ "append", required_argument, NULL, OPT_APPEND },
	{ "mem", required_argument, NULL, OPT_MEM },
	{ "snaplen", required_argument, NULL, OPT_SNAPLEN },
	{ "smp", required_argument, NULL, OPT_SMP },
	{ "qemu", required_argument, NULL, OPT_QEMU },
	{ "icount", required_argument, NULL, OPT_ICOUNT },
	{ "sysctl", required_argument, NULL, OPT_SYSCTL },
	{ "peer-exec", required_argument, NULL, OPT_PEER_EXEC },
	{ "peer-kernel", required_argument, NULL, OPT_PEER_KERNEL },
	{ "acpi", required_argument, NULL, OPT_ACPI },
	{ "share", required_argument, NULL, OPT_SHARE },
	{ "add", required_argument, NULL, OPT_ADD },
	{ "record", optional_argument, NULL, OPT_RECORD },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "connect", required_argument, NULL, OPT_CONNECT },
	{ "domain-name", required_argument, NULL, OPT_DOMAIN_NAME },
	{ "print-xml", no_argument, NULL, OPT_PRINT_XML },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_nic(const char *arg, struct run_opts *o, char **err)
{
	int i;

	if (strlen(arg) < 3 || arg[1] != '=' || (i = vm_nic_index(arg[0])) < 0) {
		err_set(err, "--nic '%s': expected L=MODEL with L a NIC label (A, B)", arg);
		return -EINVAL;
	}
	if (!nic_model_find(arg + 2)) {
		err_set(err, "--nic '%s': unknown NIC model '%s'\nhint: choose one of: %s", arg,
			arg + 2, nic_model_list());
		return -EINVAL;
	}
	o->nic_model[i] = arg + 2;
	return 0;
}

static int parse_sysctl(const char *arg, struct run_cmd *rc, char **err)
{
	const char *eq = strchr(arg, '=');

	if (!eq || eq == arg || !eq[1] || strspn(arg, "abcdefghijklmnopqrstuvwxyz0123456789_.-") !=
						    (size_t)(eq - arg)) {
		err_set(err, "--sysctl '%s': expected NAME=VALUE, NAME dotted like net.core.rmem_max",
			arg);
		return -EINVAL;
	}
	rc->job_lines = xrealloc_array(rc->job_lines, rc->n_job_lines + 1, sizeof(char *));
	rc->job_lines[rc->n_job_lines++] = xasprintf("sysctl.%s", arg);
	rc->opts.job_lines = (const char *const *)rc->job_lines;
	rc->opts.n_job_lines = rc->n_job_lines;
	return 0;
}

/* --acpi FILE: the array is ours (run_cmd_release), the strings argv's. */
static int parse_acpi(const char *arg, struct run_opts *o, char **err)
{
	const char **v;

	if (!*arg) {
		err_set(err, "--acpi '': expected an .asl, .dsl or .aml file");
		return -EINVAL;
	}
	v = xrealloc_array((void *)o->acpi, o->n_acpi + 1, sizeof(*v));
	v[o->n_acpi++] = arg;
	o->acpi = v;
	return 0;
}

static int parse_num(const char *opt, const char *arg, unsigned long min, unsigned long max,
		     unsigned int *out, char **err)
{
	unsigned long v;

	if (parse_uint(arg, min, max, &v)) {
		err_set(err, "%s '%s': expected a whole number from %lu to %lu", opt, arg, min,
			max);
		return -EINVAL;
	}
	*out = (unsigned int)v;
	return 0;
}

static int parse_one(int c, const char *arg, struct run_cmd *rc, char **err)
{
	struct run_opts *o = &rc->opts;

	switch (c) {
	case 'e': o->exec = arg; return 0;
	case OPT_KERNEL: o->kernel = arg; return 0;
	case OPT_FLAVOUR: return cmd_parse_flavour("--flavour", arg, &rc->flavour, err);
	case OPT_INITRD: o->initrd = arg; return 0;
	case OPT_MODULES: o->modules = arg; return 0;
	case 'o': o->out = arg; return 0;
	case OPT_APPEND: o->append = arg; return 0;
	case OPT_QEMU: o->qemu = arg; return 0;
	case OPT_PEER_EXEC: o->peer_exec = arg; return 0;
	case OPT_PEER_KERNEL: o->peer_kernel = arg; return 0;
	case 'v': o->stream_console = true; return 0;
	case 'q': rc->quiet = true; return 0;
	case 'h': rc->help = true; return 0;
	case OPT_CONNECT: o->connect = arg; return 0;
	case OPT_DOMAIN_NAME: return cmd_parse_domain_name(arg, &o->domain_name, err);
	case OPT_PRINT_XML: rc->print_xml = true; return 0;
	case OPT_BACKEND:
		rc->backend_given = true;
		return vm_backend_lookup("--backend", arg, &o->backend, err);
	case OPT_NIC: return parse_nic(arg, o, err);
	case OPT_SYSCTL: return parse_sysctl(arg, rc, err);
	case OPT_ACPI: return parse_acpi(arg, o, err);
	case OPT_SHARE: return cmd_parse_share(arg, false, &rc->shares, err);
	case OPT_ADD: return cmd_parse_share(arg, true, &rc->shares, err);
	case OPT_TIMEOUT: return parse_num("--timeout", arg, 1, 86400, &o->timeout_s, err);
	case OPT_MEM: return parse_num("--mem", arg, 64, 65536, &o->mem_mb, err);
	case OPT_SMP: return parse_num("--smp", arg, 1, 64, &o->smp, err);
	case OPT_SNAPLEN: return cmd_parse_snaplen(arg, &o->snaplen, err);
	case OPT_ICOUNT: {
		unsigned int shift;

		if (parse_num("--icount", arg, 0, 10, &shift, err))
			return -EINVAL;
		o->icount_shift = (int)shift;
		return 0;
	}
	case OPT_RECORD:
		o->debug.rr = VM_RR_RECORD;
		o->debug.rr_vm = -1;
		if (!arg)
			return 0;
		if ((arg[0] == 'a' || arg[0] == 'b') && !arg[1]) {
			o->debug.rr_vm = arg[0] - 'a';
			return 0;
		}
		err_set(err, "--record='%s': expected a VM, a or b", arg);
		return -EINVAL;
	case OPT_ACCEL:
		if (vm_accel_parse(arg, &o->accel) == 0)
			return 0;
		err_set(err, "--accel '%s': expected auto, kvm or tcg", arg);
		return -EINVAL;
	case OPT_TOPOLOGY: {
		char *why = NULL;

		if (topology_lookup(arg, &why)) {
			o->topology = arg;
			return 0;
		}
		err_set(err, "--topology '%s': %s\nhint: choose one of: %s", arg, why,
			topology_list());
		free(why);
		return -EINVAL;
	}
	default:
		err_set(err, "bad option (see 'netlab run --help')");
		return -EINVAL;
	}
}

static void fill_defaults(struct run_cmd *rc)
{
	struct run_opts *o = &rc->opts;

	if (!o->exec)
		o->exec = DEFAULT_EXEC;
	if (!o->kernel)
		o->kernel = rc->own[0] = cmd_flavour_kernel(rc->flavour);
	if (!o->initrd)
		o->initrd = rc->own[1] = cmd_default_initrd();
	if (!o->out)
		o->out = rc->own[2] = cmd_default_out("run");
}

int run_cmd_parse(int argc, char **argv, struct run_cmd *rc, char **err)
{
	int c;

	memset(rc, 0, sizeof(*rc));
	run_opts_init(&rc->opts);
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+e:o:vqh", run_longopts, NULL)) != -1) {
		if (c == '?' || c == ':') {
			err_set(err, "bad option '%s' (see 'netlab run --help')",
				argv[optind - 1]);
			return -EINVAL;
		}
		if (parse_one(c, optarg, rc, err))
			return -EINVAL;
	}
	if (optind < argc) {
		err_set(err, "unexpected argument '%s'\nhint: quote the guest command: --exec 'CMD ARGS'",
			argv[optind]);
		return -EINVAL;
	}
	/* --connect and --print-xml imply a backend that can (libvirt). */
	if (rc->opts.connect && vm_backend_need(&rc->opts.backend, &rc->backend_given,
						VM_BACKEND_CAN_CONNECT, "--connect", err))
		return -EINVAL;
	if (rc->print_xml && vm_backend_need(&rc->opts.backend, &rc->backend_given,
					     VM_BACKEND_CAN_DESCRIBE, "--print-xml", err))
		return -EINVAL;
	fill_defaults(rc);
	if (cmd_check_flavour_kernel(rc->flavour, rc->opts.kernel, err))
		return -EINVAL;
	if (cmd_check_out(rc->opts.out, run_sock_below(rc->opts.topology), err))
		return -EINVAL;
	return cmd_shares_finish(&rc->shares, &rc->opts, err);
}

void run_cmd_release(struct run_cmd *rc)
{
	for (size_t i = 0; i < ARRAY_SIZE(rc->own); i++)
		free(rc->own[i]);
	for (size_t i = 0; i < rc->n_job_lines; i++)
		free(rc->job_lines[i]);
	free(rc->job_lines);
	free((void *)rc->opts.acpi);
	cmd_shares_release(&rc->shares);
}

static volatile sig_atomic_t run_stop;

static void on_signal(int sig)
{
	run_stop = sig;
}

static void on_output(void *ctx, enum run_stream s, const char *buf, size_t n)
{
	struct run_cmd *rc = ctx;
	FILE *f = s == RUN_STDOUT ? stdout : stderr;

	if (rc->quiet && s != RUN_CONSOLE)
		return;
	fwrite(buf, 1, n, f);
	fflush(f);
}

static void report(const struct run_cmd *rc, const struct run_result *res)
{
	fprintf(stderr, "netlab run: %s: %s\n", run_verdict_name(res->verdict),
		res->reason ? res->reason : "");
	if (res->oops && res->verdict == RV_PANIC)
		fprintf(stderr, "%s\n", res->oops);
	fprintf(stderr, "netlab run: run directory: %s\n", rc->opts.out);
}

int cmd_run(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct run_result res;
	struct run_cmd rc;
	char *err = NULL;
	int ret;

	if (run_cmd_parse(argc, argv, &rc, &err)) {
		cmd_error("run", err);
		free(err);
		run_cmd_release(&rc);
		return NL_EXIT_USAGE;
	}
	if (rc.help) {
		printf(run_usage, nic_model_list());
		run_cmd_release(&rc);
		return NL_EXIT_OK;
	}
	if (rc.print_xml) {
		struct sbuf xml;

		sbuf_init(&xml);
		ret = run_print_xml(&rc.opts, &xml, &err);
		if (ret)
			cmd_error("run", err);
		else
			fputs(xml.s, stdout);
		free(err);
		sbuf_release(&xml);
		run_cmd_release(&rc);
		return ret ? NL_EXIT_USAGE : NL_EXIT_OK;
	}
	rc.opts.on_output = on_output;
	rc.opts.ctx = &rc;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	ret = run_execute(&rc.opts, &run_stop, &res, &err);
	if (ret) {
		cmd_error("run", err);
		free(err);
		run_cmd_release(&rc);
		/* -ENOSPC (a full disk) is no fault of the input: 125. */
		return ret == -EINVAL ? NL_EXIT_USAGE : NL_EXIT_CANNOT_TEST;
	}
	report(&rc, &res);
	ret = run_result_exit_code(&res);
	run_result_release(&res);
	run_cmd_release(&rc);
	return ret;
}
