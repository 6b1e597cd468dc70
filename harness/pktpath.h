/* SPDX-License-Identifier: GPL-2.0 */
#ifndef NETLAB_PKTPATH_H
#define NETLAB_PKTPATH_H
#endif
