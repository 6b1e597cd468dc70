// SPDX-License-Identifier: GPL-2.0
/*
 * Domain XML for the libvirt backend, derived from the same struct
 * vm_config as the direct backend's QEMU command line (qemu.c).
 *
 * The guest sees the same machine through both backends: i440fx ("pc"),
 * ACPI, the default CPU, the virtio-serial controller in PCI slot 2 and the
 * NICs from slot 3 on, in the order the direct backend creates them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/xpath.h>

#include "lib/esc.h"
#include "vm/libvirt.h"
#include "vm/share.h"

#define LV_QEMU_NS "http://libvirt.org/schemas/domain/qemu/1.0"
/* First PCI slot of the NICs; the virtio-serial controller is in slot 2. */
#define LV_NIC_SLOT0 3

char *lv_stage_path(const struct lv_stage *st, const char *what)
{
	return xasprintf("%s/%s.%s", st->dir, st->name, what);
}

const char *lv_nic_model(const struct nic_model *m)
{
	return m->libvirt_model;
}

char *lv_name_prefix(void)
{
	char host[64] = "host";

	gethostname(host, sizeof(host) - 1);
	host[strcspn(host, ".")] = '\0';
	return xasprintf("netlab-%s-", host);
}

char *lv_default_name(void)
{
	static unsigned int seq;
	char *prefix = lv_name_prefix(), *name;

	name = xasprintf("%s%d-%u", prefix, (int)getpid(), seq++);
	free(prefix);
	return name;
}

const char *lv_default_uri(void)
{
	const char *e = getenv("NETLAB_LIBVIRT_URI");

	if (e && *e)
		return e;
	return geteuid() == 0 ? "qemu:///system" : "qemu:///session";
}

/* The string value of XPath `expr` in document `xml`; NULL when it is empty
 * or the document does not parse. Caller frees. */
static char *xpath_str(const char *xml, const char *expr)
{
	xmlDocPtr doc = xmlReadMemory(xml, (int)strlen(xml), "libvirt.xml", NULL,
				      XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	xmlXPathContextPtr ctx = doc ? xmlXPathNewContext(doc) : NULL;
	xmlXPathObjectPtr r = ctx ? xmlXPathEvalExpression(BAD_CAST expr, ctx) : NULL;
	xmlChar *v = r ? xmlXPathCastToString(r) : NULL;
	char *out = v && *v ? xstrdup((const char *)v) : NULL;

	xmlFree(v);
	xmlXPathFreeObject(r);
	xmlXPathFreeContext(ctx);
	xmlFreeDoc(doc);
	return out;
}

long lv_qemu_gid(const char *caps)
{
	char *label = xpath_str(caps, "/capabilities/host/secmodel[model='dac']"
				      "/baselabel[@type='qemu']");
	unsigned long uid, gid;
	long ret = -1;

	if (label && sscanf(label, "+%lu:+%lu", &uid, &gid) == 2)
		ret = (long)gid;
	free(label);
	return ret;
}

char *lv_pool_xml(long gid)
{
	struct sbuf b;

	sbuf_init(&b);
	sbuf_adds(&b, "<pool type='dir'>\n  <name>" LV_POOL_NAME "</name>\n  <target>\n"
		      "    <path>" LV_POOL_DIR "</path>\n    <permissions>\n");
	if (gid >= 0)
		sbuf_addf(&b, "      <mode>0770</mode>\n      <group>%ld</group>\n", gid);
	else
		sbuf_adds(&b, "      <mode>0700</mode>\n");
	sbuf_adds(&b, "    </permissions>\n  </target>\n</pool>\n");
	return sbuf_detach(&b);
}

bool lv_pool_private(const char *pool_xml, long gid, unsigned int *mode)
{
	char *m = xpath_str(pool_xml, "/pool/target/permissions/mode");
	char *g = xpath_str(pool_xml, "/pool/target/permissions/group");
	bool ok = m && g;

	*mode = m ? (unsigned int)strtoul(m, NULL, 8) : 0777;
	/* Nothing for others; with a QEMU group, that group and rwx for it. */
	ok = ok && !(*mode & 0007);
	if (ok && gid >= 0)
		ok = strtol(g, NULL, 10) == gid && (*mode & 0070) == 0070;
	free(m);
	free(g);
	return ok;
}

char *lv_pool_path(const char *pool_xml)
{
	return xpath_str(pool_xml, "/pool/target/path");
}

static void pci_addr(struct sbuf *b, unsigned int slot)
{
	sbuf_addf(b, "      <address type='pci' domain='0x0000' bus='0x00' slot='0x%02x' "
		     "function='0x0'/>\n", slot);
}

/* The NIC's netdev id in QEMU: "net<label>" on a hub, "host" + alias for
 * libvirt's own <interface> (alias "ua-net<label>"). */
static void netdev_id(const struct vm_nic *n, bool hub, char *buf, size_t len)
{
	snprintf(buf, len, hub ? "net%c" : "hostua-net%c", n->label);
}

static void add_channels(struct sbuf *b, const struct lv_stage *st)
{
	sbuf_adds(b, "    <controller type='virtio-serial' index='0'>\n");
	pci_addr(b, 2);
	sbuf_adds(b, "    </controller>\n");
	for (size_t i = 0; i < QEMU_N_PORTS; i++) {
		char *what = xasprintf("%s.sock", qemu_port_file(qemu_guest_ports[i]));
		char *path = lv_stage_path(st, what);

		sbuf_adds(b, "    <channel type='unix'>\n      <source mode='bind' path='");
		esc_xml(b, path, ESC_XML_APOS);
		sbuf_addf(b, "'/>\n      <target type='virtio' name='%s'/>\n    </channel>\n",
			  qemu_guest_ports[i]);
		free(path);
		free(what);
	}
}

/* pair: the NIC as libvirt's UDP-wired <interface>. */
/*
 * cfg->shares as virtio-9p filesystems: a read-only one with accessmode
 * squash (QEMU's security_model=none), a read-write one with mapped (the
 * guest's owners and modes in xattrs: no setuid file or device node it
 * makes is one on the host; share_security_model()). In the PCI slots after
 * the NICs': those are on the QEMU command line, where libvirt does not see
 * them taken.
 */
static void add_shares(struct sbuf *b, const struct vm_config *cfg)
{
	for (size_t i = 0; i < cfg->n_shares; i++) {
		const struct vm_share *s = &cfg->shares[i];

		sbuf_addf(b, "    <filesystem type='mount' accessmode='%s'>\n"
			     "      <driver type='path'/>\n      <source dir='",
			  s->rw ? "mapped" : "squash");
		esc_xml(b, s->host, ESC_XML_APOS);
		sbuf_addf(b, "'/>\n      <target dir='%s'/>\n%s", s->tag,
			  s->rw ? "" : "      <readonly/>\n");
		pci_addr(b, LV_NIC_SLOT0 + VM_MAX_NICS + (unsigned int)i);
		sbuf_adds(b, "    </filesystem>\n");
	}
}

static int add_udp_nic(struct sbuf *b, const struct vm_config *cfg, const struct vm_nic *n,
		       const struct lv_stage *st, unsigned int slot, char **err)
{
	int self = vm_nic_index(n->label), peer = -1;

	for (unsigned int i = 0; i < cfg->n_nics; i++)
		if (cfg->nics[i].hub == n->hub && &cfg->nics[i] != n)
			peer = vm_nic_index(cfg->nics[i].label);
	if (self < 0 || peer < 0 || !st->udp_port[self] || !st->udp_port[peer]) {
		err_set(err, "NIC %c has no UDP port pair to its peer", n->label);
		return -EINVAL;
	}
	sbuf_addf(b, "    <interface type='udp'>\n      <mac address='%s'/>\n", n->mac);
	sbuf_addf(b, "      <source address='127.0.0.1' port='%u'>\n"
		     "        <local address='127.0.0.1' port='%u'/>\n      </source>\n",
		  st->udp_port[peer], st->udp_port[self]);
	sbuf_addf(b, "      <model type='%s'/>\n      <rom enabled='no'/>\n"
		     "      <alias name='ua-net%c'/>\n", lv_nic_model(n->model), n->label);
	pci_addr(b, slot);
	sbuf_adds(b, "    </interface>\n");
	return 0;
}

int lv_domain_xml(const struct vm_config *cfg, unsigned int vm, const struct lv_stage *st,
		  struct sbuf *b, char **err)
{
	/* Topologies that wire NICs across VMs use UDP; the others a hub. */
	bool hub = cfg->topo->n_vms == 1;
	unsigned int slot = LV_NIC_SLOT0;
	struct sbuf cmd;
	struct argv q;
	int ret = qemu_check_config(cfg, vm, err);

	if (ret)
		return ret;
	if (cfg->debug.rr != VM_RR_OFF) {
		err_set(err, "record/replay runs only with the direct QEMU backend\n"
			     "hint: drop --backend libvirt to use --record or --replay");
		return -EINVAL;
	}
	sbuf_init(&cmd);
	argv_init(&q);
	sbuf_addf(b, "<domain type='%s' xmlns:qemu='%s'>\n", cfg->accel == VM_ACCEL_KVM ? "kvm" : "qemu",
		  LV_QEMU_NS);
	sbuf_adds(b, "  <name>");
	esc_xml(b, st->name, ESC_XML_APOS);
	sbuf_adds(b, "</name>\n  <description>netlab run ");
	esc_xml(b, cfg->rundir, ESC_XML_APOS);
	sbuf_addf(b, ", VM %c</description>\n", 'a' + vm);
	sbuf_addf(b, "  <memory unit='MiB'>%u</memory>\n  <vcpu>%u</vcpu>\n", cfg->mem_mb,
		  vm_smp(cfg, vm));
	sbuf_adds(b, "  <os>\n    <type arch='x86_64' machine='pc'>hvm</type>\n    <kernel>");
	esc_xml(b, st->kernel, ESC_XML_APOS);
	sbuf_adds(b, "</kernel>\n    <initrd>");
	esc_xml(b, st->initrd, ESC_XML_APOS);
	sbuf_adds(b, "</initrd>\n    <cmdline>");
	qemu_kernel_append(cfg, vm, &cmd);
	esc_xml(b, cmd.s, ESC_XML_APOS);
	sbuf_adds(b, "</cmdline>\n  </os>\n  <features>\n    <acpi/>\n  </features>\n");
	sbuf_adds(b, "  <clock offset='utc'/>\n  <on_poweroff>destroy</on_poweroff>\n"
		     "  <on_reboot>destroy</on_reboot>\n  <on_crash>destroy</on_crash>\n");
	sbuf_adds(b, "  <devices>\n");
	if (strchr(cfg->qemu, '/')) {
		sbuf_adds(b, "    <emulator>");
		esc_xml(b, cfg->qemu, ESC_XML_APOS);
		sbuf_adds(b, "</emulator>\n");
	}
	sbuf_adds(b, "    <controller type='usb' model='none'/>\n");
	sbuf_adds(b, "    <serial type='pty'>\n      <target port='0'/>\n    </serial>\n");
	add_channels(b, st);
	add_shares(b, cfg);

	qemu_icount_args(cfg, &q);
	for (unsigned int i = 0; !ret && i < cfg->n_nics; i++) {
		const struct vm_nic *n = &cfg->nics[i];
		char id[32], pcap[16], *path;

		if (n->vm != vm)
			continue;
		netdev_id(n, hub, id, sizeof(id));
		if (hub) {
			qemu_hubport_args(n, &q);
			qemu_nic_device_args(n, id, slot, &q);
		} else {
			ret = add_udp_nic(b, cfg, n, st, slot, err);
		}
		slot++;
		snprintf(pcap, sizeof(pcap), "nic-%c.pcap", n->label);
		path = lv_stage_path(st, pcap);
		qemu_nic_dump_args(n, id, path, cfg->snaplen, &q);
		if (hub)
			qemu_hub_order_args(n, id, &q);
		free(path);
	}
	if (vm == cfg->debug.gdb_vm)
		qemu_gdbstub_args(cfg, &q);
	sbuf_adds(b, "    <memballoon model='none'/>\n  </devices>\n");
	if (q.n) {
		sbuf_adds(b, "  <qemu:commandline>\n");
		for (size_t i = 0; i < q.n; i++) {
			sbuf_adds(b, "    <qemu:arg value='");
			esc_xml(b, q.v[i], ESC_XML_APOS);
			sbuf_adds(b, "'/>\n");
		}
		sbuf_adds(b, "  </qemu:commandline>\n");
	}
	sbuf_adds(b, "</domain>\n");
	sbuf_release(&cmd);
	argv_release(&q);
	return ret;
}
