#!/usr/bin/env bash
# netlab selftests builder: the kernel's own kselftests, out of tree.
#
# Usage: ksft-build.sh KSRC OUTDIR TARGET...
#
# Builds the kselftest TARGETs (net, net/forwarding, drivers/net/bonding, ...:
# a directory of KSRC/tools/testing/selftests with a Makefile; one without a
# Makefile, such as 6.1's drivers/net, stands for the TARGETS of
# selftests/Makefile under it) of the kernel tree KSRC, with that tree's
# UAPI headers, and installs them as kselftest's `make install` does:
#
#   OUTDIR/install/                 INSTALL_PATH: run_kselftest.sh, kselftest/,
#                                   netlab-ksft.sh TARGET:TEST (the guest's entry),
#                                   kselftest-list.txt (COLLECTION:TEST of the
#                                   tests that built), TARGET/... with its settings
#   OUTDIR/install/bpf/xdp_dummy.bpf.o  with net: the XDP object udpgro*.sh and
#                                   veth.sh attach (clang -target bpf)
#   OUTDIR/install/ksft-missing.txt one line per test (or helper) that did not
#                                   build: "TARGET:NAME<TAB>REASON"
#   OUTDIR/obj/usr/include          the UAPI headers of KSRC (make headers; KHDR_INCLUDES)
#   OUTDIR/obj/kselftest/TARGET     the objects
#   OUTDIR/build-TARGET.log         each target's make output ('/' as '-')
#   OUTDIR/stamp                    the tree's identity, the targets, this
#                                   script's hash: a second call that finds the
#                                   same stamp returns at once ("cached")
#
# A target that fails in part keeps what built (make -k); the rest is listed
# in ksft-missing.txt with the first compiler error that names it.
# Calls for the same OUTDIR serialize on OUTDIR/.lock.
# Environment: JOBS (default nproc).
# Prints OUTDIR/install on the last line of stdout; progress on stderr.
# Exit status: 0 built (perhaps in part: see ksft-missing.txt), 1 build
# failure (the headers, or no test of a target built), 2 usage, a KSRC that
# is not a kernel tree, or an unknown target. Errors end with "hint:" lines.
set -euo pipefail

prog=ksft-build.sh
jobs=${JOBS:-$(nproc)}
die() { echo "$prog: $1" >&2; [ -n "${2:-}" ] && echo "hint: $2" >&2; exit "${3:-2}"; }
log() { echo "[selftests] $*" >&2; }

[ $# -ge 3 ] || die "need a kernel tree, an output directory and at least one target" \
	"usage: $prog KSRC OUTDIR TARGET... (e.g. $prog ~/linux /tmp/ksft net)"
src=$(cd "$1" 2>/dev/null && pwd) || die "KSRC '$1' is not a directory" \
	"point it at the top of a kernel source tree"
sel=$src/tools/testing/selftests
[ -f "$src/Makefile" ] && [ -f "$sel/Makefile" ] && [ -f "$sel/lib.mk" ] ||
	die "'$src' is not a kernel tree with selftests (no Makefile or tools/testing/selftests/lib.mk)" \
		"point KSRC at the top of a kernel source tree"
mkdir -p "$2" || die "cannot create OUTDIR '$2'" "choose a writable directory"
out=$(cd "$2" && pwd)
shift 2

# --- targets ---------------------------------------------------------------
# The TARGETS the tree's selftests/Makefile lists, for a directory without a
# Makefile of its own (6.1's drivers/net).
listed() { make -s --no-print-directory -C "$sel" -f Makefile -f - ksft-targets <<'EOF' 2>/dev/null
ksft-targets:
	@echo $(TARGETS)
EOF
}
targets=()
for t in "$@"; do
	t=${t%/}
	case $t in ''|/*|*..*) die "bad target '$t'" "a directory under tools/testing/selftests, such as net" ;; esac
	if [ -f "$sel/$t/Makefile" ]; then
		targets+=("$t")
	elif [ -d "$sel/$t" ] && sub=$(listed | tr ' ' '\n' | grep "^$t/") && [ -n "$sub" ]; then
		while IFS= read -r s; do [ -f "$sel/$s/Makefile" ] && targets+=("$s"); done <<<"$sub"
	else
		near=$(cd "$sel" && for d in net net/* drivers/net/*; do
			if [ -f "$d/Makefile" ]; then printf '%s ' "$d"; fi; done)
		die "unknown selftest target '$t' in '$sel'" "targets with a Makefile there: $near"
	fi
done
mapfile -t targets < <(printf '%s\n' "${targets[@]}" | awk '!seen[$0]++')

# --- identity and cache ----------------------------------------------------
# What the build reads: the targets, the selftests' common files, the UAPI.
inputs=("${targets[@]/#/tools/testing/selftests/}" tools/testing/selftests/lib.mk
	tools/testing/selftests/kselftest tools/testing/selftests/run_kselftest.sh
	include/uapi arch/x86/include/uapi)
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	srcid="git-$(git -C "$src" rev-parse HEAD)-$( (git -C "$src" diff HEAD -- "${inputs[@]}";
		git -C "$src" ls-files -o --exclude-standard -- "${inputs[@]}") | sha256sum | cut -c1-12)"
else
	srcid="tree-$(cd "$src" && find "${inputs[@]}" -printf '%P %T@ %s\n' 2>/dev/null |
		LC_ALL=C sort | sha256sum | cut -c1-16)"
fi
stamp=$(printf 'src %s %s\ntargets %s\nbuilder %s\n' "$src" "$srcid" "${targets[*]}" \
	"$(sha256sum "$0" | cut -c1-16)")
exec 9>"$out/.lock"
flock 9
inst=$out/install
if [ -f "$out/stamp" ] && [ "$(cat "$out/stamp")" = "$stamp" ] && [ -f "$inst/kselftest-list.txt" ]; then
	log "cached: $inst ($(wc -l <"$inst/kselftest-list.txt") tests)"
	echo "$inst"
	exit 0
fi
rm -rf "$out/stamp" "$inst" "$out/obj/kselftest"
mkdir -p "$inst/kselftest" "$out/obj"

# --- UAPI headers (KHDR_INCLUDES): `make headers` leaves them in O/usr/include,
# where headers_install would copy them (with rsync, which we do not need) ---
log "make headers from $src"
if ! make -s -C "$src" O="$out/obj" ARCH=x86 headers >"$out/build-headers.log" 2>&1; then
	tail -5 "$out/build-headers.log" >&2
	die "make headers failed in '$src' (log: $out/build-headers.log)" \
		"a tree with a .config or objects in place refuses O=: 'make mrproper' it, or use a clean worktree" 1
fi
export KHDR_INCLUDES="-isystem $out/obj/usr/include"
export BUILD=$out/obj/kselftest
export ARCH=x86

# The file lists lib.mk computes (TEST_GEN_* already under OUTPUT).
vars() { make -s --no-print-directory -C "$sel/$1" OUTPUT="$2" -f Makefile -f - ksft-vars <<'EOF'
ksft-vars:
	@echo "progs $(TEST_GEN_PROGS) $(TEST_CUSTOM_PROGS) $(TEST_PROGS)"
	@echo "files $(TEST_PROGS_EXTENDED) $(TEST_FILES) $(TEST_GEN_PROGS_EXTENDED) $(TEST_GEN_FILES) $(wildcard config settings)"
EOF
}

# why LOG NAME: the first compiler error that names NAME, else the first error.
why() {
	local b=${2%.*} line
	line=$(grep -m1 -E "(^|/)$b(\.[a-z]+)?:[0-9]+(:[0-9]+)?: (fatal )?error" "$1" ||
		grep -m1 -E "error|Error" "$1" || echo "no error in the log")
	echo "did not build: ${line#"$src"/}"
}

fail=0
: >"$inst/kselftest-list.txt"
: >"$inst/ksft-missing.txt"
for t in "${targets[@]}"; do
	obj=$BUILD/$t
	logf=$out/build-${t//\//-}.log
	mkdir -p "$obj" "$inst/$t"
	log "building $t (log: $logf)"
	make -k -j"$jobs" -C "$sel/$t" OUTPUT="$obj" >"$logf" 2>&1 || log "$t: make failed in part"
	lists=$(vars "$t" "$obj") || { log "$t: cannot read its file lists"; fail=1; continue; }
	progs=$(sed -n 's/^progs //p' <<<"$lists")
	files=$(sed -n 's/^files //p' <<<"$lists")
	built=0
	for kind in progs files; do
		for f in ${!kind}; do
			case $f in /*) p=$f ;; *) p=$sel/$t/$f ;; esac
			name=$(basename "$f")
			if [ -e "$p" ]; then
				cp -RL --preserve=mode "$p" "$inst/$t/"
				[ $kind = progs ] && { echo "$t:$name" >>"$inst/kselftest-list.txt"; built=$((built + 1)); }
			else
				printf '%s:%s\t%s%s\n' "$t" "$name" "$([ $kind = files ] && echo "helper ")" \
					"$(why "$logf" "$name")" >>"$inst/ksft-missing.txt"
			fi
		done
	done
	# 6.1's net/altnames.sh sources forwarding/lib.sh, which only the
	# net/forwarding target installs (later kernels list it in TEST_INCLUDES).
	if [ -f "$sel/$t/forwarding/lib.sh" ] && [ ! -e "$inst/$t/forwarding/lib.sh" ]; then
		mkdir -p "$inst/$t/forwarding"
		cp "$sel/$t/forwarding/lib.sh" "$inst/$t/forwarding/"
	fi
	# A helper the installed scripts source by a plain name that the
	# target's Makefile does not install (6.1.192's net/udpgro*.sh and
	# ipv6_route_update_soft_lockup.sh source net_helper.sh, a backport
	# whose Makefile line was left behind): copied from the tree.
	for h in $(cat "$inst/$t"/*.sh 2>/dev/null | sed -nE 's/^[[:space:]]*(source|\.)[[:space:]]+([A-Za-z0-9_.-]+\.sh)[[:space:]]*$/\2/p' | sort -u); do
		[ -f "$sel/$t/$h" ] && [ ! -e "$inst/$t/$h" ] && cp "$sel/$t/$h" "$inst/$t/"
	done
	if [ $built = 0 ]; then
		log "$t: no test built"
		fail=1
	fi
done
# 6.1's net/udpgro*.sh and veth.sh attach ../bpf/xdp_dummy.bpf.o, which
# only the bpf target builds (with vmlinux.h and bpftool): this one object
# is plain clang -target bpf, with the libbpf headers the net target's own
# BPF build (nat6to4.o) left in its objects.
if [ -d "$inst/net" ] && [ -f "$sel/bpf/progs/xdp_dummy.c" ]; then
	mkdir -p "$inst/bpf"
	# shellcheck disable=SC2086 # KHDR_INCLUDES is "-isystem DIR"
	clang -O2 -target bpf -c "$sel/bpf/progs/xdp_dummy.c" $KHDR_INCLUDES -I"$BUILD/net/tools/include" \
		-o "$inst/bpf/xdp_dummy.bpf.o" >"$out/build-xdp_dummy.log" 2>&1 ||
		log "bpf/xdp_dummy.bpf.o did not build (log: $out/build-xdp_dummy.log): udpgro*.sh and veth.sh stop at 'Missing ../bpf/xdp_dummy.bpf.o'"
fi
cp "$sel/run_kselftest.sh" "$inst/"
cp "$sel"/kselftest/{runner.sh,prefix.pl,module.sh} "$inst/kselftest/" 2>/dev/null || true
# netlab's entry point in the guest (ksft_write_scenario()'s run line): the
# links udev would make, which the runner needs (it writes to /dev/stdout),
# and the runner's output through a pipe (its second open of /dev/stdout
# would write over the first's lines on a file).
cat >"$inst/netlab-ksft.sh" <<'EOF'
#!/bin/sh
# Usage: netlab-ksft.sh TARGET:TEST  (written by netlab's ksft-build.sh)
for l in fd:fd stdin:fd/0 stdout:fd/1 stderr:fd/2; do
	[ -e "/dev/${l%%:*}" ] || ln -s "/proc/self/${l#*:}" "/dev/${l%%:*}"
done
cd "$(dirname "$0")" || exit 2
./run_kselftest.sh -t "$1" 2>&1 | cat
EOF
chmod 0755 "$inst/run_kselftest.sh" "$inst"/kselftest/* "$inst/netlab-ksft.sh"

if [ -s "$inst/ksft-missing.txt" ]; then
	log "$(wc -l <"$inst/ksft-missing.txt") did not build:"
	cut -f1 "$inst/ksft-missing.txt" | tr '\n' ' ' | fold -s -w 100 | sed 's/^/  /' >&2
	echo >&2
fi
if [ $fail = 1 ]; then
	die "a target built no test (logs: $out/build-*.log)" \
		"see the log's first error; the tree's tools/testing/selftests must build with this compiler" 1
fi
echo "$stamp" >"$out/stamp"
log "installed $(wc -l <"$inst/kselftest-list.txt") tests in $inst"
echo "$inst"
