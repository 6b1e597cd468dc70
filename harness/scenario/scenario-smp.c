// SPDX-License-Identifier: GPL-2.0
/*
 * Scenario files: the [scenario] keys of SMP guests, multi-queue NICs and
 * steering, and their checks against the topology. Called by
 * scenario-keys.c (the key table) and scenario.c (validation).
 *
 *   cpus = 2		; every VM's vCPUs (1..8; default 1)
 *   cpus.b = 4		; one VM of a pair (a or b)
 *   queues.B = 2	; ethtool -L combined 2 (the model's maximum, nicmodel.c)
 *   irq.B = 0,1	; queue i's interrupts on the i-th CPU listed
 *   irq.B.q1 = 1	; or one queue's (the queues not named are left alone)
 *   rps.B = 3		; hex CPU mask in every rx-N/rps_cpus
 *   rfs = 4096		; net.core.rps_sock_flow_entries, rps_flow_cnt per queue
 *   xps.B = 1		; hex CPU mask in every tx-N/xps_cpus
 *   rxhash.B = udp4 sdfn	; ethtool -N rx-flow-hash: the fields RSS hashes
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/scenario-int.h"

#define SCN_CPUS_MAX 8
#define SCN_RFS_MAX 1048576

static int label_of(struct parse_ctx *c, const char *key, const char *label)
{
	int i = strlen(label) == 1 ? vm_nic_index(*label) : -1;

	if (i < 0)
		return scn_err(c, c->line, "bad NIC label '%s' in '%s' (labels are A..%c)", label,
			       key, 'A' + VM_MAX_NICS - 1);
	return i;
}

static int cpus_value(struct parse_ctx *c, const char *key, const char *value, unsigned int *out)
{
	unsigned long v;

	if (parse_uint(value, 1, SCN_CPUS_MAX, &v))
		return scn_err(c, c->line, "bad %s '%s': expected a CPU count in 1..%d", key, value,
			       SCN_CPUS_MAX);
	*out = (unsigned int)v;
	return 0;
}

static int set_cpus(struct parse_ctx *c, const char *value)
{
	c->cpus_line = c->line;
	return cpus_value(c, "cpus", value, &c->s->cpus);
}

/* cpus.a / cpus.b: one VM of a two-VM topology. */
static int set_vm_cpus(struct parse_ctx *c, const char *key, const char *value)
{
	const char *vm = key + 5;

	if ((vm[0] != 'a' && vm[0] != 'b') || vm[1])
		return scn_err(c, c->line, "unknown key '%s' in [scenario] (per-VM CPU keys are cpus.a and cpus.b)",
			       key);
	c->vm_cpus_line[vm[0] - 'a'] = c->line;
	return cpus_value(c, key, value, &c->s->vm_cpus[vm[0] - 'a']);
}

static int set_rfs(struct parse_ctx *c, const char *value)
{
	unsigned long v;

	c->rfs_line = c->line;
	if (parse_uint(value, 0, SCN_RFS_MAX, &v))
		return scn_err(c, c->line, "bad rfs '%s': expected the flow table's entries in 0..%d (0 = off)",
			       value, SCN_RFS_MAX);
	c->s->rfs = (unsigned int)v;
	return 0;
}

static int set_cpus_key(struct parse_ctx *c, const char *key, const char *value)
{
	(void)key;
	return set_cpus(c, value);
}

static int set_rfs_key(struct parse_ctx *c, const char *key, const char *value)
{
	(void)key;
	return set_rfs(c, value);
}

static int set_queues(struct parse_ctx *c, const char *key, const char *value)
{
	int i = label_of(c, key, key + 7);
	unsigned long v;

	if (i < 0)
		return i;
	c->queues_line[i] = c->line;
	if (parse_uint(value, 1, 64, &v))
		return scn_err(c, c->line, "bad %s '%s': expected a queue count in 1..64", key,
			       value);
	c->s->queues[i] = (unsigned int)v;
	return 0;
}

/* irq.<L>.q<N> = CPU: one queue's interrupts; the queues not named are left alone. */
static int set_irq_queue(struct parse_ctx *c, const char *key, int i, const char *qs,
			 const char *value)
{
	unsigned long q, cpu;

	if (qs[0] != 'q' || parse_uint(qs + 1, 0, 63, &q))
		return scn_err(c, c->line, "bad key '%s': expected irq.%c.qN with N a queue in 0..63",
			       key, 'A' + i);
	if (parse_uint(value, 0, SCN_CPUS_MAX - 1, &cpu))
		return scn_err(c, c->line, "bad %s '%s': expected a CPU number in 0..%d", key, value,
			       SCN_CPUS_MAX - 1);
	if (c->irq_line[i] && c->irq_list[i])
		return scn_err(c, c->line, "%s: irq.%c already gave every queue's CPU (line %d); use one form",
			       key, 'A' + i, c->irq_line[i]);
	c->irq_line[i] = c->line;
	while (c->s->n_irq[i] <= q) {
		c->s->irq[i] = xrealloc_array(c->s->irq[i], c->s->n_irq[i] + 1, sizeof(unsigned int));
		c->s->irq[i][c->s->n_irq[i]++] = SCN_IRQ_KEEP;
	}
	c->s->irq[i][q] = (unsigned int)cpu;
	return 0;
}

/* irq.<L> = CPU[,CPU...], or irq.<L>.q<N> = CPU */
static int set_irq(struct parse_ctx *c, const char *key, const char *value)
{
	const char *dot = strchr(key + 4, '.');
	char label[8];
	char *list, *rest, *f;
	int i, ret = 0;

	snprintf(label, sizeof(label), "%.*s", dot ? (int)(dot - key - 4) : 7, key + 4);
	i = label_of(c, key, label);
	if (i < 0)
		return i;
	if (dot)
		return set_irq_queue(c, key, i, dot + 1, value);
	if (c->irq_line[i] && !c->irq_list[i])
		return scn_err(c, c->line, "%s: irq.%c.qN keys already gave queues' CPUs (line %d); use one form",
			       key, 'A' + i, c->irq_line[i]);
	c->irq_line[i] = c->line;
	c->irq_list[i] = true;
	free(c->s->irq[i]);
	c->s->irq[i] = NULL;
	c->s->n_irq[i] = 0;
	list = rest = xstrdup(value);
	while (!ret && (f = strsep(&rest, ","))) {
		unsigned long cpu;

		while (*f == ' ')
			f++;
		f[strcspn(f, " ")] = '\0';
		if (parse_uint(f, 0, SCN_CPUS_MAX - 1, &cpu)) {
			ret = scn_err(c, c->line, "bad %s '%s': expected CPU numbers 0..%d, comma-separated, one per queue",
				      key, value, SCN_CPUS_MAX - 1);
			break;
		}
		c->s->irq[i] = xrealloc_array(c->s->irq[i], c->s->n_irq[i] + 1, sizeof(unsigned int));
		c->s->irq[i][c->s->n_irq[i]++] = (unsigned int)cpu;
	}
	free(list);
	return ret;
}

/* A hex CPU mask ("3", "0x3") of CPUs below SCN_CPUS_MAX; 0 = off (NULL). */
static int mask_value(struct parse_ctx *c, const char *key, const char *value, char **slot)
{
	const char *h = strncmp(value, "0x", 2) ? value : value + 2;
	unsigned long long m;

	if (!*h || strlen(h) > 4 || h[strspn(h, "0123456789abcdefABCDEF")] ||
	    (m = strtoull(h, NULL, 16)) >> SCN_CPUS_MAX)
		return scn_err(c, c->line, "bad %s '%s': expected a hex CPU mask, 0 (off) or 1..%x (CPU 0 is 1, CPUs 0 and 1 are 3)",
			       key, value, (1 << SCN_CPUS_MAX) - 1);
	free(*slot);
	*slot = m ? xasprintf("%llx", m) : NULL;
	return 0;
}

/*
 * rxhash.<L> = FLOW FIELDS: ethtool -N IF rx-flow-hash FLOW FIELDS, the
 * fields a multi-queue NIC's RSS hashes (igb hashes UDP by address only
 * unless told: every flow between two hosts on one queue).
 */
static int set_rxhash(struct parse_ctx *c, const char *key, const char *value)
{
	static const char *const flows[] = { "tcp4", "udp4", "sctp4", "tcp6", "udp6", "sctp6" };
	int i = label_of(c, key, key + 7);
	char flow[8] = "", fields[16] = "", extra[2] = "";
	bool ok = false;

	if (i < 0)
		return i;
	if (sscanf(value, "%7s %15s %1s", flow, fields, extra) == 2 &&
	    !fields[strspn(fields, "mvtsdfnr")])
		for (size_t k = 0; k < ARRAY_SIZE(flows); k++)
			ok |= !strcmp(flow, flows[k]);
	if (!ok)
		return scn_err(c, c->line, "bad %s '%s': expected FLOW FIELDS as ethtool -N rx-flow-hash takes them, e.g. 'udp4 sdfn' (FLOW tcp4, udp4, sctp4, tcp6, udp6, sctp6; FIELDS of m v t s d f n r)",
			       key, value);
	c->rxhash_line[i] = c->line;
	free(c->s->rxhash[i]);
	c->s->rxhash[i] = xasprintf("%s %s", flow, fields);
	return 0;
}

static int set_rps(struct parse_ctx *c, const char *key, const char *value)
{
	int i = label_of(c, key, key + 4);

	if (i < 0)
		return i;
	c->rps_line[i] = c->line;
	return mask_value(c, key, value, &c->s->rps[i]);
}

static int set_xps(struct parse_ctx *c, const char *key, const char *value)
{
	int i = label_of(c, key, key + 4);

	if (i < 0)
		return i;
	c->xps_line[i] = c->line;
	return mask_value(c, key, value, &c->s->xps[i]);
}

/* Its [scenario] keys: by name (cpus, rfs) or by prefix (KEY.<LABEL>, cpus.<VM>). */
static const struct {
	const char *key;
	bool prefix;
	int (*set)(struct parse_ctx *c, const char *key, const char *value);
} smp_keys[] = {
	{ "cpus", false, set_cpus_key }, { "rfs", false, set_rfs_key },
	{ "cpus.", true, set_vm_cpus }, { "queues.", true, set_queues },
	{ "irq.", true, set_irq }, { "rps.", true, set_rps }, { "xps.", true, set_xps },
	{ "rxhash.", true, set_rxhash },
};

static int smp_key_find(const char *key)
{
	for (size_t i = 0; i < ARRAY_SIZE(smp_keys); i++)
		if (smp_keys[i].prefix ? !strncmp(key, smp_keys[i].key, strlen(smp_keys[i].key))
				       : !strcmp(key, smp_keys[i].key))
			return (int)i;
	return -1;
}

bool scn_smp_key_known(const char *key)
{
	return smp_key_find(key) >= 0;
}

int scn_key_smp(struct parse_ctx *c, const char *key, const char *value)
{
	int i = smp_key_find(key);

	return i < 0 ? -ENOENT : smp_keys[i].set(c, key, value);
}

unsigned int scn_vm_cpus(const struct scenario *s, unsigned int vm)
{
	if (vm < VM_MAX_VMS && s->vm_cpus[vm])
		return s->vm_cpus[vm];
	return s->cpus ? s->cpus : 1;
}

bool scn_has_queues(const struct scenario *s)
{
	for (int i = 0; i < VM_MAX_NICS; i++)
		if (s->queues[i])
			return true;
	return false;
}

bool scn_has_steering(const struct scenario *s)
{
	if (s->rfs)
		return true;
	for (int i = 0; i < VM_MAX_NICS; i++)
		if (s->rps[i] || s->xps[i] || s->n_irq[i] || s->rxhash[i])
			return true;
	return false;
}

/* The queues NIC i runs with: queues.<L>, else igb's default min(cpus, 8), else 1. */
unsigned int scn_nic_queues(const struct scenario *s, const struct vm_nic *n)
{
	unsigned int i = (unsigned int)vm_nic_index(n->label), cpus = scn_vm_cpus(s, n->vm);

	if (s->queues[i])
		return s->queues[i];
	return n->model->queues_max < cpus ? n->model->queues_max : cpus;
}

static void check_mask(struct parse_ctx *c, unsigned int line, const char *what, char label,
		       const char *mask, const struct vm_nic *n)
{
	unsigned int cpus = scn_vm_cpus(c->s, n->vm);
	unsigned long long m = strtoull(mask, NULL, 16);

	/* CPUs it lacks are left out, as the kernel does: a matrix of cpus = 1 2
	 * may say rps.B = 3 for "every CPU"; none of its own is an error. */
	if (!(m & ((1ull << cpus) - 1)))
		scn_err(c, line, "%s.%c = %s names none of the CPUs of NIC %c's VM: it has %u (CPUs 0..%u; set cpus)",
			what, label, mask, label, cpus, cpus - 1);
}

static void check_nic(struct parse_ctx *c, const struct vm_nic *n)
{
	struct scenario *s = c->s;
	int i = vm_nic_index(n->label);
	unsigned int cpus = scn_vm_cpus(s, n->vm), q = scn_nic_queues(s, n);

	if (s->queues[i] > n->model->queues_max)
		scn_err(c, c->queues_line[i], "queues.%c = %u: NIC model '%s' carries at most %u queue%s (%s)",
			n->label, s->queues[i], n->model->name, n->model->queues_max,
			n->model->queues_max == 1 ? "" : "s", n->model->queues_why);
	if (s->n_irq[i] > q && c->irq_list[i])
		scn_err(c, c->irq_line[i], "irq.%c lists %u CPUs, one per queue, but NIC %c has %u queue%s (set queues.%c)",
			n->label, s->n_irq[i], n->label, q, q == 1 ? "" : "s", n->label);
	else if (s->n_irq[i] > q)
		scn_err(c, c->irq_line[i], "irq.%c.q%u: NIC %c has %u queue%s, 0..%u (set queues.%c)",
			n->label, s->n_irq[i] - 1, n->label, q, q == 1 ? "" : "s", q - 1, n->label);
	for (unsigned int k = 0; k < s->n_irq[i]; k++)
		if (s->irq[i][k] != SCN_IRQ_KEEP && s->irq[i][k] >= cpus) {
			scn_err(c, c->irq_line[i], "irq.%c: CPU %u is not one of the %u of NIC %c's VM (CPUs 0..%u; set cpus)",
				n->label, s->irq[i][k], cpus, n->label, cpus - 1);
			break;
		}
	if (s->rps[i])
		check_mask(c, c->rps_line[i], "rps", n->label, s->rps[i], n);
	if (s->xps[i])
		check_mask(c, c->xps_line[i], "xps", n->label, s->xps[i], n);
	/* The kernel maps transmit queues to CPUs only on a multi-queue device (ENOENT). */
	if (s->xps[i] && q < 2)
		scn_err(c, c->xps_line[i], "xps.%c: NIC %c (%s) has one transmit queue here; XPS maps several to CPUs (set queues.%c, on a model that has them)",
			n->label, n->label, n->model->name, n->label);
}

static void check_absent(struct parse_ctx *c, const struct vm_config *cfg, int i,
			 unsigned int line, const char *key)
{
	if (line && (unsigned int)i >= cfg->n_nics)
		scn_err(c, line, "%s.%c for NIC %c, but topology '%s' has NICs A..%c", key, 'A' + i,
			'A' + i, c->s->topo->name, cfg->n_nics ? 'A' + cfg->n_nics - 1 : 'A');
}

void scn_validate_steering(struct parse_ctx *c)
{
	struct scenario *s = c->s;
	struct vm_config cfg;

	for (unsigned int vm = s->topo->n_vms; vm < VM_MAX_VMS; vm++)
		if (c->vm_cpus_line[vm])
			scn_err(c, c->vm_cpus_line[vm], "cpus.%c, but topology '%s' has one VM (use cpus)",
				'a' + vm, s->topo->name);
	memset(&cfg, 0, sizeof(cfg));
	cfg.topo = s->topo;
	for (int i = 0; i < VM_MAX_NICS; i++)
		cfg.want_model[i] = s->nic_model[i];
	if (s->topo->setup(&cfg, NULL))
		return;
	for (int i = 0; i < VM_MAX_NICS; i++) {
		check_absent(c, &cfg, i, c->queues_line[i], "queues");
		check_absent(c, &cfg, i, c->irq_line[i], "irq");
		check_absent(c, &cfg, i, c->rps_line[i], "rps");
		check_absent(c, &cfg, i, c->xps_line[i], "xps");
		check_absent(c, &cfg, i, c->rxhash_line[i], "rxhash");
	}
	for (unsigned int k = 0; k < cfg.n_nics; k++)
		check_nic(c, &cfg.nics[k]);
}

void scn_smp_free(struct scenario *s)
{
	for (int i = 0; i < VM_MAX_NICS; i++) {
		free(s->irq[i]);
		free(s->rps[i]);
		free(s->xps[i]);
		free(s->rxhash[i]);
	}
}
