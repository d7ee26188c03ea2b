// SPDX-License-Identifier: GPL-2.0
/*
 * The trivial consumer of the series' bare tracepoints, for the fast-path
 * benchmark: it counts every outermost migrate_disable() and
 * migrate_enable(), and does nothing else.  With pin_enable loaded (tpcount
 * --pin), the enable probe also takes BPF task storage, which disables
 * migration itself: that must nest in the section, not open a new one.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

__u64 disables;
__u64 enables;
__u64 pinned_runs;

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} sections SEC(".maps");

SEC("tp_btf/sched_migrate_disable_tp")
int BPF_PROG(count_disable, struct task_struct *p, int cpu, unsigned int nr_pinned,
	     unsigned long caller)
{
	__sync_fetch_and_add(&disables, 1);
	return 0;
}

SEC("tp_btf/sched_migrate_enable_tp")
int BPF_PROG(count_enable, struct task_struct *p, int cpu, unsigned int nr_pinned,
	     unsigned long caller)
{
	__sync_fetch_and_add(&enables, 1);
	return 0;
}

SEC("?tp_btf/sched_migrate_enable_tp")
int BPF_PROG(pin_enable, struct task_struct *p, int cpu, unsigned int nr_pinned,
	     unsigned long caller)
{
	__u64 *n = bpf_task_storage_get(&sections, p, NULL,
					BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (n)
		(*n)++;
	__sync_fetch_and_add(&pinned_runs, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
