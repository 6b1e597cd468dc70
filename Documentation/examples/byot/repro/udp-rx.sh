#!/bin/sh
# udp-rx.sh [COUNT]: a reproducer that prints KTAP. COUNT (default 600) UDP
# datagrams of 1000 bytes from namespace a (NIC A) to 198.18.0.2 in namespace
# b (NIC B): b's socket must get every one. Then 5 to a port nobody listens
# on, which the kernel drops (reason NO_SOCKET): something to find in the
# run's drops. Exit 1 when a test fails.
n=${1:-600}
fail=0
echo "KTAP version 1"
echo "1..3"
/sbin/ip netns exec b udp-stream --recv --bind 198.18.0.2 --idle-timeout 2 --text \
	>/tmp/recv.txt 2>&1 &
sleep 0.5
udp-stream --send --dst 198.18.0.2 --count "$n" --rate 2000 --size 1000 --text >/tmp/send.txt 2>&1
wait
sent=$(sed -n 's/^sent = //p' /tmp/send.txt)
lost=$(sed -n 's/^lost = //p' /tmp/recv.txt)
echo "# sent $sent, b lost ${lost:-?}"
[ "$sent" = "$n" ] && echo "ok 1 udp: a sent $n" || { echo "not ok 1 udp: a sent $n"; fail=1; }
[ "$lost" = 0 ] && echo "ok 2 udp: b received all" || { echo "not ok 2 udp: b received all"; fail=1; }
udp-stream --send --dst 198.18.0.2 --port 9 --count 5 --rate 100 --size 100 >/dev/null 2>&1 &&
	echo "ok 3 closed port: 5 sent" || { echo "not ok 3 closed port: 5 sent"; fail=1; }
exit $fail
