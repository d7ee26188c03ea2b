#!/bin/bash
# make install-files (what make install runs once mdstat is built) into a
# DESTDIR: the layout, commands that run from there, pages man finds there.
# Nothing here loads BPF: on the host only --help and --version run.
. "$(dirname "$0")/../lib.sh"
tap_plan 8

dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
prefix=/opt/mdstat-test
if [ ! -x "$top/build/mdstat" ]; then
	tap_fail "build/mdstat is built (make mdstat)"
	exit 1
fi
make -s -C "$top" install-files DESTDIR="$dest" PREFIX="$prefix" >"$dest.log" 2>&1
tap_equal "make install-files DESTDIR=... PREFIX=$prefix succeeds" 0 "$?"
[ -s "$dest.log" ] && tap_diag "$(cat "$dest.log")"
rm -f "$dest.log"
root=$dest$prefix

tap_equal "the commands in sbin" "md-affinity-latency md-hotplug-latency md-stacking-report mdstat" \
	"$(cd "$root/sbin" && echo *)"
tap_equal "the scripts link into lib/mdstat, relatively" \
	"../lib/mdstat/md-affinity-latency ../lib/mdstat/md-hotplug-latency ../lib/mdstat/md-stacking-report" \
	"$(cd "$root/sbin" && echo $(readlink md-*))"
tap_check "mdstat --version runs from there" "$root/sbin/mdstat" --version
# Each script imports mdtrace.py from lib/mdstat (realpath of itself).
failed=
for script in "$root"/sbin/md-*; do
	PYTHONDONTWRITEBYTECODE=1 "$script" --help >/dev/null 2>&1 || failed="$failed ${script##*/}"
done
tap_equal "each script's --help runs from there (importing lib/mdstat/mdtrace.py)" "" "$failed"
tap_equal "man finds mdstat(8) under the prefix" "$root/share/man/man8/mdstat.8" \
	"$(MANPATH=$root/share/man man -w mdstat)"
tap_equal "man finds each script's page" 3 \
	"$(for s in md-hotplug-latency md-affinity-latency md-stacking-report; do
		MANPATH=$root/share/man man -w "$s"; done | grep -c "^$root/share/man/man8/")"
tap_check "the one-liners in share/doc/mdstat" cmp "$top/docs/one-liners.md" "$root/share/doc/mdstat/one-liners.md"
