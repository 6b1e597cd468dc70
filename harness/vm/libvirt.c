// SPDX-License-Identifier: GPL-2.0
/*
 * The libvirt backend's runtime: staging, transient domains, streams.
 * See libvirt.h for what goes where and README "libvirt backend" for why.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "vm/libvirt.h"

/* After a domain ends, how long its streams may take to drain. */
#define LV_DRAIN_S 10.0
#define LV_GONE_S 15.0	/* for a transient domain to leave libvirt once its QEMU exited */
/* Once the guest said "poweroff", its ports are drained when their streams
 * have been quiet this long: every byte it wrote had left QEMU by then. */
#define LV_QUIET_MS 100
/* The status port's index in qemu_guest_ports, +1 for the console. */
#define LV_STATUS_STREAM 3
/*
 * A lost connection (the ssh transport died, libvirtd went away): libvirt's
 * keepalive declares a connection that stopped answering dead after
 * LV_KEEPALIVE_S * (LV_KEEPALIVE_N + 1) s; one that closed (EOF) is seen
 * at once. netlab then connects again for LV_RECONNECT_S at most, to clean
 * up: a restarted libvirtd keeps the domains whose QEMU survived it.
 */
#define LV_KEEPALIVE_S 2
#define LV_KEEPALIVE_N 3
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

static long long mono_ms(void)
{
	return (long long)(now_s() * 1000.0);
}

static void lv_quiet(void *ud, virErrorPtr e)
{
}

static const char *lv_msg(void)
{
	const char *m = virGetLastErrorMessage();

	return m && *m ? m : "unknown libvirt error";
}

/*
 * Consoles and ports are non-blocking streams served by libvirt's default
 * event loop on a thread of its own: blocking receives on several streams
 * of one connection starve its other calls (seen with a pair's 10 streams).
 */
static pthread_once_t ev_once = PTHREAD_ONCE_INIT;
static int ev_ok;

static void *ev_loop(void *arg)
{
	for (;;)
		if (virEventRunDefaultImpl() < 0)
			usleep(10000);
	return NULL;
}

static void ev_start(void)
{
	pthread_t t;

	if (virEventRegisterDefaultImpl() < 0 || pthread_create(&t, NULL, ev_loop, NULL))
		return;
	pthread_detach(t);
	ev_ok = 1;
}

/* ---- connection and staging pool ----------------------------------------- */

/* The group libvirt runs QEMU as on that host (-1: unknown, see lv_qemu_gid()). */
static long conn_qemu_gid(struct lv_conn *c)
{
	char *caps = virConnectGetCapabilities(c->conn);
	long gid = caps ? lv_qemu_gid(caps) : -1;

	free(caps);
	return gid;
}

/*
 * An active pool whose directory is not as lv_pool_xml() asks (an earlier
 * netlab made it mode 0777): stop it and let ensure_pool() create it anew.
 * Building over the existing directory chmods and chowns it (libvirt's
 * virDirCreate); staged volumes stay on disk. Only through libvirt's API:
 * the directory may be on a remote host. A persistent pool is someone
 * else's definition: refused, with a hint.
 */
static int check_pool(struct lv_conn *c, long gid, char **err)
{
	unsigned int mode;
	char *xml;
	bool ok;

	virStoragePoolRefresh(c->pool, 0);	/* the directory's actual mode */
	xml = virStoragePoolGetXMLDesc(c->pool, 0);
	ok = xml && lv_pool_private(xml, gid, &mode);
	if (xml && !c->pool_dir)
		c->pool_dir = lv_pool_path(xml);
	free(xml);
	if (ok || !xml)
		return 0;
	if (virStoragePoolIsPersistent(c->pool) == 1) {
		err_set(err, "libvirt at '%s': the staging pool '%s' is mode %04o, not 0770 with "
			     "QEMU's group, and it is a persistent pool netlab did not define\n"
			     "hint: remove it (virsh -c %s pool-destroy %s; virsh -c %s pool-undefine "
			     "%s): netlab then creates it itself",
			c->uri, LV_POOL_NAME, mode, c->uri, LV_POOL_NAME, c->uri, LV_POOL_NAME);
		return -EIO;
	}
	fprintf(stderr, "netlab: warning: libvirt at '%s': the staging pool '%s' was %s (mode "
			"%04o); making it mode 0770, group %ld, QEMU's\n",
		c->uri, LV_POOL_NAME, mode & 0002 ? "world-writable" : "not private", mode, gid);
	virStoragePoolDestroy(c->pool);
	virStoragePoolFree(c->pool);
	c->pool = NULL;
	free(c->pool_dir);
	c->pool_dir = NULL;
	return 1;
}

/*
 * The staging directory sits in world-writable /var/tmp: someone may have
 * made it first, or put a symlink there, which libvirt's pool build would
 * follow when it chmods and chowns. On a local daemon, refuse anything but
 * a real directory of root's or ours. (A remote host's directory is only
 * seen through libvirt: README.)
 */
static int check_stage_dir(const struct lv_conn *c, char **err)
{
	struct stat st;

	if (strncmp(c->uri, "qemu:///", 8) && strncmp(c->uri, "qemu+unix:///", 13))
		return 0;
	if (lstat(LV_POOL_DIR, &st) < 0)
		return 0;	/* the pool build makes it */
	if (S_ISDIR(st.st_mode) && (st.st_uid == 0 || st.st_uid == geteuid()))
		return 0;
	err_set(err, "libvirt at '%s': the staging directory '%s' is %s, owned by uid %u: "
		     "netlab will not stage kernels and captures there\n"
		     "hint: remove it (rm %s'%s') if you do not know who made it; netlab creates "
		     "it itself, mode 0770",
		c->uri, LV_POOL_DIR,
		S_ISLNK(st.st_mode) ? "a symbolic link" : S_ISDIR(st.st_mode) ? "a directory" : "not a directory",
		(unsigned int)st.st_uid, S_ISDIR(st.st_mode) ? "-r " : "", LV_POOL_DIR);
	return -EPERM;
}

static int ensure_pool(struct lv_conn *c, char **err)
{
	long gid = conn_qemu_gid(c);
	char *pool_xml = lv_pool_xml(gid);
	char *why = NULL;
	int ret = check_stage_dir(c, err);

	if (ret)
		goto out;

	for (int tries = 0; tries < 2 && !c->pool; tries++) {
		c->pool = virStoragePoolLookupByName(c->conn, LV_POOL_NAME);
		if (!c->pool) {
			c->pool = virStoragePoolCreateXML(c->conn, pool_xml,
							  VIR_STORAGE_POOL_CREATE_WITH_BUILD);
			if (!c->pool) {	/* another netlab created it meanwhile? */
				free(why);
				why = xstrdup(lv_msg());
				c->pool = virStoragePoolLookupByName(c->conn, LV_POOL_NAME);
			}
		} else if (virStoragePoolIsActive(c->pool) != 1 &&
			   virStoragePoolCreate(c->pool, VIR_STORAGE_POOL_CREATE_WITH_BUILD) < 0 &&
			   virStoragePoolIsActive(c->pool) != 1) {
			virStoragePoolFree(c->pool);
			c->pool = NULL;
			break;
		}
		if (c->pool && (ret = check_pool(c, gid, err)) < 0)
			goto out;
	}
	if (!c->pool) {
		err_set(err, "libvirt at '%s': cannot set up the staging pool '%s' (%s): %s\n"
			     "hint: netlab stages kernels, initrds and captures there; check that the "
			     "daemon can create it",
			c->uri, LV_POOL_NAME, LV_POOL_DIR, why ? why : lv_msg());
		ret = -EIO;
		goto out;
	}
	ret = 0;
	if (!c->pool_dir)
		c->pool_dir = xstrdup(LV_POOL_DIR);
out:
	free(why);
	free(pool_xml);
	return ret;
}

static void conn_closed(virConnectPtr conn, int reason, void *opaque)
{
	struct lv_conn *c = opaque;

	__atomic_store_n(&c->close_reason, reason, __ATOMIC_RELAXED);
	__atomic_store_n(&c->closed, 1, __ATOMIC_RELEASE);
}

/* Notice a dead connection in seconds, not at the run's timeout. Needs the
 * event loop (not for lv_check()). */
static void watch_conn(struct lv_conn *c)
{
	__atomic_store_n(&c->close_reason, -1, __ATOMIC_RELAXED);
	__atomic_store_n(&c->closed, 0, __ATOMIC_RELEASE);
	virConnectRegisterCloseCallback(c->conn, conn_closed, c, NULL);
	virConnectSetKeepAlive(c->conn, LV_KEEPALIVE_S, LV_KEEPALIVE_N);
}

static bool conn_lost(struct lv_conn *c)
{
	return __atomic_load_n(&c->closed, __ATOMIC_ACQUIRE) || virConnectIsAlive(c->conn) != 1;
}

static const char *close_reason(struct lv_conn *c)
{
	/* virConnectIsAlive() may say so a moment before the callback ran. */
	for (int i = 0; i < 20 && !__atomic_load_n(&c->closed, __ATOMIC_ACQUIRE); i++)
		usleep(10000);
	switch (__atomic_load_n(&c->close_reason, __ATOMIC_RELAXED)) {
	case VIR_CONNECT_CLOSE_REASON_EOF: return "end of file: the transport or the daemon went away";
	case VIR_CONNECT_CLOSE_REASON_KEEPALIVE: return "no keepalive answer";
	case VIR_CONNECT_CLOSE_REASON_ERROR: return "I/O error";
	default: return "closed";
	}
}

/*
 * After a lost connection: connect to the same URI again (a restarted
 * libvirtd takes a moment), with the staging pool. The old connection
 * goes once its domains and streams let go of it. false if it cannot.
 */
static bool conn_reopen(struct lv_conn *c)
{
	double until = now_s() + LV_RECONNECT_S;
	virConnectPtr n = NULL;
	char *e = NULL;

	if (!conn_lost(c))
		return true;
	while (!(n = virConnectOpen(c->uri)) && now_s() < until)
		usleep(250000);
	if (!n)
		return false;
	virConnectUnregisterCloseCallback(c->conn, conn_closed);
	if (c->pool)
		virStoragePoolFree(c->pool);
	virConnectClose(c->conn);
	c->conn = n;
	c->pool = NULL;
	free(c->pool_dir);
	c->pool_dir = NULL;
	watch_conn(c);
	/* A transient pool may not have outlived a restarted daemon. */
	if (ensure_pool(c, &e)) {
		free(e);
		return false;
	}
	return true;
}

static int conn_open(const char *uri, bool events, struct lv_conn **out, char **err)
{
	struct lv_conn *c;
	int ret;

	*out = NULL;
	virSetErrorFunc(NULL, lv_quiet);
	if (virInitialize() < 0 || (events && (pthread_once(&ev_once, ev_start) || !ev_ok))) {
		err_set(err, "cannot initialise libvirt: %s", lv_msg());
		return -EIO;
	}
	c = xzalloc(sizeof(*c));
	c->uri = xstrdup(uri);
	c->conn = virConnectOpen(uri);
	if (!c->conn) {
		err_set(err, "cannot connect to libvirt at '%s': %s\n"
			     "hint: check the URI and that libvirtd and virtlogd run there "
			     "('libvirtd -d; virtlogd -d' as root), or pass another --connect URI",
			uri, lv_msg());
		lv_close(c);
		return -EINVAL;
	}
	ret = ensure_pool(c, err);
	if (ret) {
		lv_close(c);
		return ret;
	}
	if (events)
		watch_conn(c);
	*out = c;
	return 0;
}

/*
 * Staged files of runs that died by SIGKILL (their domains went with the
 * connection, their volumes did not): volumes named by lv_default_name()
 * on this host whose process is gone.
 */
static void gc_stale(struct lv_conn *c)
{
	char *mine = lv_name_prefix();
	size_t plen = strlen(mine);
	virStorageVolPtr *vols = NULL;
	int n;

	virStoragePoolRefresh(c->pool, 0);	/* the captures QEMU created */
	n = virStoragePoolListAllVolumes(c->pool, &vols, 0);
	for (int i = 0; i < n; i++) {
		const char *vn = virStorageVolGetName(vols[i]);
		char *end;
		long pid;

		if (vn && !strncmp(vn, mine, plen)) {
			pid = strtol(vn + plen, &end, 10);
			if (end != vn + plen && *end == '-' && pid > 0 && kill((pid_t)pid, 0) &&
			    errno == ESRCH)
				virStorageVolDelete(vols[i], 0);
		}
		virStorageVolFree(vols[i]);
	}
	free(vols);
	free(mine);
}

int lv_open(const char *uri, struct lv_conn **out, char **err)
{
	int ret = conn_open(uri, true, out, err);

	if (!ret)
		gc_stale(*out);
	return ret;
}

int lv_check(const char *uri, char **err)
{
	struct lv_conn *c;
	int ret = conn_open(uri, false, &c, err);

	lv_close(c);
	return ret;
}

void lv_close(struct lv_conn *c)
{
	if (!c)
		return;
	if (c->pool)
		virStoragePoolFree(c->pool);
	if (c->conn) {
		virConnectUnregisterCloseCallback(c->conn, conn_closed);
		virConnectClose(c->conn);
	}
	free(c->uri);
	free(c->pool_dir);
	free(c);
}

/* ---- volumes ------------------------------------------------------------- */

static int src_read(virStreamPtr st, char *buf, size_t n, void *opaque)
{
	ssize_t r;

	do
		r = read(*(int *)opaque, buf, n);
	while (r < 0 && errno == EINTR);
	return (int)r;
}

static int sink_write(virStreamPtr st, const char *buf, size_t n, void *opaque)
{
	size_t done = 0;

	while (done < n) {
		ssize_t w = write(*(int *)opaque, buf + done, n - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		done += (size_t)w;
	}
	return (int)n;
}

/* Upload local file `path` as volume NAME.WHAT; *staged = its host path. */
static int upload(struct lv_vm *v, const char *what, const char *path, char **staged, char **err)
{
	char *vname = xasprintf("%s.%s", v->name, what), *xml = NULL;
	virStorageVolPtr vol = NULL;
	virStreamPtr st = NULL;
	struct stat sb;
	int fd, ret = -EIO;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb)) {
		ret = -errno;
		err_set(err, "cannot read '%s': %s", path, strerror(errno));
		goto out;
	}
	xml = xasprintf("<volume><name>%s</name><capacity unit='bytes'>%lld</capacity>"
			"<allocation>0</allocation><target><format type='raw'/>"
			"<permissions><mode>0644</mode></permissions></target></volume>",
			vname, (long long)sb.st_size);
	vol = virStorageVolCreateXML(v->c->pool, xml, 0);
	if (!vol) {
		err_set(err, "libvirt at '%s': cannot create volume '%s': %s", v->c->uri, vname,
			lv_msg());
		goto out;
	}
	st = virStreamNew(v->c->conn, 0);
	if (!st || virStorageVolUpload(vol, st, 0, (unsigned long long)sb.st_size, 0) < 0 ||
	    virStreamSendAll(st, src_read, &fd) < 0 || virStreamFinish(st) < 0) {
		err_set(err, "libvirt at '%s': cannot upload '%s' to '%s': %s", v->c->uri, path,
			vname, lv_msg());
		if (st)
			virStreamAbort(st);
		goto out;
	}
	*staged = virStorageVolGetPath(vol);
	ret = *staged ? 0 : -EIO;
	if (ret)
		err_set(err, "libvirt at '%s': volume '%s' has no path: %s", v->c->uri, vname, lv_msg());
out:
	if (st)
		virStreamFree(st);
	if (vol)
		virStorageVolFree(vol);
	if (fd >= 0)
		close(fd);
	free(xml);
	free(vname);
	return ret;
}

/* Download volume NAME.WHAT to `path`; -ENOENT when there is none. */
static int download(struct lv_vm *v, const char *what, const char *path, char **err)
{
	char *vname = xasprintf("%s.%s", v->name, what);
	virStorageVolPtr vol = virStorageVolLookupByName(v->c->pool, vname);
	virStreamPtr st = NULL;
	int fd = -1, ret = -EIO;

	if (!vol) {
		ret = -ENOENT;
		err_set(err, "libvirt at '%s': no '%s' in pool '%s': %s", v->c->uri, vname,
			LV_POOL_NAME, lv_msg());
		goto out;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		err_set(err, "cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	st = virStreamNew(v->c->conn, 0);
	if (!st || virStorageVolDownload(vol, st, 0, 0, 0) < 0 ||
	    virStreamRecvAll(st, sink_write, &fd) < 0 || virStreamFinish(st) < 0) {
		err_set(err, "libvirt at '%s': cannot download '%s': %s", v->c->uri, vname, lv_msg());
		if (st)
			virStreamAbort(st);
		goto out;
	}
	ret = 0;
out:
	if (st)
		virStreamFree(st);
	if (vol)
		virStorageVolFree(vol);
	if (fd >= 0)
		close(fd);
	free(vname);
	return ret;
}

/* Delete every volume NAME.* of the domain (the pool refreshed by the caller). */
static void delete_staged(struct lv_vm *v)
{
	virStorageVolPtr *vols = NULL;
	size_t plen = strlen(v->name);
	int n;

	n = virStoragePoolListAllVolumes(v->c->pool, &vols, 0);
	for (int i = 0; i < n; i++) {
		const char *vn = virStorageVolGetName(vols[i]);

		if (vn && !strncmp(vn, v->name, plen) && vn[plen] == '.')
			virStorageVolDelete(vols[i], 0);
		virStorageVolFree(vols[i]);
	}
	free(vols);
}

/* ---- streams ------------------------------------------------------------- */

static void stream_end(struct lv_stream *s, int n)
{
	if (n < 0)
		s->error = xasprintf("%s", n == -1 ? lv_msg() : "cannot write the local file");
	virStreamEventRemoveCallback(s->st);
	/*
	 * Not virStreamFinish() now: libvirtd 9.0 deadlocks (all of it) when a
	 * client finishes a console or channel stream while the domain whose
	 * QEMU just exited is being freed (virChrdevFree holds the chrdev lock
	 * and waits for the stream's; the stream's finish holds that and waits
	 * for the chrdev's). The end of a stream is that QEMU exit: finish it
	 * once the domain is gone (finish_streams()).
	 */
	if (n == 0)
		s->finish_later = true;
	else
		virStreamAbort(s->st);
	s->result = n == 0 ? 0 : -1;
	s->end_s = now_s();
	__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
}

/* Watch the status port for the agent's last line. */
static void status_data(struct lv_vm *v, const char *buf, size_t n)
{
	char *t = v->status_tail;
	size_t keep = sizeof(v->status_tail) - 1, have = strlen(t);

	if (n >= keep) {
		memcpy(t, buf + n - keep, keep);
		t[keep] = '\0';
	} else {
		if (have + n > keep) {
			memmove(t, t + have + n - keep, keep - n);
			have = keep - n;
		}
		memcpy(t + have, buf, n);
		t[have + n] = '\0';
	}
	if (strstr(t, "poweroff\n") && !__atomic_load_n(&v->poweroff_seen, __ATOMIC_ACQUIRE)) {
		v->poweroff_s = now_s();
		__atomic_store_n(&v->poweroff_seen, 1, __ATOMIC_RELEASE);
	}
}

static void stream_event(virStreamPtr st, int events, void *opaque)
{
	struct lv_stream *s = opaque;
	char buf[65536];

	if (__atomic_load_n(&s->done, __ATOMIC_ACQUIRE))
		return;
	for (;;) {
		int n = virStreamRecv(st, buf, sizeof(buf));

		if (n == -2)		/* nothing more for now */
			return;
		if (n > 0 && sink_write(st, buf, (size_t)n, &s->fd) == n) {
			s->bytes += (unsigned long long)n;
			__atomic_store_n(&s->vm->last_data_ms, mono_ms(), __ATOMIC_RELAXED);
			if (s == &s->vm->streams[LV_STATUS_STREAM])
				status_data(s->vm, buf, (size_t)n);
			continue;
		}
		stream_end(s, n > 0 ? -3 : n);
		return;
	}
}

static int open_stream(struct lv_vm *v, struct lv_stream *s, const char *what, const char *file,
		       const char *dir, char **err)
{
	char *path = xasprintf("%s/%s", dir, file);
	int ret = 0;

	s->what = what;
	s->vm = v;
	s->fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (s->fd < 0) {
		ret = -errno;
		err_set(err, "cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	s->st = virStreamNew(v->c->conn, VIR_STREAM_NONBLOCK);
	if (!s->st ||
	    (s == &v->streams[0]
		     ? virDomainOpenConsole(v->dom, NULL, s->st, VIR_DOMAIN_CONSOLE_FORCE)
		     : virDomainOpenChannel(v->dom, what, s->st, VIR_DOMAIN_CHANNEL_FORCE)) < 0 ||
	    virStreamEventAddCallback(s->st, VIR_STREAM_EVENT_READABLE | VIR_STREAM_EVENT_HANGUP |
						     VIR_STREAM_EVENT_ERROR,
				      stream_event, s, NULL) < 0) {
		err_set(err, "libvirt at '%s': cannot open the %s of domain '%s': %s", v->c->uri,
			what, v->name, lv_msg());
		ret = -EIO;
		goto out;
	}
	s->running = true;
out:
	free(path);
	return ret;
}

/* Let every stream reach its end (the domain is gone), or give up on it. */
static void drain_streams(struct lv_vm *v)
{
	double until = now_s() + LV_DRAIN_S;

	for (int i = 0; i < LV_N_STREAMS; i++) {
		struct lv_stream *s = &v->streams[i];

		if (!s->running)
			continue;
		while (!__atomic_load_n(&s->done, __ATOMIC_ACQUIRE) && now_s() < until)
			usleep(5000);
		if (!__atomic_load_n(&s->done, __ATOMIC_ACQUIRE)) {
			virStreamEventRemoveCallback(s->st);
			virStreamAbort(s->st);
		}
		s->running = false;
	}
}

static bool dom_gone(struct lv_vm *v)
{
	int state, reason;

	return !v->dom || virDomainGetState(v->dom, &state, &reason, 0) < 0;
}

/* The streams that ended: finished once the (transient) domain is gone. */
static void finish_streams(struct lv_vm *v)
{
	bool any = false;
	double until;

	for (int i = 0; i < LV_N_STREAMS; i++)
		any |= v->streams[i].finish_later;
	if (!any)
		return;
	until = now_s() + LV_GONE_S;
	while (!dom_gone(v) && now_s() < until)
		usleep(50000);
	if (!dom_gone(v))
		virDomainDestroy(v->dom);
	/* Its last reference goes a moment after it leaves the list. */
	usleep(500000);
	for (int i = 0; i < LV_N_STREAMS; i++) {
		struct lv_stream *s = &v->streams[i];

		if (s->finish_later && s->st)
			virStreamFinish(s->st);
		s->finish_later = false;
	}
}

static void free_streams(struct lv_vm *v)
{
	for (int i = 0; i < LV_N_STREAMS; i++) {
		struct lv_stream *s = &v->streams[i];

		if (s->st)
			virStreamFree(s->st);
		free(s->error);
		s->error = NULL;
		if (s->fd >= 0)
			close(s->fd);
		s->st = NULL;
		s->fd = -1;
	}
}

/* ---- domains ------------------------------------------------------------- */

static void write_local(const char *dir, const char *file, const char *text)
{
	char *path = xasprintf("%s/%s", dir, file);

	file_writef(path, "%s", text);
	free(path);
}

int lv_vm_start(struct lv_conn *c, const struct lv_vm_opts *o, struct lv_vm **out, char **err)
{
	struct lv_vm *v = xzalloc(sizeof(*v));
	struct lv_stage st = { .name = o->name, .dir = c->pool_dir };
	char *kernel = NULL, *initrd = NULL;
	virDomainPtr other;
	struct sbuf xml;
	int ret;

	*out = NULL;
	sbuf_init(&xml);
	v->c = c;
	v->cfg = o->cfg;
	v->vm = o->vm;
	v->name = xstrdup(o->name);
	v->local_dir = xstrdup(o->local_dir);
	v->t0 = now_s();
	for (int i = 0; i < LV_N_STREAMS; i++)
		v->streams[i].fd = -1;
	other = virDomainLookupByName(c->conn, o->name);
	if (other) {
		virDomainFree(other);
		err_set(err, "libvirt at '%s': a domain named '%s' already exists\n"
			     "hint: netlab leaves other domains alone; pass another --domain-name, or "
			     "remove that one (virsh -c %s destroy %s)",
			c->uri, o->name, c->uri, o->name);
		free(v->name);
		free(v);
		return -EINVAL;
	}
	if (o->udp_port)
		memcpy(st.udp_port, o->udp_port, sizeof(st.udp_port));
	ret = upload(v, "kernel", o->kernel, &kernel, err);
	if (!ret)
		ret = upload(v, "initrd", o->initrd, &initrd, err);
	if (ret)
		goto fail;
	st.kernel = kernel;
	st.initrd = initrd;
	v->staged_s = now_s();
	ret = lv_domain_xml(o->cfg, o->vm, &st, &xml, err);
	if (ret)
		goto fail;
	write_local(o->local_dir, "domain.xml", xml.s);
	v->dom = virDomainCreateXML(c->conn, xml.s,
				    VIR_DOMAIN_START_PAUSED | VIR_DOMAIN_START_AUTODESTROY);
	if (!v->dom) {
		const char *m = lv_msg();

		/* What QEMU said is in libvirt's message: keep it as qemu.log. */
		write_local(o->local_dir, "qemu.log", m);
		ret = strstr(m, "already exists") ? -EINVAL : -EIO;
		err_set(err, "libvirt at '%s' refused domain '%s': %s", c->uri, o->name, m);
		goto fail;
	}
	v->created_s = now_s();
	virDomainGetUUID(v->dom, v->uuid);
	ret = open_stream(v, &v->streams[0], "console", "console.log", o->local_dir, err);
	for (int i = 0; !ret && i < QEMU_N_PORTS; i++)
		ret = open_stream(v, &v->streams[1 + i], qemu_guest_ports[i],
				  qemu_port_file(qemu_guest_ports[i]), o->local_dir, err);
	if (!ret && !o->paused && virDomainResume(v->dom) < 0) {
		err_set(err, "libvirt at '%s': cannot start domain '%s': %s", c->uri, o->name,
			lv_msg());
		ret = -EIO;
	}
	if (ret)
		goto fail;
	v->resumed_s = now_s();
	*out = v;
	goto out;
fail:
	lv_vm_kill(v);
	drain_streams(v);
	virStoragePoolRefresh(c->pool, 0);	/* captures of a domain that ran */
	delete_staged(v);
	lv_vm_release(v);
out:
	free(kernel);
	free(initrd);
	sbuf_release(&xml);
	return ret;
}

/* Whether the domain ended: shut off, crashed, or gone (a transient domain
 * that powered off or was destroyed no longer exists: lookup errors mean so). */
static bool dom_ended(struct lv_vm *v)
{
	int state, reason;

	if (!v->dom)
		return true;
	if (virDomainGetState(v->dom, &state, &reason, 0) < 0)
		return true;
	return state == VIR_DOMAIN_SHUTOFF || state == VIR_DOMAIN_CRASHED;
}

/* The guest waits at poweroff (job "ack") until its ports are drained. */
static void maybe_ack(struct lv_vm *v)
{
	struct lv_stream *s = &v->streams[LV_STATUS_STREAM];

	bool late;

	if (v->acked || !__atomic_load_n(&v->poweroff_seen, __ATOMIC_ACQUIRE))
		return;
	late = now_s() - v->poweroff_s > LV_ACK_S;
	if (!late && mono_ms() - __atomic_load_n(&v->last_data_ms, __ATOMIC_RELAXED) < LV_QUIET_MS)
		return;
	if (late && !v->busy_error)
		v->busy_error = xasprintf("the ports of domain '%s' were still busy %d s after the "
					  "guest said poweroff", v->name, LV_ACK_S);
	if (s->st) {
		int n = virStreamSend(s->st, "\n", 1);

		if (n == -2)
			return;		/* try again on the next turn */
		if (n < 0 && !s->error)
			s->error = xasprintf("cannot send the guest its ack: %s", lv_msg());
	}
	v->acked = true;
	v->ack_s = now_s();
}

/* Acked and every stream at its end: the guest has powered off. */
static bool streams_closed(struct lv_vm *v)
{
	if (!v->acked)
		return false;
	for (int i = 0; i < LV_N_STREAMS; i++)
		if (v->streams[i].running && !__atomic_load_n(&v->streams[i].done, __ATOMIC_ACQUIRE))
			return false;
	return true;
}

/*
 * Whether the connection died while the domain ran. Asked before and after
 * dom_ended(): every call fails on a dead connection, which would read as
 * "the domain is gone" (seen when keepalive closed a hung ssh transport).
 */
static bool vm_lost(struct lv_vm *v)
{
	if (!v->ended && conn_lost(v->c)) {
		v->lost = xasprintf("lost the connection to libvirt at '%s' (%s) while domain '%s' "
				    "ran", v->c->uri, close_reason(v->c), v->name);
		v->ended_s = now_s();
		v->ended = true;
	}
	return v->lost != NULL;
}

bool lv_vm_wait(struct lv_vm *v, int ms)
{
	for (;;) {
		if (vm_lost(v))
			return true;
		maybe_ack(v);
		/*
		 * QEMU closed every chardev at the guest's power-off: the run
		 * is over. libvirt takes ~2 s more to reap QEMU, holding the
		 * domain (virDomainGetState and virDomainDestroy wait for it),
		 * and the transient domain then goes by itself.
		 */
		if (!v->ended && streams_closed(v)) {
			v->ended_s = now_s();
			v->ended = true;
		}
		if (v->ended || dom_ended(v)) {
			if (vm_lost(v))
				return true;
			if (!v->ended)
				v->ended_s = now_s();
			v->ended = true;
			return true;
		}
		if (ms <= 0)
			return false;
		usleep(20000);
		ms -= 20;
	}
}

bool lv_vm_ended(const struct lv_vm *v)
{
	return v->ended;
}

void lv_vm_kill(struct lv_vm *v)
{
	if (!v->dom || v->ended)
		return;
	v->ended = true;
	if (dom_ended(v))
		return;
	virDomainDestroy(v->dom);
	v->killed = true;
}

int lv_vm_status(const struct lv_vm *v)
{
	return v->killed ? SIGKILL : 0;
}

/* LOCAL_DIR/libvirt.log: what the backend saw, in seconds from the start. */
static void write_log(struct lv_vm *v)
{
	struct sbuf b;
	char *path;

#define REL(t) ((t) > 0 ? (t) - v->t0 : -1.0)
	sbuf_init(&b);
	sbuf_addf(&b, "domain %s on %s\n", v->name, v->c->uri);
	sbuf_addf(&b, "staged %.3f\ncreated %.3f\nresumed %.3f\n", REL(v->staged_s),
		  REL(v->created_s), REL(v->resumed_s));
	sbuf_addf(&b, "poweroff_seen %.3f\nack_sent %.3f\nended %.3f%s\n", REL(v->poweroff_s),
		  REL(v->ack_s), REL(v->ended_s), v->killed ? " (destroyed by netlab)" : "");
	if (v->lost)
		sbuf_addf(&b, "lost %s\nrecovered %s\n", v->lost,
			  v->recovered ? v->recovered : "-1 (not connected again)");
	for (int i = 0; i < LV_N_STREAMS; i++) {
		struct lv_stream *s = &v->streams[i];

		sbuf_addf(&b, "stream %s bytes %llu end %.3f %s%s\n", s->what ? s->what : "?",
			  s->bytes, REL(s->end_s),
			  !s->end_s ? "open" : s->result ? "error: " : "eof",
			  s->error ? s->error : "");
	}
#undef REL
	path = xasprintf("%s/libvirt.log", v->local_dir);
	file_writef(path, "%s", b.s);
	free(path);
	sbuf_release(&b);
}

/*
 * The connection died while the domain ran: its streams died with it (what
 * they brought is in the run directory). Connect again, and destroy the
 * domain if it is still there: libvirt's AUTODESTROY ends it when the
 * daemon sees the client go, but a libvirtd that was restarted takes its
 * running QEMU back (seen with libvirt 9.0). By UUID: the name may be
 * someone else's by now. false when the host cannot be reached again.
 */
static bool recover_lost(struct lv_vm *v)
{
	for (int i = 0; i < LV_N_STREAMS; i++) {
		struct lv_stream *s = &v->streams[i];

		if (s->running) {
			virStreamEventRemoveCallback(s->st);
			virStreamAbort(s->st);
		}
		s->running = s->finish_later = false;
	}
	if (!conn_reopen(v->c)) {
		char *m = xasprintf("%s; could not connect again: domain '%s' may still run there\n"
				    "hint: virsh -c %s destroy %s", v->lost, v->name, v->c->uri,
				    v->name);

		free(v->lost);
		v->lost = m;
		return false;
	}
	if (v->dom)
		virDomainFree(v->dom);
	v->dom = virDomainLookupByUUID(v->c->conn, v->uuid);
	if (v->dom && virDomainDestroy(v->dom) == 0) {
		v->killed = true;
	} else if (v->dom && virGetLastErrorCode() == VIR_ERR_NO_DOMAIN) {
		/* It went between the lookup and the destroy (seen once). */
		virDomainFree(v->dom);
		v->dom = NULL;
	}
	v->recovered = xasprintf("%.3f: connected again, domain %s%s", now_s() - v->t0,
				 !v->dom ? "gone" : v->killed ? "still there: destroyed"
							      : "still there, not destroyed: ",
				 v->dom && !v->killed ? lv_msg() : "");
	return true;
}

int lv_vm_finish(struct lv_vm *v, const char *pcap_dir, char **err)
{
	int ret = 0;

	if (v->finished)
		return 0;
	v->finished = true;
	if (v->lost && !recover_lost(v)) {
		write_log(v);
		err_set(err, "%s", v->lost);
		return -EIO;
	}
	lv_vm_kill(v);
	drain_streams(v);
	finish_streams(v);
	write_log(v);
	if (v->lost) {
		ret = -EIO;
		err_set(err, "%s", v->lost);
	} else if (v->busy_error) {
		ret = -EIO;
		err_set(err, "%s", v->busy_error);
	} else if (v->poweroff_s > 0 && !v->acked && !v->killed) {
		ret = -EIO;
		err_set(err, "domain '%s' powered off before its ports went quiet (see libvirt.log)",
			v->name);
	}
	for (int i = 0; i < LV_N_STREAMS; i++) {
		struct lv_stream *s = &v->streams[i];

		if (s->error && !ret) {
			ret = -EIO;
			err_set(err, "the %s stream of domain '%s' broke: %s", s->what, v->name,
				s->error);
		}
	}
	virStoragePoolRefresh(v->c->pool, 0);
	for (unsigned int i = 0; i < v->cfg->n_nics; i++) {
		const struct vm_nic *n = &v->cfg->nics[i];
		char *what, *path;
		char *e = NULL;
		int r;

		if (n->vm != v->vm)
			continue;
		what = xasprintf("nic-%c.pcap", n->label);
		path = xasprintf("%s/%s", pcap_dir, what);
		r = download(v, what, path, &e);
		if (r && !ret) {
			ret = r;
			err_set(err, "%s", e);
		}
		free(e);
		free(what);
		free(path);
	}
	delete_staged(v);
	return ret;
}

void lv_vm_release(struct lv_vm *v)
{
	if (!v)
		return;
	drain_streams(v);
	finish_streams(v);
	free_streams(v);
	if (v->dom)
		virDomainFree(v->dom);
	free(v->name);
	free(v->busy_error);
	free(v->lost);
	free(v->recovered);
	free(v->local_dir);
	free(v);
}
