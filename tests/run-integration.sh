#!/usr/bin/env bash
# Run the integration tests (each boots real guests under QEMU).
# Usage: tests/run-integration.sh [tests/integration/tNN-*.sh ...]
#
# NETLAB_TEST_JOBS=N (default 2, at most the number of CPUs) runs the files
# in N lanes at once. Much of a file's time is one guest, a gdb replay or a
# build on one core (2 lanes on 2 cores: 17% less time for the whole of
# .ci/run, measured). Each file's output is printed whole when it ends. Files that share
# a host resource run in the same lane, one after the other:
#   libvirt: t14, t17, t25 (t17 kills and restarts libvirtd);
#   history: t12, t15, t21, t27, t31 (the bisect-test histories in the cache,
#            built in place; t12's and t31's only with NETLAB_SLOW_TESTS=1).
# t20 checks that every file naming virsh or a cached bisect-test history is
# in its group here.
# The lanes are cut once, before anything runs, by each file's cost in a
# CI run (FILE_S below; an unknown file counts 60 s): the longest first,
# each to the lane with the least work.
set -u
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- tests/integration/t*.sh

# CI seconds of each file (a clean-clone .ci/run, issue 19; t06, t13-t18,
# t25 and t27 from the .ci/run of issue 33, on a loaded host; t21 skips
# without NETLAB_SLOW_TESTS=1)
declare -A FILE_S=([t06]=1330 [t16]=446 [t21]=2 [t13]=303 [t18]=461 [t14]=235
	[t15]=484 [t22]=110 [t17]=203 [t26]=86 [t25]=99 [t10]=54 [t24]=53 [t11]=42
	[t23]=42 [t09]=37 [t08]=34 [t03]=24 [t02]=23 [t01]=18 [t07]=18 [t04]=13
	[t19]=7 [t20]=7 [t05]=16 [t12]=3 [t27]=631 [t28]=15 [t29]=25 [t30]=60 [t31]=40 [t32]=260 [t33]=35 [t34]=45)
declare -A GROUP=([t14]=libvirt [t17]=libvirt [t25]=libvirt [t12]=history [t15]=history
	[t21]=history [t27]=history [t31]=history [t32]=history)

lanes=${NETLAB_TEST_JOBS:-2}
case $lanes in '' | *[!0-9]* | 0)
	echo "run-integration.sh: NETLAB_TEST_JOBS='$lanes': want a number of lanes, 1 or more" >&2
	exit 2 ;;
esac
ncpu=$(nproc 2>/dev/null || echo 1)
[ "$lanes" -le "$ncpu" ] || lanes=$ncpu
[ "$lanes" -le $# ] || lanes=$#

# Each file's log and plan mark (one directory, removed however we end).
out=$(mktemp -d "${TMPDIR:-/tmp}/netlab-integration.XXXXXX")
trap 'rm -rf "$out"' EXIT

run_file() { # run_file FILE: its output, then its time
	local t0=$(date +%s) plan rc
	echo "# $1"
	# A file that dies before its plan (a syntax error, a crash, a kill)
	# counts as a failure of its own: its tests never said "not ok".
	plan=$out/$(basename "$1").plan
	rm -f "$plan"
	NETLAB_TEST_PLAN=$plan bash "$1"
	rc=$?
	if ! [ -s "$plan" ]; then
		echo "not ok - $1: the file ended (exit $rc) before its plan"
		[ -z "${NETLAB_TEST_TOTALS:-}" ] || echo "0 1 0" >>"$NETLAB_TEST_TOTALS"
		rc=1
	fi
	# what each file costs: the CI budget is spent here
	echo "# $1: $(($(date +%s) - t0)) s"
	return $rc
}

if [ "$lanes" -le 1 ]; then
	rc=0
	for t in "$@"; do run_file "$t" || rc=1; done
	exit $rc
fi

# Units: a group's files together, or a file alone; cost = sum of seconds.
declare -A unit_files=() unit_cost=()
for t in "$@"; do
	k=$(basename "$t"); k=${k%%-*}
	u=${GROUP[$k]:-$t}
	unit_files[$u]+="$t "
	unit_cost[$u]=$((${unit_cost[$u]:-0} + ${FILE_S[$k]:-60}))
done
declare -a lane_files lane_cost
for ((i = 0; i < lanes; i++)); do lane_files[i]=; lane_cost[i]=0; done
while read -r cost u; do
	best=0
	for ((i = 1; i < lanes; i++)); do
		[ "${lane_cost[i]}" -lt "${lane_cost[best]}" ] && best=$i
	done
	lane_files[best]+="${unit_files[$u]}"
	lane_cost[best]=$((lane_cost[best] + cost))
done < <(for u in "${!unit_files[@]}"; do echo "${unit_cost[$u]} $u"; done | sort -k1,1nr -k2,2)

# A lane runs in the background, where a non-interactive shell ignores
# SIGINT: ^C and SIGTERM reach the test files (whose EXIT traps end their
# guests) only through us, so the whole tree of each lane gets SIGTERM.
tree() { local p; for p in "$@"; do echo "$p"; tree $(pgrep -P "$p"); done; }
trap 'kill -TERM $(tree $(jobs -p)) 2>/dev/null; wait; exit 130' INT TERM
echo "# $lanes lanes (NETLAB_TEST_JOBS)"
for ((i = 0; i < lanes; i++)); do
	echo "# lane $i (~${lane_cost[i]} s): ${lane_files[i]}"
	(
		rc=0
		for t in ${lane_files[i]}; do
			log=$out/$(basename "$t").log
			run_file "$t" >"$log" 2>&1 || rc=1
			# one file's output at a time on our stdout
			flock "$out/.print" cat "$log"
		done
		exit $rc
	) &
done
rc=0
for p in $(jobs -p); do wait "$p" || rc=1; done
exit $rc
