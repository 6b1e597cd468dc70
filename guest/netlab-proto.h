/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netlab host <-> guest contract.
 *
 * This header is the only thing the harness (harness/) and the guest agent
 * (guest/agent.c) share. Everything that crosses the boundary is named here.
 *
 * Input (host -> guest): a per-run "job" cpio, uncompressed, placed *before*
 * the base initramfs in the -initrd file (the kernel unpacks concatenated
 * archives in order; ACPI table upgrades under kernel/firmware/acpi/ must sit
 * in this first, uncompressed archive). It holds:
 *   NETLAB_JOB_FILE   key=value lines, one per line, '#' starts a comment.
 *   NETLAB_EXEC_FILE  the command to run, a /bin/sh script, verbatim.
 * Passing the job in the initrd, rather than over a socket, keeps a run
 * deterministic under -icount and replayable under QEMU record/replay.
 *
 * Output (guest -> host): named virtio-serial ports (virtconsole/
 * virtserialport name=...), each backed by a file in the run directory, so
 * what was written survives whatever happens to the harness:
 *   NETLAB_PORT_STDOUT  the command's stdout
 *   NETLAB_PORT_STDERR  the command's stderr
 *   NETLAB_PORT_STATUS  status lines, see below
 *   NETLAB_PORT_FILES   optional: a tar stream of NETLAB_GUEST_OUTDIR
 * The console (ttyS0) goes to console.log; the agent prints NETLAB_MARK_*
 * lines there too, so a person reading the log sees the phases.
 *
 * Status port lines (text, one event per line, in this order):
 *   "agent <version>"        the agent started (boot reached userspace)
 *   "topology ok"            the topology is up
 *   "topology error <text>"  the topology could not be brought up
 *   "topology error " NETLAB_NO_SYSCTL "<name>"
 *                            ... as a sysctl of the job names no file under
 *                            /proc/sys in any namespace: bad input, not a
 *                            broken guest
 *   "exec <pid>"             the command started
 *   "note <key> <value>"     what the command's script reported about
 *                            itself on NETLAB_NOTE_FD (below), e.g.
 *                            "note exec.exit 3"; before "exit"
 *   "exit <status>"          the command ended: 0..255, or 128+signal
 *   "timeout"                the guest-side timeout killed the command
 *   "poweroff"               the agent is about to power off
 *   "error <text>"           (added by the agent) a failure outside the
 *                            topology, e.g. no job file; "poweroff" follows
 * "timeout", when it happens, comes before "exit 137" (128+SIGKILL).
 * topology=none still reports "topology ok" (sysctls applied, lo up).
 */
#ifndef NETLAB_PROTO_H
#define NETLAB_PROTO_H

#define NETLAB_PROTO_VERSION 1

/* Files in the job cpio (paths inside the guest). */
#define NETLAB_JOB_DIR "/netlab"
#define NETLAB_JOB_FILE "/netlab/job"
#define NETLAB_EXEC_FILE "/netlab/exec.sh"
#define NETLAB_GUEST_OUTDIR "/netlab/out"

/* The topology error of a sysctl the kernel does not have: then its name. */
#define NETLAB_NO_SYSCTL "no such sysctl: "

/* Virtio-serial port names. */
#define NETLAB_PORT_STDOUT "netlab.stdout"
#define NETLAB_PORT_STDERR "netlab.stderr"
#define NETLAB_PORT_STATUS "netlab.status"
#define NETLAB_PORT_FILES "netlab.files"

/*
 * The command's note pipe: an fd open for writing in the command (and only
 * where its script passes it on), "KEY VALUE" lines, KEY [a-z0-9._-]{1,64},
 * VALUE 1..200 printable ASCII; the agent forwards them as "note" status
 * lines. netlab's scenario script closes it for the user's [exec] command,
 * so that nothing the command leaves behind can report a status for it.
 */
#define NETLAB_NOTE_FD 3

/*
 * Job keys (NETLAB_JOB_FILE). Unknown keys are ignored by the agent, so the
 * host may add keys for newer agents.
 *   version=1
 *   topology=loop              (loop: one VM, NIC A and B on a QEMU hub)
 *   nic.<N>.mac=52:54:00:..    MAC by which the agent finds NIC N (A, B)
 *   nic.<N>.model=e1000e       informational
 *   nic.<N>.netns=b            namespace to move NIC N into ("" = root)
 *   nic.<N>.ifname=ethA        name to give NIC N
 *   nic.<N>.ipv4=198.18.0.1/24
 *   nic.<N>.ipv6=2001:2::1/64
 *   timeout=SECONDS            guest-side command timeout (0 = none)
 *   sysctl.<name>=value        applied before the command (e.g.
 *                              sysctl.net.core.rmem_max=...)
 *   share.<TAG>=ro|rw PATH     mount the virtio-9p share with mount tag TAG
 *                              at PATH (created), read-only or read-write,
 *                              before the topology and the command; a share
 *                              that does not mount ends the run ("error")
 *   ack=1                      after "poweroff", wait for a byte from the
 *                              host on the status port before powering off:
 *                              for hosts whose ports are streams (the libvirt
 *                              backend) that must drain first. The host bounds
 *                              the wait; the guest has no timeout of its own
 */
#define NETLAB_KEY_VERSION "version"
#define NETLAB_KEY_TOPOLOGY "topology"
#define NETLAB_KEY_TIMEOUT "timeout"
#define NETLAB_KEY_ACK "ack"

/* Console markers printed by the agent (one line each, at line start). */
#define NETLAB_MARK_AGENT "netlab-agent: started"
#define NETLAB_MARK_EXEC "netlab-agent: exec"
#define NETLAB_MARK_EXIT "netlab-agent: exit"
#define NETLAB_MARK_POWEROFF "netlab-agent: poweroff"

/* Addresses of the loop topology: RFC 2544 / RFC 5180 benchmarking ranges. */
#define NETLAB_LOOP_A_IPV4 "198.18.0.1/24"
#define NETLAB_LOOP_B_IPV4 "198.18.0.2/24"
#define NETLAB_LOOP_A_IPV6 "2001:2::1/64"
#define NETLAB_LOOP_B_IPV6 "2001:2::2/64"
#define NETLAB_LOOP_B_NETNS "b"

#endif /* NETLAB_PROTO_H */
