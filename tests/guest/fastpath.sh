#!/bin/bash
# The fast-path benchmark's tools: bench/tpcount, the BPF consumer of the
# bare tracepoints, sees every outermost pair mdpairs makes and none of the
# nested ones; and bench/fastpath.sh, in one short round, finds a
# migrate_disable() pair dearer than a preempt_disable() one.
. "$(dirname "$0")/../lib.sh"
tap_plan 6

mdload_load || exit 1
mdpairs=$top/build/mdpairs
tpcount=$top/build/tpcount
out=$(mktemp)
pairs=50000

# counted KIND: "disables enables" tpcount saw while mdpairs ran KIND.
counted() {
	local consumer _
	"$tpcount" >"$out" &
	consumer=$!
	wait_line "$out" ready
	"$mdpairs" -c 1 -k "$1" -n "$pairs" >/dev/null
	kill -INT "$consumer"
	wait "$consumer"
	sed -n 's/^disables=\([0-9]*\) enables=\([0-9]*\)$/\1 \2/p' "$out"
}

read -r disables enables < <(counted migrate)
tap_diag "outermost: $disables disables, $enables enables"
tap_check "tpcount saw each of $pairs outermost migrate_disable() ($disables)" test "${disables:-0}" -ge "$pairs"
tap_check "and each migrate_enable() ($enables)" test "${enables:-0}" -ge "$pairs"
read -r disables enables < <(counted nested)
tap_diag "nested: $disables disables, $enables enables"
tap_check "nested pairs do not fire the tracepoints ($disables for $pairs)" test "${disables:-$pairs}" -lt $((pairs / 2))
tap_equal "no BPF link is left once tpcount ended" 0 "$(bpftool link list | grep -c 'count_\(dis\|en\)able')"

rm -f "$MDSTAT_RESULTS/bench.results"
BENCH_ROUNDS=1 BENCH_PAIRS=$pairs bench/fastpath.sh >"$out" 2>&1
tap_equal "bench/fastpath.sh runs one round" 0 $?
tap_diag "$(cat "$out")"
ratio=$(awk '$1 == "fastpath.mdstat.migrate.ratio" { print $2 }' "$MDSTAT_RESULTS/bench.results")
tap_check "a migrate_disable() pair costs more than a preempt_disable() pair (x$ratio)" \
	awk -v r="${ratio:-0}" 'BEGIN { exit !(r > 1) }'
rm -f "$out" "$MDSTAT_RESULTS/bench.results"
