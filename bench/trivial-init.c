// SPDX-License-Identifier: GPL-2.0
/* The bare-boot peer of bench/boot: an /init that powers off at once. */
#include <sys/reboot.h>
#include <unistd.h>

int main(void)
{
	static const char msg[] = "trivial-init: poweroff\n";

	write(1, msg, sizeof(msg) - 1);
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}
