#!/usr/bin/env bash
# Topology pair: two VMs (two QEMU processes) wired by datagram sockets.
. "$(dirname "$0")/../lib.sh"
need_guest

test_expect_success 'ping crosses from VM a to VM b; each link has its pcap; the idle peer is stopped' '
	"$NETLAB" run --accel tcg --topology pair --out "$T_TMP/p" \
		--exec "ping -c 3 -i 0.2 198.18.0.2 && ethtool -i ethA | sed -n s/^driver:.//p" >"$T_TMP/p.out"
	grep -q "3 packets transmitted, 3 packets received" "$T_TMP/p.out"
	grep -qx e1000e "$T_TMP/p.out"
	test "$(json_get "$T_TMP/p/result.json" verdict)" = ok
	test "$(json_get "$T_TMP/p/result.json" vms.1.name)" = vm-b
	grep -q "Linux version" "$T_TMP/p/vm-b/console.log"
	test "$("$NETLAB" pcap "$T_TMP/p/nic-A.pcap" "icmp[icmptype] == icmp-echo" | sed -n "s/^matched //p")" = 3
	test "$("$NETLAB" pcap "$T_TMP/p/nic-B.pcap" "icmp[icmptype] == icmp-echoreply" | sed -n "s/^matched //p")" = 3
	no_process_with "$T_TMP/p/"
'

test_expect_success 'B has its own command and kernel; its failure fails the run' '
	rc=0; "$NETLAB" run --accel tcg --topology pair --peer-kernel "$KERNEL" --out "$T_TMP/f" \
		--exec "true" --peer-exec "echo from-b; exit 5" >/dev/null 2>&1 || rc=$?
	test $rc = 5
	grep -qx from-b "$T_TMP/f/vm-b/stdout"
	test "$(json_get "$T_TMP/f/result.json" verdict)" = failed
	json_get "$T_TMP/f/result.json" reason | grep -q "peer VM (B)"
	test "$(json_get "$T_TMP/f/result.json" vms.0.verdict)" = ok
'

test_expect_success 'a panic in the peer is the verdict of the run, and ends it' '
	rc=0; "$NETLAB" run --accel tcg --topology pair --timeout 900 --out "$T_TMP/k" \
		--exec "sleep 600" --peer-exec "echo c > /proc/sysrq-trigger" >/dev/null 2>&1 || rc=$?
	test $rc = 1
	test "$(json_get "$T_TMP/k/result.json" verdict)" = panic
	test "$(json_get "$T_TMP/k/result.json" vms.1.verdict)" = panic
	# VM a was stopped at the panic, not left to finish its 600 s (the bound leaves room for a slow host).
	python3 -c "import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))[\"wall_s\"] < 400 else 1)" \
		"$T_TMP/k/result.json"
'

test_expect_success 'a missing peer kernel: exit 2, named' '
	rc=0; "$NETLAB" run --topology pair --peer-kernel /nonexistent/peer.bzImage --out "$T_TMP/x" \
		2>"$T_TMP/x.err" || rc=$?
	test $rc = 2
	grep -q "/nonexistent/peer.bzImage" "$T_TMP/x.err"
'

test_done
