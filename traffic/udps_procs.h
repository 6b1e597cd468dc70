/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udp-stream --procs P: the work split among P child processes, each
 * reporting its JSON result through a pipe, merged into one by the parent.
 *
 * Sender: flow i in process i % P. Receiver: socket i in process i % P; the
 * receiving processes share (MAP_SHARED) the ids of the flows that ended, so
 * each ends when --flows distinct flows ended, wherever they were read.
 *
 * Merging: counts are summed; "flows" and "sockets" are joined and sorted by
 * id and index. A flow read by more than one receiving process is owned by
 * the one that read most of it; what the others read of it is misdelivered
 * (the top-level sums are then recomputed from the flows). Latency
 * percentiles of the whole are the largest of the processes' (an upper
 * bound); count, min, max and mean are exact.
 */
#ifndef TRAFFIC_UDPS_PROCS_H
#define TRAFFIC_UDPS_PROCS_H

#include <stdbool.h>
#include <stdint.h>

#include "gen_opts.h"

struct json_object;
struct udpflow_set;

/* Process @part's share of the work, its result into @out. */
typedef int (*udps_part_fn)(const struct udps_opts *o, uint32_t first_id, unsigned int part,
			    struct json_object *out, char **err);

int udps_procs_run(const struct udps_opts *o, uint32_t first_id, udps_part_fn part,
		   struct json_object *out, char **err);
void udps_procs_note_ended(const struct udps_opts *o, const struct udpflow_set *s, uint64_t now);
bool udps_procs_all_ended(const struct udps_opts *o);
int udps_procs_merge(const struct udps_opts *o, struct json_object **parts, unsigned int n,
		     struct json_object *out);

#endif /* TRAFFIC_UDPS_PROCS_H */
