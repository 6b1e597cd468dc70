/* SPDX-License-Identifier: GPL-2.0 */
/* gdb on a guest kernel (issue 7): being written. */
#ifndef NETLAB_GDB_H
#define NETLAB_GDB_H
#endif
