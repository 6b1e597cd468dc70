#!/usr/bin/env bash
# netlab selftests: the kernel's own selftests, built from the tree the
# kernel was built from (harness/ksft-build.sh), each test run by
# kselftest's runner in a guest of its own through the regress engine, and
# the results folded into the suite outputs: the table, results.ktap (read
# by the tree's kunit.py), summary.json, junit.xml, report.html. A test
# that did not build and one that skipped are SKIP with their reason; each
# test's run directory has its pcaps and drops. Bad input exits 2 before
# anything boots; ^C leaves no QEMU. With NETLAB_SLOW_TESTS=1, the whole net target.
. "$(dirname "$0")/../lib.sh"
need_guest
[ -r "$TOP/build/ksft-tools.cpio.gz" ] || skip_all "no build/ksft-tools.cpio.gz (run make guest)"
KSRC=$(ls -d "${NETLAB_CACHE:-$HOME/.cache/netlab}"/src/debian-linux-source-6.1-* 2>/dev/null | tail -1)
[ -n "$KSRC" ] && [ -d "$KSRC/tools/testing/selftests" ] ||
	skip_all "no Debian linux-source-6.1 tree in netlab's cache (make kernel extracts it)"
KUNIT=$KSRC/tools/testing/kunit/kunit.py

qemu_left() { pgrep -f "qemu-system.*$T_TMP" || true; }

test_expect_success 'ksft-build.sh: usage and an unknown target exit 2 with a hint' '
	rc=0; "$TOP/harness/ksft-build.sh" "$KSRC" 2>"$T_TMP/u.err" || rc=$?
	test $rc = 2; grep -q "^hint: usage:" "$T_TMP/u.err"
	rc=0; "$TOP/harness/ksft-build.sh" "$KSRC" "$T_TMP/b" no-such-target 2>"$T_TMP/t.err" || rc=$?
	cat "$T_TMP/t.err"; test $rc = 2
	grep -q "unknown selftest target .no-such-target." "$T_TMP/t.err"
	grep -q "^hint: targets with a Makefile there: net " "$T_TMP/t.err"
	rc=0; "$TOP/harness/ksft-build.sh" "$T_TMP" "$T_TMP/b" net 2>"$T_TMP/k.err" || rc=$?
	test $rc = 2; grep -q "is not a kernel tree" "$T_TMP/k.err"
'

test_expect_success 'ksft-build.sh builds a small target, a second call takes the cache' '
	"$TOP/harness/ksft-build.sh" "$KSRC" "$T_TMP/bond" drivers/net >"$T_TMP/b1.out" 2>"$T_TMP/b1.err"
	cat "$T_TMP/b1.err"
	inst=$(tail -1 "$T_TMP/b1.out"); test "$inst" = "$T_TMP/bond/install"
	grep -q "^drivers/net/bonding:" "$inst/kselftest-list.txt"
	test -x "$inst/run_kselftest.sh"; test -x "$inst/netlab-ksft.sh"
	"$TOP/harness/ksft-build.sh" "$KSRC" "$T_TMP/bond" drivers/net >/dev/null 2>"$T_TMP/b2.err"
	grep -q "^\[selftests\] cached: " "$T_TMP/b2.err"
'

test_expect_success 'bad input exits 2 naming it, before any guest' '
	rc=0; "$NETLAB" selftests --ksrc "$KSRC" -o "$T_TMP/x1" net:no-such-test 2>"$T_TMP/x1.err" || rc=$?
	cat "$T_TMP/x1.err"; test $rc = 2
	grep -q "no selftest .net:no-such-test." "$T_TMP/x1.err"; grep -q "^hint:" "$T_TMP/x1.err"
	rc=0; "$NETLAB" selftests --ksrc "$T_TMP/nowhere" net 2>"$T_TMP/x2.err" || rc=$?
	test $rc = 2; grep -q "ksrc .*nowhere" "$T_TMP/x2.err"
	rc=0; "$NETLAB" selftests --ksrc "$KSRC" --timeout 0 net 2>"$T_TMP/x3.err" || rc=$?
	test $rc = 2
	test ! -e "$T_TMP/x1/scenarios"
	test -z "$(qemu_left)"
'

# Two fast tests that pass; drop_monitor_tests.sh, which finds ip and
# devlink (the tools cpio's) and then skips (exit 4) naming tshark, which
# the guest does not have; and tls, which does not compile in this tree.
TESTS="net:reuseport_dualstack net:reuseaddr_conflict net:drop_monitor_tests.sh net:tls"

test_expect_success 'netlab selftests: each test in its own guest, pass and skip, exit 0' '
	rc=0; "$NETLAB" selftests -j 2 --timeout 600 -o "$T_TMP/s" $TESTS >"$T_TMP/s.out" 2>"$T_TMP/s.err" || rc=$?
	cat "$T_TMP/s.out"; tail -5 "$T_TMP/s.err"
	test $rc = 0
	grep -Eq "^net:reuseport_dualstack +pass " "$T_TMP/s.out"
	grep -Eq "^net:reuseaddr_conflict +pass " "$T_TMP/s.out"
	grep -Eq "^net:tls +skip .*did not build: tls.c:[0-9]+:[0-9]+: error" "$T_TMP/s.out"
	grep -q "^selftests: 4: 2 passed, 0 failed, 2 skipped, 0 could not run" "$T_TMP/s.out"
	test -d "$T_TMP/s/net-reuseport_dualstack/run-1"
	test ! -e "$T_TMP/s/net-tls"
	# The default kernel has no modules image: the guest is the base
	# initramfs and the tools, as before.
	cat "$INITRD" "$TOP/build/ksft-tools.cpio.gz" | cmp - "$T_TMP/s/initrd-selftests.img"
	test -z "$(qemu_left)"
'

# A kernel with a modules image beside it (kbuild-flavour.sh's
# modules.cpio.gz, for a flavour built with modules): it goes after the
# tools, and the guest boots with it. (What modprobe does with it needs the
# full-net kernel: t33 with NETLAB_SLOW_TESTS=1.)
test_expect_success 'a kernel.s modules.cpio.gz is appended to the guest.s initrd' '
	mkdir -p "$T_TMP/k" "$T_TMP/mods/lib/modules/x/kernel"
	for f in "$(dirname "$KERNEL")"/*; do ln -s "$(readlink -f "$f")" "$T_TMP/k/"; done
	echo kernel/drivers/net/dummy.ko >"$T_TMP/mods/lib/modules/x/modules.builtin"
	(cd "$T_TMP/mods" && find . -mindepth 1 | cpio -o -H newc -R 0:0 --quiet) | gzip >"$T_TMP/k/modules.cpio.gz"
	rc=0; "$NETLAB" selftests --kernel "$T_TMP/k/bzImage" -o "$T_TMP/m" net:reuseport_dualstack \
		>"$T_TMP/m.out" 2>"$T_TMP/m.err" || rc=$?
	cat "$T_TMP/m.out"; tail -3 "$T_TMP/m.err"
	test $rc = 0
	grep -Eq "^net:reuseport_dualstack +pass " "$T_TMP/m.out"
	cat "$INITRD" "$TOP/build/ksft-tools.cpio.gz" "$T_TMP/k/modules.cpio.gz" | cmp - "$T_TMP/m/initrd-selftests.img"
'

test_expect_success 'a skipped test: SKIP with its reason line in the table and summary.json' '
	grep -Eq "^net:drop_monitor_tests.sh +skip .*SKIP: Could not run test without tshark tool" "$T_TMP/s.out"
	n=$(python3 -c "import json,sys
t=[x for x in json.load(open(sys.argv[1]))[\"selftests\"][\"tests\"] if x[\"name\"]==\"net:drop_monitor_tests.sh\"][0]
print(t[\"result\"], t[\"reason\"])" "$T_TMP/s/summary.json")
	echo "$n"; case $n in "skip "*"without tshark tool"*) ;; *) false ;; esac
'

test_expect_success 'summary.json counts the tests; junit.xml and report.html are there' '
	S=$T_TMP/s/summary.json
	test "$(json_get "$S" selftests.counts.total)" = 4
	test "$(json_get "$S" selftests.counts.passed)" = 2
	test "$(json_get "$S" selftests.counts.skipped)" = 2
	test "$(json_get "$S" selftests.counts.failed)" = 0
	test "$(json_get "$S" selftests.tests.3.built)" = false
	python3 -c "import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])" "$T_TMP/s/junit.xml"
	grep -q "net-reuseport_dualstack" "$T_TMP/s/report.html"
'

test_expect_success 'kunit.py parse reads results.ktap: the selftests, with their own TAP nested' '
	grep -q "^    # Subtest: net:reuseport_dualstack" "$T_TMP/s/results.ktap"
	grep -q "^    ok 1 selftests: net: reuseport_dualstack" "$T_TMP/s/results.ktap"
	grep -q "^ok 4 net:tls # SKIP did not build" "$T_TMP/s/results.ktap"
	k=0; python3 "$KUNIT" parse "$T_TMP/s/results.ktap" >"$T_TMP/kunit.out" 2>&1 || k=$?
	tail -3 "$T_TMP/kunit.out"
	grep -q "Testing complete. Ran [0-9]* tests: passed: [0-9]*, skipped: 2$" "$T_TMP/kunit.out"
	! grep -q "ERROR\|CRASHED" "$T_TMP/kunit.out"
'

test_expect_success 'a test.s run directory: its pcaps, trace, drops and the runner.s output' '
	r=$T_TMP/s/net-reuseport_dualstack/run-1
	test -s "$r/nic-A.pcap"; test -s "$r/nic-B.pcap"
	test -s "$r/files/trace.dat"
	python3 -c "import json,sys; m=json.load(open(sys.argv[1])); assert \"drops.total\" in m, m.keys()" "$r/metrics.json"
	grep -q "^ok 1 selftests: net: reuseport_dualstack" "$r/exec.out"
'

test_expect_success '^C: exit 130, the tests that were running could not run, no QEMU left' '
	"$NETLAB" selftests -j 2 -o "$T_TMP/int" net:reuseport_dualstack net:udpgso.sh \
		>"$T_TMP/int.out" 2>&1 &
	pid=$!
	for i in $(seq 100); do test -e "$T_TMP/int/net-udpgso.sh/run-1/console.log" && break; sleep 0.2; done
	sleep 3
	kill -INT $pid
	rc=0; wait $pid || rc=$?
	tail -4 "$T_TMP/int.out"
	test $rc = 130
	grep -q "^net:udpgso.sh  *infra-error .*interrupted" "$T_TMP/int.out"
	sleep 1; test -z "$(qemu_left)"
'

if [ "${NETLAB_SLOW_TESTS:-}" = 1 ]; then
	test_expect_success 'the whole net target (NETLAB_SLOW_TESTS=1)' '
		rc=0; "$NETLAB" selftests -j 2 --timeout 300 -o "$T_TMP/net" net >"$T_TMP/net.out" 2>&1 || rc=$?
		tail -40 "$T_TMP/net.out"
		test $rc = 0 -o $rc = 1
		test "$(json_get "$T_TMP/net/summary.json" selftests.counts.total)" -ge 80
		python3 "$KUNIT" parse "$T_TMP/net/results.ktap" | grep -q "Testing complete"
		test -z "$(qemu_left)"
	'
else
	test_skip 'the whole net target' "slow (80 guests); NETLAB_SLOW_TESTS=1 runs it"
fi

test_done
