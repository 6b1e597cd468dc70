#!/usr/bin/env bash
# netlab regress's CI outputs, read whole by the programs CI runs: the
# kernel's own KTAP parser (kunit.py parse) on results.ktap, an XML parser on
# junit.xml, and the counts of both against summary.json's; format_version
# and provenance in every JSON file; the "look:" lines under a failing
# scenario. Three quick scenarios: one passes, one fails (netem loss), one
# cannot boot in its 2 s timeout (an infrastructure error: skipped).
. "$(dirname "$0")/../lib.sh"
need_guest
S=$TOP/tests/integration/scenarios
SUITE=$T_TMP/suite
cache=${NETLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/netlab}
KUNIT=$(ls -d "$cache"/src/debian-linux-source-6.1-*/tools/testing/kunit/kunit.py 2>/dev/null | tail -1)

regress_rc=0
"$NETLAB" regress --ktap -j 2 --out "$SUITE" "$S/ci-pass.scn" "$S/udp-netem-loss.scn" \
	"$S/ci-boot-timeout.scn" >"$T_TMP/stdout.ktap" 2>"$T_TMP/table" || regress_rc=$?

# counts KEY: summary.json's counts.KEY
counts() { json_get "$SUITE/summary.json" "counts.$1"; }

test_expect_success 'the suite fails (exit 1) and writes results.ktap, junit.xml, summary.json' '
	cat "$T_TMP/table"
	test $regress_rc = 1
	test -s "$SUITE/results.ktap"
	test -s "$SUITE/junit.xml"
	test -s "$SUITE/summary.json"
	# --ktap prints what the file holds.
	cmp "$T_TMP/stdout.ktap" "$SUITE/results.ktap"
	test "$(counts total)" = 6
	test "$(counts passed)" = 4
	test "$(counts failed)" = 1
	test "$(counts errors)" = 0
	test "$(counts skipped)" = 1
	test "$(json_get "$SUITE/summary.json" scenarios.2.outcome)" = infra-error
'

if [ -z "$KUNIT" ]; then
	test_skip 'kunit.py parse reads results.ktap with the counts of summary.json' \
		"no kernel source under $cache/src (make kernel extracts it)"
else
	test_expect_success 'kunit.py parse reads results.ktap with the counts of summary.json' '
		k=0; python3 "$KUNIT" parse "$SUITE/results.ktap" >"$T_TMP/kunit.out" 2>&1 || k=$?
		cat "$T_TMP/kunit.out"
		test $k = 1		# it failed: a check failed
		line=$(grep "Testing complete" "$T_TMP/kunit.out")
		! echo "$line" | grep -q "errors:"
		! echo "$line" | grep -q "crashed:"
		echo "$line" | grep -q "Ran $(counts total) tests:"
		echo "$line" | grep -q "passed: $(counts passed)"
		echo "$line" | grep -q "failed: $(($(counts failed) + $(counts errors)))"
		echo "$line" | grep -q "skipped: $(counts skipped)"
		# The failing check carries the loss story; the infra error its reason.
		grep -q "# loss: sent .* -> sender stack" "$T_TMP/kunit.out"
		grep -q "\[FAILED\] no_loss" "$T_TMP/kunit.out"
		grep -q "^    ok 1 no_loss # SKIP infra-error: run 1: boot-failure" "$SUITE/results.ktap"
	'
fi

test_expect_success 'junit.xml parses, with the counts of summary.json and a time on every testcase' '
	python3 - "$SUITE/junit.xml" "$SUITE/summary.json" <<-\PY
	import json, sys, xml.etree.ElementTree as ET
	root = ET.parse(sys.argv[1]).getroot()
	c = json.load(open(sys.argv[2]))["counts"]
	assert root.tag == "testsuites", root.tag
	want = {"tests": c["total"], "failures": c["failed"], "errors": c["errors"], "skipped": c["skipped"]}
	for k, v in want.items():
	    assert int(root.get(k)) == v, (k, root.get(k), v)
	float(root.get("time"))
	sums = dict.fromkeys(want, 0)
	for ts in root.findall("testsuite"):
	    float(ts.get("time"))
	    cases = ts.findall("testcase")
	    assert int(ts.get("tests")) == len(cases)
	    for k in want:
	        sums[k] += int(ts.get(k))
	    for tc in cases:
	        float(tc.get("time"))
	    assert "/run-1" in ts.find("system-out").text
	assert sums == want, (sums, want)
	fail = [tc for tc in root.iter("testcase") if tc.find("failure") is not None]
	assert len(fail) == 1 and fail[0].get("name") == "no_loss"
	out = fail[0].find("system-out").text
	assert "loss: sent" in out and "udp-netem-loss/run-1" in out, out
	skip = [tc for tc in root.iter("testcase") if tc.find("skipped") is not None]
	assert "boot-failure" in skip[0].find("skipped").get("message")
	PY
'

test_expect_success 'format_version, netlab and the kernel cache identity in summary.json, result.json, report --json' '
	key=$(basename "$(readlink -f "$(dirname "$KERNEL")")")
	"$NETLAB" report --json "$SUITE/udp-netem-loss/run-1" >"$T_TMP/report.json"
	for f in "$SUITE/summary.json" "$SUITE/ci-pass/run-1/result.json" "$T_TMP/report.json"; do
		test "$(json_get "$f" format_version)" = 1
		json_get "$f" netlab.commit | grep -q .
		test "$(json_get "$f" netlab.version)" = "$("$NETLAB" --version | cut -d" " -f2)"
		json_get "$f" generated_at | grep -Eq "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$"
		json_get "$f" kernel.config_sha256 | grep -Eq "^[0-9a-f]{64}$"
		if [ -f "$(dirname "$(readlink -f "$KERNEL")")/source" ]; then
			test "$(json_get "$f" kernel.cache_key)" = "$key"
			json_get "$f" kernel.source | grep -q .
		fi
	done
'

test_expect_success 'under the failing scenario: the loss story, then where to look, then replay' '
	R=$SUITE/udp-netem-loss/run-1
	grep -A12 "^  loss: sent" "$T_TMP/table" >"$T_TMP/after"
	grep -qx "  look: netlab report $R" "$T_TMP/after"
	grep -qx "  look: netlab report --html $R" "$T_TMP/after"
	grep -qx "  look: kernelshark $R/files/trace.dat" "$T_TMP/after"
	grep -qx "  look: wireshark $R/nic-A.pcap" "$T_TMP/after"
	grep -qx "  look: wireshark $R/nic-B.pcap" "$T_TMP/after"
	grep -q "^  replay: " "$T_TMP/after"
	test "$(grep -c "^  look: " "$T_TMP/table")" -le 6
	# The page that command writes, regress wrote already.
	test -s "$R/report.html"
'

test_done
