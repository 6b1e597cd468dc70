#!/usr/bin/env bash
# Bring your own tests: a script of the user's, in a host directory shared
# over virtio-9p, runs in the guest as an [exec] scenario. It reads a data
# file from the share, sends UDP from netns a to a port of b nobody listens
# on and TCP to a listener in b, and prints KTAP. The checks see its exit
# status and its KTAP subtests; the run directory keeps its output, the
# pcaps with its packets and the drops it caused. A failing script fails
# the suite (exit 1), a hanging one is killed at its timeout (124), a
# missing share is bad input (exit 2); a :rw share carries a file back to
# the host, --add puts a file in the guest. With libvirtd up, the libvirt
# backend runs the same scenario.
. "$(dirname "$0")/../lib.sh"
need_guest

T=$T_TMP/mytests
mkdir -p "$T"
echo 25 >"$T/count.txt"
cat >"$T/udp-tcp.sh" <<'SH'
#!/bin/sh
# KTAP on stdout: the share's data, UDP a -> b:9 (no listener), TCP a -> b:7000.
echo "KTAP version 1"
echo "1..3"
n=$(cat count.txt)
[ "$n" = 25 ] && echo "ok 1 read count" || echo "not ok 1 read count"
udp-stream --send --dst 198.18.0.2 --port 9 --count "$n" --rate 1000 --size 100 >/tmp/u.json 2>&1 &&
	echo "ok 2 udp sent" || echo "not ok 2 udp sent"
/sbin/ip netns exec b nc -l -p 7000 >/tmp/tcp-got &
sleep 0.5
echo hello-tcp | nc -w 2 198.18.0.2 7000
sleep 0.5
grep -q hello-tcp /tmp/tcp-got && echo "ok 3 tcp: echo" || echo "not ok 3 tcp: echo"
[ -e fail ] && exit 3
exit 0
SH
chmod +x "$T/udp-tcp.sh"
cat >"$T_TMP/byo.scn" <<'SCN'
[scenario]
description = a script of the user's from a share, with KTAP
share = mytests

[exec]
run = ./udp-tcp.sh
netns = a
timeout = 300s
ktap = yes

[checks]
ran = exec.exit == 0
tcp = exec.ktap.tcp_echo == 1
data = exec.ktap.read_count == 1
none_failed = exec.ktap.fail == 0
SCN
cat >"$T_TMP/hang.scn" <<'SCN'
[scenario]
share = mytests
[exec]
run = echo started; sleep 600
timeout = 5s
[trace]
enabled = no
[checks]
ran = exec.exit == 0
SCN

qemu_left() { pgrep -f "qemu-system.*$T_TMP" || true; }
# metric RUN_DIR NAME: a value of RUN_DIR/metrics.json (names hold dots).
metric() { python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))[sys.argv[2]]; print(int(v) if v == int(v) else v)' "$1/metrics.json" "$2"; }

test_expect_success '[exec] with a share: the script runs, its KTAP subtests and exit pass' '
	rc=0; "$NETLAB" regress --out "$T_TMP/good" "$T_TMP/byo.scn" >"$T_TMP/good.out" 2>&1 || rc=$?
	cat "$T_TMP/good.out"
	test $rc = 0
	grep -Eq "^byo +ran +exec.exit +0 .*pass" "$T_TMP/good.out"
	grep -Eq "^byo +tcp +exec.ktap.tcp_echo +1 .*pass" "$T_TMP/good.out"
	r=$T_TMP/good/byo/run-1
	grep -qx "ok 1 read count" "$r/exec.out"
	test "$(metric "$r" exec.ktap.pass)" = 3
	test -z "$(qemu_left)"
'

test_expect_success 'the run directory: the script.s packets in the pcaps, its drops by reason' '
	r=$T_TMP/good/byo/run-1
	# 25 datagrams and udp-stream.s 5 END copies, on both ends of the link.
	"$NETLAB" pcap "$r/nic-A.pcap" "udp dst port 9" >"$T_TMP/pa"
	"$NETLAB" pcap "$r/nic-B.pcap" "udp dst port 9" >"$T_TMP/pb"
	cat "$T_TMP/pa"
	grep -qx "matched 30" "$T_TMP/pa"
	grep -qx "matched 30" "$T_TMP/pb"
	test "$(tcpdump -nr "$r/nic-A.pcap" "tcp dst port 7000 and tcp[tcpflags] & tcp-syn != 0" 2>/dev/null | wc -l)" -ge 1
	# Nobody listens on b:9: the kernel drops each one, reason NO_SOCKET.
	test "$(metric "$r" drops.reason.NO_SOCKET)" = 30
	test -s "$r/files/trace.dat"
'

test_expect_success 'the script fails (exit 3): netlab regress exits 1 on exec.exit' '
	touch "$T/fail"
	rc=0; "$NETLAB" regress --out "$T_TMP/bad" "$T_TMP/byo.scn" >"$T_TMP/bad.out" 2>&1 || rc=$?
	rm -f "$T/fail"
	cat "$T_TMP/bad.out"
	test $rc = 1
	grep -Eq "^byo +ran +exec.exit +3 .*fail" "$T_TMP/bad.out"
	grep -Eq "^byo +tcp +exec.ktap.tcp_echo +1 .*pass" "$T_TMP/bad.out"
	grep -q "^  exec: .\./udp-tcp.sh. exited with status 3; its output: .*/bad/byo/run-1/exec.out" "$T_TMP/bad.out"
	test -z "$(qemu_left)"
'

test_expect_success 'a command past its [exec] timeout is killed in the guest: exec.exit 124' '
	rc=0; "$NETLAB" regress --out "$T_TMP/hang" "$T_TMP/hang.scn" >"$T_TMP/hang.out" 2>&1 || rc=$?
	cat "$T_TMP/hang.out"
	test $rc = 1
	grep -Eq "^hang +ran +exec.exit +124 .*fail" "$T_TMP/hang.out"
	grep -q "^  exec: .echo started; sleep 600. was killed after its timeout, 5 s (exec.exit 124)" "$T_TMP/hang.out"
	r=$T_TMP/hang/hang/run-1
	test "$(metric "$r" exec.timed_out)" = 1
	grep -qx started "$r/exec.out"
	grep -q "killed after its timeout, 5 s: exec.exit = 124" "$r/exec.out"
	test -z "$(qemu_left)"
'

test_expect_success 'bad shares exit 2 naming the option or FILE:LINE, before any boot' '
	rc=0; "$NETLAB" regress --out "$T_TMP/x1" --share "$T_TMP/nope" "$T_TMP/byo.scn" 2>"$T_TMP/x1.err" || rc=$?
	cat "$T_TMP/x1.err"; test $rc = 2
	grep -q "share .*nope.*: no directory" "$T_TMP/x1.err"
	grep -q "^hint:" "$T_TMP/x1.err"
	rc=0; "$NETLAB" run --out "$T_TMP/x2" --share "$T:/proc/x" --exec true 2>"$T_TMP/x2.err" || rc=$?
	cat "$T_TMP/x2.err"; test $rc = 2
	grep -q "inside ./proc., which the guest agent uses" "$T_TMP/x2.err"
	rc=0; "$NETLAB" run --out "$T_TMP/x3" --share "$T:mnt" --exec true 2>"$T_TMP/x3.err" || rc=$?
	test $rc = 2; grep -q "is not absolute" "$T_TMP/x3.err"
	sed "s/^share = mytests/share = missing-dir/" "$T_TMP/byo.scn" >"$T_TMP/nodir.scn"
	rc=0; "$NETLAB" regress --out "$T_TMP/x4" "$T_TMP/nodir.scn" 2>"$T_TMP/x4.err" || rc=$?
	cat "$T_TMP/x4.err"; test $rc = 2
	grep -q "nodir.scn:3: share .missing-dir.: no directory" "$T_TMP/x4.err"
	test ! -e "$T_TMP/x2/console.log"
'

test_expect_success 'a :rw share carries a file back to the host; a read-only one refuses writes' '
	mkdir -p "$T_TMP/rw"
	"$NETLAB" run --topology none --out "$T_TMP/rwrun" --share "$T_TMP/rw:/mnt/rw:rw" --share "$T" \
		--exec "echo from-guest > /mnt/rw/result.txt; touch /mnt/share/mytests/x 2>&1 || echo RO-OK" \
		>"$T_TMP/rw.out" 2>&1 || { cat "$T_TMP/rw.out"; false; }
	cat "$T_TMP/rw.out"
	test "$(cat "$T_TMP/rw/result.txt")" = from-guest
	grep -q RO-OK "$T_TMP/rw.out"
	test ! -e "$T/x"
'

test_expect_success '--add FILE puts the file in the guest (default path, given ones, /etc; not /proc)' '
	printf "added-%s\n" one >"$T_TMP/add1.txt"
	printf "added-%s\n" two >"$T_TMP/add2.txt"
	"$NETLAB" run --topology none --out "$T_TMP/addrun" --add "$T_TMP/add1.txt" \
		--add "$T_TMP/add2.txt:/opt/t/two.txt" --add "$T_TMP/add2.txt:/etc/netlab-t25.conf" \
		--exec "cat /mnt/add/add1.txt /opt/t/two.txt; cat /etc/netlab-t25.conf" >"$T_TMP/add.out" 2>&1 ||
		{ cat "$T_TMP/add.out"; false; }
	grep -qx added-one "$T_TMP/add.out"
	test "$(grep -cx added-two "$T_TMP/add.out")" = 2
	rc=0; "$NETLAB" run --out "$T_TMP/addbad" --add "$T_TMP/add1.txt:/proc/x" --exec true 2>"$T_TMP/addbad.err" || rc=$?
	test $rc = 2; grep -q "inside ./proc." "$T_TMP/addbad.err"
'

URI=${NETLAB_LIBVIRT_URI:-qemu:///system}
if virsh -c "$URI" version >/dev/null 2>&1; then
	test_expect_success 'the libvirt backend: the same [exec] scenario with its share passes' '
		chmod -R a+rX "$T_TMP"
		rc=0; "$NETLAB" regress --backend libvirt --connect "$URI" --out "$T_TMP/lv" "$T_TMP/byo.scn" \
			>"$T_TMP/lv.out" 2>&1 || rc=$?
		cat "$T_TMP/lv.out"
		test $rc = 0
		grep -Eq "^byo +tcp +exec.ktap.tcp_echo +1 .*pass" "$T_TMP/lv.out"
		grep -q "<filesystem type=.mount. accessmode=.squash.>" "$T_TMP/lv/byo/run-1/domain.xml"
		virt-xml-validate "$T_TMP/lv/byo/run-1/domain.xml" domain
	'
elif [ "${NETLAB_REQUIRE_LIBVIRT:-0}" = 1 ]; then
	test_expect_success 'the libvirt backend (required)' 'echo "libvirt at $URI does not answer"; false'
else
	test_skip 'the libvirt backend' "libvirt at $URI does not answer (ci/libvirtd.sh)"
fi

test_done
