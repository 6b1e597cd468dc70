// SPDX-License-Identifier: GPL-2.0
/*
 * main() of one traffic tool, chosen at compile time: -DTTOOL=udp_stream_tool
 * (udp-stream), tcp_stream_tool (tcp-stream) or rr_tool (rr).
 */
#include "ttool.h"

#ifndef TTOOL
#error "compile with -DTTOOL=<tool>_tool"
#endif

int main(int argc, char **argv)
{
	return ttool_main(&TTOOL, argc, argv);
}
