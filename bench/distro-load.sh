#!/bin/bash
# Benchmark 5, in the guest: a load nobody wrote for mdstat, on the kernel
# the guest booted (Debian's own PREEMPT_RT or generic build, where mdstat
# runs on its fallback probes).  hackbench's processes talking over local
# sockets, then over pipes, each round under "mdstat top": how often a pinned task was preempted
# inside its section (stacked), and the longest a pinned task waited for
# its CPU.  On PREEMPT_RT every spin_lock() is a section.
set -u
. "$(dirname "$0")/lib.sh"

rounds=${BENCH_DISTRO_ROUNDS:-5}
loops=${BENCH_DISTRO_LOOPS:-200}
# The key's kernel part: rt or generic, from the running kernel.
kind=generic
uname -v | grep -q PREEMPT_RT && kind=rt
work=$(mktemp -d)

for mode in sockets pipes; do
	flag=
	[ "$mode" = sockets ] || flag=-p
	for _ in $(seq "$rounds"); do
		# hackbench's own lines kept out of mdstat's NDJSON.
		"$mdstat" top -j -i 1 -- bash -c 'exec hackbench "$@" >/dev/null' _ $flag -g 2 -l "$loops" \
			>"$work/top.json" 2>"$work/top.err" ||
			{ echo "bench: mdstat top failed:" >&2; cat "$work/top.err" >&2; exit 1; }
		jq -r 'select(.type == "summary") |
			"\(([.cpus[].preempted] | add) / .duration_s) \(.longest_wait_ns / 1e6) \(.lost_events)"' \
			"$work/top.json" >"$work/round"
		read -r rate longest lost <"$work/round"
		[ "$lost" = 0 ] || { echo "bench: mdstat lost $lost events" >&2; exit 1; }
		echo "$rate" >>"$work/$mode.rate"
		echo "$longest" >>"$work/$mode.longest"
	done
	record_mean "distro.$kind.$mode.preempted_per_s" "$work/$mode.rate"
	record "distro.$kind.$mode.longest_wait_ms" "$(quantile 0.5 "$work/$mode.longest")"
	record "distro.$kind.$mode.longest_wait_ms.spread" "$(spread "$work/$mode.longest")"
done
record "distro.$kind.rounds" "$rounds"
record "distro.$kind.kernel" "$(uname -r)"
rm -rf "$work"
