/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verdict of a run, classified from what the run left behind (status
 * port, console, QEMU's exit), and its result.json.
 */
#ifndef NETLAB_RESULT_H
#define NETLAB_RESULT_H

#include <stdbool.h>

#include "vm/vmcfg.h"

enum run_verdict {
	RV_OK,			/* command exited 0 */
	RV_FAILED,		/* command exited non-zero */
	RV_TIMEOUT,		/* --timeout reached (host or guest side) */
	RV_PANIC,		/* kernel panic / oops */
	RV_BOOT_FAILURE,	/* the kernel never reached the agent */
	RV_INFRA,		/* QEMU or the harness failed */
	RV_BAD_INPUT,		/* the guest found the input bad: a sysctl its kernel lacks */
	RV_INTERRUPTED,		/* the user stopped the run */
};

/* What a finished run left behind. Strings may be NULL. */
struct run_obs {
	bool timed_out;
	bool interrupted;
	int qemu_status;	/* waitpid() status, or -1 when QEMU never ran */
	const char *status;	/* status port text */
	const char *console;	/* console log */
	const char *qemu_log;	/* QEMU's stderr */
	const char *transport_error;	/* the run's output did not all arrive (libvirt), or NULL */
	const char *no_space;	/* the run directory's file system filled up: disk_short()'s text */
};

struct run_result {
	enum run_verdict verdict;
	int exit_status;	/* guest command status, -1 when it has none */
	bool agent_started;
	char *reason;		/* one line for a person; owned */
	char *oops;		/* panic/oops excerpt or NULL; owned */
};

/* Extra facts for result.json; all borrowed. */
struct run_meta {
	const struct vm_config *cfg;
	const char *command;
	const char *peer_command;	/* multi-VM topologies only */
	const struct run_result *vms;	/* per-VM results, NULL for one VM */
	unsigned int n_vms;
	const char *kernel_version;
	const char *kernel_sha256;
	const char *config_sha256;	/* NULL when no .config was found */
	const char *kernel_release;	/* these three: from netlab's kernel cache, NULL elsewhere */
	const char *kernel_cache_key;
	const char *kernel_source;
	const char *kernel_flavour;	/* kconfigs/flavours/NAME it was built with, NULL unknown */
	const char *accel_reason;
	const char *backend;		/* its name (vm/backend.h); NULL = "qemu" */
	const char *connect;		/* its connection (libvirt URI), NULL = none: cfg->qemu ran here */
	const char *const *domains;	/* libvirt domain names, one per VM, or NULL */
	double boot_s;			/* host wall time until the agent started, <0 unknown */
	double wall_s;
};

const char *run_verdict_name(enum run_verdict v);
void run_classify(const struct run_obs *obs, struct run_result *res);
void run_result_release(struct run_result *res);
/* netlab run's exit code for a result (see README). */
int run_result_exit_code(const struct run_result *res);
/* The oops/panic excerpt of a console log, or NULL; caller frees. */
char *console_oops_excerpt(const char *console);
/* Last `lines` lines of text; caller frees. */
char *text_tail(const char *text, unsigned int lines);
/*
 * The "kernel" object of dir/result.json (a new reference), or NULL when dir
 * is no run directory or its result.json has none.
 */
struct json_object *run_result_kernel_json(const char *dir);
/* Write result.json. Returns 0 or -errno with *err. */
int run_result_write_json(const char *path, const struct run_result *res,
			  const struct run_meta *meta, char **err);

#endif /* NETLAB_RESULT_H */
