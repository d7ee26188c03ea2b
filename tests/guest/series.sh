#!/bin/bash
# The booted kernel is the one built from this checkout's series of its base
# (patches/6.1/series or patches/6.12/series): guest/build-kernel puts the
# hash of the patches, in order, in the release, and what each patch adds is
# there, and what v1 had and v2 dropped is not.
. "$(dirname "$0")/../lib.sh"
tap_plan 9

release=$(uname -r)
base=$(cut -d. -f1,2 <<<"$release")
series=$top/patches/$base
hash=$(grep -v -e '^#' -e '^$' "$series/series" | sed "s|^|$series/|" |
	xargs cat /dev/null | sha256sum | cut -c1-8)
release=${release%-rt}
release=${release%-debug}
tap_equal "kernel release carries the hash of patches/$base" "mdstat-$hash" "${release#*-}"

raw=$(mktemp)
bpftool btf dump file /sys/kernel/btf/vmlinux format raw >"$raw"
tap_equal "the migrate_disable/enable bare tracepoints are in BTF" 2 \
	"$(grep -cE "TYPEDEF 'btf_trace_sched_migrate_(disable|enable)_tp'" "$raw")"
tap_check "struct rq has md_stats (schedstats)" \
	grep -q "'md_stats' type_id=" "$raw"
rm -f "$raw"

events=/sys/kernel/tracing/events/sched
tap_check "sched_pinned_preempt in tracefs" test -d "$events/sched_pinned_preempt"
tap_check "sched_pinned_push_queued and sched_pinned_push_done in tracefs" \
	test -d "$events/sched_pinned_push_queued" -a -d "$events/sched_pinned_push_done"
tap_check "sched_hotplug_pinned in tracefs" test -d "$events/sched_hotplug_pinned"
tap_check "sched_affinity_wait in tracefs" test -d "$events/sched_affinity_wait"
tap_equal "no event that v2 dropped for repeating another" "" \
	"$(cd "$events" && ls -d sched_push_queued sched_push_done sched_balance_push \
	   sched_hotplug_wait_begin sched_hotplug_wait_end sched_affinity_wait_begin \
	   sched_affinity_wait_end 2>/dev/null)"
tap_check "PINNED_PUSH is a sched feature, on" \
	grep -qw PINNED_PUSH /sys/kernel/debug/sched/features
