#!/usr/bin/env bash
# netlab base initramfs builder.
#
# Usage: mkinitramfs.sh OUTPUT.cpio.gz AGENT [EXTRA_BIN_DIR...]
#
# Assembles the guest's base initramfs, a gzip'd newc cpio:
#   /init                 the agent (static)
#   /bin/busybox + links  sh and the usual tools (not ip, tc: iproute2 has them)
#   /sbin/ip /sbin/tc     iproute2, with /etc/iproute2 and the netem tables
#   /usr/sbin/ethtool /usr/bin/{tcpdump,trace-cmd,iperf3}
#   /netlab/bin/*         the executables of each EXTRA_BIN_DIR
#   shared libraries of all of these (as ldd resolves them) and their ELF
#   interpreter; libtraceevent plugins (trace-cmd dlopens them) if installed;
#   /etc/{passwd,group,hosts,nsswitch.conf,protocols,services}.
# The per-run job (/netlab/job, /netlab/exec.sh) is NOT in it: the harness
# prepends its own uncompressed cpio.
#
# Reproducible: every file gets mtime SOURCE_DATE_EPOCH (default 0), owner
# 0:0, entries are sorted, cpio runs with --reproducible and gzip with -n.
# Exit status: 0 built, 1 a host tool is missing or a step failed, 2 usage.
set -euo pipefail

prog=mkinitramfs.sh
die() { echo "$prog: $1" >&2; [ -n "${2:-}" ] && echo "hint: $2" >&2; exit "${3:-1}"; }
usage() { die "$1" "usage: $prog OUTPUT.cpio.gz AGENT [EXTRA_BIN_DIR...]" 2; }

[ $# -ge 2 ] || usage "need an output file and the agent"
out=$1
agent=$2
shift 2
if [ ! -f "$agent" ] || [ ! -x "$agent" ]; then usage "agent '$agent' is not an executable file"; fi
for d in "$@"; do [ -d "$d" ] || usage "extra bin dir '$d' is not a directory"; done
[ -d "$(dirname "$out")" ] || usage "output directory '$(dirname "$out")' does not exist"

# Host tools: what the image copies, and what builds it.
busybox=/bin/busybox
real_tools=(/usr/sbin/ip:/sbin/ip /usr/sbin/tc:/sbin/tc /usr/sbin/ethtool:/usr/sbin/ethtool
	/usr/bin/trace-cmd:/usr/bin/trace-cmd /usr/bin/tcpdump:/usr/bin/tcpdump
	/usr/bin/iperf3:/usr/bin/iperf3)
for t in cpio gzip ldd find sort; do
	command -v "$t" >/dev/null || die "host tool '$t' not found" "run make deps"
done
if [ ! -x $busybox ] || ldd $busybox >/dev/null 2>&1; then
	die "'$busybox' is missing or not static (package busybox-static)" "run make deps"
fi
for t in "${real_tools[@]}"; do
	[ -x "${t%%:*}" ] || die "host tool '${t%%:*}' not found" "run make deps"
done

stage=$(mktemp -d "${TMPDIR:-/tmp}/netlab-initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT

# copy_libs, copy_exe: an executable and its libraries into $stage.
. "$(dirname "$0")/copy-exe.sh"

mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,run,root,var,netlab/bin}
chmod 1777 "$stage/tmp"
chmod 0700 "$stage/root"
ln -s ../run "$stage/var/run"
cp "$agent" "$stage/init"
chmod 0755 "$stage/init"
# The kernel opens /dev/console for /init before the agent mounts devtmpfs.
if [ "$(id -u)" = 0 ]; then
	mknod -m 0600 "$stage/dev/console" c 5 1
fi

# The real tools; then busybox for everything else.
skip=" ip ipneigh tc init linuxrc "
for t in "${real_tools[@]}"; do
	copy_exe "${t%%:*}" "${t#*:}"
	skip+="$(basename "${t#*:}") "
done
for d in "$@"; do
	while IFS= read -r f; do
		copy_exe "$f" "/netlab/bin/$(basename "$f")"
		skip+="$(basename "$f") "
	done < <(find "$d" -maxdepth 1 \( -type f -o -type l \) -perm -u+x | LC_ALL=C sort)
done
cp $busybox "$stage/bin/busybox"
for a in $($busybox --list); do
	case $skip in *" $a "*) continue ;; esac
	[ -e "$stage/bin/$a" ] || ln -s busybox "$stage/bin/$a"
done

# Run-time data: netem distribution tables, iproute2 names, trace-cmd's plugins.
multiarch=/usr/lib/x86_64-linux-gnu
if compgen -G "$multiarch/tc/*.dist" >/dev/null; then
	mkdir -p "$stage$multiarch/tc"
	cp "$multiarch"/tc/*.dist "$stage$multiarch/tc/"
fi
[ -d /etc/iproute2 ] && cp -rL /etc/iproute2 "$stage/etc/"
if compgen -G "$multiarch/traceevent/plugins/*.so" >/dev/null; then
	mkdir -p "$stage$multiarch/traceevent/plugins"
	for p in "$multiarch"/traceevent/plugins/*.so; do
		cp -L "$p" "$stage$p"
		copy_libs "$p"
	done
fi

# /etc. tcpdump drops root for user "tcpdump": mapped to uid 0 here, so that
# "tcpdump -w /netlab/out/x.pcap" can write where root can.
cat >"$stage/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
tcpdump:x:0:0:tcpdump (runs as root in netlab):/root:/bin/false
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
EOF
cat >"$stage/etc/group" <<'EOF'
root:x:0:
nogroup:x:65534:
EOF
cat >"$stage/etc/hosts" <<'EOF'
127.0.0.1	localhost
::1		localhost ip6-localhost ip6-loopback
EOF
cat >"$stage/etc/nsswitch.conf" <<'EOF'
passwd:		files
group:		files
hosts:		files
networks:	files
protocols:	files
services:	files
EOF
for f in /etc/protocols /etc/services; do
	[ -f $f ] && cp -L $f "$stage$f"
done

# Archive, reproducibly.
archive_stage "$out"
