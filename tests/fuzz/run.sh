#!/usr/bin/env bash
# Build and run netlab's libFuzzer targets (tests/fuzz/README.md); print one
# TAP line per target and "fuzz: N passed, M failed" last.
#
# Usage: tests/fuzz/run.sh [--seconds N | --smoke] [TARGET...]
#   --seconds N  fuzz each target N seconds (default 60): `make fuzz`
#   --smoke      a fixed number of runs per target with -seed=1, from the
#                shipped seeds only: the same runs every time, under a
#                minute in all (`make fuzz-smoke`, and `make test`)
#   TARGET       scenario, check, baseline, result, pcap, pcapcsum, tracedrops,
#                html, reportjson
#                (default: all)
#
# Exit: 0 when no target crashed (or clang/libFuzzer is missing and
# NETLAB_REQUIRE_FUZZ is not 1), 1 otherwise. Inputs that crash are kept in
# build-fuzz/crashes/TARGET/, the corpus grown in build-fuzz/corpus/TARGET/
# (not by --smoke, which neither reads nor grows it), each target's log in
# build-fuzz/logs/TARGET.log.
set -u
cd "$(dirname "$0")/../.." || exit 2

FB=${FUZZ_B:-build-fuzz}	# the Makefile's FUZZ_B
ALL="scenario check baseline result pcap pcapcsum tracedrops html reportjson"
HINT="apt-get install -y --no-install-recommends clang-14 libclang-rt-14-dev llvm-14 (or: make deps)"
# A crash stops libFuzzer; it is restarted while time is left, up to:
MAX_CRASHES=3		# crashes in netlab's code, per target
MAX_LIB_CRASHES=20	# crashes inside the trace libraries (crash_owner)

seconds=60
smoke=0
targets=()
while [ $# -gt 0 ]; do
	case $1 in
	--seconds) seconds=${2:-}; shift; [ $# = 0 ] || shift ;;
	--smoke) smoke=1; shift ;;
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "fuzz: unknown option '$1'" >&2; exit 2 ;;
	*) targets+=("$1"); shift ;;
	esac
done
[ ${#targets[@]} -gt 0 ] || read -r -a targets <<<"$ALL"
case $seconds in ''|*[!0-9]*|0) echo "fuzz: --seconds wants a positive number, not '$seconds'" >&2; exit 2 ;; esac

# --smoke: each target's runs (-runs), for about 60 s in all on 2 cores, at
# most a third of it tracedrops (~30 runs/s; it first runs its 9 seeds).
smoke_runs() {
	case $1 in
	scenario|result|pcap) echo 150000 ;;
	pcapcsum) echo 75000 ;;
	check|baseline) echo 300000 ;;
	tracedrops) echo 600 ;;
	html) echo 1500 ;;
	reportjson) echo 30000 ;;
	*) return 1 ;;
	esac
}

# The largest input each target is given: a few times its largest seed.
max_len() {
	case $1 in
	check) echo 1024 ;;
	scenario|baseline) echo 8192 ;;
	result) echo 16384 ;;
	html|reportjson) echo 65536 ;;	# a metrics.json is 40 KB
	pcap|pcapcsum) echo 65536 ;;
	tracedrops) echo 1048576 ;;	# the fixture trace.dat files are 0.5-0.8 MB
	*) return 1 ;;
	esac
}

# The seed directories of a target, one a line: the corpus kept in
# tests/fuzz/corpus (make-corpus.sh), or for trace.dat files, too big to
# keep twice, links to the fixtures.
seed_dirs() {
	local d=$FB/seeds/$1

	if [ "$1" = tracedrops ]; then
		rm -rf "$d" && mkdir -p "$d" || return 1
		find "$PWD/tests/unit/fixtures" -name '*.dat' | sort | while read -r f; do
			ln -s "$f" "$d/$(echo "${f#"$PWD"/tests/unit/fixtures/}" | tr / -)"
		done
		echo "$d"
	else
		echo "tests/fuzz/corpus/$1"
	fi
}

# Add to tests/run.sh's totals, as tests/run-unit.sh does.
totals() {
	[ -z "${NETLAB_TEST_TOTALS:-}" ] || echo "$1 $2 $3" >>"$NETLAB_TEST_TOTALS"
}

# Nothing to fuzz with: a skip, or a failure when NETLAB_REQUIRE_FUZZ=1.
skip() {
	if [ "${NETLAB_REQUIRE_FUZZ:-0}" = 1 ]; then
		echo "not ok - fuzz: $1 (NETLAB_REQUIRE_FUZZ=1)"
		echo "# hint: $HINT"
		echo "fuzz: 0 passed, 1 failed"
		totals 0 1 0
		exit 1
	fi
	echo "ok - fuzz # SKIP $1"
	echo "# hint: $HINT"
	echo "fuzz: 0 passed, 0 failed, ${#targets[@]} skipped"
	totals 0 0 "${#targets[@]}"
	exit 0
}

# clang, with a libFuzzer runtime and the sanitizers.
find_cc() {
	local cc probe

	for cc in ${FUZZ_CC:-} clang clang-14; do
		command -v "$cc" >/dev/null 2>&1 || continue
		probe=$(mktemp -d) || return 1
		printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
			'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return 0; }' >"$probe/p.c"
		if "$cc" -fsanitize=fuzzer,address,undefined -o "$probe/p" "$probe/p.c" 2>/dev/null; then
			rm -rf "$probe"
			echo "$cc"
			return 0
		fi
		rm -rf "$probe"
	done
	return 1
}

# "N" from libFuzzer's final stats or last status line in a log.
log_runs() {
	local n

	n=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$1" | tail -n 1)
	[ -n "$n" ] || n=$(sed -n 's/^#\([0-9][0-9]*\).*/\1/p' "$1" | tail -n 1)
	echo "${n:-0}"
}

log_cov() {
	local c

	c=$(sed -n 's/^#[0-9].* cov: \([0-9]*\).*/\1/p' "$1" | tail -n 1)
	echo "${c:-0}"
}

# Extra ASAN_OPTIONS of a target. tracedrops hands whole files to
# libtracecmd, which sizes allocations from their headers: over 256 MB it
# gets NULL (it would get untouched memory without ASan); and an
# allocation's stack is malloc and its caller alone, for lsan.supp.
asan_options() {
	case $1 in
	tracedrops) echo "malloc_context_size=2:max_allocation_size_mb=256:allocator_may_return_null=1" ;;
	esac
}

# The frames of the first stack of a sanitizer report, without the
# sanitizers' own, libFuzzer's and libc's.
stack_frames() {
	grep -E '^ +#[0-9]+ 0x[0-9a-f]+ ' "$1" |
		awk '/^ +#0 / && seen++ { exit } { print }' |
		grep -v -E ' in (fuzzer::|__sanitizer|__asan|__ubsan|__interceptor_|__libc_start|_start )' |
		grep -v -E '/fuzz_[a-z]+\+0x|libc\.so|libstdc\+\+'
}

# Whose crash it is: "netlab", or "library" for one inside libtracecmd or
# libtraceevent reading a file netlab only named (tracefile_open()) or
# iterating its records (tracefile_iterate()). netlab report runs those in
# a child with rlimits (cmd-report.c), so the user gets "decoding it failed";
# a crash under any other netlab call into the libraries is netlab's.
crash_owner() {
	local frames first caller

	frames=$(stack_frames "$1")
	first=$(printf '%s\n' "$frames" | head -n 1)
	caller=$(printf '%s\n' "$frames" | grep -m1 -E '(harness/[^ /]+|traffic|tests/fuzz)/[^ /]+\.c:')
	if [[ $first =~ lib(tracecmd|traceevent)\.so ]] &&
	   [[ $caller =~ \ in\ (tracefile_open|tracefile_iterate)\  ]]; then
		echo library
	else
		echo netlab
	fi
}

# Fuzz one target for $seconds (--smoke: for its smoke_runs), restarting
# after a crash while time (runs) is left. Prints its TAP line; returns 1
# when netlab's code crashed.
fuzz_one() {
	local t=$1
	local bin=$FB/fuzz_$t log=$FB/logs/$t.log
	local crashes=0 lib=0 runs=0 cov=0 left=$seconds start seeds dict=() art part owner
	local corpus=$FB/corpus/$t limit=() total
	local -a found=() seen=()
	local -A lib_first=() lib_count=()
	local top sum

	mkdir -p "$FB/crashes/$t" "$FB/logs"
	seeds=$(seed_dirs "$t") || { echo "not ok - fuzz $t: cannot gather its seeds"; return 1; }
	[ -f "tests/fuzz/dict/$t.dict" ] && dict=(-dict="tests/fuzz/dict/$t.dict")
	: >"$log"
	# The targets' input files (fuzz-util.c): a crash leaves them behind.
	rm -rf "$FB/tmp/$t" && mkdir -p "$FB/tmp/$t" || return 1
	if [ $smoke = 1 ]; then
		# The same runs every time: the shipped seeds, an empty corpus of
		# its own (a restart after a crash goes on from it), seed 1.
		corpus=$FB/tmp/$t/corpus
		left=$(smoke_runs "$t")
	fi
	total=$left
	mkdir -p "$corpus" || return 1
	start=$SECONDS
	while [ "$left" -gt 0 ] && [ $crashes -lt $MAX_CRASHES ] && [ $lib -lt $MAX_LIB_CRASHES ]; do
		part=$(mktemp "$FB/logs/$t.XXXXXX")
		if [ $smoke = 1 ]; then
			# -reload=0: no rereading of the corpus each second.
			limit=(-seed=1 -runs="$left" -reload=0)
		else
			limit=(-max_total_time="$left")
		fi
		# libFuzzer can hang reporting an out-of-memory: give it a minute
		# (--smoke: a guard only, its runs take seconds).
		TMPDIR=$PWD/$FB/tmp/$t ASAN_OPTIONS=$(asan_options "$t") \
			timeout -k 10 $([ $smoke = 1 ] && echo 600 || echo $((left + 60))) \
			"${norand[@]}" "$bin" "$corpus" "$seeds" "${dict[@]}" "${limit[@]}" \
			-max_len="$(max_len "$t")" -timeout=10 \
			-rss_limit_mb=1024 -artifact_prefix="$FB/crashes/$t/" -print_final_stats=1 \
			>"$part" 2>&1
		cat "$part" >>"$log"
		runs=$((runs + $(log_runs "$part")))
		[ "$(log_cov "$part")" -gt "$cov" ] && cov=$(log_cov "$part")
		art=$(sed -n 's/^artifact_prefix=.*Test unit written to \(.*\)/\1/p' "$part" | tail -n 1)
		if [ -n "$art" ]; then
			# The same input again: it is in the corpus, restarting cannot help.
			if [ ${#seen[@]} -gt 0 ] && printf '%s\n' "${seen[@]}" | grep -q -x -F "$art"; then
				rm -f "$part"
				break
			fi
			seen+=("$art")
			owner=$(crash_owner "$part")
			top=$(stack_frames "$part" | head -n 1 |
				sed 's/^ *#[0-9]* 0x[0-9a-f]* \(in \)\{0,1\}//; s/ (BuildId: [0-9a-f]*)//')
			if [ "$owner" = netlab ]; then
				crashes=$((crashes + 1))
				sum=$(grep -m1 '^SUMMARY:' "$part" | sed 's/ (BuildId: [0-9a-f]*)//')
				found+=("$art: ${sum:-no SUMMARY line}")
				found+=("  top: ${top:-?}")
			else
				# The libraries' crashes, once per place: keep the first input.
				lib=$((lib + 1))
				if [ -n "${lib_first[$top]:-}" ]; then
					rm -f "$art"
				else
					lib_first[$top]=$art
				fi
				lib_count[$top]=$((${lib_count[$top]:-0} + 1))
			fi
		elif ! grep -q '^Done [0-9]* runs' "$part"; then
			rm -f "$part"
			echo "not ok - fuzz $t: libFuzzer stopped without a result (see $log)"
			return 1
		fi
		rm -f "$part"
		if [ $smoke = 1 ]; then
			left=$((total - runs))
		else
			left=$((total - (SECONDS - start)))
		fi
	done
	rm -rf "$FB/tmp/$t"
	local line

	line="$runs runs, $crashes crash$([ $crashes = 1 ] || echo es)"

	[ $lib = 0 ] || line+=", $lib in libtracecmd/libtraceevent"
	if [ $crashes = 0 ]; then
		echo "ok - fuzz $t: $line (cov: $cov)"
	else
		echo "not ok - fuzz $t: $line (cov: $cov)"
	fi
	for f in "${found[@]}"; do
		echo "#   $f"
	done
	for top in "${!lib_first[@]}"; do
		echo "#   in a trace library (contained by netlab report): ${lib_count[$top]}x $top, e.g. ${lib_first[$top]}"
	done
	[ $crashes = 0 ] && [ $lib = 0 ] || echo "#   replay: $bin FILE; log: $log"
	[ $crashes = 0 ]
}

cc=$(find_cc) || skip "no clang with libFuzzer and ASan/UBSan runtimes"
for t in "${targets[@]}"; do
	max_len "$t" >/dev/null || { echo "fuzz: unknown target '$t' (targets: $ALL)" >&2; exit 2; }
done
mkdir -p "$FB/logs"
bins=("${targets[@]/#/$FB/fuzz_}")
if ! make --no-print-directory -s FUZZ_CC="$cc" FUZZ_B="$FB" "${bins[@]}" >"$FB/logs/build.log" 2>&1; then
	echo "not ok - fuzz: the build failed"
	sed 's/^/#   /' "$FB/logs/build.log" | tail -n 20
	echo "fuzz: 0 passed, ${#targets[@]} failed"
	totals 0 "${#targets[@]}" 0
	exit 1
fi

# Stacks need llvm-symbolizer by that name (crash_owner reads file:line);
# llvm-14 installs it in its own directory only.
if ! command -v llvm-symbolizer >/dev/null; then
	for d in /usr/lib/llvm-*/bin; do
		[ -x "$d/llvm-symbolizer" ] && PATH=$PATH:$d && break
	done
fi
export UBSAN_OPTIONS=print_stacktrace=1
export LSAN_OPTIONS=suppressions=$PWD/tests/fuzz/lsan.supp:print_suppressions=0
# --smoke: without address-space randomization, as libFuzzer's comparison
# tracing puts pointer values into its mutation dictionary: with it, two runs
# with the same seed part after some 40,000 runs (check).
norand=()
if [ $smoke = 1 ]; then
	if setarch -R true 2>/dev/null; then
		norand=(setarch -R)
	else
		echo "# fuzz: setarch -R fails here: runs with randomized addresses, not quite the same each time"
	fi
fi
pass=0 fail=0
for t in "${targets[@]}"; do
	if fuzz_one "$t"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
	fi
done
echo "fuzz: $pass passed, $fail failed"
totals $pass $fail 0
[ $fail = 0 ]
