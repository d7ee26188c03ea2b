#!/bin/bash
# Benchmark 1, in the guest: what a migrate_disable()+migrate_enable() pair
# costs, outermost and nested, against the floor of a preempt_disable()+
# preempt_enable() pair, all timed in the kernel by mdload on cpu1 and
# interleaved round by round.  On a kernel with the series, also with the
# bare tracepoints on and a trivial BPF consumer attached (bench/tpcount).
# Each figure is the mean over the rounds of a ratio taken within one
# round, so the emulator's speed cancels out, with its 95% confidence
# interval.  Besides the floor, the
# outermost pair is also given per nested pair: the nested path is the
# same code with and without the series, which makes it the fairer yard-
# stick between two boots (the floor itself moved by 10% from one boot to
# another in our runs).
set -u
. "$(dirname "$0")/lib.sh"

rounds=${BENCH_ROUNDS:-9}
pairs=${BENCH_PAIRS:-1000000}
cpu=${BENCH_CPU:-1}
tpcount=$top/build/tpcount
flavour=$(uname -r | grep -q mdstat && echo mdstat || echo stock)
work=$(mktemp -d)
mdload_load || exit 1

# ns_per_pair KIND: the time of one pair.  The floor runs 10 times as many
# pairs (up to mdload's bound), so that all runs last about as long.
ns_per_pair() {
	local n=$pairs
	[ "$1" = preempt ] && n=$((pairs * 10 > 10000000 ? 10000000 : pairs * 10))
	"$mdpairs" -c "$cpu" -k "$1" -n "$n" | sed -n 's/.* ns_per_pair=\([0-9.]*\) .*/\1/p'
}

tp=
[ "$flavour" = mdstat ] && tp=1
for round in $(seq "$rounds"); do
	for kind in preempt migrate nested; do
		ns_per_pair "$kind" >"$work/$kind.$round"
	done
	if [ -n "$tp" ]; then
		"$tpcount" >"$work/tpcount" &
		consumer=$!
		for _ in $(seq 100); do grep -q ready "$work/tpcount" && break; sleep 0.1; done
		ns_per_pair migrate >"$work/migrate-tp.$round"
		ns_per_pair nested >"$work/nested-tp.$round"
		kill -INT "$consumer"
		wait "$consumer"
		# The consumer must have seen every outermost pair of that run.
		fired=$(sed -n 's/.*disables=\([0-9]*\).*/\1/p' "$work/tpcount")
		[ "${fired:-0}" -ge $((pairs + 1)) ] ||
			{ echo "bench: the BPF consumer saw ${fired:-no} disables, want at least $((pairs + 1))" >&2; exit 1; }
	fi
	for kind in migrate nested ${tp:+migrate-tp nested-tp}; do
		ratio "$(cat "$work/$kind.$round")" "$(cat "$work/preempt.$round")" >>"$work/$kind.ratio"
	done
	ratio "$(cat "$work/migrate.$round")" "$(cat "$work/nested.$round")" >>"$work/per-nested.ratio"
	cat "$work/preempt.$round" >>"$work/preempt.ns"
done

record "fastpath.$flavour.rounds" "$rounds"
record "fastpath.$flavour.pairs" "$pairs"
record "fastpath.$flavour.preempt_ns" "$(quantile 0.5 "$work/preempt.ns")"
for kind in migrate nested ${tp:+migrate-tp nested-tp} per-nested; do
	record_mean "fastpath.$flavour.$kind" "$work/$kind.ratio"
done
rm -rf "$work"
