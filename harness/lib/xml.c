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
			if (ch < 0x20 || ch == 0x7f)
				sbuf_addf(b, "\\x%02x", ch);
			else
				sbuf_add(b, s, 1);
		}
	}
}
