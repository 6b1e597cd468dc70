/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Escaping: the one place where a string netlab did not write (from the
 * guest: trace lines, driver, interface and comm names, console and kernel
 * log lines; from files: scenario names, JSON read back from run
 * directories, paths) is made safe for where it goes:
 *
 *   XML and HTML  esc_xml(), esc_html(), esc_html_url()
 *   a terminal    esc_term(), and esc_term_stream(), which netlab puts in
 *                 front of its stdout and stderr (cmd/netlab.c): nothing
 *                 netlab prints reaches the terminal with a control
 *                 character or invalid UTF-8 in it
 *   JSON          esc_json_text() on serialized JSON (lib/jsonout.h does it
 *                 for every document netlab writes)
 *   a shell       esc_shell(), for commands printed to be pasted
 *   UTF-8         esc_utf8_seq(), esc_utf8_fix()
 *
 * Every function takes any bytes (NULL as ""), never fails and never
 * prints; they append to an sbuf or return a string the caller frees.
 */
#ifndef NETLAB_ESC_H
#define NETLAB_ESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "lib/util.h"

/* ---- UTF-8 ------------------------------------------------------------------------ */

/* Length of the valid UTF-8 sequence at p (1..4; 1 for ASCII, NUL included), or 0. */
size_t esc_utf8_seq(const unsigned char *p);
/* Whether s (NULL: yes) is valid UTF-8 throughout. */
bool esc_utf8_valid(const char *s);
/* A copy of s with every byte that is not part of valid UTF-8 replaced by
 * U+FFFD; caller frees. */
char *esc_utf8_fix(const char *s);

/* ---- XML and HTML ----------------------------------------------------------------- */

/* esc_xml() flags. */
enum {
	/* Escape ' as &apos; too: for values in '...' attributes. */
	ESC_XML_APOS = 1,
};

/*
 * esc_xml() - append @s to @b as XML character data or an attribute value
 *
 * & < > and " become entities (' too with ESC_XML_APOS); newline and tab
 * become &#10; and &#9;, so attribute values keep them. Every other control
 * character (below 0x20, and DEL) is written as the text "\xNN": the output
 * is always well-formed and still shows what was there. So is every byte
 * that is not part of valid UTF-8 (and U+FFFE, U+FFFF, which XML does not
 * allow): the document stays valid UTF-8. "]]>" cannot end a CDATA section
 * either, since '>' is always an entity. Valid UTF-8 is copied.
 */
void esc_xml(struct sbuf *b, const char *s, unsigned int flags);

/*
 * esc_html() - append @s as HTML text, or as an attribute value in double
 * or single quotes (the same escaping is right for both: esc_xml() with
 * ESC_XML_APOS). No markup, entity or attribute can come out of @s.
 */
void esc_html(struct sbuf *b, const char *s);

/*
 * esc_html_url() - append @s as the value of an href or src attribute that
 * is meant to be a relative path: escaped as esc_html() does, and made
 * relative ("./" before it) when it would otherwise name a scheme
 * ("javascript:...", "data:...") or another host ("//host/...").
 */
void esc_html_url(struct sbuf *b, const char *s);

/* ---- terminal --------------------------------------------------------------------- */

/* esc_term() flags. */
enum {
	/* Keep newline, tab and CR-LF (text of several lines): else they are \xNN too. */
	ESC_TERM_LINES = 1,
};

/*
 * esc_term() - append the @n bytes at @s to @b so that a terminal shows
 * them and obeys none: every control character (C0 incl. ESC, DEL, and the
 * C1 controls U+0080..U+009F, which some terminals obey as ESC sequences)
 * becomes the text "\xNN" (one per byte), and so does every byte that is
 * not part of valid UTF-8. Printable ASCII and valid UTF-8 are copied.
 */
void esc_term(struct sbuf *b, const char *s, size_t n, unsigned int flags);

/*
 * esc_term_stream() - a stream whose bytes are written to file descriptor
 * @fd through esc_term(..., ESC_TERM_LINES), a UTF-8 sequence or CR-LF cut
 * between two writes kept whole. @mode: setvbuf()'s _IOFBF, _IOLBF or _IONBF.
 * Return: the stream (fclose() it to write out what is held back), or NULL.
 */
FILE *esc_term_stream(int fd, int mode);

/* ---- JSON ------------------------------------------------------------------------- */

/*
 * esc_json_text() - serialized JSON (as json-c prints it) made valid UTF-8
 * and terminal-safe: each byte not part of valid UTF-8 becomes U+FFFD, and
 * DEL and the C1 controls, which json-c copies raw, become \u007f,
 * \u0080..\u009f (they occur only inside strings: json-c writes everything
 * else in ASCII). The document means the same otherwise. Caller frees.
 */
char *esc_json_text(const char *json);

/* ---- shell ------------------------------------------------------------------------ */

/*
 * esc_shell() - append @s as one POSIX shell word: as is when it holds only
 * characters no shell treats specially ([A-Za-z0-9] and -_./=:,+@%), else in
 * single quotes ('\'' for a quote inside), so that a command line printed to
 * be pasted runs nothing a path or a name holds ($(...), `...`, ;, spaces).
 */
void esc_shell(struct sbuf *b, const char *s);
/* @prefix as is, then the printf-formatted @fmt as one shell word: " --out 'a b'". */
void esc_shell_addf(struct sbuf *b, const char *prefix, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same word as a string; caller frees. */
char *esc_shell_str(const char *s);
/* The words of @a so quoted, space-separated (a command line); caller frees. */
char *esc_shell_argv(const struct argv *a);

#endif /* NETLAB_ESC_H */
