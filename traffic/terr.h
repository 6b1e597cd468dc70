/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Error messages of the traffic library: built into a malloc'ed string the
 * caller owns (and prints once, at the top), never printed here.
 */
#ifndef TRAFFIC_TERR_H
#define TRAFFIC_TERR_H

int terr_fmt(char **err, int ret, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int terr_sys(char **err, int errnum, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif /* TRAFFIC_TERR_H */
