#!/usr/bin/env bash
# Make a kernel git tree with planted e1000e regressions (receive, transmit,
# latency) and one in IPv6, for netlab bisect's tests and bench/bisect.
#
# Usage: make-history.sh DIR
#
# DIR (created once, then reused: its path keys netlab bisect's worktree and
# so kbuild's object directory) holds Debian's linux-source-6.1 as extracted
# by harness/kbuild.sh, hard-linked (no copy), committed as "base", and
# branches of small commits to drivers/net/ethernet/intel/e1000e/netdev.c:
#
#   plain:  p1 p2 CULPRIT p4 p5              (CULPRIT drops every 8th RX frame)
#   broken: p1 BREAK b-still-broken FIX CULPRIT p5
#           (BREAK does not compile; FIX repairs it)
#   silent: p1 SILENT p4                     (SILENT: e1000_clean_rx_irq recycles
#           the buffer of every frame of 257..768 bytes in place: the frame is
#           neither handed to the stack nor freed, and no counter moves)
#   slowtx: p1 p2 SLOWTX p4                  (SLOWTX: e1000_xmit_frame busy-waits
#           NETLAB_SLOWTX_US (default 150) us before queueing a frame shorter
#           than 256 bytes: nothing is lost, every short transmit is later)
#   txsilent: p1 TXSILENT p4                 (TXSILENT: e1000_xmit_frame consumes
#           a frame of 600..899 bytes (skb->len) without queueing it: it
#           never reaches the wire, is freed as sent, and no counter moves)
#   txcsum: p1 p2 TXCSUM p4                  (TXCSUM: e1000_tx_csum writes no
#           checksum context for an IPv4 UDP frame of 1000..1299 bytes: the
#           NIC does not insert the checksum, the frame leaves with the
#           pseudo-header sum the stack left in the field, a bad checksum)
#   tcpstall: p1 TCPSTALL p4                 (TCPSTALL: e1000_tx_map fails every
#           skb with page fragments, as if they could not be mapped: the
#           skb is freed, no counter moves; TCP's data segments are in
#           fragments, so a connection stalls after its handshake, while
#           UDP (linear) passes)
#   slowtx2: p1 p2 SLOWTX2 p4                (SLOWTX2: e1000_xmit_frame busy-waits
#           NETLAB_SLOWTX2_US (default 20) us before queueing every frame:
#           tcp-rr's and udp-rr's tx_driver, the p90 of both NICs' transmits,
#           pass it (92 and 90 us against 105 and 102), as does every other
#           check of theirs; a check of e1000e's own transmits catches it
#           (ethA's p90 69 -> 90 us). At 30 us they passed by 3 and 2 us)
#   ksft:   p1 p2 KSFT p4                    (KSFT, in net/ipv6/tcp_ipv6.c:
#           tcp_v6_connect() maps a connect() to the unspecified address
#           "::" to loopback only for v4-mapped sockets, so an IPv6 socket's
#           connect() to "::" fails with ENETUNREACH; the kernel's selftest
#           net:sk_connect_zero_addr catches it. Not in the --module history)
#   demux:  p1 DEMUX p4                      (DEMUX, in net/ipv4/udp.c:
#           compute_score() skips the remote-port match of a connected
#           SO_REUSEPORT socket, so with several connected sockets on one
#           port the first of them takes the datagrams of the others; early
#           demux only tries the first socket of a port's chain, so only the
#           others' flows go astray. One socket, one flow: nothing changes)
#   backlog: p1 p2 BACKLOG p4                (BACKLOG, in net/core/dev.c:
#           enqueue_to_backlog() refuses a frame for another CPU's backlog
#           once 8 are queued there: RPS steering to a second CPU drops
#           bursts at that CPU's backlog (softnet dropped, reason
#           CPU_BACKLOG); on one CPU, or without RPS, nothing changes)
#   mqrx:   p1 MQRX p4                       (MQRX, in igb_main.c:
#           igb_clean_rx_irq() consumes, without handing it up, every frame
#           of 1024 bytes or more that arrives on a receive queue other than
#           0: a silent driver loss of the second RSS queue only)
#   v6only: p1 V6ONLY p4                     (V6ONLY, in net/ipv6/ip6_input.c:
#           ip6_rcv_core() counts a fragment header on top of the payload
#           length when it checks that the packet fits the frame, so every
#           IPv6 fragment whose payload fills its frame is dropped as
#           truncated (Ip6InTruncatedPkts, PKT_TOO_SMALL): fragmented IPv6
#           datagrams are lost at B's IPv6 layer; whole datagrams, and all
#           of IPv4, pass)
#   forward: p1 FORWARD p4                   (FORWARD, in net/ipv4/ip_forward.c:
#           ip_forward() leaves room for an 802.1Q tag in its MTU check, so a
#           router drops every IPv4 packet of the last 4 bytes below the next
#           link's MTU that has DF set (FragFails, PKT_TOO_BIG); its ICMP
#           "fragmentation needed" still names the link's own MTU, so the
#           sender never lowers its path MTU: full-size UDP datagrams with
#           DF are lost at the router, every time, and TCP through it stalls.
#           Smaller packets, fragments (no DF), IPv6 and local traffic pass)
#   brmtu:  p1 p2 BRMTU p4                   (BRMTU, in net/bridge/br_forward.c:
#           br_dev_queue_push_xmit() checks a frame against the port's MTU
#           after pushing the Ethernet header, with no allowance for it and
#           none for GSO: every frame whose IP packet is longer than MTU - 14
#           bytes, and every GRO-merged one, is freed by the bridge, with no
#           counter. Both families; a bridge-less path is untouched)
#   (demux, backlog, mqrx, v6only, forward and brmtu: not in the --module
#   history)
#
# Tags: base, culprit (plain's), broken-culprit, break, silent-culprit,
# slowtx-culprit, txsilent-culprit, txcsum-culprit, tcpstall-culprit,
# slowtx2-culprit, ksft-culprit, demux-culprit, backlog-culprit,
# mqrx-culprit, v6only-culprit, forward-culprit, brmtu-culprit. Every edit replaces
# the file (sed -i, git checkout), so the hard-linked cache stays pristine;
# the script checks that at the end. None of the edits overlaps a hunk of
# driver-patches/e1000e, so the instrumentation series applies at every commit.
#
# Usage: make-history.sh --module DIR
#
# The same history (every branch but broken and ksft) of an out-of-tree copy
# of the e1000e driver (the files of drivers/net/ethernet/intel/e1000e,
# copied), for `netlab bisect --module DIR`.
#
# DIR is reused when it has its last tag and the newest branch's: one made
# by an older version of this script is made again.
set -euo pipefail

module=0
[ "${1:-}" = --module ] && { module=1; shift; }
dir=${1:?usage: make-history.sh [--module] DIR}
top=$(cd "$(dirname "$0")/../../.." && pwd)
cache=${NETLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/netlab}
drv=drivers/net/ethernet/intel/e1000e
f=$drv/netdev.c
g=(git -c user.name=netlab -c user.email=netlab@localhost -c commit.gpgsign=false)

last=brmtu-culprit
[ $module = 1 ] && last=slowtx2-culprit
newest=slowtx2-culprit
slowtx_us=${NETLAB_SLOWTX_US:-150}
slowtx2_us=${NETLAB_SLOWTX2_US:-20}
has_tag() { git -C "$dir" rev-parse -q --verify "refs/tags/$1" >/dev/null 2>&1; }
if has_tag "$last" && has_tag "$newest"; then
	echo "$dir"
	exit 0
fi
# The extracted Debian tree: kbuild.sh --print-dir extracts it if needed.
KSRC= "$top/harness/kbuild.sh" --print-dir >/dev/null
src=$(ls -d "$cache"/src/debian-linux-source-6.1-* | head -1)
[ -f "$src/Makefile" ] || { echo "make-history.sh: no extracted source in $cache/src" >&2; exit 2; }
pristine() {
	sha256sum "$src/$f" "$src/net/ipv6/tcp_ipv6.c" "$src/net/ipv4/udp.c" "$src/net/core/dev.c" \
		"$src/drivers/net/ethernet/intel/igb/igb_main.c" "$src/net/ipv6/ip6_input.c" \
		"$src/net/ipv4/ip_forward.c" "$src/net/bridge/br_forward.c" |
		cut -c1-64
}
sum_before=$(pristine)

rm -rf "$dir"
mkdir -p "$(dirname "$dir")"
if [ $module = 1 ]; then
	mkdir "$dir"
	cp "$src/$drv"/*.[ch] "$src/$drv/Makefile" "$dir/"
	f=netdev.c
else
	cp -al "$src" "$dir"
fi
cd "$dir"
echo "make-history.sh: committing the tree (a minute or two)" >&2
"${g[@]}" init -q
"${g[@]}" add -A -f
"${g[@]}" commit -q -m "linux 6.1 (Debian linux-source-6.1)"
"${g[@]}" tag base

edit() { # edit SED-SCRIPT SUBJECT [FILE]
	sed -i "$1" "${3:-$f}"
	git diff --quiet && { echo "make-history.sh: '$2' changed nothing" >&2; exit 1; }
	"${g[@]}" commit -q -a -m "$2"
}
p1='s/e1000_receive_skb - helper function to handle Rx indications/e1000_receive_skb - hand a received frame to the stack/'
p2='s/e1000_rx_checksum - Receive Checksum Offload/e1000_rx_checksum - Receive Checksum Offload (the hardware verdict)/'
culprit='/^\te1000e_rx_hwtstamp(adapter, staterr, skb);$/a\
\
\t{\
\t\tstatic unsigned int rx_count;\
\
\t\t/* planted regression: every 8th frame never reaches the stack */\
\t\tif (++rx_count % 8 == 0) {\
\t\t\tdev_kfree_skb_any(skb);\
\t\t\treturn;\
\t\t}\
\t}'
silent='/^\t\ttotal_rx_bytes += length;$/i\
\t\t/* a mid-size frame fits the buffer twice: reuse it in place */\
\t\tif (length > 256 \&\& length <= 768) {\
\t\t\tbuffer_info->skb = skb;\
\t\t\tgoto next_desc;\
\t\t}\
'
slowtx='/^\tif (skb_put_padto(skb, 17))$/{n;a\
\
\t/* planted regression: a short frame waits for the PHY to settle */\
\tif (skb->len < 256)\
\t\tudelay('"$slowtx_us"');
}'
txsilent='/^\tif (skb_put_padto(skb, 17))$/{n;a\
\
\t/* planted regression: a mid-size frame is taken for sent, never queued */\
\tif (skb->len >= 600 \&\& skb->len < 900) {\
\t\tdev_consume_skb_any(skb);\
\t\treturn NETDEV_TX_OK;\
\t}
}'
txcsum='/^\tcss = skb_checksum_start_offset(skb);$/i\
\t/* planted regression: no checksum context for a mid-size UDP frame */\
\tif (protocol == cpu_to_be16(ETH_P_IP) \&\&\
\t    ip_hdr(skb)->protocol == IPPROTO_UDP \&\&\
\t    skb->len >= 1000 \&\& skb->len < 1300)\
\t\treturn false;\

'
tcpstall='/^\tunsigned int f, bytecount, segs;$/a\
\
\t/* planted regression: page fragments cannot be mapped */\
\tif (nr_frags)\
\t\treturn 0;'
slowtx2='/^\tif (skb_put_padto(skb, 17))$/{n;a\
\
\t/* planted regression: every frame waits for the PHY to settle */\
\tudelay('"$slowtx2_us"');
}'
p4='s/e1000_clean_tx_irq - Reclaim resources after transmit completes/e1000_clean_tx_irq - Reclaim the resources of completed transmits/'
p5='s/e1000_intr_msi - Interrupt Handler/e1000_intr_msi - MSI interrupt handler/'

"${g[@]}" checkout -q -b plain base
edit "$p1" "e1000e: say what e1000_receive_skb does"
edit "$p2" "e1000e: the checksum helper reports the hardware's verdict"
edit "$culprit" "e1000e: drop every 8th received frame (planted regression)"
"${g[@]}" tag culprit
edit "$p4" "e1000e: reword the TX clean-up comment"
edit "$p5" "e1000e: name the MSI handler"
"${g[@]}" checkout -q -b silent base
edit "$p1" "e1000e: say what e1000_receive_skb does"
edit "$silent" "e1000e: reuse the RX buffer of mid-size frames (planted silent loss)"
"${g[@]}" tag silent-culprit
edit "$p4" "e1000e: reword the TX clean-up comment"
"${g[@]}" checkout -q -b slowtx base
edit "$p1" "e1000e: say what e1000_receive_skb does"
edit "$p2" "e1000e: the checksum helper reports the hardware's verdict"
edit "$slowtx" "e1000e: let the PHY settle before sending a short frame (planted sub-tick latency regression)"
"${g[@]}" tag slowtx-culprit
edit "$p4" "e1000e: reword the TX clean-up comment"
"${g[@]}" checkout -q -b txsilent base
edit "$p1" "e1000e: say what e1000_receive_skb does"
edit "$txsilent" "e1000e: take mid-size frames for sent without queueing them (planted silent transmit loss)"
"${g[@]}" tag txsilent-culprit
edit "$p4" "e1000e: reword the TX clean-up comment"
"${g[@]}" checkout -q -b txcsum base
edit "$p1" "e1000e: say what e1000_receive_skb does"
edit "$p2" "e1000e: the checksum helper reports the hardware's verdict"
edit "$txcsum" "e1000e: no checksum offload for mid-size UDP frames (planted bad transmit checksums)"
"${g[@]}" tag txcsum-culprit
edit "$p4" "e1000e: reword the TX clean-up comment"
"${g[@]}" checkout -q -b tcpstall base
edit "$p1" "e1000e: say what e1000_receive_skb does"
edit "$tcpstall" "e1000e: refuse to map page fragments (planted transmit loss of every TCP data segment)"
"${g[@]}" tag tcpstall-culprit
edit "$p4" "e1000e: reword the TX clean-up comment"
"${g[@]}" checkout -q -b slowtx2 base
edit "$p1" "e1000e: say what e1000_receive_skb does"
edit "$p2" "e1000e: the checksum helper reports the hardware's verdict"
edit "$slowtx2" "e1000e: let the PHY settle before sending any frame (planted small per-NIC latency regression)"
"${g[@]}" tag slowtx2-culprit
edit "$p4" "e1000e: reword the TX clean-up comment"
if [ $module = 1 ]; then
	"${g[@]}" checkout -q plain
	echo "$dir"
	exit 0
fi

"${g[@]}" checkout -q -b broken base
edit "$p1" "e1000e: say what e1000_receive_skb does"
edit '$a\
static int netlab_broken = ;' "e1000e: a change that does not compile"
"${g[@]}" tag break
edit "$p2" "e1000e: the checksum helper reports the hardware's verdict"
edit '/^static int netlab_broken = ;$/d' "e1000e: fix the build"
edit "$culprit" "e1000e: drop every 8th received frame (planted regression)"
"${g[@]}" tag broken-culprit
edit "$p5" "e1000e: name the MSI handler"
# the selftest's branch: an IPv6 regression outside the driver
ksft='/^\t\telse$/{N;/\n\t\t\tusin->sin6_addr = in6addr_loopback;$/d}'
"${g[@]}" checkout -q -b ksft base
edit "$p1" "e1000e: say what e1000_receive_skb does"
edit "$p2" "e1000e: the checksum helper reports the hardware's verdict"
edit "$ksft" "tcp: map a connect() to the unspecified address only for v4-mapped sockets (planted regression)" \
	net/ipv6/tcp_ipv6.c
"${g[@]}" tag ksft-culprit
edit "$p4" "e1000e: reword the TX clean-up comment"

# Regressions that need several sockets, a second CPU, a second queue.
demux='/^\tif (inet->inet_dport) {$/{n;s/^\t\tif (inet->inet_dport != sport)$/\t\tif (inet->inet_dport != sport \&\& !sk->sk_reuseport)/}'
backlog='s/^\tif (qlen <= READ_ONCE(netdev_max_backlog) \&\& !skb_flow_limit(skb, qlen)) {$/\tif (qlen <= READ_ONCE(netdev_max_backlog) \&\& !skb_flow_limit(skb, qlen) \&\&\n\t    (cpu == smp_processor_id() || qlen < 8)) {/'
mqrx='/^\t\t\/\* probably a little skewed due to removing CRC \*\/$/i\
\t\t/* a frame of an extra queue is done with here: free its buffer */\
\t\tif (rx_ring->queue_index \&\& skb->len >= 1024) {\
\t\t\tnapi_consume_skb(skb, budget);\
\t\t\tskb = NULL;\
\t\t\tcontinue;\
\t\t}\
'
v6only='s/^\t\tif (pkt_len + sizeof(struct ipv6hdr) > skb->len) {$/\t\tif (pkt_len + sizeof(struct ipv6hdr) +\n\t\t    (hdr->nexthdr == NEXTHDR_FRAGMENT ? sizeof(struct frag_hdr) : 0) > skb->len) {/'
"${g[@]}" checkout -q -b demux base
edit "$p1" "e1000e: say what e1000_receive_skb does"
edit "$demux" "udp: a connected reuseport socket serves its group (planted regression)" net/ipv4/udp.c
"${g[@]}" tag demux-culprit
edit "$p4" "e1000e: reword the TX clean-up comment"
"${g[@]}" checkout -q -b backlog base
edit "$p1" "e1000e: say what e1000_receive_skb does"
edit "$p2" "e1000e: the checksum helper reports the hardware's verdict"
edit "$backlog" "net: bound a remote CPU's backlog by a NAPI batch (planted regression)" net/core/dev.c
"${g[@]}" tag backlog-culprit
edit "$p4" "e1000e: reword the TX clean-up comment"
"${g[@]}" checkout -q -b mqrx base
edit "$p1" "e1000e: say what e1000_receive_skb does"
edit "$mqrx" "igb: an extra RSS queue frees large frames early (planted regression)" \
	drivers/net/ethernet/intel/igb/igb_main.c
"${g[@]}" tag mqrx-culprit
edit "$p4" "e1000e: reword the TX clean-up comment"
"${g[@]}" checkout -q -b v6only base
edit "$p1" "e1000e: say what e1000_receive_skb does"
edit "$v6only" "ipv6: count the fragment header in the payload length check (planted regression)" \
	net/ipv6/ip6_input.c
"${g[@]}" tag v6only-culprit
edit "$p4" "e1000e: reword the TX clean-up comment"
# Regressions of a hop: a router's forwarding, a bridge's egress.
forward='s/^\tif (ip_exceeds_mtu(skb, mtu)) {$/\t\/* leave room for an 802.1Q tag the next hop may add *\/\n\tif (ip_exceeds_mtu(skb, mtu - 4)) {/'
brmtu='s/^\tif (!is_skb_forwardable(skb->dev, skb))$/\tif (skb->len > skb->dev->mtu)/'
"${g[@]}" checkout -q -b forward base
edit "$p1" "e1000e: say what e1000_receive_skb does"
edit "$forward" "ipv4: leave room for a VLAN tag in the forwarding MTU check (planted regression)" \
	net/ipv4/ip_forward.c
"${g[@]}" tag forward-culprit
edit "$p4" "e1000e: reword the TX clean-up comment"
"${g[@]}" checkout -q -b brmtu base
edit "$p1" "e1000e: say what e1000_receive_skb does"
edit "$p2" "e1000e: the checksum helper reports the hardware's verdict"
edit "$brmtu" "bridge: check the egress port's MTU directly (planted regression)" \
	net/bridge/br_forward.c
"${g[@]}" tag brmtu-culprit
edit "$p4" "e1000e: reword the TX clean-up comment"
"${g[@]}" checkout -q plain

[ "$(pristine)" = "$sum_before" ] ||
	{ echo "make-history.sh: the cached source in $src changed!" >&2; exit 1; }
echo "$dir"
