#!/usr/bin/env bash
# The libvirt backend against a real libvirtd (CI starts it: ci/libvirtd.sh):
# the XML validates, a run brings every artifact back, scenarios give the
# direct backend's verdicts, two connections share a suite, killing netlab
# leaves no domain, and bad URIs or a taken domain name exit 2.
. "$(dirname "$0")/../lib.sh"
need_guest
S=$TOP/tests/regress
URI=${NETLAB_LIBVIRT_URI:-qemu:///system}
URI2=${URI/qemu:\/\//qemu+unix://}	# the same daemon by another URI

if ! virsh -c "$URI" version >/dev/null 2>&1; then
	[ "${NETLAB_REQUIRE_LIBVIRT:-0}" = 1 ] &&
		{ echo "libvirt at $URI does not answer and NETLAB_REQUIRE_LIBVIRT=1"; exit 1; }
	skip_all "libvirt at $URI does not answer (as root: ci/libvirtd.sh; as another user: be in group libvirt, or set NETLAB_LIBVIRT_URI)"
fi
export NETLAB_LIBVIRT_URI=$URI

# The domain names of the runs under DIR... (from their domain.xml): the
# machine may run other netlab domains meanwhile, these tests look at theirs.
names_of() { find "$@" -name domain.xml -exec sed -n "s|^  <name>\(.*\)</name>|\1|p" {} + | sort -u; }
# Those of NAMES... that libvirt still lists / still has staged files of.
listed() { virsh -c "$URI" list --all --name | grep -Fx -f <(printf "%s\n" "$@") || true; }
staged() { virsh -c "$URI" vol-list netlab-stage 2>/dev/null | awk "NR>2 {print \$1}" |
	grep -F -f <(printf "%s.\n" "$@") || true; }
# Wait up to 20 s until no domain of the runs under DIR... is left, nor their files.
nothing_left() {
	local n; n=$(names_of "$@"); test -n "$n" || { echo "no domain.xml under $*"; return 1; }
	for _ in $(seq 1 120); do [ -z "$(listed $n)" ] && break; sleep 0.5; done
	test -z "$(listed $n)" && test -z "$(staged $n)" || { listed $n; staged $n; return 1; }
}
metric() { jq -r ".scenarios[] | select(.name == \"$2\") | .median[\"$3\"]" "$1/summary.json"; }

test_expect_success '--print-xml: valid domain XML; a hub on the command line, UDP interfaces for a pair' '
	"$NETLAB" run --print-xml --icount 3 --append "a=<&>" >"$T_TMP/loop.xml"
	virt-xml-validate "$T_TMP/loop.xml" domain
	grep -q "<kernel>/var/tmp/netlab-stage/.*\.kernel</kernel>" "$T_TMP/loop.xml"
	grep -q "a=&lt;&amp;&gt;</cmdline>" "$T_TMP/loop.xml"
	grep -q "hubport,id=netA,hubid=0" "$T_TMP/loop.xml"
	grep -q "shift=3,sleep=off" "$T_TMP/loop.xml"
	! grep -q "<interface" "$T_TMP/loop.xml"
	"$NETLAB" run --print-xml --topology pair --domain-name t14-pair >"$T_TMP/pair.xml"
	csplit -s -f "$T_TMP/pair-" "$T_TMP/pair.xml" "/^<domain/" "{1}"
	virt-xml-validate "$T_TMP/pair-01" domain
	virt-xml-validate "$T_TMP/pair-02" domain
	grep -q "<name>t14-pair-a</name>" "$T_TMP/pair-01"
	grep -q "<interface type=.udp.>" "$T_TMP/pair-01"
	grep -q "<model type=.virtio./>" "$T_TMP/pair-02"
	test -z "$(listed t14-pair-a t14-pair-b)"
'

test_expect_success 'a run through libvirt: output, console, captures and a 4 MB file come back whole, nothing left' '
	d=$T_TMP/run
	"$NETLAB" run --backend libvirt --out "$d" --exec "ping -c 3 -I ethA 198.18.0.2 >/dev/null; echo done;
		head -c 4000000 /dev/urandom >/netlab/out/big; md5sum </netlab/out/big" >"$T_TMP/run.out" 2>&1 ||
		{ cat "$T_TMP/run.out"; false; }
	grep -qx done "$d/stdout"
	test "$(sed -n 2p "$d/stdout" | cut -d" " -f1)" = "$(md5sum <"$d/files/big" | cut -d" " -f1)"
	grep -q "Linux version" "$d/console.log"
	grep -q "the host has every port.s data" "$d/console.log"
	test "$(json_get "$d/result.json" verdict)" = ok
	test "$(json_get "$d/result.json" backend)" = libvirt
	test "$(jq -r .connect "$d/result.json")" = "$URI"
	virt-xml-validate "$d/domain.xml" domain
	test "$(tcpdump -nr "$d/nic-A.pcap" icmp 2>/dev/null | grep -c "echo request")" -ge 3
	test "$(tcpdump -nr "$d/nic-B.pcap" icmp 2>/dev/null | grep -c "echo reply")" -ge 3
	nothing_left "$d"
'

# The group QEMU runs as on this libvirt host: the DAC base label in its
# capabilities ("+UID:+GID"), as netlab reads it.
qemu_gid() { virsh -c "$URI" capabilities | sed -n "s|.*<baselabel type=.qemu.>+[0-9]*:+\([0-9]*\)<.*|\1|p" | head -n 1; }

test_expect_success 'the staging pool is not world-writable, and QEMU still writes its captures there' '
	st=$(stat -c "%a %u %g" /var/tmp/netlab-stage)
	echo "netlab-stage: $st (QEMU group $(qemu_gid))"
	test "$st" = "770 0 $(qemu_gid)"
	test -s "$T_TMP/run/nic-A.pcap"
'

# The volumes staged now (other runs'): the pool tests stop the pool under them.
staged_volumes() { virsh -c "$URI" vol-list netlab-stage 2>/dev/null | awk 'NR>2 && NF {print $1}'; }

# (The pool is stopped under it: not while other runs stage files there.)
T='a pool left world-writable by an earlier netlab is made private again'
busy=$(staged_volumes)
if [ -n "$busy" ]; then
	test_skip "$T" "other runs use the staging pool: $(echo $busy)"
else test_expect_success "$T" '
	virsh -c "$URI" pool-destroy netlab-stage >/dev/null
	cat >"$T_TMP/pool-0777.xml" <<-EOF
	<pool type="dir"><name>netlab-stage</name><target><path>/var/tmp/netlab-stage</path>
	<permissions><mode>0777</mode></permissions></target></pool>
	EOF
	virsh -c "$URI" pool-create --build "$T_TMP/pool-0777.xml" >/dev/null
	test "$(stat -c %a /var/tmp/netlab-stage)" = 777	# as an earlier netlab left it
	"$NETLAB" run --backend libvirt --out "$T_TMP/up" --exec true >"$T_TMP/up.out" 2>&1 ||
		{ cat "$T_TMP/up.out"; false; }
	cat "$T_TMP/up.out"
	grep -q "staging pool .netlab-stage. was world-writable" "$T_TMP/up.out"
	test "$(stat -c "%a %u %g" /var/tmp/netlab-stage)" = "770 0 $(qemu_gid)"
	test -s "$T_TMP/up/nic-A.pcap"
'
fi

# A symlink planted where the staging directory goes: refused before
# libvirt's pool build could chmod and chown what it points to.
T='a symlink planted at the staging directory is refused, its target untouched'
busy=$(staged_volumes)
if [ -n "$busy" ]; then
	test_skip "$T" "other runs use the staging pool: $(echo $busy)"
else test_expect_success "$T" '
	virsh -c "$URI" pool-destroy netlab-stage >/dev/null
	mv /var/tmp/netlab-stage "$T_TMP/stage-kept"
	mkdir -m 0755 "$T_TMP/victim"
	ln -s "$T_TMP/victim" /var/tmp/netlab-stage
	rc=0
	"$NETLAB" run --backend libvirt --out "$T_TMP/planted" --exec true >"$T_TMP/planted.out" 2>&1 || rc=$?
	cat "$T_TMP/planted.out"
	rm /var/tmp/netlab-stage
	mv "$T_TMP/stage-kept" /var/tmp/netlab-stage
	test $rc = 125
	grep -q "staging directory ./var/tmp/netlab-stage. is a symbolic link" "$T_TMP/planted.out"
	test "$(stat -c "%a %u %g" "$T_TMP/victim")" = "755 0 0"
	test ! -e "$T_TMP/planted/console.log"
'
fi

test_expect_success 'pair topology through libvirt: the two domains talk over UDP' '
	d=$T_TMP/pair
	"$NETLAB" run --backend libvirt --topology pair --timeout 600 --out "$d" \
		--exec "ping -c 3 198.18.0.2 | grep -c ttl=" >"$T_TMP/pair.out" 2>&1 ||
		{ cat "$T_TMP/pair.out"; false; }
	test "$(cat "$d/vm-a/stdout")" = 3
	test "$(jq -r ".domains | length" "$d/result.json")" = 2
	test "$(tcpdump -nr "$d/nic-B.pcap" icmp 2>/dev/null | grep -c "echo request")" -ge 3
	nothing_left "$d"
'

test_expect_success 'udp-clean and udp-rcvbuf-overflow: the direct backend'"'"'s verdicts and accounting' '
	for b in qemu libvirt; do
		rc=0; "$NETLAB" regress --backend $b --deterministic yes --repeat 1 -j 1 \
			--out "$T_TMP/det-$b" udp-clean udp-rcvbuf-overflow >"$T_TMP/det-$b.out" 2>&1 || rc=$?
		cat "$T_TMP/det-$b.out"
		test $rc = 0
	done
	for b in qemu libvirt; do
		j=$T_TMP/det-$b
		test "$(metric "$j" udp-clean udp.lost)" = 0
		test "$(metric "$j" udp-clean loss.unaccounted)" = 0
		test "$(metric "$j" udp-clean loss.wire_rx)" = "$(metric "$j" udp-clean udp.sent)"
		lost=$(metric "$j" udp-rcvbuf-overflow udp.lost)
		test "$lost" -gt 0
		test "$(metric "$j" udp-rcvbuf-overflow loss.rx_stack_drops)" = "$lost"
		test "$(metric "$j" udp-rcvbuf-overflow drops.reason.SOCKET_RCVBUFF)" = \
		     "$(metric "$j" udp-rcvbuf-overflow snmp.B.Udp.RcvbufErrors)"
		test "$(metric "$j" udp-rcvbuf-overflow loss.unaccounted)" = 0
		echo "$b: udp-clean sent $(metric "$j" udp-clean udp.sent), udp-rcvbuf-overflow lost $lost"
	done
	test "$(jq -r "[.scenarios[].outcome] | join(\" \")" "$T_TMP/det-qemu/summary.json")" = \
	     "$(jq -r "[.scenarios[].outcome] | join(\" \")" "$T_TMP/det-libvirt/summary.json")"
	test -z "$(jq -r ".scenarios[].runs[] | select(.connect == null) | .dir" "$T_TMP/det-libvirt/summary.json")"
'

# Four runs through libvirt, about three minutes: t17 runs a suite over two
# connections (qemu:///system and qemu+ssh) in the default run, so this one,
# two connections to one daemon, runs with NETLAB_SLOW_TESTS=1 (CI budget).
T='two connections share a suite; the results merge into one report'
if [ "${NETLAB_SLOW_TESTS:-}" != 1 ]; then
	test_skip "$T" "NETLAB_SLOW_TESTS=1 (t17 covers a suite over two connections)"
else test_expect_success "$T" '
	rc=0; "$NETLAB" regress --connect "$URI" --connect "$URI2" -j 1 --repeat 2 \
		--out "$T_TMP/fan" udp-clean udp-rcvbuf-overflow >"$T_TMP/fan.out" 2>"$T_TMP/fan.err" || rc=$?
	cat "$T_TMP/fan.out" "$T_TMP/fan.err"
	test $rc = 0
	test "$(jq "[.scenarios[].runs[]] | length" "$T_TMP/fan/summary.json")" = 4
	test "$(jq -r "[.scenarios[].runs[].connect] | unique | length" "$T_TMP/fan/summary.json")" = 2
	test "$(jq -r "[.scenarios[].runs[].verdict] | unique | join(\" \")" "$T_TMP/fan/summary.json")" = ok
	grep -q "$URI2)" "$T_TMP/fan.err"
	for r in "$T_TMP"/fan/*/run-*; do test -s "$r/files/trace.dat"; done
	nothing_left "$T_TMP/fan"
'
fi

test_expect_success 'SIGKILL to netlab run or to regress mid-run: no domain left, stale volumes collected' '
	"$NETLAB" run --backend libvirt --timeout 600 --out "$T_TMP/k1" --exec "echo up; sleep 600" \
		>/dev/null 2>&1 &
	pid=$!
	for _ in $(seq 1 480); do grep -qx up "$T_TMP/k1/stdout" 2>/dev/null && break; sleep 0.5; done
	grep -qx up "$T_TMP/k1/stdout"
	n=$(names_of "$T_TMP/k1")
	test -n "$(listed $n)"
	kill -KILL $pid; wait $pid || true
	for _ in $(seq 1 120); do [ -z "$(listed $n)" ] && break; sleep 0.5; done
	test -z "$(listed $n)"
	test -n "$(staged $n)"		# staged files of the killed run ...
	"$NETLAB" run --backend libvirt --out "$T_TMP/k2" --exec true >/dev/null 2>&1
	test -z "$(staged $n)"		# ... collected by the next run
	nothing_left "$T_TMP/k2"
	"$NETLAB" regress --connect "$URI" --connect "$URI2" -j 1 --repeat 2 --out "$T_TMP/k3" \
		udp-clean >/dev/null 2>&1 &
	pid=$!
	for _ in $(seq 1 480); do
		[ "$(names_of "$T_TMP/k3" 2>/dev/null | wc -l)" -ge 2 ] && break; sleep 0.5
	done
	n=$(names_of "$T_TMP/k3")
	test "$(echo "$n" | wc -l)" -ge 2
	for _ in $(seq 1 480); do [ "$(listed $n | wc -l)" -ge 2 ] && break; sleep 0.5; done
	test "$(listed $n | wc -l)" -ge 2
	kill -KILL $pid; wait $pid || true
	for _ in $(seq 1 120); do [ -z "$(listed $n)" ] && break; sleep 0.5; done
	test -z "$(listed $n)"
	for _ in $(seq 1 60); do no_process_with "$T_TMP/k3" && break; sleep 0.5; done
	no_process_with "$T_TMP/k3"
'

test_expect_success 'an option the chosen backend has no op for: exit 2 naming the option and the backend' '
	rc=0; "$NETLAB" run --backend qemu --print-xml 2>"$T_TMP/o1.err" >/dev/null || rc=$?
	test $rc = 2; grep -q -- "--print-xml needs --backend libvirt, not qemu" "$T_TMP/o1.err"
	rc=0; "$NETLAB" run --backend qemu --connect "$URI" --out "$T_TMP/o2" 2>"$T_TMP/o2.err" || rc=$?
	test $rc = 2; grep -q -- "--connect needs --backend libvirt, not qemu" "$T_TMP/o2.err"
	rc=0; "$NETLAB" regress --backend qemu --connect "$URI" --out "$T_TMP/o3" udp-clean \
		2>"$T_TMP/o3.err" || rc=$?
	test $rc = 2; grep -q -- "--connect needs --backend libvirt, not qemu" "$T_TMP/o3.err"
	rc=0; "$NETLAB" regress --connect "$URI" --record --out "$T_TMP/o4" udp-clean \
		2>"$T_TMP/o4.err" || rc=$?
	test $rc = 2; grep -q -- "--record needs --backend qemu, not libvirt" "$T_TMP/o4.err"
	rc=0; "$NETLAB" run --backend xen 2>"$T_TMP/o5.err" || rc=$?
	test $rc = 2; grep -q -- "--backend .xen.: unknown backend" "$T_TMP/o5.err"
	grep -q "choose one of: qemu, libvirt" "$T_TMP/o5.err"
'

test_expect_success 'bad input: unreachable URI, no daemon, a taken domain name: exit 2, nothing leaked' '
	rc=0; "$NETLAB" run --connect qemu+tcp://127.0.0.1:1/system --out "$T_TMP/b1" 2>"$T_TMP/b1.err" || rc=$?
	test $rc = 2; grep -q "cannot connect to libvirt at .qemu+tcp://127.0.0.1:1/system.*refused" "$T_TMP/b1.err"
	rc=0; "$NETLAB" regress --connect "qemu+unix:///system?socket=$T_TMP/none.sock" --out "$T_TMP/b2" \
		udp-clean 2>"$T_TMP/b2.err" || rc=$?
	test $rc = 2; grep -q "none.sock" "$T_TMP/b2.err"; grep -q "hint: .*libvirtd" "$T_TMP/b2.err"
	rc=0; "$NETLAB" run --connect "$URI" --domain-name "bad name" 2>"$T_TMP/b3.err" || rc=$?
	test $rc = 2; grep -q "domain-name" "$T_TMP/b3.err"
	rc=0; "$NETLAB" run --backend libvirt --record --out "$T_TMP/b4" 2>"$T_TMP/b4.err" || rc=$?
	test $rc = 2; grep -q "direct QEMU backend" "$T_TMP/b4.err"
	rc=0; "$NETLAB" regress --connect "$URI" --out "$T_TMP/b6" "$S/gdb/e1000e-rx.scn" \
		2>"$T_TMP/b6.err" || rc=$?
	test $rc = 2; grep -q "e1000e-rx.scn: \[gdb\] runs with the direct QEMU backend" "$T_TMP/b6.err"
	cat >"$T_TMP/other.xml" <<-EOF
	<domain type="qemu"><name>t14-taken-$$</name><memory unit="MiB">32</memory>
	<os><type arch="x86_64">hvm</type></os><features><acpi/></features></domain>
	EOF
	virsh -c "$URI" create --paused "$T_TMP/other.xml" >/dev/null
	rc=0; "$NETLAB" run --connect "$URI" --domain-name "t14-taken-$$" --out "$T_TMP/b5" \
		2>"$T_TMP/b5.err" || rc=$?
	virsh -c "$URI" domstate "t14-taken-$$" >"$T_TMP/b5.state"
	virsh -c "$URI" destroy "t14-taken-$$" >/dev/null
	test $rc = 2; grep -q "already exists" "$T_TMP/b5.err"
	grep -q paused "$T_TMP/b5.state"	# the other domain was left alone
	test -z "$(staged "t14-taken-$$")"
'

test_done
