#!/usr/bin/env bash
# netlab kernel flavours: harness/kbuild.sh with the fragments of one
# flavour, kconfigs/flavours/NAME/*.config, merged after kconfigs/*.config.
#
# Usage: kbuild-flavour.sh NAME [kbuild.sh options]
#        kbuild-flavour.sh --list
# A flavour without fragments (`default`) is kbuild.sh itself, unchanged:
# same fragments, same cache key, so the caches and baselines made before
# flavours stay valid. Another flavour's fragments go into a staging
# directory beside the common ones, renamed so that they sort (and merge)
# after them and name their flavour: its key hashes them as it hashes the
# common ones (file name and content). The flavour's name is left in the
# cache directory, in "flavour" (read into the run's kernel identity).
#
# A flavour's kernel with CONFIG_MODULES=y also gets its modules (kbuild.sh
# builds bzImage only): `make modules` and `make modules_install` in the
# object directory it was just built in, stripped, with modules.builtin and
# modules.builtin.modinfo (the kernel's build writes them with vmlinux),
# packed as modules.cpio.gz in the cache directory: lib/modules/RELEASE/
# and /sbin/modprobe (busybox's). `netlab selftests` appends it to the
# guest's initramfs, so that a test's `modprobe X` finds a built-in X
# (busybox's modprobe reads modules.builtin) or loads module X. A kernel
# cached without it gets it on the next `make kernel FLAVOUR=NAME` while
# the object directory still holds that kernel; else it boots as before.
# The default flavour is left as it was: no modules step, same cache.
# Exit status: kbuild.sh's; 2 for an unknown flavour; 1 the modules build
# failed.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
fragdir=${KCONFIGS:-$top/kconfigs}
flavours=$fragdir/flavours

list() {
	local d names=()
	for d in "$flavours"/*/; do [ -d "$d" ] && names+=("$(basename "$d")"); done
	echo "${names[*]-}"
}
[ "${1:-}" = --list ] && { list; exit 0; }
name=${1:-}
[ $# -gt 0 ] && shift
case $name in
'' | *[!A-Za-z0-9_.-]* | .*)
	echo "netlab kbuild: bad flavour name '$name'" >&2
	echo "hint: a flavour is a directory of kconfigs/flavours/: $(list)" >&2
	exit 2 ;;
esac
if [ ! -d "$flavours/$name" ]; then
	echo "netlab kbuild: unknown flavour '$name': no directory kconfigs/flavours/$name" >&2
	echo "hint: the flavours are: $(list)" >&2
	exit 2
fi

own=("$flavours/$name"/*.config)
if [ ! -e "${own[0]}" ]; then
	dir=$(KCONFIGS=$fragdir "$top/harness/kbuild.sh" "$@" | tail -n 1)
else
	stage=$(mktemp -d "${TMPDIR:-/tmp}/netlab-flavour.XXXXXX")
	trap 'rm -rf "$stage"' EXIT
	# 0-COMMON.config, then 1-NAME-FILE.config: merged in that order.
	for f in "$fragdir"/*.config; do ln -s "$f" "$stage/0-$(basename "$f")"; done
	for f in "${own[@]}"; do ln -s "$f" "$stage/1-$name-$(basename "$f")"; done
	dir=$(KCONFIGS=$stage "$top/harness/kbuild.sh" "$@" | tail -n 1)
fi
[ -d "$dir" ] && [ ! -e "$dir/flavour" ] && echo "$name" >"$dir/flavour" 2>/dev/null || true

# modules_cpio DIR: the modules of the kernel cached in DIR, DIR/modules.cpio.gz.
modules_cpio() {
	local dir=$1 cache src build obj cc rel stage tmp rc=0
	[ -f "$dir/bzImage" ] && [ ! -e "$dir/modules.cpio.gz" ] || return 0
	grep -qx CONFIG_MODULES=y "$dir/config" 2>/dev/null || return 0
	# The object directory kbuild.sh builds this source tree in.
	cache=${NETLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/netlab}
	if [ -n "${KSRC:-}" ]; then src=$(cd "$KSRC" && pwd); else src=$cache/src/$(cat "$dir/source"); fi
	build=$cache/build/$(echo "$src" | sha256sum | cut -c1-12)
	obj=$build/obj
	exec 8>"$cache/kernels/.lock"
	flock 8
	if ! cmp -s "$obj/.config" "$dir/config" || ! cmp -s "$obj/System.map" "$dir/System.map"; then
		echo "netlab kbuild: no modules for $dir: the object directory $obj holds another kernel now" >&2
		echo "hint: the kernel boots without them (a selftest's modprobe fails); harness/kbuild-flavour.sh $name --force rebuilds it with them" >&2
		exec 8>&-
		return 0
	fi
	cc=gcc
	if command -v ccache >/dev/null; then
		cc="ccache gcc"
		export CCACHE_BASEDIR="$cache/build" CCACHE_NOHASHDIR=1
	fi
	rel=$(cat "$dir/release")
	stage=$(mktemp -d "$cache/kernels/.modules.XXXXXX")
	echo "[kernel] building the modules; log: $obj/modules.log" >&2
	{ make -C "$build/src" O="$obj" ARCH=x86_64 CC="$cc" HOSTCC="$cc" -j"${JOBS:-$(nproc)}" modules &&
		make -C "$build/src" O="$obj" ARCH=x86_64 CC="$cc" HOSTCC="$cc" \
			INSTALL_MOD_PATH="$stage" INSTALL_MOD_STRIP=1 modules_install; } >"$obj/modules.log" 2>&1 || rc=$?
	exec 8>&-
	if [ $rc != 0 ]; then
		tail -20 "$obj/modules.log" >&2
		rm -rf "$stage"
		echo "netlab kbuild: the modules of $dir did not build" >&2
		echo "hint: see $obj/modules.log" >&2
		exit 1
	fi
	# Without the host's depmod (package kmod), modules.dep from each
	# module's own depends= (busybox's modprobe wants the file, and every
	# module's dependencies on its line, in load order).
	local m="$stage/lib/modules/$rel"
	[ -d "$m" ] || mkdir -p "$m"
	[ -e "$m/modules.builtin" ] || cp "$obj/modules.builtin" "$obj/modules.builtin.modinfo" "$m/"
	if [ ! -s "$m/modules.dep" ]; then
		(cd "$m" && find kernel -name '*.ko' 2>/dev/null | LC_ALL=C sort | while IFS= read -r ko; do
			printf '%s %s\n' "$ko" "$(objcopy -O binary -j .modinfo "$ko" /dev/stdout 2>/dev/null |
				tr '\0' '\n' | sed -n 's/^depends=//p')"
		done | awk '
			{ path[NR] = $1; n = $1; sub(/.*\//, "", n); sub(/\.ko$/, "", n); gsub(/-/, "_", n)
			  byname[n] = $1; deps[$1] = $2 }
			function walk(p, d, i, k, x) { k = split(deps[p], d, ",")
				for (i = 1; i <= k; i++) { x = d[i]; gsub(/-/, "_", x)
					if (x in byname && !(byname[x] in seen)) { seen[byname[x]]; walk(byname[x]); out = " " byname[x] out } } }
			END { for (i = 1; i <= NR; i++) { delete seen; out = ""; walk(path[i]); print path[i] ":" out } }') >"$m/modules.dep"
	fi
	rm -f "$m/source" "$m/build" # links to this host's trees
	mkdir -p "$stage/sbin"
	ln -s /bin/busybox "$stage/sbin/modprobe"
	find "$stage" -exec touch -h -d @0 {} +
	tmp="$dir/modules.cpio.gz.tmp.$$"
	(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -n -9 >"$tmp"
	mv "$tmp" "$dir/modules.cpio.gz"
	echo "[kernel] modules: $dir/modules.cpio.gz ($(find "$m" -name '*.ko' | wc -l) modules, $(wc -l <"$m/modules.builtin") built in)" >&2
	rm -rf "$stage"
}
case " $* " in *" --print-dir "*) ;; *) [ -z "${own[0]:-}" ] || [ ! -e "${own[0]}" ] || modules_cpio "$dir" ;; esac
echo "$dir"
