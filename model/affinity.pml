/*
 * The set_affinity_pending protocol of Linux 6.1 (kernel/sched/core.c of
 * Debian's 6.1.192): set_cpus_allowed_ptr() of a task P by other tasks
 * against P's own migrate_disable()/migrate_enable(), with the per-CPU
 * stoppers, wakeups, the load balancer, RT push and a CPU going inactive,
 * and with OFFLINE offline too.  "L1234" is a line of that core.c.
 *
 *   spin -a [-DFIX=n] [-DCHECK=bits] [-DNOPUSH] [-DNOHOTPLUG|-DINACTIVE|-DOFFLINE] affinity.pml
 *
 * FIX selects the proposed changes (patches/6.1/0001-0003), as bits (0,
 * the default, is the 6.1 code):
 *   1  the task-moved branch (L2465) tests task_cpu(p) against
 *      &p->cpus_mask, not p->cpus_ptr
 *   2  the task_rq == rq branch (L2439) moves the task to
 *      select_fallback_rq() when arg->dest_cpu is no longer allowed, and
 *      only SCA_MIGRATE_ENABLE picks from cpu_online_mask (L2909)
 *   4  SCA_MIGRATE_ENABLE picks no CPU at all (L2943), so it cannot fail
 * CHECK selects the properties below (bits, default all of them).
 *
 * Each stretch the kernel runs under task_rq_lock() or the rq lock of P's
 * runqueue is one atomic step: every such stretch takes the lock of P's
 * runqueue, so the kernel orders them too.  Lock-free accesses
 * (migrate_disable(), the tail of migrate_enable(), set_cpu_active()) are
 * steps of their own.  Every step prints one line: `spin -t -T` shows a
 * counterexample as a list of kernel events.
 */

#define NCPU	3
#define ALL	7		/* cpu_possible_mask */
#define NONE	255
#ifdef THREE
#define NCALLER	3		/* callers B (0), C (1) and D (2) */
#else
#define NCALLER	2		/* callers B (0) and C (1) */
#endif
#define PUSHW	NCALLER		/* work id of rq->push_work (push_cpu_stop) */
#define HOTCPU	2		/* the CPU that may go inactive */
#define BIT(c)	(1 << (c))

/* P's scheduler state */
#define RUNNING		0	/* rq->curr of task_cpu(p); p->on_cpu */
#define QUEUED		1	/* on the runqueue, not running */
#define SLEEPING	2	/* blocked, !p->on_rq */
#define WAKING		3	/* TASK_WAKING, on the target's wake list */

#ifndef FIX
#define FIX	0
#endif

/* Properties */
#define WARN_NO_PENDING		1	/* L2816, from migrate_enable() */
#define PROMISE_RETURN		2	/* a caller returns with P outside the
					 * mask, not asleep, not migration disabled */
#define PROMISE_RUN		4	/* P runs outside cpus_mask, not migration
					 * disabled, and no stopper is on its way */
#define WARN_MISMATCH		8	/* L2419 */
#define WARN_CHASE		16	/* L2476 */
#define WARN_ARGH		32	/* L2873 */
#define PENDING_UAF		64	/* a returned caller's my_pending in use */
#define WORK_REQUEUED		128	/* a cpu_stop_work queued twice */
#define RETURN_IN_SECTION	256	/* a caller returns with P outside the
					 * mask (the comment above L2736: not
					 * before the outermost migrate_enable()) */
#define WAITER_STRANDED		512	/* a waiter nobody will complete */
#define WORK_DROPPED		1024	/* stop_one_cpu_nowait() to an offline CPU */
#ifndef CHECK
#define CHECK	2047
#endif
#define REQUIRE(prop, name, cond) \
	if :: (CHECK & (prop)) && !(cond) -> printf(name); assert(false) \
	   :: else fi

/* cpu_active_mask: CPU0 and CPU1 stay active, HOTCPU comes and goes;
 * with INACTIVE, HOTCPU is inactive (but online) throughout */
#ifdef INACTIVE
#define NOHOTPLUG
byte cpu_act = ALL & ~BIT(HOTCPU);
#else
byte cpu_act = ALL;
#endif
/* cpu_online_mask: with OFFLINE, an inactive HOTCPU may go offline */
byte cpu_onl = ALL;

/* task P */
byte cpu = 0;			/* task_cpu(p) */
byte st = RUNNING;
bit mdis;			/* p->migration_disabled (depth 0/1) */
byte mask = ALL;		/* p->cpus_mask */
byte ptr = NONE;		/* p->cpus_ptr: NONE: &p->cpus_mask, else cpumask_of(ptr) */
bit preempt_off;		/* inside migrate_enable()'s preempt_disable() */
bit mdf_push;			/* p->migration_flags & MDF_PUSH */
byte mp = NONE;			/* p->migration_pending: NONE, or whose my_pending */

/* struct set_affinity_pending: each caller's my_pending */
byte refs[NCALLER];
bit stop_pending[NCALLER];
bit done[NCALLER];		/* the completion */
byte dest[NCALLER];		/* arg.dest_cpu */

/* per-CPU stopper work lists (FIFO), rq->push_busy */
chan sq[NCPU] = [4] of { byte };
bit push_busy[NCPU];

/* ghosts, for the properties */
bit queued_w[NCALLER];		/* pending->stop_work is on a stopper list */
bit alive[NCALLER];		/* the caller has not returned: my_pending exists */
byte waiting[NCALLER];		/* the pending a caller waits on, or NONE */
byte last_setter = NONE;	/* the caller whose mask p->cpus_mask is */

byte pd, ps, pw;		/* scratch within one atomic step ... */
#define SCRUB	pd = 0; ps = 0; pw = 0	/* ... and zero between steps */

#define PTRMASK		((ptr == NONE) -> mask : BIT(ptr))
/* is_cpu_allowed() L2282 for a user task */
#define ALLOWED		(PTRMASK & (mdis -> cpu_onl : cpu_act))
#define IS_ALLOWED(c)	((ALLOWED & BIT(c)) != 0)

#if FIX & 1
#define MOVED_OK_MASK	mask
#else
#define MOVED_OK_MASK	PTRMASK
#endif

/* pd = a CPU of the non-empty set s: cpumask_any*() may return any.  A
 * macro: an inline's argument cannot hold a conditional expression. */
#define pick(s)	if :: ((s) & 1) -> pd = 0 :: ((s) & 2) -> pd = 1 \
		   :: ((s) & 4) -> pd = 2 fi

inline pmask(m)
{
	if
	:: m == 1 -> printf("{0}")
	:: m == 2 -> printf("{1}")
	:: m == 3 -> printf("{0,1}")
	:: m == 4 -> printf("{2}")
	:: m == 5 -> printf("{0,2}")
	:: m == 6 -> printf("{1,2}")
	:: m == 7 -> printf("{0,1,2}")
	fi
}

inline pname(i)
{
	if
	:: i == 0 -> printf("B")
	:: i == 1 -> printf("C")
	:: i == 2 -> printf("D")
	fi
}

/* stop_one_cpu_nowait(c, ..., work): false, and no work, if c is offline */
inline queue_work(c, work)
{
	if
	:: !(cpu_onl & BIT(c)) ->
		printf(", CPU%d offline: work dropped", c);
		REQUIRE(WORK_DROPPED, "\nviolated: work_dropped\n", false)
	:: else ->
		if
		:: work < NCALLER ->
			REQUIRE(WORK_REQUEUED, "violated: work_requeued\n", !queued_w[work]);
			queued_w[work] = 1
		:: else
		fi;
		sq[c]!work
	fi
}

/*
 * pd = select_fallback_rq() L3450: a CPU of cpus_ptr that is allowed, or,
 * with none, the task's mask becomes every CPU (do_set_cpus_allowed(),
 * which leaves cpus_ptr alone) and it picks again; none then is its BUG().
 */
inline fallback()
{
	if
	:: ALLOWED == 0 ->
		mask = ALL;
		printf(", no longer affine");
		assert(ALLOWED != 0)
	:: else
	fi;
	pick(ALLOWED)
}

/* __schedule() switching P out: L6577 migrate_disable_switch() L2212 */
inline switch_out(newst)
{
	st = newst;
	if
	:: mdis && ptr == NONE ->
		ptr = cpu;
		printf(", cpus_ptr = {%d}", cpu)
	:: else
	fi
}

/*
 * __set_cpus_allowed_ptr_locked() L2881 and affine_move_task() L2736, up
 * to the unlock: who is a caller, or NONE for migrate_enable()'s
 * SCA_MIGRATE_ENABLE.  Sets pend to the pending to wait on, or to NONE
 * when the call returns at once.
 */
inline sca(who, newmask, pend)
{
	pend = NONE;
	/* L2909: cpu_online_mask for a migration-disabled task */
#if FIX & 2
	ps = (who == NONE -> cpu_onl : cpu_act);
#else
	ps = (mdis -> cpu_onl : cpu_act);
#endif
	if
	:: who != NONE && mask == newmask ->
		printf(": the same mask, returns")	/* cpumask_equal() */
	:: !(who != NONE && mask == newmask) && !(ps & newmask) &&
	   (who != NONE || !(FIX & 4)) ->
		/* L2943: the pick finds no CPU */
		printf(": no CPU of ");
		pmask(newmask);
		printf(" valid, -EINVAL");
		if
		:: who == NONE -> printf(", cpus_ptr stays {%d}", ptr)
		:: else
		fi
	:: else ->
		/* L2943; SCA_MIGRATE_ENABLE does not use its dest_cpu */
		if
		:: who != NONE -> pick(ps & newmask)
		:: else -> pd = NONE
		fi;
		/* __do_set_cpus_allowed() -> set_cpus_allowed_common() */
		if
		:: who == NONE -> ptr = NONE
		:: else -> mask = newmask; last_setter = who
		fi;
		if
		:: (mask & BIT(cpu)) ->
			/* L2743 */
			printf(": CPU%d allowed", cpu);
			if
			:: who == NONE && mdf_push && !push_busy[cpu] ->
				push_busy[cpu] = 1;
				printf(", queues push_cpu_stop");
				queue_work(cpu, PUSHW)
			:: else
			fi;
			if
			:: mp != NONE && !stop_pending[mp] ->
				done[mp] = 1;
				printf(", completes pending(");
				pname(mp);
				printf(")");
				mp = NONE
			:: else
			fi;
			printf(", returns")
		:: else ->
			if
			:: who != NONE && mp == NONE ->	/* L2788 install */
				refs[who] = 1;
				done[who] = 0;
				stop_pending[who] = 0;
				dest[who] = pd;
				mp = who;
				printf(": installs pending(");
				pname(who);
				printf(") dest CPU%d", pd)
			:: who != NONE && mp != NONE ->	/* L2800 reuse */
				REQUIRE(PENDING_UAF, "violated: pending_uaf\n", alive[mp]);
				refs[mp]++;
				dest[mp] = pd;
				printf(": reuses pending(");
				pname(mp);
				printf("), dest CPU%d", pd)
			:: else
			fi;
			if
			:: mp == NONE ->
				printf(": CPU%d not allowed, WARN_ON_ONCE(!pending), -EINVAL", cpu);
				REQUIRE(WARN_NO_PENDING, "\nviolated: warn_no_pending\n", false)
			:: (mp != NONE) && (st == RUNNING || st == WAKING) ->
				/* L2821 */
				ps = stop_pending[mp];
				stop_pending[mp] = 1;
				if
				:: who == NONE -> mdf_push = 0
				:: else -> pend = mp
				fi;
				if
				:: !ps ->
					printf(", queues migration_cpu_stop on CPU%d", cpu);
					queue_work(cpu, mp)
				:: else ->
					printf(", stop_pending already")
				fi
			:: (mp != NONE) && (st == QUEUED || st == SLEEPING) ->
				/* L2843 */
				pend = mp;
				if
				:: !mdis ->
					if
					:: st == QUEUED ->
						cpu = pd;	/* move_queued_task() */
						printf(", moves P to CPU%d", cpu)
					:: else
					fi;
					if
					:: !stop_pending[mp] ->
						done[mp] = 1;
						printf(", completes");
						mp = NONE
					:: else
					fi
				:: else ->
					printf(", P migration disabled")
				fi
			fi;
			if
			:: pend != NONE -> printf(", waits")
			:: else
			fi
		fi
	fi
}

/* migration_cpu_stop() L2391 on CPU c for the stop_work of pending i */
inline migration_cpu_stop(c, i)
{
	printf("CPU%d stopper: migration_cpu_stop(pending(", c);
	pname(i);
	printf("), dest CPU%d)", dest[i]);
	REQUIRE(PENDING_UAF, "\nviolated: pending_uaf\n", alive[i]);
	/* L2410 flush_smp_call_function_queue(): our wake list */
	if
	:: st == WAKING && cpu == c -> st = QUEUED
	:: else
	fi;
	REQUIRE(WARN_MISMATCH, "\nviolated: warn_pending_mismatch\n", mp == i);	/* L2419 */
	if
	:: cpu == c ->				/* L2426 task_rq(p) == rq */
		assert(st != RUNNING);
		if
		:: mdis ->			/* L2427 */
			printf(": P migration disabled, leaves it")
		:: else ->
			mp = NONE;		/* L2431: complete before moving */
			done[i] = 1;
			printf(": completes");
			if
			:: (mask & BIT(cpu)) ->
				printf(", CPU%d allowed", cpu)
			:: else ->
				if
				:: st == QUEUED ->
					pd = dest[i];
#if FIX & 2
					/* select_fallback_rq(): the pick went stale */
					if
					:: !IS_ALLOWED(pd) ->
						printf(", CPU%d not allowed", pd);
						fallback();
						printf(", fallback CPU%d", pd)
					:: else
					fi;
#endif
					/* L2439 __migrate_task(): nothing if !is_cpu_allowed() */
					if
					:: IS_ALLOWED(pd) ->
						cpu = pd;
						printf(", moves P to CPU%d", cpu)
					:: else ->
						printf(", __migrate_task() to CPU%d does nothing (", pd);
						if
						:: (cpu_act & BIT(pd)) -> printf("not allowed")
						:: else -> printf("inactive")
						fi;
						printf("), P stays on CPU%d", cpu)
					fi
				:: else ->		/* L2441 */
					printf(", P asleep: wake_cpu")
				fi
			fi
		fi;
		stop_pending[i] = 0
	:: else ->				/* L2450 the task moved */
		if
		:: (MOVED_OK_MASK & BIT(cpu)) ->	/* L2465 */
			mp = NONE;
			done[i] = 1;
			stop_pending[i] = 0;
#if FIX & 1
			printf(": P on CPU%d, in cpus_mask, completes", cpu)
#else
			printf(": P on CPU%d, in cpus_ptr ", cpu);
			ps = PTRMASK;
			pmask(ps);
			printf(", completes")
#endif
		:: else ->
			REQUIRE(WARN_CHASE, "\nviolated: warn_chase_stop_pending\n", stop_pending[i]);	/* L2476 */
			printf(": P on CPU%d, chases it there", cpu);
			queue_work(cpu, i)	/* L2479 */
		fi
	fi;
	printf("\n")
}

/* push_cpu_stop() L2495 on CPU c */
inline push_cpu_stop(c)
{
	printf("CPU%d stopper: push_cpu_stop()", c);
	if
	:: cpu != c -> skip
	:: cpu == c && mdis ->
		mdf_push = 1;
		printf(": P migration disabled, MDF_PUSH")
	:: cpu == c && !mdis ->
		mdf_push = 0;
		if
		:: st == QUEUED && (mask & cpu_act & ~BIT(c)) ->
			pick(mask & cpu_act & ~BIT(c));	/* find_lock_lowest_rq() */
			cpu = pd;
			printf(": pushes P to CPU%d", cpu)
		:: true -> skip			/* no lower-priority rq */
		fi
	fi;
	push_busy[c] = 0;
	printf("\n")
}

/* P itself, and what the scheduler does with it */
proctype Task()
{
end:
	do
	/* migrate_disable() L2226: lock-free */
	:: atomic { st == RUNNING && !mdis ->
		mdis = 1;
		printf("P on CPU%d: migrate_disable()\n", cpu) }
	/* migrate_enable() L2242, outermost, cpus_ptr != &cpus_mask: L2259 */
	:: atomic { st == RUNNING && mdis && !preempt_off && ptr != NONE ->
		preempt_off = 1;
		printf("P on CPU%d: migrate_enable(): __set_cpus_allowed_ptr(", cpu);
		pmask(mask);
		printf(", SCA_MIGRATE_ENABLE)");
		sca(NONE, mask, pw);
		printf("\n");
		SCRUB }
	/*
	 * L2265: migration_disabled = 0 and preempt_enable(): need_resched is
	 * set if stopper work is queued here, so P is switched out right away.
	 * Elsewhere P may run on with work queued for its CPU: a remote
	 * wakeup of the stopper takes an IPI, which preempt_disable() or
	 * local_irq_disable() hold off.
	 */
	:: atomic { st == RUNNING && mdis && (preempt_off || ptr == NONE) ->
		mdis = 0;
		preempt_off = 0;
		printf("P on CPU%d: migrate_enable() returns", cpu);
		if
		:: nempty(sq[cpu]) ->
			printf(", preempted by the stopper");
			switch_out(QUEUED)
		:: empty(sq[cpu])
		fi;
		printf("\n") }
	/* preemption, blocking */
	:: atomic { st == RUNNING && !preempt_off ->
		printf("P on CPU%d: preempted", cpu);
		switch_out(QUEUED);
		printf("\n") }
	:: atomic { st == RUNNING && !preempt_off ->
		printf("P on CPU%d: blocks", cpu);
		switch_out(SLEEPING);
		printf("\n") }
	/* pick_next_task(): the stop class goes first */
	:: atomic { st == QUEUED && empty(sq[cpu]) ->
		st = RUNNING;
		printf("CPU%d: P runs\n", cpu) }
	/*
	 * try_to_wake_up() L4090: select_task_rq() L3525 under p->pi_lock
	 * picks a CPU that is_cpu_allowed(); a wake-list enqueue leaves P
	 * TASK_WAKING, which affine_move_task() (L2821) sends to the stopper
	 * path, until the target CPU enqueues it.
	 */
	:: atomic { st == SLEEPING ->
		printf("try_to_wake_up(P)");
		if
		:: ALLOWED != 0 -> pick(ALLOWED)
		:: else -> fallback()
		fi;
		cpu = pd;
		printf(": CPU%d", cpu);
		if
		:: st = QUEUED
		:: st = WAKING;		/* ttwu_queue_wakelist() */
		   printf(" (wake list)")
		fi;
		printf("\n");
		SCRUB }
	:: atomic { st == WAKING ->	/* sched_ttwu_pending() */
		st = QUEUED;
		printf("CPU%d: enqueues P from its wake list\n", cpu) }
	/* load balancer: can_migrate_task() (fair.c) tests cpus_ptr */
	:: atomic { st == QUEUED && (PTRMASK & cpu_act & ~BIT(cpu)) ->
		pick(PTRMASK & cpu_act & ~BIT(cpu));
		printf("load balancer: P from CPU%d to CPU%d\n", cpu, pd);
		cpu = pd;
		SCRUB }
#ifdef OFFLINE
	/*
	 * balance_push() L9275 on a CPU going down: __balance_push_cpu_stop()
	 * moves a task that is not migration disabled to select_fallback_rq()
	 */
	:: atomic { st == QUEUED && cpu == HOTCPU && !(cpu_act & BIT(HOTCPU)) && !mdis ->
		printf("CPU%d: balance_push(P)", cpu);
		fallback();
		cpu = pd;
		printf(", to CPU%d\n", cpu);
		SCRUB }
#endif
#ifndef NOPUSH
	/* push_rt_task() (rt.c) -> get_push_task() (sched.h) */
	:: atomic { st == RUNNING && !mdis && !push_busy[cpu] &&
		    mask != 1 && mask != 2 && mask != 4 ->
		push_busy[cpu] = 1;
		printf("CPU%d: push_rt_task() queues push_cpu_stop for P", cpu);
		queue_work(cpu, PUSHW);
		printf("\n") }
#endif
	od
}

/*
 * The stopper of CPU c runs its works in order.  It can only take the
 * locks once P, if P is current on c, has been switched out; and while it
 * has work, P is not picked on c (the stop class goes first).
 */
proctype Stopper(byte c)
{
end:
	do
	:: atomic { nempty(sq[c]) && !(st == RUNNING && cpu == c) ->
		sq[c]?pw;
		if
		:: pw < NCALLER ->
			queued_w[pw] = 0;
			migration_cpu_stop(c, pw)
		:: else -> push_cpu_stop(c)
		fi;
		SCRUB }
	od
}

/*
 * sched_setaffinity(P) by another task: one call.  The masks keep CPU0 or
 * CPU1, which never go inactive, so P always has an active CPU in its mask;
 * with OFFLINE, {2} too, whose CPU may go away.
 */
proctype Caller(byte me)
{
	byte newmask;

	atomic {
		if
		:: newmask = 1
		:: newmask = 2
		:: newmask = 3
		:: newmask = 5
		:: newmask = 6
		:: newmask = 7
#ifdef OFFLINE
		:: newmask = 4
#endif
		fi;
		pname(me);
		printf(": set_cpus_allowed_ptr(P, ");
		pmask(newmask);
		printf(")");
		sca(me, newmask, pw);
		printf("\n");
		waiting[me] = pw;
		newmask = 0;
		SCRUB
	}
	if
	:: waiting[me] != NONE ->
		/* L2861 wait_for_completion(), refcount_dec_and_test() */
		atomic { done[waiting[me]] -> refs[waiting[me]]-- }
	:: else
	fi;
	/* L2870 wait_var_event(my_pending.refs == 0), return */
	atomic {
		refs[me] == 0 ->
		pname(me);
		printf(": returns, P on CPU%d, cpus_mask ", cpu);
		pmask(mask);
		if
		:: mdis -> printf(", migration disabled")
		:: else
		fi;
		if
		:: st == SLEEPING -> printf(", asleep")
		:: else
		fi;
		printf("\n");
		REQUIRE(WARN_ARGH, "violated: warn_argh\n", !stop_pending[me]);	/* L2873 */
		REQUIRE(PENDING_UAF, "violated: pending_uaf\n", mp != me && !queued_w[me]);
		if
		:: last_setter == me ->
			REQUIRE(PROMISE_RETURN, "violated: promise_return\n",
				(mask & BIT(cpu)) || mdis || st == SLEEPING);
			REQUIRE(RETURN_IN_SECTION, "violated: return_in_section\n",
				(mask & BIT(cpu)) || (st == SLEEPING && !mdis))
		:: else
		fi;
		waiting[me] = NONE;
		alive[me] = 0
	}
}

#ifndef NOHOTPLUG
/* sched_cpu_deactivate() L9522: set_cpu_active(false); and back again */
proctype Hotplug()
{
end:
	do
	:: atomic { (cpu_act & BIT(HOTCPU)) ->
		cpu_act = cpu_act & ~BIT(HOTCPU);
		printf("CPU%d goes inactive\n", HOTCPU) }
	:: atomic { !(cpu_act & BIT(HOTCPU)) && (cpu_onl & BIT(HOTCPU)) ->
		cpu_act = cpu_act | BIT(HOTCPU);
		printf("CPU%d active again\n", HOTCPU) }
#ifdef OFFLINE
	/*
	 * takedown_cpu(): balance_hotplug_wait() L9359 has waited until no
	 * task is queued or pinned on HOTCPU, and stop_machine() runs only
	 * once every stopper has run the works queued before its own.
	 */
	:: atomic { !(cpu_act & BIT(HOTCPU)) && (cpu_onl & BIT(HOTCPU)) &&
		    !(cpu == HOTCPU && (mdis || st != SLEEPING)) &&
		    empty(sq[0]) && empty(sq[1]) && empty(sq[2]) ->
		cpu_onl = cpu_onl & ~BIT(HOTCPU);
		printf("CPU%d goes offline\n", HOTCPU) }
	:: atomic { !(cpu_onl & BIT(HOTCPU)) ->
		cpu_onl = cpu_onl | BIT(HOTCPU);
		printf("CPU%d online, not active yet\n", HOTCPU) }
#endif
	od
}
#endif

/*
 * A waiter nobody will complete: no stop_work queued for its pending, and
 * the pending is not installed on a migration-disabled, switched-out P
 * (whose migrate_enable() would take it up).
 */
#define STRANDED(i) (i < NCALLER && waiting[i] != NONE && !done[waiting[i]] && \
	!queued_w[waiting[i]] && !(mp == waiting[i] && mdis && ptr != NONE))

/*
 * Invariants, in every state.  PROMISE_RUN: P may run outside cpus_mask
 * after the mask changed only while its pending's stopper work is on the
 * way (stop_pending); migration disabled, it may stay until its outermost
 * migrate_enable().
 */
proctype Monitor()
{
end:
	if
	:: (CHECK & PROMISE_RUN) &&
	   st == RUNNING && !mdis && !(mask & BIT(cpu)) &&
	   !(mp != NONE && stop_pending[mp]) ->
		printf("violated: promise_run\n");
		assert(false)
	:: (CHECK & WAITER_STRANDED) && (STRANDED(0) || STRANDED(1) || STRANDED(2)) ->
		printf("violated: waiter_stranded\n");
		assert(false)
	fi
}

init
{
	atomic {
		pd = 0;
		do
		:: pd < NCALLER -> alive[pd] = 1; waiting[pd] = NONE; pd++
		:: else -> break
		od;
		pd = 0;
		run Task();
		run Stopper(0);
		run Stopper(1);
		run Stopper(2);
#ifdef THREE
		run Caller(2);
#endif
		run Caller(1);
		run Caller(0);	/* the last one runs first in a search */
#ifndef NOHOTPLUG
		run Hotplug();
#endif
		run Monitor()
	}
}
