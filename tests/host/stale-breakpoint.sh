#!/bin/bash
# guest/stale-breakpoint on a guest console recorded when QEMU ran stale
# code (tests/host/data/stale-int3.console: a stock-kernel guest, mdstat
# detaching its links, CPUs 0 and 3 trapping on the sched_switch jump label
# in __schedule, which memory already held as a NOP), and on the same
# console edited to what a real breakpoint, or none, would show.
. "$(dirname "$0")/../lib.sh"
tap_plan 3

console=$top/tests/host/data/stale-int3.console
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

tap_equal "the recorded stale int3 is found, on the first CPU that shows it" \
	"cpu0 before __schedule+0x181/0x7e0" "$("$top/guest/stale-breakpoint" "$console")"
sed 's/ 0f <1f> / cc <1f> /' "$console" >"$scratch/breakpoint"
tap_equal "an int3 that memory still holds is not stale" \
	"" "$("$top/guest/stale-breakpoint" "$scratch/breakpoint")"
grep -v int3 "$console" >"$scratch/no-int3"
tap_equal "without an int3 frame, nothing" \
	"" "$("$top/guest/stale-breakpoint" "$scratch/no-int3")"
