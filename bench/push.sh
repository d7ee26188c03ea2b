#!/bin/bash
# Benchmark 3, in the guest: the article's scenario over and over.  A FIFO
# 10 task pinned in a section on cpu1 is preempted by a FIFO 50 task that
# spins 200 ms and could run elsewhere (guest/lib.sh push_scenario); how
# long the pinned task waits for its CPU (sched_pinned_preempt to the
# sched_switch back to it), with PINNED_PUSH on and off in turn.
set -u
. "$(dirname "$0")/lib.sh"

rounds=${BENCH_PUSH_ROUNDS:-15}
spin=${BENCH_PUSH_SPIN:-0.2}
work=$(mktemp -d)
mdload_load || exit 1

for round in $(seq "$rounds"); do
	for feature in PINNED_PUSH NO_PINNED_PUSH; do
		sched_feature "$feature"
		trace_begin md_bench_push sched_pinned_preempt sched_switch
		push_scenario "${held_spinner[@]}" "$spin" >/dev/null
		trace_end "$work/trace"
		stuck_ms "$work/trace" "$pinned" 3 >>"$work/$feature"
	done
done
sched_feature PINNED_PUSH

record push.rounds "$rounds"
record push.spin_ms "$(awk -v s="$spin" 'BEGIN { print s * 1000 }')"
for feature in PINNED_PUSH NO_PINNED_PUSH; do
	record "push.$feature.p50_ms" "$(quantile 0.5 "$work/$feature")"
	record "push.$feature.p99_ms" "$(quantile 0.99 "$work/$feature")"
done
record push.p50_ratio "$(ratio "$(quantile 0.5 "$work/NO_PINNED_PUSH")" \
	"$(quantile 0.5 "$work/PINNED_PUSH")" 1)"
rm -rf "$work"
