// SPDX-License-Identifier: GPL-2.0
/* netlab bisect: drive `git bisect run` over a kernel tree. */
#include "bisect.h"
#include "cmd.h"
