#!/usr/bin/env bash
# netlab's test command (README, "Tests"): unit tests, then integration tests
# that boot real guests. Prints "N passed, N failed, N skipped" last.
set -u
cd "$(dirname "$0")/.."
export NETLAB_TEST_TOTALS
NETLAB_TEST_TOTALS=$(mktemp)
trap 'rm -f "$NETLAB_TEST_TOTALS"' EXIT

make --no-print-directory -s unit
unit_rc=$?
tests/run-integration.sh "$@"
int_rc=$?

read -r pass fail skip < <(awk '{p+=$1; f+=$2; s+=$3} END {print p+0, f+0, s+0}' "$NETLAB_TEST_TOTALS")
[ $unit_rc = 0 ] && [ $int_rc = 0 ] || [ "$fail" -gt 0 ] || fail=1
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
