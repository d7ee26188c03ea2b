// SPDX-License-Identifier: GPL-2.0
/*
 * mdstat's BPF programs: what migrate_disable() costs, aggregated in the
 * kernel, with per-event records only for the subcommands that print them.
 *
 * Two sources for some things.  A kernel with the mdstat series has trace
 * events for pushes and affinity waits, and bare tracepoints at the
 * outermost migrate_disable()/migrate_enable(); a stock kernel is probed
 * with fentry/fexit on the functions doing the same work.  User space picks
 * one set and both feed the same accounting below.  Balance pushes and
 * hotplug waits come from fentry/fexit on every kernel.
 *
 * Only tp_btf (raw tracepoint) programs see the scheduler as it is: fentry
 * programs run inside the trampoline's migrate_disable(), so there current
 * counts one more in migration_disabled and in its runqueue's nr_pinned.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "mdstat.h"

#define TASK_ON_RQ_QUEUED	1
#define SCA_MIGRATE_ENABLE	0x04	/* kernel/sched/sched.h */

/* Set by mdstat before loading. */
const volatile bool emit_events;	/* trace, hotplug: send records */
const volatile __u32 event_mask = ~0U;	/* which mdstat_event_type to send */
const volatile bool hist_per_cpu;
const volatile pid_t targ_tgid;
const volatile bool filter_cpus;	/* -C: only the CPUs marked allowed */
const volatile __u32 nr_cpus = 1;
/* What stop_one_cpu_nowait_exit reports: it serves two sources. */
const volatile bool fallback_push;
const volatile bool fallback_balance_push;

/* Read by mdstat through the mmap()ed .bss. */
__u64 lost_events;	/* the ring buffer was full */
__u64 lost_tasks;	/* a task table was full */

/*
 * Per CPU, indexed by CPU number: mdstat sizes it to the possible CPUs
 * before loading, and reads it through mmap().
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct mdstat_cpu);
} cpus SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __s32);
	__type(value, struct mdstat_stacked);
} stacked SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __s32);
	__type(value, struct mdstat_waiter);
} waiters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MDSTAT_NR_HISTS);	/* mdstat hist -P: per CPU too */
	__type(key, struct mdstat_hist_key);
	__type(value, struct mdstat_hist);
} hists SEC(".maps");

/* push_cpu_stop() queued for a task: when. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __s32);
	__type(value, __u64);
} push_queued_at SEC(".maps");

/* An affinity change waiting, by the pid of the task that waits. */
struct affinity_wait {
	__u64 since;
	__s32 cpu;
	__s32 pid;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __s32);
	__type(value, struct affinity_wait);
} affinity_waits SEC(".maps");

/* Sections open now, by pid (hotplug culprits). */
struct section {
	__u64 since;
	__u64 caller;
	__s64 stack_id;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __s32);
	__type(value, struct section);
} sections SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 2048);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, MDSTAT_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} events SEC(".maps");

extern struct rq runqueues __ksym;
extern const void push_cpu_stop __ksym __weak;
extern const void __balance_push_cpu_stop __ksym __weak;

/*
 * x86-64's preempt count: a variable of its own, but from 6.2 to 6.14 a
 * field of pcpu_hot, after its current_task pointer.  Elsewhere neither is
 * found and the count reads 0.  Addresses from kallsyms and that offset, no BTF:
 * libbpf looks for what vmlinux lacks in the modules' BTF, which it cannot
 * list without CAP_SYS_ADMIN, and fails.
 */
extern const void __preempt_count __ksym __weak;
extern const void pcpu_hot __ksym __weak;
extern const void __per_cpu_offset __ksym __weak;
#define PCPU_HOT_PREEMPT_COUNT	8	/* arch/x86/include/asm/current.h */
#define NMI_HARDIRQ_MASK	0x00ff0000	/* include/linux/preempt.h */
#define SOFTIRQ_OFFSET		0x00000100

/* What mdstat keeps for cpu, or NULL for a CPU beyond the possible ones. */
static __always_inline struct mdstat_cpu *cpu_state(__s32 cpu)
{
	__u32 key = cpu;

	return bpf_map_lookup_elem(&cpus, &key);
}

static __always_inline bool cpu_wanted(__s32 cpu)
{
	struct mdstat_cpu *c = cpu_state(cpu);

	return c && (!filter_cpus || c->allowed);
}

/*
 * The helpers below read tasks with BPF_CORE_READ(): some come as plain
 * addresses (the void * of a stopper work), not as BTF pointers.
 */
static __always_inline bool task_wanted(struct task_struct *p)
{
	return !targ_tgid || (p && BPF_CORE_READ(p, tgid) == targ_tgid);
}

static __always_inline void count(__s32 cpu, __u64 counter, __s64 delta)
{
	struct mdstat_cpu *c = cpu_state(cpu);

	if (c && counter < MDSTAT_NR_COUNTERS)
		__sync_fetch_and_add(&c->counters.c[counter], delta);
}

static __always_inline __u64 log2_ns(__u64 v)
{
	__u64 r, shift;

	r = (v > 0xffffffff) << 5;
	v >>= r;
	shift = (v > 0xffff) << 4;
	v >>= shift;
	r |= shift;
	shift = (v > 0xff) << 3;
	v >>= shift;
	r |= shift;
	shift = (v > 0xf) << 2;
	v >>= shift;
	r |= shift;
	shift = (v > 0x3) << 1;
	v >>= shift;
	r |= shift;
	return r | (v >> 1);
}

static void hist_add_one(__u32 kind, __s32 cpu, __u64 ns)
{
	static const struct mdstat_hist zero;
	struct mdstat_hist_key key = { .kind = kind, .cpu = cpu };
	struct mdstat_hist *h;
	__u64 slot;

	h = bpf_map_lookup_elem(&hists, &key);
	if (!h) {
		bpf_map_update_elem(&hists, &key, &zero, BPF_NOEXIST);
		h = bpf_map_lookup_elem(&hists, &key);
		if (!h)
			return;
	}
	slot = log2_ns(ns);
	if (slot >= MDSTAT_HIST_SLOTS)
		slot = MDSTAT_HIST_SLOTS - 1;
	__sync_fetch_and_add(&h->slots[slot], 1);
	__sync_fetch_and_add(&h->count, 1);
	__sync_fetch_and_add(&h->total_ns, ns);
	if (ns > h->max_ns)
		h->max_ns = ns;
}

static void hist_add(__u32 kind, __s32 cpu, __u64 ns)
{
	hist_add_one(kind, MDSTAT_ALL_CPUS, ns);
	if (hist_per_cpu)
		hist_add_one(kind, cpu, ns);
}

static struct mdstat_event *event_reserve(__u32 type, __s32 cpu)
{
	struct mdstat_event *e;

	if (!emit_events || !(event_mask & (1U << type)))
		return NULL;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&lost_events, 1);
		return NULL;
	}
	__builtin_memset(e, 0, sizeof(*e));
	e->ts = bpf_ktime_get_ns();
	e->type = type;
	e->cpu = cpu;
	e->stack_id = -1;
	e->other_pid = -1;
	return e;
}

static void event_task(struct mdstat_event *e, struct task_struct *p)
{
	e->pid = BPF_CORE_READ(p, pid);
	e->tgid = BPF_CORE_READ(p, tgid);
	e->prio = BPF_CORE_READ(p, prio);
	bpf_probe_read_kernel_str(e->comm, sizeof(e->comm), p->comm);
}

static void event_other(struct mdstat_event *e, struct task_struct *p)
{
	if (!p)
		return;
	e->other_pid = BPF_CORE_READ(p, pid);
	e->other_prio = BPF_CORE_READ(p, prio);
	bpf_probe_read_kernel_str(e->other_comm, sizeof(e->other_comm), p->comm);
}

/*
 * Stacking, on every kernel: a pinned task preempted inside its section
 * stays queued and can only wait for this CPU.  One that yields, or calls
 * schedule() while still running, stays queued too, but was not preempted.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(sched_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	__s32 cpu = bpf_get_smp_processor_id();
	struct mdstat_stacked *s, task = {};
	struct mdstat_waiter *w, wnew = {};
	struct mdstat_cpu *c;
	struct mdstat_event *e;
	__s32 pid = next->pid;
	__u64 now, wait;

	if (preempt && prev->migration_disabled && task_wanted(prev) &&
	    cpu_wanted(cpu)) {
		/*
		 * The clock only where it is needed (this runs at every
		 * switch), and first: the wait is the task's, not the stack
		 * walk's below (60 to 150 us a preemption under TCG).
		 */
		task.since = bpf_ktime_get_ns();
		bpf_probe_read_kernel_str(task.comm, sizeof(task.comm), prev->comm);
		task.tgid = prev->tgid;
		task.cpu = cpu;
		task.prio = prev->prio;
		task.policy = prev->policy;
		task.depth = prev->migration_disabled;
		/* Where in its section: through the lock that pins it, on RT. */
		task.stack_id = bpf_get_stackid(ctx, &stacks, 0);
		pid = prev->pid;
		if (bpf_map_update_elem(&stacked, &pid, &task, BPF_NOEXIST)) {
			__sync_fetch_and_add(&lost_tasks, 1);
		} else {
			count(cpu, MDSTAT_CNT_STACKED, 1);
			count(cpu, MDSTAT_CNT_STACKED_NOW, 1);
		}
		e = event_reserve(MDSTAT_EV_PINNED_PREEMPT, cpu);
		if (e) {
			/* Stamped when the wait began, and the resume when it ended. */
			e->ts = task.since;
			event_task(e, prev);
			event_other(e, next);
			e->depth = task.depth;
			e->arg = ((struct rq *)bpf_this_cpu_ptr(&runqueues))->nr_pinned;
			bpf_ringbuf_submit(e, 0);
		}
		pid = next->pid;
	}

	/* A stacked task runs again only here: no lookup while none is. */
	c = cpu_state(cpu);
	if (!c || !c->counters.c[MDSTAT_CNT_STACKED_NOW])
		return 0;
	s = bpf_map_lookup_elem(&stacked, &pid);
	if (!s)
		return 0;
	now = bpf_ktime_get_ns();
	wait = now - s->since;
	count(s->cpu, MDSTAT_CNT_STACKED_NOW, -1);
	count(s->cpu, MDSTAT_CNT_STACKED_WAIT_NS, wait);
	hist_add(MDSTAT_HIST_STACKED, s->cpu, wait);
	w = bpf_map_lookup_elem(&waiters, &pid);
	if (!w) {
		bpf_map_update_elem(&waiters, &pid, &wnew, BPF_NOEXIST);
		w = bpf_map_lookup_elem(&waiters, &pid);
	}
	if (w) {
		w->task = *s;
		w->count++;
		w->total_ns += wait;
		if (wait > w->max_ns)
			w->max_ns = wait;
	} else {
		__sync_fetch_and_add(&lost_tasks, 1);
	}
	e = event_reserve(MDSTAT_EV_PINNED_RESUME, s->cpu);
	if (e) {
		event_task(e, next);
		e->ts = now;
		e->depth = s->depth;
		e->duration_ns = wait;
		bpf_ringbuf_submit(e, 0);
	}
	bpf_map_delete_elem(&stacked, &pid);
	return 0;
}

/* Pushes: push_cpu_stop() queued to move p off cpu for pinned. */
static void push_queued(struct task_struct *p, struct task_struct *pinned,
			__s32 cpu, __s32 site)
{
	__s32 pid = BPF_CORE_READ(p, pid);
	struct mdstat_event *e;
	__u64 now;

	if (!cpu_wanted(cpu) || !(task_wanted(p) || (pinned && task_wanted(pinned))))
		return;
	now = bpf_ktime_get_ns();
	bpf_map_update_elem(&push_queued_at, &pid, &now, BPF_ANY);
	count(cpu, MDSTAT_CNT_PUSH_QUEUED, 1);
	e = event_reserve(MDSTAT_EV_PUSH_QUEUED, cpu);
	if (e) {
		event_task(e, p);
		event_other(e, pinned);
		e->depth = site;
		bpf_ringbuf_submit(e, 0);
	}
}

/* ... and what it did: result, and where the task went (push->dest_cpu). */
static void push_done(const struct mdstat_push_task *push, __s32 cpu, __u64 result)
{
	struct mdstat_event *e;
	__u64 *queued, latency = 0;
	__s32 pid = push->pid;

	queued = bpf_map_lookup_elem(&push_queued_at, &pid);
	if (!queued && (!cpu_wanted(cpu) || (targ_tgid && push->tgid != targ_tgid)))
		return;
	if (queued) {
		latency = bpf_ktime_get_ns() - *queued;
		if (result == MDSTAT_PUSH_MOVED)
			hist_add(MDSTAT_HIST_PUSH, cpu, latency);
		if (result != MDSTAT_PUSH_DEFERRED)
			bpf_map_delete_elem(&push_queued_at, &pid);
	}
	/* The counters follow enum mdstat_push_result. */
	if (result <= MDSTAT_PUSH_NOT_MOVED)
		count(cpu, MDSTAT_CNT_PUSH_MOVED + result, 1);
	e = event_reserve(MDSTAT_EV_PUSH_DONE, cpu);
	if (e) {
		e->pid = pid;
		e->tgid = push->tgid;
		e->prio = push->prio;
		__builtin_memcpy(e->comm, push->comm, sizeof(e->comm));
		e->arg = result;
		e->arg2 = push->dest_cpu;
		e->duration_ns = latency;
		bpf_ringbuf_submit(e, 0);
	}
}

/* A CPU going down queued its stopper to push p off. */
static void balance_push(struct task_struct *p, __s32 cpu)
{
	struct mdstat_event *e;

	if (!cpu_wanted(cpu) || !task_wanted(p))
		return;
	count(cpu, MDSTAT_CNT_BALANCE_PUSH, 1);
	e = event_reserve(MDSTAT_EV_BALANCE_PUSH, cpu);
	if (e) {
		event_task(e, p);
		bpf_ringbuf_submit(e, 0);
	}
}

/* The hotplug thread of cpu waits for the pinned tasks there to leave. */
static void hotplug_wait_begin(__s32 cpu, __u32 nr_running, __u32 nr_pinned)
{
	struct mdstat_cpu *c = cpu_state(cpu);
	__u64 now = bpf_ktime_get_ns();
	struct mdstat_event *e;

	if (!c)
		return;
	c->counters.hotplug_wait_since = now;
	c->counters.hotplug_wait_pinned = nr_pinned;
	c->counters.hotplug_waiter = bpf_get_current_pid_tgid();
	if (!cpu_wanted(cpu))
		return;
	e = event_reserve(MDSTAT_EV_HOTPLUG_WAIT_BEGIN, cpu);
	if (e) {
		/*
		 * The culprits' held_ns count from the same clock read: a
		 * second one may come milliseconds later, where the host
		 * stopped the vCPU in between.
		 */
		e->ts = now;
		event_task(e, bpf_get_current_task_btf());
		e->arg = nr_pinned;
		e->arg2 = nr_running;
		bpf_ringbuf_submit(e, 0);
	}
}

static void hotplug_wait_end(__s32 cpu, __u64 wait_ns)
{
	struct mdstat_cpu *c = cpu_state(cpu);
	struct mdstat_event *e;

	if (!c)
		return;
	c->counters.hotplug_wait_since = 0;
	c->counters.hotplug_waiter = 0;
	c->counters.culprit = 0;
	if (!cpu_wanted(cpu))
		return;
	count(cpu, MDSTAT_CNT_HOTPLUG_WAIT, 1);
	count(cpu, MDSTAT_CNT_HOTPLUG_WAIT_NS, wait_ns);
	hist_add(MDSTAT_HIST_HOTPLUG, cpu, wait_ns);
	e = event_reserve(MDSTAT_EV_HOTPLUG_WAIT_END, cpu);
	if (e) {
		event_task(e, bpf_get_current_task_btf());
		e->duration_ns = wait_ns;
		bpf_ringbuf_submit(e, 0);
	}
}

/* The current task waits until p, pinned on cpu, leaves its section. */
static void affinity_wait_begin(struct task_struct *p, __s32 cpu)
{
	struct affinity_wait wait = { .cpu = cpu, .pid = p->pid };
	struct mdstat_event *e;
	__s32 caller = bpf_get_current_pid_tgid();

	if (!cpu_wanted(cpu) || !task_wanted(p))
		return;
	wait.since = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&affinity_waits, &caller, &wait, BPF_ANY))
		__sync_fetch_and_add(&lost_tasks, 1);
	e = event_reserve(MDSTAT_EV_AFFINITY_WAIT_BEGIN, cpu);
	if (e) {
		event_task(e, p);
		event_other(e, bpf_get_current_task_btf());
		e->depth = p->migration_disabled;
		bpf_ringbuf_submit(e, 0);
	}
}

/* The current task waited wait_ns for pid, pinned on cpu, to leave its section. */
static void affinity_waited(__s32 pid, __s32 cpu, __u64 wait_ns)
{
	struct mdstat_event *e;

	count(cpu, MDSTAT_CNT_AFFINITY_WAIT, 1);
	count(cpu, MDSTAT_CNT_AFFINITY_WAIT_NS, wait_ns);
	hist_add(MDSTAT_HIST_AFFINITY, cpu, wait_ns);
	e = event_reserve(MDSTAT_EV_AFFINITY_WAIT_END, cpu);
	if (e) {
		e->pid = pid;
		event_other(e, bpf_get_current_task_btf());
		e->duration_ns = wait_ns;
		bpf_ringbuf_submit(e, 0);
	}
}

static void affinity_wait_end(void)
{
	__s32 caller = bpf_get_current_pid_tgid();
	struct affinity_wait *wait;

	wait = bpf_map_lookup_elem(&affinity_waits, &caller);
	if (!wait)
		return;
	affinity_waited(wait->pid, wait->cpu, bpf_ktime_get_ns() - wait->since);
	bpf_map_delete_elem(&affinity_waits, &caller);
}

/* The mdstat series' trace events. */

SEC("tp_btf/sched_pinned_push_queued")
int BPF_PROG(push_queued_tp, struct task_struct *p, struct task_struct *pinned,
	     int cpu, int site)
{
	push_queued(p, pinned, cpu, site);
	return 0;
}

/* It runs on the CPU the push was queued on, in its stopper. */
SEC("tp_btf/sched_pinned_push_done")
int BPF_PROG(push_done_tp, struct task_struct *p, int result, int dest_cpu)
{
	struct mdstat_push_task push = {
		.pid = p->pid, .tgid = p->tgid, .prio = p->prio, .dest_cpu = dest_cpu,
	};

	bpf_probe_read_kernel_str(push.comm, sizeof(push.comm), p->comm);
	push_done(&push, bpf_get_smp_processor_id(), result);
	return 0;
}

SEC("tp_btf/sched_affinity_wait")
int BPF_PROG(affinity_wait_tp, struct task_struct *p, int cpu, u64 wait_ns)
{
	if (cpu_wanted(cpu) && task_wanted(p))
		affinity_waited(p->pid, cpu, wait_ns);
	return 0;
}

/* The same on a stock kernel, from the functions that do the work. */

/*
 * nr_pinned of the current CPU as it is outside this program: the fentry
 * trampoline's migrate_disable() pinned current, unless it already was.
 */
static __u32 nr_pinned_outside_bpf(struct rq *rq)
{
	struct task_struct *current = bpf_get_current_task_btf();
	__u32 nr_pinned = rq->nr_pinned;

	if (current->migration_disabled == 1 && nr_pinned)
		nr_pinned--;
	return nr_pinned;
}

/*
 * Function pointer arguments cannot be read in 6.1; the work it queued
 * holds the same.  Its caller is no use: under fexit it is the trampoline.
 */
SEC("fexit/stop_one_cpu_nowait")
int BPF_PROG(stop_one_cpu_nowait_exit, unsigned int cpu, void *fn, void *arg,
	     struct cpu_stop_work *work, bool queued)
{
	void *work_fn = work->fn;

	if (!queued)
		return 0;
	if (fallback_push && work_fn == &push_cpu_stop)
		push_queued(work->arg, NULL, cpu, MDSTAT_PUSH_SITE_UNKNOWN);
	else if (fallback_balance_push && work_fn == &__balance_push_cpu_stop)
		balance_push(work->arg, cpu);
	return 0;
}

/* Its void *arg is the task, a plain address to the verifier. */
SEC("fentry/push_cpu_stop")
int BPF_PROG(push_cpu_stop_entry, struct task_struct *p)
{
	struct mdstat_cpu *c = cpu_state(bpf_get_smp_processor_id());
	struct mdstat_push_task *stop;

	if (!c)
		return 0;
	stop = &c->push_stop;
	stop->pid = BPF_CORE_READ(p, pid);
	stop->tgid = BPF_CORE_READ(p, tgid);
	stop->prio = BPF_CORE_READ(p, prio);
	stop->dest_cpu = -1;
	bpf_probe_read_kernel_str(stop->comm, sizeof(stop->comm), p->comm);
	return 0;
}

/* Whether this CPU runs an NMI, a hard interrupt or (but on RT) a softirq. */
static __always_inline bool in_interrupt_context(void)
{
	const unsigned long *offsets = (const unsigned long *)&__per_cpu_offset;
	unsigned long count_at, offset;
	int count = 0;

	if (&__preempt_count)
		count_at = (unsigned long)&__preempt_count;
	else if (&pcpu_hot)
		count_at = (unsigned long)&pcpu_hot + PCPU_HOT_PREEMPT_COUNT;
	else
		return false;
	if (!offsets ||
	    bpf_probe_read_kernel(&offset, sizeof(offset), offsets + bpf_get_smp_processor_id()))
		return false;
	bpf_probe_read_kernel(&count, sizeof(count), (void *)(count_at + offset));
	return count & (NMI_HARDIRQ_MASK | SOFTIRQ_OFFSET);
}

/*
 * push_cpu_stop() moves its task with set_task_cpu(), which traces this.
 * An interrupt can move the task too while interrupts are on, before
 * push_cpu_stop() takes p->pi_lock (the RT balancer's push IPI; the push
 * then finds the task gone) or after it lets go: not the push's move.
 */
SEC("tp_btf/sched_migrate_task")
int BPF_PROG(push_migrate_task, struct task_struct *p, int dest_cpu)
{
	struct mdstat_cpu *c = cpu_state(bpf_get_smp_processor_id());

	if (c && c->push_stop.pid && c->push_stop.pid == p->pid && !in_interrupt_context())
		c->push_stop.dest_cpu = dest_cpu;
	return 0;
}

SEC("fexit/push_cpu_stop")
int BPF_PROG(push_cpu_stop_exit, struct task_struct *p, int ret)
{
	__s32 cpu = bpf_get_smp_processor_id();
	struct mdstat_cpu *c = cpu_state(cpu);

	if (!c)
		return 0;
	push_done(&c->push_stop, cpu, c->push_stop.dest_cpu >= 0 ?
		  MDSTAT_PUSH_MOVED : MDSTAT_PUSH_NOT_MOVED);
	c->push_stop.pid = 0;
	return 0;
}

/* Runs on the CPU going down, in its hotplug thread. */
SEC("fentry/sched_cpu_wait_empty")
int BPF_PROG(sched_cpu_wait_empty_entry, unsigned int cpu)
{
	struct rq *rq = bpf_this_cpu_ptr(&runqueues);
	__u32 nr_pinned = nr_pinned_outside_bpf(rq);

	if (rq->nr_running > 1 || nr_pinned)
		hotplug_wait_begin(cpu, rq->nr_running, nr_pinned);
	return 0;
}

SEC("fexit/sched_cpu_wait_empty")
int BPF_PROG(sched_cpu_wait_empty_exit, unsigned int cpu)
{
	struct mdstat_cpu *c = cpu_state(cpu);

	if (c && c->counters.hotplug_wait_since)
		hotplug_wait_end(cpu, bpf_ktime_get_ns() - c->counters.hotplug_wait_since);
	return 0;
}

/*
 * Whether p's new affinity (already set as this runs) still has cpu: the
 * one word of the mask that holds its bit (cpu < nr_cpu_ids <= NR_CPUS).
 */
static bool cpus_mask_has(struct task_struct *p, __u32 cpu)
{
	const void *word = (const void *)&p->cpus_mask + cpu / 64 * sizeof(__u64);
	__u64 bits = 0;

	bpf_probe_read_kernel(&bits, sizeof(bits), word);
	return (bits >> (cpu % 64)) & 1;
}

/*
 * As the series does: the caller waits if the task must leave its CPU but
 * is pinned, unless this is the task's own migrate_enable() completing a
 * pending change.
 */
SEC("fentry/affine_move_task")
int BPF_PROG(affine_move_task_entry, struct rq *rq, struct task_struct *p,
	     struct rq_flags *rf, int dest_cpu, unsigned int flags)
{
	struct task_struct *current = bpf_get_current_task_btf();
	int depth = p->migration_disabled;

	if ((flags & SCA_MIGRATE_ENABLE) || cpus_mask_has(p, rq->cpu))
		return 0;
	if (p == current)
		depth--;
	if (depth > 0)
		affinity_wait_begin(p, rq->cpu);
	return 0;
}

SEC("fexit/affine_move_task")
int BPF_PROG(affine_move_task_exit)
{
	affinity_wait_end();
	return 0;
}

/* CPU offline from start to end, on every kernel (mdstat hotplug, trace). */

SEC("fentry/cpu_device_down")
int BPF_PROG(cpu_device_down_entry, struct device *dev)
{
	__s32 cpu = dev->id;
	struct mdstat_cpu *c = cpu_state(cpu);
	struct mdstat_event *e;

	if (!c || !cpu_wanted(cpu))
		return 0;
	c->offline_since = bpf_ktime_get_ns();
	e = event_reserve(MDSTAT_EV_OFFLINE_BEGIN, cpu);
	if (e) {
		event_task(e, bpf_get_current_task_btf());
		bpf_ringbuf_submit(e, 0);
	}
	return 0;
}

SEC("fexit/cpu_device_down")
int BPF_PROG(cpu_device_down_exit, struct device *dev, int ret)
{
	__s32 cpu = dev->id;
	struct mdstat_cpu *c = cpu_state(cpu);
	struct mdstat_event *e;

	if (!c || !c->offline_since || !cpu_wanted(cpu))
		return 0;
	e = event_reserve(MDSTAT_EV_OFFLINE_END, cpu);
	if (e) {
		event_task(e, bpf_get_current_task_btf());
		e->duration_ns = e->ts - c->offline_since;
		e->arg = ret;
		bpf_ringbuf_submit(e, 0);
	}
	c->offline_since = 0;
	return 0;
}

/*
 * Hotplug culprits, from the series' bare tracepoints: where each section
 * began, and who left one on a CPU whose hotplug thread waits.
 */
SEC("tp_btf/sched_migrate_disable_tp")
int BPF_PROG(section_begin, struct task_struct *p, int cpu,
	     unsigned int nr_pinned, unsigned long caller)
{
	struct section s = { .caller = caller };
	struct mdstat_cpu *c = cpu_state(cpu);
	__s32 pid = p->pid;

	/* A culprit pinned again before it switched out: a culprit anew. */
	if (c && c->counters.culprit == pid)
		c->counters.culprit = 0;
	if (!task_wanted(p))
		return 0;
	s.since = bpf_ktime_get_ns();
	s.stack_id = bpf_get_stackid(ctx, &stacks, 0);
	bpf_map_update_elem(&sections, &pid, &s, BPF_ANY);
	return 0;
}

SEC("tp_btf/sched_migrate_enable_tp")
int BPF_PROG(section_end, struct task_struct *p, int cpu,
	     unsigned int nr_pinned, unsigned long caller)
{
	struct mdstat_counters *c;
	struct mdstat_cpu *state;
	__s32 pid = p->pid;
	struct mdstat_event *e;
	struct section *s;
	__u64 since, now;

	s = bpf_map_lookup_elem(&sections, &pid);
	state = cpu_state(cpu);
	if (!state)
		goto out;
	c = &state->counters;
	since = c->hotplug_wait_since;
	if (!since || pid == c->hotplug_waiter || !cpu_wanted(cpu) ||
	    !task_wanted(p))
		goto out;
	e = event_reserve(MDSTAT_EV_CULPRIT, cpu);
	if (!e)
		goto out;
	event_task(e, p);
	now = e->ts;
	if (s) {
		e->duration_ns = now - s->since;
		e->held_ns = now - (s->since > since ? s->since : since);
		e->caller = s->caller;
		e->stack_id = s->stack_id;
		e->arg = 1;
	} else {
		/* Pinned before mdstat started: where it leaves instead. */
		e->held_ns = now - since;
		e->caller = caller;
		e->stack_id = bpf_get_stackid(ctx, &stacks, 0);
	}
	/* The tracepoint fires inside the section: nr_pinned counts it. */
	e->arg2 = nr_pinned - 1;
	bpf_ringbuf_submit(e, 0);
	c->culprit_enabled = now;
	c->culprit = pid;
out:
	if (s)
		bpf_map_delete_elem(&sections, &pid);
	return 0;
}

/*
 * A culprit holds the wait up until it leaves the CPU, not only until its
 * migrate_enable(): the hotplug thread waits for the CPU to run nothing but
 * itself.  It leaves by sleeping or exiting, or by being moved off
 * (balance_push()); preempted, it stays queued there.
 */
static void culprit_left(struct task_struct *p, __s32 cpu)
{
	struct mdstat_cpu *c = cpu_state(cpu);
	struct mdstat_event *e;

	if (!c || !c->counters.culprit || p->pid != c->counters.culprit)
		return;
	c->counters.culprit = 0;
	e = event_reserve(MDSTAT_EV_CULPRIT_LEFT, cpu);
	if (!e)
		return;
	event_task(e, p);
	e->duration_ns = e->ts - c->counters.culprit_enabled;
	bpf_ringbuf_submit(e, 0);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(culprit_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	if (prev->on_rq != TASK_ON_RQ_QUEUED)
		culprit_left(prev, bpf_get_smp_processor_id());
	return 0;
}

/* Before set_task_cpu() changes it, task_cpu() is the CPU it leaves. */
SEC("tp_btf/sched_migrate_task")
int BPF_PROG(culprit_migrate, struct task_struct *p, int dest_cpu)
{
	culprit_left(p, p->thread_info.cpu);
	return 0;
}

/*
 * Every CPU's runqueue, read through BTF; mdstat runs this with
 * BPF_PROG_TEST_RUN, as a plain task, so nothing here is biased.
 */
static long snapshot_cpu(__u32 cpu, void *unused)
{
	struct mdstat_cpu *c = cpu_state(cpu);
	struct task_struct *curr;
	struct mdstat_rq *out;
	struct rq *rq;

	if (!c)
		return 1;
	out = &c->rq;
	rq = bpf_per_cpu_ptr(&runqueues, cpu);
	if (!rq)
		return 0;
	out->online = rq->online;
	out->nr_running = rq->nr_running;
	out->nr_pinned = rq->nr_pinned;
	out->push_busy = rq->push_busy;
	curr = rq->curr;
	out->curr_pid = curr->pid;
	out->curr_prio = curr->prio;
	out->curr_policy = curr->policy;
	out->curr_depth = curr->migration_disabled;
	bpf_probe_read_kernel_str(out->curr_comm, sizeof(out->curr_comm), curr->comm);
	if (bpf_core_field_exists(rq->md_stats)) {
		out->has_md_stats = 1;
		out->md.pinned_preempt = rq->md_stats.pinned_preempt;
		out->md.push_moved = rq->md_stats.push_moved;
		out->md.push_deferred = rq->md_stats.push_deferred;
		out->md.push_migrated = rq->md_stats.push_migrated;
		out->md.push_dequeued = rq->md_stats.push_dequeued;
		out->md.push_no_target = rq->md_stats.push_no_target;
		out->md.hotplug_pinned = rq->md_stats.hotplug_pinned;
		out->md.affinity_wait = rq->md_stats.affinity_wait;
	}
	return 0;
}

SEC("raw_tp")
int snapshot(void *ctx)
{
	bpf_loop(nr_cpus, snapshot_cpu, NULL, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
