#!/bin/bash
# patches/series applies to Debian's linux-source-6.1 exactly (no fuzz, no
# offset), in order, and the tree's scripts/checkpatch.pl finds nothing in
# any patch.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
tarball=${MDSTAT_KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}

mapfile -t series < <(grep -v -e '^#' -e '^$' "$top/patches/series")
tap_plan $((2 * ${#series[@]} + 1))

tap_check "patches/ has a cover letter" test -s "$top/patches/0000-cover-letter.patch"

tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
tar -xf "$tarball" -C "$tree" --strip-components=1

for name in "${series[@]}"; do
	out=$(patch -d "$tree" -p1 --fuzz=0 --no-backup-if-mismatch -N <"$top/patches/$name" 2>&1)
	if [ $? = 0 ] && ! grep -qiE 'offset|fuzz' <<<"$out"; then
		tap_ok "$name applies exactly"
	else
		tap_fail "$name applies exactly"
		tap_diag "$out"
	fi
done

for name in "${series[@]}"; do
	out=$(cd "$tree" && scripts/checkpatch.pl "$top/patches/$name" 2>&1)
	if grep -q '^total: 0 errors, 0 warnings' <<<"$out"; then
		tap_ok "checkpatch: $name"
	else
		tap_fail "checkpatch: $name"
		tap_diag "$out"
	fi
done
