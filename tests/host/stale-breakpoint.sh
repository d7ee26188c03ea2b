#!/bin/bash
# guest/stale-breakpoint on guest consoles recorded when QEMU ran stale
# code, and on the same consoles edited to what a real breakpoint, a CPU
# seen once, or one with interrupts on would show.
#   stale-int3.console: a stock-kernel guest, mdstat closing its links;
#     CPUs 0 and 3 dumped in the int3 handler for the sched_switch jump
#     label in __schedule(), which memory held as a NOP already.
#   stale-int3-at-nop.console: the debug kernel, a tracefs instance being
#     removed; CPU 0 dumped at that jump label in both stall reports.
. "$(dirname "$0")/../lib.sh"
tap_plan 6

data=$top/tests/host/data
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# finds NAME WANT CONSOLE: guest/stale-breakpoint prints WANT for CONSOLE.
finds() {
	tap_equal "$1" "$2" "$("$top/guest/stale-breakpoint" "$3")"
}

finds "in the int3 handler: the first CPU that shows it" \
	"cpu0 before __schedule+0x181/0x7e0" "$data/stale-int3.console"
sed 's/ 0f <1f> / cc <1f> /' "$data/stale-int3.console" >"$scratch/breakpoint"
finds "in the handler for an int3 that memory holds: nothing" "" "$scratch/breakpoint"
grep -v int3 "$data/stale-int3.console" >"$scratch/no-int3"
finds "without an int3 frame: nothing" "" "$scratch/no-int3"

finds "twice at a NOP with interrupts off" \
	"cpu0 at __schedule+0x1db/0xb90" "$data/stale-int3-at-nop.console"
awk '/^rcu: INFO/ && ++reports == 2 { exit } 1' "$data/stale-int3-at-nop.console" >"$scratch/once"
finds "once at a NOP: nothing" "" "$scratch/once"
sed 's/EFLAGS: 00000046/EFLAGS: 00000246/' "$data/stale-int3-at-nop.console" >"$scratch/irqs-on"
finds "twice at a NOP with interrupts on: nothing" "" "$scratch/irqs-on"
