#!/bin/bash
# Benchmark 2, in the guest: what watching costs a scheduler-heavy load.
# Two loads (BENCH_LOADS, both by default), each on one CPU (BENCH_CPU,
# cpu1 by default; bench/run boots one vCPU counting instructions, where a
# load's time is what it, the probes and the tool executed, and uses cpu0):
#   messaging  "perf bench sched messaging", the load issue 7 names: groups
#              of senders and receivers passing messages over sockets;
#   pipe       "perf bench sched pipe", two tasks passing a token through
#              pipes, a context switch at every step: the worst case for a
#              sched_switch probe.
# Each runs with nothing attached, under "mdstat top", under "mdstat
# trace", and under bench/stacking-peer.bt, the bpftrace script that
# gathers the same stacking data from sched_switch.  Each tool starts the
# load itself once it is attached (-- CMD, -c CMD).  After one run to warm
# up (the emulator translates code as it first runs), the four take turns,
# in an order that rotates every round; the figure is the mean, over
# rounds, of the load's time under the tool divided by its time alone in
# the same round, with its 95% confidence interval; and the same for
# "mdstat top" over the peer, for the target that top stays below it.
set -u
. "$(dirname "$0")/lib.sh"

rounds=${BENCH_ROUNDS:-7}
work=$(mktemp -d)
on_cpu=("$(command -v taskset)" -c "${BENCH_CPU:-1}" "$(command -v perf)" bench sched)
declare -A loads=(
	[messaging]="messaging -g ${BENCH_MESSAGING_GROUPS:-2} -l ${BENCH_MESSAGING_LOOPS:-300}"
	[pipe]="pipe -l ${BENCH_PIPE_LOOPS:-50000}"
)

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

# measure LOAD: the rounds of one load, and their figures.
measure() {
	local name=$1 round i mode turns=(none top trace peer)
	local modes=("${turns[@]:1}")
	load=("${on_cpu[@]}" ${loads[$1]})
	rm -f "$work"/none "$work"/top "$work"/trace "$work"/peer "$work"/top-peer
	load_seconds none >/dev/null || exit 1
	for round in $(seq "$rounds"); do
		for i in "${!turns[@]}"; do
			mode=${turns[(i + round) % ${#turns[@]}]}
			load_seconds "$mode" >"$work/$mode.last" || exit 1
		done
		cat "$work/none.last" >>"$work/none"
		for mode in "${modes[@]}"; do
			ratio "$(cat "$work/$mode.last")" "$(cat "$work/none.last")" 4 >>"$work/$mode"
		done
		ratio "$(cat "$work/top.last")" "$(cat "$work/peer.last")" 4 >>"$work/top-peer"
	done
	record "overhead.$name.load" "${load[*]##*/}"
	record "overhead.$name.none_s" "$(quantile 0.5 "$work/none")"
	for mode in "${modes[@]}" top-peer; do
		record_mean "overhead.$name.$mode" "$work/$mode"
	done
}

record overhead.rounds "$rounds"
for name in ${BENCH_LOADS:-messaging pipe}; do
	measure "$name"
done
rm -rf "$work"
