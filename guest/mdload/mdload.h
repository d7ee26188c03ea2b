/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * mdload: migrate-disabled sections on request, for testing and measuring
 * the migrate_disable() machinery from user space.  Shared by the module and
 * its user-space helpers.
 */
#ifndef _MDLOAD_H
#define _MDLOAD_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define MDLOAD_DEVICE		"/dev/mdload"

/* Bounds: a request outside them fails with EINVAL and changes nothing. */
#define MDLOAD_MAX_DEPTH	16
#define MDLOAD_MAX_NS		1000000000ULL	/* all times together: 1 s */
#define MDLOAD_MAX_PREEMPT_OFF_NS 10000000ULL	/* 10 ms */

/*
 * One section: migrate_disable() @depth times, busy-spin for @spin_ns
 * (preemptible), sleep for @sleep_ns, then migrate_enable() @depth times.
 * With @preempt_off_ns, the thread first spins that long with preemption
 * disabled and enters the section before enabling it again: whatever was
 * queued to preempt it meanwhile finds it pinned.
 * With MDLOAD_YIELD, the spin gives the CPU up with yield() every
 * millisecond: switches out that are not preemptions.
 * With MDLOAD_SPINLOCK, the spin holds a spinlock_t of the module's: on
 * PREEMPT_RT a sleeping lock that disables migration itself, so @depth may
 * be 0 and the lock alone pins the task; elsewhere it disables preemption,
 * so the spin is MDLOAD_MAX_PREEMPT_OFF_NS at most.  No sleep and no
 * yield() with it.
 * The kernel fills in the CPU at entry and at exit and the time spent.
 */
#define MDLOAD_YIELD		0x1
#define MDLOAD_SPINLOCK		0x2
#define MDLOAD_FLAGS		(MDLOAD_YIELD | MDLOAD_SPINLOCK)

struct mdload_section {
	__u32 depth;		/* in: 1 .. MDLOAD_MAX_DEPTH (0 with MDLOAD_SPINLOCK) */
	__u32 flags;		/* in: MDLOAD_* */
	__u64 spin_ns;		/* in */
	__u64 sleep_ns;		/* in */
	__u64 preempt_off_ns;	/* in */
	__s32 cpu_enter;	/* out: CPU after the outermost migrate_disable() */
	__s32 cpu_exit;		/* out: CPU before the outermost migrate_enable() */
	__u64 elapsed_ns;	/* out: time from entry to exit */
	__u32 interrupted;	/* out: 1 if a fatal signal cut the section short */
	__u32 yields;		/* in: 0; out: yield() calls in the section */
	__u64 start_ns;		/* out: CLOCK_MONOTONIC at entry, as tracefs' mono */
};

/*
 * Timed pairs, for the fast-path benchmark: @count times a disable and the
 * matching enable, back to back and preemptible between pairs, timed as a
 * whole.  The floor is a preempt_disable()/preempt_enable() pair.
 */
enum mdload_pairs_kind {
	MDLOAD_PAIRS_PREEMPT,		/* preempt_disable(), preempt_enable() */
	MDLOAD_PAIRS_MIGRATE,		/* outermost migrate_disable(), migrate_enable() */
	MDLOAD_PAIRS_MIGRATE_NESTED,	/* the same inside an outer migrate_disable() */
	MDLOAD_NR_PAIRS_KINDS,
};

#define MDLOAD_MAX_PAIRS	10000000ULL

struct mdload_pairs {
	__u32 kind;		/* in: enum mdload_pairs_kind */
	__u32 reserved;		/* 0 */
	__u64 count;		/* in: 1 .. MDLOAD_MAX_PAIRS */
	__s32 cpu;		/* out: the CPU it ran on at the end */
	__u32 interrupted;	/* out: 1 if a fatal signal cut it short */
	__u64 done;		/* out: pairs run */
	__u64 elapsed_ns;	/* out: time for them */
};

#define MDLOAD_IOC_MAGIC	'M'
#define MDLOAD_SECTION		_IOWR(MDLOAD_IOC_MAGIC, 1, struct mdload_section)
#define MDLOAD_PAIRS		_IOWR(MDLOAD_IOC_MAGIC, 2, struct mdload_pairs)

#endif /* _MDLOAD_H */
