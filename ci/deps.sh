#!/usr/bin/env bash
# netlab dependencies: the Debian 12 packages the harness, the kernel build,
# the guest image and the tests need. Installs the missing ones when run as
# root; otherwise prints the exact apt-get line and exits 1.
# Usage: ci/deps.sh [--check]   (--check: only report, never install)
set -euo pipefail

pkgs=(
	# build the harness and tests
	build-essential pkg-config libjson-c-dev libinih-dev libpcap-dev libcmocka-dev
	libtracecmd-dev libtracefs-dev libtraceevent-dev libssl-dev
	# kernel build (linux-source-6.1 is the default tree)
	linux-source-6.1 flex bison bc libelf-dev dwarves xz-utils cpio kmod ccache
	# run guests and look inside
	qemu-system-x86 qemu-utils gdb acpica-tools jq
	# the guest image's tools (copied from the host with their libraries)
	busybox-static iproute2 ethtool trace-cmd tcpdump iperf3
	# the libvirt backend (--backend libvirt): C API, daemons, virsh and
	# virt-xml-validate (xmllint) for the tests
	libvirt-dev libvirt-daemon-system libvirt-clients libxml2-utils libxml2-dev
	# benchmarks
	time
)

missing=()
for p in "${pkgs[@]}"; do
	case $p in \#*) continue ;; esac
	st=$(dpkg-query -W -f '${Status}' "$p" 2>/dev/null || true)
	[ "$st" = "install ok installed" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

line="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "${1:-}" = --check ] || [ "$(id -u)" != 0 ]; then
	echo "netlab: missing Debian packages: ${missing[*]}" >&2
	echo "hint: as root, run: apt-get update && $line" >&2
	exit 1
fi
echo "netlab: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >&2
apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
