#!/usr/bin/env bash
# Run the integration tests (each boots real guests under QEMU).
# Usage: tests/run-integration.sh [tests/integration/tNN-*.sh ...]
set -u
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- tests/integration/t*.sh
rc=0
for t in "$@"; do
	echo "# $t"
	t0=$(date +%s)
	bash "$t" || rc=1
	# what each file costs: the CI budget is spent here
	echo "# $t: $(($(date +%s) - t0)) s"
done
exit $rc
