# SPDX-License-Identifier: GPL-2.0
# Sourced by the guest image builders (mkinitramfs.sh, mkksft-tools.sh):
# copy host executables into the staging tree $stage with the shared
# libraries they need (as ldd resolves them) and the ELF interpreter, at
# the same paths. Needs die() from the caller.

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
