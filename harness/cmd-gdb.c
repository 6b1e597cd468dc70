// SPDX-License-Identifier: GPL-2.0
/* netlab gdb (issue 7): being written; until then it says so. */
#include <stdio.h>

#include "cmd.h"

int cmd_gdb(int argc, char **argv)
{
	fprintf(stderr, "netlab gdb: not available in this build yet\n");
	return NL_EXIT_USAGE;
}
