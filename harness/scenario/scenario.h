/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Scenario files: tests/regress/NAME.scn, one scenario each (format in
 * harness/README-scenarios.md). scn_parse() reads and validates a whole file;
 * what it returns is ready to run: NIC models resolved, generator options
 * checked, checks parsed and their metrics known to exist.
 *
 * Ownership: struct scenario owns every string and check in it; free it
 * with scn_free(). Pointers to NIC models and the topology are static.
 */
#ifndef NETLAB_SCENARIO_H
#define NETLAB_SCENARIO_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

#include "scenario/check.h"
#include "vm/vmcfg.h"

/* A key = value line kept as written ([sysctl], [traffic] options). */
struct scn_kv {
	char *key;
	char *value;
	unsigned int line;
};

struct scn_check {
	char *name;
	struct check_expr *expr;	/* check_text(expr) is the text */
	unsigned int line;
	/* NAME[COND] = ...: the matrix cases it applies to, "k=v,k!=v,k=v1|v2"
	 * as written; NULL = every case. */
	char *cond;
	/* Added by netlab, not written in the file (line 0): no_stall. */
	bool implicit;
};

/* [gdb] match.NAME = REGEX: gdb.lines_matching.NAME counts the lines of
 * gdb's output that REGEX (POSIX extended) matches. */
struct scn_gdb_match {
	char *name;
	char *regex;			/* as written */
	regex_t re;			/* compiled with REG_EXTENDED | REG_NOSUB */
	unsigned int line;
};

/* One axis of a [matrix]: KEY = VALUE... (a [scenario], [traffic] or sysctl.NAME key). */
struct scn_axis {
	char *key;
	char **values;
	size_t n_values;
	unsigned int line;
};

/* Traffic direction: which NIC sends. */
enum scn_direction {
	SCN_DIR_AB,			/* A sends, B receives (default) */
	SCN_DIR_BA,			/* B sends, A receives */
};

/*
 * One named traffic section, [traffic.NAME], of a scenario that runs several
 * generators at once (README-scenarios.md). A plain [traffic] is no section
 * here: its generator and options are the scenario's own fields.
 */
struct scn_traffic {
	char *name;			/* NAME: [a-z0-9_-]+ */
	const char *generator;		/* static, as scenario->generator */
	struct scn_kv *opts;		/* the generator's options, in file order */
	size_t n_opts;
	enum scn_direction direction;	/* direction = A>B | B>A; default the scenario's */
	double start_s;			/* start = SECONDS after the first section starts */
	unsigned int line;		/* the section's header */
	unsigned int generator_line, direction_line, start_line;
};

struct scenario {
	char *path;
	char *name;			/* basename without .scn; a matrix case: NAME[k=v,...] */
	/* A case of a [matrix]: "k=v,k=v" (the axes in file order), else NULL.
	 * case_values[i] is the value of axis i of the file's matrix. */
	char *case_id;
	struct scn_axis *axes;		/* the file's [matrix] (every case has a copy) */
	size_t n_axes;
	char **case_values;		/* n_axes values, or NULL */
	char *description;		/* NULL when not given */
	const struct topology *topo;	/* default "loop" */
	char labels[VM_MAX_NICS + 1];	/* the topology's NIC labels, "AB" */
	/* By NIC index (vm_nic_index()): model asked for, NULL = topology default. */
	const struct nic_model *nic_model[VM_MAX_NICS];
	unsigned int ring_rx[VM_MAX_NICS];	/* 0 = driver default */
	unsigned int ring_tx[VM_MAX_NICS];
	char *coalesce[VM_MAX_NICS];	/* "rx-usecs 100 tx-frames 8": ethtool -C, or NULL */
	char *netem[VM_MAX_NICS];	/* "loss 1%": tc netem arguments, or NULL */
	char *qdisc[VM_MAX_NICS];	/* "pfifo limit 5": root qdisc, or NULL */
	char *append;			/* extra kernel command line, or NULL */
	enum scn_direction direction;	/* direction = A>B | B>A */
	unsigned int mtu[VM_MAX_NICS];	/* mtu.<L>: set in the guest; 0 = the driver's */
	/* SMP and steering (README-scenarios.md, "CPUs, queues and steering"). */
	unsigned int cpus;		/* cpus = N: every VM's vCPUs; default 1 */
#define SCN_IRQ_KEEP (~0u)
	unsigned int vm_cpus[VM_MAX_VMS];	/* cpus.a / cpus.b; 0 = cpus */
	unsigned int queues[VM_MAX_NICS];	/* queues.<L>: ethtool -L; 0 = the driver's */
	unsigned int *irq[VM_MAX_NICS];	/* irq.<L> = CPU,... or irq.<L>.qN = CPU: queue i's IRQs on
					   irq[i], SCN_IRQ_KEEP for a queue left alone */
	unsigned int n_irq[VM_MAX_NICS];
	char *rps[VM_MAX_NICS];		/* rps.<L> = MASK (hex, as written), or NULL */
	char *xps[VM_MAX_NICS];		/* xps.<L> = MASK, or NULL */
	char *rxhash[VM_MAX_NICS];	/* rxhash.<L> = "udp4 sdfn": ethtool -N rx-flow-hash, or NULL */
	unsigned int rfs;		/* rfs = N: rps_sock_flow_entries; 0 = off */
	unsigned int duration_s;	/* default 10 */
	unsigned int repeat;		/* default 1 */
	unsigned int timeout_s;		/* default duration_s * 4 + 120 */
	bool deterministic;		/* QEMU -icount; default yes */
	bool record;			/* QEMU record/replay of every run (record = yes) */
	/* flavour = NAME: the kernel flavour (kconfigs/flavours/NAME/) the
	 * scenario needs; a run on another is skipped. "": any. */
	char flavour[64];
	unsigned int mem_mb;		/* guest memory; 0 = netlab run's default */
	/* snaplen = BYTES | 0 (whole frames): the NIC captures', unless
	 * --snaplen says otherwise; -1 = netlab run's default (256). */
	int snaplen;
	/* acpi = FILE...: ACPI tables (.asl/.dsl/.aml), paths resolved against
	 * the scenario's directory; readable when parsed, compiled by
	 * regress_load() before anything boots. */
	char **acpi;
	size_t n_acpi;
	unsigned int acpi_line;

	struct scn_kv *sysctl;		/* in file order */
	size_t n_sysctl;

	const char *generator;		/* "udp-stream", "tcp-stream", "rr" (static) */
	struct scn_kv *traffic;		/* generator options, in file order */
	size_t n_traffic;
	/*
	 * [traffic.NAME] sections, in file order; none with a plain [traffic].
	 * With sections, generator, traffic, n_traffic and direction above are
	 * the first section's (traffic points into sections[0], not owned), so
	 * that what knows one generator sees the first; scn_traffic_view()
	 * gives any section the same way.
	 */
	struct scn_traffic *sections;
	size_t n_sections;

	struct scn_check *checks;	/* in file order */
	size_t n_checks;

	/* [trace]: ftrace recorded in the guest around the traffic. */
	bool trace;			/* default yes */
	char *trace_events;		/* replaces the default set (traceset.h), or NULL */
	char *trace_add;		/* added to it, or NULL */
	char *trace_drop;		/* removed from it, or NULL */
	char **trace_probe_names;	/* probe.NAME = FUNCTION ARGS: user kprobe events */
	char **trace_probe_defs;
	size_t n_trace_probes;
	unsigned int trace_buffer_kb;	/* per CPU; 0 = sized for the set */

	/* [gdb]: a batch gdb on a guest kernel during every run (README). */
	bool gdb;			/* the section is there */
	char *gdb_script;		/* script = FILE, against the scenario's directory */
	char **gdb_breaks;		/* break = FUNC...: hbreak before the kernel runs */
	size_t n_gdb_breaks;
	int gdb_vm;			/* vm = a|b: 0 or 1; -1 = the e1000e NIC's VM, else a */
	unsigned int gdb_timeout_s;	/* gdb is ended after this (default 120) */
	struct scn_gdb_match *gdb_match;	/* in file order */
	size_t n_gdb_match;

	/* share = DIR[:GUEST][:rw]...: host directories mounted in the guest
	 * (vm/share.h), DIR against the scenario's directory. */
	struct vm_share *shares;
	size_t n_shares;
	unsigned int share_line;

	/* [exec]: a command of the user's in the guest, in the same window
	 * as the generator (scenario-exec.c, scnrun-exec.c). */
	bool exec;			/* the section is there */
	char *exec_run;			/* run = shell command line */
	char exec_netns;		/* netns = a|b|root: 'A', 'B' (a NIC's namespace) or 0 */
	unsigned int exec_timeout_s;	/* killed after it (exec.exit 124); default 60 */
	bool exec_ktap;			/* ktap = yes: exec.ktap.* from its output */
};

/*
 * scn_parse() - read and validate a scenario file
 * @path: the .scn file
 * @out:  the scenario, on success; scn_free() it
 * @err:  "PATH:LINE: message" (or "PATH: message" for what has no line)
 *
 * The whole file is read; the first error (by line) is reported.
 * Return: 0, -EINVAL for a bad scenario (exit code 2), or -errno when the
 * file cannot be read.
 */
int scn_parse(const char *path, struct scenario **out, char **err);
void scn_free(struct scenario *s);

/*
 * scn_parse_cases() - read a scenario file into its cases
 * @path: the .scn file
 * @out:  an array of *n scenarios: one for a file without [matrix], one per
 *	  combination of the matrix's axes otherwise (the first axis varies
 *	  slowest); free each with scn_free() and the array with free()
 * @n:    the number of cases
 * @err:  "PATH:LINE: message"; for an error of one case only, the message
 *	  names the case
 *
 * A case is the file with each axis key set to the case's value (a key the
 * file has is replaced; one it lacks is added to its section), and only the
 * checks whose [cond] holds. Every case is validated as a whole file is.
 * Return: 0, -EINVAL for a bad scenario, -errno when the file cannot be read.
 */
int scn_parse_cases(const char *path, struct scenario ***out, size_t *n, char **err);

/* The NIC index that sends (0 for A>B) and the one that receives. */
unsigned int scn_tx_nic(const struct scenario *s);
unsigned int scn_rx_nic(const struct scenario *s);

/* The vCPUs of VM @vm (cpus.a/cpus.b, else cpus). */
unsigned int scn_vm_cpus(const struct scenario *s, unsigned int vm);
/* The queues NIC @n runs with: queues.<L>, else min(its model's maximum, its VM's cpus). */
unsigned int scn_nic_queues(const struct scenario *s, const struct vm_nic *n);
/* Whether the scenario sets queues.<L> for some NIC. */
bool scn_has_queues(const struct scenario *s);
/* Whether the scenario asks for any steering: rps, rfs, xps or irq keys. */
bool scn_has_steering(const struct scenario *s);

/* The value of matrix axis `key` in this case, or NULL. */
const char *scn_case_value(const struct scenario *s, const char *key);

/* A name for files and directories: the scenario's name, and for a case
 * "+VALUE" per axis with characters outside [A-Za-z0-9._-] replaced ('>'
* by "to", others by '_'; ',' and '=' in the name too, QEMU's option syntax): "paths-udp+e1000e+BtoA+1472". Caller frees. */
char *scn_file_name(const struct scenario *s);

/*
 * scn_sysctl_where() - "PATH:LINE: [sysctl] NAME" for the sysctl of @s that
 * @text names in quotes ('NAME'), as a run's bad-input reason does; NULL when
 * it names none. Caller frees.
 */
char *scn_sysctl_where(const struct scenario *s, const char *text);

/*
 * scn_kernel_append() - the kernel command line a scenario boots with
 *
 * `append` as written, plus no_hash_pointers when the scenario is traced,
 * so that %p in the driver patches' lines and kprobe fetch args print the
 * raw addresses the tracepoints' skbaddr fields hold. NULL for none; the
 * caller frees it.
 */
char *scn_kernel_append(const struct scenario *s);

/*
 * scn_traffic_args() - the generator's options as command-line arguments
 *
 * Appends "--key value" for every [traffic] option in file order; a
 * boolean option becomes "--key" when true and nothing when false.
 */
void scn_traffic_args(const struct scenario *s, struct argv *a);

/* The generators scenarios may use: "udp-stream, tcp-stream, rr". */
const char *scn_generator_list(void);
/*
 * The [traffic] keys of every generator as Markdown table rows, one per
 * generator ("| `rr` | `proto` (`tcp` or `udp`), ... |"), from the
 * descriptors in traffic/generators.c: netlab regress --generators, and the
 * table in netlab-scenario(5), which a test keeps equal to it.
 */
void scn_generator_table(struct sbuf *out);

/* Parse yes/no/true/false/1/0. Returns 0 or -EINVAL. */
int scn_parse_bool(const char *s, bool *out);

/* The value of [traffic] key `key` as written, or NULL. */
const char *scn_traffic_value(const struct scenario *s, const char *key);
/* Whether [traffic] key `key` is given and true (a boolean option). */
bool scn_traffic_true(const struct scenario *s, const char *key);
/*
 * "tcp" or "udp": the transport of the generator's packets (its proto
 * option as given, or its default; generators.h), NULL without a generator.
 */
const char *scn_traffic_l4(const struct scenario *s);
/* Whether the generator's addresses are IPv6: its v6_key given and true (generators.h). */
bool scn_traffic_v6(const struct scenario *s);

/*
 * Traffic sections, for a scenario with one [traffic] as for one with
 * several [traffic.NAME]: scn_n_traffic() is how many (0 without a
 * generator, 1 for a plain [traffic]); scn_traffic_view() fills @view with a
 * shallow copy of @s whose generator, traffic, n_traffic and direction are
 * section @i's, for the functions above that read one generator (the view
 * owns nothing: never scn_free() it). scn_traffic_name() is NAME, or NULL
 * for a plain [traffic]; scn_traffic_start() its start offset in seconds.
 */
size_t scn_n_traffic(const struct scenario *s);
void scn_traffic_view(const struct scenario *s, size_t i, struct scenario *view);
const char *scn_traffic_name(const struct scenario *s, size_t i);
double scn_traffic_start(const struct scenario *s, size_t i);
/* The index of section [traffic.NAME], or -1. */
int scn_traffic_find(const struct scenario *s, const char *name);
/*
 * Whether section @i is the first of its generator family (tgen->metric:
 * udp, tcp, rr): its metrics are also the unprefixed udp.*, tcp.*, rr.*.
 */
bool scn_traffic_first_of_family(const struct scenario *s, size_t i);

/*
 * traffic.all.METRIC: METRIC summed over every section that has it, for the
 * additive metrics (counts and rates: sent, lost, bytes, goodput_bps, ...;
 * not percentiles, ratios or per-flow names). "all" is no section's name.
 */
#define SCN_TRAFFIC_ALL "all"
bool scn_traffic_additive(const char *metric);
/*
 * The section that feeds the UDP loss identity (scngen.h loss_identity):
 * the first such section, or -1 when there is none.
 */
int scn_traffic_loss_section(const struct scenario *s);

#endif /* NETLAB_SCENARIO_H */
