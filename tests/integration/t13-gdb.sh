#!/usr/bin/env bash
# netlab gdb: a batch session stops in e1000e's NAPI path on a running
# scenario, a recorded run replays deterministically, an oops is decoded to
# the line gdb names, and bad input is refused with exit 2.
. "$(dirname "$0")/../lib.sh"
need_guest
command -v gdb >/dev/null || skip_all "gdb missing (apt-get install gdb)"
KDIR=$(dirname "$(readlink -f "$KERNEL")")
[ -r "$KDIR/vmlinux" ] || skip_all "no vmlinux beside $KERNEL (make kernel)"
SCN=$TOP/tests/integration/scenarios

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

# What this tests of record/replay is what works here (README, "netlab gdb"):
# QEMU 7.2's replay of a netlab guest stalls once the guest command starts,
# so two replays are compared up to that point: the same breakpoint hit at
# the same instruction count, and the same console, a prefix of the
# recorded one. VM b of a pair is recorded; its packets come from VM a.
test_expect_success 'recorded VM replays: breakpoint at the same icount twice, same console' '
	"$NETLAB" run --topology pair --record=b -o "$T_TMP/rec" -q \
		--exec "ping -c 20 -i 0.1 198.18.0.2 || true" --peer-exec "sleep 4" 2>"$T_TMP/rec.err" ||
		{ cat "$T_TMP/rec.err"; false; }
	test -s "$T_TMP/rec/vm-b/replay.bin"
	grep -q "rr=replay" "$T_TMP/rec/vm-b/replay.argv"
	grep -q "rr=record" "$T_TMP/rec/vm-b/cmdline"
	cat >"$T_TMP/ic.gdb" <<-EOF
	hbreak virtnet_poll
	continue
	monitor info replay
	delete
	continue
	EOF
	for i in 1 2; do
		rc=0; "$NETLAB" gdb --replay --batch "$T_TMP/ic.gdb" --timeout 90 "$T_TMP/rec" \
			2>"$T_TMP/replay$i.err" || rc=$?
		test $rc = 0 || test $rc = 125 || { cat "$T_TMP/replay$i.err"; false; }
	done
	a=$(grep -o "instruction count = [0-9]*" "$T_TMP/rec/vm-b/replay-1/gdb.log")
	b=$(grep -o "instruction count = [0-9]*" "$T_TMP/rec/vm-b/replay-2/gdb.log")
	echo "replay 1: $a; replay 2: $b"
	test -n "$a" && test "$a" = "$b"
	# Replays stall once the guest command starts (README) and are ended by
	# --timeout, each at its own point: the consoles must agree byte for
	# byte as far as both got, and with the recording.
	c1=$T_TMP/rec/vm-b/replay-1/console.log c2=$T_TMP/rec/vm-b/replay-2/console.log
	n1=$(wc -c <"$c1") n2=$(wc -c <"$c2")
	n=$n1; [ "$n2" -lt "$n" ] && n=$n2
	echo "consoles: $n1 and $n2 bytes"
	test "$n" -gt 10000
	cmp -n "$n" "$c1" "$c2"
	cmp -n "$n" "$c1" "$T_TMP/rec/vm-b/console.log"
'

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
	test -n "$ours" && test -n "$theirs"
	case "$theirs" in */"$ours") ;; *) false ;; esac
	# The same lines in the JSON object.
	"$NETLAB" report --json "$T_TMP/crash" >"$T_TMP/crash.json" 2>/dev/null || true
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if any(l.startswith(\"sysrq_handle_crash at drivers/tty/sysrq.c:\") for l in d[\"oops\"]) else 1)" "$T_TMP/crash.json"
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
