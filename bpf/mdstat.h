/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the mdstat BPF programs (mdstat.bpf.c) and the mdstat command share:
 * histogram and counter indexes and the event records of the ring buffer.
 */
#ifndef MDSTAT_H
#define MDSTAT_H

#define MDSTAT_COMM_LEN		16
#define MDSTAT_HIST_SLOTS	32	/* log2 of nanoseconds: up to ~4 s */
#define MDSTAT_STACK_DEPTH	32

/* Latency histograms, log2 of nanoseconds. */
enum mdstat_hist_kind {
	MDSTAT_HIST_STACKED,	/* pinned task preempted, until it runs again */
	MDSTAT_HIST_PUSH,	/* push_cpu_stop() queued, until it moved the task */
	MDSTAT_HIST_HOTPLUG,	/* a CPU going down waited for pinned tasks */
	MDSTAT_HIST_AFFINITY,	/* an affinity change waited for a pinned task */
	MDSTAT_NR_HISTS,
};

/* cpu is MDSTAT_ALL_CPUS for the total, else the CPU (mdstat hist -P). */
#define MDSTAT_ALL_CPUS		(-1)

struct mdstat_hist_key {
	__u32 kind;
	__s32 cpu;
};

struct mdstat_hist {
	__u64 slots[MDSTAT_HIST_SLOTS];
	__u64 count;
	__u64 total_ns;
	__u64 max_ns;
};

/*
 * Per-CPU counters kept by the programs, cumulative, from the series'
 * events or the fallback probes.  A kernel with the series keeps most of
 * them itself too (struct rq.md_stats), while schedstats are on.
 */
enum mdstat_counter {
	MDSTAT_CNT_STACKED,		/* pinned tasks preempted here */
	MDSTAT_CNT_STACKED_NOW,		/* ... and not running again yet */
	MDSTAT_CNT_PUSH_QUEUED,
	/* what push_cpu_stop() did: in the order of enum mdstat_push_result */
	MDSTAT_CNT_PUSH_MOVED,
	MDSTAT_CNT_PUSH_DEFERRED,
	MDSTAT_CNT_PUSH_MIGRATED,
	MDSTAT_CNT_PUSH_DEQUEUED,
	MDSTAT_CNT_PUSH_NO_TARGET,
	MDSTAT_CNT_PUSH_NOT_MOVED,	/* fallback: not moved, reason unknown */
	MDSTAT_CNT_BALANCE_PUSH,
	MDSTAT_CNT_HOTPLUG_WAIT,
	MDSTAT_CNT_AFFINITY_WAIT,
	MDSTAT_CNT_STACKED_WAIT_NS,	/* the waits of those that ran again */
	MDSTAT_CNT_HOTPLUG_WAIT_NS,
	MDSTAT_CNT_AFFINITY_WAIT_NS,
	MDSTAT_NR_COUNTERS,
};

struct mdstat_counters {
	__u64 c[MDSTAT_NR_COUNTERS];
	__u64 hotplug_wait_since;	/* ktime of a wait in progress, or 0 */
	__u32 hotplug_wait_pinned;	/* nr_pinned as that wait began */
	__s32 hotplug_waiter;		/* the hotplug thread that waits */
	__u64 culprit_enabled;		/* ktime its last culprit left its section */
	__s32 culprit;			/* ... until it switches out, or 0 */
	__u32 pad;
};

/* The kernel's own counters (struct migrate_disable_stats), as in 6.1 v2. */
struct mdstat_md_stats {
	__u64 pinned_preempt;
	__u64 push_moved;
	__u64 push_deferred;
	__u64 push_migrated;
	__u64 push_dequeued;
	__u64 push_no_target;
	__u64 hotplug_pinned;
	__u64 affinity_wait;
};

/* One CPU's runqueue, read through BTF by the snapshot program. */
struct mdstat_rq {
	__u32 online;
	__u32 nr_running;
	__u32 nr_pinned;
	__u32 push_busy;
	__s32 curr_pid;
	__s32 curr_prio;
	__u32 curr_policy;
	__u32 curr_depth;	/* its migration_disabled */
	char curr_comm[MDSTAT_COMM_LEN];
	__u32 has_md_stats;	/* the fields below are the kernel's own */
	__u32 pad;
	struct mdstat_md_stats md;
};

/* The task push_cpu_stop() is about, and where it went (or -1). */
struct mdstat_push_task {
	__s32 pid;
	__s32 tgid;
	__s32 prio;
	__s32 dest_cpu;
	char comm[MDSTAT_COMM_LEN];
};

/*
 * What mdstat keeps per CPU: one element per possible CPU of the cpus map,
 * sized as mdstat loads, mmap()ed by mdstat.  Its size is a multiple of 8,
 * the stride of an mmap()ed array.
 */
struct mdstat_cpu {
	struct mdstat_counters counters;
	struct mdstat_rq rq;			/* as the snapshot program last read it */
	struct mdstat_push_task push_stop;	/* stock: push_cpu_stop() running here */
	__u64 offline_since;			/* ktime cpu_device_down() began, or 0 */
	__u32 allowed;				/* -C: shown, when filter_cpus */
	__u32 pad;
};

/* A pinned task preempted inside its section, waiting for its CPU. */
struct mdstat_stacked {
	char comm[MDSTAT_COMM_LEN];
	__s32 tgid;
	__s32 cpu;
	__s32 prio;
	__u32 policy;
	__u32 depth;		/* its migration_disabled */
	__s32 stack_id;		/* kernel stack where it was preempted, or < 0 */
	__u64 since;		/* ktime it was preempted */
};

/* Its waits that ended since mdstat last looked (mdstat top). */
struct mdstat_waiter {
	struct mdstat_stacked task;	/* as of its last wait */
	__u64 count;
	__u64 total_ns;
	__u64 max_ns;
};

enum mdstat_event_type {
	MDSTAT_EV_PINNED_PREEMPT,	/* task: pinned, other: next */
	MDSTAT_EV_PINNED_RESUME,	/* task: pinned; duration: its wait */
	MDSTAT_EV_PUSH_QUEUED,		/* task: pushed away, other: pinned */
	MDSTAT_EV_PUSH_DONE,		/* arg: result, arg2: destination */
	MDSTAT_EV_BALANCE_PUSH,		/* task: pushed off a CPU going down */
	MDSTAT_EV_HOTPLUG_WAIT_BEGIN,	/* arg: nr_pinned, arg2: nr_running */
	MDSTAT_EV_HOTPLUG_WAIT_END,	/* duration: the wait */
	MDSTAT_EV_AFFINITY_WAIT_BEGIN,	/* task: target, other: caller (stock) */
	MDSTAT_EV_AFFINITY_WAIT_END,	/* pid: target, other: caller; duration */
	MDSTAT_EV_OFFLINE_BEGIN,	/* task: who offlines the CPU */
	MDSTAT_EV_OFFLINE_END,		/* duration: all of it, arg: errno */
	MDSTAT_EV_CULPRIT,		/* task: left its section during a hotplug wait */
	MDSTAT_EV_CULPRIT_LEFT,		/* task: that culprit switched out; duration:
					 * since it left its section */
	MDSTAT_NR_EVENT_TYPES,
};

/*
 * Push sites and results: the values of the series' enum pinned_push_site
 * and enum pinned_push_result, and what the fallback can tell.
 */
#define MDSTAT_PUSH_SITE_UNKNOWN	(-1)
enum mdstat_push_result {
	MDSTAT_PUSH_MOVED,
	MDSTAT_PUSH_DEFERRED,
	MDSTAT_PUSH_MIGRATED,
	MDSTAT_PUSH_DEQUEUED,
	MDSTAT_PUSH_NO_TARGET,
	MDSTAT_PUSH_NOT_MOVED,	/* fallback: not moved, reason unknown */
};

struct mdstat_event {
	__u64 ts;		/* ktime (CLOCK_MONOTONIC), ns */
	__u64 duration_ns;
	__u64 held_ns;		/* culprit: its part of the hotplug wait */
	__u64 caller;		/* culprit: return address into who disabled */
	__s64 stack_id;		/* culprit: kernel stack as it disabled, or -1 */
	__u32 type;
	__s32 cpu;		/* the CPU the event is about */
	__s32 pid;
	__s32 tgid;
	__s32 prio;
	__s32 depth;		/* migration_disabled, or the push site */
	__s32 other_pid;
	__s32 other_prio;
	__s32 arg;
	__s32 arg2;
	char comm[MDSTAT_COMM_LEN];
	char other_comm[MDSTAT_COMM_LEN];
};

#endif /* MDSTAT_H */
