// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the host side of the guest status protocol (guest/netlab-proto.h):
 * the text of the status port and of the console, as run_classify() and
 * console_oops_excerpt() read them after a run.
 *
 * Input: STATUS [NUL CONSOLE [NUL QEMU_LOG]]. Each input is classified
 * as a run that ended normally, one that timed out on the host, and one
 * whose QEMU failed; an empty STATUS makes run_classify() look for the
 * agent's status lines on the console (a VM without virtio-serial ports).
 */
#include <stdlib.h>
#include <sys/wait.h>

#include "fuzz.h"
#include "run/result.h"

static void classify(const struct run_obs *o)
{
	struct run_result r;

	run_classify(o, &r);
	run_verdict_name(r.verdict);
	run_result_exit_code(&r);
	run_result_release(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *part[3];
	char *buf = fuzz_split(data, size, part, 3);
	struct run_obs o = {
		.qemu_status = 0, .status = part[0], .console = part[1], .qemu_log = part[2]
	};

	classify(&o);
	o.timed_out = true;
	classify(&o);
	o.timed_out = false;
	o.qemu_status = 1 << 8; /* exited 1 */
	classify(&o);
	free(console_oops_excerpt(part[1]));
	free(console_oops_excerpt(part[0]));
	free(text_tail(part[1], 3));
	free(buf);
	return 0;
}
