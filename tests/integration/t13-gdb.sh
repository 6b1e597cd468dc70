#!/usr/bin/env bash
# netlab gdb: a batch session stops in e1000e's NAPI path on a running
# scenario; a scenario's [gdb] section does the same under netlab regress,
# with checks on gdb's output and a timeout for a gdb that hangs; a recorded
# run replays deterministically; an oops is decoded to the line gdb names;
# bad input is refused with exit 2.
. "$(dirname "$0")/../lib.sh"
need_guest
command -v gdb >/dev/null || skip_all "gdb missing (apt-get install gdb)"
KDIR=$(dirname "$(readlink -f "$KERNEL")")
[ -r "$KDIR/vmlinux" ] || skip_all "no vmlinux beside $KERNEL (make kernel)"
SCN=$TOP/tests/integration/scenarios
# QEMU 10 replays recorded VMs with their virtio-serial ports (their output
# in stdout); QEMU 7.2 records them console-only (README "Record/replay").
qv=$(qemu-system-x86_64 --version 2>/dev/null | sed -n 's/.*version \([0-9]*\)\..*/\1/p' | head -1)
QEMU10=0; [ "${qv:-0}" -ge 10 ] && QEMU10=1
# The lines VM b printed: in DIR/stdout (QEMU 10) or on DIR/console.log.
b_lines() {
	cat "$1/stdout" "$1/console.log" 2>/dev/null | tr -d "\r" | grep -a "^$2" | head -1
}

test_expect_success 'batch gdb stops in e1000e RX under NAPI, reads the ring, the scenario completes' '
	cat >"$T_TMP/rx.gdb" <<-EOF
	nl-e1000e-rx
	continue
	bt
	nl-ring
	lx-ps
	delete
	detach
	EOF
	"$NETLAB" gdb --batch "$T_TMP/rx.gdb" -o "$T_TMP/live" "$SCN/gdb-e1000e.scn" 2>"$T_TMP/live.err"
	log=$T_TMP/live/gdb.log
	grep -q "^Hardware assisted breakpoint 1 at .*e1000e/netdev.c" "$log"
	grep -q "^Breakpoint 1, e1000_clean_rx_irq" "$log"
	grep -q " in e1000e_poll " "$log"
	grep -Eq " in (__napi_poll|napi_poll|net_rx_action) " "$log"
	grep -Eq "^rx_ring .* next_to_use=[0-9]+ next_to_clean=[0-9]+ count=256" "$log"
	grep -q "swapper" "$log"
	grep -q "nokaslr" "$T_TMP/live/cmdline"
	grep -q -- "-gdb chardev:gdb0" "$T_TMP/live/cmdline"
	grep -q "path=$T_TMP/live/gdb.sock" "$T_TMP/live/cmdline"
	test "$(json_get "$T_TMP/live/result.json" verdict)" = ok
	test -s "$T_TMP/live/files/recv.json"
'

test_expect_success 'a scenario with [gdb]: regress stops in e1000e RX, counts gdb.log lines, passes' '
	rc=0; "$NETLAB" regress --out "$T_TMP/scn" "$TOP/tests/regress/gdb/e1000e-rx.scn" \
		>"$T_TMP/scn.out" 2>&1 || rc=$?
	cat "$T_TMP/scn.out"
	test $rc = 0
	run=$T_TMP/scn/e1000e-rx/run-1
	grep -Eq "^Breakpoint 1(\.[0-9]+)?, e1000_clean_rx_irq" "$run/gdb.log"
	grep -q "^hbreak e1000_clean_rx_irq" "$run/gdb-init.gdb"
	test "$(cat "$run/gdb.exit")" = 0
	grep -q nokaslr "$run/cmdline"
	grep -q -- "-gdb chardev:gdb0" "$run/cmdline"
	grep -q "\"gdb.lines_matching.ring\":1," "$run/metrics.json"
	grep -Eq "\"gdb.lines_matching.napi\":[1-9]" "$run/metrics.json"
	no_process_with "$T_TMP/scn"
'

# A gdb that never ends its script must not hold the run: netlab ends it at
# [gdb] timeout (gdb.exit 124), gdb detaches, and the traffic completes.
test_expect_success 'a [gdb] script that hangs is ended at its timeout; the check on gdb.exit fails (exit 1)' '
	mkdir "$T_TMP/hang"
	sed -e "s/^script = .*/script = hang.gdb/" -e "s/^timeout = .*/timeout = 8/" \
		"$TOP/tests/regress/gdb/e1000e-rx.scn" >"$T_TMP/hang/hang.scn"
	printf "continue\npython import time; time.sleep(600)\n" >"$T_TMP/hang/hang.gdb"
	t0=$(date +%s)
	rc=0; "$NETLAB" regress --out "$T_TMP/hang/out" "$T_TMP/hang/hang.scn" \
		>"$T_TMP/hang.out" 2>&1 || rc=$?
	cat "$T_TMP/hang.out"
	echo "rc=$rc in $(( $(date +%s) - t0 )) s"
	test $rc = 1
	# The script sleeps 600 s: well under that, it was ended at its timeout.
	test $(( $(date +%s) - t0 )) -lt 400
	run=$T_TMP/hang/out/hang/run-1
	test "$(cat "$run/gdb.exit")" = 124
	test "$(json_get "$run/result.json" verdict)" = ok
	grep -Eq "gdb_ok +gdb.exit +124 .* fail" "$T_TMP/hang.out"
	grep -Eq "traffic +udp.received +[1-9][0-9]* .* pass" "$T_TMP/hang.out"
	no_process_with "$T_TMP/hang"
'

test_expect_success 'a bad [gdb] section is refused before anything boots: FILE:LINE, exit 2' '
	mkdir "$T_TMP/bad"
	sed -e "s/^match.ring = .*/match.ring = next_to_use=(/" \
		"$TOP/tests/regress/gdb/e1000e-rx.scn" >"$T_TMP/bad/bad.scn"
	cp "$TOP/tests/regress/gdb/e1000e-rx.gdb" "$T_TMP/bad/"
	rc=0; "$NETLAB" regress --out "$T_TMP/bad/out" "$T_TMP/bad/bad.scn" 2>"$T_TMP/bad.err" || rc=$?
	cat "$T_TMP/bad.err"
	test $rc = 2
	line=$(grep -n "^match.ring" "$T_TMP/bad/bad.scn" | cut -d: -f1)
	grep -q "bad.scn:$line: bad regex in match.ring" "$T_TMP/bad.err"
	sed -e "s/^script = .*/script = nosuch.gdb/" "$TOP/tests/regress/gdb/e1000e-rx.scn" \
		>"$T_TMP/bad/nos.scn"
	rc=0; "$NETLAB" regress --out "$T_TMP/bad/out2" "$T_TMP/bad/nos.scn" 2>"$T_TMP/nos.err" || rc=$?
	test $rc = 2
	grep -q "nos.scn:[0-9]*: cannot read gdb script .*nosuch.gdb" "$T_TMP/nos.err"
	test ! -e "$T_TMP/bad/out/bad"
'

# Record/replay as far as it works with QEMU 7.2 here (README,
# "Record/replay"): VM b of a pair is recorded, console-only (no
# virtio-serial ports); VM a sends it 40 UDP datagrams to a closed port
# (kfree_skb NO_SOCKET drops), then says "done" over TCP. VM b prints its
# drop count and the md5 of its sequence of drop locations on the console.
# Two replays under gdb must stop at virtnet_poll at the same instruction
# count and agree with each other and the recording as far as they got; a
# third steps one instruction on and back with reverse-stepi. A
# replay that finishes must show the recording's drops and drop locations.
# Some recordings replay to the end (27-29 s), others stall during the
# command (1 of 4 measured here finished): NETLAB_RR_TESTS=1 requires both
# replays to finish.
test_expect_success 'a VM records (rr=record): its drops in its output, a replay command beside it' '
	cat >"$T_TMP/a.sh" <<-\EOF
	i=0; until echo go | nc -w 1 198.18.0.2 7001; do i=$((i+1)); [ $i -gt 100 ] && break; sleep 0.2; done
	udp-stream --send --dst 198.18.0.2 --rate 50 --size 200 --count 40 >/dev/null
	i=0; until echo done | nc -w 1 198.18.0.2 7000; do i=$((i+1)); [ $i -gt 50 ] && break; sleep 0.2; done
	EOF
	cat >"$T_TMP/b.sh" <<-\EOF
	T=/sys/kernel/tracing
	echo 256 > $T/buffer_size_kb
	echo 1 > $T/events/skb/kfree_skb/enable
	echo 1 > $T/tracing_on
	nc -l -p 7001 > /dev/null
	nc -l -p 7000 > /dev/null
	echo 0 > $T/tracing_on
	echo "drops: $(grep -c kfree_skb: $T/trace)"
	grep kfree_skb: $T/trace | sed "s/.*location=\([^ ]*\).*reason: \([A-Z_]*\).*/\1 \2/" > /tmp/drops
	echo "drop sequence md5: $(md5sum < /tmp/drops)"
	EOF
	"$NETLAB" run --topology pair --record=b --append no_hash_pointers --timeout 600 \
		-o "$T_TMP/rec" -q --exec "$(cat "$T_TMP/a.sh")" --peer-exec "$(cat "$T_TMP/b.sh")" \
		2>"$T_TMP/rec.err" || { cat "$T_TMP/rec.err"; false; }
	test -s "$T_TMP/rec/vm-b/replay.bin"
	grep -q "rr=replay" "$T_TMP/rec/vm-b/replay.argv"
	grep -q "rr=record" "$T_TMP/rec/vm-b/cmdline"
	if [ $QEMU10 = 1 ]; then
		grep -q virtserialport "$T_TMP/rec/vm-b/replay.argv"
	else
		! grep -q virtserialport "$T_TMP/rec/vm-b/cmdline"
	fi
	test "$(json_get "$T_TMP/rec/result.json" verdict)" = ok
	rd=$(b_lines "$T_TMP/rec/vm-b" "drops: ")
	rm5=$(b_lines "$T_TMP/rec/vm-b" "drop sequence md5: ")
	echo "recorded: $rd; $rm5"
	test "${rd#drops: }" -ge 40
'

# Replaying it: on QEMU 7.2 a replay of this recording stalls, sometimes
# before the breakpoint (both replays of a default run on 2026-11-24 never
# reached virtnet_poll), so there the replays run only with
# NETLAB_RR_TESTS=1. On QEMU 10 they finish: they run by default.
# On QEMU 10 a replay that does not finish is a failure, so it gets time;
# on 7.2 (opt-in) one that stalls ends sooner.
rr_limit=100; [ $QEMU10 = 1 ] && rr_limit=900
if [ "${NETLAB_RR_TESTS:-}" != 1 ] && [ $QEMU10 != 1 ]; then
	test_skip "two replays stop at the same icount, agree with the recording; same drops when they finish" \
		"flaky on QEMU 7.2 (a default run never reached the breakpoint); NETLAB_RR_TESTS=1 runs it"
else
test_expect_success 'two replays stop at the same icount, agree with the recording; same drops when they finish' '
	test -s "$T_TMP/rec/vm-b/replay.bin"
	rd=$(b_lines "$T_TMP/rec/vm-b" "drops: ")
	rm5=$(b_lines "$T_TMP/rec/vm-b" "drop sequence md5: ")
	cat >"$T_TMP/ic.gdb" <<-EOF
	hbreak virtnet_poll
	continue
	monitor info replay
	delete
	continue
	EOF
	finished=0
	for i in 1 2; do
		# A replay runs 2-5 times slower than its recording (more on a
		# loaded host): the limit only guards against one that stops.
		rc=0; "$NETLAB" gdb --replay --batch "$T_TMP/ic.gdb" --timeout $rr_limit "$T_TMP/rec" \
			2>"$T_TMP/replay$i.err" || rc=$?
		grep "replay .* in " "$T_TMP/replay$i.err"
		test $rc = 0 || test $rc = 125 || { cat "$T_TMP/replay$i.err"; false; }
		c=$T_TMP/rec/vm-b/replay-$i
		if [ $rc = 0 ]; then
			finished=$((finished + 1))
			grep -q "console identical to the recording" "$T_TMP/replay$i.err"
			test "$(b_lines "$c" "drops: ")" = "$rd"
			test "$(b_lines "$c" "drop sequence md5: ")" = "$rm5"
		fi
	done
	a=$(grep -o "instruction count = [0-9]*" "$T_TMP/rec/vm-b/replay-1/gdb.log")
	b=$(grep -o "instruction count = [0-9]*" "$T_TMP/rec/vm-b/replay-2/gdb.log")
	echo "replay 1: $a; replay 2: $b; finished: $finished of 2"
	test -n "$a"
	test "$a" = "$b"
	c1=$T_TMP/rec/vm-b/replay-1/console.log c2=$T_TMP/rec/vm-b/replay-2/console.log
	n1=$(wc -c <"$c1") n2=$(wc -c <"$c2")
	n=$n1; [ "$n2" -lt "$n" ] && n=$n2
	echo "consoles: $n1 and $n2 bytes, recording $(wc -c <"$T_TMP/rec/vm-b/console.log")"
	test "$n" -gt 5000
	cmp -n "$n" "$c1" "$c2"
	cmp -n "$n" "$c1" "$T_TMP/rec/vm-b/console.log"
	test $finished = 2
	no_process_with "$T_TMP/rec"
'

# reverse-stepi on a replay: QEMU 7.2 reached the breakpoint and stepped on,
# but the step back did not come in every run (the default run of
# 2026-11-23 failed on it). QEMU 10 goes back by reloading the snapshot it
# took when gdb attached, and that reload stalls here (README
# "Record/replay"; netlab's nl-back replays again instead, t16): only with
# NETLAB_RR_TESTS=1.
fi
if [ "${NETLAB_RR_TESTS:-}" != 1 ]; then
	test_skip "a third replay steps one instruction on and back with reverse-stepi" \
		"QEMU's snapshot reload stalls (7.2 and 10 here); NETLAB_RR_TESTS=1 runs it"
else
test_expect_success 'a third replay steps one instruction on and back with reverse-stepi' '
	test -s "$T_TMP/rec/vm-b/replay.bin"
	a=$(grep -o "instruction count = [0-9]*" "$T_TMP/rec/vm-b/replay-1/gdb.log")
	# A third replay: stepi one instruction on, reverse-stepi back (QEMU
	# replays from the snapshot it took when gdb attached, so the console
	# starts over: not compared), then kill.
	cat >"$T_TMP/rev.gdb" <<-EOF
	hbreak virtnet_poll
	continue
	monitor info replay
	stepi
	monitor info replay
	reverse-stepi
	monitor info replay
	kill
	EOF
	"$NETLAB" gdb --replay --batch "$T_TMP/rev.gdb" --timeout 600 "$T_TMP/rec" \
		2>"$T_TMP/replay3.err" || true
	r=$(grep -o "instruction count = [0-9]*" "$T_TMP/rec/vm-b/replay-3/gdb.log" | tr "\n" " ")
	echo "replay 3: $r"
	set -- $(echo "$r" | grep -o "[0-9][0-9]*")
	test $# = 3
	test "instruction count = $1" = "$a"
	test $2 = $(($1 + 1))
	test $3 = $1
	no_process_with "$T_TMP/rec"
'
fi

test_expect_success 'a panic is decoded to the file and line gdb names' '
	rc=0; "$NETLAB" run --accel tcg --topology none -o "$T_TMP/crash" -q \
		--exec "echo c > /proc/sysrq-trigger" 2>/dev/null || rc=$?
	test $rc = 1
	test "$(json_get "$T_TMP/crash/result.json" verdict)" = panic
	"$NETLAB" report "$T_TMP/crash" >"$T_TMP/crash.txt" 2>&1 || true
	grep -q "^oops, decoded" "$T_TMP/crash.txt"
	grep -q "^sysrq_handle_crash at drivers/tty/sysrq.c:[0-9]" "$T_TMP/crash.txt"
	frame=$(grep -o "__handle_sysrq+0x[0-9a-f]*/0x[0-9a-f]*" "$T_TMP/crash/result.json" | head -1)
	test -n "$frame"
	ours=$(grep -A1 -F "$frame:" "$T_TMP/crash.txt" | tail -1 | sed "s/.* at //; s/ .*//")
	off=${frame#*+}; off=${off%/*}
	theirs=$(gdb -batch -nx "$KDIR/vmlinux" -ex "info line *(__handle_sysrq+$off)" 2>/dev/null |
		sed -n "s/^Line \([0-9]*\) of \"\(.*\)\".*/\2:\1/p")
	echo "ours=$ours theirs=$theirs"
	test -n "$ours"
	test -n "$theirs"
	case "$theirs" in */"$ours") ;; *) false ;; esac
	# The same lines in the JSON object.
	"$NETLAB" report --json "$T_TMP/crash" >"$T_TMP/crash.json" 2>/dev/null || true
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if any(l.startswith(\"sysrq_handle_crash at drivers/tty/sysrq.c:\") for l in d[\"oops\"]) else 1)" "$T_TMP/crash.json"
	# An edited oops whose offset lies past its function: a warning, not unrelated lines.
	cp -r "$T_TMP/crash" "$T_TMP/edited"
	len=${frame#*/}
	sed -i "s|$frame|__handle_sysrq+0xfffff/$len|g" "$T_TMP/edited/result.json" "$T_TMP/edited/console.log"
	"$NETLAB" report "$T_TMP/edited" >"$T_TMP/edited.txt" 2>&1 || true
	grep "__handle_sysrq+0xfffff" "$T_TMP/edited.txt"
	grep -q "__handle_sysrq+0xfffff/$len: warning: the offset lies past the function" "$T_TMP/edited.txt"
'

test_expect_success 'bad input: no vmlinux, no gdb, no recording: exit 2 with the reason' '
	mkdir "$T_TMP/nodebug"
	cp "$KERNEL" "$T_TMP/nodebug/bzImage"
	rc=0; "$NETLAB" gdb --batch /dev/null --kernel "$T_TMP/nodebug/bzImage" -o "$T_TMP/x1" \
		"$SCN/gdb-e1000e.scn" 2>"$T_TMP/e1" || rc=$?
	test $rc = 2 && grep -q "vmlinux" "$T_TMP/e1" && grep -q "hint:" "$T_TMP/e1"
	rc=0; PATH=/nonexistent "$NETLAB" gdb --batch /dev/null -o "$T_TMP/x2" \
		"$SCN/gdb-e1000e.scn" 2>"$T_TMP/e2" || rc=$?
	test $rc = 2 && grep -q "cannot find gdb" "$T_TMP/e2"
	mkdir "$T_TMP/stale"
	rc=0; "$NETLAB" gdb --replay --batch /dev/null "$T_TMP/stale" 2>"$T_TMP/e3" || rc=$?
	test $rc = 2 && grep -q "no recording" "$T_TMP/e3"
	no_process_with "$T_TMP/x1"
'

test_done
