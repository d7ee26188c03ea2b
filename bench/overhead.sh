#!/bin/bash
# Benchmark 2, in the guest: what watching costs a scheduler-heavy load.
# The load is "perf bench sched pipe" on cpu1: two tasks passing a token
# through pipes, every step a context switch, so every sched_switch probe
# shows in its time (and, on one vCPU, it varies by about 2% between runs
# where hackbench over 4 vCPUs varied by 50%).  It runs with nothing
# attached, under "mdstat top", under "mdstat trace", and under
# bench/stacking-peer.bt, the bpftrace script that gathers the same
# stacking data from sched_switch.  Each tool
# starts the load itself once it is attached (-- CMD, -c CMD).  After one
# run to warm up (the emulator translates code as it first runs), the four
# take turns, in an order that rotates every round; the figure is the
# median, over rounds, of the load's time under the tool divided by its
# time alone in the same round.
set -u
. "$(dirname "$0")/lib.sh"

rounds=${BENCH_ROUNDS:-7}
load=("$(command -v taskset)" -c 1 "$(command -v perf)" bench sched pipe -l "${BENCH_PIPE_LOOPS:-20000}")
work=$(mktemp -d)

# load_seconds MODE: the load's own time, run under MODE.
load_seconds() {
	case $1 in
	none)	"${load[@]}" ;;
	top)	"$mdstat" top -b -- "${load[@]}" ;;
	trace)	"$mdstat" trace -- "${load[@]}" ;;
	peer)	bpftrace -c "${load[*]}" "$top/bench/stacking-peer.bt" ;;
	esac >"$work/out" 2>&1
	sed -n 's/^ *Total time: \([0-9.]*\) \[sec\]$/\1/p' "$work/out" | grep . ||
		{ echo "bench: no time from the load under $1:" >&2; tail -n 5 "$work/out" >&2; exit 1; }
}

load_seconds none >/dev/null || exit 1
turns=(none top trace peer)
modes=("${turns[@]:1}")
for round in $(seq "$rounds"); do
	for i in "${!turns[@]}"; do
		mode=${turns[(i + round) % ${#turns[@]}]}
		load_seconds "$mode" >"$work/$mode.last" || exit 1
	done
	cat "$work/none.last" >>"$work/none"
	for mode in "${modes[@]}"; do
		ratio "$(cat "$work/$mode.last")" "$(cat "$work/none.last")" 4 >>"$work/$mode"
	done
done

record overhead.load "${load[*]}"
record overhead.rounds "$rounds"
record overhead.none_s "$(quantile 0.5 "$work/none")"
for mode in "${modes[@]}"; do
	record "overhead.$mode.ratio" "$(quantile 0.5 "$work/$mode")"
	record "overhead.$mode.spread" "$(spread "$work/$mode")"
done
rm -rf "$work"
