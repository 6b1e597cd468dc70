/* SPDX-License-Identifier: GPL-2.0 */
/*
 * XML text as netlab writes it (libvirt domain XML, JUnit reports): one
 * escaper for character data and attribute values.
 */
#ifndef NETLAB_XML_H
#define NETLAB_XML_H

#include "lib/util.h"

/* xml_escape() flags. */
enum {
	/* Escape ' as &apos; too: for values in '...' attributes. */
	XML_ESC_APOS = 1,
};

/*
 * xml_escape() - append @s (NULL: nothing) to @b as XML character data or an
 * attribute value
 *
 * & < > and " become entities (' too with XML_ESC_APOS); newline and tab
 * become &#10; and &#9;, so attribute values keep them. Every other control
 * character (below 0x20, and DEL), which XML 1.0 forbids or discourages and
 * which a reason or a file name may carry, is written as the text "\xNN":
 * the output is always well-formed and still shows what was there. Other
 * bytes (UTF-8 included) are copied.
 */
void xml_escape(struct sbuf *b, const char *s, unsigned int flags);

#endif /* NETLAB_XML_H */
