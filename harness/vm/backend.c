// SPDX-License-Identifier: GPL-2.0
/*
 * The table of VM backends, and what every backend's user shares: the
 * status port's lines.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vm/backend.h"

/* Every backend, the default first; --backend NAME looks here. */
static const struct vm_backend_ops *const backends[] = {
	&vm_backend_qemu,
	&vm_backend_libvirt,
};

const struct vm_backend_ops *vm_backend_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(backends); i++)
		if (!strcmp(backends[i]->name, name))
			return backends[i];
	return NULL;
}

const struct vm_backend_ops *vm_backend_default(void)
{
	return backends[0];
}

/* The names of the backends that can do `what` (all: what < 0), joined by `sep`. */
static void names(struct sbuf *b, int what, const char *sep)
{
	bool first = true;

	for (size_t i = 0; i < ARRAY_SIZE(backends); i++) {
		if (what >= 0 && !vm_backend_can(backends[i], (enum vm_backend_can)what))
			continue;
		sbuf_addf(b, "%s%s", first ? "" : sep, backends[i]->name);
		first = false;
	}
}

const char *vm_backend_list(void)
{
	static char *list;

	if (!list) {
		struct sbuf b;

		sbuf_init(&b);
		names(&b, -1, ", ");
		list = b.s;
	}
	return list;
}

int vm_backend_lookup(const char *opt, const char *name, const struct vm_backend_ops **out,
		      char **err)
{
	const struct vm_backend_ops *ops = vm_backend_find(name);
	struct sbuf b;

	if (ops) {
		*out = ops;
		return 0;
	}
	sbuf_init(&b);
	for (size_t i = 0; i < ARRAY_SIZE(backends); i++)
		sbuf_addf(&b, "\n  %-8s %s", backends[i]->name, backends[i]->help);
	err_set(err, "%s '%s': unknown backend\nhint: choose one of: %s%s", opt, name,
		vm_backend_list(), b.s);
	sbuf_release(&b);
	return -EINVAL;
}

bool vm_backend_can(const struct vm_backend_ops *ops, enum vm_backend_can what)
{
	switch (what) {
	case VM_BACKEND_CAN_CONNECT: return ops->default_uri;
	case VM_BACKEND_CAN_CHECK: return ops->check;
	case VM_BACKEND_CAN_DESCRIBE: return ops->describe;
	case VM_BACKEND_CAN_DEBUG: return ops->debug;
	}
	return false;
}

int vm_backend_need(const struct vm_backend_ops **ops, bool *chosen, enum vm_backend_can what,
		    const char *opt, char **err)
{
	struct sbuf can;

	if (vm_backend_can(*ops, what))
		return 0;
	for (size_t i = 0; !*chosen && i < ARRAY_SIZE(backends); i++) {
		if (vm_backend_can(backends[i], what)) {
			*ops = backends[i];
			*chosen = true;
			return 0;
		}
	}
	sbuf_init(&can);
	names(&can, what, " or ");
	if (can.len)
		err_set(err, "%s needs --backend %s, not %s", opt, can.s, (*ops)->name);
	else
		err_set(err, "%s: no backend can (not %s)", opt, (*ops)->name);
	sbuf_release(&can);
	return -EINVAL;
}

size_t vm_backend_n_conns(const struct vm_backend_ops *ops, size_t n_connect)
{
	return n_connect && ops->default_uri ? n_connect : 1;
}

const char *vm_backend_conn_uri(const struct vm_backend_ops *ops, const char *const *connect,
				size_t n_connect, size_t k)
{
	if (!ops->default_uri)
		return NULL;
	return n_connect ? connect[k] : ops->default_uri();
}

int vm_backend_open(const struct vm_backend_ops *ops, const struct vm_backend_args *a,
		    struct vm_config *cfg, struct vm_backend **out, char **why, char **err)
{
	*out = NULL;
	return ops->open(a, cfg, out, why, err);
}

void vm_backend_close(struct vm_backend *b)
{
	if (b)
		b->ops->close(b);
}

const char *vm_backend_uri(const struct vm_backend *b)
{
	return b && b->ops->uri ? b->ops->uri(b) : NULL;
}

void vm_inst_release(struct vm_inst *v)
{
	if (v)
		v->ops->release(v);
}
