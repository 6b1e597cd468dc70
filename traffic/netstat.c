// SPDX-License-Identifier: GPL-2.0
/*
 * Reading /proc/net/snmp and /proc/net/snmp6: see netstat.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netstat.h"

/* Read a small /proc file into @buf, NUL-terminated. */
static int slurp(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;
	ssize_t r = 1;

	if (fd < 0)
		return -errno;
	while (got < n - 1 && r > 0) {
		r = read(fd, buf + got, n - 1 - got);
		if (r > 0)
			got += (size_t)r;
	}
	close(fd);
	buf[got] = '\0';
	return r < 0 ? -EIO : 0;
}

/* The line starting with @tag, or NULL. */
static const char *find_line(const char *text, const char *tag)
{
	const char *p;

	for (p = text; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (!strncmp(p, tag, strlen(tag)))
			return p;
	}
	return NULL;
}

/* Copy the line starting at @p, without its '\n', into @buf. */
static void copy_line(const char *p, char *buf, size_t n)
{
	size_t len = strcspn(p, "\n");

	if (len >= n)
		len = n - 1;
	memcpy(buf, p, len);
	buf[len] = '\0';
}

/**
 * netstat_parse_snmp() - one counter from the text of /proc/net/snmp
 * @text: the file's content: a "Proto: Name ..." line, then "Proto: value ..."
 * @proto: "Udp"
 * @name: "RcvbufErrors"
 * @v: the value
 *
 * Return: 0, or -ENOENT if there is no such counter.
 */
int netstat_parse_snmp(const char *text, const char *proto, const char *name, uint64_t *v)
{
	char tag[32], hdr[1024], val[1024], *hs, *vs, *h, *x;
	const char *p;

	snprintf(tag, sizeof(tag), "%s: ", proto);
	p = find_line(text, tag);
	if (!p || !strchr(p, '\n') || strncmp(strchr(p, '\n') + 1, tag, strlen(tag)))
		return -ENOENT;
	copy_line(p, hdr, sizeof(hdr));
	copy_line(strchr(p, '\n') + 1, val, sizeof(val));
	strtok_r(hdr, " ", &hs);
	strtok_r(val, " ", &vs);
	while ((h = strtok_r(NULL, " ", &hs)) && (x = strtok_r(NULL, " ", &vs))) {
		if (!strcmp(h, name)) {
			*v = strtoull(x, NULL, 10);
			return 0;
		}
	}
	return -ENOENT;
}

/**
 * netstat_parse_snmp6() - one counter from the text of /proc/net/snmp6
 * @text: the file's content: "Name value" lines
 * @name: "Udp6RcvbufErrors"
 * @v: the value
 *
 * Return: 0, or -ENOENT if there is no such counter.
 */
int netstat_parse_snmp6(const char *text, const char *name, uint64_t *v)
{
	size_t len = strlen(name);
	const char *p;

	for (p = find_line(text, name); p; p = find_line(p + len, name)) {
		if (p[len] == ' ' || p[len] == '\t') {
			*v = strtoull(p + len, NULL, 10);
			return 0;
		}
	}
	return -ENOENT;
}

/**
 * netstat_udp_read() - current UDP drop counters, IPv4 + IPv6
 * @s: the result
 *
 * Return: 0, or -errno if /proc/net/snmp cannot be read or parsed.
 */
int netstat_udp_read(struct netstat_udp *s)
{
	char buf[16384];
	uint64_t v6;
	int ret;

	ret = slurp("/proc/net/snmp", buf, sizeof(buf));
	if (!ret)
		ret = netstat_parse_snmp(buf, "Udp", "RcvbufErrors", &s->rcvbuf_errors);
	if (!ret)
		ret = netstat_parse_snmp(buf, "Udp", "InErrors", &s->in_errors);
	if (ret || slurp("/proc/net/snmp6", buf, sizeof(buf)))
		return ret;
	if (!netstat_parse_snmp6(buf, "Udp6RcvbufErrors", &v6))
		s->rcvbuf_errors += v6;
	if (!netstat_parse_snmp6(buf, "Udp6InErrors", &v6))
		s->in_errors += v6;
	return 0;
}
