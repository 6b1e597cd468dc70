#!/usr/bin/env bash
# The results database (netlab-history(1)): a suite and its repeat are
# recorded, `netlab history` shows each metric's values across them and
# the flake rate of every check. The flaky check is planted: an [exec]
# scenario whose command exits with what a host file says (--add), 1 in
# the first suite, 0 in the repeat, on the same kernel: failed, then
# passed, reported flaky at rate 0.50; its other check, always passing,
# is not. (Two guests.)
. "$(dirname "$0")/../lib.sh"
need_guest
DB=$T_TMP/history.db
cat >"$T_TMP/flaky.scn" <<'SCN'
[scenario]
description = a check that fails while the flag file says 1 (a planted flake)
[exec]
run = exit "$(cat /mnt/add/flag)"
timeout = 60s
[trace]
enabled = no
[checks]
flag_clear = exec.exit == 0
ran = exec.out_bytes >= 0
SCN

test_expect_success 'a suite and its repeat: recorded; history shows the values, --flaky the planted flake and its rate' '
	echo 1 >"$T_TMP/flag"
	rc=0; "$NETLAB" regress --db "$DB" --add "$T_TMP/flag" --out "$T_TMP/s1" "$T_TMP/flaky.scn" >"$T_TMP/s1.out" 2>&1 || rc=$?
	cat "$T_TMP/s1.out"; test $rc = 1
	echo 0 >"$T_TMP/flag"
	rc=0; "$NETLAB" regress --db "$DB" --add "$T_TMP/flag" --out "$T_TMP/s2" "$T_TMP/flaky.scn" >"$T_TMP/s2.out" 2>&1 || rc=$?
	cat "$T_TMP/s2.out"; test $rc = 0
	! grep -q "not recorded" "$T_TMP/s1.out" "$T_TMP/s2.out"
	# each suite once, with its kernel and netlab
	test "$(sqlite3 "$DB" "SELECT count(*) FROM suites")" = 2
	test "$(sqlite3 "$DB" "SELECT count(DISTINCT kernel_sha256) FROM suites WHERE kernel_sha256 IS NOT NULL")" = 1
	test "$(sqlite3 "$DB" "SELECT netlab_version FROM suites LIMIT 1")" = "$("$NETLAB" --version | cut -d" " -f2)"
	# the metric, suite by suite: 1 then 0
	"$NETLAB" history --db "$DB" exec.exit >"$T_TMP/h.out"
	cat "$T_TMP/h.out"
	grep -Eq "^ +1 +[0-9T:Z-]+ +.* +flaky +1 +fail$" "$T_TMP/h.out"
	grep -Eq "^ +2 +[0-9T:Z-]+ +.* +flaky +0 +pass$" "$T_TMP/h.out"
	grep -Eq "^ +flaky +2 +0 +0.5 +1$" "$T_TMP/h.out"
	# the flake table: flag_clear failed then passed on the same kernel
	rc=0; "$NETLAB" history --db "$DB" --flaky >"$T_TMP/f.out" || rc=$?
	cat "$T_TMP/f.out"; test $rc = 1
	grep -Eq "^flaky +flag_clear +2 +1 +1 +0.50  flaky$" "$T_TMP/f.out"
	grep -Eq "^flaky +ran +2 +0 +0 +0.00$" "$T_TMP/f.out"
	# the trend page: a point per suite, each value in its cell
	"$NETLAB" history --db "$DB" --html "$T_TMP/trend.html" exec.exit >/dev/null
	test "$(grep -c "class=\"dot\"" "$T_TMP/trend.html")" = 2
	test "$(grep -c "<td data-metric=\"exec.exit\">" "$T_TMP/trend.html")" = 2
'

test_expect_success 'bad input: no database, not a database, no metric, NETLAB_DB=none (exit 2)' '
	rc=0; "$NETLAB" history --db "$T_TMP/none.db" exec.exit 2>"$T_TMP/e1" || rc=$?
	cat "$T_TMP/e1"; test $rc = 2
	grep -q "none.db" "$T_TMP/e1"
	rc=0; "$NETLAB" history --db "$DB" 2>"$T_TMP/e2" || rc=$?
	test $rc = 2; grep -q "no METRIC named" "$T_TMP/e2"
	echo garbage >"$T_TMP/bad.db"
	rc=0; "$NETLAB" history --db "$T_TMP/bad.db" exec.exit 2>"$T_TMP/e3" || rc=$?
	cat "$T_TMP/e3"; test $rc = 2
	grep -q "bad.db" "$T_TMP/e3"
	rc=0; NETLAB_DB=none "$NETLAB" history exec.exit 2>"$T_TMP/e4" || rc=$?
	test $rc = 2; grep -q "no results database" "$T_TMP/e4"
'

test_done
