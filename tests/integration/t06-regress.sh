#!/usr/bin/env bash
# netlab regress: the shipped suite passes; a broken setting fails the right
# check with exit 1 and names the layer; bad scenarios exit 2.
. "$(dirname "$0")/../lib.sh"
need_guest
S=$TOP/tests/integration/scenarios

# The shipped suite is 133 cases, 72 of them the paths-* matrices (four NIC
# models): about 12 minutes of a 2-core machine, the largest part of the CI
# budget. The default
# run takes every scenario that is not a matrix, and of each matrix a sample
# where every NIC model meets every direction and every value of every other
# axis appears (paths-udp's 4 sizes, paths-rr's 2 protocols; jumbo frames
# once per model): 31 cases, and one IPv6 case (the matrices' family=6
# cells: make regress).
# paths-rr takes one direction per model: every transaction crosses B's NIC
# both ways (request in, response out, or the reverse), so the direction
# only swaps client and server.
# The concurrency files (many flows, CPUs, queues) add one case per NIC
# model of their matrix and one case of each other file but the TCP one
# (baseline-relative): 8 more.
# NETLAB_SLOW_TESTS=1 runs them all, as make regress does.
suite_cases() {
	"$NETLAB" regress --list | awk '$1 !~ /\[/ { print $1 }'
	local n d i=0 j=0 sizes=(32 1472 3000 32..1472) protos=(tcp udp)
	# every model of the matrices (guest/nicmodel.c), in their order
	for n in $("$NETLAB" regress --list "paths-udp[*" | sed -n "s/^paths-udp\[nic\.B=\([^,]*\),.*/\1/p" | uniq); do
		for d in 'A>B' 'B>A'; do
			echo "paths-udp[nic.B=$n,direction=$d,size=${sizes[$((i % 4))]}]"
			# e1000 A>B tcp, e1000e B>A udp, virtio-net A>B tcp
			[ $((i % 2)) = $((i / 2 % 2)) ] &&
				echo "paths-rr[nic.B=$n,direction=$d,proto=${protos[$((i / 2 % 2))]}]"
			i=$((i + 1))
		done
		# the bulk matrices: each NIC model in both directions; jumbo frames
		# once per model, UDP and TCP and both directions met over the models
		if [ $n = e1000e ]; then d='B>A'; else d='A>B'; fi
		echo "paths-tcp[nic.B=$n,direction=$d]"
		if [ $((j / 2)) = 0 ]; then d='A>B'; else d='B>A'; fi
		if [ $((j % 2)) = 0 ]; then echo "paths-jumbo[nic.B=$n,direction=$d]"; else echo "paths-jumbo-tcp[nic.B=$n,direction=$d]"; fi
		j=$((j + 1))
	done
	# IPv6 (family=6): fragmented UDP, reassembled; t15 runs a tcp-stream and an rr case
	echo "paths-udp[nic.B=igb,direction=B>A,size=3000,family=6]"
	# the concurrency matrix: each model once, every value of cpus, rps.B and
	# flows met; then the other concurrency files' most telling case each
	# (not concurrency-tcp: its fairness and goodput against the baseline
	# vary with the host's load; make regress runs it)
	local c=("cpus=2,rps.B=3,flows=8" "cpus=2,rps.B=0,flows=1" "cpus=1,rps.B=3,flows=1" "cpus=1,rps.B=0,flows=8")
	i=0
	for n in $("$NETLAB" regress --list "concurrency[*" | sed -n "s/^concurrency\[nic\.B=\([^,]*\),.*/\1/p" | uniq); do
		echo "concurrency[nic.B=$n,${c[$((i % 4))]}]"
		i=$((i + 1))
	done
	echo "concurrency-backlog[nic.B=e1000e]"
	echo "concurrency-mq[size=200..1472]"
	echo "concurrency-connected[cpus=2]"
	echo "concurrency-reuseport[cpus=1]"
}

test_expect_success 'the shipped suite passes (as make regress runs it; NETLAB_SLOW_TESTS=1: every case)' '
	cases=()
	if [ "${NETLAB_SLOW_TESTS:-}" != 1 ]; then
		mapfile -t cases < <(suite_cases)
		printf "# case: %s\n" "${cases[@]}"
		# the sample is valid: each name is one case of --list
		for c in "${cases[@]}"; do "$NETLAB" regress --list "$c" | grep -qF "$c " || { echo "no case $c"; false; }; done
	fi
	rc=0; "$NETLAB" regress --out "$T_TMP/suite" "${cases[@]}" >"$T_TMP/suite.out" 2>"$T_TMP/suite.err" || rc=$?
	cat "$T_TMP/suite.out"
	# Last, so that a shortened log keeps them: the checks that did not pass.
	grep -v " pass$" "$T_TMP/suite.out" | grep -v "^\[" || true
	test $rc = 0
	grep -q "scenarios passed" "$T_TMP/suite.out"
	test "$(json_get "$T_TMP/suite/summary.json" exit_code)" = 0
	test -s "$T_TMP/suite/junit.xml"
	! grep -q "<failure" "$T_TMP/suite/junit.xml"
'

test_expect_success 'netem loss on A: no_loss fails, exit 1, the loss is placed before the wire' '
	rc=0; "$NETLAB" regress --ktap --out "$T_TMP/netem" "$S/udp-netem-loss.scn" \
		>"$T_TMP/netem.ktap" 2>"$T_TMP/netem.err" || rc=$?
	cat "$T_TMP/netem.err"
	test $rc = 1
	grep -q "^KTAP version 1" "$T_TMP/netem.ktap"
	grep -q "^    not ok 1 no_loss" "$T_TMP/netem.ktap"
	grep -q "^    ok 2 before_wire" "$T_TMP/netem.ktap"
	grep -q "^    ok 3 none_on_wire" "$T_TMP/netem.ktap"
	grep -q "^not ok 1 udp-netem-loss" "$T_TMP/netem.ktap"
	grep -q "in the sender.s stack (before the wire" "$T_TMP/netem.err"
	! grep -q "between the NICs (on the wire)" "$T_TMP/netem.err"
	grep -q "<failure message=\"udp.lost == 0" "$T_TMP/netem/junit.xml"
	test "$(json_get "$T_TMP/netem/summary.json" scenarios.0.outcome)" = fail
'

test_expect_success 'a flow the path stops is a failed check (exit 1, never 125), with its metrics and reason' '
	rc=0; "$NETLAB" regress --ktap --out "$T_TMP/hole" "$S/tcp-blackhole.scn" \
		>"$T_TMP/hole.ktap" 2>"$T_TMP/hole.err" || rc=$?
	cat "$T_TMP/hole.err"
	test $rc = 1
	grep -Eq "^tcp-blackhole +no_stall +tcp.stalled +1 +== 0 +fail" "$T_TMP/hole.err"
	# measured, not missing: the receiver got nothing
	grep -Eq "^tcp-blackhole +goodput +tcp.goodput_bps +0 " "$T_TMP/hole.err"
	grep -Eq "^  fail: (unreachable|stalled): .*\(tcp-stream send, connecting\)" "$T_TMP/hole.err"
	grep -q "^    not ok 2 no_stall" "$T_TMP/hole.ktap"
	test "$(json_get "$T_TMP/hole/summary.json" scenarios.0.outcome)" = fail
	python3 -c "import json,sys; sys.exit(json.load(open(sys.argv[1]))[\"tcp.stalled\"] != 1)" \
		"$T_TMP/hole/tcp-blackhole/run-1/metrics.json"
	# the sender said how it ended, and its exit status was the path.s (3)
	grep -qx "note traffic.status 3 3" "$T_TMP/hole/tcp-blackhole/run-1/status"
	python3 -c "import json,sys; f=json.load(open(sys.argv[1]))[\"failure\"]; sys.exit(f[\"phase\"] != \"connect\" or f[\"kind\"] not in (\"unreachable\", \"stalled\"))" \
		"$T_TMP/hole/tcp-blackhole/run-1/files/send.json"
'

test_expect_success 'netem reordering on A: in_order fails, exit 1; no NIC or driver lost a frame' '
	rc=0; "$NETLAB" regress --out "$T_TMP/reorder" "$S/tcp-netem-reorder.scn" \
		>"$T_TMP/reorder.out" 2>&1 || rc=$?
	cat "$T_TMP/reorder.out"
	test $rc = 1
	grep -q "in_order .* fail" "$T_TMP/reorder.out"
	grep -q "no_driver_loss .* pass" "$T_TMP/reorder.out"
'

test_expect_success 'a ring size the driver refuses: bad-scenario, exit 2, naming the key' '
	rc=0; "$NETLAB" regress --out "$T_TMP/ring" "$S/ring-refused.scn" >"$T_TMP/ring.out" 2>&1 || rc=$?
	cat "$T_TMP/ring.out"
	test $rc = 2
	grep -q "bad-scenario: .*ring.A.rx = 8" "$T_TMP/ring.out"
'

test_expect_success 'a [sysctl] the kernel lacks: bad-scenario, exit 2, naming FILE:LINE and the key' '
	rc=0; "$NETLAB" regress --out "$T_TMP/sysctl" "$S/sysctl-unknown.scn" >"$T_TMP/sysctl.out" 2>&1 || rc=$?
	cat "$T_TMP/sysctl.out"
	test $rc = 2
	grep -q "bad-scenario: .*sysctl-unknown.scn:9: \[sysctl\] net.ipv4.netlab_no_such_sysctl: the guest.s kernel has no sysctl .net.ipv4.netlab_no_such_sysctl." "$T_TMP/sysctl.out"
	rc=0; "$NETLAB" run --topology none --sysctl net.ipv4.netlab_no_such_sysctl=1 --exec true \
		--out "$T_TMP/sysctl-run" 2>"$T_TMP/sysctl-run.err" || rc=$?
	cat "$T_TMP/sysctl-run.err"
	test $rc = 2
	grep -q "bad-input: .*no sysctl .net.ipv4.netlab_no_such_sysctl." "$T_TMP/sysctl-run.err"
'

test_expect_success 'a check with bad syntax: FILE:LINE, exit 2, nothing runs' '
	rc=0; "$NETLAB" regress --out "$T_TMP/bad" "$S/bad-check.scn" 2>"$T_TMP/bad.err" || rc=$?
	cat "$T_TMP/bad.err"
	test $rc = 2
	grep -q "bad-check.scn:9:" "$T_TMP/bad.err"
	test ! -e "$T_TMP/bad/bad-check"
'

test_expect_success 'unknown scenario name: exit 2 with a hint' '
	rc=0; "$NETLAB" regress --out "$T_TMP/none" no-such-scenario 2>"$T_TMP/none.err" || rc=$?
	test $rc = 2
	grep -q "no scenario .no-such-scenario." "$T_TMP/none.err"
	grep -q "hint:" "$T_TMP/none.err"
'

test_expect_success '--list shows every shipped scenario (a matrix as its cases)' '
	"$NETLAB" regress --list >"$T_TMP/list"
	for f in "$TOP"/tests/regress/*.scn; do
		n=$(basename "$f" .scn)
		if grep -q "^\[matrix\]" "$f"; then
			grep -q "^$n\[[^]]*\] " "$T_TMP/list"
		else
			grep -q "^$n " "$T_TMP/list"
		fi
	done
'

test_done
