#!/bin/bash
# bpftrace in the guest counts sched:sched_switch events per CPU.  On each
# CPU a task sleeps exactly N times; each sleep switches it out once in
# TASK_INTERRUPTIBLE, so bpftrace must count N such switches per CPU.
. "$(dirname "$0")/../lib.sh"
tap_plan 5

sleeps=40
out=$(mktemp)
bpftrace -e '
tracepoint:sched:sched_switch
/args->prev_comm == "mdsleeper" && args->prev_state == 1/
{
	@switches[cpu] = count();
}' >"$out" 2>&1 &
tracer=$!
# bpftrace prints "Attaching" once its probes are in place.
for _ in $(seq 600); do
	grep -q Attaching "$out" && break
	sleep 0.1
done

for cpu in 0 1 2 3; do
	taskset -c "$cpu" perl -e '$0 = "mdsleeper"; select(undef, undef, undef, 0.005) for 1..'$sleeps &
done
wait $(jobs -p | grep -vx "$tracer")
kill -INT "$tracer"
wait "$tracer"

tap_diag "$(tr '\n' ' ' <"$out")"
for cpu in 0 1 2 3; do
	got=$(sed -n "s/^@switches\[$cpu\]: //p" "$out")
	tap_equal "bpftrace counts $sleeps sleeps of the task on cpu$cpu" "$sleeps" "$got"
done
grep -q Attaching "$out" && tap_ok "bpftrace attached" || tap_fail "bpftrace attached"
rm -f "$out"
