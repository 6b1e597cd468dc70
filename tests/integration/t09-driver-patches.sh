#!/usr/bin/env bash
# Driver instrumentation (driver-patches/): every series applies to pristine
# linux-source-6.1; build/kernel is the kernel of these series, carries
# every event they add and lists the series in its driver-patches manifest; a series that does not apply stops make kernel,
# naming the patch and the hunk; and under ping and UDP traffic in the loop
# topology each instrumented driver (e1000e, e1000, virtio_net) writes every
# one of its events, well formed, with rx_handoff skbs (and their data_len
# and protocol) that join the stack's net:napi_gro_receive_entry tracepoint and tx_done skbs that were sent.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null || skip_all "python3 missing (make deps)"
PATCHES=$TOP/driver-patches
TARBALL=/usr/src/linux-source-6.1.tar.xz
KDIR=$(dirname "$KERNEL")
ls "$PATCHES"/*/*.patch >/dev/null 2>&1 || skip_all "no driver series in driver-patches/"

# The files of the kernel tree the series touch, less those a patch creates
# (a later patch may change them).
touched() {
	awk '/^--- / { from = $2 }
		/^\+\+\+ b\// { sub(/^b\//, "", $2); if (from == "/dev/null") created[$2] = 1; else seen[$2] = 1 }
		END { for (f in seen) if (!(f in created)) print f }' "$PATCHES"/*/*.patch | sort -u
}
# events SERIES: the events a series writes, from the NETLAB_DRV format strings it adds.
events() { cat "$PATCHES/$1"/*.patch | sed -n 's/^+.*"\([a-z_]*\) [a-z_]*=.*/\1/p' | sort -u; }

# --- (a) the series against pristine sources ----------------------------
if [ -r "$TARBALL" ]; then
	test_expect_success 'every series applies, patch by patch, to pristine linux-source-6.1 (--dry-run, no fuzz or offset)' '
		mkdir "$T_TMP/pristine"
		tar -C "$T_TMP/pristine" -xf "$TARBALL" --strip-components=1 $(touched | sed "s|^|linux-source-6.1/|")
		for s in $(cd "$PATCHES" && ls -d */ | tr -d /); do
			rm -rf "$T_TMP/s"; cp -a "$T_TMP/pristine" "$T_TMP/s"
			for p in "$PATCHES/$s"/*.patch; do
				out=$(patch -d "$T_TMP/s" -p1 --forward --batch --dry-run <"$p" 2>&1) ||
					{ echo "$s/${p##*/}: $out"; false; }
				if printf "%s\n" "$out" | grep -Eq "fuzz|offset|FAILED"; then echo "$s/${p##*/}: $out"; false; fi
				# Later patches of a series build on the earlier ones.
				patch -d "$T_TMP/s" -p1 --forward --batch -s <"$p"
				echo "ok $s/${p##*/}"
			done
		done
	'
else
	test_skip 'every series applies, patch by patch, to pristine linux-source-6.1 (--dry-run, no fuzz or offset)' \
		"$TARBALL missing (apt-get install linux-source-6.1)"
fi

# --- (b) build/kernel is built with them --------------------------------
# Tests that need a prerequisite are skipped, one by one, when it is missing.
test_if() { # test_if REASON-IF-MISSING TITLE BODY
	if [ -n "$1" ]; then test_skip "$2" "$1"; else test_expect_success "$2" "$3"; fi
}
no_vmlinux=
[ -r "$KDIR/vmlinux" ] || no_vmlinux="no vmlinux next to $KERNEL (run make kernel)"
test_if "$no_vmlinux" 'the kernel carries every event of every series (strings vmlinux), none skipped' '
	test ! -e "$KDIR/driver-patches-skipped" || { cat "$KDIR/driver-patches-skipped"; false; }
	strings "$KDIR/vmlinux" | grep "netlab_drv: " >"$T_TMP/fmts" ||
		{ echo "no netlab_drv format string in $KDIR/vmlinux: built without driver-patches?"; false; }
	n=0
	for s in $(cd "$PATCHES" && ls -d */ | tr -d /); do
		for e in $(events "$s"); do
			# a tracepoint print format (today), or a trace_printk format (older series)
			grep -q "^\"\\?netlab_drv: $s %s $e " "$T_TMP/fmts" || { echo "no format string for $s $e in $KDIR/vmlinux"; false; }
			n=$((n + 1))
		done
	done
	echo "$n driver events found"
	test $n -ge 20
'

no_manifest=
[ -e "$KDIR/driver-patches" ] || no_manifest="no driver-patches manifest in $KDIR (built before kbuild.sh wrote it: run make kernel)"
test_if "$no_manifest" 'the kernel manifest driver-patches lists every series applied, one per line' '
	cat "$KDIR/driver-patches"
	for s in $(cd "$PATCHES" && ls -d */ | tr -d /); do
		grep -qx "$s" "$KDIR/driver-patches" || { echo "series $s missing from $KDIR/driver-patches"; false; }
	done
	test "$(wc -l <"$KDIR/driver-patches")" = "$(cd "$PATCHES" && ls -d */ | wc -l)"
'

if [ "$KERNEL" = "$TOP/build/kernel/bzImage" ] && [ -r "$TARBALL" ]; then
	test_expect_success 'build/kernel is the kernel of the current series (make kernel cache key)' '
		want=$("$TOP/harness/kbuild.sh" --print-dir 2>"$T_TMP/kb.err" | tail -n 1)
		have=$(readlink -f "$TOP/build/kernel")
		echo "build/kernel: $have, series: $want"
		test "$have" = "$want"
	'

	test_expect_success 'a series that does not apply stops make kernel, naming the patch and the failing hunk' '
		cp -a "$PATCHES" "$T_TMP/bad"
		victim=$(ls "$T_TMP/bad/e1000e"/0002-*.patch)
		# Change every context line of hunk 2: that hunk cannot apply, with any fuzz.
		awk "/^@@ /{h++} h==2 && /^ /{\$0=\$0 \" /* t09 */\"} {print}" "$victim" >"$T_TMP/v" && mv "$T_TMP/v" "$victim"
		rc=0; DRIVER_PATCHES=$T_TMP/bad "$TOP/harness/kbuild.sh" >"$T_TMP/bad.out" 2>"$T_TMP/bad.err" || rc=$?
		cat "$T_TMP/bad.err"
		test $rc = 1
		grep -q "^netlab kbuild: driver patch .*e1000e/0002-.*\.patch. does not apply" "$T_TMP/bad.err"
		grep -q "drivers/net/ethernet/intel/e1000e/netdev.c hunk #2 (@@ -[0-9,]* +[0-9,]* @@ .*) FAILED at [0-9]*" "$T_TMP/bad.err"
		grep -q "^hint: DRIVER_PATCHES_SKIP_FAILED=1 builds without series .e1000e." "$T_TMP/bad.err"
		test ! -s "$T_TMP/bad.out"
	'
fi

# --- (c), (d) a guest under traffic -------------------------------------
no_guest=
if [ ! -x "$NETLAB" ]; then no_guest="build/netlab missing (run make)"
elif [ ! -r "$KERNEL" ]; then no_guest="no kernel at $KERNEL (run make kernel)"
elif [ ! -r "$INITRD" ]; then no_guest="no initramfs at $INITRD (run make guest)"
elif ! command -v qemu-system-x86_64 >/dev/null; then no_guest="qemu-system-x86_64 missing (make deps)"
fi

# Ping and UDP both ways between ethA (root namespace) and ethB (netns b),
# with the receive tracepoints on; the trace comes back as files/trace.txt.
# The kernel runs with no_hash_pointers, so that tracepoints print raw skb
# addresses. (options/hash-ptr off does that too, but this 6.1 then prints
# an empty dev= in the net: tracepoints.)
guest_script() {
	cat <<-'EOF'
	T=/sys/kernel/tracing
	echo 0 > $T/tracing_on
	echo 8192 > $T/buffer_size_kb
	echo 1 > $T/events/net/napi_gro_receive_entry/enable
	echo 1 > $T/events/net/netif_receive_skb/enable
	echo 1 > $T/events/netlab_drv/enable
	echo > $T/trace
	echo 1 > $T/tracing_on
	ping -c 10 -i 0.05 198.18.0.2 > /dev/null
	/sbin/ip netns exec b udp-stream --recv --bind 198.18.0.2 --idle-timeout 3 > /dev/null &
	sleep 1
	udp-stream --send --dst 198.18.0.2 --rate 500 --duration 1 --size 1000 > /dev/null
	wait
	udp-stream --recv --bind 198.18.0.1 --idle-timeout 3 > /dev/null &
	sleep 1
	/sbin/ip netns exec b udp-stream --send --dst 198.18.0.1 --rate 500 --duration 1 --size 1000 > /dev/null
	wait
	echo 0 > $T/tracing_on
	cat $T/trace > /netlab/out/trace.txt
	EOF
}

# check_trace TRACE DRIVER IFNAME EVENTS: every event of EVENTS (comma-separated)
# is there for DRIVER on IFNAME, every line is well formed, and the skbs join.
check_trace() {
	python3 - "$@" <<-'EOF'
	import collections, re, sys
	path, drv, ifn, need = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(",")
	cpu_re = re.compile(r"\[(\d{3})\]")
	ptr = re.compile(r"ffff[0-9a-f]{12}$")
	num = re.compile(r"(0x[0-9a-f]+|\d+)$")
	count = collections.Counter()
	bad, idxs, ring = [], [], None
	pending = {}                     # cpu -> rx_handoff skb not yet seen by the tracepoint
	joined = unjoined = 0
	sent, done_ok, done_unsent = set(), 0, 0
	def fail(msg, line):
	    bad.append(f"{msg}: {line.strip()}")
	for line in open(path, errors="replace"):
	    if line.startswith("#"):
	        continue
	    m = cpu_re.search(line)
	    cpu = m.group(1) if m else None
	    if ": netlab_drv: " in line:
	        words = line.split(": netlab_drv: ", 1)[1].split()
	        if len(words) < 3:
	            fail("short line", line); continue
	        d, i, ev = words[:3]
	        if d not in ("e1000e", "e1000", "virtio_net"):
	            fail("unknown driver", line)
	        if (d, i) != (drv, ifn):
	            continue
	        kv = {}
	        for w in words[3:]:
	            k, eq, v = w.partition("=")
	            if not eq or not v or k in kv:
	                fail("not key=value", line)
	            kv[k] = v
	        for k, v in kv.items():
	            if k == "skb":
	                ptr.match(v) or fail("skb is not a raw kernel pointer", line)
	            elif k not in ("kind", "dir") and not num.match(v):
	                fail(f"{k} is not a number", line)
	        count[ev] += 1
	        g = lambda k: int(kv[k], 0)
	        try:
	            if ev == "rx_handoff":
	                if cpu in pending:
	                    unjoined += 1; fail("rx_handoff without napi_gro_receive_entry", line)
	                pending[cpu] = (kv["skb"], g("data_len"), g("proto"))
	            elif ev == "rx_desc":
	                idxs.append(g("idx"))
	            elif ev == "rx_refill":
	                ring = g("ring")
	                if not (0 <= g("fill") <= ring and g("fail") in (0, 1) and g("alloc") >= 0):
	                    fail("rx_refill out of range", line)
	                if "ntu" in kv and not (g("ntu") < ring and g("ntc") < ring and g("alloc") <= g("want")):
	                    fail("rx_refill ring indices out of range", line)
	            elif ev == "xmit":
	                sent.add(kv["skb"]); g("len"); g("ring")
	            elif ev == "tx_done":
	                if kv["skb"] in sent:
	                    done_ok += 1
	                else:
	                    done_unsent += 1
	            elif ev == "tx_clean":
	                if not (g("cleaned") >= g("pkts") >= 1):
	                    fail("tx_clean counts", line)
	            elif ev == "poll_end":
	                if not (0 <= g("work") <= g("budget") and g("repoll") in (0, 1)):
	                    fail("poll_end counts", line)
	            elif ev == "poll_start":
	                g("budget")
	            elif ev == "irq":
	                kv["kind"]; g("vec")
	            else:
	                fail("unknown event", line)
	        except (KeyError, ValueError) as e:
	            fail(f"missing or bad key {e}", line)
	    elif "napi_gro_receive_entry:" in line and f"dev={ifn} " in line:
	        m = re.search(r"skbaddr=(?:0x)?([0-9a-f]+)", line)
	        gp = re.search(r" protocol=(0x[0-9a-f]+)", line)
	        gd = re.search(r" data_len=([0-9]+)", line)
	        if cpu in pending and m:
	            skb, dl, proto = pending.pop(cpu)
	            if skb != m.group(1):
	                unjoined += 1; fail("rx_handoff skb differs from napi_gro_receive_entry skbaddr", line)
	            elif not gp or not gd or (dl, proto) != (int(gd.group(1)), int(gp.group(1), 16)):
	                unjoined += 1; fail("rx_handoff data_len/proto differ from napi_gro_receive_entry's", line)
	            else:
	                joined += 1
	# rx_desc walks the ring in order.
	if ring:
	    for a, b in zip(idxs, idxs[1:]):
	        if b != (a + 1) % ring:
	            bad.append(f"rx_desc idx {a} then {b} (ring {ring})"); break
	print(f"{drv} {ifn}: " + " ".join(f"{e}={count[e]}" for e in sorted(count)) +
	      f"; rx_handoff joined={joined} unjoined={unjoined}; tx_done sent={done_ok} unsent={done_unsent}")
	for e in need:
	    if count[e] == 0:
	        bad.append(f"no {e} line")
	if joined < 50:
	    bad.append(f"only {joined} rx_handoff lines joined napi_gro_receive_entry")
	if done_ok < 50 or done_unsent > 3:
	    bad.append(f"tx_done: {done_ok} of sent skbs, {done_unsent} never seen in xmit")
	for b in bad[:20]:
	    print("  " + b)
	sys.exit(1 if bad else 0)
	EOF
}

ALL=irq,poll_start,poll_end,rx_desc,rx_handoff,rx_refill,xmit,tx_done,tx_clean
VIRTIO=irq,poll_start,poll_end,rx_handoff,rx_refill,xmit,tx_done,tx_clean

run_traffic() { # run_traffic NAME NETLAB-RUN-OPTIONS...
	local name=$1
	shift
	"$NETLAB" run --accel tcg --timeout 600 --append no_hash_pointers "$@" --out "$T_TMP/$name" --exec "$(guest_script)" >"$T_TMP/$name.out" 2>&1 ||
		{ cat "$T_TMP/$name.out"; return 1; }
	test -s "$T_TMP/$name/files/trace.txt"
	n=$(grep -c "netlab_drv: " "$T_TMP/$name/files/trace.txt") || true
	echo "$n netlab_drv lines in the trace"
	test "$n" -gt 0
}

test_if "$no_guest" 'loop e1000e + virtio-net under ping and UDP: the guest records a trace' '
	run_traffic ev
'
test_if "$no_guest" 'e1000e: every event, well formed; rx_handoff joins napi_gro_receive_entry, tx_done joins xmit' '
	check_trace "$T_TMP/ev/files/trace.txt" e1000e ethA $ALL
'
test_if "$no_guest" 'virtio_net: every event, well formed; rx_handoff joins napi_gro_receive_entry, tx_done joins xmit' '
	check_trace "$T_TMP/ev/files/trace.txt" virtio_net ethB $VIRTIO
'
test_if "$no_guest" 'loop e1000 + virtio-net: e1000 writes every event, well formed, and they join' '
	run_traffic e1 --nic A=e1000
	check_trace "$T_TMP/e1/files/trace.txt" e1000 ethA $ALL
'

# The agent turns the top buffer off at boot and cuts it to its minimum: an
# idle buffer's size alone costs throughput under TCG, and trace_printk()
# in the kernel expands it at boot (1410 KB).
test_if "$no_guest" 'an untraced run: top buffer off and at its minimum; the driver lines write nothing' '
	"$NETLAB" run --accel tcg --timeout 600 --out "$T_TMP/off" --exec "
		T=/sys/kernel/tracing
		echo on=\$(cat \$T/tracing_on) kb=\$(cat \$T/buffer_size_kb)
		ping -c 5 -i 0.05 198.18.0.2 > /dev/null
		grep ^entries: \$T/per_cpu/cpu0/stats" >"$T_TMP/off.out" 2>&1 ||
		{ cat "$T_TMP/off.out"; false; }
	cat "$T_TMP/off.out"
	grep -q "^on=0 kb=[1-8]\$" "$T_TMP/off.out"
	grep -q "^entries: 0\$" "$T_TMP/off.out"
'

test_done
