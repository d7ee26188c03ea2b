// SPDX-License-Identifier: GPL-2.0
/*
 * The trivial consumer of the series' bare tracepoints, for the fast-path
 * benchmark: it counts every outermost migrate_disable() and
 * migrate_enable(), and does nothing else.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

__u64 disables;
__u64 enables;

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

char LICENSE[] SEC("license") = "GPL";
