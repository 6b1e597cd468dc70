/* SPDX-License-Identifier: GPL-2.0 */
/* netlab bisect: the library part (see bisect.c). */
#ifndef NETLAB_BISECT_H
#define NETLAB_BISECT_H

#endif /* NETLAB_BISECT_H */
