#!/usr/bin/env bash
# Kernel flavours (kconfigs/flavours/NAME/): --flavour of every command that
# boots a kernel, the default flavour's cache key (kbuild.sh's, unchanged),
# and a scenario that needs another flavour skipped with its reason. No guest
# boots by default; NETLAB_SLOW_TESTS=1 builds full-net (20+ minutes cold)
# and boots it.
. "$(dirname "$0")/../lib.sh"
[ -x "$NETLAB" ] || skip_all "build/netlab missing (run make)"
cd "$TOP"

test_expect_success '--flavour nosuch: exit 2 naming kconfigs/flavours/ and listing the flavours' '
	for c in run regress selftests gdb bisect; do
		rc=0; "$NETLAB" $c --flavour nosuch >"$T_TMP/out" 2>"$T_TMP/err" || rc=$?
		cat "$T_TMP/err"
		test $rc = 2
		grep -q "unknown kernel flavour .nosuch.: no directory kconfigs/flavours/nosuch" "$T_TMP/err"
		grep -q "^hint: the flavours are: default, full-net" "$T_TMP/err"
	done
	rc=0; harness/kbuild-flavour.sh nosuch --print-dir 2>"$T_TMP/err" || rc=$?
	test $rc = 2
	grep -q "kconfigs/flavours/nosuch" "$T_TMP/err"
	grep -q "default full-net" "$T_TMP/err"
'

have_source() {
	[ -n "${KSRC:-}" ] || [ -r /usr/src/linux-source-6.1.tar.xz ]
}

# --print-dir computes the key and builds nothing; it reads the source tree
# `make kernel` extracted into the cache (a cache of its own would extract
# it again: 1.4 GB, minutes).
test_expect_success 'the default flavour is kbuild.sh: same cache key; full-net has its own, from its fragments' '
	have_source || { echo "no kernel source (make deps)"; exit 0; }
	harness/kbuild.sh --print-dir 2>/dev/null | tail -n 1 >"$T_TMP/k0"
	harness/kbuild-flavour.sh default --print-dir 2>/dev/null | tail -n 1 >"$T_TMP/k1"
	harness/kbuild-flavour.sh full-net --print-dir 2>/dev/null | tail -n 1 >"$T_TMP/k2"
	cat "$T_TMP/k0" "$T_TMP/k1" "$T_TMP/k2"
	test -s "$T_TMP/k0"
	cmp "$T_TMP/k0" "$T_TMP/k1"
	! cmp -s "$T_TMP/k0" "$T_TMP/k2"
	# A flavour key hashes its fragments: one more line, another key.
	mkdir -p "$T_TMP/kc/flavours/x"
	cp kconfigs/*.config "$T_TMP/kc/"
	cp kconfigs/flavours/full-net/*.config "$T_TMP/kc/flavours/x/"
	k3=$(KCONFIGS=$T_TMP/kc harness/kbuild-flavour.sh x --print-dir 2>/dev/null | tail -n 1)
	echo CONFIG_NET_SCH_SFQ=y >>"$T_TMP/kc/flavours/x/net.config"
	k4=$(KCONFIGS=$T_TMP/kc harness/kbuild-flavour.sh x --print-dir 2>/dev/null | tail -n 1)
	test -n "$k3" && test "$k3" != "$k4"
	# No fragment in default/: its key is the common fragments alone.
	! ls kconfigs/flavours/default/*.config 2>/dev/null
'

test_expect_success 'a scenario that needs full-net is skipped on the default flavour, with how to run it' '
	[ -r "$INITRD" ] || { echo "no initramfs (make guest)"; exit 0; }
	cat >"$T_TMP/needs-full-net.scn" <<-SCN
	[scenario]
	flavour = full-net
	[traffic]
	generator = udp-stream
	[checks]
	no_loss = udp.lost == 0
	SCN
	rc=0; "$NETLAB" regress --out "$T_TMP/suite" "$T_TMP/needs-full-net.scn" >"$T_TMP/out" 2>&1 || rc=$?
	cat "$T_TMP/out"
	test $rc = 0
	test "$(json_get "$T_TMP/suite/summary.json" scenarios.0.outcome)" = skip
	reason=$(json_get "$T_TMP/suite/summary.json" scenarios.0.reason)
	echo "$reason" | grep -q "needs kernel flavour .full-net. (this run.s: .default.)"
	echo "$reason" | grep -q "make kernel FLAVOUR=full-net && netlab regress --flavour full-net"
	test ! -e "$T_TMP/suite/needs-full-net/run-1"
'

if [ "${NETLAB_SLOW_TESTS:-}" != 1 ]; then
	test_skip "NETLAB_SLOW_TESTS=1: full-net builds, boots, and has dummy and bridge links" "slow (a 20-minute kernel build); NETLAB_SLOW_TESTS=1 runs it"
else
test_expect_success 'NETLAB_SLOW_TESTS=1: full-net builds, boots, and has dummy and bridge links' '
	make -s kernel FLAVOUR=full-net
	"$NETLAB" run --flavour full-net --out "$T_TMP/fn" \
		--exec "ip link add d0 type dummy && ip link add br0 type bridge && echo ok" >"$T_TMP/fn.out"
	grep -qx ok "$T_TMP/fn.out"
	test "$(json_get "$T_TMP/fn/result.json" kernel.flavour)" = full-net
'

# kbuild-flavour.sh packs full-net's modules: modules.builtin (the tests
# modprobe what is built in: vrf, dummy, netdevsim...) and the =m test
# modules; netlab selftests puts them in the guest. test_blackhole_dev.sh
# loads its module with /sbin/modprobe (it fails at that line without them).
test_expect_success 'NETLAB_SLOW_TESTS=1: full-net has modules.cpio.gz; a selftest modprobes its module' '
	make -s kernel FLAVOUR=full-net
	m=build/kernel-full-net/modules.cpio.gz
	test -s "$m"
	zcat "$m" | cpio -t --quiet >"$T_TMP/mods.list"
	grep -q "^./lib/modules/[^/]*/modules.builtin$" "$T_TMP/mods.list"
	grep -q "^./lib/modules/[^/]*/modules.dep$" "$T_TMP/mods.list"
	grep -q "^./lib/modules/[^/]*/kernel/lib/test_blackhole_dev.ko$" "$T_TMP/mods.list"
	grep -qx "./sbin/modprobe" "$T_TMP/mods.list"
	zcat "$m" | cpio -i --quiet --to-stdout "*/modules.builtin" | grep -qx kernel/drivers/net/vrf.ko
	rc=0; "$NETLAB" selftests --flavour full-net -o "$T_TMP/sft" net:test_blackhole_dev.sh \
		>"$T_TMP/sft.out" 2>&1 || rc=$?
	cat "$T_TMP/sft.out"
	test $rc = 0
	grep -Eq "^net:test_blackhole_dev.sh +pass " "$T_TMP/sft.out"
'
fi

test_done
