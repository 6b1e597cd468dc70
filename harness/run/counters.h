/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parsers for the guest's counter files, as collected around a scenario:
 * /proc/net/snmp and /proc/net/netstat ("Group: names" / "Group: values"
 * line pairs), /proc/net/softnet_stat (hex columns per CPU), `ethtool -S`
 * ("name: value") and `ethtool -g` (ring sizes). Each parser hands every
 * counter to `emit` as (prefix.name, value); callers take deltas.
 */
#ifndef NETLAB_COUNTERS_H
#define NETLAB_COUNTERS_H

typedef void (*counter_emit_fn)(void *ctx, const char *name, double value);

/* snmp/netstat: emits PREFIX.Group.Field. -EINVAL when a values line does
 * not match its names line; *err says which group. */
int counters_parse_snmp(const char *text, const char *prefix, counter_emit_fn emit, void *ctx,
			char **err);
/* softnet_stat: emits softnet.cpuK.{processed,dropped,time_squeeze,
 * received_rps,flow_limit,backlog_len} for each CPU K (the columns its kernel
 * has; K from the cpu column, else the line's rank), then the sums over CPUs
 * softnet.{processed,dropped,time_squeeze,received_rps,flow_limit}. */
int counters_parse_softnet(const char *text, counter_emit_fn emit, void *ctx, char **err);
/* ethtool -S: emits PREFIX.name for every numeric counter. */
int counters_parse_ethtool_stats(const char *text, const char *prefix, counter_emit_fn emit,
				 void *ctx, char **err);
/* ethtool -g: emits PREFIX.{rx,tx} (current) and PREFIX.{rx_max,tx_max}. */
int counters_parse_ethtool_ring(const char *text, const char *prefix, counter_emit_fn emit,
				void *ctx, char **err);

/*
 * `ethtool -k IFACE`: the offloads netlab's loss story names, as
 * PREFIX.NAME = 1 (on) or 0 (off), NAME with '_' for '-': rx_checksumming,
 * tx_checksumming, scatter_gather, tcp_segmentation_offload,
 * generic_segmentation_offload, generic_receive_offload. -EINVAL when none
 * is there.
 */
int counters_parse_ethtool_features(const char *text, const char *prefix, counter_emit_fn emit,
				    void *ctx, char **err);

/* /proc/net/stat/{arp,ndisc}_cache: a header of names, then one row of hex
 * counters per CPU; emits PREFIX.name summed over CPUs (not "entries"). */
int counters_parse_neigh_stat(const char *text, const char *prefix, counter_emit_fn emit,
			      void *ctx, char **err);
/* /proc/net/snmp6 ("Name value" lines): emits PREFIX.Name. */
int counters_parse_snmp6(const char *text, const char *prefix, counter_emit_fn emit, void *ctx,
			 char **err);
/* tc -s qdisc show dev X: sums over the device's qdiscs, emits
 * PREFIX.{packets,bytes,dropped,overlimits,requeues}. */
int counters_parse_tc_qdisc(const char *text, const char *prefix, counter_emit_fn emit, void *ctx,
			    char **err);

#endif /* NETLAB_COUNTERS_H */
