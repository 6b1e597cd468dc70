#!/usr/bin/env bash
# Topologies as data (harness/vm/topologies/*.topo): a bad topology is an error
# naming its file and line; the shipped router, VLAN-filtering bridge and
# VLAN topologies and a VXLAN tunnel carry both address families with nothing lost at any
# layer or hop; the VLAN's frames are tagged on the wire; a fault at the
# router (a smaller MTU on its out link) is put at hop r, IP forwarding, and
# one in a bridge (its ports in no VLAN) at hop br, the bridge.
# With NETLAB_SLOW_TESTS=1 (kernel builds), the two planted kernel
# regressions of a hop in tests/regress/bisect/make-history.sh: forward (a
# router drops full-size IPv4 packets with DF) and brmtu (a bridge drops
# full-size frames), each bisected to its commit by netlab bisect --ksrc,
# each failing the shipped topology cases it touches with the story naming
# the hop and its layer, and passing those it does not touch.
. "$(dirname "$0")/../lib.sh"
command -v jq >/dev/null || skip_all "jq missing (make deps)"
S=$TOP/tests/regress
B=$S/bisect

metric() { jq -r --arg n "$2" '.metrics[$n] // .[$n] // empty' "$1"; }

test_expect_success 'an unknown topology lists the shipped files; a bad file names its line (exit 2)' '
	rc=0; "$NETLAB" run --topology nosuch --exec true 2>"$T_TMP/e1" || rc=$?
	cat "$T_TMP/e1"; test $rc = 2
	grep -q "router" "$T_TMP/e1" && grep -q "bridge-vlan" "$T_TMP/e1"
	printf "[topology]\ndescription = x\n[nic.A]\nlink = 0\n[nic.B]\nlink = 9\n" >"$T_TMP/bad.topo"
	rc=0; "$NETLAB" run --topology "$T_TMP/bad.topo" --exec true 2>"$T_TMP/e2" || rc=$?
	cat "$T_TMP/e2"; test $rc = 2
	grep -q "bad.topo:6: link .9.: expected a link number 0 to 7" "$T_TMP/e2"
	printf "[topology]\ndescription = x\n[nic.A]\nlink = 0\n[nic.C]\nlink = 0\n" >"$T_TMP/gap.topo"
	rc=0; "$NETLAB" run --topology "$T_TMP/gap.topo" --exec true 2>"$T_TMP/e3" || rc=$?
	cat "$T_TMP/e3"; test $rc = 2
	grep -q "NIC C without NIC B" "$T_TMP/e3"
'

need_guest

test_expect_success 'router (IPv6, fragmented), VLAN-filtering bridge (IPv6), VLAN (IPv4), VXLAN (IPv6, fragmented): no loss at any layer or hop' '
	rc=0; "$NETLAB" regress -j 1 --out "$T_TMP/topo" \
		"topologies[topology=router,family=6,size=3000]" \
		"topologies[topology=bridge-vlan,family=6,size=1200..1472]" \
		"topologies[topology=vlan,size=1200..1472]" \
		"tunnels[topology=vxlan,family=6,size=3000]" >"$T_TMP/topo.out" 2>&1 || rc=$?
	cat "$T_TMP/topo.out"; test $rc = 0
	r=$(ls -d "$T_TMP"/topo/topologies+router+*/run-1)
	test "$(metric "$r/metrics.json" hop.r.in)" = "$(metric "$r/metrics.json" udp.sent)"
	test "$(metric "$r/metrics.json" hop.r.lost)" = 0
	# the run page: a row for the hop, each number tied to its metric
	grep -q "<tr class=\"hop\"><td>r</td><td>IP forwarding</td><td><span class=\"num\" data-metric=\"hop.r.in\" data-source=\"metrics\">$(metric "$r/metrics.json" hop.r.in)<" "$r/report.html"
	# the datagrams crossed the router: on the sender link and on the receiver link
	test "$(tcpdump -nr "$r/nic-C.pcap" "ip6[7] = 64" 2>/dev/null | wc -l)" -gt 0
	test "$(tcpdump -nr "$r/nic-D.pcap" "ip6[7] = 63" 2>/dev/null | wc -l)" -gt 0
	r=$(ls -d "$T_TMP"/topo/topologies+vlan+*/run-1)
	# every datagram on the VLAN link was tagged 10 (and the END copies), none left untagged
	test "$(tcpdump -nr "$r/nic-A.pcap" "vlan 10 and udp dst port 5201" 2>/dev/null | wc -l)" -ge "$(metric "$r/metrics.json" udp.sent)"
	test "$(tcpdump -nr "$r/nic-A.pcap" "not vlan and udp dst port 5201" 2>/dev/null | wc -l)" = 0
	# the VXLAN link carried nothing but the tunnel: every datagram counted inside it
	r=$(ls -d "$T_TMP"/topo/tunnels+vxlan+*/run-1)
	test "$(metric "$r/metrics.json" loss.wire_tx)" = "$(metric "$r/metrics.json" udp.sent)"
	test "$(tcpdump -nr "$r/nic-A.pcap" "udp dst port 5201" 2>/dev/null | wc -l)" = 0
	test "$(tcpdump -nr "$r/nic-A.pcap" "udp dst port 4789" 2>/dev/null | wc -l)" -ge "$(metric "$r/metrics.json" udp.sent)"
'

test_expect_success 'a smaller MTU past the router: the story puts the loss at hop r, IP forwarding, too big' '
	rc=0; "$NETLAB" regress --out "$T_TMP/mtu" "$TOP/tests/integration/scenarios/router-mtu.scn" >"$T_TMP/mtu.out" 2>&1 || rc=$?
	cat "$T_TMP/mtu.out"; test $rc = 1
	m=$T_TMP/mtu/router-mtu/run-1/metrics.json
	test "$(metric "$m" hop.r.lost)" -ge 1
	test "$(metric "$m" hop.r.too_big)" = "$(metric "$m" hop.r.lost)"
	test "$(metric "$m" loss.unaccounted)" = 0
	grep -q "at hop r (IP forwarding; in [0-9]*, out [0-9]*): too big for the next link.s MTU" "$T_TMP/mtu.out"
'

test_expect_success 'a bridge that drops every frame (a topology file beside the scenario): the story puts the loss at hop br, the bridge' '
	rc=0; "$NETLAB" regress --out "$T_TMP/br" "$TOP/tests/integration/scenarios/bridge-novlan.scn" >"$T_TMP/br.out" 2>&1 || rc=$?
	cat "$T_TMP/br.out"; test $rc = 1
	m=$T_TMP/br/bridge-novlan/run-1/metrics.json
	test "$(metric "$m" hop.br.lost)" = "$(metric "$m" udp.sent)"
	test "$(metric "$m" hop.br.bridge)" = 1
	test "$(metric "$m" loss.lost_in_hops)" = "$(metric "$m" udp.sent)"
	grep -q "at hop br (the bridge; in [0-9]*, out 0): no counter of its namespace moved" "$T_TMP/br.out"
'

# --- the planted regressions of a hop: opt-in (kernel builds) ------------
. "$(dirname "$0")/lib-history.sh"

if slow 'forward: bisect names the commit; full-size IPv4 through the router fails, the story names hop r and IP forwarding; IPv6 and the bridge pass'; then
	test_expect_success 'forward: bisect names the commit; full-size IPv4 through the router fails, the story names hop r and IP forwarding; IPv6 and the bridge pass' '
		bisect forward "$B/router-fullsize.scn"
		grep -Eq "^after : no_loss: udp.lost = [1-9][0-9]* vs == 0: fail" "$T_TMP/bis-forward.out"
		rc=0; suite forward forward "topologies[topology=router,size=1200..1472]" \
			"topologies-tcp[topology=router]" "topologies[topology=router,family=6,size=1200..1472]" \
			"topologies[topology=bridge,size=1200..1472]" || rc=$?
		test $rc = 1
		# the datagrams of 1469..1472 bytes (a 1497..1500-byte packet): lost at the router, too big
		grep -Eq "^topologies\[topology=router,size=1200..1472\] +no_loss +udp.lost +[1-9][0-9]* +== 0 +fail" "$T_TMP/forward.out"
		grep -Eq "[1-9][0-9]* at hop r \(IP forwarding; in [0-9]+, out [0-9]+\): too big for the next link.s MTU \(fragmentation needed\) [1-9]" "$T_TMP/forward.out"
		m=$(ls "$T_TMP"/forward/topologies+router+1200..1472/run-1/metrics.json)
		test "$(metric "$m" hop.r.too_big)" = "$(metric "$m" udp.lost)"
		test "$(metric "$m" loss.unaccounted)" = 0
		# TCP through it: full-size segments, every one dropped: a stall, at hop r
		grep -Eq "^topologies-tcp\[topology=router\] +no_stall +tcp.stalled +1 +== 0 +fail" "$T_TMP/forward.out"
		m=$(ls "$T_TMP"/forward/topologies-tcp+router/run-1/metrics.json)
		test "$(metric "$m" hop.r.lost)" -gt 0 && test "$(metric "$m" hop.r.too_big)" -gt 0
		# IPv6 forwarding and the bridge: untouched by it
		grep -Eq "^topologies\[topology=router,family=6,size=1200..1472\] +no_loss .* pass" "$T_TMP/forward.out"
		grep -Eq "^topologies\[topology=bridge,size=1200..1472\] +no_loss .* pass" "$T_TMP/forward.out"
	'
fi

if slow 'brmtu: bisect names the commit; full-size frames through the bridge fail, the story names hop br and the bridge, silent; a routed path passes'; then
	test_expect_success 'brmtu: bisect names the commit; full-size frames through the bridge fail, the story names hop br and the bridge, silent; a routed path passes' '
		bisect brmtu "$B/bridge-fullsize.scn"
		grep -Eq "^after : no_loss: udp.lost = [1-9][0-9]* vs == 0: fail" "$T_TMP/bis-brmtu.out"
		rc=0; suite brmtu brmtu "topologies[topology=bridge-vlan,family=6,size=1200..1472]" \
			"topologies-tcp[topology=bridge]" "topologies[topology=router,size=1200..1472]" || rc=$?
		test $rc = 1
		grep -Eq "^topologies\[topology=bridge-vlan,family=6,size=1200..1472\] +no_loss +udp.lost +[1-9][0-9]* +== 0 +fail" "$T_TMP/brmtu.out"
		grep -Eq "[1-9][0-9]* at hop br \(the bridge; in [0-9]+, out [0-9]+\): no counter of its namespace moved" "$T_TMP/brmtu.out"
		m=$(ls "$T_TMP"/brmtu/topologies+bridge-vlan+6+1200..1472/run-1/metrics.json)
		test "$(metric "$m" hop.br.silent)" -gt 0
		test "$(metric "$m" loss.unaccounted)" = 0
		grep -Eq "^topologies-tcp\[topology=bridge\] +no_stall +tcp.stalled +1 +== 0 +fail" "$T_TMP/brmtu.out"
		# a routed path has no bridge: untouched
		grep -Eq "^topologies\[topology=router,size=1200..1472\] +no_loss .* pass" "$T_TMP/brmtu.out"
	'
fi

test_done
