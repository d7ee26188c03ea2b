#!/bin/bash
# The series' trace events and counters, each checked against a scenario
# that mdload makes: who was pinned, where, and what the kernel did about it.
. "$(dirname "$0")/../lib.sh"
tap_plan 34

mdload_load || exit 1
log=$(mktemp)

# field FILE EVENT FIELD [FIELD=VALUE...]: FIELD of the first matching event.
field() {
	local file=$1 event=$2 name=$3
	shift 3
	grep " $event: " "$file" | grep -F -- "${*:- }" | head -n 1 |
		tr ' ' '\n' | sed -n "s/^$name=//p"
}

# --- Stacking: a SCHED_OTHER task spins in a depth-3 section on cpu1 while a
# SCHED_FIFO task on cpu1 wakes ten times; every wakeup preempts it there.
trace_begin md_stack sched_pinned_preempt sched_switch
before=$(rq_stat 1 md_stats.pinned_preempt)
"$mdsection" -c 1 -d 3 -s 1s >/dev/null &
pinned=$!
wait_pinned 1 1
"$mdsection" -f 80 -c 1 -n 10 -s 1ms -S 10ms >/dev/null &
preempter=$!
wait "$preempter"
wait "$pinned"
echo 0 >"$trace/tracing_on"
after=$(rq_stat 1 md_stats.pinned_preempt)
trace_end "$log"

events=$(trace_count "$log" sched_pinned_preempt "pid=$pinned" "next_pid=$preempter")
switches=$(( $(trace_count "$log" sched_switch "prev_pid=$pinned" prev_state=R+ "next_pid=$preempter") +
	$(trace_count "$log" sched_switch "prev_pid=$pinned" prev_state=R "next_pid=$preempter") ))
tap_check "the FIFO task preempted the pinned one at least 10 times ($events)" test "$events" -ge 10
tap_equal "one sched_pinned_preempt per preempting sched_switch" "$switches" "$events"
tap_equal "every event has depth=3 cpu=1 prio=120 next_prio=19" "$events" \
	"$(trace_count "$log" sched_pinned_preempt "pid=$pinned" depth=3 cpu=1 prio=120 next_prio=19)"
# Both tasks are in sections on cpu1: nr_pinned is 1 or 2, never 0.
tap_equal "nr_pinned is counted in the event" "$events" \
	"$(( $(trace_count "$log" sched_pinned_preempt "pid=$pinned" "next_pid=$preempter" nr_pinned=1) +
	    $(trace_count "$log" sched_pinned_preempt "pid=$pinned" "next_pid=$preempter" nr_pinned=2) ))"
tap_equal "md_stats.pinned_preempt of cpu1 moved by the events on cpu1" \
	"$(trace_count "$log" sched_pinned_preempt cpu=1)" $((after - before))

# --- The article's scenario: a FIFO 10 task pinned in a section on cpu1 is
# preempted by a FIFO 50 task that could run elsewhere; when another CPU
# looks for RT work to pull, push_cpu_stop moves the FIFO 50 task away.
push_counts() {
	echo "$(rq_stat 1 md_stats.push_queued) $(rq_stat 1 'md_stats.push_result[SCHED_PUSH_MOVED]')"
}

sched_feature NO_RT_PUSH_IPI
for site in rt_pull rt_push_ipi; do
	[ "$site" = rt_push_ipi ] && sched_feature RT_PUSH_IPI
	read -r queued moved < <(push_counts)
	trace_begin md_push sched_pinned_preempt sched_push_queued sched_push_done
	push_scenario "${held_spinner[@]}" 0.4 >/dev/null
	echo 0 >"$trace/tracing_on"
	read -r queued_after moved_after < <(push_counts)
	trace_end "$log"
	tap_equal "$site: the pinned task was preempted by the FIFO 50 task" 1 \
		"$(trace_count "$log" sched_pinned_preempt "pid=$pinned" "next_pid=$pusher" cpu=1 prio=89 | awk '{ print ($1 > 0) }')"
	tap_equal "$site: push_cpu_stop queued for it on cpu1" 1 \
		"$(trace_count "$log" sched_push_queued "pid=$pusher" "pinned_pid=$pinned" cpu=1 "site=$site" prio=49 pinned_prio=89)"
	# A push may find no lower CPU as the stopper runs (another pull got
	# there first); the next pull queues another.
	results=$(grep " sched_push_done: .*pid=$pusher " "$log" | grep -o 'result=[a-z_]*' | tr '\n' ' ')
	dest=$(field "$log" sched_push_done dest_cpu "pid=$pusher prio=49 cpu=1 result=moved ")
	tap_check "$site: push_cpu_stop moved it off cpu1 (${results:-no push done})" \
		grep -q "result=moved" <<<"$results"
	tap_check "$site: to another CPU ($dest)" test -n "$dest" -a "$dest" != 1 -a "$dest" != -1
	tap_equal "$site: md_stats counted the push queued and moved on cpu1" \
		"$(trace_count "$log" sched_push_queued cpu=1) $(trace_count "$log" sched_push_done cpu=1 result=moved)" \
		"$((queued_after - queued)) $((moved_after - moved))"
done
sched_feature NO_RT_PUSH_IPI

# --- The same with MIGRATE_DISABLE_PUSH off: nothing is pushed, and the
# pinned task waits until the FIFO 50 task is done.
sched_feature NO_MIGRATE_DISABLE_PUSH
trace_begin md_nopush sched_push_queued
push_scenario "${held_spinner[@]}" 0.4 >/dev/null
trace_end "$log"
sched_feature MIGRATE_DISABLE_PUSH
tap_equal "MIGRATE_DISABLE_PUSH off: no push_cpu_stop queued" 0 \
	"$(trace_count "$log" sched_push_queued "pid=$pusher")"

# --- MDF_PUSH: the task to push away is itself in a section when
# push_cpu_stop runs; the push is deferred to its migrate_enable().  The
# balancers only queue a push for a task that is not pinned, so the pusher
# enters each section from 10 ms with preemption off: a push queued then
# runs once it is pinned.  The pulls start once it is in that loop, 0.1 s
# in; its 60 sections last 0.66 s, long enough for a late start (with 20,
# a make check once saw no push at all).
trace_begin md_defer sched_push_queued sched_push_done
pull_after=0.1 push_scenario "$mdsection" -w -n 60 -P 10ms -s 1ms >/dev/null
trace_end "$log"
tap_diag "pushes of the FIFO 50 task: $(grep " sched_push_\(queued\|done\): .*pid=$pusher " "$log" |
	grep -o 'site=[a-z_]*\|result=[a-z_]*' | tr '\n' ' ')"
tap_equal "MDF_PUSH: the first push found the task pinned and deferred" "result=deferred" \
	"$(grep " sched_push_done: .*pid=$pusher " "$log" | grep -o 'result=[a-z_]*' | head -n 1)"
tap_equal "MDF_PUSH: migrate_enable() queued the push again" 1 \
	"$(trace_count "$log" sched_push_queued "pid=$pusher" site=migrate_enable pinned_pid=-1 | awk '{ print ($1 > 0) }')"
tap_equal "MDF_PUSH: and then it moved" "result=moved" \
	"$(grep " sched_push_done: .*pid=$pusher " "$log" | grep -o 'result=[a-z_]*' | sed -n 2p)"

# --- Hotplug: cpu3 goes offline while a task sleeps 600 ms in a section
# there and another spins there unpinned; the hotplug thread waits for the
# first, balance_push() kicks the second off.
before_waits=$(rq_stat 3 md_stats.hotplug_wait)
before_ns=$(rq_stat 3 md_stats.hotplug_wait_ns)
before_kicks=$(rq_stat 3 md_stats.balance_push)
trace_begin md_hotplug sched_hotplug_wait_begin sched_hotplug_wait_end sched_balance_push
offline_cpu3_scenario 600ms >"$log.pinned"
wait "$pinned"
echo 0 >"$trace/tracing_on"
echo 1 >/sys/devices/system/cpu/cpu3/online
kill "$spinner"
wait "$spinner" 2>/dev/null
# The debugfs file lists online CPUs only; the counters survive offline.
after_waits=$(rq_stat 3 md_stats.hotplug_wait)
after_ns=$(rq_stat 3 md_stats.hotplug_wait_ns)
after_kicks=$(rq_stat 3 md_stats.balance_push)
trace_end "$log"
wait_ns=$(field "$log" sched_hotplug_wait_end wait_ns cpu=3)
tap_diag "$(grep -E 'hotplug_wait|pid=('"$pinned|$spinner"') ' "$log" | cut -c1-160)"
tap_equal "hotplug wait began on cpu3 with the task pinned there" 1 \
	"$(trace_count "$log" sched_hotplug_wait_begin cpu=3 nr_pinned=1)"
# It began once the section ran, and ends with it: more than nothing, not
# more than the 600 ms section and a margin.
tap_check "hotplug wait lasted as long as the rest of the section (${wait_ns}ns)" \
	test "${wait_ns:-0}" -ge 100000000 -a "${wait_ns:-0}" -le 700000000
tap_equal "balance_push left the pinned task running on cpu3" 1 \
	"$(trace_count "$log" sched_balance_push "pid=$pinned" cpu=3 pinned=1 | awk '{ print ($1 > 0) }')"
tap_equal "balance_push pushed the unpinned spinner off cpu3" 1 \
	"$(trace_count "$log" sched_balance_push "pid=$spinner" cpu=3 pinned=0)"
tap_equal "md_stats.hotplug_wait of cpu3 moved by one" 1 $((after_waits - before_waits))
tap_equal "md_stats.hotplug_wait_ns of cpu3 moved by the wait" "$wait_ns" $((after_ns - before_ns))
tap_check "md_stats.hotplug_wait_max_ns of cpu3 covers it" \
	test "$(rq_stat 3 md_stats.hotplug_wait_max_ns)" -ge "${wait_ns:-1}"
tap_equal "md_stats.balance_push of cpu3 moved by the kicks traced" \
	"$(trace_count "$log" sched_balance_push cpu=3 pinned=0)" $((after_kicks - before_kicks))
tap_equal "the section stayed on cpu3" "cpu_enter=3 cpu_exit=3" \
	"$(grep -o 'cpu_enter=[0-9]* cpu_exit=[0-9]*' "$log.pinned")"

# --- Affinity: sched_setaffinity() away from cpu1 while a task sleeps
# 600 ms in a section there blocks until the section ends; the task's next
# section runs in the new mask.
before=$(rq_stat 1 md_stats.affinity_wait)
trace_begin md_affinity sched_affinity_wait_begin sched_affinity_wait_end
"$mdsection" -c 1 -n 2 -S 600ms >"$log.pinned" &
pinned=$!
wait_pinned 1 1
start=$(date +%s%N)
taskset -p -c 2 "$pinned" >/dev/null
blocked=$(( $(date +%s%N) - start ))
wait "$pinned"
echo 0 >"$trace/tracing_on"
after=$(rq_stat 1 md_stats.affinity_wait)
trace_end "$log"
wait_ns=$(field "$log" sched_affinity_wait_end wait_ns "pid=$pinned")
tap_diag "$(grep affinity_wait "$log" | cut -c1-160)"
tap_equal "affinity wait began for the pinned task on cpu1, caller taskset" 1 \
	"$(trace_count "$log" sched_affinity_wait_begin "pid=$pinned" cpu=1 caller_comm=taskset)"
tap_check "affinity wait lasted as long as the rest of the section (${wait_ns}ns)" \
	test "${wait_ns:-0}" -ge 100000000 -a "${wait_ns:-0}" -le 700000000
tap_check "taskset was blocked as long as the event says (${blocked}ns)" \
	test "$blocked" -ge "${wait_ns:-0}"
tap_equal "md_stats.affinity_wait of cpu1 moved by one" 1 $((after - before))
tap_equal "the section stayed on cpu1" "cpu_enter=1 cpu_exit=1" \
	"$(grep -o 'cpu_enter=[0-9]* cpu_exit=[0-9]*' "$log.pinned" | head -n 1)"
tap_equal "the next section ran in the new mask, on cpu2" "cpu_enter=2 cpu_exit=2" \
	"$(grep -o 'cpu_enter=[0-9]* cpu_exit=[0-9]*' "$log.pinned" | sed -n 2p)"

rm -f "$log" "$log.pinned"
