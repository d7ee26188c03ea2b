#!/bin/bash
# Lock-induced pinning on PREEMPT_RT, where a spinlock_t is a sleeping lock
# taken with migrate_disable(): a task that holds one is pinned for as long
# as it does, with no migrate_disable() of its own (mdload's --lock at
# depth 0).  mdstat names it, with a stack through the lock: in top, where
# it was preempted holding it; in hotplug, where it took it.  Needs the
# series' events and PREEMPT_RT (elsewhere a spinlock_t disables
# preemption, and pins nothing).
. "$(dirname "$0")/../lib.sh"
tap_plan 7
mdstat=$top/build/mdstat
work=$(mktemp -d)

if ! preempt_rt || [ ! -d /sys/kernel/tracing/events/sched/sched_pinned_preempt ]; then
	for _ in $(seq 7); do
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
waits=$(jq -s "map(select(.type == \"top\") | .waiters[] | select(.pid == $holder) | .waits) | add // 0" "$work/top")
tap_check "top: it waited for its CPU as often or more ($waits)" test "$waits" -ge "$traced"
tap_equal "top: at depth 1, 'other' policy" "other 1" \
	"$(jq -r "select(.type == \"top\") | .waiters[] | select(.pid == $holder) | \"\(.policy) \(.depth)\"" "$work/top" | head -n 1)"
stack=$(jq -r "select(.type == \"top\") | .waiters[] | select(.pid == $holder) | .stack[]" "$work/top" | head -n 12)
tap_diag "$stack"
tap_check "top: its stack is where it held the lock (mdload_ioctl)" \
	grep -q '^mdload_ioctl+' <<<"$stack"

# --- hotplug: the holder spins 800 ms under the lock on cpu3 as cpu3 goes
# offline; the offline waits for the lock's section.
offlining() {
	"$mdsection" -c 3 -d 0 -l -s 800ms >/dev/null &
	echo $! >"$work/holder"
	wait_pinned 3 1
	taskset -p -c 0-3 "$(cat "$work/holder")" >/dev/null
	echo 0 >/sys/devices/system/cpu/cpu3/online
	wait
	echo 1 >/sys/devices/system/cpu/cpu3/online
}
export -f offlining
"$mdstat" hotplug -j -- bash -c '. "$0"/tests/lib.sh; offlining' "$top" >"$work/hotplug" 2>"$work/err"
holder=$(cat "$work/holder")
report=$(jq -c 'select(.type == "offline" and .cpu == 3)' "$work/hotplug")
tap_diag "$(jq -c '.culprits[0]' <<<"$report")"
tap_equal "hotplug: the lock holder is the first culprit" "$holder" "$(jq '.culprits[0].pid' <<<"$report")"
stack=$(jq -r '.culprits[0].stack[]' <<<"$report")
tap_check "hotplug: its stack goes through the lock (rt_spin_lock)" grep -q '^rt_spin_lock+' <<<"$stack"
tap_check "hotplug: taken in mdload_ioctl" grep -q '^mdload_ioctl+' <<<"$stack"
rm -rf "$work"
