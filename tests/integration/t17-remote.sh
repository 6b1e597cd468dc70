#!/usr/bin/env bash
# The libvirt backend over a remote URI for real: qemu+ssh:// through an
# sshd the test starts on 127.0.0.1 (its own config, host key and client
# key). A suite fanned out over qemu:///system and qemu+ssh:// brings every
# artifact back with no shared file system; a run whose ssh connection is
# killed or stopped, or whose libvirtd is killed and restarted, ends
# infra-error in seconds, keeps what it had, leaves no QEMU behind, and the
# next run works.
. "$(dirname "$0")/../lib.sh"
need_guest
URI=qemu:///system
SSHD=$(command -v sshd || echo /usr/sbin/sshd)

need() {
	[ "${NETLAB_REQUIRE_LIBVIRT:-0}" = 1 ] && { echo "$1 and NETLAB_REQUIRE_LIBVIRT=1"; exit 1; }
	skip_all "$1"
}
virsh -c "$URI" version >/dev/null 2>&1 || need "libvirt at $URI does not answer (as root: ci/libvirtd.sh; as another user: be in group libvirt)"
[ -x "$SSHD" ] && command -v ssh >/dev/null && command -v ssh-keygen >/dev/null ||
	need "sshd or ssh missing (make deps: openssh-server openssh-client)"
[ "$(id -u)" = 0 ] || need "the ssh URI logs in as root: run as root"

# --- an sshd of the test's own on 127.0.0.1 ---------------------------------
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
ssh-keygen -q -t ed25519 -N "" -f "$T_TMP/host_key"
ssh-keygen -q -t ed25519 -N "" -f "$T_TMP/id"
cp "$T_TMP/id.pub" "$T_TMP/authorized_keys"
# StrictModes: the keys live under /tmp, which is world-writable.
cat >"$T_TMP/sshd_config" <<EOF
ListenAddress 127.0.0.1
Port $PORT
HostKey $T_TMP/host_key
PidFile $T_TMP/sshd.pid
AuthorizedKeysFile $T_TMP/authorized_keys
StrictModes no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
LogLevel VERBOSE
EOF
mkdir -p /run/sshd	# its privilege separation directory (made by the service otherwise)
"$SSHD" -D -e -f "$T_TMP/sshd_config" 2>"$T_TMP/sshd.log" &
SSHD_PID=$!
trap 'kill $SSHD_PID 2>/dev/null; wait $SSHD_PID 2>/dev/null; t_cleanup' EXIT
# libvirt runs "ssh" from PATH: this one checks the host key against the
# test's own known_hosts, and leaves root's ~/.ssh alone.
mkdir -p "$T_TMP/bin"
echo "[127.0.0.1]:$PORT $(cut -d" " -f1,2 "$T_TMP/host_key.pub")" >"$T_TMP/known_hosts"
cat >"$T_TMP/bin/ssh" <<EOF
#!/bin/sh
exec $(command -v ssh) -o UserKnownHostsFile=$T_TMP/known_hosts -o GlobalKnownHostsFile=/dev/null "\$@"
EOF
chmod +x "$T_TMP/bin/ssh"
export PATH=$T_TMP/bin:$PATH
SSH_URI="qemu+ssh://root@127.0.0.1:$PORT/system?keyfile=$T_TMP/id&no_tty=1"
for _ in $(seq 1 300); do virsh -c "$SSH_URI" version >/dev/null 2>&1 && break; sleep 0.1; done
virsh -c "$SSH_URI" version >/dev/null 2>"$T_TMP/virsh.err" ||
	{ cat "$T_TMP/virsh.err" "$T_TMP/sshd.log"; echo "qemu+ssh to the test's sshd does not work"; exit 1; }

# The domain name of the run in DIR, and whether anything of it still runs.
dom_of() { sed -n "s|^  <name>\(.*\)</name>|\1|p" "$1/domain.xml"; }
gone() {
	! virsh -c "$URI" list --all --name | grep -qx "$1" && ! pgrep -f -- "guest=$1[, ]" >/dev/null
}
wait_gone() {
	for _ in $(seq 1 120); do gone "$1" && return 0; sleep 0.5; done
	gone "$1" && return 0
	echo "left after 60 s: $1"; virsh -c "$URI" list --all; pgrep -af -- "guest=$1[, ]"; return 1
}
# Start `netlab run` on URI $1 into DIR $2 in the background (pid in $run_pid);
# return once the guest's command runs (the status port said "exec") and its
# "up" has come back (another stream: it can arrive after the status line).
start_run() {
	"$NETLAB" run --connect "$1" --timeout 300 --out "$2" --exec "echo up; sleep 300" \
		>"$2.out" 2>&1 &
	run_pid=$!
	for _ in $(seq 1 960); do
		grep -q "^exec " "$2/status" 2>/dev/null && grep -qx up "$2/stdout" && return 0
		sleep 0.25
	done
	cat "$2.out"; return 1
}

test_expect_success 'a suite over qemu:///system and qemu+ssh://: both pass, the ssh runs bring everything back' '
	rc=0; "$NETLAB" regress --connect "$URI" --connect "$SSH_URI" -j 1 --out "$T_TMP/fan" \
		udp-clean udp-rcvbuf-overflow >"$T_TMP/fan.out" 2>"$T_TMP/fan.err" || rc=$?
	cat "$T_TMP/fan.out" "$T_TMP/fan.err"
	test $rc = 0
	s=$T_TMP/fan/summary.json
	test "$(jq "[.scenarios[].runs[]] | length" "$s")" = 2
	test "$(jq -r --arg a "$URI" --arg b "$SSH_URI" \
		"[.scenarios[].runs[].connect] | sort == ([\$a, \$b] | sort)" "$s")" = true
	test "$(jq -r "[.scenarios[].runs[].verdict] | unique | join(\" \")" "$s")" = ok
	test "$(jq -r "[.scenarios[].outcome] | unique | join(\" \")" "$s")" = pass
	d=$(jq -r --arg u "$SSH_URI" ".scenarios[].runs[] | select(.connect == \$u) | .dir" "$s")
	case $d in /*) ;; *) d=$T_TMP/fan/$d ;; esac
	test "$(jq -r .connect "$d/result.json")" = "$SSH_URI"
	test "$(jq -r .verdict "$d/result.json")" = ok
	for f in nic-A.pcap nic-B.pcap console.log domain.xml libvirt.log files/trace.dat metrics.json; do
		test -s "$d/$f" || { echo "missing $d/$f"; ls -R "$d"; false; }
	done
	test "$(tcpdump -nr "$d/nic-B.pcap" udp 2>/dev/null | wc -l)" -gt 100
	# Nothing in the domain reads a path of this host: only the pool is named
	# (the description names the run directory, for people).
	! grep -v "<description>" "$d/domain.xml" | grep -F -e "$T_TMP" -e "$TOP"
	wait_gone "$(dom_of "$d")"
'

# A run on the ssh URI into DIR $1 whose ssh client gets signal $2 once the
# guest's command runs. It must end infra-error (exit 125) within 20 s,
# naming the lost connection and its reason $3, with what came back kept
# and its domain gone. Sets $t, the milliseconds from the signal to the end.
ssh_signalled() {
	start_run "$SSH_URI" "$1"
	name=$(dom_of "$1")
	virsh -c "$URI" list --name | grep -qx "$name"
	ssh_pid=$(pgrep -f -- "ssh .*-p $PORT .*127.0.0.1" | head -n 1)
	test -n "$ssh_pid"
	t0=$(date +%s%N)
	kill -"$2" "$ssh_pid"
	rc=0; wait $run_pid || rc=$?
	t=$(( ($(date +%s%N) - t0) / 1000000 ))
	kill -KILL "$ssh_pid" 2>/dev/null || true
	cat "$1.out"
	echo "netlab ended $t ms after SIG$2 to the ssh client (exit $rc)" | tee -a "$T_TMP/measured"
	test $rc = 125
	test "$(jq -r .verdict "$1/result.json")" = infra-error
	jq -r .reason "$1/result.json" | grep -q "lost the connection to libvirt at .qemu+ssh.* ($3"
	grep -qx up "$1/stdout"
	grep -q "Linux version" "$1/console.log"
	test -s "$1/domain.xml"
	grep -q "^recovered .*connected again" "$1/libvirt.log"
	# Nominal: at once (EOF) or 25-30 s (keepalive: 5 s, 5 missed); the
	# run's own timeout is 300 s.
	test $t -lt 120000
	wait_gone "$name"
}

test_expect_success 'the ssh client killed mid-run: infra-error within seconds, files kept, no QEMU left' '
	ssh_signalled "$T_TMP/cut" KILL "end of file"
'

test_expect_success 'the ssh client stopped (a hung link): keepalive ends the run infra-error well before its timeout' '
	ssh_signalled "$T_TMP/hung" STOP "no keepalive answer"
'

# Domains that run now: restarting libvirtd under someone else's would
# break their runs.
others() { virsh -c "$URI" list --name | grep -v "^$" || true; }

T='libvirtd restarted mid-suite: that run is infra-error, no QEMU left, the next run passes'
if [ -n "$(others)" ]; then
	test_skip "$T" "other domains run on $URI: $(others | tr '\n' ' ')"
else test_expect_success "$T" '
	"$NETLAB" regress --connect "$URI" -j 1 --out "$T_TMP/rs" udp-clean udp-rcvbuf-overflow \
		>"$T_TMP/rs.out" 2>"$T_TMP/rs.err" &
	pid=$!
	for _ in $(seq 1 960); do
		f=$(find "$T_TMP/rs" -name status 2>/dev/null | head -n 1)
		[ -n "$f" ] && grep -q "^exec " "$f" && break; sleep 0.25
	done
	d=$(dirname "$f"); name=$(dom_of "$d")
	virsh -c "$URI" list --name | grep -qx "$name"
	# SIGKILL: the daemon cannot end the domain on its way down, so its
	# QEMU survives and the new daemon takes it back (with SIGTERM it
	# mostly ends it, not always): netlab must destroy it itself.
	kill -KILL $(pgrep -x libvirtd)
	for _ in $(seq 1 300); do pgrep -x libvirtd >/dev/null || break; sleep 0.1; done
	pgrep -f -- "guest=$name[, ]" >/dev/null
	"$TOP/ci/libvirtd.sh" >/dev/null
	t0=$(date +%s%N)
	rc=0; wait $pid || rc=$?
	echo "the suite ended $(( ($(date +%s%N) - t0) / 1000000 )) ms after libvirtd answered again (exit $rc)" |
		tee -a "$T_TMP/measured"
	cat "$T_TMP/rs.out" "$T_TMP/rs.err"
	test $rc = 125
	test "$(jq -r .verdict "$d/result.json")" = infra-error
	jq -r .reason "$d/result.json" | grep -q "lost the connection to libvirt at .qemu:///system"
	grep -q "Linux version" "$d/console.log"
	cat "$d/libvirt.log"
	# Once connected again netlab destroys the domain the new daemon took
	# back. Or the new daemon ends that QEMU itself (SIGTERM from libvirtd,
	# "shutting down, reason=daemon" in its qemu log; libvirt 9.0, 1 run of
	# 4 beside the guests of another test): then it is gone, which is no leak.
	# Either way netlab must have looked ("not destroyed" fails), and
	# wait_gone below checks that no QEMU is left.
	grep -Eq "^recovered [0-9.]+: connected again, domain (still there: destroyed|gone)$" \
		"$d/libvirt.log"
	sed -n "s/^recovered [0-9.]*: connected again, domain /libvirtd restart: domain /p" \
		"$d/libvirt.log" | tee -a "$T_TMP/measured"
	s=$T_TMP/rs/summary.json
	test "$(jq -r "[.scenarios[].runs[].verdict] | sort | join(\" \")" "$s")" = "infra-error ok"
	wait_gone "$name"
'
fi

test_done
