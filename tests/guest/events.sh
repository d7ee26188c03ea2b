#!/bin/bash
# The series' trace events, tracepoints and counters, each checked against
# a scenario that mdload makes: who was pinned, where, and what the kernel
# did about it.  The counters count while schedstats are on.
. "$(dirname "$0")/../lib.sh"
tap_plan 41

mdload_load || exit 1
log=$(mktemp)
schedstats=$(sysctl -n kernel.sched_schedstats)
sysctl -q kernel.sched_schedstats=1
trap 'sysctl -q kernel.sched_schedstats=$schedstats' EXIT

# field FILE EVENT FIELD [FIELD=VALUE...]: FIELD of the first matching event.
field() {
	local file=$1 event=$2 name=$3
	shift 3
	grep " $event: " "$file" | grep -F -- "${*:- }" | head -n 1 |
		tr ' ' '\n' | sed -n "s/^$name=//p"
}

# in_window FILE SECTION_LINE MARGIN_NS REGEX: the lines of the trace FILE
# that match REGEX within the section that mdsection's SECTION_LINE gives,
# and MARGIN_NS either side.
in_window() {
	local start elapsed
	start=$(sed -n 's/.*start_ns=\([0-9]*\).*/\1/p' <<<"$2")
	elapsed=$(sed -n 's/.*elapsed_ns=\([0-9]*\).*/\1/p' <<<"$2")
	awk -v from="$(( start - $3 ))" -v to="$(( start + elapsed + $3 ))" -v re="$4" '
		$0 ~ re {
			t = $4; sub(/:$/, "", t); split(t, p, ".")
			ns = p[1] * 1000000000 + p[2] * 1000
			n += (ns >= from && ns <= to)
		}
		END { print n + 0 }' "$1"
}

# preempted_in FILE PID SECTION_LINE [MARGIN_NS]: PID's preempting
# sched_switches (prev_state R+) within the section, and MARGIN_NS either
# side (a microsecond: the trace's resolution).
preempted_in() {
	in_window "$1" "$3" "${4:-1000}" " sched_switch: .*prev_pid=$2 .* prev_state=R[+] "
}

# section_events FILE PID SECTION_LINE [CPU]: PID's sched_pinned_preempt
# events at its section's depth, 3, within a millisecond of the section (on
# CPU only).  On PREEMPT_RT the kernel's own spinlocks can nest three deep
# too: before mdsection pinned itself to cpu1, its task was preempted twice
# at depth 3 elsewhere (make check, once).
section_events() {
	in_window "$1" "$3" 1000000 "^[^[]*[[]00${4:-.}[]] .* sched_pinned_preempt: pid=$2 depth=3 "
}

# marked_read NAME CMD...: NAME=$(CMD...), between two trace markers of
# the instance, NAME-1 and NAME-2: an event on another task may come
# while CMD reads (on PREEMPT_RT, the kernel's own sections pin all day).
marked_read() {
	local name=$1
	shift
	echo "$name-1" >"$trace/trace_marker"
	declare -g "$name=$("$@")"
	echo "$name-2" >"$trace/trace_marker"
}

# between_marks FILE CPU EVENT: EVENT's records on CPU between the reads
# of "before" and "after" (marked_read): "INNER OUTER", counted from the
# end of the first read to the start of the second, and from the start of
# the first to the end of the second.
between_marks() {
	awk -v cpu="[00$2]" -v event=" $3: " '
		/tracing_mark_write: before-1$/ { outer = 1 }
		/tracing_mark_write: before-2$/ { inner = 1 }
		/tracing_mark_write: after-1$/ { inner = 0 }
		/tracing_mark_write: after-2$/ { outer = 0 }
		index($0, event) && index($0, cpu) { i += inner; o += outer }
		END { print i + 0, o + 0 }' "$1"
}

# on_cpu FILE CPU EVENT [FIELD=VALUE...]: EVENT's records made on CPU.
on_cpu() {
	local file=$1 cpu=$2 event=$3
	shift 3
	grep "\[00$cpu\] .* $event: " "$file" | grep -cF -- "${*:- }"
}

# --- Bare tracepoints: a probe on the enable tracepoint that takes BPF
# task storage disables migration inside the probe.  It must nest in the
# section that is ending, not open one of its own and run again.
"$top/build/tpcount" --pin >"$log.tp" &
tpcount=$!
wait_line "$log.tp" ready
"$mdsection" -n 20 -s 1ms >/dev/null
kill -INT "$tpcount"
wait "$tpcount"
tap_diag "$(tail -n 2 "$log.tp")"
runs=$(sed -n 's/.*pinned_runs=\([0-9]*\).*/\1/p' "$log.tp")
tap_check "a probe that pins ran at every outermost migrate_enable() of 20 sections ($runs)" \
	test "${runs:-0}" -ge 20
tap_equal "and was never re-entered from within itself (recursion_misses)" 0 \
	"$(sed -n 's/.*recursion_misses=\([0-9]*\).*/\1/p' "$log.tp")"

# --- Stacking: a SCHED_OTHER task spins in a depth-3 section on cpu1 while a
# SCHED_FIFO task on cpu1 wakes ten times; every wakeup preempts it there.
trace_begin md_stack sched_pinned_preempt sched_switch
marked_read before rq_stat 1 md_stats.pinned_preempt
"$mdsection" -c 1 -d 3 -s 1s >"$log.pinned" &
pinned=$!
wait_pinned 1 1
"$mdsection" -f 80 -c 1 -n 10 -s 1ms -S 10ms >/dev/null &
preempter=$!
wait "$preempter"
wait "$pinned"
marked_read after rq_stat 1 md_stats.pinned_preempt
trace_end "$log"

events=$(trace_count "$log" sched_pinned_preempt "pid=$pinned")
in_section=$(section_events "$log" "$pinned" "$(cat "$log.pinned")")
preempting=$(preempted_by "$log" "$pinned" "$preempter")
tap_check "the FIFO task preempted the pinned one at least 10 times ($preempting)" \
	test "$preempting" -ge 10
inside=$(preempted_in "$log" "$pinned" "$(cat "$log.pinned")")
edges=$(preempted_in "$log" "$pinned" "$(cat "$log.pinned")" 1000000)
# mdload times the section from just after its last migrate_disable() to
# just before its first migrate_enable(): a preemption in between those
# and the clock reads is in the section too (once on PREEMPT_RT: 50 events
# at depth 3, 49 preemptions timed inside).  So a millisecond either side
# bounds it from above.
tap_check "one sched_pinned_preempt at depth 3 per preemption inside the section, no more ($inside <= $in_section <= $edges)" \
	test "$inside" -le "$in_section" -a "$in_section" -le "$edges"
# Each event comes just before the sched_switch that switches its task out.
tap_equal "each is followed on its CPU by the sched_switch of the task" "$events" \
	"$(preempted_by "$log" "$pinned" '[0-9]+')"
tap_equal "every event in the section is on cpu1" "$in_section" \
	"$(section_events "$log" "$pinned" "$(cat "$log.pinned")" 1)"
# Outside mdload's section the task is pinned only in the kernel's own
# sections: on PREEMPT_RT its sleeping spinlocks (page faults, writes).
outside=$(( $(trace_count "$log" sched_switch "prev_pid=$pinned" prev_state=R+) - in_section ))
if preempt_rt; then
	tap_check "PREEMPT_RT: the other events are preemptions outside the section ($((events - in_section)) of $outside)" \
		test $((events - in_section)) -le "$outside"
else
	tap_equal "no event outside the section: nothing else pins the task" 0 $((events - in_section))
fi
# nr_pinned counts the preempted task itself, and the preempter when it is
# in its own section: 1 or 2, never 0.  On PREEMPT_RT another task that
# the kernel pinned on cpu1 (its sleeping locks do) and that is preempted or
# blocked there counts too: 3 in 1 event of 56 (our RT kernel).  A count
# that wrapped or leaked would be far above 16.
read -r pinned_some pinned_one_two pinned_counts < <(awk -v pid="$pinned" '
	/ sched_pinned_preempt: / && $0 ~ " pid=" pid " " {
		v = $0; sub(/.* nr_pinned=/, "", v); sub(/ .*/, "", v); v += 0
		n[v]++; some += v >= 1 && v <= 16; one_two += v == 1 || v == 2
	}
	END { printf "%d %d", some, one_two; for (v in n) printf " %s:%d", v, n[v]; print "" }' "$log")
if preempt_rt; then
	tap_equal "nr_pinned is counted in the event, 1 to 16 (nr_pinned:events $pinned_counts)" \
		"$events" "$pinned_some"
else
	tap_equal "nr_pinned is counted in the event, 1 or 2 (nr_pinned:events $pinned_counts)" \
		"$events" "$pinned_one_two"
fi
read -r inner outer < <(between_marks "$log" 1 sched_pinned_preempt)
tap_check "md_stats.pinned_preempt of cpu1 moved by the events on cpu1 ($inner <= $((after - before)) <= $outer)" \
	test "$inner" -le $((after - before)) -a $((after - before)) -le "$outer"

# --- Yielding is not being preempted: a pinned task on cpu1 calls yield()
# every millisecond of its section while another task spins there, so most
# of its switches are yields (prev_state R, not R+).  Only the preemptions,
# if the tick brings any, are events.
trace_begin md_yield sched_pinned_preempt sched_switch
# The spinner is let go once perl has started, so that it spins through
# the whole section (perl took up to 250 ms to start, and a section that
# began first yielded to nobody: 9 switches out of 265 yields once).
start_held spin taskset -c 1 "${held_spinner[@]}" 1
spinner=$spin_pid
release spin
"$mdsection" -c 1 -d 3 -y -s 300ms >"$log.pinned" &
pinned=$!
wait "$pinned"
kill "$spinner" 2>/dev/null
wait "$spinner" 2>/dev/null
trace_end "$log"
yields=$(trace_count "$log" sched_switch "prev_pid=$pinned" prev_state=R)
tap_diag "$(cat "$log.pinned"); switches out: $yields yielding, $(trace_count "$log" sched_switch "prev_pid=$pinned" prev_state=R+) preempted"
tap_check "the pinned task switched out by yielding, inside its section ($yields times)" \
	test "$yields" -ge 10
# Its section has depth 3: on PREEMPT_RT the task is pinned in kernel
# sections of its own too (depth 1), outside it.
inside=$(preempted_in "$log" "$pinned" "$(cat "$log.pinned")")
edges=$(preempted_in "$log" "$pinned" "$(cat "$log.pinned")" 1000000)
in_section=$(section_events "$log" "$pinned" "$(cat "$log.pinned")")
tap_check "sched_pinned_preempt counts its preemptions in the section only ($inside <= $in_section <= $edges)" \
	test "$inside" -le "$in_section" -a "$in_section" -le "$edges"

# --- The article's scenario: a FIFO 10 task pinned in a section on cpu1 is
# preempted by a FIFO 50 task that could run elsewhere; when another CPU
# looks for RT work to pull, push_cpu_stop moves the FIFO 50 task away.
# Each push ends in exactly one result, on the CPU it was queued on.
push_results=(moved deferred migrated dequeued no_target)
push_counts() {
	local result
	for result in "${push_results[@]}"; do
		printf '%s ' "$(rq_stat 1 "md_stats.push_$result")"
	done
}

sched_feature NO_RT_PUSH_IPI
for site in rt_pull rt_push_ipi; do
	[ "$site" = rt_push_ipi ] && sched_feature RT_PUSH_IPI
	read -ra counts < <(push_counts)
	trace_begin md_push sched_pinned_preempt sched_switch sched_pinned_push_queued \
		sched_pinned_push_done sched_migrate_task
	push_scenario "${held_spinner[@]}" 0.4 >/dev/null
	echo 0 >"$trace/tracing_on"
	read -ra counts_after < <(push_counts)
	trace_end "$log"
	tap_equal "$site: the pinned task was preempted on cpu1 by the FIFO 50 task" 1 \
		"$(preempted_by "$log" "$pinned" "$pusher" | awk '{ print ($1 > 0) }')"
	tap_equal "$site: push_cpu_stop queued for it on cpu1" 1 \
		"$(trace_count "$log" sched_pinned_push_queued "pid=$pusher" prio=49 \
		   "pinned_pid=$pinned" pinned_prio=89 cpu=1 "site=$site" | awk '{ print ($1 > 0) }')"
	# A push may find no lower CPU as the stopper runs (another pull got
	# there first); the next pull queues another.
	# Or the stopper finds it gone: preempted by the stopper, it was
	# pulled to another CPU before push_cpu_stop() took its locks
	# (result=migrated; seen on PREEMPT_RT).  Either way it left cpu1 for
	# the push, and sched_migrate_task says where to.
	results=$(grep "\[001\] .* sched_pinned_push_done: pid=$pusher " "$log" |
		grep -o 'result=[a-z_]*' | tr '\n' ' ')
	dest=$(awk -v pid="$pusher" '
		/ sched_pinned_push_queued: / && $0 ~ " pid=" pid " .* cpu=1 " { queued = 1; moved = "" }
		queued && / sched_migrate_task: / && $0 ~ " pid=" pid " .* orig_cpu=1 " {
			moved = $0; sub(/.* dest_cpu=/, "", moved); sub(/ .*/, "", moved)
		}
		queued && / sched_pinned_push_done: / && $0 ~ " pid=" pid " " {
			if (/ result=moved /) { sub(/.* dest_cpu=/, ""); print; exit }
			if (/ result=migrated / && moved != "") { print moved; exit }
			queued = 0
		}' "$log")
	tap_check "$site: push_cpu_stop moved it off cpu1, or found it moved off (${results:-no push done})" \
		test -n "$dest"
	tap_check "$site: to another CPU ($dest)" test -n "$dest" -a "$dest" != 1
	tap_equal "$site: every push queued on cpu1 has its one result there" \
		"$(trace_count "$log" sched_pinned_push_queued cpu=1)" \
		"$(on_cpu "$log" 1 sched_pinned_push_done)"
	counted= traced=
	for i in "${!push_results[@]}"; do
		counted+="$((counts_after[i] - counts[i])) "
		traced+="$(on_cpu "$log" 1 sched_pinned_push_done "result=${push_results[i]} ") "
	done
	tap_equal "$site: md_stats counted each result on cpu1 (${push_results[*]})" \
		"$traced" "$counted"
done
sched_feature NO_RT_PUSH_IPI

# --- The same with PINNED_PUSH off: nothing is pushed, and the pinned task
# waits until the FIFO 50 task is done.
sched_feature NO_PINNED_PUSH
trace_begin md_nopush sched_pinned_push_queued
push_scenario "${held_spinner[@]}" 0.4 >/dev/null
trace_end "$log"
sched_feature PINNED_PUSH
tap_equal "PINNED_PUSH off: no push_cpu_stop queued" 0 \
	"$(trace_count "$log" sched_pinned_push_queued "pid=$pusher")"

# --- MDF_PUSH: the task to push away is itself in a section when
# push_cpu_stop runs; the push is deferred to its migrate_enable().  The
# balancers only queue a push for a task that is not pinned, so the pusher
# enters each section from 10 ms with preemption off: a push queued then
# runs once it is pinned.  The pulls start once it is in that loop, 0.1 s
# in; its 60 sections last 0.66 s, long enough for a late start (with 20,
# a make check once saw no push at all).
# On PREEMPT_RT the only push landed between two sections in two runs out
# of several: it moved the task (result=moved), or found it pulled away
# already (migrated), and the task left cpu1 for good.  Why the pulls come
# outside the preempt-off window there was not looked into; the scenario
# runs up to five times for a push that finds the task pinned.
tries=1
preempt_rt && tries=5
for try in $(seq "$tries"); do
	trace_begin md_defer sched_pinned_push_queued sched_pinned_push_done
	pull_after=0.1 push_scenario "$mdsection" -w -n 60 -P 10ms -s 1ms >/dev/null
	trace_end "$log"
	results=$(grep " sched_pinned_push_done: pid=$pusher " "$log" | grep -o 'result=[a-z_]*')
	grep -qx 'result=deferred' <<<"$results" && break
done
tap_diag "pushes of the FIFO 50 task (try $try of $tries): $(grep " sched_pinned_push_\(queued\|done\): .*pid=$pusher " "$log" |
	grep -o 'site=[a-z_]*\|result=[a-z_]*' | tr '\n' ' ')"
preempt_rt || results=$(head -n 1 <<<"$results")
tap_check "MDF_PUSH: the first push (PREEMPT_RT: a push, in $tries tries) found the task pinned and deferred" \
	grep -qx 'result=deferred' <<<"$results"
tap_equal "MDF_PUSH: migrate_enable() queued the push again" 1 \
	"$(trace_count "$log" sched_pinned_push_queued "pid=$pusher" site=migrate_enable pinned_pid=-1 | awk '{ print ($1 > 0) }')"
tap_equal "MDF_PUSH: every push queued has its one result" \
	"$(trace_count "$log" sched_pinned_push_queued)" "$(trace_count "$log" sched_pinned_push_done)"

# --- Hotplug: cpu3 goes offline while two tasks are in sections there, one
# asleep 900 ms, one spinning 700 ms, and a third spins there unpinned; the
# hotplug thread waits for the first two, balance_push() moves the third
# off.  Each pinned task reports itself once, as it lets the wait go on.
# The third stays affine to cpu3 alone, so that the load balancer leaves
# it there until the offline forces it off, and runs at nice 19, so that
# the hotplug thread gets to its wait while the sections last.
before_pinned=$(rq_stat 3 md_stats.hotplug_pinned)
trace_begin md_hotplug sched_hotplug_pinned sched_migrate_task cpuhp/cpuhp_enter cpuhp/cpuhp_exit
"$mdsection" -c 3 -S 900ms >"$log.sleeper" &
sleeper=$!
"$mdsection" -c 3 -s 700ms >"$log.spinning" &
spinning=$!
taskset -c 3 nice -n 19 perl -e '1 while 1' &
spinner=$!
wait_pinned 3 2
taskset -p -c 0-3 "$sleeper" >/dev/null
taskset -p -c 0-3 "$spinning" >/dev/null
echo 0 >/sys/devices/system/cpu/cpu3/online
wait "$sleeper" "$spinning"
echo 0 >"$trace/tracing_on"
echo 1 >/sys/devices/system/cpu/cpu3/online
kill "$spinner"
wait "$spinner" 2>/dev/null
# The debugfs file lists online CPUs only; the counters survive offline.
after_pinned=$(rq_stat 3 md_stats.hotplug_pinned)
trace_end "$log"
tap_diag "$(grep -E 'hotplug_pinned|cpuhp_e.*\((sched_cpu_wait_empty)\)' "$log" | cut -c1-160)"
tap_equal "the offline waited in sched:waitempty on cpu3" 1 \
	"$(grep -c ' cpuhp_enter: cpu: 0003 .*(sched_cpu_wait_empty)' "$log")"
tap_equal "sched_hotplug_pinned: the sleeping task, once, on cpu3" 1 \
	"$(on_cpu "$log" 3 sched_hotplug_pinned "pid=$sleeper ")"
tap_equal "sched_hotplug_pinned: the spinning one, once, on cpu3" 1 \
	"$(on_cpu "$log" 3 sched_hotplug_pinned "pid=$spinning ")"
tap_equal "sched_hotplug_pinned: no other task" 2 "$(trace_count "$log" sched_hotplug_pinned)"
tap_equal "the last to leave left none pinned" "pid=$sleeper pinned_left=0" \
	"$(grep -o "pid=[0-9]* pinned_left=[0-9]*" "$log" | tail -n 1)"
tap_equal "md_stats.hotplug_pinned of cpu3 moved by two" 2 $((after_pinned - before_pinned))
tap_check "migration/3 moved the unpinned spinner off cpu3" \
	grep -q "migration/3-.* sched_migrate_task: .* pid=$spinner .* orig_cpu=3 " "$log"
tap_equal "both sections stayed on cpu3" "cpu_enter=3 cpu_exit=3 cpu_enter=3 cpu_exit=3" \
	"$(cat "$log.sleeper" "$log.spinning" | grep -o 'cpu_enter=[0-9]* cpu_exit=[0-9]*' | tr '\n' ' ' | sed 's/ $//')"

# --- Affinity: sched_setaffinity() away from cpu1 while a task sleeps
# 600 ms in a section there blocks until the section ends; the task's next
# section runs in the new mask.
before=$(rq_stat 1 md_stats.affinity_wait)
trace_begin md_affinity sched_affinity_wait
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
wait_ns=$(field "$log" sched_affinity_wait wait_ns "pid=$pinned")
tap_diag "$(grep affinity_wait "$log" | cut -c1-160)"
tap_equal "one affinity wait, by taskset, for the pinned task on cpu1" 1 \
	"$(grep " taskset-[0-9]* .* sched_affinity_wait: " "$log" | grep -c "pid=$pinned cpu=1 ")"
tap_check "it lasted as long as the rest of the section (${wait_ns}ns)" \
	test "${wait_ns:-0}" -ge 100000000 -a "${wait_ns:-0}" -le 700000000
tap_check "taskset was blocked as long as the event says (${blocked}ns)" \
	test "$blocked" -ge "${wait_ns:-0}"
tap_equal "md_stats.affinity_wait of cpu1 moved by one" 1 $((after - before))
tap_equal "the section stayed on cpu1" "cpu_enter=1 cpu_exit=1" \
	"$(grep -o 'cpu_enter=[0-9]* cpu_exit=[0-9]*' "$log.pinned" | head -n 1)"
tap_equal "the next section ran in the new mask, on cpu2" "cpu_enter=2 cpu_exit=2" \
	"$(grep -o 'cpu_enter=[0-9]* cpu_exit=[0-9]*' "$log.pinned" | sed -n 2p)"

rm -f "$log" "$log".*
