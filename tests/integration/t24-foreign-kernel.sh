#!/usr/bin/env bash
# A kernel netlab did not build: Debian's stock kernel, whose NIC drivers are
# modules. Without them the run ends infra-error (125) and says which device
# has no driver and what the kernel lacks, instead of only "no interface
# with MAC". With --modules (the package's lib/modules), the agent loads the
# NIC, virtio, qdisc and 9p modules with their dependencies before the NICs,
# and a shipped scenario passes. The package comes from the machine's apt
# sources (about 70 MB, unpacked in the cache); without it the test skips.
. "$(dirname "$0")/../lib.sh"
need_guest
command -v apt-get >/dev/null && command -v dpkg >/dev/null || skip_all "not Debian: no apt-get/dpkg"

cache=${NETLAB_CACHE:-$HOME/.cache/netlab}/debian-kernels
# The 6.1 image linux-image-amd64 depends on in bookworm (not backports').
pkg=$(apt-cache show linux-image-amd64 2>/dev/null | sed -n 's/^Depends: \(linux-image-6\.1\.[0-9]*-[0-9]*-amd64\).*/\1/p' | head -1)
[ -n "$pkg" ] || skip_all "apt knows no linux-image-6.1.*-amd64 (apt-get update)"
vmlinuz=$(ls "$cache/$pkg"/boot/vmlinuz-* 2>/dev/null | head -1)
if [ -z "$vmlinuz" ]; then
	mkdir -p "$cache/dl"
	(cd "$cache/dl" && apt-get download "$pkg" >/dev/null 2>&1) ||
		skip_all "cannot download $pkg (no network or apt sources)"
	dpkg -x "$cache"/dl/"$pkg"_*.deb "$cache/$pkg"
	rm -f "$cache"/dl/"$pkg"_*.deb
	vmlinuz=$(ls "$cache/$pkg"/boot/vmlinuz-* | head -1)
fi
echo "# kernel: $vmlinuz"

test_expect_success 'a NIC without its driver: infra-error naming the device and the config' '
	rc=0; "$NETLAB" run --kernel "$vmlinuz" --out "$T_TMP/stock" --exec true \
		>"$T_TMP/stock.out" 2>"$T_TMP/stock.err" || rc=$?
	cat "$T_TMP/stock.err"
	test $rc = 125
	grep -q "no interface with MAC .*: no driver bound to the e1000e device at 0000:00:0[0-9a-f].0: the kernel lacks CONFIG_E1000E=y" "$T_TMP/stock.err"
	grep -q "hint: pass the kernel.s modules (netlab run --modules DIR)" "$T_TMP/stock.err"
	test "$(json_get "$T_TMP/stock/result.json" verdict)" = infra-error
	test -s "$T_TMP/stock/console.log"
	test -z "$(pgrep -f "qemu-system.*$T_TMP/stock" || true)"
'

test_expect_success '--modules: the stock kernel boots with its NICs, the modules loaded deps first' '
	"$NETLAB" run --kernel "$vmlinuz" --modules "$cache/$pkg" --out "$T_TMP/mods" \
		--exec "cut -d\" \" -f1 /proc/modules; ip -br link; ip -n b -br link" >"$T_TMP/mods.out"
	cat "$T_TMP/mods.out"
	for m in e1000e e1000 virtio_net virtio_pci virtio_console sch_netem; do
		grep -qx "$m" "$T_TMP/mods.out"
	done
	grep -Eq "^ethA +UP" "$T_TMP/mods.out"
	grep -Eq "^ethB +UP" "$T_TMP/mods.out"
	grep -Eq "netlab-agent: loaded [0-9]+ modules" "$T_TMP/mods/console.log"
	! grep -q "netlab-agent: module .*:" "$T_TMP/mods/console.log"
'

test_expect_success '--modules: a shipped scenario passes on the stock kernel' '
	rc=0; "$NETLAB" regress --kernel "$vmlinuz" --modules "$cache/$pkg" --repeat 1 \
		--out "$T_TMP/reg" udp-clean >"$T_TMP/reg.out" 2>&1 || rc=$?
	cat "$T_TMP/reg.out"
	test $rc = 0
	grep -Eq "^udp-clean +no_loss +udp.lost +0 " "$T_TMP/reg.out"
'

test_expect_success '--modules: bad trees and other kernels exit 2 and say why' '
	rc=0; "$NETLAB" run --kernel "$vmlinuz" --modules "$T_TMP" --out "$T_TMP/bad1" --exec true \
		2>"$T_TMP/bad1.err" || rc=$?
	cat "$T_TMP/bad1.err"
	test $rc = 2
	grep -q "modules $T_TMP: no module tree" "$T_TMP/bad1.err"
	# the default kernel is not the one the modules were built for
	rc=0; "$NETLAB" run --modules "$cache/$pkg" --out "$T_TMP/bad2" --exec true \
		2>"$T_TMP/bad2.err" || rc=$?
	cat "$T_TMP/bad2.err"
	test $rc = 2
	grep -q "built for 6.1.0-[0-9]*-amd64, the kernel is " "$T_TMP/bad2.err"
	test -z "$(pgrep -f "qemu-system.*$T_TMP/bad" || true)"
'

test_done
