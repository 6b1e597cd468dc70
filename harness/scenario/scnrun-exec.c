// SPDX-License-Identifier: GPL-2.0
/*
 * A scenario's [exec]: the guest script's part that runs the user's
 * command, and the exec.* metrics read back from what it left.
 *
 * In the guest the command runs as `/bin/sh -c RUN` in a session of its
 * own (setsid), in the namespace [exec] netns names, from the first
 * share's mount point (else /), stdout and stderr into /netlab/out/exec/out,
 * a tmpfs of its own of SCNRUN_EXEC_OUT_MB (a flood of output fills that,
 * not the guest's memory where the trace is written). A watchdog kills the
 * whole session after the timeout; exec.exit is then 124, as timeout(1)
 * reports, and the output says so.
 *
 * The command's exit status reaches the host as a note on the agent's note
 * pipe (guest/netlab-proto.h NETLAB_NOTE_FD), which the command and its
 * watchdog do not inherit: nothing the command leaves running, and no file
 * it writes in /netlab/out, can report a status for it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/esc.h"
#include "scenario/ktap.h"
#include "scenario/scnrun.h"
#include "scenario/scnrun-int.h"
#include "vm/backend.h"
#include "vm/share.h"

/* The NIC whose namespace [exec] netns names, or NULL for the root one. */
static const struct vm_nic *exec_nic(const struct scenario *s, const struct vm_config *cfg)
{
	for (unsigned int i = 0; s->exec_netns && i < cfg->n_nics; i++)
		if (cfg->nics[i].label == s->exec_netns)
			return &cfg->nics[i];
	return NULL;
}

unsigned int scnrun_exec_vm(const struct scenario *s, const struct vm_config *cfg)
{
	const struct vm_nic *n = exec_nic(s, cfg);

	return n ? n->vm : 0;
}

void scnrun_exec_script(const struct scenario *s, const struct vm_config *cfg, unsigned int vm,
			struct sbuf *o)
{
	const struct vm_nic *n = exec_nic(s, cfg);

	if (!s->exec || scnrun_exec_vm(s, cfg) != vm)
		return;
	sbuf_addf(o, "# [exec]\nmkdir -p $O/exec && mount -t tmpfs -o size=%um netlab-exec $O/exec "
		     "2>/dev/null\ncd ", SCNRUN_EXEC_OUT_MB);
	esc_shell(o, cfg->n_shares ? cfg->shares[0].guest : "/");
	sbuf_adds(o, " || cd /\n");
	if (n && n->netns[0])
		sbuf_addf(o, "/sbin/ip netns exec %s ", n->netns);
	sbuf_adds(o, "setsid /bin/sh -c ");
	esc_shell(o, s->exec_run);
	sbuf_adds(o, " > $O/exec/out 2>&1 < /dev/null 3>&- &\nX=$!\n");
	sbuf_addf(o, "( sleep %u; kill -KILL -$X 2>/dev/null || exit 0; echo \"netlab: [exec] "
		     "killed after its timeout, %u s: exec.exit = 124\" >> $O/exec/out; exit 124 ) "
		     ">/dev/null 2>&1 3>&- &\nW=$!\n",
		  s->exec_timeout_s, s->exec_timeout_s);
	sbuf_adds(o, "wait $X; E=$?\nkill $W 2>/dev/null; wait $W; XT=$?\n"
		     "[ $XT = 124 ] && E=124\nnote exec.exit $E\nnote exec.timed_out $((XT == 124))\n"
		     "cd /\n");
}

char *scnrun_exec_story(const struct scenario *s, const struct metrics *m, const char *rundir)
{
	double ex = m ? metrics_value(m, "exec.exit", 0) : 0;

	if (!s->exec || !m || ex == 0)
		return NULL;
	if (metrics_value(m, "exec.timed_out", 0) > 0)
		return xasprintf("exec: '%s' was killed after its timeout, %u s (exec.exit 124); "
				 "its output: %s/exec.out", s->exec_run, s->exec_timeout_s,
				 rundir);
	if (metrics_value(m, "exec.out_full", 0) > 0)
		return xasprintf("exec: '%s' exited with status %g; its output filled the %u MiB the "
				 "guest keeps for it, the rest was dropped: %s/exec.out",
				 s->exec_run, ex, SCNRUN_EXEC_OUT_MB, rundir);
	return xasprintf("exec: '%s' exited with status %g; its output: %s/exec.out", s->exec_run,
			 ex, rundir);
}

/* exec.ktap.pass/fail/skip and exec.ktap.NAME from the command's output. */
static void ktap_metrics(const char *out, struct metrics *m)
{
	struct ktap_result r;

	ktap_parse(out, &r);
	metrics_set(m, "exec.ktap.pass", r.pass);
	metrics_set(m, "exec.ktap.fail", r.fail);
	metrics_set(m, "exec.ktap.skip", r.skip);
	for (size_t i = 0; i < r.n_cases; i++) {
		char *name = xasprintf("exec.ktap.%s", r.cases[i].name);

		metrics_set(m, name, r.cases[i].status == KTAP_PASS);
		free(name);
	}
	ktap_release(&r);
}

char *scnrun_status_text(const char *files)
{
	char *path = xasprintf("%s/../status", files), *text = NULL;

	if (file_read_max(path, 1u << 20, &text, NULL))
		text = NULL;
	free(path);
	return text;
}

int scnrun_exec_metrics(const struct scenario *s, const char *files, const char *rundir,
			struct metrics *m, char **err)
{
	char *status = scnrun_status_text(files), *bad = NULL, *path = NULL, *out = NULL;
	size_t len = 0, seen;
	long ex = 0, to = 0;
	int ret = vm_status_note_int(status, "exec.exit", 0, 255, &ex, &bad);

	if (ret == -ENOENT) {
		err_set(err, "%s: [exec] reported no exit status (the guest agent's status port has "
			     "no 'note exec.exit'): did the command start?", s->path);
		goto done;
	}
	if (ret) {
		/* the agent passes printable ASCII only; say so if something else came */
		for (char *p = bad; *p; p++)
			if (*p < 0x20 || *p > 0x7e)
				*p = '?';
		err_set(err, "%s: [exec]: the guest reported exec.exit '%.40s', which is no exit "
			     "status (0..255)", s->path, bad);
		goto done;
	}
	metrics_set(m, "exec.exit", (double)ex);
	free(bad);
	bad = NULL;
	if (vm_status_note_int(status, "exec.timed_out", 0, 1, &to, &bad))
		to = 0;
	metrics_set(m, "exec.timed_out", (double)to);
	path = xasprintf("%s/exec/out", files);
	/* bounded in the guest by its tmpfs; a guest that sent more gets none of it read */
	if (file_read_max(path, ((size_t)SCNRUN_EXEC_OUT_MB + 1) << 20, &out, &len)) {
		out = xstrdup("");
		seen = len;
		len = 0;
	} else {
		seen = len;
	}
	metrics_set(m, "exec.out_bytes", (double)seen);
	metrics_set(m, "exec.out_full", seen + 65536 >= (size_t)SCNRUN_EXEC_OUT_MB << 20);
	free(path);
	/* The run directory's copy, beside console.log and the pcaps. */
	path = xasprintf("%s/exec.out", rundir);
	(void)file_write(path, out, len);
	if (s->exec_ktap)
		ktap_metrics(out, m);
done:
	free(out);
	free(bad);
	free(path);
	free(status);
	return ret ? -EIO : 0;
}
