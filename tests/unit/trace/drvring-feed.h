/* SPDX-License-Identifier: GPL-2.0 */
/* The drvring tests' one way to feed a made-up driver line. */
#ifndef NETLAB_TEST_DRVRING_FEED_H
#define NETLAB_TEST_DRVRING_FEED_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* A driver line prefix: e1000e on ethX. */
#define E "netlab_drv: e1000e ethX "

static void feed(struct drvring *d, uint64_t ts, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Feed the formatted line to @d at @ts on CPU 0; it must be taken. */
static void feed(struct drvring *d, uint64_t ts, const char *fmt, ...)
{
	char *line;
	va_list ap;

	va_start(ap, fmt);
	assert_true(vasprintf(&line, fmt, ap) > 0);
	va_end(ap);
	assert_int_equal(drvring_feed(d, ts, 0, line), 0);
	free(line);
}

#endif
