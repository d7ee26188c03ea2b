#!/bin/bash
# The booted kernel is the one built from this checkout's patches/series:
# guest/build-kernel puts the hash of the patches, in order, in the release.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
tap_plan 2

hash=$(grep -v -e '^#' -e '^$' "$top/patches/series" | sed "s|^|$top/patches/|" |
	xargs cat /dev/null | sha256sum | cut -c1-8)
release=$(uname -r)
tap_equal "kernel release carries the series hash" "mdstat-$hash" "${release#*-}"

# Patch 0001 adds the migrate_disable()/migrate_enable() tracepoints; the
# raw tracepoint types in BTF show they were compiled in.
count=$(bpftool btf dump file /sys/kernel/btf/vmlinux format raw |
	grep -cE "TYPEDEF 'btf_trace_sched_migrate_(disable|enable)_tp'")
tap_equal "the migrate_disable/enable bare tracepoints are in BTF" 2 "$count"
