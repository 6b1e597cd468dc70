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
 * the output is always well-formed and still shows what was there. So is
 * every byte that is not part of valid UTF-8 (and U+FFFE, U+FFFF, which
 * XML does not allow): the document stays valid UTF-8. "]]>" cannot end a
 * CDATA section either, since '>' is always an entity. Valid UTF-8 is
 * copied.
 */
void xml_escape(struct sbuf *b, const char *s, unsigned int flags);

#endif /* NETLAB_XML_H */
