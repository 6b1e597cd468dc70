// SPDX-License-Identifier: GPL-2.0
/* pktpath: being written (issue 4). */
#include "pktpath.h"
