// SPDX-License-Identifier: GPL-2.0
/*
 * The libvirt backend's runtime: the connection and the staging pool.
 * See libvirt.h for what goes where and README "libvirt backend" for why;
 * staged files are in libvirt-volume.c, streams in libvirt-stream.c,
 * domains in libvirt-domain.c.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vm/libvirt-int.h"

long long lv_mono_ms(void)
{
	return (long long)(now_s() * 1000.0);
}

static void lv_quiet(void *ud, virErrorPtr e)
{
}

const char *lv_msg(void)
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

bool lv_conn_lost(struct lv_conn *c)
{
	return __atomic_load_n(&c->closed, __ATOMIC_ACQUIRE) || virConnectIsAlive(c->conn) != 1;
}

const char *lv_close_reason(struct lv_conn *c)
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
bool lv_conn_reopen(struct lv_conn *c)
{
	double until = now_s() + LV_RECONNECT_S;
	virConnectPtr n = NULL;
	char *e = NULL;

	if (!lv_conn_lost(c))
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
	/*
	 * libvirt writes to its socket with write(): a daemon killed while
	 * netlab sends (a keepalive, a stream's data) would kill netlab by
	 * SIGPIPE, before it can clean up or write the run's result.json.
	 * With it ignored the write fails and the connection counts as lost.
	 */
	sigpipe_ignore();
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
