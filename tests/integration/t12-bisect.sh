#!/usr/bin/env bash
# netlab bisect: bad input is refused before anything builds (exit 2, naming
# the option); with NETLAB_SLOW_TESTS=1, real bisections over a kernel
# history with a planted e1000e RX regression (tests/regress/bisect/
# make-history.sh) name exactly the culprit with the metric before and
# after, skip a commit that does not build, decide a noisy metric by the
# median of --runs, refuse a --good that fails, stop cleanly on Ctrl-C and
# resume, and bisect an out-of-tree driver (--module) with a --share in each run.
. "$(dirname "$0")/../lib.sh"
[ -x "$NETLAB" ] || skip_all "build/netlab missing (run make)"
command -v git >/dev/null || skip_all "git missing (make deps)"
S=$TOP/tests/regress/bisect
SCN=$S/e1000e-rx.scn

# A small git tree: enough for everything that is checked before a build.
git_c=(git -c user.name=t -c user.email=t@localhost -c commit.gpgsign=false)
mkdir -p "$T_TMP/repo"
(cd "$T_TMP/repo" && "${git_c[@]}" init -q && echo 1 >f && "${git_c[@]}" add f &&
	"${git_c[@]}" commit -qm one && echo 2 >f && "${git_c[@]}" commit -qam two &&
	mkdir -p tools/testing/selftests/net &&
	echo "TEST_PROGS := a_test.sh" >tools/testing/selftests/net/Makefile &&
	"${git_c[@]}" add tools && "${git_c[@]}" commit -qm three) >/dev/null
R=$T_TMP/repo

# bad_input TITLE PATTERN ARGS...: exit 2, PATTERN on stderr, a hint, no run directory.
bad_input() {
	local title=$1 pat=$2
	shift 2
	test_expect_success "$title" '
		rc=0; "$NETLAB" bisect --out "$T_TMP/out" '"$(printf '%q ' "$@")"' 2>"$T_TMP/err" || rc=$?
		cat "$T_TMP/err"
		test $rc = 2
		grep -q -- '"$(printf '%q' "$pat")"' "$T_TMP/err"
		grep -q "^hint: " "$T_TMP/err"
		test ! -e "$T_TMP/out"
	'
}

bad_input 'not a git tree: exit 2' "--ksrc '$T_TMP': not a git tree" \
	--ksrc "$T_TMP" --good HEAD~1 --bad HEAD --scenario "$SCN"
bad_input 'an unknown revision: exit 2' "--good 'v9.9': unknown revision" \
	--ksrc "$R" --good v9.9 --bad HEAD --scenario "$SCN"
bad_input 'good == bad: exit 2' "are the same commit" \
	--ksrc "$R" --good HEAD --bad "$(git -C "$R" rev-parse HEAD)" --scenario "$SCN"
bad_input 'bad older than good: exit 2' "did you swap --good and --bad" \
	--ksrc "$R" --good HEAD --bad HEAD~1 --scenario "$SCN"
bad_input '--check naming no check of the scenario: exit 2' "--check 'nope': scenario .* has no such check" \
	--ksrc "$R" --good HEAD~1 --bad HEAD --scenario "$SCN" --check nope
bad_input 'a missing option: exit 2' "missing --scenario FILE" \
	--ksrc "$R" --good HEAD~1 --bad HEAD
bad_input '--share of a directory that is not there: exit 2' "--share '$T_TMP/nope'" \
	--ksrc "$R" --good HEAD~1 --bad HEAD --scenario "$SCN" --share "$T_TMP/nope"
bad_input '--add clashing with a --share: exit 2' "--share/--add: guest path '/opt/t/f'" \
	--ksrc "$R" --good HEAD~1 --bad HEAD --scenario "$SCN" --share "$R:/opt/t" --add "$R/f:/opt/t/f"
bad_input '--modules: refused, bisect builds its kernels' "--modules '$T_TMP': netlab bisect builds" \
	--ksrc "$R" --good HEAD~1 --bad HEAD --scenario "$SCN" --modules "$T_TMP"
bad_input '--selftest that is not TARGET:TEST: exit 2' "--selftest 'net': not TARGET:TEST" \
	--ksrc "$R" --good HEAD~1 --bad HEAD --selftest net
bad_input '--selftest of a target the tree lacks: exit 2' "has no selftest target 'nope'" \
	--ksrc "$R" --good HEAD~1 --bad HEAD --selftest nope:a_test.sh
bad_input '--selftest of a test the target lacks: exit 2' "target 'net' at --bad (.*) has no test 'b_test.sh'" \
	--ksrc "$R" --good HEAD~1 --bad HEAD --selftest net:b_test.sh
bad_input '--selftest and --scenario together: exit 2' "--selftest and --scenario exclude each other" \
	--ksrc "$R" --good HEAD~1 --bad HEAD --selftest net:a_test.sh --scenario "$SCN"
bad_input '--selftest with --module: exit 2' "--selftest with --module" \
	--module "$R" --good HEAD~1 --bad HEAD --selftest net:a_test.sh
bad_input '--selftest with a --check its scenario lacks: exit 2, no run directory left' \
	"--check 'nope': scenario .*selftest.scn' has no such check" \
	--ksrc "$R" --good HEAD~1 --bad HEAD --selftest net:a_test.sh --check nope

test_expect_success 'a scenario with no checks: exit 2, FILE: message' '
	rc=0; "$NETLAB" bisect --out "$T_TMP/out" --ksrc "$R" --good HEAD~1 --bad HEAD \
		--scenario "$S/no-checks.scn" 2>"$T_TMP/err" || rc=$?
	cat "$T_TMP/err"
	test $rc = 2
	grep -q "no-checks.scn: no checks" "$T_TMP/err"
	test ! -e "$T_TMP/out"
'

test_expect_success 'a scenario whose baselines file is broken: exit 2 before anything builds' '
	mkdir -p "$T_TMP/bl"
	cp "$SCN" "$T_TMP/bl/s.scn"
	printf "{ \"udp.lost\": " >"$T_TMP/bl/s.baseline.json"
	rc=0; "$NETLAB" bisect --out "$T_TMP/out" --ksrc "$R" --good HEAD~1 --bad HEAD \
		--scenario "$T_TMP/bl/s.scn" 2>"$T_TMP/err" || rc=$?
	cat "$T_TMP/err"
	test $rc = 2
	grep -q "s.baseline.json:1: invalid JSON: unexpected end of file" "$T_TMP/err"
	test ! -e "$T_TMP/out"
'

test_expect_success 'the user tree is left alone by the checks' '
	test -z "$(git -C "$R" status --porcelain)"
	test "$(git -C "$R" worktree list | wc -l)" = 1
	! git -C "$R" bisect log >/dev/null 2>&1
'

# --- the real thing: opt-in (kernel builds: ~10 min the first time) -------
slow() {
	if [ "${NETLAB_SLOW_TESTS:-}" != 1 ]; then
		test_skip "$1" "slow (kernel builds and boots); NETLAB_SLOW_TESTS=1 runs it"
		return 1
	fi
}
need_slow() {
	[ -r "$INITRD" ] || { echo "no initramfs at $INITRD (make guest)"; return 1; }
	[ -n "${H:-}" ] || H=$("$S/make-history.sh" "${NETLAB_CACHE:-$HOME/.cache/netlab}/bisect-test/linux")
}
H=

# first_bad RUN_OUTPUT TAG: the output names exactly TAG's commit.
first_bad() {
	grep -q "^first bad commit: $(git -C "$H" rev-parse "$2") e1000e: drop every 8th received frame" "$1"
}

if slow 'the planted regression: exactly its commit, metric before and after, a reproducer'; then
	test_expect_success 'the planted regression: exactly its commit, metric before and after, a reproducer' '
		need_slow
		rc=0; "$NETLAB" bisect --ksrc "$H" --good base --bad plain --scenario "$SCN" \
			--out "$T_TMP/plain" >"$T_TMP/plain.out" 2>"$T_TMP/plain.err" || rc=$?
		cat "$T_TMP/plain.out"; tail -5 "$T_TMP/plain.err"
		test $rc = 0
		first_bad "$T_TMP/plain.out" culprit
		grep -q "^before: no_loss: udp.lost = 0 vs == 0: pass" "$T_TMP/plain.out"
		grep -Eq "^after : no_loss: udp.lost = [1-9][0-9]* vs == 0: fail" "$T_TMP/plain.out"
		grep -q "^reproduce: netlab regress --kernel .*/bzImage .*e1000e-rx.scn" "$T_TMP/plain.out"
		test "$(grep -c "\"endpoint\":\"good\",.*\"verdict\":\"good\"" "$T_TMP/plain/bisect.log.jsonl")" = 1
		test "$(grep -c "\"endpoint\":\"bad\",.*\"verdict\":\"bad\"" "$T_TMP/plain/bisect.log.jsonl")" = 1
		grep -q "first bad commit" "$T_TMP/plain/bisect.txt"
		test -z "$(git -C "$H" status --porcelain)"
		test "$(git -C "$H" rev-parse HEAD)" = "$(git -C "$H" rev-parse plain)"
		# every step in the results database (NETLAB_DB, tests/lib.sh), each on its own kernel
		test "$(sqlite3 "$NETLAB_DB" "SELECT count(*) FROM suites")" = "$(grep -c "\"verdict\":\"\(good\|bad\)\"" "$T_TMP/plain/bisect.log.jsonl")"
		test "$(sqlite3 "$NETLAB_DB" "SELECT count(DISTINCT kernel_sha256) FROM suites")" -ge 2
	'
	test_expect_success 'the reproducer reproduces the bad run (exit 1)' '
		cmd=$(sed -n "s/^reproduce: netlab //p" "$T_TMP/plain.out" | sed "s|--out runs/|--out $T_TMP/|")
		rc=0; eval "\"\$NETLAB\" $cmd" >"$T_TMP/repro.out" 2>&1 || rc=$?
		tail -5 "$T_TMP/repro.out"
		test $rc = 1
	'
fi

if slow 'a commit that does not build is skipped; the culprit is still found'; then
	test_expect_success 'a commit that does not build is skipped; the culprit is still found' '
		need_slow
		rc=0; "$NETLAB" bisect --ksrc "$H" --good base --bad broken --scenario "$SCN" \
			--out "$T_TMP/broken" >"$T_TMP/broken.out" 2>"$T_TMP/broken.err" || rc=$?
		cat "$T_TMP/broken.out"; tail -5 "$T_TMP/broken.err"
		test $rc = 0
		first_bad "$T_TMP/broken.out" broken-culprit
		grep "\"verdict\":\"skip\"" "$T_TMP/broken/bisect.log.jsonl" | grep -q "the kernel does not build"
	'
fi

if slow 'a noisy metric (no -icount) bisects by the median of --runs 3'; then
	test_expect_success 'a noisy metric (no -icount) bisects by the median of --runs 3' '
		need_slow
		rc=0; "$NETLAB" bisect --ksrc "$H" --good "culprit~1" --bad plain --runs 3 \
			--scenario "$S/e1000e-rx-noisy.scn" --out "$T_TMP/noisy" >"$T_TMP/noisy.out" \
			2>"$T_TMP/noisy.err" || rc=$?
		cat "$T_TMP/noisy.out"; tail -5 "$T_TMP/noisy.err"
		test $rc = 0
		first_bad "$T_TMP/noisy.out" culprit
		grep -Eq "^after : little_loss: udp.lost = [0-9]+ \[[0-9]+\.\.[0-9]+\] \(3 runs\)" "$T_TMP/noisy.out"
	'
fi

if slow 'a --good that fails its checks: exit 2, nothing to bisect'; then
	test_expect_success 'a --good that fails its checks: exit 2, nothing to bisect' '
		need_slow
		rc=0; "$NETLAB" bisect --ksrc "$H" --good culprit --bad plain --scenario "$SCN" \
			--out "$T_TMP/goodfails" >"$T_TMP/gf.out" 2>"$T_TMP/gf.err" || rc=$?
		cat "$T_TMP/gf.err"
		test $rc = 2
		grep -q "^netlab bisect: --good .culprit. (.*) fails its checks: nothing to bisect" "$T_TMP/gf.err"
		grep -q "no_loss: udp.lost = [1-9]" "$T_TMP/gf.err"
		! grep -q "\"endpoint\":\"bad\"" "$T_TMP/goodfails/bisect.log.jsonl"
	'
fi

if slow 'Ctrl-C during a step: exit 130, no QEMU left; --resume finds the culprit'; then
	test_expect_success 'Ctrl-C during a step: exit 130, no QEMU left; --resume finds the culprit' '
		need_slow
		# Its own process group, as a terminal would make it: Ctrl-C
		# signals the whole group (netlab, git bisect run, the step).
		setsid "$NETLAB" bisect --ksrc "$H" --good base --bad plain --scenario "$SCN" \
			--out "$T_TMP/int" >"$T_TMP/int.out" 2>"$T_TMP/int.err" &
		pid=$!
		n=0
		until pgrep -f -- "$T_TMP/int/steps/03-" >/dev/null; do	# the step'"'"'s guest
			sleep 0.2; n=$((n + 1)); test $n -lt 3000
		done
		sleep 2
		kill -INT -- -$pid
		rc=0; wait $pid || rc=$?
		tail -3 "$T_TMP/int.err"
		test $rc = 130
		grep -q "^hint: netlab bisect --resume $T_TMP/int" "$T_TMP/int.err"
		n=0	# the step stops its guest as it goes: give it up to 10 s
		while pgrep -f -- "$T_TMP/int/" >/dev/null; do sleep 0.5; n=$((n + 1)); test $n -lt 20; done
		rc=0; "$NETLAB" bisect --resume "$T_TMP/int" >"$T_TMP/int2.out" 2>"$T_TMP/int2.err" || rc=$?
		cat "$T_TMP/int2.out"; tail -3 "$T_TMP/int2.err"
		test $rc = 0
		first_bad "$T_TMP/int2.out" culprit
		grep -q "\"verdict\":\"interrupted\"" "$T_TMP/int/bisect.log.jsonl"
		! pgrep -f -- "$T_TMP/int/"
	'
fi

# --selftest: the branch ksft breaks IPv6 connect() to "::" in tcp_ipv6.c;
# the kernel's own selftest net:sk_connect_zero_addr catches it.
if slow 'bisect --selftest: the kernel selftest that catches the planted commit names it'; then
	test_expect_success 'bisect --selftest: the kernel selftest that catches the planted commit names it' '
		need_slow
		rc=0; "$NETLAB" bisect --ksrc "$H" --good base --bad ksft \
			--selftest net:sk_connect_zero_addr \
			--out "$T_TMP/ksft" >"$T_TMP/ksft.out" 2>"$T_TMP/ksft.err" || rc=$?
		cat "$T_TMP/ksft.out"; tail -5 "$T_TMP/ksft.err"
		test $rc = 0
		grep -q "^first bad commit: $(git -C "$H" rev-parse ksft-culprit) tcp: map a connect()" "$T_TMP/ksft.out"
		grep -q "^before: .*: pass" "$T_TMP/ksft.out"
		grep -q "^after : .*: fail" "$T_TMP/ksft.out"
		test "$(json_get "$T_TMP/ksft/bisect.json" selftest)" = net:sk_connect_zero_addr
		# each tested step built the selftests of its own tree
		for d in "$T_TMP"/ksft/steps/*/; do
			grep -q "installed .* tests\|cached:" "$d/ksft-build.log" || { echo "no selftests build in $d"; false; }
		done
		# the bad step ran the test and says so in its output
		grep -rq "not ok .*sk_connect_zero_addr" "$T_TMP"/ksft/steps/*/runs-1/*/run-1/exec.out
	'
fi

# --module: the same planted change in an out-of-tree copy of e1000e.
if slow 'the driver-only path (--module): the planted commit, with the module loaded'; then
	test_expect_success 'the driver-only path (--module): the planted commit, with the module loaded' '
		need_slow
		M=$("$S/make-history.sh" --module "${NETLAB_CACHE:-$HOME/.cache/netlab}/bisect-test/e1000e")
		# with a --share: recorded in bisect.json, mounted in every run
		mkdir -p "$T_TMP/shr"
		rc=0; "$NETLAB" bisect --module "$M" --good base --bad plain --scenario "$SCN" \
			--share "$T_TMP/shr:/opt/shr" \
			--out "$T_TMP/mod" >"$T_TMP/mod.out" 2>"$T_TMP/mod.err" || rc=$?
		cat "$T_TMP/mod.out"; tail -5 "$T_TMP/mod.err"
		test $rc = 0
		grep -q "^first bad commit: $(git -C "$M" rev-parse culprit) e1000e: drop every 8th" "$T_TMP/mod.out"
		grep -q "^after : no_loss: udp.lost = [1-9]" "$T_TMP/mod.out"
		grep -q "^reproduce: netlab regress --kernel .* --initrd .*/initrd.img" "$T_TMP/mod.out"
		# the module drove the NIC: its name in the guest, the built-in did not
		con=$(find "$T_TMP"/mod/steps/01-* -name console.log | head -1)
		grep -q "nl_e1000e 0000:.*Intel(R) PRO/1000 Network Connection" "$con"
		test "$(json_get "$T_TMP/mod/bisect.json" shares.0.host)" = "$T_TMP/shr"
		test "$(json_get "$T_TMP/mod/bisect.json" shares.0.guest)" = /opt/shr
		for con in "$T_TMP"/mod/steps/*/runs-1/*/run-*/console.log; do
			grep -q "share .netlab0. mounted on ./opt/shr. (read-only)" "$con" ||
				{ echo "no share in $con:"; grep -a "netlab-agent\|9p" "$con" | head -20; false; }
		done
	'
fi

test_done
