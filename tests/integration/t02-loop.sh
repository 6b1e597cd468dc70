#!/usr/bin/env bash
# The loop topology: NIC A (root namespace) and NIC B (netns b) joined by a
# QEMU hub; traffic between them is on the host-side pcaps.
. "$(dirname "$0")/../lib.sh"
need_guest
command -v tcpdump >/dev/null || skip_all "tcpdump missing (make deps)"

test_expect_success 'ping A -> B over IPv4 and IPv6 succeeds' '
	"$NETLAB" run --accel tcg --out "$T_TMP/ping" --exec "
		ping -c 5 -i 0.2 198.18.0.2 && ping -c 4 -i 0.2 2001:2::2" >"$T_TMP/ping.out"
	grep -q "5 packets transmitted, 5 packets received" "$T_TMP/ping.out"
	grep -q "4 packets transmitted, 4 packets received" "$T_TMP/ping.out"
'

test_expect_success 'pcap of A holds the ICMP echoes, counted with libpcap and tcpdump' '
	p=$T_TMP/ping/nic-A.pcap
	req=$("$NETLAB" pcap "$p" "icmp[icmptype] == icmp-echo and src 198.18.0.1 and dst 198.18.0.2" | sed -n "s/^matched //p")
	rep=$("$NETLAB" pcap "$p" "icmp[icmptype] == icmp-echoreply and src 198.18.0.2" | sed -n "s/^matched //p")
	req6=$("$NETLAB" pcap "$p" "icmp6 and ip6[40] == 128" | sed -n "s/^matched //p")
	rep6=$("$NETLAB" pcap "$p" "icmp6 and ip6[40] == 129" | sed -n "s/^matched //p")
	echo "req=$req rep=$rep req6=$req6 rep6=$rep6"
	test "$req" = 5
	test "$rep" = 5
	test "$req6" = 4
	test "$rep6" = 4
	test "$(tcpdump -nr "$p" icmp 2>/dev/null | wc -l)" = 10
'

test_expect_success 'B lives in netns b, A in the root namespace, both addressed' '
	"$NETLAB" run --accel tcg --out "$T_TMP/ns" --exec "
		/sbin/ip -br addr show dev ethA; /sbin/ip -n b -br addr show dev ethB;
		/sbin/ip link show ethB >/dev/null 2>&1 && echo B-IN-ROOT; true" >"$T_TMP/ns.out"
	grep -q "^ethA .*198.18.0.1/24 .*2001:2::1/64" "$T_TMP/ns.out"
	grep -q "^ethB .*198.18.0.2/24 .*2001:2::2/64" "$T_TMP/ns.out"
	! grep -q B-IN-ROOT "$T_TMP/ns.out"
'

for pair in "e1000:e1000e" "virtio-net:e1000" "e1000e:e1000e"; do
	a=${pair%:*} b=${pair#*:}
	test_expect_success "NIC models A=$a B=$b bind their drivers and pass traffic" '
		"$NETLAB" run --accel tcg --nic A='"$a"' --nic B='"$b"' --out "$T_TMP/m-'"$a-$b"'" --exec "
			ethtool -i ethA | sed -n s/^driver:.//p; /sbin/ip netns exec b ethtool -i ethB | sed -n s/^driver:.//p;
			ping -c 2 -i 0.2 198.18.0.2 >/dev/null && echo PING-OK" >"$T_TMP/m.out"
		want_a=$(echo '"$a"' | sed s/virtio-net/virtio_net/); want_b=$(echo '"$b"' | sed s/virtio-net/virtio_net/)
		test "$(sed -n 1p "$T_TMP/m.out")" = "$want_a"
		test "$(sed -n 2p "$T_TMP/m.out")" = "$want_b"
		grep -qx PING-OK "$T_TMP/m.out"
	'
done

test_done
