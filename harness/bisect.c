// SPDX-License-Identifier: GPL-2.0
/* netlab bisect: the library part. */
#include "bisect.h"
