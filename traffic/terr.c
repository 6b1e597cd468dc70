// SPDX-License-Identifier: GPL-2.0
/*
 * Error message helpers: see terr.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "terr.h"

static void vset(char **err, const char *fmt, va_list ap)
{
	free(*err);
	if (vasprintf(err, fmt, ap) < 0)
		*err = NULL;
}

/**
 * terr_fmt() - set *@err to a formatted message
 * @err: where the message goes (freed and replaced); may be NULL
 * @ret: what to return
 * @fmt: printf format
 *
 * Return: @ret, so that callers can write "return terr_fmt(err, -EINVAL, ...)".
 */
int terr_fmt(char **err, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vset(err, fmt, ap);
		va_end(ap);
	}
	return ret;
}

/**
 * terr_sys() - set *@err to "<what>: <errno text>\nhint: <hint>"
 * @err: where the message goes (freed and replaced); may be NULL
 * @errnum: the positive errno
 * @hint: what the user can do, or NULL for no hint line
 * @fmt: printf format of what failed, with the subject in quotes
 *
 * Return: -@errnum.
 */
int terr_sys(char **err, int errnum, const char *hint, const char *fmt, ...)
{
	char *what = NULL;
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vset(&what, fmt, ap);
		va_end(ap);
		terr_fmt(err, 0, "%s: %s%s%s", what ? what : "error", strerror(errnum),
			 hint ? "\nhint: " : "", hint ? hint : "");
		free(what);
	}
	return -errnum;
}
