#!/usr/bin/env bash
# Start virtlogd and libvirtd for the libvirt backend's tests, as CI does:
# there is no systemd here, and without virtlogd domain creation fails
# ("Failed to connect socket to .../virtlogd-sock"). Idempotent.
# Usage: ci/libvirtd.sh   (as root; prints the URI that answers)
set -euo pipefail

if [ "$(id -u)" != 0 ]; then
	echo "netlab: starting libvirtd needs root; use qemu:///session or ask an admin" >&2
	exit 1
fi
command -v libvirtd >/dev/null || { echo "netlab: libvirtd missing: run 'make deps'" >&2; exit 1; }
# /dev/kvm as Debian's udev rule leaves it: group kvm, mode 0660. Without
# udev it is root's only (0600): libvirt's QEMU user cannot open it, so
# libvirt finds its cached QEMU capabilities (probed with KVM) stale at
# every domain start and probes QEMU again: 36-64 s per domain instead of
# 0.5 s (measured, libvirt 9.0). netlab's domains use TCG either way.
if [ -c /dev/kvm ] && getent group kvm >/dev/null && [ "$(stat -c %G /dev/kvm)" != kvm ]; then
	chgrp kvm /dev/kvm && chmod 0660 /dev/kvm
fi
# A daemon that is exiting still shows in pgrep: check its socket too.
{ pgrep -x virtlogd >/dev/null && [ -S /run/libvirt/virtlogd-sock ]; } || virtlogd -d
{ pgrep -x libvirtd >/dev/null && [ -S /run/libvirt/libvirt-sock ]; } || libvirtd -d
for _ in $(seq 100); do
	if virsh -c qemu:///system version >/dev/null 2>&1; then
		echo qemu:///system
		exit 0
	fi
	sleep 0.1
done
echo "netlab: libvirtd started but qemu:///system does not answer" >&2
exit 1
