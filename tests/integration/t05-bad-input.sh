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
	grep -q "e1000, e1000e, virtio-net, igb" "$T_TMP/err"
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

# expect_refused NEEDLE ARGS...: exit 2 naming NEEDLE, a hint, and no QEMU of $T_TMP.
expect_refused() {
	expect_usage_error "$@"
	grep -q "^hint: " "$T_TMP/err"
	no_process_with "qemu-system.*$T_TMP"
}

test_expect_success 'an = in --out (QEMU reads unix:PATH as KEY=VALUE): exit 2 from every command, nothing boots' '
	expect_refused "--out .$T_TMP/a=b. holds a .=." run --out "$T_TMP/a=b" --exec true
	expect_refused "--out .$T_TMP/c=d. holds a .=." regress --out "$T_TMP/c=d" udp-clean
	expect_refused "--out .$T_TMP/e=f. holds a .=." selftests --no-tools --out "$T_TMP/e=f"
	expect_refused "--out .$T_TMP/g=h. holds a .=." gdb --out "$T_TMP/g=h" "$TOP/tests/regress/udp-clean.scn"
	test ! -e "$T_TMP/a=b" && test ! -e "$T_TMP/c=d"
'
test_expect_success 'an --out that is a file: exit 2 naming it, the file left alone' '
	echo keep >"$T_TMP/afile"
	expect_refused "--out .$T_TMP/afile.: it exists and is not a directory" run --out "$T_TMP/afile"
	expect_refused "--out .$T_TMP/afile.: it exists and is not a directory" regress --out "$T_TMP/afile" udp-clean
	expect_refused "--out .$T_TMP/afile/sub.: a component of it is a file" run --out "$T_TMP/afile/sub"
	expect_refused "--out .$T_TMP/afile.: it exists" selftests --no-tools --out "$T_TMP/afile"
	test "$(cat "$T_TMP/afile")" = keep
'
test_expect_success 'an --out too long for its unix sockets (108 bytes, sun_path): exit 2 naming the limit' '
	long=$T_TMP/$(printf "%0100d" 0)
	expect_refused "shorter than 108 bytes (sun_path)" run --out "$long"
	grep -q -- "--out .$long. is too long" "$T_TMP/err"
	test ! -e "$long"
	# A suite: OUT/SCENARIO/run-N/qmp.sock must fit, not just OUT; a two-VM
	# scenario.s is OUT/SCENARIO/run-N/vm-b/qmp.sock.
	mid=$T_TMP/$(printf "%0$((107 - ${#T_TMP} - 1 - 9 - 10))d" 0)
	expect_refused "$mid/udp-clean/run-1/qmp.sock" regress --out "$mid" udp-clean
	test ! -e "$mid"
	mid=$T_TMP/$(printf "%0$((107 - ${#T_TMP} - 1 - 14 - 15))d" 0)
	expect_refused "$mid/udp-pair-flood/run-1/vm-b/qmp.sock" regress --out "$mid" udp-pair-flood
	test ! -e "$mid"
'
test_expect_success 'an empty or garbage initramfs: exit 2 naming it, nothing boots (not a panic, exit 1)' '
	[ -r "$KERNEL" ] || { echo "needs a kernel"; false; }
	: >"$T_TMP/empty.img"
	head -c 4096 /dev/urandom | tr "\037\375\050\002\102\135\060" x >"$T_TMP/garbage.img"
	echo "not a cpio" | gzip >"$T_TMP/notcpio.gz"
	expect_refused "initramfs .$T_TMP/empty.img.: it is empty" run --initrd "$T_TMP/empty.img" --out "$T_TMP/i1"
	expect_refused "garbage.img.: not an initramfs" run --initrd "$T_TMP/garbage.img" --out "$T_TMP/i2"
	expect_refused "notcpio.gz.: gzip data that does not unpack to a cpio archive" run --initrd "$T_TMP/notcpio.gz" --out "$T_TMP/i3"
	expect_refused "--initrd .$T_TMP/empty.img.: it is empty" regress --initrd "$T_TMP/empty.img" --out "$T_TMP/i4" udp-clean
	expect_refused "--initrd .$T_TMP/garbage.img.: not an initramfs" selftests --no-tools --initrd "$T_TMP/garbage.img" --out "$T_TMP/i5"
	expect_refused "--initrd .$T_TMP/empty.img.: it is empty" gdb --initrd "$T_TMP/empty.img" "$TOP/tests/regress/udp-clean.scn"
	test ! -e "$T_TMP/i4"
'
test_expect_success 'bisect: its --out (steps/NN-COMMIT/runs-N/SCENARIO/run-N below) and --initrd checked before any build' '
	git init -q "$T_TMP/mod" && echo "int a;" >"$T_TMP/mod/a.c"
	git -C "$T_TMP/mod" add a.c
	git -C "$T_TMP/mod" -c user.name=t -c user.email=t@t commit -qm one
	echo "int b;" >>"$T_TMP/mod/a.c"
	git -C "$T_TMP/mod" -c user.name=t -c user.email=t@t commit -qam two
	set -- bisect --module "$T_TMP/mod" --good HEAD~1 --bad HEAD --scenario "$TOP/tests/regress/udp-clean.scn"
	expect_refused "--out .$T_TMP/b=c. holds a .=." "$@" --out "$T_TMP/b=c"
	long=$T_TMP/$(printf "%0$((107 - ${#T_TMP} - 1 - 9 - 40))d" 0)
	expect_refused "$long/steps/00-000000000000/runs-2/udp-clean/run-1/qmp.sock" "$@" --out "$long"
	: >"$T_TMP/empty.img"
	expect_refused "--initrd .$T_TMP/empty.img.: it is empty" "$@" --initrd "$T_TMP/empty.img" --out "$T_TMP/b1"
	test ! -e "$T_TMP/b=c" && test ! -e "$long" && test ! -e "$T_TMP/b1"
'
test_expect_success 'report --html on a truncated trace.dat: the page, and exit 2 naming the file' '
	head -c 300000 "$TOP/tests/unit/fixtures/traces/lost.dat" >"$T_TMP/cut.dat"
	expect_usage_error "cannot read trace .$T_TMP/cut.dat.: libtracecmd cannot parse" report --html -o "$T_TMP/cut.html" "$T_TMP/cut.dat"
	grep -q "cut.html was written" "$T_TMP/err"
	grep -q "data-error" "$T_TMP/cut.html"
	for mode in "" --json --ring --list --latency; do
		expect_usage_error "cut.dat" report $mode "$T_TMP/cut.dat"
	done
	: >"$T_TMP/empty.dat"
	expect_usage_error "empty.dat.: the file is empty" report --html -o "$T_TMP/e.html" "$T_TMP/empty.dat"
	"$NETLAB" report --html -o "$T_TMP/whole.html" "$TOP/tests/unit/fixtures/traces/lost.dat" >/dev/null
'
test_expect_success 'a : in a shared directory or added file: exit 2 naming the path given and why' '
	mkdir -p "$T_TMP/sh:are"
	echo x >"$T_TMP/fi:le"
	expect_refused "host path .$T_TMP/sh:are. holds a .:., which separates the fields" run --share "$T_TMP/sh:are" --out "$T_TMP/s1"
	expect_refused "host path .$T_TMP/sh:are. holds a .:." run --share "$T_TMP/sh:are:rw" --out "$T_TMP/s1"
	expect_refused "host path .$T_TMP/sh:are. holds a .:." regress --share "$T_TMP/sh:are:/mnt/share/x:rw" --out "$T_TMP/s2" udp-clean
	expect_refused "host path .$T_TMP/fi:le. holds a .:." run --add "$T_TMP/fi:le" --out "$T_TMP/s3"
'

test_done
