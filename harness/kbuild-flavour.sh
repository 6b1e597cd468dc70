#!/usr/bin/env bash
# netlab kernel flavours: harness/kbuild.sh with the fragments of one
# flavour, kconfigs/flavours/NAME/*.config, merged after kconfigs/*.config.
#
# Usage: kbuild-flavour.sh NAME [kbuild.sh options]
#        kbuild-flavour.sh --list
# A flavour without fragments (`default`) is kbuild.sh itself, unchanged:
# same fragments, same cache key, so the caches and baselines made before
# flavours stay valid. Another flavour's fragments go into a staging
# directory beside the common ones, renamed so that they sort (and merge)
# after them and name their flavour: its key hashes them as it hashes the
# common ones (file name and content). The flavour's name is left in the
# cache directory, in "flavour" (read into the run's kernel identity).
# Exit status: kbuild.sh's; 2 for an unknown flavour.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
fragdir=${KCONFIGS:-$top/kconfigs}
flavours=$fragdir/flavours

list() {
	local d names=()
	for d in "$flavours"/*/; do [ -d "$d" ] && names+=("$(basename "$d")"); done
	echo "${names[*]-}"
}
[ "${1:-}" = --list ] && { list; exit 0; }
name=${1:-}
[ $# -gt 0 ] && shift
case $name in
'' | *[!A-Za-z0-9_.-]* | .*)
	echo "netlab kbuild: bad flavour name '$name'" >&2
	echo "hint: a flavour is a directory of kconfigs/flavours/: $(list)" >&2
	exit 2 ;;
esac
if [ ! -d "$flavours/$name" ]; then
	echo "netlab kbuild: unknown flavour '$name': no directory kconfigs/flavours/$name" >&2
	echo "hint: the flavours are: $(list)" >&2
	exit 2
fi

own=("$flavours/$name"/*.config)
if [ ! -e "${own[0]}" ]; then
	dir=$(KCONFIGS=$fragdir "$top/harness/kbuild.sh" "$@" | tail -n 1)
else
	stage=$(mktemp -d "${TMPDIR:-/tmp}/netlab-flavour.XXXXXX")
	trap 'rm -rf "$stage"' EXIT
	# 0-COMMON.config, then 1-NAME-FILE.config: merged in that order.
	for f in "$fragdir"/*.config; do ln -s "$f" "$stage/0-$(basename "$f")"; done
	for f in "${own[@]}"; do ln -s "$f" "$stage/1-$name-$(basename "$f")"; done
	dir=$(KCONFIGS=$stage "$top/harness/kbuild.sh" "$@" | tail -n 1)
fi
[ -d "$dir" ] && [ ! -e "$dir/flavour" ] && echo "$name" >"$dir/flavour" 2>/dev/null || true
echo "$dir"
