#!/usr/bin/env bash
# Killing the harness never leaves QEMU behind, and keeps what was collected.
. "$(dirname "$0")/../lib.sh"
need_guest

# Start a run that would last long, wait until the guest command has
# printed its line: the "exec" status comes first, and a SIGKILL takes QEMU
# at once (PR_SET_PDEATHSIG), before a later line could reach the host.
start_long_run() {
	"$NETLAB" run --accel tcg --timeout 600 --out "$1" --exec "echo running; sleep 600" \
		>/dev/null 2>&1 &
	pid=$!
	for _ in $(seq 1 480); do
		grep -qx running "$1/stdout" 2>/dev/null && return 0
		sleep 0.5
	done
	echo "guest command never started"; return 1
}

for sig in INT TERM KILL; do
	test_expect_success "SIG$sig to the harness: no QEMU survives, artifacts stay" '
		d=$T_TMP/'"$sig"'
		start_long_run "$d"
		pgrep -f -- "$d/" >/dev/null
		kill -'"$sig"' $pid
		wait $pid || true
		for _ in $(seq 1 60); do no_process_with "$d/" && break; sleep 0.5; done
		no_process_with "$d/"
		grep -q "Linux version" "$d/console.log"
		test -s "$d/cmdline"
		grep -qx running "$d/stdout"
		if [ '"$sig"' != KILL ]; then
			test "$(json_get "$d/result.json" verdict)" = interrupted
		else
			# Killed, it wrote no verdict: the first, provisional one says so.
			test "$(json_get "$d/result.json" verdict)" = infra-error
			test "$(json_get "$d/result.json" provisional)" = true
		fi
	'
done

test_done
