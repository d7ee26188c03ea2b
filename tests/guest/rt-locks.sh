#!/bin/bash
# Lock-induced pinning on PREEMPT_RT, where a spinlock_t is a sleeping lock
# taken with migrate_disable(): a task that holds one is pinned for as long
# as it does, with no migrate_disable() of its own (mdload's --lock at
# depth 0).  mdstat top names it, with the stack where it was preempted
# holding the lock.  Needs the series' events and PREEMPT_RT (elsewhere a
# spinlock_t disables preemption, and pins nothing).  Not here: a CPU
# offline asked while a task holds a spinlock_t there starts only once the
# lock is released (docs/mechanism.md), so mdstat hotplug sees no wait.
. "$(dirname "$0")/../lib.sh"
tap_plan 4
mdstat=$top/build/mdstat
work=$(mktemp -d)

if ! preempt_rt || [ ! -d /sys/kernel/tracing/events/sched/sched_pinned_preempt ]; then
	for _ in $(seq 4); do
		tap_skip "lock-induced pinning" "needs PREEMPT_RT and the series"
	done
	exit 0
fi
mdload_load || exit 1

# --- top: the holder spins 400 ms under the lock on cpu1 while a FIFO 80
# task wakes there 8 times, spinning 2 ms each: each wakeup preempts it.
holding() {
	trace_begin md_lock sched_pinned_preempt
	"$mdsection" -c 1 -d 0 -l -s 400ms >/dev/null &
	echo $! >"$work/holder"
	wait_pinned 1 1
	"$mdsection" -f 80 -c 1 -n 8 -s 2ms -S 20ms >/dev/null
	wait
	trace_end "$work/preempts"
}
export -f holding
export work
"$mdstat" top -j -b -i 0.1 -C 1 -- bash -c '. "$0"/tests/lib.sh; holding' "$top" >"$work/top" 2>"$work/err"
holder=$(cat "$work/holder")
traced=$(trace_count "$work/preempts" sched_pinned_preempt "pid=$holder" depth=1)
tap_check "the kernel saw the lock holder preempted, pinned by the lock alone (depth 1): $traced times" \
	test "$traced" -ge 8
# Each wait lasts the FIFO task's 2 ms spin at least.  (top lists the
# longest waiters of each interval: on RT others may push it off the list
# in an interval, so its waits are not counted here.)
longest=$(jq -s "map(select(.type == \"top\") | .waiters[] | select(.pid == $holder) | .max_ns) | max // 0" "$work/top")
tap_check "top: its longest wait for its CPU is the FIFO task's 2 ms spin or more ($longest ns)" \
	test "$longest" -ge 2000000
# A waiter's stack and depth are its last preemption's in the interval:
# that may be in kernel locks of its own (a 9p open, once in make check;
# depth 4 and no stack in the first interval, once), so some interval must
# show it preempted holding mdload's lock, at the lock's depth, 1.
stacks=$(jq -c "select(.type == \"top\") | .waiters[] | select(.pid == $holder) | [.policy, .depth, .stack]" "$work/top")
tap_diag "$stacks"
tap_check "top: an interval's stack of it is where it held the lock (mdload_ioctl)" \
	grep -q '"mdload_ioctl+' <<<"$stacks"
tap_equal "top: there, at depth 1, 'other' policy" "other 1" \
	"$(jq -r "select(.type == \"top\") | .waiters[] | select(.pid == $holder) |
		select(any(.stack[]; startswith(\"mdload_ioctl+\"))) | \"\(.policy) \(.depth)\"" \
		"$work/top" | head -n 1)"

rm -rf "$work"
