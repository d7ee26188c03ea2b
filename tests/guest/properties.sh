#!/bin/bash
# The promises of the seed series ("sched: Migrate disable support", v4),
# each checked in the guest against a scenario built with mdload.  The
# patch each property comes from is named in brackets.  Properties the
# event tests already check (tests/guest/events.sh) are not repeated: the
# RT push and its feature switch, RT_PUSH_IPI, MDF_PUSH, the hotplug wait
# and the affinity wait.
. "$(dirname "$0")/../lib.sh"
tap_plan 19

mdload_load || exit 1
log=$(mktemp)

# --- [006, 008] Nesting: only the outermost migrate_disable() and
# migrate_enable() change rq->nr_pinned; the depth is the task's own.
# nr_pinned_floor N [SECTIONS]: the least of N reads of cpu1's nr_pinned.
# On PREEMPT_RT other tasks pin themselves on cpu1 for a moment (their
# spinlocks) and show in a single read (2 where 1 was due, once).  With
# SECTIONS, only the reads made while mdload had that many sections in
# progress on cpu1 from before the read to after it: a read of sched/debug
# takes 70-250 ms on the debug kernel under TCG, and three of them after a
# 1 s section had begun ran past its end in 8 of 12 rounds there.
nr_pinned_floor() {
	local reads=0 sections=${2:-} value
	while [ "$reads" -lt "$1" ]; do
		in_sections "$sections" || break
		value=$(rq_stat 1 nr_pinned)
		in_sections "$sections" || break
		echo "$value"
		reads=$((reads + 1))
	done | sort -n | head -n 1
}
# in_sections [N]: mdload has N sections in progress on cpu1 (true if no N).
in_sections() {
	[ -z "$1" ] || [ "$(cut -d, -f2 /sys/module/mdload/parameters/sections)" = "$1" ]
}
before=$(nr_pinned_floor 5)
trace_begin md_nest sched_pinned_preempt
"$mdsection" -c 1 -d 5 -s 1s >/dev/null &
pinned=$!
wait_pinned 1 1
"$mdsection" -f 80 -c 1 -S 1ms >/dev/null
pinned_during=$(nr_pinned_floor 3 1)
wait "$pinned"
trace_end "$log"
tap_equal "[006] a depth-5 section adds one to nr_pinned" $((before + 1)) "$pinned_during"
tap_equal "[006] and takes it away at its end" "$before" "$(nr_pinned_floor 5)"
tap_equal "[006] preempted inside, the task is at depth 5" 1 \
	"$(trace_count "$log" sched_pinned_preempt "pid=$pinned" depth=5 | awk '{ print ($1 > 0) }')"

# --- [006, 007] A section never changes CPU: 4 threads of 100 sections
# each, while every CPU is busy and their affinity keeps changing; then
# while cpu2 and cpu3 go offline and come back.  (Affinity changes and
# hotplug at once make Debian's 6.1.192 warn in affine_move_task(); our
# patches/6.1/0001 fixes that, tests/guest/affinity-hotplug.sh shows it and
# guest/torture runs them together.)
# sections_under LOAD: run the threads while LOAD runs over their pids.
sections_under() {
	local pids=() t
	for t in 1 2 3 4; do
		"$mdsection" -n 100 -s 2ms -S 1ms >"$log.$t" &
		pids+=($!)
	done
	"$1" "${pids[@]}"
	wait "${pids[@]}"
	cat "$log".? >>"$log.all"
	rm -f "$log".?
}
affinity_storm() {
	local pid
	while any_running "$@"; do
		for pid; do
			taskset -p -c $((RANDOM % 4)) "$pid" >/dev/null 2>&1 &&
				outside_mask "$pid" >>"$log.outside"
		done
	done
}
hotplug_cycles() {
	local cpu
	while any_running "$@"; do
		for cpu in 2 3; do
			echo 0 >/sys/devices/system/cpu/cpu$cpu/online
			echo 1 >/sys/devices/system/cpu/cpu$cpu/online
		done
	done
}
hogs=()
for cpu in 0 1 2 3; do
	taskset -c "$cpu" perl -e '1 while 1' &
	hogs+=($!)
done
rm -f "$log.all" "$log.outside"
touch "$log.outside"
sections_under affinity_storm
sections_under hotplug_cycles
kill "${hogs[@]}"
wait "${hogs[@]}" 2>/dev/null
tap_equal "[006, 007] 800 sections under load, affinity changes, hotplug" 800 "$(grep -c cpu_enter "$log.all")"
tap_equal "[006, 007] none of them changed CPU" 0 \
	"$(awk '{ split($2, a, "="); split($3, b, "="); if (a[2] != b[2]) n++ } END { print n + 0 }' "$log.all")"
tap_equal "[007] once sched_setaffinity() returned, the task ran inside its mask" "" \
	"$(head -n 3 "$log.outside" | tr '\n' ';')"
rm -f "$log.all"

# --- [002, 004] Once cpu3 is going down only per-CPU kthreads, and the task
# pinned there, run on it; then nothing is left on it.
trace_begin md_dying sched_switch cpuhp/cpuhp_enter
offline_cpu3_scenario 500ms >/dev/null
# Sleeping tasks keep their last CPU until they wake elsewhere; a runnable
# one there would be stranded.
left=$(ps -eo stat=,psr=,comm= | awk '$1 ~ /^R/ && $2 == 3 && $3 !~ /\/3$/ && $3 !~ /^kworker\/3:/' | wc -l)
echo 0 >"$trace/tracing_on"
echo 1 >/sys/devices/system/cpu/cpu3/online 2>/dev/null
kill "$spinner"
wait "$spinner" "$pinned" 2>/dev/null
trace_end "$log"
# From the wait on, what cpu3 switched to: idle, per-CPU kthreads, the pinned task.
others=$(awk -v pinned="$pinned" '
	/ cpuhp_enter: cpu: 0003 .*\(sched_cpu_wait_empty\)/ { going = 1 }
	going && /\[003\]/ && / sched_switch: / {
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^next_comm=/) comm = substr($i, 11)
			if ($i ~ /^next_pid=/) pid = substr($i, 10)
		}
		if (pid != pinned && pid != 0 && comm !~ /\/3$/ && comm !~ /^kworker\/3:/) print comm "/" pid
	}' "$log" | sort -u | tr '\n' ' ')
tap_equal "[002] cpu3 going down ran only per-CPU kthreads and the pinned task" "" "$others"
tap_equal "[004] no runnable task but per-CPU kthreads left on cpu3 once it is offline" 0 "$left"

# --- [010] The article's scenario, negative control: a SCHED_OTHER task
# pinned and preempted by a FIFO task is not rescued by a push.
trace_begin md_other sched_pinned_push_queued sched_pinned_preempt sched_switch
start_puller 3
start_held pusher chrt -f 50 taskset -c 1 "${held_spinner[@]}" 0.3
taskset -p -c 0-3 "$pusher_pid" >/dev/null
"$mdsection" -c 1 -s 1s >/dev/null &
pinned=$!
wait_pinned 1 1
taskset -p -c 0-3 "$pinned" >/dev/null
release pusher
release puller
wait "$pusher_pid" "$pinned" "$puller"
trace_end "$log"
tap_equal "[010] a pinned SCHED_OTHER task was preempted by the FIFO task" 1 \
	"$(preempted_by "$log" "$pinned" "$pusher_pid" | awk '{ print ($1 > 0) }')"
tap_equal "[010] and no push was queued for it" 0 \
	"$(trace_count "$log" sched_pinned_push_queued "pinned_pid=$pinned")"

# --- [010] With the push, the pinned FIFO task is stuck far shorter than
# without it, when the FIFO 50 task spins 400 ms.
stuck() {	# stuck FEATURE: ms the pinned task waited for its CPU
	sched_feature "$1"
	trace_begin md_stuck sched_pinned_preempt sched_switch
	push_scenario "${held_spinner[@]}" 0.4 >/dev/null
	trace_end "$log"
	stuck_ms "$log" "$pinned"
}
with=$(stuck PINNED_PUSH)
without=$(stuck NO_PINNED_PUSH)
sched_feature PINNED_PUSH
tap_diag "stuck with the push: ${with} ms, without: ${without} ms"
tap_check "[010] without the push the pinned task waits out the FIFO task (${without} ms)" \
	test "$without" -ge 300
tap_check "[010] with it, it waits less than a quarter of that (${with} ms)" \
	test $((with * 4)) -lt "$without"

# --- [009] Pushes from one CPU spread over the lowest-priority CPUs.
# find_lowest_rq() takes the next CPU of the mask after the one that CPU's
# cpumask_any_and_distribute() chose last; cpumask_any() took the first,
# cpu0, every time.  Only the pushes and the pinned task's migrate_enable()
# may move cpu1's cursor here, so this shell and what it starts change
# affinities from cpu0, and no RT_PUSH_IPI search runs on cpu1; cpu0, cpu2
# and cpu3 run no RT task as the stopper looks.  (Without this care, 6 of 9
# pushes went to one CPU, moved there by the affinity changes around them.)
sched_feature NO_RT_PUSH_IPI
taskset -p -c 0 $$ >/dev/null
trace_begin md_spread sched_pinned_push_queued sched_pinned_push_done
pushers=()
for round in 1 2 3 4 5 6; do
	push_scenario "${held_spinner[@]}" 0.05 >/dev/null
	pushers+=("$pusher")
done
trace_end "$log"
taskset -p -c 0-3 $$ >/dev/null
sched_feature RT_PUSH_IPI
dests=$(grep '\[001\] .* sched_pinned_push_done: .* result=moved ' "$log" | sed 's/.*dest_cpu=//')
moved=$(grep -c . <<<"$dests")
most=$(sort <<<"$dests" | uniq -c | sort -rn | awk 'NR == 1 { print $1 + 0 }')
tap_diag "pushes from cpu1 went to: $(tr '\n' ' ' <<<"$dests")"
tap_diag "queued for cpu1: $(trace_count "$log" sched_pinned_push_queued cpu=1); done on cpu1: $(grep '\[001\] .* sched_pinned_push_done: ' "$log" | grep -o 'result=[a-z_]*' | tr '\n' ' ')"
# Each round's FIFO 50 task leaves cpu1 once, by the push: moved, or gone
# already as the stopper ran ("migrated": on our PREEMPT_RT kernel 0 to 2
# of the 6 rounds in six runs, never elsewhere).
off=0
for pid in "${pushers[@]}"; do
	! grep -q "\[001\] .* sched_pinned_push_done: pid=$pid result=\(moved\|migrated\) " "$log" ||
		off=$((off + 1))
done
tap_equal "[009] each of 6 rounds' pushes ended with the FIFO task off cpu1 (moved, or gone first)" 6 "$off"
# On PREEMPT_RT the premise fails: any task preempted on cpu1 inside a
# spinlock_t's section leaves it through __set_cpus_allowed_ptr(), whose
# cpumask_any_and_distribute() moves cpu1's cursor as well.  There the
# pushes went to cpu2 4 times of 4 in one make check, 3 of 6 in another.
if preempt_rt; then
	tap_skip "[009] the pushes went to more than one CPU" \
		"PREEMPT_RT: kernel sections on cpu1 move its cursor too"
	tap_skip "[009] no CPU took more than two thirds of them" \
		"PREEMPT_RT: kernel sections on cpu1 move its cursor too"
else
	tap_check "[009] the pushes went to more than one CPU ($moved moved it)" \
		test "$(sort -u <<<"$dests" | grep -c .)" -ge 2
	tap_check "[009] no CPU took more than two thirds of them (${most:-0} of $moved)" \
		test $(( ${most:-0} * 3 )) -le $(( moved * 2 ))
fi

# --- [010] SCHED_DEADLINE: a pinned DL task preempted by an earlier-deadline
# DL task is helped by pull_dl_task() the same way.  DL tasks may only be
# pinned to CPUs with DL admission control off.
echo -1 >/proc/sys/kernel/sched_rt_runtime_us
dl() {	# dl RUNTIME_MS PERIOD_MS: chrt arguments for SCHED_DEADLINE
	echo "-d --sched-runtime $(($1 * 1000000)) --sched-deadline $(($2 * 1000000)) --sched-period $(($2 * 1000000))"
}
trace_begin md_dl sched_pinned_push_queued sched_pinned_push_done
chrt $(dl 5 10) 0 taskset -c 2 perl -e 'select(undef, undef, undef, 0.002) for 1 .. 1500' &
puller=$!
wait_on_cpu "$puller" perl 2
start_held pusher chrt $(dl 5 10) 0 taskset -c 1 "${held_spinner[@]}" 0.3
taskset -p -c 0-3 "$pusher_pid" >/dev/null
"$mdsection" -c 1 -s 1s >/dev/null &
pinned=$!
wait_pinned 1 1
taskset -p -c 0-3 "$pinned" >/dev/null
chrt $(dl 150 200) -p 0 "$pinned"
release pusher
wait "$pusher_pid" "$pinned" "$puller"
trace_end "$log"
echo 950000 >/proc/sys/kernel/sched_rt_runtime_us
tap_diag "$(grep -E 'push_(queued|done)' "$log" | head -n 4 | cut -c1-170)"
tap_equal "[010] SCHED_DEADLINE: push_cpu_stop queued by pull_dl_task()" 1 \
	"$(trace_count "$log" sched_pinned_push_queued site=dl_pull "pinned_pid=$pinned" | awk '{ print ($1 > 0) }')"

# --- [005] Offlining a CPU while CFS bandwidth throttles a group there
# completes, and the group's task keeps running afterwards.
group=/sys/fs/cgroup/mdthrottle
echo +cpu >/sys/fs/cgroup/cgroup.subtree_control
mkdir -p "$group"
echo "10000 100000" >"$group/cpu.max"
taskset -c 2 perl -e '1 while 1' &
hog=$!
echo "$hog" >"$group/cgroup.procs"
sleep 0.5
throttled=$(awk '$1 == "nr_throttled" { print $2 }' "$group/cpu.stat")
timeout 30 sh -c 'echo 0 >/sys/devices/system/cpu/cpu2/online'
offline_status=$?
echo 1 >/sys/devices/system/cpu/cpu2/online
usage=$(awk '$1 == "usage_usec" { print $2 }' "$group/cpu.stat")
sleep 0.5
tap_check "[005] the group was being throttled ($throttled times)" test "${throttled:-0}" -gt 0
tap_equal "[005] cpu2 went offline under throttling" 0 "$offline_status"
tap_check "[005] the throttled task still runs after" \
	test "$(awk '$1 == "usage_usec" { print $2 }' "$group/cpu.stat")" -gt "$usage"
kill "$hog"
wait "$hog" 2>/dev/null
rmdir "$group"

rm -f "$log"
