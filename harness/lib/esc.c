// SPDX-License-Identifier: GPL-2.0
/*
 * Escaping for XML, HTML, terminals, JSON and shells (see esc.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/esc.h"
#include "lib/util.h"

/* ---- UTF-8 ------------------------------------------------------------------------ */

size_t esc_utf8_seq(const unsigned char *p)
{
	size_t n;
	unsigned int cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, cp = p[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

bool esc_utf8_valid(const char *s)
{
	while (s && *s) {
		size_t n = esc_utf8_seq((const unsigned char *)s);

		if (!n)
			return false;
		s += n;
	}
	return true;
}

char *esc_utf8_fix(const char *s)
{
	struct sbuf b;

	sbuf_init(&b);
	while (s && *s) {
		size_t n = esc_utf8_seq((const unsigned char *)s);

		if (n)
			sbuf_add(&b, s, n);
		else
			sbuf_adds(&b, "\xef\xbf\xbd"); /* U+FFFD */
		s += n ? n : 1;
	}
	return sbuf_detach(&b);
}

/* ---- XML and HTML ----------------------------------------------------------------- */

void esc_xml(struct sbuf *b, const char *s, unsigned int flags)
{
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;

		switch (ch) {
		case '&': sbuf_adds(b, "&amp;"); break;
		case '<': sbuf_adds(b, "&lt;"); break;
		case '>': sbuf_adds(b, "&gt;"); break;
		case '"': sbuf_adds(b, "&quot;"); break;
		case '\'':
			if (flags & ESC_XML_APOS)
				sbuf_adds(b, "&apos;");
			else
				sbuf_add(b, s, 1);
			break;
		case '\n': sbuf_adds(b, "&#10;"); break;
		case '\t': sbuf_adds(b, "&#9;"); break;
		default:
			if (ch < 0x20 || ch == 0x7f) {
				sbuf_addf(b, "\\x%02x", ch);
			} else if (ch >= 0x80) {
				size_t n = esc_utf8_seq((const unsigned char *)s);

				/* Not UTF-8, or U+FFFE/U+FFFF (not XML characters). */
				if (!n || (n == 3 && ch == 0xef && (unsigned char)s[1] == 0xbf &&
					   (unsigned char)s[2] >= 0xbe))
					n = 0;
				if (n) {
					sbuf_add(b, s, n);
					s += n - 1;
				} else {
					sbuf_addf(b, "\\x%02x", ch);
				}
			} else {
				sbuf_add(b, s, 1);
			}
		}
	}
}

void esc_html(struct sbuf *b, const char *s)
{
	esc_xml(b, s, ESC_XML_APOS);
}

void esc_html_url(struct sbuf *b, const char *s)
{
	size_t n = s ? strcspn(s, ":/?#") : 0;

	/* "x:..." is a scheme (browsers ignore tabs and newlines in it), "//h" a host. */
	if (s && ((s[n] == ':' && n) || !strncmp(s, "//", 2) || !strncmp(s, "\\\\", 2) ||
		  strpbrk(s, "\t\n\r") || (s[0] == '/' && s[1] == '\\')))
		sbuf_adds(b, "./");
	esc_html(b, s);
}

/* ---- terminal --------------------------------------------------------------------- */

void esc_term(struct sbuf *b, const char *s, size_t n, unsigned int flags)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; s && i < n;) {
		unsigned char ch = p[i];
		size_t k = 1;

		if (ch >= 0x20 && ch < 0x7f) {
			sbuf_add(b, &p[i], 1);
		} else if ((flags & ESC_TERM_LINES) &&
			   (ch == '\n' || ch == '\t' || (ch == '\r' && i + 1 < n && p[i + 1] == '\n'))) {
			sbuf_add(b, &p[i], 1);
		} else if (ch >= 0x80 && (k = esc_utf8_seq(&p[i])) && i + k <= n &&
			   !(k == 2 && ch == 0xc2 && p[i + 1] < 0xa0)) {
			sbuf_add(b, &p[i], k);
		} else {
			/* A control, a C1 control (U+0080..U+009F), or not UTF-8. */
			k = ch == 0xc2 && k == 2 && i + 1 < n ? 2 : 1;
			for (size_t j = 0; j < k; j++)
				sbuf_addf(b, "\\x%02x", p[i + j]);
		}
		i += k ? k : 1;
	}
}

/* The stream of esc_term_stream(): bytes held back until the next write. */
struct term_cookie {
	int fd;
	unsigned char held[4];
	size_t n_held;
};

/*
 * How many of the @n bytes at @p can be escaped now: all but a CR at the end
 * (an LF may follow) and a UTF-8 sequence the end cuts short.
 */
static size_t term_complete(const unsigned char *p, size_t n)
{
	if (n && p[n - 1] == '\r')
		return n - 1;
	for (size_t back = 1; back <= 3 && back <= n; back++) {
		unsigned char c = p[n - back];
		size_t need;

		if ((c & 0xc0) == 0x80)
			continue;
		need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
		return need > back ? n - back : n;
	}
	return n;
}

static ssize_t term_write(void *cookie, const char *buf, size_t size)
{
	struct term_cookie *c = cookie;
	struct sbuf in, out;
	size_t done;
	int ret;

	sbuf_init(&in);
	sbuf_init(&out);
	sbuf_add(&in, c->held, c->n_held);
	sbuf_add(&in, buf, size);
	done = term_complete((const unsigned char *)in.s, in.len);
	esc_term(&out, in.s, done, ESC_TERM_LINES);
	c->n_held = in.len - done;
	memcpy(c->held, in.s + done, c->n_held);
	ret = fd_write_all(c->fd, out.s, out.len);
	sbuf_release(&in);
	sbuf_release(&out);
	return ret ? -1 : (ssize_t)size;
}

static int term_close(void *cookie)
{
	struct term_cookie *c = cookie;
	struct sbuf out;
	int ret;

	sbuf_init(&out);
	esc_term(&out, (const char *)c->held, c->n_held, ESC_TERM_LINES);
	ret = fd_write_all(c->fd, out.s, out.len);
	sbuf_release(&out);
	free(c);
	return ret;
}

FILE *esc_term_stream(int fd, int mode)
{
	static const cookie_io_functions_t io = { .write = term_write, .close = term_close };
	struct term_cookie *c = xzalloc(sizeof(*c));
	FILE *f;

	c->fd = fd;
	f = fopencookie(c, "w", io);
	if (!f) {
		free(c);
		return NULL;
	}
	setvbuf(f, NULL, mode, 0);
	return f;
}

/* ---- JSON ------------------------------------------------------------------------- */

char *esc_json_text(const char *json)
{
	const unsigned char *p = (const unsigned char *)json;
	struct sbuf b;

	sbuf_init(&b);
	while (p && *p) {
		size_t n = esc_utf8_seq(p);

		if (!n) {
			sbuf_adds(&b, "\xef\xbf\xbd"); /* U+FFFD */
			n = 1;
		} else if (*p == 0x7f || (*p < 0x20 && !strchr("\n\t\r", *p))) {
			sbuf_addf(&b, "\\u%04x", *p);
		} else if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0) {
			sbuf_addf(&b, "\\u%04x", p[1]);
		} else {
			sbuf_add(&b, p, n);
		}
		p += n;
	}
	return sbuf_detach(&b);
}

/* ---- shell ------------------------------------------------------------------------ */

static bool shell_safe(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    "-_./=:,+@%", *s))
			return false;
	return true;
}

void esc_shell(struct sbuf *b, const char *s)
{
	if (!s)
		s = "";
	if (shell_safe(s)) {
		sbuf_adds(b, s);
		return;
	}
	sbuf_adds(b, "'");
	for (; *s; s++) {
		if (*s == '\'')
			sbuf_adds(b, "'\\''");
		else
			sbuf_add(b, s, 1);
	}
	sbuf_adds(b, "'");
}

void esc_shell_addf(struct sbuf *b, const char *prefix, const char *fmt, ...)
{
	struct sbuf v;
	va_list ap;

	sbuf_init(&v);
	va_start(ap, fmt);
	sbuf_vaddf(&v, fmt, ap);
	va_end(ap);
	sbuf_adds(b, prefix);
	esc_shell(b, v.s);
	sbuf_release(&v);
}

char *esc_shell_str(const char *s)
{
	struct sbuf b;

	sbuf_init(&b);
	esc_shell(&b, s);
	return sbuf_detach(&b);
}

char *esc_shell_argv(const struct argv *a)
{
	struct sbuf b;

	sbuf_init(&b);
	for (size_t i = 0; i < a->n; i++) {
		if (i)
			sbuf_adds(&b, " ");
		esc_shell(&b, a->v[i]);
	}
	return sbuf_detach(&b);
}
