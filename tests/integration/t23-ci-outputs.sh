#!/usr/bin/env bash
# netlab regress's CI outputs, read whole by the programs CI runs: the
# kernel's own KTAP parser (kunit.py parse) on results.ktap, an XML parser on
# junit.xml, and the counts of both against summary.json's; format_version
# and provenance in every JSON file; the "look:" lines under a failing
# scenario. Three quick scenarios: one passes, one fails (netem loss), one
# cannot boot in its 2 s timeout (an infrastructure error: skipped). The
# same three as a CI job matrix runs them: --shard 1/2 and 2/2, then
# --merge, give the one run's verdicts, counts, JUnit and KTAP.
. "$(dirname "$0")/../lib.sh"
need_guest
command -v jq >/dev/null || skip_all "jq missing (make deps)"
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

# ktap_shape FILE: its test lines, the variable part (values, timing) left out
ktap_shape() { grep -E "^ *(not )?ok |^ *1\.\.|^KTAP" "$1" | sed -E "s/ # .*//"; }
# junit_shape FILE: each testsuite's testcases and how each ended
junit_shape() {
	python3 - "$1" <<-\PY
	import sys, xml.etree.ElementTree as ET
	root = ET.parse(sys.argv[1]).getroot()
	print("suites", root.get("tests"), root.get("failures"), root.get("errors"), root.get("skipped"))
	for ts in root.findall("testsuite"):
	    for tc in ts.findall("testcase"):
	        end = [e.tag for e in tc if e.tag in ("failure", "error", "skipped")]
	        print(ts.get("name"), tc.get("name"), end[0] if end else "pass")
	PY
}

test_expect_success '--shard 1/2 + 2/2 + --merge: the one run.s verdicts, counts, JUnit and KTAP; bad merges exit 2' '
	set -- "$S/ci-pass.scn" "$S/udp-netem-loss.scn" "$S/ci-boot-timeout.scn"
	rc=0; "$NETLAB" regress -j 2 --shard 1/2 --out "$T_TMP/sh1" "$@" >"$T_TMP/sh1.out" 2>&1 || rc=$?
	cat "$T_TMP/sh1.out"; test $rc = 125
	rc=0; "$NETLAB" regress -j 2 --shard 2/2 --out "$T_TMP/sh2" "$@" >"$T_TMP/sh2.out" 2>&1 || rc=$?
	cat "$T_TMP/sh2.out"; test $rc = 1
	# round robin: cases 1 and 3, then case 2
	test "$(jq -c "[.scenarios[].name]" "$T_TMP/sh1/summary.json")" = "[\"ci-pass\",\"ci-boot-timeout\"]"
	test "$(jq -c .shard "$T_TMP/sh2/summary.json")" = "{\"index\":2,\"count\":2}"
	rc=0; "$NETLAB" regress --merge --out "$T_TMP/merged" "$T_TMP/sh2" "$T_TMP/sh1" >"$T_TMP/m.out" 2>&1 || rc=$?
	cat "$T_TMP/m.out"; test $rc = "$regress_rc"
	M=$T_TMP/merged
	test "$(jq -c "[.exit_code, .counts, [.scenarios[] | [.name, .outcome]]]" "$M/summary.json")" = \
		"$(jq -c "[.exit_code, .counts, [.scenarios[] | [.name, .outcome]]]" "$SUITE/summary.json")"
	test "$(jq -c .shard "$M/summary.json")" = null
	junit_shape "$SUITE/junit.xml" >"$T_TMP/j1"; junit_shape "$M/junit.xml" >"$T_TMP/j2"
	cat "$T_TMP/j2"; diff "$T_TMP/j1" "$T_TMP/j2"
	ktap_shape "$SUITE/results.ktap" >"$T_TMP/k1"; ktap_shape "$M/results.ktap" >"$T_TMP/k2"
	diff "$T_TMP/k1" "$T_TMP/k2"
	# the runs are in the merged directory, with their pages, and the suite page links them
	test -s "$M/udp-netem-loss/run-1/metrics.json"
	test -s "$M/udp-netem-loss/run-1/report.html"
	grep -q "udp-netem-loss/run-1/report.html" "$M/report.html"
	grep -q "^  look: netlab report $M/udp-netem-loss/run-1$" "$T_TMP/m.out"
	# bad merges: a slice twice, a directory with no summary, a bad --shard
	rc=0; "$NETLAB" regress --merge --out "$T_TMP/m2" "$T_TMP/sh1" "$T_TMP/sh1" 2>"$T_TMP/e1" || rc=$?
	cat "$T_TMP/e1"; test $rc = 2
	grep -q "case .ci-pass. is in both" "$T_TMP/e1"
	rc=0; "$NETLAB" regress --merge --out "$T_TMP/m3" "$T_TMP" 2>"$T_TMP/e2" || rc=$?
	cat "$T_TMP/e2"; test $rc = 2
	grep -q "$T_TMP/summary.json" "$T_TMP/e2"
	rc=0; "$NETLAB" regress --shard 3/2 --list 2>"$T_TMP/e3" || rc=$?
	test $rc = 2; grep -q "shard: bad value .3/2." "$T_TMP/e3"
'

test_expect_success '--shard N: every case of the shipped suite in exactly one slice' '
	"$NETLAB" regress --list | awk "{ print \$1 }" | sort >"$T_TMP/all"
	for i in 1 2 3; do "$NETLAB" regress --list --shard $i/3; done | awk "{ print \$1 }" | sort >"$T_TMP/sliced"
	test "$(wc -l <"$T_TMP/all")" -gt 100
	diff "$T_TMP/all" "$T_TMP/sliced"
	# ci/github-shards.yml: N slices in its matrix, --shard I/N in each, all N merged
	# (python3-yaml: Debian.s python3 has it when another python3 comes first)
	py=python3; python3 -c "import yaml" 2>/dev/null || py=/usr/bin/python3
	"$py" - "$TOP/ci/github-shards.yml" <<-\PY
	import sys, yaml
	w = yaml.safe_load(open(sys.argv[1]))
	shards = w["jobs"]["slice"]["strategy"]["matrix"]["shard"]
	n = len(shards)
	assert shards == list(range(1, n + 1)), shards
	run = " ".join(s.get("run", "") for s in w["jobs"]["slice"]["steps"])
	assert "--shard ${{ matrix.shard }}/%d " % n in run, run
	merge = " ".join(s.get("run", "") for s in w["jobs"]["merge"]["steps"])
	assert "--merge --out suite " + " ".join("slice-%d" % i for i in shards) in merge, merge
	PY
'

test_done
