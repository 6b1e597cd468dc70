#!/usr/bin/env bash
# The guest is not trusted (issue 32): an [exec] command run as the guest's
# root tries to plant a setuid-root binary and /dev/mem's device node in a
# read-write share, leaves a process behind that forges its exit status
# (a file in /netlab/out, a line on the console, the note pipe it does not
# have), and floods its output past what the guest can hold. On the host
# the share holds plain files of QEMU's user, the exit status is the one
# the command ended with (it came on the agent's note pipe), the flood
# filled the command's own area and is named, and the trace was recorded.
. "$(dirname "$0")/../lib.sh"
need_guest

S=$T_TMP/share
mkdir -p "$S"
cat >"$S/hostile.sh" <<'SH'
#!/bin/sh
# plant a setuid-root binary, /dev/mem's node and a setuid directory in the share
cp /bin/busybox suid && chown 0:0 suid && chmod 4755 suid
mknod mem c 1 1
mkdir -m 4777 dir
# report a status on the note pipe, which this command does not have
echo "exec.exit 0" >&3
# leave a process that forges the status after the command ends: in the
# files the host unpacks, and on the console as the agent would print it
setsid sh -c 'sleep 2; echo nan > /netlab/out/exec.exit; echo 0 > /netlab/out/exec/exit
	echo "netlab-agent: status: note exec.exit 0" > /dev/console' &
# flood the output: 100 MB, more than the guest can hold beside its trace
head -c 100000000 /dev/zero
exit 3
SH
chmod +x "$S/hostile.sh"
cat >"$T_TMP/hostile.scn" <<'SCN'
[scenario]
description = a hostile [exec] command
share = share:/mnt/share/s:rw

[exec]
run = ./hostile.sh
timeout = 120s

[checks]
ran = exec.exit == 0
SCN

metric() { python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))[sys.argv[2]]; print("null" if v is None else int(v) if v == int(v) else v)' "$1/metrics.json" "$2"; }

test_expect_success 'a hostile [exec] command: its own exit status, named flood, no trace-cmd blame' '
	rc=0; "$NETLAB" regress --out "$T_TMP/h" "$T_TMP/hostile.scn" >"$T_TMP/h.out" 2>&1 || rc=$?
	cat "$T_TMP/h.out"
	test $rc = 1
	r=$T_TMP/h/hostile/run-1
	grep -Eq "^hostile +ran +exec.exit +3 .*fail" "$T_TMP/h.out"
	test "$(metric "$r" exec.exit)" = 3
	grep -qx "note exec.exit 3" "$r/status"
	test "$(grep -c "^note exec.exit" "$r/status")" = 1
	# the flood: 32 MiB kept, named in the story; the trace is whole
	test "$(metric "$r" exec.out_full)" = 1
	test "$(stat -c %s "$r/exec.out")" -le $((32 << 20))
	grep -q "^  exec: .* exited with status 3; its output filled the 32 MiB the guest keeps for it" "$T_TMP/h.out"
	! grep -q "trace-cmd record ended" "$T_TMP/h.out"
	test -s "$r/files/trace.dat"
'

test_expect_success 'a read-write share: no setuid file, device node or setuid directory on the host' '
	ls -la "$S"
	test -e "$S/suid"
	test -e "$S/mem"
	test ! -u "$S/suid"
	test ! -g "$S/suid"
	test ! -c "$S/mem"
	test ! -b "$S/mem"
	test ! -u "$S/dir" -a ! -k "$S/dir"
	# what the guest made is a file of the user QEMU ran as, not root.s by request
	test "$(stat -c %u "$S/suid")" = "$(id -u)"
	test "$(( $(stat -c 0%a "$S/suid") & 07077 ))" = 0
	test -z "$(pgrep -f "qemu-system.*$T_TMP" || true)"
'

test_done
