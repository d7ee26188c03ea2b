#!/bin/bash
# Every one-liner of docs/one-liners.md, taken from the page as it stands
# and run with Debian's bpftrace against a scenario that makes it print
# something; what it prints is checked against what the scenario did,
# mostly the same events recorded at the same time in a tracefs instance.
# On a kernel without the series only the one-liners marked *stock* run.
. "$(dirname "$0")/../lib.sh"
. "$top/guest/trace-text.sh"
tap_plan 23

doc=$top/docs/one-liners.md
work=$(mktemp -d)
mdload_load || exit 1
patched=
[ -d /sys/kernel/tracing/events/sched/sched_pinned_preempt ] && patched=1
# The series' counters are schedstats, which count only while these are on.
schedstats=$(cat /proc/sys/kernel/sched_schedstats)
[ -z "$patched" ] || echo 1 >/proc/sys/kernel/sched_schedstats

# one_liner N: the command of one-liner N, as the page has it.
one_liner() {
	awk -v n="$1." '/^### / { this = ($2 == n) } this && /^bpftrace -e / { print; exit }' "$doc"
}

# stock_one N: whether one-liner N is marked to work without the series.
stock_one() {
	grep -q "^### $1\. .*(\*stock\*)" "$doc"
}

# start N...: start those one-liners that this kernel can run, each in the
# background with its output in $work/N; wait until all are attached.
# $ran lists the ones started.
start() {
	local n cmd pid
	ran=()
	for n; do
		[ -n "$patched" ] || stock_one "$n" || continue
		cmd=$(one_liner "$n")
		[ -n "$cmd" ] || { tap_fail "one-liner $n is on the page"; continue; }
		(eval "exec $cmd") >"$work/$n" 2>&1 &
		declare -g "tracer_$n=$!"
		ran+=("$n")
	done
	for n in "${ran[@]}"; do
		pid=tracer_$n
		bpftrace_attached "${!pid}"
	done
}

# stop: end the one-liners started (they print their maps).
stop() {
	local n pid
	for n in "${ran[@]}"; do
		pid=tracer_$n
		bpftrace_stop "${!pid}"
		tap_diag "one-liner $n: $(grep -v '^$' "$work/$n" | head -n 12 | cut -c1-120)"
	done
}

# runs N: whether one-liner N was started.
runs() {
	[[ " ${ran[*]} " == *" $1 "* ]]
}

# map_value N KEY: the value of "KEY: value" in one-liner N's output
# (nothing for one that did not run).
map_value() {
	[ -f "$work/$1" ] || return 0
	awk -v key="$2: " 'index($0, key) == 1 { print substr($0, length(key) + 1); exit }' "$work/$1"
}

# hist_count N MAP [BUCKET]: the samples of histogram MAP ("@stuck_us",
# "@wait_ms[3]") in one-liner N's output, or of its bucket BUCKET ("[2, 3)").
hist_count() {
	[ -f "$work/$1" ] || { echo 0; return; }
	awk -v map="$2:" -v bucket="${3:-}" '
		$0 == map || index($0, map " ") == 1 { in_map = 1; next }
		in_map && !/^\[/ { in_map = 0 }
		in_map && (bucket == "" || index($0, bucket) == 1) {
			for (i = 2; i <= NF; i++) if ($i ~ /^\|/) n += $(i - 1)
		}
		END { print n + 0 }' "$work/$1"
}

# check N NAME COMMAND...: a result for one-liner N, skipped where it did not run.
check() {
	local n=$1 name="one-liner $1: $2"
	shift 2
	if runs "$n"; then
		tap_check "$name" "$@"
	else
		tap_skip "$name" "needs the mdstat series"
	fi
}

# equal N NAME WANT GOT: the same, for two values.
equal() {
	if runs "$1"; then
		tap_equal "one-liner $1: $2" "$3" "$4"
	else
		tap_skip "one-liner $1: $2" "needs the mdstat series"
	fi
}

# --- Stacking: a depth-2 section spins 400 ms on cpu1 while a FIFO 80 task
# wakes there 5 times.
start 1 2 3 4 5 6 7
trace_begin md_one_stack sched_switch ${patched:+sched_pinned_preempt}
# The FIFO task is set up first and let go once the section runs.
start_held preempter "$mdsection" -w -f 80 -c 1 -n 5 -s 2ms -S 20ms
preempter=$preempter_pid
"$mdsection" -c 1 -d 2 -s 400ms >/dev/null &
pinned=$!
wait_pinned 1 1
release preempter
wait "$preempter" "$pinned"
sleep 0.3	# a 99 Hz sample on every CPU after the last preemption
trace_end "$work/trace"
stop
[ -z "$patched" ] || md_preempt=$(rq_stat 1 md_stats.pinned_preempt)
preempted=$(trace_count "$work/trace" sched_pinned_preempt "pid=$pinned")

equal 1 "stacked count of the pinned task on cpu1 is tracefs's ($preempted)" \
	"$preempted" "$(map_value 1 "@stacked[mdsection, $pinned, 1]")"
# Most of the FIFO task's 5 wakeups preempt it; one may find it already
# switched out.
by_fifo=$(trace_count "$work/trace" sched_switch "prev_pid=$pinned" "next_pid=$preempter")
check 1 "the FIFO task preempted it 3 times or more, as sched_switch has it ($by_fifo)" \
	test "$by_fifo" -ge 3
equal 2 "preemptions by the FIFO 80 task (prio 19) are tracefs's" \
	"$(followed_by "$work/trace" mdsection 19)" "$(map_value 2 "@preempted_by[mdsection, 19]")"
equal 3 "one stuck time per sched_pinned_preempt" \
	"$(trace_count "$work/trace" sched_pinned_preempt)" "$(hist_count 3 @stuck_us)"
check 4 "the longest wait is keyed by a stack inside mdload" grep -q 'mdload' "$work/4"
check 4 "and is over 0 us" test "$(sed -n 's/^\]: \([0-9]*\)$/\1/p' "$work/4" | sort -n | tail -n 1)" -gt 0
# Without the series the ground truth is looser: at least the FIFO task's
# preemptions, at most every preemption of a task named mdsection (some may
# come before its section, and the FIFO task is one too: on Debian's RT
# kernel 68 against the pinned task's 64 once).
depth=$(hist_count 5 '@depth[mdsection]')
switched=$(trace_count "$work/trace" sched_switch prev_comm=mdsection prev_state=R+)
if [ -n "$patched" ]; then
	equal 5 "one depth per sched_pinned_preempt of the task ($preempted)" "$preempted" "$depth"
else
	check 5 "between the FIFO task's $by_fifo and the $switched preemptions of mdsection tasks ($depth)" \
		test "$depth" -ge "$by_fifo" -a "$depth" -le "$switched"
fi
# On PREEMPT_RT mdsection is also pinned in the kernel's own sections
# (sleeping locks): at depth 1 outside its section, or nested in it (one
# of 47 at depth 3 once, on Debian's RT kernel).  Those at depth 2 are its
# section's, the FIFO task's preemptions at least.
at2=$(hist_count 5 '@depth[mdsection]' '[2, 3)')
if preempt_rt; then
	check 5 "PREEMPT_RT: the FIFO task's $by_fifo or more at depth 2 ($at2 of $depth)" \
		test "$at2" -ge "$by_fifo" -a "$at2" -le "$depth"
else
	equal 5 "all of them at depth 2" "$depth" "$at2"
fi
check 6 "cpu1 was sampled with a task pinned ($(hist_count 6 '@nr_pinned[1]' '[1, 2)') samples)" \
	test "$(hist_count 6 '@nr_pinned[1]' '[1, 2)')" -ge 5
# On PREEMPT_RT any task on cpu1 holding a spinlock_t adds one (Debian's
# RT kernel: 3 in 1 sample of 507).
if preempt_rt; then
	tap_skip "one-liner 6: cpu1 had at most 2 pinned (the two sections)" \
		"PREEMPT_RT: the kernel's own locks pin tasks on cpu1 too"
else
	equal 6 "cpu1 had at most 2 pinned (the two sections)" \
		"$(hist_count 6 '@nr_pinned[1]')" \
		"$(( $(hist_count 6 '@nr_pinned[1]' '[0, 1)') + $(hist_count 6 '@nr_pinned[1]' '[1, 2)') +
		     $(hist_count 6 '@nr_pinned[1]' '[2, 3)') ))"
fi
equal 7 "cpu1's md_stats.pinned_preempt is sched/debug's" \
	"${md_preempt:-}" "$(map_value 7 '@pinned_preempt[1]')"

# --- The article's scenario: a pinned FIFO 10 task preempted on cpu1 by a
# FIFO 50 task that spins 200 ms, pushed away when cpu2 pulls.
start 8 9 10
trace_begin md_one_push ${patched:+sched_pinned_push_queued sched_pinned_push_done}
sched_feature NO_RT_PUSH_IPI
push_scenario "${held_spinner[@]}" 0.2 >/dev/null
trace_end "$work/trace"
stop
# The first push done on cpu1 (the stopper's CPU, which records it): moved,
# or (once in a make check) no lower CPU found as the stopper ran.
on_cpu 1 "$work/trace" >"$work/cpu1"
first=$(grep " sched_pinned_push_done: " "$work/cpu1" | head -n 1)
result=$(grep -o 'result=[a-z_]*' <<<"$first" | cut -d= -f2)
dest=$(grep -o 'dest_cpu=-\?[0-9]*' <<<"$first" | cut -d= -f2)
equal 8 "rt_pull pushes counted as tracefs did" \
	"$(trace_count "$work/trace" sched_pinned_push_queued site=rt_pull)" "$(map_value 8 '@queued[rt_pull]')"
check 8 "the scenario made one" test -n "$(map_value 8 '@queued[rt_pull]')"
equal 9 "pushes from cpu1 that ended ${result:-?} to cpu${dest:-?}, as tracefs" \
	"$(trace_count "$work/cpu1" sched_pinned_push_done "result=${result:-x}" "dest_cpu=${dest:-x}")" \
	"$(map_value 9 "@done[1, ${result:-x}, ${dest:-x}]")"
equal 10 "one latency per push done on cpu1" \
	"$(trace_count "$work/cpu1" sched_pinned_push_done)" "$(hist_count 10 '@push_us[1]')"

# --- cpu3 goes offline while a task sleeps 800 ms in a section there and
# another spins there unpinned: the offline waits for the section.  tracefs
# has the wait as the sched:waitempty step between cpuhp_enter and
# cpuhp_exit, the tasks pushed off as sched_migrate_task by migration/3.
start 11 12 13 14 15
trace_begin md_one_hotplug cpuhp/cpuhp_enter cpuhp/cpuhp_exit sched_switch sched_wakeup \
	sched_wakeup_new sched_migrate_task ${patched:+sched_hotplug_pinned}
offline_cpu3_scenario 800ms >/dev/null
echo 1 >/sys/devices/system/cpu/cpu3/online
kill "$spinner"
wait "$pinned" "$spinner" 2>/dev/null
trace_end "$work/trace"
stop
waitempty_bounds 3 <"$work/trace" >"$work/wait"
read -r wait_begin wait_slept wait_woke wait_end _ <"$work/wait"
equal 11 "one hotplug wait of cpu3, in tracefs and the histogram" \
	"1 1" "$(wc -l <"$work/wait") $(hist_count 11 '@wait_ms[3]')"
# The one-liner's probes of sched_cpu_wait_empty() read the clock inside
# the step, before the hotplug thread first slept and after it last woke
# (waitempty_bounds): its wait is at most the step's and at least the
# sleep's.  A host pause between a tracepoint and a probe shortens it by
# up to a few ms (0.6 to 6.1 ms in 78 CI runs of mdstat.sh), enough to
# cross into the bucket below (a fresh clone at 49cbab2: tracefs 512 ms or
# more, the one-liner under).  bpftrace's label of the power-of-2 bucket
# of a wait in ms: "[0]", "[1]", "[2, 4)", ..., "[512, 1K)", "[1K, 2K)";
# only its start is compared.
IFS=$'\t' read -r bucket_low bucket_high < <(awk -v b="${wait_begin:-0}" -v s="${wait_slept:-0}" \
	-v w="${wait_woke:-0}" -v e="${wait_end:-0}" '
	function bucket(sec,   d, lo) {
		d = int(sec * 1000)
		if (d < 2) return sprintf("[%d]", d)
		for (lo = 2; lo * 2 <= d; lo *= 2);
		return sprintf("[%s, ", lo < 1024 ? lo : lo / 1024 "K")
	}
	BEGIN { printf "%s\t%s\n", bucket(w - s), bucket(e - b) }')
in_bucket=$(hist_count 11 '@wait_ms[3]' "$bucket_low")
[ "$bucket_high" = "$bucket_low" ] ||
	in_bucket=$((in_bucket + $(hist_count 11 '@wait_ms[3]' "$bucket_high")))
equal 11 "in the bucket of tracefs's wait, or of its sleep (${bucket_high:-none} ${bucket_low:-none})" 1 "$in_bucket"
# What cpu3 ran or had queued as its hotplug thread entered the step, and
# the one section the scenario waited for before the offline (800 ms: it
# lasts into the wait, as sched_hotplug_pinned shows on our kernel).
running=$(runnable_at_wait 3 <"$work/trace")
equal 12 "the wait's start: ${running:-?} runnable as tracefs has it, the 1 section pinned" \
	1 "$(map_value 12 "@waits[3, ${running:-x}, 1]")"
held=$(on_cpu 3 "$work/trace" | grep -o "sched_hotplug_pinned: comm=mdsection pid=$pinned pinned_left=[0-9]*" |
	sed 's/.*pinned_left=//')
equal 13 "the section held the offline, as tracefs has it (pinned_left=${held:-none})" \
	"$(on_cpu 3 "$work/trace" | trace_count /dev/stdin sched_hotplug_pinned "pid=$pinned")" \
	"$(map_value 13 "@held[3, mdsection, $pinned, ${held:-x}]")"
# The balancer may move the spinner off before cpu3 goes down: only the
# moves by cpu3's stopper during the offline count.
pushed=$(going_down 3 <"$work/trace" | grep "^ *migration/3-" |
	trace_count /dev/stdin sched_migrate_task "pid=$spinner" orig_cpu=3)
pushed_seen=$(map_value 14 '@pushed_off[3, perl]')
equal 14 "the spinner was pushed off as often as tracefs says ($pushed)" "$pushed" "${pushed_seen:-0}"
equal 15 "one offline of cpu3" 1 "$(hist_count 15 '@offline_ms[3]')"

# --- taskset moves a task sleeping 300 ms in a section on cpu1 to cpu2.
start 16 17
trace_begin md_one_affinity ${patched:+sched_affinity_wait}
"$mdsection" -c 1 -S 300ms >/dev/null &
pinned=$!
wait_pinned 1 1
taskset -p -c 2 "$pinned" >/dev/null 2>&1 &
caller=$!
wait "$caller" "$pinned"
trace_end "$work/trace"
stop
# The caller records the event, once its wait is over.
wait_us=$(grep "^ *taskset-$caller .* sched_affinity_wait: comm=mdsection pid=$pinned cpu=1 " "$work/trace" |
	sed -n 's/.*wait_ns=\([0-9]*\).*/\1/p' | head -n 1)
equal 16 "taskset's wait for the pinned task, as tracefs" \
	"taskset/$caller waited $((${wait_us:-0} / 1000)) us for mdsection/$pinned, pinned on cpu1" \
	"$(grep -s "^taskset/" "$work/16" | head -n 1)"
equal 17 "one affinity wait by taskset" 1 "$(hist_count 17 '@wait_us[taskset]')"

echo "$schedstats" >/proc/sys/kernel/sched_schedstats
rm -rf "$work"
