// SPDX-License-Identifier: GPL-2.0
/*
 * netlab guest agent: the job file parser. See agent-job.h for the syntax.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent-job.h"

/* What one line handler needs: where to store, whom to tell. */
struct job_line {
	struct job *job;
	unsigned int lineno;
	job_warn_fn warn;
	void *ctx;
};

static void line_warn(const struct job_line *l, const char *fmt, const char *arg)
{
	char msg[256];

	if (!l->warn)
		return;
	snprintf(msg, sizeof(msg), fmt, arg);
	l->warn(l->ctx, l->lineno, msg);
}

/* Replace *slot with a copy of @value. */
static int set_str(char **slot, const char *value)
{
	char *copy = strdup(value);

	if (!copy)
		return -ENOMEM;
	free(*slot);
	*slot = copy;
	return 0;
}

static bool parse_uint(const char *s, unsigned int *out)
{
	unsigned long v;
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > UINT_MAX)
		return false;
	*out = v;
	return true;
}

static bool valid_env_name(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (s++; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/*
 * The array @p resized to @n elements of @size bytes; NULL (and @p untouched)
 * when that overflows or memory is short. The agent's one way to grow an
 * array: as PID 1 it reports ENOMEM rather than aborting.
 */
static void *array_grow(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return realloc(p, n * size);
}

/* Set @name to @value in the list *vars / *n, keeping first-appearance order. */
static int vars_set(struct job_var **vars, size_t *n, const char *name, const char *value)
{
	struct job_var *grown;
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp((*vars)[i].name, name))
			return set_str(&(*vars)[i].value, value);
	grown = array_grow(*vars, *n + 1, sizeof(**vars));
	if (!grown)
		return -ENOMEM;
	*vars = grown;
	grown[*n].name = strdup(name);
	grown[*n].value = strdup(value);
	if (!grown[*n].name || !grown[*n].value) {
		free(grown[*n].name);
		free(grown[*n].value);
		return -ENOMEM;
	}
	(*n)++;
	return 0;
}

/* The NIC called @id (length @len), appended if new; NULL on ENOMEM. */
static struct job_nic *nic_get(struct job *job, const char *id, size_t len)
{
	struct job_nic *grown, *nic;
	size_t i;

	for (i = 0; i < job->n_nics; i++)
		if (strlen(job->nics[i].id) == len && !strncmp(job->nics[i].id, id, len))
			return &job->nics[i];
	grown = array_grow(job->nics, job->n_nics + 1, sizeof(*grown));
	if (!grown)
		return NULL;
	job->nics = grown;
	nic = &grown[job->n_nics];
	memset(nic, 0, sizeof(*nic));
	nic->id = strndup(id, len);
	if (!nic->id)
		return NULL;
	job->n_nics++;
	return nic;
}

/* nic.<ID>.<field>=value; @rest points after "nic.". */
static int parse_nic_key(const struct job_line *l, const char *key, const char *rest,
			 const char *value)
{
	static const char *const fields[] = { "mac", "model", "netns", "ifname", "ipv4", "ipv6" };
	const char *dot = strchr(rest, '.');
	struct job_nic *nic;
	char **slots[6];
	size_t i;

	if (!dot || dot == rest || !dot[1]) {
		line_warn(l, "malformed NIC key '%s' (want nic.<ID>.<field>)", key);
		return 0;
	}
	for (i = 0; i < 6; i++)
		if (!strcmp(dot + 1, fields[i]))
			break;
	if (i == 6)
		return 0;	/* unknown field: ignored, like any unknown key */
	nic = nic_get(l->job, rest, dot - rest);
	if (!nic)
		return -ENOMEM;
	slots[0] = &nic->mac;
	slots[1] = &nic->model;
	slots[2] = &nic->netns;
	slots[3] = &nic->ifname;
	slots[4] = &nic->ipv4;
	slots[5] = &nic->ipv6;
	return set_str(slots[i], value);
}

static int parse_kv(const struct job_line *l, const char *key, const char *value)
{
	struct job *job = l->job;
	char path[4096];

	if (!strcmp(key, "version")) {
		unsigned int v;

		if (!parse_uint(value, &v) || v > INT_MAX)
			line_warn(l, "version '%s' is not a number", value);
		else
			job->version = v;
		return 0;
	}
	if (!strcmp(key, "timeout")) {
		if (!parse_uint(value, &job->timeout))
			line_warn(l, "timeout '%s' is not a number of seconds", value);
		return 0;
	}
	if (!strcmp(key, "ack")) {
		if (!parse_uint(value, &job->ack))
			line_warn(l, "ack '%s' is not a number", value);
		return 0;
	}
	if (!strcmp(key, "topology"))
		return set_str(&job->topology, value);
	if (!strncmp(key, "nic.", 4))
		return parse_nic_key(l, key, key + 4, value);
	if (!strncmp(key, "sysctl.", 7)) {
		if (job_sysctl_path(key + 7, path, sizeof(path))) {
			line_warn(l, "invalid sysctl name '%s'", key + 7);
			return 0;
		}
		return vars_set(&job->sysctls, &job->n_sysctls, key + 7, value);
	}
	if (!strncmp(key, "env.", 4)) {
		if (!valid_env_name(key + 4)) {
			line_warn(l, "invalid environment variable name '%s'", key + 4);
			return 0;
		}
		return vars_set(&job->envs, &job->n_envs, key + 4, value);
	}
	if (!strncmp(key, "share.", 6)) {
		if (!key[6] || (strncmp(value, "ro /", 4) && strncmp(value, "rw /", 4))) {
			line_warn(l, "malformed share '%s' (want share.TAG=ro|rw /PATH)", key);
			return 0;
		}
		return vars_set(&job->shares, &job->n_shares, key + 6, value);
	}
	return 0;	/* unknown key */
}

/* Parse one line, already stripped of its newline; modified in place. */
static int parse_line(const struct job_line *l, char *line)
{
	char *key, *value, *eq, *end;

	end = line + strlen(line);
	while (end > line && isspace((unsigned char)end[-1]))
		*--end = '\0';
	key = line + strspn(line, " \t");
	if (!*key || *key == '#')
		return 0;
	eq = strchr(key, '=');
	if (!eq) {
		line_warn(l, "malformed line '%s' (want key=value)", key);
		return 0;
	}
	value = eq + 1 + strspn(eq + 1, " \t");
	while (eq > key && isspace((unsigned char)eq[-1]))
		eq--;
	*eq = '\0';
	if (!*key) {
		line_warn(l, "malformed line '=%s' (empty key)", value);
		return 0;
	}
	return parse_kv(l, key, value);
}

int job_parse(struct job *job, const char *text, job_warn_fn warn, void *ctx)
{
	struct job_line l = { .job = job, .warn = warn, .ctx = ctx };
	const char *p = text;
	int err = 0;

	memset(job, 0, sizeof(*job));
	while (*p && !err) {
		size_t len = strcspn(p, "\n");
		char *line = strndup(p, len);

		if (!line)
			return -ENOMEM;
		l.lineno++;
		err = parse_line(&l, line);
		free(line);
		p += len;
		if (*p == '\n')
			p++;
	}
	return err;
}

static void vars_free(struct job_var *vars, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(vars[i].name);
		free(vars[i].value);
	}
	free(vars);
}

void job_release(struct job *job)
{
	size_t i;

	for (i = 0; i < job->n_nics; i++) {
		struct job_nic *nic = &job->nics[i];

		free(nic->id);
		free(nic->mac);
		free(nic->model);
		free(nic->netns);
		free(nic->ifname);
		free(nic->ipv4);
		free(nic->ipv6);
	}
	free(job->nics);
	vars_free(job->sysctls, job->n_sysctls);
	vars_free(job->envs, job->n_envs);
	vars_free(job->shares, job->n_shares);
	free(job->topology);
	memset(job, 0, sizeof(*job));
}

/* A component between separators: non-empty, not "." or "..". */
static bool good_component(const char *start, size_t len)
{
	return len && !(len == 1 && start[0] == '.') &&
	       !(len == 2 && start[0] == '.' && start[1] == '.');
}

int job_sysctl_path(const char *name, char *buf, size_t size)
{
	static const char prefix[] = "/proc/sys/";
	size_t plen = sizeof(prefix) - 1, i, start;

	if (strlen(name) + plen + 1 > size)
		return -ENAMETOOLONG;
	memcpy(buf, prefix, plen);
	for (i = 0, start = plen; ; i++) {
		char c = name[i];

		if (c && !isalnum((unsigned char)c) && !strchr("_-./", c))
			return -EINVAL;
		if (c == '.' || !c) {
			if (!good_component(buf + start, plen + i - start))
				return -EINVAL;
			buf[plen + i] = c ? '/' : '\0';
			if (!c)
				return 0;
			start = plen + i + 1;
		} else {
			buf[plen + i] = c == '/' ? '.' : c;
		}
	}
}
