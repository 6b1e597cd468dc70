// SPDX-License-Identifier: GPL-2.0
/*
 * The libvirt backend's domains: start, follow, destroy, and collect what a
 * domain left behind.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vm/libvirt-int.h"

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
	ret = lv_upload(v, "kernel", o->kernel, &kernel, err);
	if (!ret)
		ret = lv_upload(v, "initrd", o->initrd, &initrd, err);
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
	ret = lv_stream_open(v, &v->streams[0], "console", "console.log", o->local_dir, err);
	for (int i = 0; !ret && i < QEMU_N_PORTS; i++)
		ret = lv_stream_open(v, &v->streams[1 + i], qemu_guest_ports[i],
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
	lv_streams_drain(v);
	virStoragePoolRefresh(c->pool, 0);	/* captures of a domain that ran */
	lv_delete_staged(v);
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
	if (!late && lv_mono_ms() - __atomic_load_n(&v->last_data_ms, __ATOMIC_RELAXED) < LV_QUIET_MS)
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
	if (!v->ended && lv_conn_lost(v->c)) {
		v->lost = xasprintf("lost the connection to libvirt at '%s' (%s) while domain '%s' "
				    "ran", v->c->uri, lv_close_reason(v->c), v->name);
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
	if (!lv_conn_reopen(v->c)) {
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
	/*
	 * The new daemon may still be reconnecting to that QEMU (a job that
	 * holds the domain): a destroy can then fail on its state lock. Try
	 * again for a while rather than leave the QEMU running.
	 */
	for (double until = now_s() + LV_RECONNECT_S; v->dom;) {
		if (virDomainDestroy(v->dom) == 0) {
			v->killed = true;
			break;
		}
		if (virGetLastErrorCode() == VIR_ERR_NO_DOMAIN) {
			/* It went between the lookup and the destroy (seen once). */
			virDomainFree(v->dom);
			v->dom = NULL;
			break;
		}
		if (now_s() >= until || lv_conn_lost(v->c))
			break;
		usleep(250000);
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
	lv_streams_drain(v);
	lv_streams_finish(v);
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
		r = lv_download(v, what, path, &e);
		if (r && !ret) {
			ret = r;
			err_set(err, "%s", e);
		}
		free(e);
		free(what);
		free(path);
	}
	lv_delete_staged(v);
	return ret;
}

void lv_vm_release(struct lv_vm *v)
{
	if (!v)
		return;
	lv_streams_drain(v);
	lv_streams_finish(v);
	lv_streams_free(v);
	if (v->dom)
		virDomainFree(v->dom);
	free(v->name);
	free(v->busy_error);
	free(v->lost);
	free(v->recovered);
	free(v->local_dir);
	free(v);
}
