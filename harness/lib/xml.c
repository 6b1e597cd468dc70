// SPDX-License-Identifier: GPL-2.0
/*
 * XML escaping (see xml.h).
 */
#include "lib/xml.h"

void xml_escape(struct sbuf *b, const char *s, unsigned int flags)
{
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;

		switch (ch) {
		case '&': sbuf_adds(b, "&amp;"); break;
		case '<': sbuf_adds(b, "&lt;"); break;
		case '>': sbuf_adds(b, "&gt;"); break;
		case '"': sbuf_adds(b, "&quot;"); break;
		case '\'':
			if (flags & XML_ESC_APOS)
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
				size_t n = utf8_seq((const unsigned char *)s);

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
