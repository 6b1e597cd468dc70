# The planted kernel regressions of tests/regress/bisect/make-history.sh's
# --ksrc history, for the integration tests that bisect them (t31, t32):
# sourced after tests/lib.sh, with B set to tests/regress/bisect. Each
# needs kernel builds: its tests run with NETLAB_SLOW_TESTS=1 only.
# shellcheck shell=bash
slow() {
	if [ "${NETLAB_SLOW_TESTS:-}" != 1 ]; then
		test_skip "$1" "slow (kernel builds and boots); NETLAB_SLOW_TESTS=1 runs it"
		return 1
	fi
}
H=
need_history() {
	[ -n "$H" ] || H=$("$B/make-history.sh" "${NETLAB_CACHE:-$HOME/.cache/netlab}/bisect-test/linux")
}

# bisect NAME SCENARIO: netlab bisect --ksrc of branch NAME from base; fails
# unless it names NAME-culprit. The bad endpoint's kernel is left in $T_TMP/NAME.kernel.
bisect() {
	local name=$1 scn=$2 rc=0
	need_history
	"$NETLAB" bisect --ksrc "$H" --good base --bad "$name" --scenario "$scn" \
		--out "$T_TMP/bis-$name" >"$T_TMP/bis-$name.out" 2>"$T_TMP/bis-$name.err" || rc=$?
	cat "$T_TMP/bis-$name.out"; tail -3 "$T_TMP/bis-$name.err"
	test $rc = 0
	grep -q "^first bad commit: $(git -C "$H" rev-parse "$name-culprit") " "$T_TMP/bis-$name.out"
	sed -n "s/^reproduce: netlab regress --kernel \([^ ]*\) .*/\1/p" "$T_TMP/bis-$name.out" \
		>"$T_TMP/$name.kernel"
	test -s "$T_TMP/$name.kernel"
}

# suite NAME OUT CASE...: netlab regress of the cases with NAME's culprit kernel; its exit status.
suite() {
	local name=$1 out=$2 rc=0
	shift 2
	"$NETLAB" regress --kernel "$(cat "$T_TMP/$name.kernel")" --out "$T_TMP/$out" "$@" \
		>"$T_TMP/$out.out" 2>&1 || rc=$?
	cat "$T_TMP/$out.out"
	return $rc
}
