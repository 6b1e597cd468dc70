#!/usr/bin/env bash
# netlab shell-test library, after git's t/test-lib.sh: each test file
# sources this, calls test_expect_success 'title' 'commands' (run in a
# subshell with `set -e`), and ends with test_done. Output is TAP; totals are
# appended to $NETLAB_TEST_TOTALS for tests/run.sh.

set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NETLAB=$TOP/build/netlab
export KERNEL=${KERNEL:-$TOP/build/kernel/bzImage}
export INITRD=${INITRD:-$TOP/build/initramfs.cpio.gz}
T_NAME=$(basename "$0" .sh)
T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/netlab-$T_NAME.XXXXXX")
# Each test file's suites go to its own results database, never the tree's.
export NETLAB_DB=$T_TMP/netlab.db
t_n=0 t_pass=0 t_fail=0 t_skip=0

t_cleanup() {
	# No QEMU started by this test may survive it.
	pkill -KILL -f -- "$T_TMP" 2>/dev/null || true
	[ "${NETLAB_KEEP_TMP:-}" ] || rm -rf "$T_TMP"
}
trap t_cleanup EXIT

# NETLAB_TEST_ONLY=REGEX (grep -E) runs only the tests whose title matches;
# the others are TAP skips. A test that reads an earlier test's output needs
# that one selected too.
test_expect_success() {
	local title=$1 body=$2 out rc
	if [ -n "${NETLAB_TEST_ONLY:-}" ] && ! grep -Eq -- "$NETLAB_TEST_ONLY" <<<"$title"; then
		test_skip "$title" "not selected by NETLAB_TEST_ONLY"
		return 0
	fi
	t_n=$((t_n + 1))
	# Not inside `if`: bash ignores set -e in a condition, and a test body
	# must stop at its first failing command.
	out=$( (set -e; eval "$body") 2>&1)
	rc=$?
	if [ $rc = 0 ]; then
		t_pass=$((t_pass + 1))
		echo "ok $t_n - $T_NAME: $title"
	else
		t_fail=$((t_fail + 1))
		echo "not ok $t_n - $T_NAME: $title"
		printf '%s\n' "$out" | tail -n 40 | sed 's/^/#   /'
	fi
}

test_skip() {
	t_n=$((t_n + 1))
	t_skip=$((t_skip + 1))
	echo "ok $t_n - $T_NAME: $1 # SKIP $2"
}

# Skip the whole file (a prerequisite is missing that the test cannot install).
skip_all() {
	echo "1..0 # SKIP $T_NAME: $1"
	[ -z "${NETLAB_TEST_PLAN:-}" ] || echo planned >"$NETLAB_TEST_PLAN"
	[ -n "${NETLAB_TEST_TOTALS:-}" ] && echo "0 0 1" >>"$NETLAB_TEST_TOTALS"
	exit 0
}

test_done() {
	echo "1..$t_n"
	[ -z "${NETLAB_TEST_PLAN:-}" ] || echo planned >"$NETLAB_TEST_PLAN"
	[ -n "${NETLAB_TEST_TOTALS:-}" ] && echo "$t_pass $t_fail $t_skip" >>"$NETLAB_TEST_TOTALS"
	[ $t_fail = 0 ]
}

# --- helpers ---------------------------------------------------------------
need_guest() {
	[ -x "$NETLAB" ] || skip_all "build/netlab missing (run make)"
	[ -r "$KERNEL" ] || skip_all "no kernel at $KERNEL (run make kernel)"
	[ -r "$INITRD" ] || skip_all "no initramfs at $INITRD (run make guest)"
	command -v qemu-system-x86_64 >/dev/null || skip_all "qemu-system-x86_64 missing (make deps)"
}

# json_get FILE KEY[.KEY...]: print a value of a JSON file (jq-less: python3).
json_get() {
	python3 -c 'import json,sys
v=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v=v[int(k)] if isinstance(v,list) else v[k]
print("null" if v is None else (str(v).lower() if isinstance(v,bool) else v))' "$1" "$2"
}

# No process whose command line mentions $1 is alive.
no_process_with() {
	! pgrep -f -- "$1" >/dev/null
}
