#!/bin/bash
# patches/series applies to Debian's linux-source-6.1 exactly (no fuzz, no
# offset), in order, the tree's scripts/checkpatch.pl finds nothing in any
# patch, and the series builds without SMP and for 32-bit x86 as well
# (guest/build-configs: the scheduler's part; guest/devtree build-each
# does it for every patch).
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
tarball=${MDSTAT_KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}

mapfile -t series < <(grep -v -e '^#' -e '^$' "$top/patches/series")
tap_plan $((2 * ${#series[@]} + 4))

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

# findings CHECKPATCH-OUTPUT: its findings, less the two that checkpatch
# makes of the EM()/EMe() idiom of trace headers (one list gives an enum,
# its TRACE_DEFINE_ENUM()s and its __print_symbolic() names, as in
# include/trace/events/afs.h): the list macro is "complex", and EM() as
# TRACE_DEFINE_ENUM() ends in a semicolon.
findings() {
	awk 'BEGIN { RS = ""; n = 0 }
	     /^(ERROR|WARNING):/ {
		if (/FILE: include\/trace\/events\// &&
		    (/Macros with complex values/ && /\tEMe?\(/ ||
		     /trailing semicolon/ && /#define EMe?\(a, b\)\tTRACE_DEFINE_ENUM\(a\);/))
			next
		print; print ""; n++
	     }
	     END { exit n > 0 }' <<<"$1"
}

# Commit ids (Fixes:) are left out: checkpatch looks them up with git, and
# Debian's tarball has no history, so every one would be "unknown".
for name in "${series[@]}"; do
	out=$(cd "$tree" && scripts/checkpatch.pl --ignore UNKNOWN_COMMIT_ID "$top/patches/$name" 2>&1)
	if grep -q '^total: 0 errors, 0 warnings' <<<"$out" || findings "$out" >/dev/null; then
		tap_ok "checkpatch: $name"
	else
		tap_fail "checkpatch: $name"
		tap_diag "$out"
	fi
done

cache=${MDSTAT_CACHE:-/var/cache/mdstat}
mkdir -p "$cache" 2>/dev/null || cache=${XDG_CACHE_HOME:-$HOME/.cache}/mdstat
for config in smp64 up64 smp32; do
	out=$("$top/guest/build-configs" "$tree" "$cache/configs-check" "$config" 2>&1)
	if [ $? = 0 ]; then
		tap_ok "the series builds: $config ($(sed -n 's/.*builds (\(.*\))/\1/p' <<<"$out"))"
	else
		tap_fail "the series builds: $config"
		tap_diag "$out"
	fi
done
