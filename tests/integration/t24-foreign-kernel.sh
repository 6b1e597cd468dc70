#!/usr/bin/env bash
# A kernel netlab did not build: Debian's stock kernel, whose NIC drivers are
# modules the initramfs does not load. The run ends infra-error (125) and
# says which device has no driver and what the kernel lacks, instead of
# only "no interface with MAC". The package comes from the machine's apt
# sources (about 70 MB, kept in the cache); without it the test skips.
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
	grep -q "hint: build the driver in" "$T_TMP/stock.err"
	test "$(json_get "$T_TMP/stock/result.json" verdict)" = infra-error
	test -s "$T_TMP/stock/console.log"
	test -z "$(pgrep -f "qemu-system.*$T_TMP/stock" || true)"
'

test_done
