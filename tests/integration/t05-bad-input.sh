#!/usr/bin/env bash
# Bad input: a clear message naming the thing and what to do, exit 2.
. "$(dirname "$0")/../lib.sh"
[ -x "$NETLAB" ] || skip_all "build/netlab missing (run make)"

expect_usage_error() { # expect_usage_error NEEDLE ARGS...
	local needle=$1 rc=0; shift
	"$NETLAB" "$@" >"$T_TMP/out" 2>"$T_TMP/err" || rc=$?
	cat "$T_TMP/err"
	test $rc = 2
	grep -q -- "$needle" "$T_TMP/err"
}

test_expect_success 'missing kernel: named, with a hint, exit 2' '
	expect_usage_error "/nonexistent/bzImage" run --kernel /nonexistent/bzImage --out "$T_TMP/r1"
	grep -q "hint:" "$T_TMP/err"
'
test_expect_success 'unreadable or non-bzImage kernel: exit 2' '
	echo "not a kernel" >"$T_TMP/fake"
	expect_usage_error "not an x86 bzImage" run --kernel "$T_TMP/fake" --out "$T_TMP/r2"
'
test_expect_success 'missing initramfs: named, exit 2' '
	[ -r "$KERNEL" ] || { echo "needs a kernel"; false; }
	expect_usage_error "/nonexistent/initrd" run --initrd /nonexistent/initrd --out "$T_TMP/r3"
'
test_expect_success 'unknown NIC model: exit 2, lists the known ones' '
	expect_usage_error "rtl8139" run --nic A=rtl8139
	grep -q "e1000, e1000e, virtio-net" "$T_TMP/err"
'
test_expect_success 'bad options: exit 2' '
	expect_usage_error "--accel" run --accel warp
	expect_usage_error "--timeout" run --timeout never
	expect_usage_error "--frob" run --frob
	expect_usage_error "unknown command" frob
'
test_expect_success 'non-empty run directory is refused, exit 2, and left alone' '
	[ -r "$KERNEL" ] && [ -r "$INITRD" ] || { echo "needs kernel and initramfs"; false; }
	mkdir -p "$T_TMP/used"
	echo keep >"$T_TMP/used/mine"
	rc=0; "$NETLAB" run --accel tcg --out "$T_TMP/used" 2>"$T_TMP/err" || rc=$?
	test $rc = 2
	grep -q "not empty" "$T_TMP/err"
	test "$(cat "$T_TMP/used/mine")" = keep
'
test_expect_success 'damaged capture: named, exit 2' '
	printf "garbage" >"$T_TMP/bad.pcap"
	expect_usage_error "bad.pcap" pcap "$T_TMP/bad.pcap"
'
test_expect_success 'a comma in --out (QEMU splits options on it): exit 2, named, nothing boots' '
	rc=0; "$NETLAB" run --out "$T_TMP/a,b" --exec true 2>"$T_TMP/comma.err" || rc=$?
	cat "$T_TMP/comma.err"
	test $rc = 2
	grep -q "holds a .,., which QEMU.s option syntax splits on" "$T_TMP/comma.err"
	grep -q "^hint: " "$T_TMP/comma.err"
	no_process_with "$T_TMP/a,b"
	rc=0; "$NETLAB" regress --out "$T_TMP/c,d" udp-clean 2>"$T_TMP/comma2.err" || rc=$?
	test $rc = 2
	grep -q "holds a .,." "$T_TMP/comma2.err"
'

test_expect_success 'a broken baselines file: exit 2 before anything boots' '
	mkdir -p "$T_TMP/bl"
	cp "$TOP/tests/regress/udp-clean.scn" "$T_TMP/bl/x.scn"
	printf "{ \"udp.lost\": NaN }" >"$T_TMP/bl/x.baseline.json"
	rc=0; "$NETLAB" regress --out "$T_TMP/blout" "$T_TMP/bl/x.scn" 2>"$T_TMP/bl.err" || rc=$?
	cat "$T_TMP/bl.err"
	test $rc = 2
	grep -q "x.baseline.json: the value of .udp.lost. is not a finite number" "$T_TMP/bl.err"
	test ! -e "$T_TMP/blout"
	printf "{ \"a\": 1, \"a\": 2 }" >"$T_TMP/bl/x.baseline.json"
	rc=0; "$NETLAB" regress --out "$T_TMP/blout" "$T_TMP/bl/x.scn" 2>"$T_TMP/bl.err" || rc=$?
	test $rc = 2
	grep -q "x.baseline.json:1: key .a. appears twice" "$T_TMP/bl.err"
'

test_done
