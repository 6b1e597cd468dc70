#!/usr/bin/env bash
# Run cmocka unit-test binaries; print each binary's result and add totals.
set -u
pass=0 fail=0
for t in "$@"; do
	out=$("$t" 2>&1)
	rc=$?
	p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p')
	f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p')
	p=${p:-0} f=${f:-0}
	if [ $rc != 0 ] && [ "$f" = 0 ]; then f=1; fi
	pass=$((pass + p)) fail=$((fail + f))
	if [ "$f" = 0 ]; then
		echo "ok - $(basename "$t"): $p passed"
	else
		echo "not ok - $(basename "$t"): $f failed"
		printf '%s\n' "$out" | grep -E 'FAILED|LINE|ERROR|error' | sed 's/^/#   /'
	fi
done
[ -n "${NETLAB_TEST_TOTALS:-}" ] && echo "$pass $fail 0" >>"$NETLAB_TEST_TOTALS"
echo "unit: $pass passed, $fail failed"
[ $fail = 0 ]
