#!/usr/bin/env bash
# The shape the source keeps (issue 16): harness/ in one folder per
# subsystem, folders in layers whose arrows run downward only (issue 33), no
# two files that call each other (directly or round a circle), in harness/
# or in the guest agent, no source file past about 1000 lines. No guest
# boots: the build's objects (nm) and the tree.
. "$(dirname "$0")/../lib.sh"
[ -x "$NETLAB" ] || skip_all "build/netlab missing (run make)"
cd "$TOP"

# The layers of harness/, lowest first, "|" between layers (README "Source
# tree"): a file of harness/A/ includes (and calls) its own folder and
# folders of lower layers only, never one of A's layer or above. guest/ and
# traffic/ are the host/guest contract and the generators' code the harness
# builds in (netlab-proto.h, hist.h, generators.h); lib/ is below them and
# needs nothing. A new folder gets a place here.
LAYERS="lib | guest traffic | boot trace | vm | run | gdb | scenario | selftests | bisect | report | cmd"

# "FILE A F X" for each quoted include "X" of a file of harness/A/: F is
# X's first folder, or where "X" is found (the file's folder, guest/,
# traffic/); nothing for a header of the build (version.h).
harness_includes() {
	local f x d t
	grep -H -o "^#include \"[^\"]*\"" harness/*/*.[ch] | while IFS=: read -r f x; do
		x=${x#\#include \"}; x=${x%\"}
		d=$(basename "$(dirname "$f")")
		case $x in
		*/*) t=${x%%/*} ;;
		*) if [ -f "harness/$d/$x" ]; then t=$d
		   elif [ -f "guest/$x" ]; then t=guest
		   elif [ -f "traffic/$x" ]; then t=traffic
		   else continue; fi ;;
		esac
		echo "$f $d $t $x"
	done
}

test_expect_success 'harness/ holds folders and the kernel builder, no loose source' '
	loose=$(ls harness/*.[ch] 2>/dev/null || true)
	echo "$loose"
	test -z "$loose"
	for d in cmd lib vm boot run trace scenario bisect gdb report selftests; do test -d harness/$d; done
'

test_expect_success 'tests/unit mirrors harness/: every unit test is in a subsystem folder' '
	loose=$(ls tests/unit/test_*.c 2>/dev/null || true)
	test -z "$loose"
'

test_expect_success 'every folder of harness/ has its layer, and no #include runs up or across a layer' '
	declare -A rank
	r=0
	for w in $LAYERS; do
		if [ "$w" = "|" ]; then r=$((r + 1)); else rank[$w]=$r; fi
	done
	for d in harness/*/; do
		d=$(basename "$d")
		[ -n "${rank[$d]:-}" ] || { echo "harness/$d/ has no layer in LAYERS"; false; }
	done
	harness_includes >"$T_TMP/includes"
	test -s "$T_TMP/includes"
	while read -r f d t x; do
		[ "$t" != "$d" ] || continue
		[ -n "${rank[$t]:-}" ] && [ "${rank[$t]}" -lt "${rank[$d]}" ] ||
			echo "$f: #include \"$x\": $t/ is not below $d/"
	done <"$T_TMP/includes" >"$T_TMP/up"
	cat "$T_TMP/up"
	! test -s "$T_TMP/up"
'

test_expect_success 'no call circle between harness files, and no call up a layer (from the objects of build/)' '
	ls build/harness/*/*.o >/dev/null
	python3 tests/integration/callgraph.py --layers "$LAYERS" build/harness harness >"$T_TMP/circles"
	cat "$T_TMP/circles"
	! test -s "$T_TMP/circles"
'

test_expect_success 'no call circle between the guest agent files (from the objects of build/guest/)' '
	ls build/guest/agent.o build/guest/agent-net.o >/dev/null
	test "$(ls build/guest/*.o | wc -l)" -ge "$(ls guest/*.c | wc -l)"
	python3 tests/integration/callgraph.py build/guest guest >"$T_TMP/circles"
	cat "$T_TMP/circles"
	! test -s "$T_TMP/circles"
'

# A generator is described once (traffic/generators.c and its harness
# descriptor, scenario/scngen.c): nothing else in harness/ names one to branch on.
test_expect_success 'no generator name in a string of harness/ outside scenario/scngen.c' '
	st=0
	perl tests/integration/table-names.pl gen traffic/generators.c harness/*/*.[ch] >"$T_TMP/names" || st=$?
	cat "$T_TMP/names"
	grep -q "^generators: udp-stream" "$T_TMP/names"
	test $st = 0
'

test_expect_success 'no NIC model or driver name in a string of harness/: code asks guest/nicmodel.c' '
	st=0
	perl tests/integration/table-names.pl nic guest/nicmodel.c harness/*/*.[ch] >"$T_TMP/nics" || st=$?
	cat "$T_TMP/nics"
	grep -q "^models: e1000 e1000e virtio-net" "$T_TMP/nics"
	test $st = 0
'

test_expect_success 'no source file of harness/, guest/ or traffic/ over 1000 lines' '
	wc -l harness/*/*.c guest/*.c traffic/*.c | awk "\$2 != \"total\" && \$1 > 1000" >"$T_TMP/big"
	cat "$T_TMP/big"
	! test -s "$T_TMP/big"
'

# One allocation policy (issue 33): outside harness/lib/, memory comes from
# the x-helpers of lib/util.h (xzalloc, xcalloc, xstrdup, xstrndup,
# xrealloc_array, xgrow_array), which never return on failure. Comments
# are stripped first (gcc -fpreprocessed), so prose may name malloc().
test_expect_success 'no raw malloc family call in harness/ outside harness/lib/' '
	bad=
	for f in $(ls harness/*/*.[ch] | grep -v "^harness/lib/"); do
		hits=$(gcc -fpreprocessed -dD -E -P -x c "$f" 2>/dev/null |
		       grep -nE "(^|[^[:alnum:]_])(malloc|calloc|realloc|reallocarray|strdup|strndup)[[:space:]]*\(" || true)
		[ -z "$hits" ] || bad="$bad
$f: $hits"
	done
	echo "raw allocations:$bad"
	test -z "$bad"
'

# cmd/ parses options (issue 33): netlab gdb's sessions and replay
# supervisor live in gdb/replay.c, its scenario run in scenario/scngdb.c;
# cmd-gdb.o starts no QEMU, reads no trace, parses no scenario itself.
test_expect_success 'cmd/cmd-gdb.c parses options: the replay supervisor is in gdb/' '
	nm -u build/harness/cmd/cmd-gdb.o | awk "{print \$2}" >"$T_TMP/gdb-undef"
	grep -E "^(vm_|tracedrops_|scn_|scnrun_|run_execute|run_config|gdb_qmp_|gdb_proc_start|gdb_replay_argv|outlock_)" \
		"$T_TMP/gdb-undef" >"$T_TMP/gdb-lib" || true
	cat "$T_TMP/gdb-lib"
	! test -s "$T_TMP/gdb-lib"
	grep -qx gdb_replay_run "$T_TMP/gdb-undef"
	nm build/harness/gdb/replay.o | grep -q " T gdb_replay_run\$"
'

# Files that share a host resource must share a lane (tests/run-integration.sh):
# libvirtd (t17 restarts it) and the bisect-test histories in the cache.
test_expect_success 'every test file that uses libvirtd or a cached bisect-test history is in its lane group' '
	groups=$(sed -n "/^declare -A GROUP=/,/)\$/p" tests/run-integration.sh)
	echo "$groups" | grep -q "\[t14\]=libvirt"
	bad=
	for f in tests/integration/t[0-9]*.sh; do
		k=$(basename "$f" | cut -c1-3)
		[ "$k" != t20 ] || continue	# this file names them, to look for them
		if grep -q "virsh" "$f" && ! echo "$groups" | grep -q "\[$k\]=libvirt"; then
			bad="$bad $k:libvirt"
		fi
		if grep -q "bisect-test/\|lib-history.sh" "$f" && ! echo "$groups" | grep -q "\[$k\]=history"; then
			bad="$bad $k:history"
		fi
	done
	echo "not in their group:$bad"
	test -z "$bad"
'

# A test file that does not parse dies before its plan (tests/run-integration.sh
# then fails it); this names it before anything boots.
test_expect_success 'every shell script of the tree parses (bash -n)' '
	bad=
	for f in $(git ls-files); do
		[ -f "$f" ] && head -n 1 "$f" | grep -Eq "^#!.*(bash|/sh)" || continue
		bash -n "$f" 2>>"$T_TMP/parse" || bad="$bad $f"
	done
	cat "$T_TMP/parse"
	test -z "$bad"
'

test_done
