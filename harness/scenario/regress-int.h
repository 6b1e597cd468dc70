/* SPDX-License-Identifier: GPL-2.0 */
/* What regress.c shares of regress-collect.c (a run's result and metrics). */
#ifndef NETLAB_SCENARIO_REGRESS_INT_H
#define NETLAB_SCENARIO_REGRESS_INT_H

#include "scenario/regress.h"

/* regress-collect.c: RUN/result.json into @run; @status: the worker's wait status. */
void regress_read_run(struct regress_run *run, int status);

/* What a worker hands its parent: a shared mapping made before the fork. */
struct regress_chan;
struct regress_chan *regress_chan_new(void);	/* NULL: none (the parent collects) */
void regress_chan_free(struct regress_chan *ch);

/*
 * In the worker, once its run ended: when the run completed, its metrics
 * (one decode of each VM's trace), RUN/metrics.json, and what the parent
 * needs, into @ch; then the run's page (o->run_page) from that decode.
 */
void regress_worker_collect(const struct regress_opts *o, const struct regress_scn *rs,
			    const char *dir, struct regress_chan *ch);

/*
 * In the parent, for a run that completed: its metrics as its worker handed
 * them over in @ch (collected here when it handed nothing) and its checks
 * on this run alone, for the progress line @say.
 */
void regress_run_metrics(struct regress_scn *rs, struct regress_run *run,
			 const struct regress_chan *ch, struct sbuf *say);

/* regress.c: each scenario's outcome and checks from its runs (read, or just run). */
void regress_evaluate(struct regress *r, const struct regress_opts *o);

#endif /* NETLAB_SCENARIO_REGRESS_INT_H */
