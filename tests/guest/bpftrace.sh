#!/bin/bash
# bpftrace in the guest counts sched:sched_switch events per CPU.  On each
# CPU a task sleeps 40 times; a tracefs instance records the same switches
# meanwhile, and bpftrace must count, per CPU, the switches out of the task
# asleep (TASK_INTERRUPTIBLE) that tracefs shows.  (Not exactly 40: a timer
# that fires before its task reached schedule() makes no switch.)
. "$(dirname "$0")/../lib.sh"
tap_plan 9

sleeps=40
out=$(mktemp)
bpftrace -e '
tracepoint:sched:sched_switch
/args->prev_comm == "mdsleeper" && args->prev_state == 1/
{
	@switches[cpu] = count();
}' >"$out" 2>&1 &
tracer=$!
tap_check "bpftrace attached its probes" bpftrace_attached "$tracer"
trace_begin md_bpftrace sched_switch

sleepers=()
for cpu in 0 1 2 3; do
	taskset -c "$cpu" perl -e '$0 = "mdsleeper"; select(undef, undef, undef, 0.005) for 1..'$sleeps &
	sleepers+=($!)
done
wait "${sleepers[@]}"
trace_end "$out.trace"
bpftrace_stop "$tracer"

tap_diag "$(tr '\n' ' ' <"$out")"
for cpu in 0 1 2 3; do
	want=$(grep -F " [00$cpu] " "$out.trace" |
		trace_count /dev/stdin sched_switch prev_comm=mdsleeper prev_state=S)
	got=$(sed -n "s/^@switches\[$cpu\]: //p" "$out")
	tap_equal "bpftrace counts the task's sleeps on cpu$cpu as tracefs ($want)" "$want" "$got"
	tap_check "most of its $sleeps sleeps switched out on cpu$cpu" \
		test "$want" -gt $((sleeps / 2)) -a "$want" -le "$sleeps"
done
rm -f "$out" "$out.trace"
