// SPDX-License-Identifier: GPL-2.0
/*
 * A scenario's [exec]: the guest script's part that runs the user's
 * command, and the exec.* metrics read back from what it left.
 *
 * In the guest the command runs as `/bin/sh -c RUN` in a session of its
 * own (setsid), in the namespace [exec] netns names, from the first
 * share's mount point (else /), stdout and stderr into /netlab/out/exec.out.
 * A watchdog kills the whole session after the timeout; exec.exit is then
 * 124, as timeout(1) reports, and /netlab/out/exec.timeout says so.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/esc.h"
#include "scenario/ktap.h"
#include "scenario/scnrun.h"
#include "scenario/scnrun-int.h"
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
	sbuf_adds(o, "# [exec]\ncd ");
	esc_shell(o, cfg->n_shares ? cfg->shares[0].guest : "/");
	sbuf_adds(o, " || cd /\n");
	if (n && n->netns[0])
		sbuf_addf(o, "/sbin/ip netns exec %s ", n->netns);
	sbuf_adds(o, "setsid /bin/sh -c ");
	esc_shell(o, s->exec_run);
	sbuf_adds(o, " > $O/exec.out 2>&1 < /dev/null &\nX=$!\n");
	sbuf_addf(o, "( sleep %u; kill -KILL -$X 2>/dev/null && echo \"netlab: [exec] killed "
		     "after its timeout, %u s: exec.exit = 124\" > $O/exec.timeout ) "
		     ">/dev/null 2>&1 &\nW=$!\n",
		  s->exec_timeout_s, s->exec_timeout_s);
	sbuf_adds(o, "wait $X; E=$?\nkill $W 2>/dev/null\n"
		     "[ -e $O/exec.timeout ] && { E=124; cat $O/exec.timeout >> $O/exec.out; }\n"
		     "echo $E > $O/exec.exit\ncd /\n");
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

int scnrun_exec_metrics(const struct scenario *s, const char *files, const char *rundir,
			struct metrics *m, char **err)
{
	char *path = xasprintf("%s/exec.exit", files), *text = NULL, *out = NULL;
	size_t len = 0;
	int ret = file_read(path, &text, NULL);

	if (ret) {
		err_set(err, "%s: [exec] left no exit status '%s': %s (did the command start?)",
			s->path, path, strerror(-ret));
		goto done;
	}
	metrics_set(m, "exec.exit", atof(text));
	free(path);
	path = xasprintf("%s/exec.timeout", files);
	metrics_set(m, "exec.timed_out", access(path, F_OK) == 0);
	free(path);
	path = xasprintf("%s/exec.out", files);
	if (file_read(path, &out, &len))
		out = xstrdup("");
	free(path);
	/* The run directory's copy, beside console.log and the pcaps. */
	path = xasprintf("%s/exec.out", rundir);
	(void)file_write(path, out, len);
	if (s->exec_ktap)
		ktap_metrics(out, m);
done:
	free(out);
	free(text);
	free(path);
	return ret ? -EIO : 0;
}
