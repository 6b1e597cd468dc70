// SPDX-License-Identifier: GPL-2.0
/*
 * Scenario files: the [exec] section, and which exec.* metrics checks may
 * name. Called by scenario.c; calls scenario-keys.c's helpers.
 *
 *   [exec]
 *   run = ./my-test.sh --flag	; a shell command line, run by /bin/sh -c
 *   netns = a			; a|b (NIC A's or B's namespace) or root
 *   timeout = 30s		; N, Ns or Nm; killed after it (exec.exit 124)
 *   ktap = yes			; exec.ktap.* from its KTAP/TAP output
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/ktap.h"
#include "scenario/scenario-int.h"
#include "vm/share.h"

#define EXEC_TIMEOUT_DEFAULT 60

/* "30", "30s", "2m": seconds, 1..86400. */
static int parse_seconds(const char *v, unsigned int *out)
{
	char *end;
	unsigned long n;

	if (*v < '0' || *v > '9')
		return -EINVAL;
	n = strtoul(v, &end, 10);
	if (!strcmp(end, "m"))
		n *= 60;
	else if (*end && strcmp(end, "s"))
		return -EINVAL;
	if (!n || n > 86400)
		return -EINVAL;
	*out = (unsigned int)n;
	return 0;
}

int scn_key_exec(struct parse_ctx *c, const char *key, const char *value)
{
	struct scenario *s = c->s;

	if (!strcmp(key, "run")) {
		if (!*value)
			return scn_err(c, c->line, "[exec] run is empty: expected a command line");
		free(s->exec_run);
		s->exec_run = xstrdup(value);
		return 0;
	}
	if (!strcmp(key, "netns")) {
		c->exec_netns_line = c->line;
		if (!strcmp(value, "root"))
			s->exec_netns = 0;
		else if ((value[0] == 'a' || value[0] == 'b') && !value[1])
			s->exec_netns = (char)(value[0] - 'a' + 'A');
		else
			return scn_err(c, c->line, "bad netns '%s' in [exec]: expected a, b or root "
						   "(NIC A's or B's namespace, or the initial one)", value);
		return 0;
	}
	if (!strcmp(key, "timeout")) {
		c->exec_timeout_line = c->line;
		if (parse_seconds(value, &s->exec_timeout_s))
			return scn_err(c, c->line, "bad timeout '%s' in [exec]: expected seconds "
						   "(30, 30s) or minutes (2m), at most 24 h", value);
		return 0;
	}
	if (!strcmp(key, "ktap")) {
		if (scn_parse_bool(value, &s->exec_ktap))
			return scn_err(c, c->line, "bad ktap '%s' in [exec]: expected yes or no",
				       value);
		return 0;
	}
	return scn_err(c, c->line, "unknown key '%s' in [exec] (allowed: run, netns, timeout, ktap)",
		       key);
}

void scn_validate_exec(struct parse_ctx *c)
{
	struct scenario *s = c->s;
	unsigned int line = c->sec_line[SEC_EXEC];

	s->exec = line != 0;
	if (!s->exec)
		return;
	if (!s->exec_run)
		scn_err(c, line, "[exec] has no run (run = ./my-test.sh, a shell command line)");
	if (s->exec_netns && !strchr(s->labels, s->exec_netns))
		scn_err(c, c->exec_netns_line, "netns %c in [exec], but topology '%s' has no NIC %c",
			s->exec_netns - 'A' + 'a', s->topo->name, s->exec_netns);
	if (!c->exec_timeout_line)
		s->exec_timeout_s = EXEC_TIMEOUT_DEFAULT;
	/* The run's own timeout leaves the command its time, unless set. */
	if (!c->timeout_line)
		s->timeout_s += s->exec_timeout_s;
	else if (s->exec_timeout_s >= s->timeout_s)
		scn_err(c, c->exec_timeout_line ? c->exec_timeout_line : line,
			"timeout %u s in [exec] is not shorter than the run's timeout, %u s",
			s->exec_timeout_s, s->timeout_s);
}

int scn_exec_metric_check(const struct scenario *s, const char *name, char **why)
{
	static const char kt[] = "exec.ktap.";

	if (!s->exec) {
		err_set(why, "metric '%s' needs an [exec] section", name);
		return -EINVAL;
	}
	if (!strcmp(name, "exec.exit") || !strcmp(name, "exec.timed_out") ||
	    !strcmp(name, "exec.out_bytes") || !strcmp(name, "exec.out_full"))
		return 0;
	if (strncmp(name, kt, strlen(kt))) {
		err_set(why, "unknown metric '%s' (exec metrics: exec.exit, exec.timed_out, "
			     "exec.out_bytes, exec.out_full, exec.ktap.pass, exec.ktap.fail, "
			     "exec.ktap.skip, exec.ktap.NAME)", name);
		return -EINVAL;
	}
	if (!s->exec_ktap) {
		err_set(why, "metric '%s' needs 'ktap = yes' in [exec]", name);
		return -EINVAL;
	}
	if (!ktap_name_ok(name + strlen(kt))) {
		err_set(why, "metric '%s': a subtest name is made of [A-Za-z0-9_] and '.'", name);
		return -EINVAL;
	}
	return 0;
}

void scn_exec_free(struct scenario *s)
{
	share_array_free(s->shares, s->n_shares);
	free(s->exec_run);
}
