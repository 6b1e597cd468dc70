#!/usr/bin/env bash
# Regenerate the seed corpora in tests/fuzz/corpus/<target>/ from the files
# netlab ships (README.md, "Seeds"). Run it after adding scenarios or
# fixtures; commit what changes. The trace.dat seeds are too big to keep:
# run.sh links them from the fixtures at run time.
# Usage: tests/fuzz/make-corpus.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
out=tests/fuzz/corpus

# A file name for a seed: its path, with '/' as '-'.
seed_name() {
	local p=${1#tests/}
	p=${p#unit/fixtures/}
	echo "${p//\//-}"
}

rm -rf "$out"
mkdir -p "$out"/{scenario,check,baseline,result,pcap,pcapcsum,html,reportjson}

# scenario: every shipped .scn, good and bad.
for f in tests/regress/*.scn tests/regress/*/*.scn tests/integration/scenarios/*.scn \
	 tests/unit/fixtures/scenarios/*.scn tests/unit/fixtures/runs/*/scenario.scn; do
	[ -f "$f" ] && cp "$f" "$out/scenario/$(seed_name "$f")"
done

# check: the expressions of those files' [checks] sections, one per file
# (NAME = EXPR and NAME[COND] = EXPR), named by their hash to drop repeats.
for f in "$out"/scenario/*.scn; do
	awk '/^\[/ { in_checks = ($0 ~ /^\[checks\]/); next }
	     in_checks && /^[ \t]*[A-Za-z0-9_.-]+(\[[^]]*\])?[ \t]*=/ {
		sub(/^[ \t]*[A-Za-z0-9_.-]+(\[[^]]*\])?[ \t]*=[ \t]*/, ""); print }' "$f"
done | sort -u | while IFS= read -r expr; do
	printf '%s' "$expr" >"$out/check/$(printf '%s' "$expr" | sha1sum | cut -c1-16)"
done

# ... and the grammar's corners (harness/scenario/check.c): not, parentheses,
# suffixes, unary minus, division by zero.
printf 'not (nic.A.rx_missed_errors > 0 or udp.lost > 10k)' >"$out/check/grammar-not"
printf 'udp.lost / (udp.sent - udp.sent) < -1.5e3' >"$out/check/grammar-div-zero"
printf -- '-(rr.tps * 2) != baseline / 4 and udp.sent >= 1M' >"$out/check/grammar-unary"

# baseline: the baselines next to the regression scenarios.
for f in tests/regress/*.baseline.json tests/regress/*/*.baseline.json; do
	[ -f "$f" ] && cp "$f" "$out/baseline/$(seed_name "$f")"
done

# result: STATUS NUL CONSOLE NUL QEMU_LOG (fuzz_result.c). The status port
# lines are guest/netlab-proto.h's; the consoles are the shipped logs.
r=$out/result
printf 'agent 1\ntopology ok\nexec 42\nexit 0\npoweroff\n' >"$r/exit-0"
printf 'agent 1\nexec 50\nexit 7\npoweroff\n' >"$r/exit-7"
printf 'agent 1\nexec 50\ntimeout\nexit 137\npoweroff\n' >"$r/guest-timeout"
printf 'agent 1\ntopology error: ip link set eth1 up: No such device\n' >"$r/topology-error"
printf '\0Probing EDD\n' >"$r/boot-hang"
printf '\0\0qemu-system-x86_64: -netdev user: invalid option\n' >"$r/qemu-failed"
printf '\0netlab-agent: no virtio-serial device: all output goes to the console\r\nnetlab-agent: status: agent 1\r\nnetlab-agent: status: exec 33\nnetlab-agent: status: exit 3\n' \
	>"$r/console-status"
printf 'agent 1\nexec 50\n\0[    1.0] netlab-agent: started\n[    2.1] sysrq: Trigger a crash\n[    2.1] Kernel panic - not syncing: sysrq triggered crash\n[    2.1] Call Trace:\n[    2.1]  sysrq_handle_crash+0x16/0x20\n[    2.1] ---[ end Kernel panic - not syncing: sysrq triggered crash ]---\n' \
	>"$r/panic"
printf 'agent 1\nexec 50\n\0[    3.2] BUG: kernel NULL pointer dereference, address: 0000000000000008\n[    3.2] Oops: 0000 [#1] SMP NOPTI\n[    3.2] RIP: 0010:e1000_clean_rx_irq+0x5a/0x3c0\n' \
	>"$r/oops"
for f in $(find tests/unit/fixtures -name 'console*.log' | sort); do
	{ printf 'agent 1\nexec 7\nexit 0\npoweroff\n\0'; cat "$f"; } >"$r/$(seed_name "$f")"
done

# pcap: the first packets of each fixture capture (the whole files are
# ~250 KB), and a capture with no packet.
for f in $(find tests/unit/fixtures -name '*.pcap' | sort); do
	tcpdump -r "$f" -c 12 -w "$out/pcap/$(seed_name "$f")" 2>/dev/null
done
f=$(find tests/unit/fixtures -name '*.pcap' | sort | head -n 1)
head -c 24 "$f" >"$out/pcap/header-only.pcap"

# pcapcsum: the same first packets, and of each capture its first IP
# fragments (lean-udp has them) and IPv6 frames (extension headers).
for f in $(find tests/unit/fixtures -name '*.pcap' | sort); do
	n=$(seed_name "$f")
	tcpdump -r "$f" -c 12 -w "$out/pcapcsum/$n" 2>/dev/null
	tcpdump -r "$f" -c 12 -w "$out/pcapcsum/frag-$n" 'ip[6:2] & 0x3fff != 0' 2>/dev/null
	tcpdump -r "$f" -c 6 -w "$out/pcapcsum/ip6-$n" 'ip6' 2>/dev/null
done
# (a filter that matched nothing leaves a header-only file: one is enough)
find "$out/pcapcsum" -size -25c -delete
head -c 24 "$f" >"$out/pcapcsum/header-only.pcap"
# ... and what the fixtures lack: whole IPv4 and IPv6 fragments (one datagram
# good, one with a bad UDP checksum), VLAN tags, a bad IPv4 header.
python3 - "$out/pcapcsum/synthetic.pcap" <<'PY_EOF'
import struct, sys

def csum(b, s=0):
    b += b"\0" * (len(b) % 2)
    s += sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff

def pseudo(src, dst, proto, n):
    a = src + dst
    return sum(struct.unpack("!%dH" % (len(a) // 2), a)) + proto + n

def udp(src, dst, data, bad=False):
    h = struct.pack("!HHHH", 40000, 5201, 8 + len(data), 0)
    c = csum(h + data, pseudo(src, dst, 17, 8 + len(data))) ^ bad
    return struct.pack("!HHHH", 40000, 5201, 8 + len(data), c or 0xffff) + data

def eth(t, tags=()):
    e = bytes.fromhex("5254004e4c0b5254004e4c0a")
    for tpid in tags:
        e += struct.pack("!HH", tpid, 7)
    return e + struct.pack("!H", t)

A4, B4 = bytes([198, 18, 0, 1]), bytes([198, 18, 0, 2])
A6, B6 = bytes.fromhex("fd" + "00" * 14 + "01"), bytes.fromhex("fd" + "00" * 14 + "02")

def ip4(payload, ident, frag, bad_hdr=False):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), ident, frag, 64, 17, 0, A4, B4)
    h = h[:10] + struct.pack("!H", csum(h) ^ bad_hdr) + h[12:]
    return h + payload

def ip6(nh, payload):
    return struct.pack("!IHBB16s16s", 6 << 28, len(payload), nh, 64, A6, B6) + payload

frames = []
for ident, bad in ((1, False), (2, True)):
    seg = udp(A4, B4, bytes(range(40)), bad)
    frames.append(eth(0x0800) + ip4(seg[24:], ident, 3))
    frames.append(eth(0x0800) + ip4(seg[:24], ident, 0x2000))
    seg = udp(A6, B6, bytes(range(40)), bad)
    frames.append(eth(0x86dd) + ip6(44, struct.pack("!BBHI", 17, 0, 1, ident) + seg[:24]))
    frames.append(eth(0x86dd) + ip6(44, struct.pack("!BBHI", 17, 0, 24, ident) + seg[24:]))
frames.append(eth(0x0800, (0x88a8, 0x8100)) + ip4(udp(A4, B4, b"vlan"), 3, 0x4000))
frames.append(eth(0x0800) + ip4(udp(A4, B4, b"hdr"), 4, 0x4000, True))
out = struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)
for i, f in enumerate(frames):
    f += b"\xaa" * max(0, 60 - len(f))
    out += struct.pack("<IIII", 1700000000, i, len(f), len(f)) + f
open(sys.argv[1], "wb").write(out)
PY_EOF

# html: RESULT NUL METRICS NUL SUMMARY (fuzz_html.c) of each fixture run (the
# hostile one included), with a small summary.json of netlab's form.
sum='{"format_version":1,"netlab":{"version":"0.16","commit":"x"},"dir":"s","wall_s":3.5,"scenarios":[{"name":"<udp>","outcome":"fail","reason":"a check <b>fails</b>","runs":[{"dir":"s/x/run-1","verdict":"ok"}],"checks":[{"name":"no_loss","expr":"udp.lost == 0","verdict":"fail","value":3}]}]}'
for d in tests/unit/fixtures/runs/{udp-path,hostile,drv-e1000e-rx-default,tx-silent}/; do
	[ -f "$d/result.json" ] || continue
	{ cat "$d/result.json"; printf '\0'; cat "$d/metrics.json" 2>/dev/null; printf '\0%s' "$sum"; } \
		>"$out/html/$(basename "$d")"
done
# reportjson: each fixture's result.json, and strings JSON allows but a terminal
# or a strict UTF-8 reader does not.
for f in tests/unit/fixtures/runs/*/result.json; do
	cp "$f" "$out/reportjson/$(seed_name "$f")"
done
printf '{"kernel":{"version":"6.1 \xff\xfe \xc2\x9b2J \x7f \x1b[31m"},"s":"\\u001b\\ud800"}' \
	>"$out/reportjson/bad-bytes"

du -sh "$out"/*
