# SPDX-License-Identifier: GPL-2.0
# Sourced by the guest image builders (mkinitramfs.sh, mkksft-tools.sh):
# copy host executables into the staging tree $stage with the shared
# libraries they need (as ldd resolves them) and the ELF interpreter, at
# the same paths, and archive the tree. Needs die() and $prog from the caller.

# Copy the libraries @1 needs (and the ELF interpreter) to the same paths in the image.
copy_libs() {
	local lib lddout
	lddout=$(ldd "$1" 2>&1) || return 0	# static executable or script
	if grep -q 'not found' <<<"$lddout"; then
		die "'$1' needs a library the host does not have: $(grep 'not found' <<<"$lddout" | head -1)"
	fi
	while IFS= read -r lib; do
		[ -e "$stage$lib" ] && continue
		mkdir -p "$stage$(dirname "$lib")"
		cp -L "$lib" "$stage$lib"
	done < <(awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' <<<"$lddout")
}

# copy_exe SRC DEST: an executable and its libraries.
copy_exe() {
	mkdir -p "$stage$(dirname "$2")"
	cp -L "$1" "$stage$2"
	chmod 0755 "$stage$2"
	copy_libs "$1"
}

# archive_stage OUT: $stage as a gzip'd newc cpio, reproducibly: every file
# gets mtime SOURCE_DATE_EPOCH (default 0) and owner 0:0, entries sorted,
# cpio --reproducible, gzip -n.
archive_stage() {
	local reproducible= tmp="$1.tmp.$$"
	cpio --help 2>&1 | grep -q -- --reproducible && reproducible=--reproducible
	find "$stage" -exec touch -h -d "@${SOURCE_DATE_EPOCH:-0}" {} +
	(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 $reproducible --quiet) | gzip -n -9 >"$tmp"
	mv "$tmp" "$1"
	echo "$prog: $1: $(stat -c %s "$1") bytes ($(du -sk "$stage" | cut -f1) KiB unpacked)"
}
