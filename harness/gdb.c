// SPDX-License-Identifier: GPL-2.0
/* gdb on a guest kernel (issue 7): being written. */
#include "gdb.h"
