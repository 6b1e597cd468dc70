#!/usr/bin/env bash
# Edit and regenerate the netlab driver instrumentation series.
#
#   driver-patches/regen.sh work DIR [PATH...]
#       Makes DIR a git repository holding the pristine kernel files the
#       series touch (plus PATH..., relative to the kernel tree, for a new
#       series), commits them, then applies every driver-patches/**/*.patch
#       in sorted path order as one commit each. The commit message is the
#       patch's header; its last line, "Netlab-Patch: SERIES/NNNN-name.patch",
#       says where the patch goes.
#   driver-patches/regen.sh export DIR
#       Writes every commit of DIR after the pristine one back to the file
#       its Netlab-Patch line names: the message, a line "---", then the
#       commit's diff (git diff, -p1 paths a/... b/...). Patch files that
#       no commit names are removed.
#   driver-patches/regen.sh check [KSRC]
#       Applies each series, patch by patch, to a scratch copy of the
#       pristine files (patch -p1 --forward) and reports each patch.
#
# The pristine files come from KSRC if set (a kernel tree), else from
# Debian's /usr/src/linux-source-6.1.tar.xz. Edit in DIR with ordinary git
# (commit --amend, rebase -i, a new commit with its own Netlab-Patch line),
# then export and commit the patch files.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tarball=/usr/src/linux-source-6.1.tar.xz
git_c=(git -c user.name=netlab -c user.email=netlab@localhost -c commit.gpgsign=false)

die() { echo "regen.sh: $*" >&2; exit 2; }
usage() { die "usage: regen.sh work DIR [PATH...] | export DIR | check [KSRC]"; }

series_patches() { find "$here" -name '*.patch' | sort; }

# Paths (relative to the kernel tree) that the series touch, but not those
# a patch creates (its "--- /dev/null"; a later patch may change them): the
# pristine tree has no such file.
touched() {
	awk '/^--- / { from = $2 }
		/^\+\+\+ b\// { sub(/^b\//, "", $2); if (from == "/dev/null") created[$2] = 1; else seen[$2] = 1 }
		END { for (f in seen) if (!(f in created)) print f }' $(series_patches) | sort -u
}

# pristine DEST PATH...: copy the pristine PATHs (files or directories) into DEST.
pristine() {
	local dest=$1
	shift
	mkdir -p "$dest"
	if [ -n "${KSRC:-}" ]; then
		(cd "$KSRC" && cp -a --parents "$@" "$dest/")
	else
		[ -r "$tarball" ] || die "'$tarball' not found: install linux-source-6.1 or set KSRC"
		tar -C "$dest" -xf "$tarball" --strip-components=1 \
			"${@/#/linux-source-6.1/}"
	fi
}

cmd_work() {
	[ $# -ge 1 ] || usage
	local dir=$1
	shift
	[ ! -e "$dir" ] || [ -z "$(ls -A "$dir")" ] || die "'$dir' exists and is not empty"
	local paths=() p
	while IFS= read -r p; do paths+=("$p"); done < <({ touched; printf '%s\n' "$@"; } | sed '/^$/d' | sort -u)
	[ ${#paths[@]} -gt 0 ] || die "no series and no PATH: nothing to work on"
	pristine "$dir" "${paths[@]}"
	cd "$dir"
	"${git_c[@]}" init -q
	"${git_c[@]}" add -A
	"${git_c[@]}" commit -qm "pristine" -m "Netlab-Pristine: ${KSRC:-$tarball}"
	for p in $(series_patches); do
		# The header is everything before the first line that is exactly "---".
		sed '/^---$/,$d' "$p" >"$dir/.git/netlab-msg"
		grep -q '^Netlab-Patch: ' "$dir/.git/netlab-msg" ||
			printf '\nNetlab-Patch: %s\n' "${p#"$here"/}" >>"$dir/.git/netlab-msg"
		patch -p1 --forward --no-backup-if-mismatch -s <"$p" ||
			die "${p#"$here"/} does not apply"
		"${git_c[@]}" add -A
		"${git_c[@]}" commit -q -F "$dir/.git/netlab-msg"
	done
	rm -f "$dir/.git/netlab-msg"
	echo "regen.sh: $dir: $(git rev-list --count HEAD) commits (pristine + series)"
}

cmd_export() {
	[ $# = 1 ] || usage
	local dir=$1 c dest written=()
	git -C "$dir" rev-parse --git-dir >/dev/null 2>&1 || die "'$dir' is not a work directory (regen.sh work)"
	for c in $(git -C "$dir" rev-list --reverse HEAD | tail -n +2); do
		dest=$(git -C "$dir" log -1 --format=%B "$c" | sed -n 's/^Netlab-Patch: //p' | tail -1)
		case $dest in
		*/*.patch) ;;
		*) die "commit $c has no 'Netlab-Patch: SERIES/NNNN-name.patch' line" ;;
		esac
		mkdir -p "$here/$(dirname "$dest")"
		{
			git -C "$dir" log -1 --format=%B "$c" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
			echo "---"
			git -C "$dir" diff --no-color --no-ext-diff -U3 "$c^" "$c"
		} >"$here/$dest"
		written+=("$here/$dest")
		echo "wrote driver-patches/$dest"
	done
	for p in $(series_patches); do
		printf '%s\n' "${written[@]}" | grep -qx "$p" || { rm -f "$p"; echo "removed ${p#"$here"/}"; }
	done
}

cmd_check() {
	[ $# -le 1 ] || usage
	[ $# = 0 ] || KSRC=$1
	local p rc=0 paths=()
	check_tmp=$(mktemp -d "${TMPDIR:-/tmp}/netlab-regen.XXXXXX")
	trap 'rm -rf "$check_tmp"' EXIT
	local tmp=$check_tmp
	while IFS= read -r p; do paths+=("$p"); done < <(touched)
	[ ${#paths[@]} -gt 0 ] || die "no series"
	pristine "$tmp" "${paths[@]}"
	for p in $(series_patches); do
		if out=$(patch -d "$tmp" -p1 --forward --no-backup-if-mismatch <"$p" 2>&1); then
			echo "ok   ${p#"$here"/}"
		else
			echo "FAIL ${p#"$here"/}"
			printf '%s\n' "$out" | sed 's/^/     /'
			rc=1
		fi
	done
	return $rc
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case $cmd in
work) cmd_work "$@" ;;
export) cmd_export "$@" ;;
check) cmd_check "$@" ;;
*) usage ;;
esac
