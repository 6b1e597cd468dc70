// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the HTML writers (report/html.h) on run directories netlab did not
 * write: a run page from RESULT (result.json) and METRICS (metrics.json), a
 * suite page from SUMMARY (summary.json).
 *
 * Input: RESULT [NUL METRICS [NUL SUMMARY]]. Every '<' of the input is
 * given to the writers as "<Q", a tag netlab never writes: a '<' that
 * reached a page unescaped would show as "<Q" in it. Invariants (abort()
 * when broken): no "<Q" in a page, and every page is valid UTF-8.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "fuzz.h"
#include "lib/esc.h"
#include "report/html.h"

/* The input piece with each '<' as "<Q". */
static char *mark(const char *s, size_t *len)
{
	struct sbuf b;

	sbuf_init(&b);
	for (; *s; s++)
		sbuf_adds(&b, *s == '<' ? "<Q" : (char[]){ *s, 0 });
	*len = b.len;
	return sbuf_detach(&b);
}

static const char *put(const char *name, const char *piece)
{
	size_t n;
	char *m = mark(piece, &n);
	const char *path = fuzz_file(name, (const uint8_t *)m, n);

	free(m);
	return path;
}

/* The page at @path holds no "<Q" and is valid UTF-8; an unwritten page is fine. */
static void check_page(const char *path)
{
	char *text = NULL;
	size_t len = 0;

	if (file_read(path, &text, &len))
		return;
	if (memmem(text, len, "<Q", 2) || strlen(text) != len || !esc_utf8_valid(text))
		abort();
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *part[3];
	char *buf = fuzz_split(data, size, part, 3), *dir, *page, *err = NULL;
	const char *p = put("result.json", part[0]);

	put("metrics.json", part[1]);
	put("summary.json", part[2]);
	dir = strdup(p);
	if (!dir)
		abort();
	*strrchr(dir, '/') = '\0';
	page = xasprintf("%s/page.html", dir);
	unlink(page);
	html_run_write(dir, page, &err);
	free(err);
	err = NULL;
	check_page(page);
	unlink(page);
	html_suite_write(dir, page, false, &err);
	free(err);
	check_page(page);
	free(page);
	free(dir);
	free(buf);
	return 0;
}
