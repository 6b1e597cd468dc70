#!/usr/bin/env bash
# netlab dependencies: the Debian 12 packages the harness, the kernel build,
# the guest image and the tests need. Installs the missing ones when run as
# root; otherwise prints the exact apt-get line and exits 1.
# Usage: ci/deps.sh [--check]   (--check: only report, never install)
set -euo pipefail

pkgs=(
	# build the harness and tests (git: bisect's worktrees and the tests'
	# histories; python3: the tests read JSON with it)
	build-essential git python3 pkg-config libjson-c-dev libinih-dev libpcap-dev libcmocka-dev
	libsqlite3-dev sqlite3
	libtracecmd-dev libtracefs-dev libtraceevent-dev libssl-dev
	# kernel build (linux-source-6.1 is the default tree; no BTF, so no
	# pahole/dwarves; modules are loaded by the guest's busybox insmod, so no kmod)
	linux-source-6.1 flex bison bc libelf-dev xz-utils cpio ccache
	# run guests and look inside
	qemu-system-x86 qemu-utils gdb acpica-tools jq
	# the guest image's tools (copied from the host with their libraries)
	busybox-static iproute2 ethtool trace-cmd tcpdump iperf3
	# the kernel's selftests (netlab selftests): the tools cpio its guests add
	# (guest/mkksft-tools.sh; bash, dash, coreutils and devlink come with the
	# base system and iproute2), and numa.h for reuseport_bpf_numa
	socat netcat-openbsd iputils-ping iputils-arping netsniff-ng libnuma-dev
	# the libvirt backend (--backend libvirt): C API, daemons, virsh and
	# virt-xml-validate (xmllint) for the tests
	libvirt-dev libvirt-daemon-system libvirt-clients libxml2-utils libxml2-dev
	# fuzzing (make fuzz, and the smoke run in make test): clang's libFuzzer,
	# ASan and UBSan runtimes, llvm-symbolizer for readable reports
	clang-14 libclang-rt-14-dev llvm-14
	# the remote libvirt path's test: an sshd on 127.0.0.1 (qemu+ssh://)
	openssh-server openssh-client
	# benchmarks
	time
	# t23 reads the example CI workflow (ci/github-shards.yml)
	python3-yaml
	# the manual pages: pandoc builds them (make doc), man-db shows them
	# (man, netlab help; t19-docs)
	pandoc man-db
	# the HTML report's test (t22-html) renders its pages headless
	chromium
	# the checksum verifier's tests (test_pcapcsum, t10, t27) compare with tshark's
	tshark
)

missing=()
for p in "${pkgs[@]}"; do
	case $p in \#*) continue ;; esac
	st=$(dpkg-query -W -f '${Status}' "$p" 2>/dev/null || true)
	[ "$st" = "install ok installed" ] || missing+=("$p")
done

# QEMU 10 where it can be had: Debian 12 ships QEMU 7.2, whose record/replay
# does not finish most network replays; bookworm-backports ships QEMU 10.0,
# built against Debian 12's own libraries. NETLAB_QEMU_BACKPORTS=0 keeps the
# release's QEMU (netlab works on 7.2; replay tests then skip).
bpo_src=/etc/apt/sources.list.d/netlab-bookworm-backports.sources
bpo=()
codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
if [ "$codename" = bookworm ] && [ "${NETLAB_QEMU_BACKPORTS:-1}" != 0 ]; then
	v=$(dpkg-query -W -f '${Version}' qemu-system-x86 2>/dev/null || true)
	if [ -z "$v" ] || dpkg --compare-versions "$v" lt 1:10; then
		# Every package of QEMU's own source that changed version, named:
		# apt takes a dependency from backports only when told to (seen:
		# "qemu-system-common (= 1:10.0.2...) but it is not installable").
		bpo=(qemu-system-x86 qemu-system-common qemu-system-data qemu-utils seabios)
		bpo=("${bpo[@]/%//bookworm-backports}")
		missing=($(printf '%s\n' "${missing[@]}" | grep -vx -e qemu-system-x86 -e qemu-utils || true))
	fi
fi
[ ${#missing[@]} -eq 0 ] && [ ${#bpo[@]} -eq 0 ] && exit 0

line="apt-get install -y --no-install-recommends ${missing[*]} ${bpo[*]}"
if [ "${1:-}" = --check ] || [ "$(id -u)" != 0 ]; then
	[ ${#missing[@]} -eq 0 ] || echo "netlab: missing Debian packages: ${missing[*]}" >&2
	[ ${#bpo[@]} -eq 0 ] || echo "netlab: QEMU 10 from bookworm-backports is not installed (installed: ${v:-none})" >&2
	if [ ${#bpo[@]} -ne 0 ]; then
		echo "hint: as root, run: printf 'Types: deb\\nURIs: http://deb.debian.org/debian\\nSuites: bookworm-backports\\nComponents: main\\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\\n' > $bpo_src && apt-get update && $line" >&2
		echo "hint: or keep Debian 12's QEMU 7.2 with NETLAB_QEMU_BACKPORTS=0 (record/replay tests skip)" >&2
	else
		echo "hint: as root, run: apt-get update && $line" >&2
	fi
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if [ ${#bpo[@]} -ne 0 ] && [ ! -e "$bpo_src" ]; then
	echo "netlab: enabling bookworm-backports for QEMU 10 ($bpo_src)" >&2
	cat > "$bpo_src" <<-EOF
	Types: deb
	URIs: http://deb.debian.org/debian
	Suites: bookworm-backports
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	EOF
fi
echo "netlab: installing ${missing[*]} ${bpo[*]}" >&2
apt-get update -q >&2
apt-get install -y -q --no-install-recommends "${missing[@]}" "${bpo[@]}" >&2
