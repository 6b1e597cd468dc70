// SPDX-License-Identifier: GPL-2.0
/*
 * Topology files (topofile.h), parsed with inih through a reader that
 * counts lines, as scenario files are, so every error names its line.
 */
#include "vm/topofile.h"

#include <ctype.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ini.h>

#include "lib/esc.h"
#include "lib/util.h"
#include "netlab-proto.h"

#define TOPO_ERR NETLAB_GUEST_OUTDIR "/topo.err"

struct tf_ctx {
	const char *path;
	const char *p;			/* the text not yet read */
	unsigned int line;
	struct topo_data *d;
	char *desc;
	char *err;			/* the first error */
};

static void tf_err(struct tf_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void tf_err(struct tf_ctx *c, const char *fmt, ...)
{
	va_list ap;
	struct sbuf b;

	if (c->err)
		return;
	sbuf_init(&b);
	sbuf_addf(&b, "%s:%u: ", c->path, c->line);
	va_start(ap, fmt);
	sbuf_vaddf(&b, fmt, ap);
	va_end(ap);
	c->err = sbuf_detach(&b);
}

static char *tf_reader(char *str, int num, void *stream)
{
	struct tf_ctx *c = stream;
	size_t len = strcspn(c->p, "\n");

	if (!*c->p)
		return NULL;
	c->line++;
	if (len + 2 > (size_t)num) {
		tf_err(c, "line longer than %d bytes: split it", num - 2);
		len = 0;
	}
	memcpy(str, c->p, len);
	str[len] = '\0';
	c->p += len + (c->p[len] == '\n');
	return str;
}

/* Copy @v into @dst of @n bytes, or complain that it is too long. */
static bool tf_copy(struct tf_ctx *c, const char *key, char *dst, size_t n, const char *v)
{
	if (strlen(v) >= n) {
		tf_err(c, "'%s' is longer than %zu characters", key, n - 1);
		return false;
	}
	snprintf(dst, n, "%s", v);
	return true;
}

/* A name of [a-z0-9_-], 1 to @max characters: never a path. */
static bool name_ok(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (!n || n > max)
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '_' &&
		    *s != '-')
			return false;
	return true;
}

/* A netns or hop name: an interface-name-sized name_ok(). */
static bool tf_name_ok(const char *s)
{
	return name_ok(s, 15);
}

static bool tf_bool(struct tf_ctx *c, const char *key, const char *v, bool *out)
{
	if (!strcmp(v, "yes") || !strcmp(v, "1") || !strcmp(v, "true"))
		*out = true;
	else if (!strcmp(v, "no") || !strcmp(v, "0") || !strcmp(v, "false"))
		*out = false;
	else {
		tf_err(c, "'%s = %s': expected yes or no", key, v);
		return false;
	}
	return true;
}

static bool tf_label(struct tf_ctx *c, const char *what, const char *v, char *out)
{
	if (strlen(v) != 1 || vm_nic_index(v[0]) < 0) {
		tf_err(c, "%s '%s': expected a NIC label A to %c", what, v, 'A' + VM_MAX_NICS - 1);
		return false;
	}
	*out = v[0];
	return true;
}

static struct topo_netns *tf_netns(struct topo_data *d, const char *name)
{
	struct topo_netns *ns;

	for (size_t i = 0; i < d->n_ns; i++)
		if (!strcmp(d->ns[i].name, name))
			return &d->ns[i];
	xgrow_array(&d->ns, &d->cap_ns, d->n_ns + 1, sizeof(*d->ns));
	ns = &d->ns[d->n_ns++];
	memset(ns, 0, sizeof(*ns));
	snprintf(ns->name, sizeof(ns->name), "%s", name);
	return ns;
}

static void tf_nic(struct tf_ctx *c, const char *label, const char *key, const char *v)
{
	char l;
	struct topo_nic_spec *n;

	if (!tf_label(c, "section [nic.X]:", label, &l))
		return;
	n = &c->d->nics[vm_nic_index(l)];
	n->given = true;
	n->label = l;
	if (!strcmp(key, "netns")) {
		if (*v && strcmp(v, "root") && !tf_name_ok(v))
			tf_err(c, "netns '%s': use 1 to 15 of a-z 0-9 _ -", v);
		else
			tf_copy(c, key, n->netns, sizeof(n->netns), strcmp(v, "root") ? v : "");
	} else if (!strcmp(key, "link")) {
		char *end;
		unsigned long x = strtoul(v, &end, 10);

		if (!*v || *end || x >= TOPO_MAX_LINKS)
			tf_err(c, "link '%s': expected a link number 0 to %d", v, TOPO_MAX_LINKS - 1);
		n->link = (unsigned int)x;
	} else if (!strcmp(key, "ipv4")) {
		tf_copy(c, key, n->ipv4, sizeof(n->ipv4), v);
	} else if (!strcmp(key, "ipv6")) {
		tf_copy(c, key, n->ipv6, sizeof(n->ipv6), v);
	} else if (!strcmp(key, "model")) {
		if (!nic_model_find(v))
			tf_err(c, "model '%s': not a NIC model netlab knows", v);
		else
			n->model = nic_model_find(v)->name;
	} else {
		tf_err(c, "[nic.%c] has no key '%s' (netns, link, ipv4, ipv6, model)", l, key);
	}
}

static void topo_data_free(struct topo_data *d)
{
	for (size_t i = 0; i < d->n_ns; i++) {
		for (size_t k = 0; k < d->ns[i].n_ip; k++)
			free(d->ns[i].ip[k]);
		for (size_t k = 0; k < d->ns[i].n_route; k++)
			free(d->ns[i].route[k]);
		free(d->ns[i].ip);
		free(d->ns[i].route);
	}
	free(d->ns);
	free(d->path);
	free(d);
}

static void tf_add_line(char ***arr, size_t *n, size_t *cap, const char *v)
{
	xgrow_array(arr, cap, *n + 1, sizeof(**arr));
	(*arr)[(*n)++] = xstrdup(v);
}

static void tf_ns(struct tf_ctx *c, const char *name, const char *key, const char *v)
{
	struct topo_netns *ns;

	if (strcmp(name, "root") && !tf_name_ok(name)) {
		tf_err(c, "section [netns.%s]: use 1 to 15 of a-z 0-9 _ -, or root", name);
		return;
	}
	ns = tf_netns(c->d, strcmp(name, "root") ? name : "");
	if (!strcmp(key, "forwarding"))
		tf_bool(c, key, v, &ns->forwarding);
	else if (!strcmp(key, "ip") && *v)
		tf_add_line(&ns->ip, &ns->n_ip, &ns->cap_ip, v);
	else if (!strcmp(key, "route") && *v)
		tf_add_line(&ns->route, &ns->n_route, &ns->cap_route, v);
	else
		tf_err(c, "[netns.%s] has no key '%s' (forwarding, ip, route; values not empty)",
		       name, key);
}

static void tf_hop(struct tf_ctx *c, const char *name, const char *key, const char *v)
{
	struct topo_hop *h = NULL;

	for (unsigned int i = 0; i < c->d->n_hops; i++)
		if (!strcmp(c->d->hops[i].name, name))
			h = &c->d->hops[i];
	if (!h) {
		if (!tf_name_ok(name) || c->d->n_hops == TOPO_MAX_HOPS) {
			tf_err(c, "section [hop.%s]: a name of a-z 0-9 _ -, at most %d hops", name,
			       TOPO_MAX_HOPS);
			return;
		}
		h = &c->d->hops[c->d->n_hops++];
		snprintf(h->name, sizeof(h->name), "%s", name);
	}
	if (!strcmp(key, "in"))
		tf_label(c, "in", v, &h->in);
	else if (!strcmp(key, "out"))
		tf_label(c, "out", v, &h->out);
	else if (!strcmp(key, "layer") && (!strcmp(v, "bridge") || !strcmp(v, "forwarding")))
		h->bridge = !strcmp(v, "bridge");
	else if (!strcmp(key, "layer"))
		tf_err(c, "[hop.%s] layer '%s': expected forwarding or bridge", name, v);
	else
		tf_err(c, "[hop.%s] has no key '%s' (in, out, layer)", name, key);
}

static void tf_endpoint(struct tf_ctx *c, const char *end, const char *key, const char *v)
{
	struct topo_endpoint *e;

	if (strcmp(end, "A") && strcmp(end, "B")) {
		tf_err(c, "section [endpoint.%s]: the traffic's ends are A and B", end);
		return;
	}
	e = &c->d->ep[end[0] - 'A'];
	e->given = true;
	if (!strcmp(key, "ipv4"))
		tf_copy(c, key, e->ipv4, sizeof(e->ipv4), v);
	else if (!strcmp(key, "ipv6"))
		tf_copy(c, key, e->ipv6, sizeof(e->ipv6), v);
	else
		tf_err(c, "[endpoint.%s] has no key '%s' (ipv4, ipv6: the end stays in its NIC's namespace)",
		       end, key);
}

static int tf_handler(void *user, const char *section, const char *key, const char *v)
{
	struct tf_ctx *c = user;
	const char *dot = strchr(section, '.');

	if (c->err)
		return 1;
	if (!strcmp(section, "topology")) {
		if (!strcmp(key, "description")) {
			free(c->desc);
			c->desc = xstrdup(v);
		} else if (!strcmp(key, "tunnel")) {
			tf_bool(c, key, v, &c->d->tunnel);
		} else {
			tf_err(c, "[topology] has no key '%s' (description, tunnel)", key);
		}
	} else if (dot && !strncmp(section, "nic.", 4)) {
		tf_nic(c, dot + 1, key, v);
	} else if (dot && !strncmp(section, "netns.", 6)) {
		tf_ns(c, dot + 1, key, v);
	} else if (dot && !strncmp(section, "hop.", 4)) {
		tf_hop(c, dot + 1, key, v);
	} else if (dot && !strncmp(section, "endpoint.", 9)) {
		tf_endpoint(c, dot + 1, key, v);
	} else {
		tf_err(c, "unknown section [%s] (topology, nic.L, netns.NAME, hop.NAME, endpoint.A/B)",
		       section);
	}
	return 1;
}

/* Across sections: NICs A.. without a gap, A and B present, hops on real NICs. */
static void tf_validate(struct tf_ctx *c)
{
	struct topo_data *d = c->d;

	c->line = 0;
	if (!c->desc)
		tf_err(c, "[topology] description is missing: say what the topology is");
	for (int i = 0; i < VM_MAX_NICS; i++) {
		if (d->nics[i].given && i > 0 && !d->nics[i - 1].given)
			tf_err(c, "NIC %c without NIC %c: label NICs from A on", 'A' + i, 'A' + i - 1);
		if (d->nics[i].given)
			d->n_nics = (unsigned int)i + 1;
	}
	if (d->n_nics < 2)
		tf_err(c, "a topology needs NICs A and B ([nic.A], [nic.B]): the traffic's ends");
	for (unsigned int i = 0; i < d->n_hops; i++) {
		const struct topo_hop *h = &d->hops[i];

		if (!h->in || !h->out || vm_nic_index(h->in) >= (int)d->n_nics ||
		    vm_nic_index(h->out) >= (int)d->n_nics)
			tf_err(c, "[hop.%s]: 'in' and 'out' must name NICs of the topology", h->name);
	}
	for (int e = 0; e < 2; e++)
		if (d->ep[e].given && !d->ep[e].ipv4[0] && !d->ep[e].ipv6[0])
			tf_err(c, "[endpoint.%c]: give its ipv4 or ipv6 address", 'A' + e);
}

/* Fill cfg->nics from the topology file's data and cfg->want_model. */
static int tf_setup(struct vm_config *cfg, char **err)
{
	const struct topo_data *d = cfg->topo->data;

	cfg->n_nics = 0;
	for (unsigned int i = 0; i < d->n_nics; i++) {
		const struct topo_nic_spec *sp = &d->nics[i];
		struct vm_nic *n = &cfg->nics[cfg->n_nics++];
		const struct topo_endpoint *e = i < 2 && d->ep[i].given ? &d->ep[i] : NULL;

		memset(n, 0, sizeof(*n));
		n->label = sp->label;
		n->model = cfg->want_model[i] ? cfg->want_model[i] : nic_model_find(sp->model);
		snprintf(n->mac, sizeof(n->mac), "52:54:00:4e:4c:%02x", 0x0a + i);
		snprintf(n->ifname, sizeof(n->ifname), "eth%c", sp->label);
		snprintf(n->netns, sizeof(n->netns), "%s", sp->netns);
		snprintf(n->ipv4, sizeof(n->ipv4), "%s", sp->ipv4);
		snprintf(n->ipv6, sizeof(n->ipv6), "%s", sp->ipv6);
		n->hub = sp->link;
		vm_nic_traffic_default(n);
		if (e) {
			snprintf(n->tr_ipv4, sizeof(n->tr_ipv4), "%s", e->ipv4);
			snprintf(n->tr_ipv6, sizeof(n->tr_ipv6), "%s", e->ipv6);
		}
	}
	for (int i = (int)d->n_nics; i < VM_MAX_NICS; i++) {
		if (cfg->want_model[i]) {
			err_set(err, "topology '%s' has no NIC %c", cfg->topo->name, 'A' + i);
			return -EINVAL;
		}
	}
	return 0;
}

char *topo_file_dir(void)
{
	char *bin = exe_dir(), *dir = NULL;
	const char *env = getenv("NETLAB_TOPOLOGIES");

	if (env && *env) {
		free(bin);
		return xstrdup(env);
	}
	/* build/netlab, or a test program deeper in build/ */
	for (int up = 1; up <= 4; up++) {
		struct sbuf b;

		sbuf_init(&b);
		sbuf_adds(&b, bin);
		for (int i = 0; i < up; i++)
			sbuf_adds(&b, "/..");
		sbuf_adds(&b, "/harness/vm/topologies");
		free(dir);
		dir = sbuf_detach(&b);
		if (!access(dir, R_OK))
			break;
	}
	free(bin);
	return dir;
}

const struct topology *topo_file_load(const char *name, const char *path, char **err)
{
	struct tf_ctx c = { .path = path };
	struct topology *t;
	char *text = NULL;
	size_t len;
	int ret = file_read_max(path, 1 << 20, &text, &len);

	if (ret) {
		err_set(err, "%s: cannot read the topology file: %s\nhint: check the topology name or path",
			path, strerror(-ret));
		return NULL;
	}
	c.p = text;
	c.d = xzalloc(sizeof(*c.d));
	c.d->path = xstrdup(path);
	if (ini_parse_stream(tf_reader, &c, tf_handler, &c) > 0 && !c.err)
		tf_err(&c, "expected 'key = value' or '[section]'");
	if (!c.err)
		tf_validate(&c);
	free(text);
	if (c.err) {
		*err = c.err;
		free(c.desc);
		topo_data_free(c.d);
		return NULL;
	}
	for (unsigned int i = 0; i < c.d->n_nics; i++)
		if (!c.d->nics[i].model)
			c.d->nics[i].model = topology_default_model(c.d->nics[i].label)->name;
	t = xzalloc(sizeof(*t));
	t->name = xstrdup(name);
	t->desc = c.desc;
	t->n_vms = 1;
	t->setup = tf_setup;
	t->qemu_args = vm_hub_nics_qemu_args;
	t->data = c.d;
	return t;
}

/* Topology files loaded so far, by the name they were asked by: they live until exit. */
static struct loaded_topo {
	char *name;
	const struct topology *t;
} *loaded;
static size_t n_loaded, cap_loaded;

static bool is_path(const char *name)
{
	size_t n = strlen(name);

	return strchr(name, '/') || (n > 5 && !strcmp(name + n - 5, ".topo"));
}


const struct topology *topology_lookup(const char *name, char **err)
{
	const struct topology *t;
	char *path;

	if (topology_builtin(name))
		return topology_builtin(name);
	for (size_t i = 0; i < n_loaded; i++)
		if (!strcmp(loaded[i].name, name))
			return loaded[i].t;
	if (is_path(name)) {
		path = xstrdup(name);
	} else if (name_ok(name, SIZE_MAX)) {
		char *dir = topo_file_dir();

		path = xasprintf("%s/%s.topo", dir, name);
		free(dir);
		if (access(path, R_OK)) {
			err_set(err, "unknown topology (topologies: %s)", topology_list());
			free(path);
			return NULL;
		}
	} else {
		err_set(err, "unknown topology (topologies: %s)", topology_list());
		return NULL;
	}
	t = topo_file_load(name, path, err);
	free(path);
	if (!t)
		return NULL;
	xgrow_array(&loaded, &cap_loaded, n_loaded + 1, sizeof(*loaded));
	loaded[n_loaded].name = xstrdup(name);
	loaded[n_loaded++].t = t;
	return t;
}

const struct topology *topology_find(const char *name)
{
	char *err = NULL;
	const struct topology *t = topology_lookup(name, &err);

	free(err);
	return t;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

const char *topology_list(void)
{
	static char *list;
	char *dir, **names = NULL;
	size_t n = 0, cap = 0;
	struct sbuf b;
	DIR *d;

	if (list)
		return list;
	sbuf_init(&b);
	sbuf_adds(&b, "loop, pair, none");
	dir = topo_file_dir();
	d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));) {
		size_t len = strlen(e->d_name);

		if (len > 5 && !strcmp(e->d_name + len - 5, ".topo")) {
			xgrow_array(&names, &cap, n + 1, sizeof(*names));
			names[n++] = xstrndup(e->d_name, len - 5);
		}
	}
	if (d)
		closedir(d);
	free(dir);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		sbuf_addf(&b, ", %s", names[i]);
		free(names[i]);
	}
	free(names);
	sbuf_adds(&b, ", or a .topo file");
	list = sbuf_detach(&b);
	return list;
}

/* "ip" run in namespace @ns ("" = root) with the words of @args, each quoted. */
static void ip_line(struct sbuf *o, const char *ns, const char *pre, const char *args)
{
	char *copy = xstrdup(args), *save = NULL;

	sbuf_adds(o, "/sbin/ip");
	if (*ns)
		sbuf_addf(o, " -n %s", ns);
	if (pre)
		sbuf_addf(o, " %s", pre);
	for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		sbuf_adds(o, " ");
		esc_shell(o, w);
	}
	free(copy);
}

/*
 * A failed line: its message in the run's setup-error, and exit status 3,
 * as a scenario's setup errors (scnrun.h SCNRUN_EXIT_SETUP).
 */
static void ip_check(struct sbuf *o, const char *path, const char *ns, const char *what,
		     const char *args)
{
	char *msg = xasprintf("topology %s [netns.%s] %s = %s", path, *ns ? ns : "root", what,
			      args);

	sbuf_adds(o, " 2>" TOPO_ERR " || topo_fail ");
	esc_shell(o, msg);
	sbuf_adds(o, "\n");
	free(msg);
}

void topo_setup_script(const struct topology *t, unsigned int vm, struct sbuf *o)
{
	const struct topo_data *d = t->data;
	const char *base;

	if (!d || vm)
		return;
	base = strrchr(d->path, '/') ? strrchr(d->path, '/') + 1 : d->path;
	sbuf_adds(o, "topo_fail() { echo \"$1: $(cat " TOPO_ERR ")\" | tee " NETLAB_GUEST_OUTDIR
		     "/setup-error >&2; exit 3; }\n");
	/* Namespaces no NIC is in (the agent made the others). */
	for (size_t i = 0; i < d->n_ns; i++) {
		bool has_nic = !d->ns[i].name[0];

		for (unsigned int k = 0; k < d->n_nics; k++)
			has_nic |= !strcmp(d->nics[k].netns, d->ns[i].name);
		if (!has_nic)
			sbuf_addf(o, "[ -e /run/netns/%s ] || { /sbin/ip netns add %s && /sbin/ip -n %s link set lo up; }\n",
				  d->ns[i].name, d->ns[i].name, d->ns[i].name);
	}
	for (size_t i = 0; i < d->n_ns; i++) {
		const struct topo_netns *ns = &d->ns[i];
		const char *ex = *ns->name ? "/sbin/ip netns exec " : "";

		if (ns->forwarding)
			sbuf_addf(o, "%s%s sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 "
				     "2>" TOPO_ERR " >/dev/null || topo_fail \"topology %s [netns.%s] forwarding = yes\"\n",
				  ex, ns->name, base, *ns->name ? ns->name : "root");
		for (size_t k = 0; k < ns->n_ip; k++) {
			ip_line(o, ns->name, NULL, ns->ip[k]);
			ip_check(o, base, ns->name, "ip", ns->ip[k]);
		}
	}
	/* Routes last: their devices and addresses exist by then. */
	for (size_t i = 0; i < d->n_ns; i++) {
		const struct topo_netns *ns = &d->ns[i];

		for (size_t k = 0; k < ns->n_route; k++) {
			bool v6 = strchr(ns->route[k], ':') != NULL;

			ip_line(o, ns->name, v6 ? "-6 route add" : "route add", ns->route[k]);
			ip_check(o, base, ns->name, "route", ns->route[k]);
		}
	}
}
