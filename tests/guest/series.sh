#!/bin/bash
# The booted kernel is the one built from this checkout's patches/series:
# guest/build-kernel puts the hash of the patches, in order, in the release,
# and what each patch adds is there.
. "$(dirname "$0")/../lib.sh"
tap_plan 8

hash=$(grep -v -e '^#' -e '^$' "$top/patches/series" | sed "s|^|$top/patches/|" |
	xargs cat /dev/null | sha256sum | cut -c1-8)
release=$(uname -r)
release=${release%-debug}
tap_equal "kernel release carries the series hash" "mdstat-$hash" "${release#*-}"

raw=$(mktemp)
bpftool btf dump file /sys/kernel/btf/vmlinux format raw >"$raw"
tap_equal "0001: the migrate_disable/enable bare tracepoints are in BTF" 2 \
	"$(grep -cE "TYPEDEF 'btf_trace_sched_migrate_(disable|enable)_tp'" "$raw")"
tap_check "0002-0005: struct rq has md_stats" \
	grep -q "'md_stats' type_id=" "$raw"
rm -f "$raw"

events=/sys/kernel/tracing/events/sched
tap_check "0002: sched_pinned_preempt in tracefs" test -d "$events/sched_pinned_preempt"
tap_check "0003: sched_push_queued and sched_push_done in tracefs" \
	test -d "$events/sched_push_queued" -a -d "$events/sched_push_done"
tap_check "0004: sched_balance_push and sched_hotplug_wait_{begin,end} in tracefs" \
	test -d "$events/sched_balance_push" -a -d "$events/sched_hotplug_wait_begin" \
	-a -d "$events/sched_hotplug_wait_end"
tap_check "0005: sched_affinity_wait_{begin,end} in tracefs" \
	test -d "$events/sched_affinity_wait_begin" -a -d "$events/sched_affinity_wait_end"
tap_check "0006: MIGRATE_DISABLE_PUSH is a sched feature, on" \
	grep -qw MIGRATE_DISABLE_PUSH /sys/kernel/debug/sched/features
