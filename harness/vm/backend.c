// SPDX-License-Identifier: GPL-2.0
/*
 * The table of VM backends, and what every backend's user shares: the
 * status port's lines.
 */
#include <stdlib.h>
#include <string.h>

#include "vm/backend.h"

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

const char *vm_backend_list(void)
{
	return "qemu, libvirt";
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
