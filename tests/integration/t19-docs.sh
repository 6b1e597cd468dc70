#!/usr/bin/env bash
# The manual pages, netlab help and --version, the bash completion, and a
# README that stays short. No guest: pandoc, man and bash only.
. "$(dirname "$0")/../lib.sh"
[ -x "$NETLAB" ] || skip_all "build/netlab missing (run make)"
if ! command -v pandoc >/dev/null; then
	[ "${NETLAB_REQUIRE_DOCS:-}" = 1 ] || skip_all "pandoc missing (make deps, or apt-get install pandoc)"
fi
cd "$TOP"
# The pages are built into a directory of the test's own, from scratch, so
# every page is built and every warning seen.
DOC_B=$T_TMP/build
# A make of its own: not the sanitizer build tests/run.sh exports
# (SANITIZE=1 would put it in $DOC_B-san), nor a parent make's jobserver.
doc_make() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s SANITIZE= B="$DOC_B" "$@"
}
commands=$("$NETLAB" help | sed -n 's/^  \([a-z][a-z0-9-]*\)  .*/\1/p')

test_expect_success 'the command list and the pages agree' '
	test -n "$commands"
	for c in $commands; do
		test -f Documentation/netlab-$c.txt || { echo "no Documentation/netlab-$c.txt"; false; }
	done
	test -f Documentation/netlab.txt
	test -f Documentation/netlab-scenario.txt
'

test_expect_success 'make doc builds every page without a warning' '
	command -v pandoc >/dev/null || { echo "pandoc missing, and NETLAB_REQUIRE_DOCS=1"; false; }
	doc_make doc >"$T_TMP/doc.out" 2>"$T_TMP/doc.err"
	cat "$T_TMP/doc.err"
	! test -s "$T_TMP/doc.err"
	for t in Documentation/netlab*.txt; do
		p=$(basename "$t" .txt)
		case $p in netlab-scenario | netlab-topology) f=$DOC_B/man/man5/$p.5 ;; *) f=$DOC_B/man/man1/$p.1 ;; esac
		test -s "$f" || { echo "$f not built"; false; }
	done
	test $(ls "$DOC_B"/man/man1/*.1 "$DOC_B"/man/man5/*.5 | wc -l) = $(ls Documentation/netlab*.txt | wc -l)
'

test_expect_success 'the pages render on an 80-column terminal without a troff warning' '
	command -v man >/dev/null || { echo "man missing (make deps installs man-db)"; false; }
	for f in "$DOC_B"/man/man*/*; do
		LC_ALL=C.UTF-8 MANWIDTH=80 MANPAGER=cat man -l "$f" >"$T_TMP/page" 2>"$T_TMP/warn"
		test -s "$T_TMP/page"
		if test -s "$T_TMP/warn"; then echo "$f:"; cat "$T_TMP/warn"; false; fi
	done
'

# Adding an option to a command without documenting it fails here.
test_expect_success 'every long option of CMD --help is in Documentation/netlab-CMD.txt' '
	missing=
	for c in $commands; do
		for o in $("$NETLAB" $c --help | grep -o -- "--[a-z][a-z0-9-]*" | sort -u); do
			grep -qw -e "$o" Documentation/netlab-$c.txt || missing="$missing $c:$o"
		done
	done
	test -z "$missing" || { echo "undocumented:$missing"; false; }
'

test_expect_success 'the tutorial: linked from README, its example scenario parses, its files exist' '
	grep -q "Documentation/tutorial-own-tests.md" README.md
	"$NETLAB" regress --list Documentation/examples/byot/udp-rx.scn | grep -q "^udp-rx "
	test -x Documentation/examples/byot/repro/udp-rx.sh
	test -f Documentation/examples/byot/rx.gdb
'

test_expect_success 'netlab help regress prints the page' '
	MANPAGER=cat PAGER=cat "$NETLAB" help regress >"$T_TMP/help" 2>"$T_TMP/help.err"
	grep -q "netlab-regress" "$T_TMP/help"
	grep -q "update-baselines" "$T_TMP/help"
	grep -q "SYNOPSIS" "$T_TMP/help"
'

test_expect_success 'netlab help scenario prints the file format' '
	MANPAGER=cat PAGER=cat "$NETLAB" help scenario >"$T_TMP/help"
	grep -q "netlab-scenario" "$T_TMP/help"
	grep -q "baseline" "$T_TMP/help"
'

test_expect_success 'the generator table of netlab-scenario(5) is what netlab regress --generators prints' '
	"$NETLAB" regress --generators >"$T_TMP/gen"
	test "$(wc -l <"$T_TMP/gen")" -ge 5
	grep -q "^| .rr. | .proto. (.tcp. or .udp.)" "$T_TMP/gen"
	grep -vxF -f "$TOP/Documentation/netlab-scenario.txt" "$T_TMP/gen" >"$T_TMP/gen.missing" || true
	cat "$T_TMP/gen.missing"
	test ! -s "$T_TMP/gen.missing"
'

test_expect_success 'netlab help nosuch: exit 2 with a hint; netlab help: the commands' '
	rc=0; "$NETLAB" help nosuch >"$T_TMP/out" 2>"$T_TMP/err" || rc=$?
	cat "$T_TMP/err"
	test $rc = 2
	grep -q "nosuch" "$T_TMP/err"
	grep -q "^hint:" "$T_TMP/err"
	"$NETLAB" help >"$T_TMP/out"
	grep -q "^  regress " "$T_TMP/out"
'

test_expect_success 'netlab --version: a version and a commit' '
	"$NETLAB" --version >"$T_TMP/v"
	cat "$T_TMP/v"
	grep -Eq "^netlab [0-9]+(\.[0-9]+)+ \(commit [0-9a-f]{7,}(-dirty)?\)$" "$T_TMP/v"
'

test_expect_success 'README.md is at most 260 lines' '
	n=$(wc -l <README.md)
	echo "README.md: $n lines"
	test "$n" -le 260
'

test_expect_success 'make install DESTDIR= installs the pages and the completion' '
	doc_make DESTDIR="$T_TMP/inst" install >/dev/null
	d=$T_TMP/inst/usr/local/share
	test -s "$d/man/man1/netlab-regress.1"
	test -s "$d/man/man1/netlab.1"
	test -s "$d/man/man5/netlab-scenario.5"
	test -s "$d/bash-completion/completions/netlab"
	if command -v man >/dev/null; then
		test "$(MANPATH=$d/man man -w netlab-regress)" = "$d/man/man1/netlab-regress.1"
		MANPATH=$d/man MANPAGER=cat man 5 netlab-scenario 2>/dev/null | grep -q "CHECKS"
	fi
'

# complete_words WORD...: what the completion offers for the last word, as
# bash would after TAB; one per line.
complete_words() {
	PATH=$TOP/build:$PATH bash -c '
		source harness/cmd/netlab.bash-completion
		complete -p netlab | grep -q "_netlab netlab" || exit 1
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_netlab
		printf "%s\n" "${COMPREPLY[@]}"' complete_words "$@"
}

test_expect_success 'completion: commands, options and scenarios' '
	complete_words netlab reg >"$T_TMP/c1"
	cat "$T_TMP/c1"
	test "$(cat "$T_TMP/c1")" = regress
	complete_words netlab regress --o >"$T_TMP/c2"
	grep -qx -- --out "$T_TMP/c2"
	complete_words netlab report --dr >"$T_TMP/c3"
	grep -qx -- --drops "$T_TMP/c3"
	complete_words netlab regress udp-cl >"$T_TMP/c4"
	grep -qx udp-clean "$T_TMP/c4"
	complete_words netlab regress tests/regress/udp-cl >"$T_TMP/c5"
	grep -qx tests/regress/udp-clean.scn "$T_TMP/c5"
	complete_words netlab help sce >"$T_TMP/c6"
	grep -qx scenario "$T_TMP/c6"
	complete_words netlab run --topology p >"$T_TMP/c7"
	grep -qx pair "$T_TMP/c7"
'

test_done
