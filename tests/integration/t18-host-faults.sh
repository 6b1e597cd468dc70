#!/usr/bin/env bash
# Host-side faults: QEMU killed while the command runs and while the guest
# sends its files, a guest that floods its console, a guest that stops
# answering, a full disk before and during a run and a suite. Each ends with
# its own verdict and exit status, keeps what was collected, and leaves no
# QEMU behind.
. "$(dirname "$0")/../lib.sh"
need_guest

# start_run DIR [netlab run options...]: in the background ($pid), until
# the guest command has printed its first line, "running" (the "exec"
# status comes before it; a QEMU killed then would not have passed it on).
start_run() {
	local d=$1
	shift
	"$NETLAB" run --accel tcg --out "$d" "$@" >"$d.out" 2>"$d.err" &
	pid=$!
	for _ in $(seq 1 480); do
		grep -qx running "$d/stdout" 2>/dev/null && return 0
		kill -0 $pid 2>/dev/null || break
		sleep 0.5
	done
	echo "the guest command never started"; cat "$d.err"; return 1
}

# The QEMU process of run directory $1 (its arguments name files in it).
qemu_of() {
	pgrep -f -- "qemu-system-x86_64 .*$1/"
}

# wait_rc: netlab's exit status into $rc.
wait_rc() {
	rc=0
	wait $pid || rc=$?
	echo "netlab exit $rc: $(json_get "$1/result.json" verdict 2>/dev/null): $(json_get "$1/result.json" reason 2>/dev/null)"
}

test_expect_success 'QEMU killed while the command runs: infra-error naming the signal, 125, output kept' '
	d=$T_TMP/qkill
	start_run "$d" --timeout 300 --exec "echo running; sleep 600"
	kill -KILL $(qemu_of "$d")
	wait_rc "$d"
	test $rc = 125
	test "$(json_get "$d/result.json" verdict)" = infra-error
	json_get "$d/result.json" reason | grep -q "QEMU was killed by signal 9"
	grep -qx running "$d/stdout"
	grep -q "Linux version" "$d/console.log"
	no_process_with "$d/"
'

test_expect_success 'QEMU killed while the guest sends its files: infra-error, not ok; the cut files.tar kept' '
	d=$T_TMP/cut
	# 64 MB through a virtio-serial port cannot pass between two looks 50 ms apart.
	start_run "$d" --timeout 300 --mem 512 \
		--exec "echo running; head -c 67108864 /dev/zero > /netlab/out/blob; echo wrote"
	for _ in $(seq 1 1200); do
		test -s "$d/files.tar" && break
		sleep 0.05
	done
	kill -KILL $(qemu_of "$d")
	wait_rc "$d"
	size=$(stat -c %s "$d/files.tar")
	echo "files.tar: $size bytes when QEMU was killed"
	test "$size" -gt 0
	test "$size" -lt 67108864
	test $rc = 125
	test "$(json_get "$d/result.json" verdict)" = infra-error
	test "$(json_get "$d/result.json" exit_status)" = 0
	json_get "$d/result.json" reason | grep -q "before the guest had sent its files"
	grep -qx wrote "$d/stdout"
	no_process_with "$d/"
'

# netlab's own peak memory (VmHWM), not its children's: QEMU's RSS is the
# guest's RAM. The guest writes ~32 MB to its serial console: four times
# what netlab keeps of one. A slow host moves ~165 KB/s through the emulated
# UART (49 MB in 300 s in one CI run), hence the long --timeout.
test_expect_success 'a guest that floods its console: ok, the whole log on disk, netlab memory bounded' '
	d=$T_TMP/flood
	"$NETLAB" run --accel tcg --timeout 900 --out "$d" \
		--exec "i=0; while [ \$i -lt 16 ]; do cat /proc/kallsyms; i=\$((i + 1)); done > /dev/console; echo done" \
		>"$d.out" 2>"$d.err" &
	pid=$!
	hwm=0
	while kill -0 $pid 2>/dev/null; do
		h=$(awk "/^VmHWM:/ { print \$2 }" /proc/$pid/status 2>/dev/null || true)
		[ -z "$h" ] || hwm=$h
		sleep 0.2
	done
	wait_rc "$d"
	log=$(stat -c %s "$d/console.log")
	echo "console.log $log bytes, netlab peak RSS $hwm KiB"
	test $rc = 0
	test "$(json_get "$d/result.json" verdict)" = ok
	grep -qx done "$d/stdout"
	# Far more than netlab keeps of a console (8.25 MiB, and 4 MiB read per turn),
	# and its memory did not follow it.
	test "$log" -gt 28000000
	test "$hwm" -gt 0
	test "$hwm" -lt 40000	# KiB: seen 25,688; keeping the whole log would add ~31,000
	no_process_with "$d/"
'

test_expect_success 'a guest that stops answering (QEMU stopped): timeout at --timeout, QEMU gone' '
	d=$T_TMP/frozen
	start_run "$d" --timeout 60 --exec "echo running; sleep 600"
	kill -STOP $(qemu_of "$d")
	wait_rc "$d"
	test $rc = 1
	test "$(json_get "$d/result.json" verdict)" = timeout
	grep -qx running "$d/stdout"
	no_process_with "$d/"
'

# A small file system of our own (root: mount); CI runs as root.
mnt=$T_TMP/small
mkdir -p "$mnt"
if ! mount -t tmpfs -o size=16m netlab-t18 "$mnt" 2>/dev/null; then
	test_skip 'a full disk' "cannot mount a tmpfs here (not root?)"
	test_done
	exit
fi
trap 'umount -l "$mnt" 2>/dev/null; t_cleanup' EXIT

test_expect_success 'too little space for a run: 125 before anything boots, naming the device and the need' '
	rc=0
	"$NETLAB" run --accel tcg --out "$mnt/run" --exec true >"$T_TMP/small.out" 2>"$T_TMP/small.err" || rc=$?
	cat "$T_TMP/small.err"
	test $rc = 125
	grep -q "no space left on netlab-t18 (mounted at $mnt): .* MB free, needed about [0-9]* MB" "$T_TMP/small.err"
	grep -q "^hint: " "$T_TMP/small.err"
	test ! -e "$mnt/run/console.log"
	rc=0
	"$NETLAB" regress --out "$mnt/suite" "$TOP/tests/regress/udp-clean.scn" "$TOP/tests/regress/tcp-stream.scn" \
		>"$T_TMP/small-suite.out" 2>"$T_TMP/small-suite.err" || rc=$?
	cat "$T_TMP/small-suite.err"
	test $rc = 125
	grep -q "no space left on netlab-t18 .* for 2 runs" "$T_TMP/small-suite.err"
	test ! -e "$mnt/suite/udp-clean"
'

ksrc=$(ls -d "${NETLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/netlab}"/src/debian-linux-source-6.1-* 2>/dev/null | head -n 1)
if [ -n "$ksrc" ]; then
	test_expect_success 'too little space for a kernel build: refused before it starts, naming the device' '
		rc=0
		NETLAB_CACHE=$mnt/cache KSRC=$ksrc "$TOP/harness/kbuild.sh" >/dev/null 2>"$T_TMP/kbuild.err" || rc=$?
		cat "$T_TMP/kbuild.err"
		test $rc = 1
		grep -q "no space left on netlab-t18 (mounted at $mnt): [0-9]* MB free, needed about 2400 MB to build the kernel" "$T_TMP/kbuild.err"
		test ! -e "$mnt/cache/build/"*/obj
	'
else
	test_skip 'too little space for a kernel build' "no extracted linux-source-6.1 in netlab's cache (make kernel)"
fi

# Room for a run, then filled while it goes.
need=$(( $(stat -c %s "$INITRD") / 1048576 + 104 ))
umount "$mnt" && mount -t tmpfs -o size=${need}m netlab-t18 "$mnt"

# The verdict shows it ended for the disk, not at its 300 s timeout.
test_expect_success 'the disk fills during a run: infra-error naming the disk, 125, result.json written' '
	d=$mnt/fill
	start_run "$d" --timeout 300 --exec "echo running; sleep 600"
	t0=$(date +%s)
	dd if=/dev/zero of="$mnt/filler" bs=1M 2>/dev/null || true
	wait_rc "$d"
	took=$(( $(date +%s) - t0 ))
	echo "ended $took s after the disk filled"
	cat "$d.err" | tail -n 3
	test $rc = 125
	test "$(json_get "$d/result.json" verdict)" = infra-error
	json_get "$d/result.json" reason | grep -q "^no space left on netlab-t18 (mounted at $mnt): .* MB free, needed about"
	grep -qx running "$d/stdout"
	grep -q "Linux version" "$d/console.log"
	no_process_with "$d/"
	rm -f "$mnt/filler"
'

umount "$mnt" && mount -t tmpfs -o size=${need}m netlab-t18 "$mnt"

# The guest leaves 16 MB; the disk is filled while it sleeps so that
# files.tar (16 MB) still arrives but unpacking it does not fit. The run's
# result.json is still written (it was kept room for), naming the disk.
test_expect_success 'the disk fills while the run'"'"'s files are unpacked: infra-error naming files/ and the disk, result.json written, files.tar kept' '
	d=$mnt/unpack
	start_run "$d" --timeout 300 --mem 512 \
		--exec "head -c 16777216 /dev/zero > /netlab/out/blob; echo running; sleep 8"
	avail=$(df -B1 --output=avail "$mnt" | tail -n 1)
	# 16 MB for files.tar and 4 MB for the logs; not another 16 MB for files/.
	fill=$(( avail - (20 << 20) ))
	test $fill -gt 0
	head -c $fill /dev/zero >"$mnt/filler"
	wait_rc "$d"
	cat "$d.err" | tail -n 3
	test $rc = 125
	test "$(json_get "$d/result.json" verdict)" = infra-error
	test "$(json_get "$d/result.json" provisional 2>/dev/null || echo none)" = none
	json_get "$d/result.json" reason | grep -q "^disk full: cannot unpack the guest'"'"'s files.tar into '"'"'$d/files'"'"': no space left on netlab-t18"
	test $(stat -c %s "$d/files.tar") -ge 16777216
	test ! -e "$d/.result-reserve"
	grep -qx running "$d/stdout"
	no_process_with "$d/"
	rm -f "$mnt/filler"
'

# Room for a suite of two runs, filled while the first goes (-j 1).
umount "$mnt" && mount -t tmpfs -o size=$((2 * need))m netlab-t18 "$mnt"

test_expect_success 'the disk fills during a suite: that run infra-error, the next not started, 125, summary written' '
	s=$mnt/suite
	"$NETLAB" regress -j 1 --out "$s" "$TOP/tests/regress/udp-clean.scn" "$TOP/tests/regress/tcp-stream.scn" \
		>"$T_TMP/suite.out" 2>"$T_TMP/suite.err" &
	pid=$!
	for _ in $(seq 1 480); do
		grep -q "^exec " "$s"/udp-clean/run-1/status 2>/dev/null && break
		sleep 0.5
	done
	dd if=/dev/zero of="$mnt/filler" bs=1M 2>/dev/null || true
	rc=0
	wait $pid || rc=$?
	cat "$T_TMP/suite.out" "$T_TMP/suite.err" | tail -n 12
	test $rc = 125
	test "$(json_get "$s/udp-clean/run-1/result.json" verdict)" = infra-error
	grep -q "1 of 2 runs not started: no space left on netlab-t18" "$T_TMP/suite.err"
	test ! -e "$s/tcp-stream/run-1/status"
	json_get "$s/summary.json" scenarios.1.reason | grep -q "not run: no space left on netlab-t18"
	test "$(json_get "$s/summary.json" exit_code)" = 125
	no_process_with "$s/"
	rm -f "$mnt/filler"
'

test_done
