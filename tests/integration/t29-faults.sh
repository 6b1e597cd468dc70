#!/usr/bin/env bash
# Faults of the host side that need no guest: a --dir that is not one, a
# suite interrupted before some scenarios started, two commands on one
# --out, files too large to be netlab's, a pcap filter too long to compile
# in bounded time. A stand-in QEMU (a script that sleeps) holds a suite
# open where one is needed: nothing here boots.
. "$(dirname "$0")/../lib.sh"
[ -x "$NETLAB" ] || skip_all "build/netlab missing (run make)"
[ -r "$KERNEL" ] || skip_all "no kernel at $KERNEL (run make kernel)"
[ -r "$INITRD" ] || skip_all "no initramfs at $INITRD (run make guest)"

SCN=$TOP/tests/regress

# A QEMU that answers --version and otherwise waits to be stopped.
fakeq=$T_TMP/fake-qemu
cat >"$fakeq" <<'EOF'
#!/bin/sh
case "$*" in *-version*) echo "QEMU emulator version 8.2.2"; exit 0;; esac
[ -z "${FAKEQ_MARK:-}" ] || : >"$FAKEQ_MARK"
# FAKEQ_FILL: fill the disk as it is stopped, as a guest's files would.
[ -z "${FAKEQ_FILL:-}" ] || trap 'head -c 4G /dev/zero >"$FAKEQ_FILL" 2>/dev/null; exit 0' TERM
sleep 300 &
wait
EOF
chmod +x "$fakeq"

# start_suite OUT SCENARIO...: a suite in the background ($pid, -j 1), until
# its first run's stand-in QEMU is up (and the suite holds OUT's lock);
# its output in $T_TMP/BASENAME.out and .err.
start_suite() {
	local out=$1
	shift
	local log=$T_TMP/$(basename "$out")
	FAKEQ_MARK=$log.up "$NETLAB" regress -j 1 --accel tcg --qemu "$fakeq" --out "$out" "$@" \
		>"$log.out" 2>"$log.err" &
	pid=$!
	for _ in $(seq 1 600); do
		test -e "$log.up" && return 0
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	echo "the first run never started"; cat "$log.err"; return 1
}

for what in missing file empty; do
	test_expect_success "regress --dir that is $what, no scenario named: exit 2 naming it, nothing run" '
		cd "$T_TMP" && mkdir -p cwd-'"$what"' && cd cwd-'"$what"'
		# What the old glob of * in the current directory would have run.
		cp "$SCN/udp-clean.scn" .
		case '"$what"' in
		missing) d=$T_TMP/no-such-dir ;;
		file) d=$T_TMP/a-file; : >"$d" ;;
		empty) d=$T_TMP/empty-dir; mkdir -p "$d" ;;
		esac
		rc=0; "$NETLAB" regress --out "$T_TMP/o-'"$what"'" --dir "$d" >out 2>err || rc=$?
		cat err
		test $rc = 2
		grep -q -- "--dir '"'"'$d'"'"'" err
		test ! -e "$T_TMP/o-'"$what"'"
		rc=0; "$NETLAB" regress --list --dir "$d" >out 2>err || rc=$?
		test $rc = 2
		! grep -q udp-clean out
	'
done

test_expect_success 'SIGINT to a suite: the scenarios never started are not-run (summary, JUnit, KTAP, table), 130' '
	s=$T_TMP/int
	start_suite "$s" "$SCN/udp-clean.scn" "$SCN/tcp-stream.scn"
	kill -INT $pid
	rc=0; wait $pid || rc=$?
	cat "$s.out" "$s.err" | tail -n 6
	test $rc = 130
	test "$(json_get "$s/summary.json" exit_code)" = 130
	test "$(json_get "$s/summary.json" scenarios.0.outcome)" = interrupted
	test "$(json_get "$s/summary.json" scenarios.1.outcome)" = not-run
	test "$(json_get "$s/summary.json" scenarios.1.reason)" = "not run: interrupted"
	test "$(json_get "$s/summary.json" scenarios.1.runs.0.verdict)" = not-run
	test "$(json_get "$s/summary.json" scenarios.1.checks.0.status)" = not-run
	! grep -q "ok: " "$s/summary.json"
	grep -q "^ok 2 tcp-stream # SKIP not run: interrupted$" "$s/results.ktap"
	grep -q "^    ok 1 goodput # SKIP not run: interrupted$" "$s/results.ktap"
	python3 - "$s/junit.xml" <<-EOF
	import sys, xml.etree.ElementTree as ET
	suites = ET.parse(sys.argv[1]).getroot()
	tcp = [t for t in suites if t.get("name") == "tcp-stream"][0]
	sk = [c.find("skipped") for c in tcp.findall("testcase")]
	assert sk and all(x is not None and x.get("message") == "not run: interrupted" for x in sk), sk
	EOF
	grep -q "^tcp-stream .* not-run$" "$s.out"
	grep -q "^  not run: interrupted$" "$s.out"
	test ! -e "$s/tcp-stream/run-1/result.json"
	no_process_with "$s/"
'

test_expect_success 'two suites on one --out: the second exits 2 at once naming the dir and the holder, the first is untouched' '
	s=$T_TMP/two
	start_suite "$s" "$SCN/udp-clean.scn"
	rc=0
	"$NETLAB" regress --accel tcg --qemu "$fakeq" --out "$s" "$SCN/tcp-stream.scn" \
		>"$T_TMP/two-2.out" 2>"$T_TMP/two-2.err" || rc=$?
	cat "$T_TMP/two-2.err"
	test $rc = 2
	grep -q "'"'"'$s'"'"' is in use by another netlab command (pid $pid)" "$T_TMP/two-2.err"
	test ! -e "$s/tcp-stream"
	# netlab run and netlab selftests on it, and a run on a run directory in use.
	rc=0; "$NETLAB" run --accel tcg --out "$s" --exec true 2>"$T_TMP/two-3.err" || rc=$?
	cat "$T_TMP/two-3.err"
	test $rc = 2
	grep -q "is in use by another netlab command (pid $pid)" "$T_TMP/two-3.err"
	run=$(ls -d "$s"/udp-clean/run-1)
	rc=0; "$NETLAB" run --accel tcg --out "$run" --exec true 2>"$T_TMP/two-4.err" || rc=$?
	cat "$T_TMP/two-4.err"
	test $rc = 2
	grep -q "in use by another netlab command" "$T_TMP/two-4.err"
	kill -INT $pid
	rc=0; wait $pid || rc=$?
	test $rc = 130
	test "$(json_get "$s/summary.json" scenarios.0.name)" = udp-clean
	test "$(json_get "$s/summary.json" counts.total)" = 6
	no_process_with "$s/"
'

# Memory, not time: a file read whole would take its size in RSS.
big_rss_ok() {
	local kb
	kb=$(sed -n "s/^maxrss=//p" "$1")
	echo "maximum resident set size: $kb KB"
	[ -n "$kb" ] && [ "$kb" -lt 204800 ]
}

if ! [ -x /usr/bin/time ]; then
	test_skip 'large files and long filters: memory bounded' "no /usr/bin/time (apt-get install time)"
else
test_expect_success 'a 1 GB result.json, summary.json or bisect.json: exit 2 naming the file and the limit, memory bounded' '
	b=$T_TMP/big
	mkdir -p "$b/run" "$b/suite" "$b/bisect"
	truncate -s 1G "$b/run/result.json" "$b/suite/summary.json" "$b/bisect/bisect.json"
	for c in "report $b/run" "report --json $b/run" "report --html $b/suite" \
		 "bisect --resume $b/bisect" "report --html $b/bisect"; do
		echo "netlab $c"
		rc=0; /usr/bin/time -f "maxrss=%M" -o "$T_TMP/rss" $NETLAB $c >/dev/null 2>"$T_TMP/big.err" || rc=$?
		head -n 1 "$T_TMP/big.err"
		test $rc = 2
		grep -q "1073741824 bytes, more than the 64 MiB a netlab JSON file holds" "$T_TMP/big.err"
		big_rss_ok "$T_TMP/rss"
	done
'

test_expect_success 'a pcap filter longer than 1024 bytes: exit 2 naming the limit, before it compiles' '
	p=$TOP/tests/unit/fixtures/runs/udp-path/nic-A.pcap
	f=$(python3 -c "print(\" or \".join(\"port %d\" % i for i in range(3000)))")
	for mode in "" --csum; do
		rc=0; /usr/bin/time -f "maxrss=%M" -o "$T_TMP/rss" $NETLAB pcap $mode "$p" "$f" \
			>/dev/null 2>"$T_TMP/f.err" || rc=$?
		head -c 300 "$T_TMP/f.err"
		test $rc = 2
		grep -q "bytes, more than the 1024 a netlab pcap filter holds" "$T_TMP/f.err"
		big_rss_ok "$T_TMP/rss"
	done
	# The longest filter taken still compiles (and counts).
	f=$(python3 -c "print(\" or \".join(\"port %d\" % i for i in range(90)))")
	test ${#f} -le 1024
	"$NETLAB" pcap "$p" "$f" | grep -q "^matched "
'
fi

# A small file system of our own (root: mount).
mnt=$T_TMP/small
mkdir -p "$mnt"
need=$(( $(stat -c %s "$INITRD") / 1048576 + 104 ))
if ! mount -t tmpfs -o size=${need}m netlab-t29 "$mnt" 2>/dev/null; then
	test_skip 'a full disk after the guest' "cannot mount a tmpfs here (not root?)"
	test_done
	exit
fi
trap 'umount -l "$mnt" 2>/dev/null; t_cleanup' EXIT

test_expect_success 'the disk fills as the guest ends: the run'"'"'s result.json and the suite'"'"'s summary, JUnit and KTAP are written' '
	s=$mnt/suite
	FAKEQ_FILL=$mnt/filler start_suite "$s" "$SCN/udp-clean.scn"
	kill -INT $pid
	rc=0; wait $pid || rc=$?
	cat "$T_TMP/suite.err" | tail -n 4
	df -k "$mnt" | tail -n 1
	test -s "$mnt/filler"
	test $rc = 130
	test "$(json_get "$s/udp-clean/run-1/result.json" verdict)" = interrupted
	test ! -e "$s/udp-clean/run-1/.result-reserve"
	test "$(json_get "$s/summary.json" scenarios.0.outcome)" = interrupted
	grep -q "^ok 1 udp-clean # SKIP interrupted" "$s/results.ktap"
	grep -q "<testsuites" "$s/junit.xml"
	! grep -q "cannot read" "$T_TMP/suite.err"
	no_process_with "$s/"
	rm -f "$mnt/filler"
'

test_done
