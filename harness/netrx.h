/* SPDX-License-Identifier: GPL-2.0 */
#ifndef NETLAB_NETRX_H
#define NETLAB_NETRX_H
#endif
