/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the scenario parser's two parts share: scenario.c (the reader, the
 * checks across keys, the entry points) and scenario-keys.c (each section's
 * keys, one at a time, and the errors they report), which scenario.c calls
 * and which calls nothing of scenario.c. Internal to them; scenario.h is
 * the interface.
 */
#ifndef NETLAB_SCENARIO_INT_H
#define NETLAB_SCENARIO_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "scenario/scenario.h"

enum scn_section {
	SEC_SCENARIO,
	SEC_SYSCTL,
	SEC_TRAFFIC,
	SEC_NETEM,
	SEC_QDISC,
	SEC_CHECKS,
	SEC_TRACE,
	SEC_GDB,
	SEC_MATRIX,
	SEC_EXEC,
	N_SECTIONS,
};

/* Key of one line, remembered to catch duplicates. */
struct seen_key {
	enum scn_section sec;
	char *key;
	unsigned int line;
};

struct parse_ctx {
	const char *path;
	struct scenario *s;
	/* reader */
	const char *p;			/* rest of the file */
	unsigned int line;		/* line last handed to inih */
	/* what was seen, and where */
	unsigned int sec_line[N_SECTIONS];	/* header line, 0 = absent */
	struct seen_key *seen;
	size_t n_seen;
	unsigned int topology_line, generator_line, duration_line, timeout_line;
	unsigned int nic_line[VM_MAX_NICS], ring_line[VM_MAX_NICS];
	unsigned int netem_line[VM_MAX_NICS], qdisc_line[VM_MAX_NICS];
	unsigned int gdb_vm_line, gdb_timeout_line;
	unsigned int exec_netns_line, exec_timeout_line;
	unsigned int mtu_line[VM_MAX_NICS], direction_line;
	unsigned int cpus_line, vm_cpus_line[VM_MAX_VMS], rfs_line;
	unsigned int queues_line[VM_MAX_NICS], irq_line[VM_MAX_NICS];
	bool irq_list[VM_MAX_NICS]; /* irq.<L> = CPU,... (not irq.<L>.qN) */
	unsigned int rps_line[VM_MAX_NICS], xps_line[VM_MAX_NICS], rxhash_line[VM_MAX_NICS];
	/* A matrix case: the value of each axis of s->axes, and whether the
	 * file has the axis's key (else it is added after the file is read). */
	char **case_values;
	bool *axis_used;
	/* the earliest error */
	char *err;
	unsigned int err_line;		/* 0: about the whole file */
};

int scn_err(struct parse_ctx *c, unsigned int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

bool scn_chars_ok(const char *s, const char *set);
int scn_need_safe_value(struct parse_ctx *c, const char *section, const char *key,
			const char *value);
int scn_key_scenario(struct parse_ctx *c, const char *key, const char *value);
int scn_key_sysctl(struct parse_ctx *c, const char *key, const char *value);
int scn_key_traffic(struct parse_ctx *c, const char *key, const char *value);
int scn_key_netem(struct parse_ctx *c, const char *key, const char *value);
int scn_key_qdisc(struct parse_ctx *c, const char *key, const char *value);
int scn_key_checks(struct parse_ctx *c, const char *key, const char *value);
int scn_key_trace(struct parse_ctx *c, const char *key, const char *value);
int scn_key_matrix(struct parse_ctx *c, const char *key, const char *value);
struct tgen;
/*
 * A traffic section's address family against generator @g: family is 4 or
 * 6, and the generator's v6_key (udp-stream's dst-ipv6), its synonym, does
 * not say the other.
 */
void scn_family_validate(struct parse_ctx *c, const struct tgen *g, const struct scn_kv *opts,
			 size_t n);
int scn_gdb_script(struct parse_ctx *c, const char *value);
int scn_gdb_match(struct parse_ctx *c, const char *key, const char *value);
int scn_key_gdb(struct parse_ctx *c, const char *key, const char *value);
/* scenario-exec.c: [exec] and the exec.* metrics. */
int scn_key_exec(struct parse_ctx *c, const char *key, const char *value);
void scn_validate_exec(struct parse_ctx *c);
int scn_exec_metric_check(const struct scenario *s, const char *name, char **why);
void scn_exec_free(struct scenario *s);
int scn_scenario_key_find(const char *key, bool *by_prefix);
/* scenario-smp.c: cpus, queues, irq, rps, rfs, xps; checked against the topology. */
bool scn_smp_key_known(const char *key);
int scn_key_smp(struct parse_ctx *c, const char *key, const char *value);
void scn_validate_steering(struct parse_ctx *c);
void scn_smp_free(struct scenario *s);
/* The generator's own copy of its name (static storage), NULL when there is none. */
const char *scn_generator_name(const char *name);
/*
 * scenario-traffic.c: [traffic.NAME] sections. A header (NAME as written,
 * @len bytes), a key of one, an axis traffic.NAME.KEY a case adds; once the
 * file is read, the checks across them but their options' (scenario.c
 * checks those against the generator; they then make the scenario's
 * generator fields the first section's), the metrics a check may name in a
 * scenario with sections, and the implicit no_stall_NAME checks.
 */
void scn_traffic_header(struct parse_ctx *c, const char *name, size_t len);
int scn_key_traffic_named(struct parse_ctx *c, const char *name, const char *key,
			  const char *value);
int scn_traffic_axis_add(struct parse_ctx *c, const char *key, const char *value);
void scn_validate_sections(struct parse_ctx *c);
int scn_sections_metric_check(const struct scenario *s, const char *name, char **why);
void scn_sections_stall_checks(struct parse_ctx *c);
void scn_sections_free(struct scenario *s);

#endif
