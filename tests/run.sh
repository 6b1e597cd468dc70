#!/usr/bin/env bash
# netlab's test command (README, "Tests"): unit tests (with ASan+UBSan,
# build-san/), the fuzz smoke run (tests/fuzz/run.sh --smoke: the
# same runs every time; a skip without clang unless NETLAB_REQUIRE_FUZZ=1),
# then integration tests that boot real guests. Prints "N passed, N failed,
# N skipped" last.
set -u
cd "$(dirname "$0")/.."
export NETLAB_TEST_TOTALS
NETLAB_TEST_TOTALS=$(mktemp)
trap 'rm -f "$NETLAB_TEST_TOTALS"' EXIT

# Sanitized unless SANITIZE=0 (make test SANITIZE=0): ~9 s instead of ~4.
make --no-print-directory -s SANITIZE="${SANITIZE:-1}" unit
unit_rc=$?
tests/fuzz/run.sh --smoke
fuzz_rc=$?
tests/run-integration.sh "$@"
int_rc=$?

read -r pass fail skip < <(awk '{p+=$1; f+=$2; s+=$3} END {print p+0, f+0, s+0}' "$NETLAB_TEST_TOTALS")
[ $unit_rc = 0 ] && [ $fuzz_rc = 0 ] && [ $int_rc = 0 ] || [ "$fail" -gt 0 ] || fail=1
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
