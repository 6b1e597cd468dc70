#!/usr/bin/env bash
# Many flows, many CPUs, many queues. By default: a mixed scenario (TCP bulk
# and sixteen UDP flows at once) whose per-flow figures add up, exactly, to
# its totals, its counters and its captures; and the concurrency cases of
# the shipped suite pass on the unmodified kernel.
# With NETLAB_SLOW_TESTS=1 (three kernel builds the first time), the three
# planted regressions of tests/regress/bisect/make-history.sh that need
# several sockets (demux), a second CPU (backlog) or a second receive queue
# (mqrx): each bisected to its commit by netlab bisect --ksrc, each failing
# the shipped concurrency cases it touches (exit 1), the story naming the
# flow, the CPU or the queue, and the layer; and the IPv6-only one (v6only):
# fragmented IPv6 fails with the story naming B's IPv6 layer.
. "$(dirname "$0")/../lib.sh"
need_guest
command -v jq >/dev/null || skip_all "jq missing (make deps)"
S=$TOP/tests/regress
B=$S/bisect

# metric FILE NAME: one metric of a metrics.json.
metric() { jq -r --arg n "$2" '.metrics[$n] // .[$n] // empty' "$1"; }
# flow_sum FILE PREFIX WHAT: the sum of PREFIX.flow.K.WHAT over every K.
flow_sum() {
	jq -r --arg p "$2.flow." --arg w ".$3" '(.metrics // .) | to_entries
		| map(select((.key | startswith($p)) and (.key | endswith($w))
			and ((.key | ltrimstr($p) | rtrimstr($w)) | test("^[0-9]+$"))))
		| map(.value) | add // 0' "$1"
}

test_expect_success 'a 16-flow mixed scenario: per-flow figures add up to the totals, the counters and the captures' '
	rc=0; "$NETLAB" regress --out "$T_TMP/mixed" "$S/concurrency-mixed.scn" >"$T_TMP/mixed.out" 2>&1 || rc=$?
	cat "$T_TMP/mixed.out"
	test $rc = 0
	m=$(ls "$T_TMP"/mixed/concurrency-mixed/run-1/metrics.json)
	test "$(metric "$m" udp.flows)" = 16
	# the sender: its flows add up to what it sent
	test "$(flow_sum "$m" udp sent)" = "$(metric "$m" udp.sent)"
	# each wire: the captures, per flow and in total
	test "$(flow_sum "$m" udp wire_tx)" = "$(metric "$m" loss.wire_tx)"
	test "$(flow_sum "$m" udp wire_rx)" = "$(metric "$m" loss.wire_rx)"
	test "$(metric "$m" loss.wire_rx)" = "$(metric "$m" udp.sent)"
	# the receiver: what each flow got adds up to what it got
	test "$(flow_sum "$m" udp unique)" = "$(metric "$m" udp.unique)"
	test "$(flow_sum "$m" udp lost)" = "$(metric "$m" udp.lost)"
	# the counters: the identity holds with nothing left over
	test "$(metric "$m" loss.unaccounted)" = 0
	test "$(metric "$m" udp.flow_lost_max)" = 0
	# the sums over the sections: one UDP and one TCP section here
	test "$(metric "$m" traffic.all.udp.sent)" = "$(metric "$m" udp.sent)"
	test "$(metric "$m" traffic.all.tcp.bytes)" = "$(metric "$m" traffic.bulk.tcp.bytes)"
	# the TCP section ran beside it, every connection moved
	test "$(metric "$m" traffic.bulk.tcp.stalled)" = 0
	awk "BEGIN { exit !($(metric "$m" traffic.bulk.tcp.flow_goodput_min_bps) > 0) }"
'

test_expect_success 'its report and run page: every flow with its loss, latency and CPUs, by the generators and by the trace' '
	r=$T_TMP/mixed/concurrency-mixed/run-1
	m=$r/metrics.json
	"$NETLAB" report --flows --sort drops "$r" >"$T_TMP/flows.txt"
	cat "$T_TMP/flows.txt"
	# the generators: sixteen UDP flows of section dgram, four TCP of bulk; their LOST adds up
	test "$(grep -cE "^  dgram +udp +[0-9]+ " "$T_TMP/flows.txt")" = 16
	test "$(grep -cE "^  bulk +tcp +[0-9]+ " "$T_TMP/flows.txt")" = 4
	test "$(awk "/^  dgram +udp / { s += \$7 } END { print s + 0 }" "$T_TMP/flows.txt")" = "$(metric "$m" udp.lost)"
	test "$(awk "/^  dgram +udp / { s += \$5 } END { print s + 0 }" "$T_TMP/flows.txt")" = "$(metric "$m" udp.sent)"
	# every UDP row has its latency and the CPU it was received on
	test "$(grep -E "^  dgram +udp " "$T_TMP/flows.txt" | awk "\$10 ~ /^[0-9.]+\$/ && \$11 ~ /^[0-9.]+\$/ && \$17 ~ /^[0-9]+\$/" | wc -l)" = 16
	# the trace: sixteen UDP flows to the receiver port, each with CPUs and a receive p99
	test "$(grep -E "^  udp +198\.18\.0\.1:[0-9]+ +-> 198\.18\.0\.2:[0-9]+ " "$T_TMP/flows.txt" |
		awk "\$11 ~ /^[0-9,]+\$/ && \$17 ~ /^[0-9.]+\$/" | wc -l)" = 16
	# top N by latency: N rows, worst first
	"$NETLAB" report --flows --top 3 --sort latency "$r" >"$T_TMP/top.txt"
	grep -q "^Flows, top 3 by latency" "$T_TMP/top.txt"
	grep -q "^Generator flows, top 3 by latency" "$T_TMP/top.txt"
	# the run page: the same tables, each number tied to its metric
	test "$(grep -o "<tr class=\"genflow\">" "$r/report.html" | wc -l)" = 20
	for k in 0 7 15; do
		grep -q "data-metric=\"traffic.dgram.udp.flow.$k.lost\" data-source=\"metrics\"" "$r/report.html"
	done
	grep -q "<table class=\"flows\" data-order=\"latency\">" "$r/report.html"
	test "$(grep -c "<tr class=\"flow\">" "$r/report.html")" -ge 24
'

# --- the planted regressions: opt-in (kernel builds) ---------------------
. "$(dirname "$0")/lib-history.sh"

if slow 'demux: bisect names the commit; several connected sockets on one port fail, the story names the flows and the socket demux'; then
	test_expect_success 'demux: bisect names the commit; several connected sockets on one port fail, the story names the flows and the socket demux' '
		bisect demux "$B/udp-demux.scn"
		grep -Eq "^after : no_misdelivery: udp.misdelivered = [1-9][0-9]* vs == 0: fail" "$T_TMP/bis-demux.out"
		rc=0; suite demux demux "concurrency-connected[cpus=1]" "concurrency-reuseport[cpus=1]" || rc=$?
		test $rc = 1
		grep -Eq "^concurrency-connected.* no_misdelivery +udp.misdelivered +[1-9][0-9]* +== 0 +fail" "$T_TMP/demux.out"
		grep -Eq "flow [0-9]+ \(source port 410[0-9][0-9]\): sent [0-9]+ .*, of them [1-9][0-9]* delivered to another flow.s socket \(socket demux\)" "$T_TMP/demux.out"
		grep -q "delivered by the stack to another flow.s socket (socket demux" "$T_TMP/demux.out"
		# one unconnected reuseport group: untouched by it
		grep -Eq "^concurrency-reuseport.* no_misdelivery +udp.misdelivered +0 +== 0 +pass" "$T_TMP/demux.out"
	'
fi

if slow 'backlog: bisect names the commit; RPS onto a second CPU fails, the story names the CPU and its backlog'; then
	test_expect_success 'backlog: bisect names the commit; RPS onto a second CPU fails, the story names the CPU and its backlog' '
		bisect backlog "$B/rps-backlog.scn"
		grep -Eq "^after : no_backlog_drop: loss.cpu_backlog_drops = [1-9][0-9]* vs == 0: fail" "$T_TMP/bis-backlog.out"
		rc=0; suite backlog backlog "concurrency-backlog[nic.B=e1000e]" \
			"concurrency[nic.B=e1000e,cpus=1,rps.B=3,flows=8]" || rc=$?
		test $rc = 1
		grep -Eq "^concurrency-backlog.* no_backlog_drop +loss.cpu_backlog_drops +[1-9][0-9]* +== 0 +fail" "$T_TMP/backlog.out"
		grep -Eq "CPU 1.s backlog" "$T_TMP/backlog.out"
		# one CPU: RPS steers to the CPU itself, untouched by it
		grep -Eq "^concurrency\[nic.B=e1000e,cpus=1,rps.B=3,flows=8\] +no_backlog_drop .* pass" "$T_TMP/backlog.out"
	'
fi

if slow 'mqrx: bisect names the commit; igb.s second queue loses frames, the story names the queue and the driver'; then
	test_expect_success 'mqrx: bisect names the commit; igb.s second queue loses frames, the story names the queue and the driver' '
		bisect mqrx "$B/igb-mq.scn"
		grep -Eq "^after : no_driver_loss: loss.lost_in_driver = [1-9][0-9]* vs == 0: fail" "$T_TMP/bis-mqrx.out"
		rc=0; suite mqrx mqrx "concurrency-mq[size=1400]" "concurrency[nic.B=igb,cpus=1,rps.B=0,flows=8]" || rc=$?
		test $rc = 1
		grep -Eq "^concurrency-mq.* no_driver_loss +loss.lost_in_driver +[1-9][0-9]* +== 0 +fail" "$T_TMP/mqrx.out"
		grep -Eq "queue 1" "$T_TMP/mqrx.out"
		grep -Eq "NIC B.s NIC/driver" "$T_TMP/mqrx.out"
		# one CPU, one queue: untouched by it
		grep -Eq "^concurrency\[nic.B=igb,cpus=1,rps.B=0,flows=8\] +no_driver_loss .* pass" "$T_TMP/mqrx.out"
	'
fi

# Not a concurrency regression: IPv6 alone (family = 6), with the planted
# bisect history's other kernels.
if slow 'v6only: bisect names the commit; fragmented IPv6 fails, the story names B.s IPv6 layer; IPv4 and whole IPv6 pass'; then
	test_expect_success 'v6only: bisect names the commit; fragmented IPv6 fails, the story names B.s IPv6 layer; IPv4 and whole IPv6 pass' '
		bisect v6only "$B/udp6-frag.scn"
		grep -Eq "^after : no_loss: udp.lost = [1-9][0-9]* vs == 0: fail" "$T_TMP/bis-v6only.out"
		# the last good commit, the culprit.s parent, passes
		grep -Eq "^before: no_loss: udp.lost = 0 vs == 0: pass \\(step [0-9]+, $(git -C "$H" rev-parse "v6only-culprit^" | cut -c1-12)\\)" \
			"$T_TMP/bis-v6only.out"
		rc=0; suite v6only v6only "paths-udp[nic.B=e1000e,direction=A>B,size=3000,family=6]" \
			"paths-udp[nic.B=e1000e,direction=A>B,size=3000]" \
			"paths-udp[nic.B=e1000e,direction=A>B,size=1472,family=6]" || rc=$?
		test $rc = 1
		grep -Eq "^paths-udp\[nic.B=e1000e,direction=A>B,size=3000,family=6\] +no_loss +udp.lost +[1-9][0-9]* +== 0 +fail" "$T_TMP/v6only.out"
		grep -Eq "IPv6 layer at B: .*Ip6InTruncatedPkts [1-9][0-9]*" "$T_TMP/v6only.out"
		# IPv4, and IPv6 datagrams that fit a frame: untouched by it
		grep -Eq "^paths-udp\[nic.B=e1000e,direction=A>B,size=3000\] +no_loss .* pass" "$T_TMP/v6only.out"
		grep -Eq "^paths-udp\[nic.B=e1000e,direction=A>B,size=1472,family=6\] +no_loss .* pass" "$T_TMP/v6only.out"
	'
fi

test_done
