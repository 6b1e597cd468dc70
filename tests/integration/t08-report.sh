#!/usr/bin/env bash
# netlab report (drops): on the same trace.dat its figures equal what
# trace-cmd report prints, counted with grep; a guest engineered to drop at
# known places (receive buffer overflow, no listener) reports those reasons
# and locations; damaged input is named, exit 2, never a crash.
. "$(dirname "$0")/../lib.sh"
[ -x "$NETLAB" ] || skip_all "build/netlab missing (run make)"
command -v python3 >/dev/null || skip_all "python3 missing (make deps)"
FIX=$TOP/tests/unit/fixtures/traces
SYSTEM_MAP=$(dirname "$KERNEL")/System.map

# --- counting both ways ------------------------------------------------------
# "KEY COUNT" lines, sorted by key, of the skb:kfree_skb lines of trace-cmd report.
tc_counts() { # tc_counts FILE reason|location
	local re='reason: [A-Z0-9_]*$'
	[ "$2" = location ] && re='location=0x[0-9a-f]*'
	trace-cmd report "$1" 2>/dev/null | grep ' kfree_skb: ' | grep -o "$re" |
		sed 's/^reason: //; s/^location=//' | sort | uniq -c | awk '{ print $2, $1 }'
}
# The same from netlab report --json: by_reason, and sites summed by address.
nl_counts() { # nl_counts FILE reason|location
	"$NETLAB" report --json "$1" | python3 -c '
import json, sys, collections
d = json.load(sys.stdin)["drops"]
c = collections.Counter()
if sys.argv[1] == "reason":
    c.update(d["by_reason"])
else:
    for s in d["sites"]:
        c[s["address"]] += s["count"]
for k in sorted(c):
    print(k, c[k])' "$2"
}
tc_lost() { # events trace-cmd report says were dropped by the ring buffer
	trace-cmd report "$1" 2>/dev/null | sed -n 's/.*\[\([0-9]*\) EVENTS DROPPED\].*/\1/p' |
		awk '{ n += $1 } END { print n + 0 }'
}
same_as_trace_cmd() { # same_as_trace_cmd FILE
	local what
	for what in reason location; do
		tc_counts "$1" $what >"$T_TMP/tc.$what"
		nl_counts "$1" $what >"$T_TMP/nl.$what"
		echo "$1 by $what: trace-cmd: $(tr '\n' ' ' <"$T_TMP/tc.$what") netlab: $(tr '\n' ' ' <"$T_TMP/nl.$what")"
		test -s "$T_TMP/tc.$what"
		diff "$T_TMP/tc.$what" "$T_TMP/nl.$what"
	done
	"$NETLAB" report --json "$1" >"$T_TMP/j"
	test "$(tc_lost "$1")" = "$(json_get "$T_TMP/j" trace.lost_events)"
}

expect_bad_trace() { # expect_bad_trace NEEDLE FILE: exit 2, the file named, a hint
	local rc=0
	"$NETLAB" report "$2" >"$T_TMP/out" 2>"$T_TMP/err" || rc=$?
	cat "$T_TMP/err"
	test $rc = 2
	grep -q "^netlab report: cannot read trace '.*$(basename "$2")'" "$T_TMP/err"
	grep -q -- "$1" "$T_TMP/err"
	grep -q "^hint: " "$T_TMP/err"
	test ! -s "$T_TMP/out"
}

# --- committed fixtures (no guest) ------------------------------------------
if command -v trace-cmd >/dev/null; then
	test_expect_success 'fixtures: drops by reason, by location and lost events equal trace-cmd report' '
		for f in rcvbuf noport lost; do same_as_trace_cmd "$FIX/$f.dat"; done
	'
else
	test_skip 'fixtures: drops by reason, by location and lost events equal trace-cmd report' \
		"trace-cmd missing (make deps)"
fi

test_expect_success 'text report: dropwatch-like interval lines, totals by location and by reason' '
	"$NETLAB" report "$FIX/rcvbuf.dat" >"$T_TMP/out"
	cat "$T_TMP/out"
	grep -q "^175 drops (skb:kfree_skb); intervals of 1 s" "$T_TMP/out"
	grep -Eq "^ +1\.000-2\.000 s: 104 drops: 104 at udp_queue_rcv_one_skb\+0x247 \(SOCKET_RCVBUFF\)$" "$T_TMP/out"
	grep -Eq "^ +175 +100\.0% +udp_queue_rcv_one_skb\+0x247$" "$T_TMP/out"
	grep -Eq "^ +175 +100\.0% +SOCKET_RCVBUFF$" "$T_TMP/out"
	"$NETLAB" report --interval 0.5 "$FIX/rcvbuf.dat" >"$T_TMP/half"
	test "$(grep -c "drops: " "$T_TMP/half")" -gt "$(grep -c "drops: " "$T_TMP/out")"
'

test_expect_success 'lost events are reported in the text, never silently' '
	"$NETLAB" report "$FIX/lost.dat" >"$T_TMP/out"
	grep -q "^warning: the ring buffer lost 1783 events in 1 place" "$T_TMP/out"
	grep -q "; lost 1783 events$" "$T_TMP/out"
	"$NETLAB" report "$FIX/noport.dat" | grep -q "^no events lost$"
'

test_expect_success '--json and the text print the same figures' '
	"$NETLAB" report --json --interval 0.25 "$FIX/noport.dat" >"$T_TMP/j"
	"$NETLAB" report --interval 0.25 "$FIX/noport.dat" >"$T_TMP/t"
	test "$(json_get "$T_TMP/j" drops.total)" = 298
	grep -q "^298 drops" "$T_TMP/t"
	test "$(json_get "$T_TMP/j" drops.by_reason.NO_SOCKET)" = 298
	test "$(json_get "$T_TMP/j" drops.intervals.0.drops)" = "$(sed -n "s/^ *0\.000-0\.250 s: \([0-9]*\) drops.*/\1/p" "$T_TMP/t")"
	test "$(json_get "$T_TMP/j" drops.sites.0.location)" = "__udp4_lib_rcv+0x635"
'

if command -v trace-cmd >/dev/null; then
	test_expect_success '--list: one line per drop, at the timestamps trace-cmd report prints' '
		"$NETLAB" report --list "$FIX/noport.dat" | awk "\$5 ~ /^0x/ { print \$2 }" >"$T_TMP/nl.ts"
		trace-cmd report "$FIX/noport.dat" 2>/dev/null | grep " kfree_skb: " |
			sed "s/.*\] *\([0-9.]*\): kfree_skb:.*/\1/" >"$T_TMP/tc.ts"
		test "$(wc -l <"$T_TMP/nl.ts")" = 298
		diff "$T_TMP/tc.ts" "$T_TMP/nl.ts"
		"$NETLAB" report --list --json "$FIX/noport.dat" >"$T_TMP/j"
		test "$(json_get "$T_TMP/j" drops.list.297.reason)" = NO_SOCKET
		test "$(json_get "$T_TMP/j" drops.list.0.protocol_name)" = IPv4
	'
else
	test_skip '--list: one line per drop, at the timestamps trace-cmd report prints' \
		"trace-cmd missing (make deps)"
fi

if command -v trace-cmd >/dev/null; then
	test_expect_success 'uncompressed trace.dat (file version 6): same figures; truncated: named, exit 2' '
		trace-cmd convert --file-version 6 -i "$FIX/rcvbuf.dat" -o "$T_TMP/v6.dat" >/dev/null
		# The file name and the second the JSON was written in may differ.
		"$NETLAB" report --json "$FIX/rcvbuf.dat" |
			grep -v -e "\"file\"" -e "\"generated_at\"" >"$T_TMP/v7.json"
		"$NETLAB" report --json "$T_TMP/v6.dat" |
			grep -v -e "\"file\"" -e "\"generated_at\"" >"$T_TMP/v6.json"
		diff "$T_TMP/v7.json" "$T_TMP/v6.json"
		head -c $(( $(stat -c %s "$T_TMP/v6.dat") - 4096 )) "$T_TMP/v6.dat" >"$T_TMP/v6-cut.dat"
		expect_bad_trace "truncated or corrupted" "$T_TMP/v6-cut.dat"
	'
else
	test_skip 'uncompressed trace.dat (file version 6): same figures; truncated: named, exit 2' \
		"trace-cmd missing (make deps)"
fi

# --- bad input ----------------------------------------------------------------
test_expect_success 'empty, truncated, random trace.dat: named, with a hint, exit 2' '
	: >"$T_TMP/empty.dat"
	expect_bad_trace "the file is empty" "$T_TMP/empty.dat"
	head -c 300000 "$FIX/rcvbuf.dat" >"$T_TMP/cut-kallsyms.dat"
	expect_bad_trace "truncated or corrupted" "$T_TMP/cut-kallsyms.dat"
	head -c 490000 "$FIX/rcvbuf.dat" >"$T_TMP/cut-data.dat"
	expect_bad_trace "truncated or corrupted" "$T_TMP/cut-data.dat"
	head -c 65536 /dev/urandom >"$T_TMP/random.dat"
	expect_bad_trace "not a trace.dat" "$T_TMP/random.dat"
	expect_bad_trace "No such file" "$T_TMP/nonexistent.dat"
'

test_expect_success 'corrupted event data that crashes libtraceevent: named, exit 2, no core' '
	# 20 bytes at the start of the compressed CPU data (found by fuzzing;
	# trace-cmd report itself dies of SIGSEGV on this file).
	python3 -c "import sys
b = bytearray(open(sys.argv[1], \"rb\").read())
b[483331:483351] = bytes.fromhex(\"33ba0d246ac04c81b1baf23e3bf9eef5f79f2b49\")
open(sys.argv[2], \"wb\").write(b)" "$FIX/rcvbuf.dat" "$T_TMP/corrupt.dat"
	expect_bad_trace "decoding it failed (Segmentation fault)" "$T_TMP/corrupt.dat"
'

test_expect_success 'a run directory without a trace: names files/trace.dat, exit 2' '
	mkdir -p "$T_TMP/run-without-trace/files"
	rc=0; "$NETLAB" report "$T_TMP/run-without-trace" 2>"$T_TMP/err" || rc=$?
	cat "$T_TMP/err"
	test $rc = 2
	grep -q "run-without-trace/files/trace.dat" "$T_TMP/err"
	grep -q "^hint: .*trace-cmd record" "$T_TMP/err"
'

test_expect_success 'usage errors: exit 2' '
	for args in "" "--interval 0 $FIX/noport.dat" "--interval x $FIX/noport.dat" \
		    "--frob $FIX/noport.dat" "$FIX/noport.dat $FIX/rcvbuf.dat"; do
		rc=0; "$NETLAB" report $args 2>"$T_TMP/err" || rc=$?
		cat "$T_TMP/err"
		test $rc = 2
		grep -q "^hint: usage: netlab report" "$T_TMP/err"
	done
'

# --- a fresh trace from the guest ---------------------------------------------
# Three recordings in one boot: a UDP receiver that reads slower than the
# sender sends (SOCKET_RCVBUFF), datagrams to a port nobody listens on
# (NO_SOCKET), and a trace without skb:kfree_skb.
# trace-cmd left the first recording without a single event once, in a
# .ci/run on a loaded host (issue 33: "1 CPU, 0 events"): a recording with
# no kfree_skb is made again, at most three times, and the tries are kept
# (trace.tries) -- what is tested is netlab's reading of a trace, not
# trace-cmd's recorder under a starved vCPU.
GUEST_JOB='set -e
for try in 1 2 3; do
trace-cmd record -e skb:kfree_skb -o /netlab/out/trace.dat sh -c "
	/sbin/ip netns exec b udp-stream --recv --bind 198.18.0.2 --rcvbuf 4096 --read-delay 2000 >/netlab/out/r.json &
	sleep 0.5
	udp-stream --send --dst 198.18.0.2 --rate 1000 --size 1000 --duration 1 >/netlab/out/s.json
	wait" >/dev/null
echo $try >/netlab/out/trace.tries
trace-cmd report -i /netlab/out/trace.dat 2>/dev/null | grep -q kfree_skb && break
done
cat >/tmp/noport.sh <<"NOPORT"
# The sender ends when its last datagram leaves ethA; on a loaded host the
# last ones may reach ethB (in b) later. Record until b has counted NoPorts
# for every datagram sent (UDP_MIB_NOPORTS goes with each NO_SOCKET free in
# __udp4_lib_rcv), for up to 60 s.
nop() { /sbin/ip netns exec b awk "/^Udp: [0-9]/ { print \$3 }" /proc/net/snmp; }
before=$(nop)
udp-stream --send --dst 198.18.0.2 --port 9 --rate 200 --size 200 --duration 1 >/netlab/out/s9.json
want=$(tr "{}," "\n\n\n" </netlab/out/s9.json | awk -F: "/\"(sent|end_copies_sent)\"/ { n += \$2 } END { print n }")
i=0
while [ $(($(nop) - before)) -lt "$want" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
echo "NoPorts in b: $(($(nop) - before)) of $want datagrams sent, waited $i x 0.1 s" >/netlab/out/noport.wait
NOPORT
trace-cmd record -e skb:kfree_skb -o /netlab/out/noport.dat sh /tmp/noport.sh >/dev/null
trace-cmd record -e skb:consume_skb -o /netlab/out/nokfree.dat true >/dev/null'

guest_ok=1
[ -r "$KERNEL" ] && [ -r "$INITRD" ] && command -v qemu-system-x86_64 >/dev/null || guest_ok=

G=$T_TMP/guest
guest_test() { # guest_test TITLE BODY
	if [ "$guest_ok" ]; then
		test_expect_success "$1" "$2"
	else
		test_skip "$1" "needs build/kernel, build/initramfs.cpio.gz and qemu-system-x86_64"
	fi
}

guest_test 'guest: receive buffer overflow reports SOCKET_RCVBUFF at the UDP enqueue, as many as the receiver lost' '
	"$NETLAB" run --accel tcg -q --timeout 900 --append no_hash_pointers --out "$G" --exec "$GUEST_JOB"
	ls -l "$G/files"
	"$NETLAB" report "$G" >"$T_TMP/g.out"
	cat "$T_TMP/g.out"
	# 6.1 frees in __udp_queue_rcv_skb, inlined into udp_queue_rcv_one_skb.
	grep -Eq " at (udp_queue_rcv_one_skb|__udp_queue_rcv_skb|__udp_enqueue_schedule_skb)\+0x[0-9a-f]+ \(SOCKET_RCVBUFF\)" "$T_TMP/g.out"
	"$NETLAB" report --json "$G" >"$T_TMP/g.json"
	n=$(json_get "$T_TMP/g.json" drops.by_reason.SOCKET_RCVBUFF)
	lost=$(json_get "$G/files/r.json" lost)
	ends=$(json_get "$G/files/r.json" end_copies)
	echo "SOCKET_RCVBUFF drops $n, receiver lost $lost (+ up to $ends END copies)"
	test "$lost" -gt 0
	test "$n" -ge "$lost"
	test "$n" -le $((lost + ends))
'

guest_test 'guest: datagrams to a port nobody listens on: NO_SOCKET at __udp4_lib_rcv, one per datagram' '
	"$NETLAB" report "$G/files/noport.dat" >"$T_TMP/np.out"
	cat "$T_TMP/np.out" "$G/files/noport.wait"
	grep -Eq " at __udp4_lib_rcv\+0x[0-9a-f]+ \(NO_SOCKET\)" "$T_TMP/np.out"
	"$NETLAB" report --json "$G/files/noport.dat" >"$T_TMP/np.json"
	sent=$(( $(json_get "$G/files/s9.json" sent) + $(json_get "$G/files/s9.json" end_copies_sent) ))
	n=$(json_get "$T_TMP/np.json" drops.by_reason.NO_SOCKET)
	echo "NO_SOCKET drops $n, datagrams sent $sent"
	test "$n" = "$sent"
'

guest_test 'guest: locations resolved from the trace'"'"'s kallsyms agree with the kernel'"'"'s System.map' '
	[ -r "$SYSTEM_MAP" ] || { echo "no $SYSTEM_MAP"; false; }
	for j in "$T_TMP/g.json" "$T_TMP/np.json"; do
		python3 -c "import json, sys, bisect
syms = []
for line in open(sys.argv[2]):
    a, t, name = line.split()[:3]
    if t in \"tTwW\":
        syms.append((int(a, 16), name))
syms.sort()
addrs = [a for a, _ in syms]
for s in json.load(open(sys.argv[1]))[\"drops\"][\"sites\"]:
    addr = int(s[\"address\"], 16)
    a, name = syms[bisect.bisect_right(addrs, addr) - 1]
    want = \"%s+0x%x\" % (name, addr - a)
    print(s[\"location\"], want)
    assert s[\"location\"] == want" "$j" "$SYSTEM_MAP"
	done
'

if command -v trace-cmd >/dev/null; then
	guest_test 'guest traces: drops by reason and by location equal trace-cmd report' '
		same_as_trace_cmd "$G/files/trace.dat"
		same_as_trace_cmd "$G/files/noport.dat"
	'
fi

guest_test 'guest: a trace without skb:kfree_skb is refused, exit 2, with a hint' '
	expect_bad_trace "did not record skb:kfree_skb" "$G/files/nokfree.dat"
	grep -q "^hint: .*-e skb:kfree_skb" "$T_TMP/err"
'

test_done
