#!/usr/bin/env bash
# netlab run: a real guest boots, runs a command, returns its exit status and
# leaves a complete run directory.
. "$(dirname "$0")/../lib.sh"
need_guest

test_expect_success 'exit status 0 round-trips, accel auto probes and settles' '
	"$NETLAB" run --out "$T_TMP/ok" --exec "echo hello-from-guest" >"$T_TMP/ok.out"
	grep -qx hello-from-guest "$T_TMP/ok.out"
	test "$(json_get "$T_TMP/ok/result.json" verdict)" = ok
	test "$(json_get "$T_TMP/ok/result.json" exit_status)" = 0
	json_get "$T_TMP/ok/result.json" accel | grep -Eqx "kvm|tcg"
	test -n "$(json_get "$T_TMP/ok/result.json" accel_reason)"
'

test_expect_success 'non-zero exit status round-trips' '
	rc=0; "$NETLAB" run --accel tcg --out "$T_TMP/fail" --exec "echo err >&2; exit 42" \
		2>"$T_TMP/fail.err" || rc=$?
	test $rc = 42
	grep -qx err "$T_TMP/fail/stderr"
	test "$(json_get "$T_TMP/fail/result.json" verdict)" = failed
	test "$(cat "$T_TMP/fail/exit-status")" = 42
'

test_expect_success 'run directory holds console, command line, kernel identity, pcaps' '
	d=$T_TMP/ok
	grep -q "Linux version" "$d/console.log"
	grep -q "netlab-agent: started" "$d/console.log"
	grep -q -- "-no-reboot" "$d/cmdline"
	grep -q "panic=-1" "$d/cmdline"
	test -s "$d/nic-A.pcap"
	test -s "$d/nic-B.pcap"
	v=$(json_get "$d/result.json" kernel.version)
	case "$v" in 6.*) ;; *) echo "kernel version: $v"; false ;; esac
	test "$(json_get "$d/result.json" kernel.sha256 | wc -c)" = 65
	test "$(json_get "$d/result.json" topology)" = loop
'

test_expect_success 'command line in the run directory reproduces the run' '
	# The recorded command is a shell line: it must parse back to QEMU options.
	eval "set -- $(cat "$T_TMP/ok/cmdline")"
	test "$1" = qemu-system-x86_64
	printf "%s\n" "$@" | grep -qx -- -no-reboot
'

test_expect_success 'files the guest leaves in /netlab/out come back' '
	"$NETLAB" run --accel tcg --out "$T_TMP/files" \
		--exec "echo payload > /netlab/out/note.txt; mkdir /netlab/out/sub; echo x > /netlab/out/sub/y"
	grep -qx payload "$T_TMP/files/files/note.txt"
	grep -qx x "$T_TMP/files/files/sub/y"
'

test_expect_success 'topology none boots without NICs' '
	"$NETLAB" run --accel tcg --topology none --out "$T_TMP/none" \
		--exec "cat /sys/class/net/*/address; ls /sys/bus/pci/drivers/e1000e /sys/bus/virtio/drivers/virtio_net" \
		>"$T_TMP/none.out"
	grep -q "00:00:00:00:00:00" "$T_TMP/none.out"
	! grep -q "52:54:00" "$T_TMP/none.out"
	! grep -Eq "^(0000:|virtio[0-9])" "$T_TMP/none.out"
'

test_done
