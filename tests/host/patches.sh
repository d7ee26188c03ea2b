#!/bin/bash
# For each kernel base (patches/6.1, patches/6.12): the series applies to
# Debian's linux-source of that base exactly (no fuzz, no offset), in
# order, the tree's scripts/checkpatch.pl finds nothing in any patch, and
# the series builds without SMP and for 32-bit x86 as well, and on 6.12
# with PREEMPT_RT (guest/build-configs: the scheduler's part; guest/devtree
# build-each does it for every patch).
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
bases=(6.1 6.12)

series_of() {	# series_of BASE: the patches of its series, in order
	grep -v -e '^#' -e '^$' "$top/patches/$1/series"
}

configs_of() {	# configs_of BASE: what guest/build-configs builds for it
	case $1 in
	6.1) echo smp64 up64 smp32 ;;
	*) echo smp64 up64 smp32 rt64 ;;
	esac
}

plan=0
for base in "${bases[@]}"; do
	set -- $(series_of "$base") $(configs_of "$base")
	plan=$((plan + 1 + $# + $(series_of "$base" | wc -l)))
done
tap_plan "$plan"

# findings CHECKPATCH-OUTPUT: its findings, less those that checkpatch
# makes of the EM()/EMe() idiom of trace headers (one list gives an enum,
# its TRACE_DEFINE_ENUM()s and its __print_symbolic() names, as in
# include/trace/events/afs.h): the list macro is "complex", EM() as
# TRACE_DEFINE_ENUM() ends in a semicolon, and EM() as an enum entry does
# not use its name (6.12's checkpatch).
findings() {
	awk 'BEGIN { RS = ""; n = 0 }
	     /^(ERROR|WARNING):/ {
		if (/FILE: include\/trace\/events\// &&
		    (/Macros with complex values/ && /\tEMe?\(/ ||
		     /trailing semicolon/ && /#define EMe?\(a, b\)\tTRACE_DEFINE_ENUM\(a\);/ ||
		     /Argument .b. is not used in function-like macro/ && /#define EMe?\(a, b\)\t/))
			next
		print; print ""; n++
	     }
	     END { exit n > 0 }' <<<"$1"
}

cache=${MDSTAT_CACHE:-/var/cache/mdstat}
mkdir -p "$cache" 2>/dev/null || cache=${XDG_CACHE_HOME:-$HOME/.cache}/mdstat

tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT

for base in "${bases[@]}"; do
	dir=$top/patches/$base
	mapfile -t series < <(series_of "$base")
	tap_check "patches/$base has a cover letter" test -s "$dir/0000-cover-letter.patch"

	rm -rf "$tree" && mkdir -p "$tree"
	tar -xf "/usr/src/linux-source-$base.tar.xz" -C "$tree" --strip-components=1
	for name in "${series[@]}"; do
		out=$(patch -d "$tree" -p1 --fuzz=0 --no-backup-if-mismatch -N <"$dir/$name" 2>&1)
		if [ $? = 0 ] && ! grep -qiE 'offset|fuzz' <<<"$out"; then
			tap_ok "$base: $name applies exactly"
		else
			tap_fail "$base: $name applies exactly"
			tap_diag "$out"
		fi
	done

	# Commit ids (Fixes:) are left out: checkpatch looks them up with git,
	# and Debian's tarball has no history, so every one would be "unknown".
	for name in "${series[@]}"; do
		out=$(cd "$tree" && scripts/checkpatch.pl --ignore UNKNOWN_COMMIT_ID "$dir/$name" 2>&1)
		if grep -q '^total: 0 errors, 0 warnings' <<<"$out" || findings "$out" >/dev/null; then
			tap_ok "$base: checkpatch: $name"
		else
			tap_fail "$base: checkpatch: $name"
			tap_diag "$out"
		fi
	done

	for config in $(configs_of "$base"); do
		out=$("$top/guest/build-configs" "$tree" "$cache/configs-check-$base" "$config" 2>&1)
		if [ $? = 0 ]; then
			tap_ok "$base: the series builds: $config ($(sed -n 's/.*builds (\(.*\))/\1/p' <<<"$out"))"
		else
			tap_fail "$base: the series builds: $config"
			tap_diag "$out"
		fi
	done
done
