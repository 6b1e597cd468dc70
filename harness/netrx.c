// SPDX-License-Identifier: GPL-2.0
/* netrx: being written (issue 4). */
#include "netrx.h"
