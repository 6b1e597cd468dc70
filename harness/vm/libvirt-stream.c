// SPDX-License-Identifier: GPL-2.0
/*
 * The libvirt backend's streams: a domain's console and virtio-serial ports,
 * copied into local files by libvirt's event loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vm/libvirt-int.h"

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
	 * once the domain is gone (lv_streams_finish()).
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
		if (n > 0 && lv_sink_write(st, buf, (size_t)n, &s->fd) == n) {
			s->bytes += (unsigned long long)n;
			__atomic_store_n(&s->vm->last_data_ms, lv_mono_ms(), __ATOMIC_RELAXED);
			if (s == &s->vm->streams[LV_STATUS_STREAM])
				status_data(s->vm, buf, (size_t)n);
			continue;
		}
		stream_end(s, n > 0 ? -3 : n);
		return;
	}
}

int lv_stream_open(struct lv_vm *v, struct lv_stream *s, const char *what, const char *file,
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
void lv_streams_drain(struct lv_vm *v)
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
			/* What it brought is kept, but it may be cut: say so. */
			if (!s->error && v->ended && !v->killed)
				s->error = xasprintf("no end %.0f s after the domain ended (%llu bytes came)",
						     LV_DRAIN_S, s->bytes);
		}
		s->running = false;
	}
}

bool lv_dom_gone(struct lv_vm *v)
{
	int state, reason;

	return !v->dom || virDomainGetState(v->dom, &state, &reason, 0) < 0;
}

/* The streams that ended: finished once the (transient) domain is gone. */
void lv_streams_finish(struct lv_vm *v)
{
	bool any = false;
	double until;

	for (int i = 0; i < LV_N_STREAMS; i++)
		any |= v->streams[i].finish_later;
	if (!any)
		return;
	until = now_s() + LV_GONE_S;
	while (!lv_dom_gone(v) && now_s() < until)
		usleep(50000);
	if (!lv_dom_gone(v))
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

void lv_streams_free(struct lv_vm *v)
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
