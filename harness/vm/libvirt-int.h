/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the libvirt backend's runtime (libvirt.c: connection and staging
 * pool; libvirt-volume.c: staged files; libvirt-stream.c: consoles and
 * ports; libvirt-domain.c: domains). Not for other users: libvirt.h is.
 */
#ifndef NETLAB_LIBVIRT_INT_H
#define NETLAB_LIBVIRT_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "vm/libvirt.h"

/* After a domain ends, how long its streams may take to drain (over ssh, on a
 * loaded host, the last data can lag): a stream cut there is an error. */
#define LV_DRAIN_S 30.0
#define LV_GONE_S 15.0	/* for a transient domain to leave libvirt once its QEMU exited */
/* Once the guest said "poweroff", its ports are drained when their streams
 * have been quiet this long: every byte it wrote had left QEMU by then. */
#define LV_QUIET_MS 500	/* was 100: a files.tar over ssh came cut once at load 8 (cause unseen) */
/* The status port's index in qemu_guest_ports, +1 for the console. */
#define LV_STATUS_STREAM 3
/*
 * A lost connection (the ssh transport died, libvirtd went away): libvirt's
 * keepalive declares a connection that stopped answering dead after
 * LV_KEEPALIVE_S * (LV_KEEPALIVE_N + 1) s; one that closed (EOF) is seen
 * at once. netlab then connects again for LV_RECONNECT_S at most, to clean
 * up: a restarted libvirtd keeps the domains whose QEMU survived it.
 * libvirtd.conf's defaults (5 s, 5 missed): with 2 s and 3, on a loaded
 * host (load 7 on 2 CPUs, CI) a domain's creation failed "connection
 * closed due to keepalive timeout" (dead after 6-8 s of silence).
 */
#define LV_KEEPALIVE_S 5
#define LV_KEEPALIVE_N 5
#define LV_RECONNECT_S 20.0

struct lv_conn {
	virConnectPtr conn;
	virStoragePoolPtr pool;
	char *uri;
	char *pool_dir;
	int closed;			/* (atomic) libvirt closed the connection */
	int close_reason;		/* (atomic) VIR_CONNECT_CLOSE_REASON_*, once closed */
};

/* A console or port of a domain, copied into a local file by a thread. */
struct lv_stream {
	struct lv_vm *vm;
	const char *what;		/* "console", or the port name */
	virStreamPtr st;
	int fd;
	bool running;			/* its event callback is registered */
	bool finish_later;		/* at its end: virStreamFinish once the domain is gone */
	int done;			/* (atomic) set by the event loop at its end */
	int result;			/* 0: end of stream, -1: error */
	char *error;			/* why it failed, when it did */
	unsigned long long bytes;	/* received so far */
	double end_s;			/* when it ended (now_s), 0 while open */
};

#define LV_N_STREAMS (1 + QEMU_N_PORTS)

struct lv_vm {
	struct lv_conn *c;
	const struct vm_config *cfg;
	unsigned int vm;
	char *name;
	virDomainPtr dom;
	struct lv_stream streams[LV_N_STREAMS];
	long long last_data_ms;		/* (atomic) when a stream last brought data */
	int poweroff_seen;		/* (atomic) the status port said "poweroff" */
	char status_tail[16];		/* the status port's last bytes (event loop) */
	bool acked;			/* the guest was told it may power off */
	char *busy_error;		/* the ack went out before the ports were quiet */
	double t0, staged_s, created_s, resumed_s;	/* for libvirt.log */
	double poweroff_s, ack_s, ended_s;
	char *local_dir;
	unsigned char uuid[VIR_UUID_BUFLEN];	/* to find the domain again */
	char *lost;			/* the connection died while the domain ran */
	char *recovered;		/* what netlab found once connected again */
	bool ended, killed, finished;
};

/* libvirt.c */
long long lv_mono_ms(void);
/* libvirt's last error message, never NULL or empty. */
const char *lv_msg(void);
/* Whether libvirt closed the connection or it stopped answering. */
bool lv_conn_lost(struct lv_conn *c);
/* Why the connection closed, in words (waits a moment for libvirt to say). */
const char *lv_close_reason(struct lv_conn *c);
/* After a lost connection: connect to the same URI again, with the staging
 * pool. false if it cannot. */
bool lv_conn_reopen(struct lv_conn *c);

/* libvirt-volume.c */
/* A virStreamRecvAll() sink writing to the fd at `opaque`: n, or -1. */
int lv_sink_write(virStreamPtr st, const char *buf, size_t n, void *opaque);
/* Upload local file `path` as volume NAME.WHAT; *staged = its host path. */
int lv_upload(struct lv_vm *v, const char *what, const char *path, char **staged, char **err);
/* Download volume NAME.WHAT to `path`; -ENOENT when there is none. */
int lv_download(struct lv_vm *v, const char *what, const char *path, char **err);
/* Delete every volume NAME.* of the domain (the pool refreshed by the caller). */
void lv_delete_staged(struct lv_vm *v);

/* libvirt-stream.c */
/* Copy the console (s == &v->streams[0]) or port `what` into DIR/FILE. */
int lv_stream_open(struct lv_vm *v, struct lv_stream *s, const char *what, const char *file,
		   const char *dir, char **err);
/* Let every stream reach its end (the domain is gone), or give up on it. */
void lv_streams_drain(struct lv_vm *v);
/* The streams that ended: finished once the (transient) domain is gone. */
void lv_streams_finish(struct lv_vm *v);
void lv_streams_free(struct lv_vm *v);
/* Whether libvirt no longer knows the domain. */
bool lv_dom_gone(struct lv_vm *v);

#endif /* NETLAB_LIBVIRT_INT_H */
