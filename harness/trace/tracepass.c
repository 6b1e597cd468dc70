// SPDX-License-Identifier: GPL-2.0
/*
 * One streaming pass over a trace.dat for several analyses (see tracepass.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/tracepass.h"
#include "lib/util.h"

/* The callback's return once no slot is left in the pass: stops the library. */
#define ALL_OUT 1

void tracepass_init(struct tracepass *tp, const char *path)
{
	memset(tp, 0, sizeof(*tp));
	tp->path = path;
}

int tracepass_open(struct tracepass *tp, const char *hint, char **err)
{
	int ret;

	if (tp->open)
		return 0;
	ret = tracefile_open(&tp->tf, tp->path, hint, err);
	if (!ret)
		tp->open = true;
	return ret;
}

void tracepass_add(struct tracepass *tp, struct tracepass_slot *s)
{
	s->rc = 0;
	s->err = NULL;
	s->out = false;
	tp->slot[tp->n++] = s;
	tp->live++;
}

/* Slot @i failed with @rc: it and every slot after it leave the pass. */
static void leave_from(struct tracepass *tp, int i, int rc)
{
	tp->slot[i]->rc = rc;
	for (int j = i; j < tp->n; j++) {
		if (tp->slot[j]->out)
			continue;
		if (j > i)
			tp->slot[j]->rc = -ECANCELED;
		tp->slot[j]->out = true;
		tp->live--;
	}
}

static int on_record(struct tep_record *rec, int cpu, void *ctx)
{
	struct tracepass *tp = ctx;

	for (int i = 0; i < tp->n; i++) {
		struct tracepass_slot *s = tp->slot[i];
		int rc;

		if (s->out)
			break;	/* and so are all after it */
		rc = s->cb(rec, cpu, s->ctx);
		if (rc)
			leave_from(tp, i, rc);
	}
	return tp->live ? 0 : ALL_OUT;
}

/* NETLAB_DEBUG_DECODES=FILE: one line "decode PID PATH" per pass (tracepass.h). */
static void count_decode(const char *path)
{
	const char *file = getenv("NETLAB_DEBUG_DECODES");
	FILE *f;

	if (!file || !*file)
		return;
	f = fopen(file, "a");
	if (!f)
		return;
	fprintf(f, "decode %ld %s\n", (long)getpid(), path);
	fclose(f);
}

void tracepass_run(struct tracepass *tp)
{
	char *err = NULL;
	int ret;

	if (!tp->open || !tp->live)
		return;
	count_decode(tp->path);
	ret = tracefile_iterate(&tp->tf, on_record, tp, &err);
	if (ret && ret != ALL_OUT) {
		/* The library failed: each slot still in the pass saw it fail. */
		for (int i = 0; i < tp->n; i++) {
			struct tracepass_slot *s = tp->slot[i];

			if (s->out)
				continue;
			s->rc = ret;
			s->err = err ? xstrdup(err) : NULL;
			s->out = true;
		}
		tp->live = 0;
	}
	free(err);
}

void tracepass_close(struct tracepass *tp)
{
	if (tp->open)
		tracefile_close(&tp->tf);
	tp->open = false;
	tp->n = tp->live = 0;
}

int tracepass_result(struct tracepass_slot *s, char **err)
{
	if (s->err) {
		err_set(err, "%s", s->err);
		free(s->err);
		s->err = NULL;
	}
	return s->rc;
}
