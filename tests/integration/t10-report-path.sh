#!/usr/bin/env bash
# netlab report beyond drops: stage latency, flows, snoop, the NET_RX
# timeline and the wire view, each checked against an independent count of
# the same data (trace-cmd report lines, tcpdump on the pcap, the traffic
# generators' own JSON), on the committed run fixtures and on a fresh guest
# run of a regress scenario with the default tracing set.
. "$(dirname "$0")/../lib.sh"
[ -x "$NETLAB" ] || skip_all "build/netlab missing (run make)"
command -v python3 >/dev/null || skip_all "python3 missing (make deps)"
RUNS=$TOP/tests/unit/fixtures/runs

# tc_count FILE REGEX: trace-cmd report lines matching REGEX.
tc_count() { trace-cmd report -i "$1" 2>/dev/null | grep -Ec "$2" || true; }
# py JSON EXPR: evaluate EXPR over the JSON document d.
py() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# wire_matches_tcpdump RUN JSON: each link's frames sent and received by its
# MAC equal what tcpdump counts on the same pcap.
wire_matches_tcpdump() {
	local run=$1 j=$2 n mac pcap want got
	n=$(py "$j" 'len(d["wire"]["links"])')
	test "$n" -ge 2
	for i in $(seq 0 $((n - 1))); do
		mac=$(py "$run/result.json" "d['nics'][$i]['mac']")
		pcap=$run/$(py "$run/result.json" "d['nics'][$i]['pcap']")
		want=$(tcpdump -nr "$pcap" ether src "$mac" 2>/dev/null | wc -l)
		got=$(py "$j" "d['wire']['links'][$i]['wire_tx']")
		echo "link $i ($mac): tcpdump $want frames sent, netlab $got"
		test "$want" = "$got"
		want=$(tcpdump -nr "$pcap" "ether dst $mac or (ether multicast and not ether src $mac)" 2>/dev/null | wc -l)
		got=$(py "$j" "d['wire']['links'][$i]['wire_rx']")
		test "$want" = "$got"
		if command -v tshark >/dev/null; then
			want=$(tshark -r "$pcap" -Y "eth.src == $mac" 2>/dev/null | wc -l)
			test "$want" = "$(py "$j" "d['wire']['links'][$i]['wire_tx']")"
		fi
	done
}

if command -v trace-cmd >/dev/null && command -v tcpdump >/dev/null; then
	test_expect_success 'fixtures: timeline and stage counts equal trace-cmd report; wire equals tcpdump' '
		for r in udp-path tcp-rr; do
			"$NETLAB" report --json "$RUNS/$r" >"$T_TMP/$r.json"
			tr=$RUNS/$r/files/trace.dat
			polls=$(tc_count "$tr" " napi_poll: ")
			test "$polls" = "$(py "$T_TMP/$r.json" "d[\"timeline\"][\"rx\"][\"polls\"]")"
			# Every IPv4 packet the probes saw arrive is counted once, plus those
			# whose kprobe events the kernel skipped (missed_probe).
			rx=$(tc_count "$tr" " ip_local_deliver: ")
			test "$rx" = "$(py "$T_TMP/$r.json" "d[\"path\"][\"rx\"][\"packets\"] - d[\"path\"][\"rx\"][\"not_followed\"].get(\"missed_probe\", 0)")"
			tx=$(tc_count "$tr" " ip_output: ")
			test "$tx" = "$(py "$T_TMP/$r.json" "d[\"path\"][\"tx\"][\"packets\"]")"
			wire_matches_tcpdump "$RUNS/$r" "$T_TMP/$r.json"
		done
	'
else
	test_skip 'fixtures: timeline and stage counts equal trace-cmd report; wire equals tcpdump' \
		"trace-cmd or tcpdump missing (make deps)"
fi

# drv_stages_match RUN JSON: the driver-internal stages (irq_poll,
# poll_handoff, desc_handoff; drv_xmit, drv_done) have the count and the
# median that drvstages.py computes from trace-cmd report's lines alone
# (the median within the histogram's resolution).
drv_stages_match() {
	local run=$1 j=$2 name n p50 dir got
	python3 "$TOP/tests/integration/drvstages.py" "$run/files/trace.dat" >"$T_TMP/drvstages.txt"
	cat "$T_TMP/drvstages.txt"
	while read -r name n p50; do
		case $name in drv_*) dir=tx ;; *) dir=rx ;; esac
		got=$(py "$j" "d[\"path\"][\"$dir\"][\"stages\"].get(\"$name\", {}).get(\"count\", 0)")
		echo "$dir.$name: trace-cmd $n, netlab $got"
		test "$got" = "$n"
		test "$n" = 0 && continue
		got=$(py "$j" "d[\"path\"][\"$dir\"][\"stages\"][\"$name\"][\"p50_us\"]")
		python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(abs(a - b) > max(0.5, 0.01 * b))" "$got" "$p50" ||
			{ echo "$dir.$name p50: netlab $got us, trace-cmd $p50 us"; return 1; }
	done <"$T_TMP/drvstages.txt"
}

if command -v trace-cmd >/dev/null; then
	test_expect_success 'fixtures: the driver-internal stages equal a count of trace-cmd report' '
		r=$RUNS/drv-e1000e-rx-default
		"$NETLAB" report --json "$r" >"$T_TMP/drv.json"
		drv_stages_match "$r" "$T_TMP/drv.json"
		# the e1000e receive path and the virtio-net transmit path both have samples
		test "$(py "$T_TMP/drv.json" "d[\"path\"][\"rx\"][\"stages\"][\"desc_handoff\"][\"count\"]")" -gt 1000
		test "$(py "$T_TMP/drv.json" "d[\"path\"][\"tx\"][\"stages\"][\"drv_xmit\"][\"count\"]")" -gt 1000
		"$NETLAB" report "$r" | grep -Eq "^  desc_handoff +[0-9]+ "
		# without driver lines, from the fallback probes: interrupt and poll, no descriptor
		r=$RUNS/drvprobe-e1000e-rx
		"$NETLAB" report --json "$r" >"$T_TMP/drvprobe.json"
		drv_stages_match "$r" "$T_TMP/drvprobe.json"
		test "$(py "$T_TMP/drvprobe.json" "d[\"path\"][\"rx\"][\"stages\"][\"poll_handoff\"][\"count\"]")" -gt 1000
		test "$(py "$T_TMP/drvprobe.json" "d[\"path\"][\"rx\"][\"stages\"][\"irq_poll\"][\"count\"]")" -gt 1000
	'
fi

test_expect_success 'fixtures: per-packet lines, snoop lines and sections in the text' '
	"$NETLAB" report --packets --latency "$RUNS/udp-path" >"$T_TMP/p.out"
	head -n 3 "$T_TMP/p.out"
	grep -Eq "^\|I\| drv-ip: [0-9.]+ us, ip-udp: [0-9.]+ us, udp-app: [0-9.]+ us \| Proc udp-stream, PID [0-9]+$" "$T_TMP/p.out"
	grep -Eq "^\|O\| app-ip: [0-9.]+ us, ip-qdisc: [0-9.]+ us, qdisc: [0-9.]+ us, dev: [0-9.]+ us, done: [0-9.]+ us \| Proc udp-stream, PID [0-9]+$" "$T_TMP/p.out"
	test "$(grep -c "^|I|" "$T_TMP/p.out")" = 205
	grep -q "^Receive: 205 packets, 205 followed end to end" "$T_TMP/p.out"
	"$NETLAB" report --snoop --flows "$RUNS/tcp-rr" >"$T_TMP/s.out"
	grep -Eq "^ +[0-9.]+ (RX|TX) +[0-9]+ rr +198\.18\.0\.[12]:[0-9]+ +-> 198\.18\.0\.[12]:5202 +tcp +[0-9]+ [.FSRPAU]{6}" "$T_TMP/s.out"
	grep -Eq "^ +[0-9.]+ TX .* \.S\.\.\.\." "$T_TMP/s.out"
	"$NETLAB" report --timeline --worst 2 "$RUNS/tcp-rr" >"$T_TMP/t.out"
	grep -q "irq_entry(+0.000msec irq=" "$T_TMP/t.out"
	grep -q "softirq_entry(+" "$T_TMP/t.out"
	! grep -q "^Receive:" "$T_TMP/t.out"
'

test_expect_success 'fixtures: bad section requests exit 2 and say why' '
	rc=0; "$NETLAB" report --wire "$RUNS/udp-path/files/trace.dat" 2>"$T_TMP/err" || rc=$?
	cat "$T_TMP/err"; test $rc = 2; grep -q "needs a run directory" "$T_TMP/err"
	rc=0; "$NETLAB" report --latency "$TOP/tests/unit/fixtures/traces/rcvbuf.dat" 2>"$T_TMP/err" || rc=$?
	cat "$T_TMP/err"; test $rc = 2; grep -q "^hint: " "$T_TMP/err"
	rc=0; "$NETLAB" report --first 3 --worst 3 "$RUNS/udp-path" 2>"$T_TMP/err" || rc=$?
	test $rc = 2
	rc=0; "$NETLAB" report --first x "$RUNS/udp-path" 2>"$T_TMP/err" || rc=$?
	test $rc = 2
'

# --- a fresh regress run with the default tracing set ---------------------------
need_guest
SCN=$T_TMP/scn
mkdir -p "$SCN"
cat >"$SCN/flow-rcvbuf.scn" <<'SCN_EOF'
# A receiver that reads slower than the sender: SOCKET_RCVBUFF drops, each
# on the UDP flow; stage latency and flow metrics checkable.
[scenario]
topology = loop
duration = 2
[traffic]
generator = udp-stream
rate = 1000
size = 500
rcvbuf = 4096
read-delay = 2000
[checks]
overflow = drops.reason.SOCKET_RCVBUFF > 0
followed = latency.rx.followed > 0
copy_latency_measured = latency.rx.udp_app.p99_us > 0
one_flow = flows.count == 1
polls = netrx.polls > 0
SCN_EOF

test_expect_success 'guest: a regress scenario checks latency, flow and timeline metrics' '
	"$NETLAB" regress --accel tcg -o "$T_TMP/suite" "$SCN/flow-rcvbuf.scn" >"$T_TMP/reg.out" 2>&1 ||
		{ cat "$T_TMP/reg.out"; false; }
	cat "$T_TMP/reg.out"
	test -s "$T_TMP/suite/flow-rcvbuf/run-1/metrics.json"
'

RUN=$T_TMP/suite/flow-rcvbuf/run-1
test_expect_success 'guest: the flow, its tasks and its drops agree with the generators and the counters' '
	"$NETLAB" report --json --list "$RUN" >"$T_TMP/g.json"
	sent=$(( $(json_get "$RUN/files/send.json" sent) + $(json_get "$RUN/files/send.json" end_copies_sent) ))
	py "$T_TMP/g.json" "[(f[\"saddr\"], f[\"sport\"], f[\"daddr\"], f[\"dport\"], f[\"tx_packets\"], f[\"drops\"]) for f in d[\"path\"][\"flows\"]]"
	test "$(py "$T_TMP/g.json" "len(d[\"path\"][\"flows\"])")" = 1
	test "$(py "$T_TMP/g.json" "d[\"path\"][\"flows\"][0][\"tx_packets\"]")" = "$sent"
	test "$(py "$T_TMP/g.json" "d[\"path\"][\"flows\"][0][\"daddr\"] + \":\" + str(d[\"path\"][\"flows\"][0][\"dport\"])")" = "198.18.0.2:5201"
	py "$T_TMP/g.json" "sorted(set(t[\"comm\"] for f in d[\"path\"][\"flows\"] for t in f[\"senders\"] + f[\"receivers\"]))" | grep -q "udp-stream"
	# Each SOCKET_RCVBUFF drop in the list names that flow, or says that the
	# kernel skipped its ip_local_deliver kprobe (a softirq that ran inside
	# another kprobe handler: the flow is then unknown, and rare); their
	# number is the kernel counter.
	rcvbuf=$(py "$T_TMP/g.json" "sum(1 for x in d[\"drops\"][\"list\"] if x[\"reason\"] == \"SOCKET_RCVBUFF\")")
	onflow=$(py "$T_TMP/g.json" "sum(1 for x in d[\"drops\"][\"list\"] if x[\"reason\"] == \"SOCKET_RCVBUFF\" and x[\"flow\"] and x[\"flow\"].endswith(\"198.18.0.2:5201\"))")
	missed=$(py "$T_TMP/g.json" "sum(1 for x in d[\"drops\"][\"list\"] if x[\"reason\"] == \"SOCKET_RCVBUFF\" and not x[\"flow\"] and x[\"missed_probe\"])")
	kernel=$(py "$RUN/metrics.json" "int(d[\"snmp.B.Udp.RcvbufErrors\"])")
	echo "SOCKET_RCVBUFF: $rcvbuf listed, $onflow on the flow, $missed with a skipped probe, RcvbufErrors $kernel"
	test "$rcvbuf" -gt 0
	test "$rcvbuf" = "$((onflow + missed))"
	test "$((missed * 10))" -lt "$rcvbuf"
	test "$(py "$T_TMP/g.json" "d[\"path\"][\"drops\"][\"missed_probe\"]")" = "$missed"
	test "$rcvbuf" = "$kernel"
	test "$(py "$T_TMP/g.json" "d[\"path\"][\"flows\"][0][\"drops\"]")" = "$onflow"
	# Received datagrams followed to the copy = what the kernel says the
	# receiver read (Udp.InDatagrams counts in udp_recvmsg).
	# (missed_probe: copied, with a skipped kprobe on the way)
	got=$(py "$RUN/metrics.json" "int(d[\"snmp.B.Udp.InDatagrams\"])")
	copied=$(py "$T_TMP/g.json" "d[\"path\"][\"rx\"][\"followed\"] + d[\"path\"][\"rx\"][\"not_followed\"].get(\"missed_probe\", 0)")
	py "$T_TMP/g.json" "d[\"path\"][\"rx\"][\"not_followed\"]"
	echo "kernel: read $got (generator: $(json_get "$RUN/files/recv.json" received) + END copies), followed to the copy $copied"
	test "$copied" = "$got"
'

if command -v trace-cmd >/dev/null; then
	test_expect_success 'guest: the driver-internal stages equal a count of trace-cmd report' '
		"$NETLAB" report --json "$RUN" >"$T_TMP/gd.json"
		drv_stages_match "$RUN" "$T_TMP/gd.json"
		test "$(py "$T_TMP/gd.json" "d[\"path\"][\"rx\"][\"stages\"][\"poll_handoff\"][\"count\"]")" -gt 0
		test "$(py "$T_TMP/gd.json" "d[\"path\"][\"tx\"][\"stages\"][\"drv_xmit\"][\"count\"]")" -gt 0
	'
fi

if command -v tcpdump >/dev/null; then
	test_expect_success 'guest: per-link packets on the wire equal tcpdump on the same pcap' '
		"$NETLAB" report --json --wire "$RUN" >"$T_TMP/w.json"
		wire_matches_tcpdump "$RUN" "$T_TMP/w.json"
	'
fi

# csum_matches_tshark PCAP: netlab pcap --csum's bad checksums per kind, its
# good packets and its cut ones are what tshark 4.0 finds in the same file:
# bad per kind, a good L4 checksum (netlab's good, where no IPv4 header is
# bad), an unverified TCP or UDP one. Leaves the JSON in $T_TMP/csum.json.
csum_matches_tshark() {
	local p=$1 want got
	"$NETLAB" pcap --csum --json "$p" >"$T_TMP/csum.json"
	want=$(tshark -n -r "$p" -o ip.check_checksum:TRUE -o udp.check_checksum:TRUE \
		-o tcp.check_checksum:TRUE -T fields -e ip.checksum.status -e tcp.checksum.status \
		-e udp.checksum.status -e icmp.checksum.status -e icmpv6.checksum.status 2>/dev/null |
		awk -F '\t' '{
			good = 0
			for (i = 1; i <= 5; i++) {
				v = substr($i, 1, 1)
				if (v == "0") bad[i]++
				if (i > 1 && v == "1") good = 1
			}
			g += good
			if (substr($2, 1, 1) == "2" || substr($3, 1, 1) == "2") u++
		} END { printf "%d %d %d %d %d %d %d\n", bad[1], bad[2], bad[3], bad[4], bad[5], g, u }')
	got=$(py "$T_TMP/csum.json" "\" \".join(str(sum(s[\"bad_kinds\"][k][\"packets\"] for s in d[\"senders\"])) for k in (\"ip\", \"tcp\", \"udp\", \"icmp\", \"icmpv6\")) + \" %d %d\" % (sum(s[\"good\"] for s in d[\"senders\"]), sum(s[\"unverifiable\"][\"cut\"] for s in d[\"senders\"]))")
	echo "$p: bad ip tcp udp icmp icmpv6, good, cut: tshark $want; netlab $got"
	test -n "$want"
	test "$want" = "$got"
}

if command -v tshark >/dev/null; then
	test_expect_success 'guest and fixtures: netlab pcap --csum finds the bad, good and cut checksums tshark finds' '
		# A copy of udp-path A with the last byte of every 7th whole UDP datagram flipped.
		python3 - "$RUNS/udp-path/nic-A.pcap" "$T_TMP/flipped.pcap" >"$T_TMP/flipped.txt" <<PY_EOF
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
off, i, udp, hit = 24, 0, 0, []
while off + 16 <= len(d):
    caplen, wire = struct.unpack_from("<II", d, off + 8)
    f = off + 16
    if caplen == wire and d[f + 12:f + 14] == b"\x08\x00" and d[f + 23] == 17 and \
            struct.unpack_from("!H", d, f + 16)[0] + 14 == wire:
        if udp % 7 == 3:
            d[f + wire - 1] ^= 0x20
            hit.append(i)
        udp += 1
    off, i = f + caplen, i + 1
open(sys.argv[2], "wb").write(d)
print(len(hit), hit[0], hit[-1])
PY_EOF
		read -r flipped first last <"$T_TMP/flipped.txt"
		echo "flipped the UDP data of $flipped datagrams, frames $first..$last"
		test "$flipped" -gt 20
		for p in "$RUN"/nic-*.pcap "$RUNS"/*/nic-A.pcap; do
			csum_matches_tshark "$p"
			# tx-csum: a planted e1000e left 57 UDP checksums unset (fixtures README)
			bad=0; case $p in */tx-csum/*) bad=57 ;; esac
			test "$(py "$T_TMP/csum.json" "sum(s[\"bad\"] for s in d[\"senders\"])")" = $bad
			test "$(py "$T_TMP/csum.json" "sum(s[\"good\"] for s in d[\"senders\"])")" -gt 0
		done
		csum_matches_tshark "$T_TMP/flipped.pcap"
		a="[s for s in d[\"senders\"] if s[\"mac\"] == \"52:54:00:4e:4c:0a\"][0]"
		test "$(py "$T_TMP/csum.json" "sum(s[\"bad\"] for s in d[\"senders\"])")" = "$flipped"
		test "$(py "$T_TMP/csum.json" "$a[\"bad_kinds\"][\"udp\"][\"packets\"]")" = "$flipped"
		test "$(py "$T_TMP/csum.json" "$a[\"bad_kinds\"][\"udp\"][\"first\"]")" = "$first"
		test "$(py "$T_TMP/csum.json" "$a[\"bad_kinds\"][\"udp\"][\"last\"]")" = "$last"
	'
else
	test_skip 'guest and fixtures: netlab pcap --csum finds the bad, good and cut checksums tshark finds' \
		"tshark missing (apt-get install tshark)"
fi

test_done
