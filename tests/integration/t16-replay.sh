#!/usr/bin/env bash
# Time travel on a failing run: a scenario with a planted drop (a slow reader
# behind a 4 KiB socket buffer: UDP drops datagrams) is recorded by netlab
# regress ('record = yes'), fails, and says which command replays it; the
# replay keeps what the run measured (files, trace, metrics). netlab gdb
# --replay --until first-drop stops at the run's first traced drop with a
# backtrace through the UDP layer that dropped it, at the same instruction
# count on two replays; nl-back from the second drop lands on the first
# drop's instruction count (a new replay, run forward). Needs QEMU 10
# (README "Record/replay": QEMU 7.2's replays do not finish):
# NETLAB_REQUIRE_QEMU10=1 (CI) turns the skip into a failure.
. "$(dirname "$0")/../lib.sh"
need_guest
command -v gdb >/dev/null || skip_all "gdb missing (apt-get install gdb)"
KDIR=$(dirname "$(readlink -f "$KERNEL")")
[ -r "$KDIR/vmlinux" ] || skip_all "no vmlinux beside $KERNEL (make kernel)"
QEMU=${NETLAB_QEMU:-qemu-system-x86_64}
qv=$("$QEMU" --version 2>/dev/null | sed -n 's/.*version \([0-9]*\)\..*/\1/p' | head -1)
if [ "${qv:-0}" -lt 10 ]; then
	[ "${NETLAB_REQUIRE_QEMU10:-0}" = 1 ] &&
		echo "not ok - t16: NETLAB_REQUIRE_QEMU10=1 but $QEMU is version ${qv:-unknown}" && exit 1
	skip_all "$QEMU is version ${qv:-unknown}; replays need QEMU 10 (make deps installs it from bookworm-backports)"
fi
SCN=$TOP/tests/integration/scenarios

test_expect_success 'a recorded failing scenario: exit 1, the replay command named, the run measured as usual' '
	rc=0; "$NETLAB" regress -o "$T_TMP/suite" "$SCN/planted-drop.scn" >"$T_TMP/reg.out" 2>&1 || rc=$?
	cat "$T_TMP/reg.out"
	test $rc = 1
	run=$T_TMP/suite/planted-drop/run-1
	grep -q "^  replay: netlab gdb --replay $run --until first-drop" "$T_TMP/reg.out"
	test -s "$run/replay.bin"
	grep -q "rr=replay" "$run/replay.argv"
	grep -q virtserialport "$run/replay.argv"
	test -s "$run/files/trace.dat"
	grep -Eq "\"drops.reason.SOCKET_RCVBUFF\":[1-9]" "$run/metrics.json"
	test "$(json_get "$run/result.json" qemu.version | cut -d. -f1)" -ge 10
	no_process_with "$T_TMP/suite"
'

# first-drop, the next drop, then nl-back: each replay session prints the
# drops' icounts in gdb.log ("netlab: drop at icount N", "netlab: at icount").
cat >"$T_TMP/back.gdb" <<-\EOF
nl-until next-drop
nl-back
nl-icount
nl-stops
EOF
# The second replay only runs forward (one pass of the replay, not two).
echo "nl-until next-drop" >"$T_TMP/next.gdb"

replay() {
	"$NETLAB" gdb --replay "$T_TMP/suite/planted-drop/run-1" --until first-drop \
		--batch "$T_TMP/$2.gdb" --timeout 900 -o "$T_TMP/replay$1" 2>"$T_TMP/replay$1.err" ||
		{ cat "$T_TMP/replay$1.err"; return 1; }
	cat "$T_TMP/replay$1.err"
}

drop_icounts() {
	sed -n "s/^netlab: drop at icount \([0-9]*\):.*/\1/p" "$T_TMP/replay$1/gdb.log"
}

test_expect_success 'replay to the first drop: its skb, its reason and a backtrace through UDP and IP' '
	test -s "$T_TMP/suite/planted-drop/run-1/replay.bin"
	replay 1 back
	log=$T_TMP/replay1/gdb.log
	grep -q "first traced drop: udp_queue_rcv_one_skb+0x[0-9a-f]* SOCKET_RCVBUFF" "$T_TMP/replay1.err"
	grep -q "^netlab: drop at icount [0-9]*: reason SKB_DROP_REASON_SOCKET_RCVBUFF" "$log"
	grep -Eq "^netlab: skb 0x[0-9a-f]+: len=1000 .* ipv4 198\.18\.0\.1 > 198\.18\.0\.2 proto 17 ports [0-9]+ > [0-9]+" "$log"
	grep -q "^netlab: ring: " "$log"
	grep -q "^#0  kfree_skb_reason " "$log"
	grep -Eq "^#[0-9]+ .*(__udp_queue_rcv_skb|udp_queue_rcv_one_skb) " "$log"
	grep -Eq "^#[0-9]+ .*ip_local_deliver" "$log"
	grep -q "replay stopped there (--until)" "$T_TMP/replay1.err"
	no_process_with "$T_TMP/replay1"
'

test_expect_success 'nl-back from the second drop lands on the first drop, at its instruction count' '
	test -s "$T_TMP/replay1/gdb.log"
	set -- $(drop_icounts 1)
	echo "drops at icount $*"
	test $# = 2 && test "$2" -gt "$1"
	grep -q "^netlab: at icount $1 (asked $1)" "$T_TMP/replay1/gdb.log"
	grep -q "^icount $1\$" "$T_TMP/replay1/gdb.log"
'

# A second replay of the same recording, about two minutes: t13 proves two
# replays stop at the same instruction count in the default run, so this
# one runs with NETLAB_SLOW_TESTS=1 (CI budget).
T='a second replay stops at the same drops, at the same instruction counts'
if [ "${NETLAB_SLOW_TESTS:-}" != 1 ]; then
	test_skip "$T" "NETLAB_SLOW_TESTS=1 (t13 proves two replays stop at the same icount)"
else test_expect_success "$T" '
	test -s "$T_TMP/replay1/gdb.log"
	replay 2 next
	a=$(drop_icounts 1 | tr "\n" " ") b=$(drop_icounts 2 | tr "\n" " ")
	echo "replay 1: $a; replay 2: $b"
	test -n "$a"
	test "$a" = "$b"
	s1=$(grep "^netlab: skb " "$T_TMP/replay1/gdb.log" | head -1)
	s2=$(grep "^netlab: skb " "$T_TMP/replay2/gdb.log" | head -1)
	test "$s1" = "$s2"
'
fi

# In a recording a NIC's transmit could wait on the other end of the link
# (virtio-net B sending while e1000e A cannot receive), in its replay never:
# the replay left the recording and stalled, every time with ethA down
# (about 1 recording in 15 of planted-drop, when ethB sent before ethA.s
# link was up). Recorded NICs now hand every frame on at once.
test_expect_success 'B sends while A cannot receive (ethA down): the replay finishes, its console identical' '
	rc=0; "$NETLAB" run --record -o "$T_TMP/down" --timeout 600 \
		--exec "ip link set ethA down; ip netns exec b ping -c 10 -i 0.2 198.18.0.1; true" \
		>"$T_TMP/down.out" 2>&1 || rc=$?
	cat "$T_TMP/down.out"
	test $rc = 0
	test -s "$T_TMP/down/replay.bin"
	echo continue >"$T_TMP/cont.gdb"
	rc=0; NETLAB_REPLAY_STALL=60 "$NETLAB" gdb --replay "$T_TMP/down" --batch "$T_TMP/cont.gdb" \
		--timeout 600 -o "$T_TMP/replay5" 2>"$T_TMP/replay5.err" || rc=$?
	cat "$T_TMP/replay5.err"
	test $rc = 0
	grep -q "replay finished in .*; console identical to the recording" "$T_TMP/replay5.err"
	no_process_with "$T_TMP/replay5"
'

# A replay that leaves its recording (here: another memory size than the
# recording had) stalls: QEMU waits for an event that never comes, its
# instruction count frozen. netlab ends it at once instead of at --timeout.
test_expect_success 'a replay that leaves its recording: stalled, said with its instruction count, 125, no QEMU left' '
	run=$T_TMP/suite/planted-drop/run-1 bad=$T_TMP/diverged
	mkdir "$bad"
	for f in "$run"/*; do test "${f##*/}" = replay.argv || ln -s "$f" "$bad/"; done
	sed "s#$run#$bad#g; /^-m\$/{n;s/.*/320/}" "$run/replay.argv" >"$bad/replay.argv"
	! cmp -s "$run/replay.argv" "$bad/replay.argv"
	rc=0; NETLAB_REPLAY_STALL=10 "$NETLAB" gdb --replay "$bad" --until first-drop --batch "$T_TMP/next.gdb" \
		--timeout 600 -o "$T_TMP/replay3" 2>"$T_TMP/replay3.err" || rc=$?
	cat "$T_TMP/replay3.err"
	test $rc = 125
	grep -q "stalled at instruction [0-9]*: QEMU ran it 10 s without one more instruction" "$T_TMP/replay3.err"
	no_process_with "$T_TMP/replay3"
'

# Cut to an eighth: the boot fills most of a recording (of 16 MB, the first 4
# reach 0.18 s into the kernel's boot), so the cut comes long before the first
# drop. Half the file reached both drops in one CI run.
test_expect_success 'a cut recording: QEMU ends the replay early, netlab says so with QEMU.s words, 125' '
	run=$T_TMP/suite/planted-drop/run-1 cut=$T_TMP/cut
	mkdir "$cut"
	for f in "$run"/*; do case ${f##*/} in replay.argv|replay.bin) ;; *) ln -s "$f" "$cut/";; esac; done
	head -c $(($(stat -c %s "$run/replay.bin") / 8)) "$run/replay.bin" >"$cut/replay.bin"
	sed "s#$run#$cut#g" "$run/replay.argv" >"$cut/replay.argv"
	rc=0; "$NETLAB" gdb --replay "$cut" --until first-drop --batch "$T_TMP/next.gdb" \
		--timeout 600 -o "$T_TMP/replay4" 2>"$T_TMP/replay4.err" || rc=$?
	cat "$T_TMP/replay4.err"
	test $rc = 125
	grep -q "QEMU ended the replay of .* early (exit status [1-9][0-9]*): .*replay" "$T_TMP/replay4.err"
	! grep -q "^netlab: drop at icount" "$T_TMP/replay4/gdb.log"
	no_process_with "$T_TMP/replay4"
'

test_expect_success 'bad input: --until without a recording or with a scenario: exit 2' '
	rc=0; "$NETLAB" gdb --until first-drop "$SCN/planted-drop.scn" 2>"$T_TMP/e1" || rc=$?
	cat "$T_TMP/e1"
	test $rc = 2 && grep -q "needs a recorded run" "$T_TMP/e1"
	mkdir "$T_TMP/empty"
	rc=0; "$NETLAB" gdb --replay --until first-drop --batch /dev/null "$T_TMP/empty" 2>"$T_TMP/e2" || rc=$?
	test $rc = 2 && grep -q "no recording" "$T_TMP/e2"
'

test_done
