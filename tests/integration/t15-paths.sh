#!/usr/bin/env bash
# The suite covers every NIC path, and catches a driver that loses frames
# silently: matrices list and select their cases, --coverage shows every
# required cell covered, and a planted e1000e change (tests/regress/bisect/
# make-history.sh, branch silent: frames of 257..768 bytes recycled in the
# RX ring, never handed up, never freed, no counter moves) fails the
# e1000e-receiving cases of the default suite with the loss placed in B's
# NIC/driver and the descriptors named by length; the same cases pass on the
# unmodified driver, built the same way.
. "$(dirname "$0")/../lib.sh"
need_guest
command -v git >/dev/null || skip_all "git missing (make deps)"
S=$TOP/tests/regress

test_expect_success '--coverage: every model x role x size class x protocol cell is covered' '
	rc=0; "$NETLAB" regress --coverage >"$T_TMP/cov.out" 2>&1 || rc=$?
	cat "$T_TMP/cov.out"
	test $rc = 0
	! grep -q MISSING "$T_TMP/cov.out"
	grep -Eq "^coverage: ([0-9]+)/\1 required cells covered" "$T_TMP/cov.out"
	grep -Eq "^e1000e +rx +udp +[1-9]" "$T_TMP/cov.out"
	# every kind of path of the shipped topologies, in both families
	for k in link forwarding bridge vlan tunnel; do
		grep -Eq "^topology x family .* $k [1-9][0-9]*/[1-9][0-9]*" "$T_TMP/cov.out" || { echo "no $k in both families"; false; }
	done
'

test_expect_success '--coverage of one scenario: the cells it misses, exit 1' '
	rc=0; "$NETLAB" regress --coverage udp-clean >"$T_TMP/cov1.out" 2>&1 || rc=$?
	cat "$T_TMP/cov1.out"
	test $rc = 1
	grep -Eq "^e1000 +rx +udp +MISSING" "$T_TMP/cov1.out"
'

test_expect_success 'matrix cases: listed by name, selected by name or glob' '
	"$NETLAB" regress --list >"$T_TMP/list"
	grep -q "^paths-udp\[nic.B=e1000e,direction=B>A,size=1472\] " "$T_TMP/list"
	# per model of the matrix: 2 directions x 4 sizes; 2 directions x 2 protocols;
	# each in both families, family=4 left out of the name
	nb=$(sed -n "s/^nic.B = //p" "$S/paths-udp.scn" | wc -w)
	test "$nb" -ge 4
	test "$(grep -c "^paths-udp\[" "$T_TMP/list")" = $((nb * 16))
	test "$(grep -c "^paths-rr\[" "$T_TMP/list")" = $((nb * 8))
	test "$(grep -c "^paths-udp\[.*,family=6\] " "$T_TMP/list")" = $((nb * 8))
	! grep -q "family=4" "$T_TMP/list"
	grep -q "^paths-rr\[nic.B=e1000e,direction=B>A,proto=udp\] " "$T_TMP/list"
	"$NETLAB" regress --list "paths-udp[nic.B=e1000,direction=A>B,size=32]" >"$T_TMP/one"
	test "$(wc -l <"$T_TMP/one")" = 1
	"$NETLAB" regress --list "paths-*nic.B=e1000e,direction=A>B*" >"$T_TMP/glob"
	cat "$T_TMP/glob"
	test "$(wc -l <"$T_TMP/glob")" = 16
	rc=0; "$NETLAB" regress --list "paths-udp[nic.B=e9999*" 2>"$T_TMP/none.err" || rc=$?
	test $rc = 2
	grep -q "no scenario or matrix case matches" "$T_TMP/none.err"
	grep -q "^hint: netlab regress --list" "$T_TMP/none.err"
'

# metric FILE NAME: one metric of a metrics.json ("" when it has none).
metric() {
	python3 -c 'import json,sys
m=json.load(open(sys.argv[1])); m=m.get("metrics", m); v=m.get(sys.argv[2])
print("" if v is None else "%.0f" % v)' "$1" "$2"
}

test_expect_success 'family=6: a tcp-stream and an rr case pass over IPv6, every IP frame of each wire at its IP layer' '
	rc=0; "$NETLAB" regress --out "$T_TMP/v6" "paths-tcp[nic.B=e1000e,direction=B>A,family=6]" \
		"paths-rr[nic.B=igb,direction=A>B,proto=tcp,family=6]" >"$T_TMP/v6.out" 2>&1 || rc=$?
	cat "$T_TMP/v6.out"
	test $rc = 0
	test "$(ls -d "$T_TMP"/v6/*+6/run-1 | wc -l)" = 2
	for r in "$T_TMP"/v6/*+6/run-1; do
		m=$r/metrics.json
		# the generator was given the peer.s IPv6 address
		grep -Eq "\"dst\": \"2001:" "$r"/files/send.json "$r"/files/client.json
		# the loss identity of the NIC/driver layer: each wire.s IP frames at IP, none lost
		for l in A B; do
			w=$(metric "$m" nicrx.$l.wire); ip=$(metric "$m" nicrx.$l.ip)
			echo "$r $l: wire $w ip $ip"
			test "$w" -gt 0
			test "$w" = "$ip"
			test "$(metric "$m" nicrx.$l.lost)" = 0
		done
		# the traffic went over IPv6: IPv6 counters, not IPv4 ones, moved
		test "$(metric "$m" snmp6.A.Ip6InReceives)" -gt 100
		test "$(metric "$m" snmp6.B.Ip6InReceives)" -gt 100
		v4=$(metric "$m" snmp.B.Ip.InReceives); test "${v4:-0}" -lt 10
	done
'

# The planted silent loss, as a driver module (bisect --module builds it
# against the cached kernel in seconds; its initrd replaces e1000e).
H=$("$S/bisect/make-history.sh" --module "${NETLAB_CACHE:-$HOME/.cache/netlab}/bisect-test/e1000e") ||
	skip_all "cannot make the driver history (tests/regress/bisect/make-history.sh)"
# IPv4's four sizes (family=6's cases carry it in their names)
CASES=()
for sz in 32 1472 3000 32..1472; do CASES+=("paths-udp[nic.B=e1000e,direction=A>B,size=$sz]"); done

# By default from the culprit's parent (two steps); NETLAB_SLOW_TESTS=1: from base.
GOOD=silent-culprit^
[ "${NETLAB_SLOW_TESTS:-}" = 1 ] && GOOD=base

test_expect_success 'bisect --module names the planted silent-loss commit' '
	rc=0; "$NETLAB" bisect --module "$H" --good "$GOOD" --bad silent-culprit \
		--scenario "$S/bisect/e1000e-rx-mixed.scn" --out "$T_TMP/bis" \
		>"$T_TMP/bis.out" 2>"$T_TMP/bis.err" || rc=$?
	cat "$T_TMP/bis.out"; tail -5 "$T_TMP/bis.err"
	test $rc = 0
	grep -q "^first bad commit: $(git -C "$H" rev-parse silent-culprit) e1000e: reuse the RX buffer" "$T_TMP/bis.out"
	grep -q "^after : no_driver_loss: loss.lost_in_driver = [1-9]" "$T_TMP/bis.out"
'

# initrd.img of the bisection step that built a commit.
step_initrd() {
	local c; c=$(git -C "$H" rev-parse "$1" | cut -c1-12)
	find "$T_TMP/bis/steps" -path "*$c*" -name initrd.img | head -1
}

test_expect_success 'the planted driver fails the default suite: the loss is in B.s NIC/driver, descriptors by length' '
	bad=$(step_initrd silent-culprit)
	test -r "$bad"
	rc=0; "$NETLAB" regress --initrd "$bad" --out "$T_TMP/bad" "${CASES[@]}" \
		>"$T_TMP/bad.out" 2>"$T_TMP/bad.err" || rc=$?
	cat "$T_TMP/bad.out"
	test $rc = 1
	# the mixed-size case fails, and says where and which frames
	grep -q "size=32..1472\] *no_driver_loss *loss.lost_in_driver *[1-9][0-9]* .*fail" "$T_TMP/bad.out"
	grep -q "IP frames in NIC B.s NIC/driver (on its wire, never at its IP layer.*no NIC or driver counter moved: silent" "$T_TMP/bad.out"
	grep -Eq "driver: ethB completed [0-9]+ received descriptors without handing them to the stack, [0-9]+..[0-9]+ B; most: [0-9]+ B" "$T_TMP/bad.out"
	# every length it names lies in the planted window: the range and the most frequent
	lens=$(grep -o "without handing them to the stack, .*; status" "$T_TMP/bad.out" |
		sed "s/([0-9]*)//g" | grep -Eo "[0-9]+")
	echo "lengths named: $lens"
	test -n "$lens"
	for l in $lens; do
		{ [ "$l" -gt 256 ] && [ "$l" -le 768 ]; } || { echo "length $l is outside 257..768"; exit 1; }
	done
	# the progress line says which checks failed
	grep -q "run 1/1: ok, checks FAIL: no_loss" "$T_TMP/bad.err"
	# sizes the window does not hold pass
	grep -q "size=1472\] *no_driver_loss .* pass" "$T_TMP/bad.out"
'

test_expect_success 'the same cases pass with the unmodified driver, built the same way' '
	good=$(step_initrd "$GOOD")
	test -r "$good"
	rc=0; "$NETLAB" regress --initrd "$good" --out "$T_TMP/good" "${CASES[@]}" \
		>"$T_TMP/good.out" 2>"$T_TMP/good.err" || rc=$?
	cat "$T_TMP/good.out"
	test $rc = 0
	grep -q "run 1/1: ok, checks pass" "$T_TMP/good.err"
	! grep -q "checks FAIL" "$T_TMP/good.err"
'

test_done
