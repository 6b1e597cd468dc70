#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Usage: mkksft-tools.sh OUTPUT.cpio.gz [BASE.cpio.gz]
#
# The tools the kernel's net selftests call that the base guest image lacks,
# as a gzip'd newc cpio that only `netlab selftests` appends to the guest's
# initramfs (every other run boots without it): bash (most of them are
# bash scripts), dash as /bin/sh (the #!/bin/sh ones, which under busybox sh
# would run busybox's own `ip` applet, which has no netns, instead of
# iproute2's), socat, nc (OpenBSD's), ping and ping6 (iputils), coreutils'
# timeout (kselftest/runner.sh's per-test timeout) and mktemp (busybox's
# wants six X's: fin_ack_lat.sh gives four), iproute2's devlink and bridge,
# and mausezahn, arping and jq
# when the host has them. Each with its libraries, less those the
# base image BASE (mkinitramfs.sh's) already has.
# Exit status: 0 built, 1 a host tool is missing, 2 usage.
set -euo pipefail

prog=mkksft-tools.sh
die() { echo "$prog: $1" >&2; [ -n "${2:-}" ] && echo "hint: $2" >&2; exit "${3:-1}"; }
[ $# = 1 ] || [ $# = 2 ] || die "need the output file" "usage: $prog OUTPUT.cpio.gz [BASE.cpio.gz]" 2
out=$1
base=${2:-}
[ -z "$base" ] || [ -r "$base" ] || die "base image '$base' is not readable" "make guest" 2
[ -d "$(dirname "$out")" ] || die "output directory '$(dirname "$out")' does not exist" "" 2

# HOST:GUEST; the first group is required (ci/deps.sh installs them).
# Those busybox also has go to /bin, over its links there (PATH has /bin
# before /usr/bin).
need=(/bin/bash:/bin/bash /bin/dash:/bin/dash /bin/dash:/bin/sh /usr/bin/socat:/usr/bin/socat
	/bin/nc.openbsd:/bin/nc /bin/ping:/bin/ping /bin/ping:/bin/ping6
	/usr/bin/timeout:/usr/bin/timeout /usr/bin/timeout:/bin/timeout /sbin/devlink:/sbin/devlink
	/bin/mktemp:/bin/mktemp /sbin/bridge:/sbin/bridge)
optional=(/usr/sbin/mausezahn:/usr/sbin/mausezahn /usr/bin/arping:/bin/arping /usr/bin/jq:/usr/bin/jq)
for t in "${need[@]}"; do
	[ -x "${t%%:*}" ] || die "host tool '${t%%:*}' not found" "run make deps"
done

stage=$(mktemp -d "${TMPDIR:-/tmp}/netlab-ksft-tools.XXXXXX")
trap 'rm -rf "$stage"' EXIT
. "$(dirname "$0")/copy-exe.sh"

for t in "${need[@]}"; do copy_exe "${t%%:*}" "${t#*:}"; done
# The one library a net test binary links beyond libc (reuseport_bpf_numa).
for l in /lib/x86_64-linux-gnu/libnuma.so.1; do
	if [ -e "$l" ]; then mkdir -p "$stage$(dirname "$l")"; cp -L "$l" "$stage$l"; fi
done
for t in "${optional[@]}"; do
	if [ -x "${t%%:*}" ]; then copy_exe "${t%%:*}" "${t#*:}"; else echo "$prog: no ${t%%:*} (skipped)" >&2; fi
done

# The libraries the base image has already stay out (the same host files).
if [ -n "$base" ]; then
	while IFS= read -r f; do
		case $f in lib*/*|usr/lib*/*) [ -f "$stage/$f" ] && rm -f "$stage/$f" ;; esac
	done < <(zcat "$base" | cpio -t --quiet | sed 's|^\./||')
fi

archive_stage "$out"
