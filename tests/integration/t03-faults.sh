#!/usr/bin/env bash
# Faults: a guest panic is reported as such at once; a hang at --timeout.
. "$(dirname "$0")/../lib.sh"
need_guest

test_expect_success 'guest panic: verdict panic with the oops, well before the timeout' '
	rc=0; "$NETLAB" run --accel tcg --timeout 600 --out "$T_TMP/panic" \
		--exec "echo c > /proc/sysrq-trigger; sleep 900" 2>"$T_TMP/panic.err" || rc=$?
	test $rc = 1
	test "$(json_get "$T_TMP/panic/result.json" verdict)" = panic
	json_get "$T_TMP/panic/result.json" oops | grep -q "sysrq"
	json_get "$T_TMP/panic/result.json" oops | grep -q "Kernel panic - not syncing"
	grep -q "Kernel panic" "$T_TMP/panic.err"
	# The run ended because of the panic, not because the 600 s timer fired.
	python3 -c "import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))[\"wall_s\"] < 400 else 1)" \
		"$T_TMP/panic/result.json"
'

test_expect_success 'guest hang: verdict timeout at --timeout, QEMU gone' '
	rc=0; "$NETLAB" run --accel tcg --timeout 15 --out "$T_TMP/hang" \
		--exec "echo started; sleep 1000" >/dev/null 2>&1 || rc=$?
	test $rc = 1
	test "$(json_get "$T_TMP/hang/result.json" verdict)" = timeout
	grep -qx started "$T_TMP/hang/stdout"
	no_process_with "$T_TMP/hang/"
'

test_expect_success 'kernel that never reaches the agent: boot-failure, exit 125' '
	# An initramfs without /init (a cpio archive of one file, which netlab
	# takes: an empty one is bad input, t05): the kernel boots and panics
	# or finds no init.
	mkdir -p "$T_TMP/noinit-root" && echo hello >"$T_TMP/noinit-root/hello"
	(cd "$T_TMP/noinit-root" && echo hello | cpio -o -H newc 2>/dev/null) >"$T_TMP/noinit.cpio"
	rc=0; "$NETLAB" run --accel tcg --timeout 300 --initrd "$T_TMP/noinit.cpio" --out "$T_TMP/noinit" \
		>/dev/null 2>&1 || rc=$?
	v=$(json_get "$T_TMP/noinit/result.json" verdict)
	echo "verdict=$v rc=$rc"
	test "$v" = panic -o "$v" = boot-failure
	test "$(json_get "$T_TMP/noinit/result.json" agent_started)" = false
'

test_done
