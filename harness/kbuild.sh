#!/usr/bin/env bash
# netlab kernel builder.
#
# Builds a minimal, all-built-in x86_64 kernel from Debian's linux-source-6.1
# (default) or from KSRC, with the kconfigs/ fragments merged over tinyconfig
# by the kernel's own scripts/kconfig/merge_config.sh, and the driver-patches/
# series applied. The result (bzImage, vmlinux, .config, System.map, gdb
# scripts) lands in a cache directory keyed by (source, fragments, patches),
# outside the work tree, so a fresh clone on the same machine reuses it.
#
# Usage: kbuild.sh [--print-dir] [--force]
# Environment: KSRC, DRIVER_PATCHES (dir or "none"), DRIVER_PATCHES_SKIP_FAILED
# (1: build without a series that does not apply, see driver-patches/README.md),
# NETLAB_CACHE, JOBS.
# Prints the cache directory of the kernel on its last line of stdout.
# Exit status: 0 built or cached, 2 bad input, 1 build failure.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${NETLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/netlab}
fragdir=${KCONFIGS:-$top/kconfigs}
patches=${DRIVER_PATCHES:-$top/driver-patches}
jobs=${JOBS:-$(nproc)}
force=0
print_dir=0
debian_tar=/usr/src/linux-source-6.1.tar.xz

die() { echo "netlab kbuild: $1" >&2; [ -n "${2:-}" ] && echo "hint: $2" >&2; exit "${3:-2}"; }
log() { echo "[kernel] $*" >&2; }

for a in "$@"; do
	case $a in
	--force) force=1 ;;
	--print-dir) print_dir=1 ;;
	*) die "unknown option '$a'" "usage: kbuild.sh [--print-dir] [--force]" ;;
	esac
done

# --- source identity -------------------------------------------------------
if [ -z "${KSRC:-}" ]; then
	[ -r "$debian_tar" ] || die "'$debian_tar' not found" \
		"run 'make deps' (installs linux-source-6.1) or set KSRC=<kernel tree>"
	ver=$(dpkg-query -W -f '${Version}' linux-source-6.1 2>/dev/null || stat -c %s-%Y "$debian_tar")
	srcid="debian-linux-source-6.1-$ver"
	src="$cache/src/$srcid"
	if [ ! -f "$src/Makefile" ]; then
		log "extracting $debian_tar (once)"
		mkdir -p "$cache/src"
		tmp=$(mktemp -d "$cache/src/.extract.XXXXXX")
		tar -C "$tmp" -xf "$debian_tar"
		rm -rf "$src"
		mv "$tmp/linux-source-6.1" "$src"
		rmdir "$tmp"
	fi
else
	src=$(cd "$KSRC" 2>/dev/null && pwd) || die "KSRC '$KSRC' is not a directory" \
		"point KSRC at the top of a kernel source tree"
	[ -f "$src/Makefile" ] && [ -x "$src/scripts/kconfig/merge_config.sh" ] ||
		die "KSRC '$src' is not a kernel tree (no Makefile or scripts/kconfig/merge_config.sh)" \
			"point KSRC at the top of a kernel source tree"
	if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
		head=$(git -C "$src" rev-parse HEAD)
		dirty=$( (git -C "$src" diff HEAD; git -C "$src" ls-files -o --exclude-standard) | sha256sum | cut -c1-12)
		srcid="git-$head-$dirty"
	else
		newest=$(find "$src" -type f -newer "$src/Makefile" -printf '%T@\n' 2>/dev/null | sort -n | tail -1)
		srcid="tree-$(echo "$src $newest" | sha256sum | cut -c1-16)"
	fi
fi

# --- what goes into the key ------------------------------------------------
frags=("$fragdir"/*.config)
[ -e "${frags[0]}" ] || die "no kconfig fragments in '$fragdir'" "restore kconfigs/*.config"
patchlist=()
if [ "$patches" != none ] && [ -d "$patches" ]; then
	while IFS= read -r p; do patchlist+=("$p"); done < <(find "$patches" -name '*.patch' | sort)
fi
key=$( {
	echo "src $srcid"
	echo "builder $(sha256sum "$0" | cut -c1-16)"
	for f in "${frags[@]}"; do echo "frag $(basename "$f")"; cat "$f"; done
	for p in "${patchlist[@]}"; do echo "patch ${p#"$patches"/}"; cat "$p"; done
} | sha256sum | cut -c1-16)
out="$cache/kernels/$key"

# A cached kernel built without a series that did not apply is only handed
# out to whoever accepts that (DRIVER_PATCHES_SKIP_FAILED=1).
check_skipped() {
	[ -f "$1/driver-patches-skipped" ] || return 0
	local line
	while IFS= read -r line; do
		echo "netlab kbuild: driver series skipped in $1: $line" >&2
	done <"$1/driver-patches-skipped"
	[ "${DRIVER_PATCHES_SKIP_FAILED:-0}" = 1 ] ||
		die "the cached kernel lacks driver series that do not apply (listed above)" \
			"fix the series, or accept the kernel with DRIVER_PATCHES_SKIP_FAILED=1 (analysis falls back to kprobes)" 1
}

if [ $force = 0 ] && [ -f "$out/bzImage" ] && [ -f "$out/vmlinux" ]; then
	check_skipped "$out"
	log "cached: $out"
	echo "$out"
	exit 0
fi
[ $print_dir = 1 ] && { echo "$out"; exit 0; }

mkdir -p "$cache/kernels" "$cache/build"
exec 9>"$cache/kernels/.lock"
flock 9
if [ $force = 0 ] && [ -f "$out/bzImage" ]; then check_skipped "$out"; echo "$out"; exit 0; fi

# --- build -----------------------------------------------------------------
# One build directory per source tree, so steps over the same tree (bisect)
# are incremental. Patches are applied to a private copy of pristine sources.
build="$cache/build/$(echo "$src" | sha256sum | cut -c1-12)"
mkdir -p "$build"
# Room to build: a cold object directory grows to about 2.2 GB (tinyconfig
# + kconfigs/, with debug info); an incremental build needs much less.
need_mb=2400
[ -e "$build/obj/vmlinux" ] && need_mb=400
read -r dev avail_kb mnt < <(df -P -k "$build" | awk 'NR == 2 { print $1, $4, $6 }')
if [ -n "${avail_kb:-}" ] && [ "$avail_kb" -lt $((need_mb * 1024)) ]; then
	die "no space left on $dev (mounted at $mnt): $((avail_kb / 1024)) MB free, needed about $need_mb MB to build the kernel in $build" \
		"free some space there, or point NETLAB_CACHE at a file system with more room" 1
fi
# The build reads a private copy of the sources, $build/src (hard links where
# the file system allows), patched when there are driver patches: every tree
# is then built from the same layout, $build/src and $build/obj, which keeps
# ccache's hits across trees (see below).
ksrc="$build/src"
skipped=() # "SERIES PATCH: what failed", one per series left out
log "preparing the source tree in $ksrc"
if [ ! -d "$ksrc" ] || [ "$(cat "$build/src.id" 2>/dev/null)" != "$srcid" ]; then
	rm -rf "$ksrc"
	cp -al "$src" "$ksrc" 2>/dev/null || cp -a "$src" "$ksrc"
	echo "$srcid" >"$build/src.id"
	rm -f "$build/patched-files"
fi
# patch_files PATCH...: the files they touch. pristine FILE...: the tree's own
# copy again, unshared from the hard-linked one, with a new mtime; a file the
# tree does not have (a patch created it) is removed.
patch_files() { sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$@"; }
pristine() {
	local f
	for f in "$@"; do
		rm -f "$ksrc/$f"
		if [ -f "$src/$f" ]; then cp "$src/$f" "$ksrc/$f"; fi
	done
}
# The files the last build patched are pristine again (a patch removed since,
# or DRIVER_PATCHES=none), with new mtimes so that make rebuilds them; those
# this build patches are listed first, so that an interrupted build's are too.
if [ -f "$build/patched-files" ]; then
	while IFS= read -r f; do pristine "$f"; done <"$build/patched-files"
fi
if [ ${#patchlist[@]} -gt 0 ]; then patch_files "${patchlist[@]}" | sort -u; fi >"$build/patched-files"
if [ ${#patchlist[@]} -gt 0 ]; then
	# Files the series touch are restored from the pristine tree first,
	# then the series are applied.
	restore() { # restore PATCH...: pristine copies of the files they touch
		# shellcheck disable=SC2046 # paths in the tree have no blanks
		pristine $(patch_files "$@")
	}
	apply() { patch -d "$ksrc" -p1 --forward --batch --no-backup-if-mismatch --reject-file=- <"$1" 2>&1; }
	# A series is the first directory below driver-patches/ (a patch at
	# the top is a series of its own).
	series_of() {
		local r=${1#"$patches"/}
		echo "${r%%/*}"
	}
	# what_failed PATCH OUTPUT: each failing hunk as FILE hunk #N (@@ header
	# from the patch, with the function it is in) at LINE; else patch's
	# own first complaint (missing file, already applied, garbage).
	what_failed() {
		local line file="" n at hdr hunks=""
		while IFS= read -r line; do
			case $line in
			"patching file "*) file=${line#patching file }; file=${file#\'}; file=${file%\'} ;;
			"Hunk #"*" FAILED at "*)
				n=${line#Hunk #}; n=${n%% *}
				at=${line##* at }; at=${at%.}
				hdr=$(awk -v f="$file" -v n="$n" '
					/^\+\+\+ / { cur = $2; sub(/^b\//, "", cur); k = 0; next }
					/^@@ / && cur == f && ++k == n { print; exit }' "$1")
				hunks="${hunks:+$hunks; }$file hunk #$n ($hdr) FAILED at $at" ;;
			esac
		done <<<"$2"
		[ -n "$hunks" ] || hunks=$(grep -v '^patching file ' <<<"$2" | head -1)
		echo "$hunks"
	}
	restore "${patchlist[@]}"
	applied=() # patches of the series applied so far
	i=0
	while [ $i -lt ${#patchlist[@]} ]; do
		s=$(series_of "${patchlist[$i]}")
		series=()
		while [ $i -lt ${#patchlist[@]} ] && [ "$(series_of "${patchlist[$i]}")" = "$s" ]; do
			series+=("${patchlist[$i]}")
			i=$((i + 1))
		done
		failed=
		for p in "${series[@]}"; do
			msg=$(apply "$p") || { failed=$p; break; }
		done
		if [ -z "$failed" ]; then
			applied+=("${series[@]}")
			continue
		fi
		printf '%s\n' "$msg" | sed 's/^/  patch: /' >&2
		what=$(what_failed "$failed" "$msg")
		if [ "${DRIVER_PATCHES_SKIP_FAILED:-0}" != 1 ]; then
			die "driver patch '${failed#"$top"/}' does not apply to '$src': $what" \
				"DRIVER_PATCHES_SKIP_FAILED=1 builds without series '$s' (analysis falls back to kprobes); DRIVER_PATCHES=none builds without any" 1
		fi
		echo "netlab kbuild: skipping driver series '$s' (${#series[@]} patches): ${failed#"$patches"/} does not apply: $what" >&2
		skipped+=("$s ${failed#"$patches"/}: $what")
		# Undo the partly applied series: pristine copies of everything it
		# and the applied series touch, then the applied series again.
		restore "${series[@]}" "${applied[@]}"
		for p in "${applied[@]}"; do
			msg=$(apply "$p") || { echo "$msg" >&2; die "driver patch '${p#"$top"/}' no longer applies after skipping series '$s'" \
				"series '$s' and this one touch the same lines; fix them or use DRIVER_PATCHES=none" 1; }
		done
	done
fi
obj="$build/obj"
mkdir -p "$obj"
# ccache, when installed: its hits survive a change of the tree's path (a
# bisect worktree, another checkout of the same sources). Paths below
# $cache/build are hashed relative to the object directory, whose layout is
# the same for every tree, and the object directory's own path is left out of
# the hash. An object taken from the cache names, in its debug information,
# the directories of the build that compiled it, where the same sources are.
# The host programs (objtool, fixdep, kconfig, modpost...) go through it too.
cc=gcc
if command -v ccache >/dev/null; then
	cc="ccache gcc"
	export CCACHE_BASEDIR="$cache/build" CCACHE_NOHASHDIR=1
fi
mk() { make -C "$ksrc" O="$obj" ARCH=x86_64 CC="$cc" HOSTCC="$cc" "$@"; }

log "configuring: tinyconfig + ${frags[*]##*/}"
mk -s tinyconfig >/dev/null
(cd "$ksrc" && scripts/kconfig/merge_config.sh -m -O "$obj" "$obj/.config" "${frags[@]}") >"$obj/merge.log" 2>&1 ||
	{ cat "$obj/merge.log" >&2; die "merge_config.sh failed" "check the fragments in kconfigs/" 1; }
mk -s olddefconfig >/dev/null
# Every =y in the fragments must have survived olddefconfig.
missing=0
for f in "${frags[@]}"; do
	while IFS= read -r line; do
		case $line in CONFIG_*=y) ;; *) continue ;; esac
		grep -qx "$line" "$obj/.config" || { echo "netlab kbuild: $(basename "$f"): $line did not stick (unmet dependency?)" >&2; missing=1; }
	done <"$f"
done
[ $missing = 0 ] || die "kernel configuration is incomplete" "fix the fragments in kconfigs/" 1

log "building bzImage with $jobs jobs (a cold build takes ~6 min on 2 cores); log: $obj/build.log"
start=$(date +%s)
mk -j"$jobs" bzImage scripts_gdb >"$obj/build.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null' INT TERM
while kill -0 $pid 2>/dev/null; do
	sleep 10
	n=$(grep -c '^  CC' "$obj/build.log" || true)
	log "$(($(date +%s) - start))s: $n objects compiled, last: $(tail -1 "$obj/build.log" | cut -c1-70)"
done
wait $pid || { tail -30 "$obj/build.log" >&2; die "kernel build failed" "see $obj/build.log" 1; }

tmp=$(mktemp -d "$cache/kernels/.new.XXXXXX")
cp "$obj/arch/x86/boot/bzImage" "$obj/vmlinux" "$obj/.config" "$obj/System.map" "$tmp/"
mv "$tmp/.config" "$tmp/config"
[ ${#skipped[@]} = 0 ] || printf '%s\n' "${skipped[@]}" >"$tmp/driver-patches-skipped"
# The manifest: the driver series applied, one per line (empty: none). The
# harness reads it to choose the driver lines or the kprobe fallback.
applied_series=()
for p in "${applied[@]+"${applied[@]}"}"; do
	s=$(series_of "$p")
	case " ${applied_series[*]-} " in *" $s "*) ;; *) applied_series+=("$s") ;; esac
done
printf '%s\n' "${applied_series[@]+"${applied_series[@]}"}" | sed '/^$/d' >"$tmp/driver-patches"
[ -e "$obj/vmlinux-gdb.py" ] && cp -rL "$obj/vmlinux-gdb.py" "$obj/scripts/gdb" "$tmp/" 2>/dev/null || true
make -s -C "$ksrc" O="$obj" kernelrelease >"$tmp/release" 2>/dev/null || true
echo "$srcid" >"$tmp/source"
rm -rf "$out"
mv "$tmp" "$out"
log "done in $(($(date +%s) - start))s: $out"
echo "$out"
