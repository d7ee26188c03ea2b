#!/bin/bash
# mdstat against scenarios made with mdload, on the kernel the guest booted:
# with the series, or stock (tests/check boots both).  Every number is
# checked against what the scenario made or what tracefs saw of it.
. "$(dirname "$0")/../lib.sh"
. "$top/guest/trace-text.sh"

mdload_load || exit 1
mdstat=$top/build/mdstat
work=$(mktemp -d)
if [ -d /sys/kernel/tracing/events/sched/sched_pinned_push_queued ]; then
	patched=1 kernel="with the series"
	# The kernel's own counters count while schedstats are on.
	schedstats=$(sysctl -n kernel.sched_schedstats)
	sysctl -q kernel.sched_schedstats=1
	trap 'sysctl -q kernel.sched_schedstats=$schedstats' EXIT
else
	patched=0 kernel="stock"
fi
# The kernel's md_stats: one check more with the series.
tap_plan $((34 + patched))
tap_diag "kernel: $(uname -r) ($kernel)"

# in_scenario FUNCTION MDSTAT-ARGS...: mdstat runs FUNCTION (exported from
# here) once it is attached, and ends when FUNCTION does.
in_scenario() {
	local function=$1
	shift
	"$mdstat" "$@" -- bash -c '. "$0"/tests/lib.sh; "$1"' "$top" "$function"
}

# linked: BPF links in the system (mdstat leaves none behind).
linked() {
	bpftool link list -j | jq length
}

# --- doctor: the sources it finds are the kernel's ---------------------------
"$mdstat" doctor -j >"$work/doctor" 2>&1
status=$?
tap_equal "mdstat doctor: everything this kernel offers works" 0 "$status"
tap_equal "mdstat doctor sees the series as tracefs does" \
	"$([ "$patched" = 1 ] && echo true || echo false)" \
	"$(jq -r 'select(.name == "mdstat-series") | .ok' "$work/doctor")"

# --- Stacking: a SCHED_OTHER task spins in a depth-2 section on cpu1
# while a FIFO 80 task wakes there 8 times, spinning 2 ms each.  tracefs
# records the switches, and the series' own event where there is one.
stacking() {
	# What a CPU does just before a switch bounds when the switch began.
	set -- sched_switch sched_waking sched_stat_runtime timer/hrtimer_start
	if [ "$patched" = 1 ]; then
		trace_begin md_mdstat "$@" sched_pinned_preempt
	else
		trace_begin md_mdstat "$@"
	fi
	# The section ends with the preempter (a fatal signal ends it), or
	# after 1 s, mdload's bound.
	"$mdsection" -c 1 -d 2 -s 1s >/dev/null &
	echo $! >"$work/pinned"
	wait_pinned 1 1
	"$mdsection" -f 80 -c 1 -n 8 -s 2ms -S 20ms >/dev/null &
	echo $! >"$work/preempter"
	wait $!
	kill -KILL "$(cat "$work/pinned")"
	wait
	trace_end "$work/switches"
}
export -f stacking
export work patched

# switched_out PID [NEXT]: tracefs' preemptions of PID (by NEXT), one line
# each: the time until it ran again, in microseconds.
switched_out() {
	awk -v pid="$1" -v next_pid="${2:-}" '
		/ sched_switch: / && $0 ~ "prev_pid=" pid " prev_prio=[0-9]+ prev_state=R\\+? " &&
		    (next_pid == "" || $0 ~ "next_pid=" next_pid " ") { t = $4 + 0 }
		/ sched_switch: / && t && $0 ~ "next_pid=" pid " " { printf "%d\n", ($4 - t) * 1e6; t = 0 }
		' "$work/switches"
}

in_scenario stacking trace -j -e pinned -C 1 >"$work/trace" 2>"$work/err"
pinned=$(cat "$work/pinned") preempter=$(cat "$work/preempter")
switched_out "$pinned" "$preempter" >"$work/truth_waits"
# Each preemption by the FIFO task as mdstat timed it: its clock reads at
# the preemption and at the resume (monotonic ns), and the wait it gives.
jq -rs --argjson p "$pinned" --argjson q "$preempter" '
	foreach (.[] | select(.pid == $p)) as $e ({by: false};
		if $e.event == "pinned_preempt" then
			{by: ($e.other_pid == $q), at: $e.monotonic_ns}
		elif .by then {by: false, out: "\(.at) \($e.monotonic_ns) \($e.wait_ns)"}
		else {by: false} end;
		.out // empty)' "$work/trace" >"$work/timed"
awk '{ print int($3 / 1000) }' "$work/timed" >"$work/waits"
got_n=$(wc -l <"$work/waits")
tap_check "trace: the FIFO task preempted the pinned one 8 times or more ($got_n)" \
	test "$got_n" -ge 8
tap_equal "trace: as often as sched_switch shows" "$(wc -l <"$work/truth_waits")" "$got_n"
tap_diag "waits by mdstat, us: $(echo $(cat "$work/waits"))"
tap_diag "by sched_switch, us: $(echo $(cat "$work/truth_waits"))"
# switch_windows PID NEXT: for each preemption of PID by NEXT, the window
# in which that switch's probes ran, then the resume's: from the CPU's
# event before (its wakeup of NEXT, its timer for NEXT's sleep, PID's
# runtime update) to the switch, in ns on tracefs' clock (CLOCK_MONOTONIC,
# as BPF's).  mdstat's probe runs first at a switch (it attached before
# tracefs' was enabled), so its clock read falls in that window.
switch_windows() {
	awk -v pid="$1" -v next_pid="$2" '
		!/^#/ && match($0, / [0-9]+\.[0-9]+: /) {
			split(substr($0, RSTART + 1, RLENGTH - 3), t, ".")
			ns = t[1] * 1e9 + t[2] * 1e3
			match($0, /\[[0-9]+\]/)
			cpu = substr($0, RSTART, RLENGTH)
			if ($0 ~ " sched_switch: .*prev_pid=" pid " prev_prio=[0-9]+ prev_state=R\\+? " &&
			    $0 ~ "next_pid=" next_pid " ") {
				from = before[cpu]; to = ns + 999
			} else if (to && $0 ~ " sched_switch: .*next_pid=" pid " ") {
				printf "%.0f %.0f %.0f %.0f\n", from, to, before[cpu], ns + 999
				to = 0
			}
			before[cpu] = ns
		}' "$work/switches"
}
switch_windows "$pinned" "$preempter" >"$work/windows"
# Exact, where comparing the waits was not: mdstat's clock read and
# tracefs' at one switch can be milliseconds apart, which one wait has and
# the other not.  The first pass through mdstat's new program is
# translated by TCG (the first wait differed by 0.03-5.5 ms in 7 runs),
# and a host busier than ours deschedules vCPUs (in a CI run 4 of 12 waits
# differed by 1-6.7 ms, and "3 in 4 within 10% + 200 us" failed).
paste -d ' ' "$work/timed" "$work/windows" | awk '
	NF != 7 || $1 < $4 || $1 > $5 || $2 < $6 || $2 > $7 || $3 != $2 - $1' >"$work/outside"
while read -r line; do
	tap_diag "mdstat at, wait; windows: $line"
done <"$work/outside"
tap_equal "trace: each wait is timed from the preempting switch to the resuming one" \
	0 "$(wc -l <"$work/outside")"
if [ "$patched" = 1 ]; then
	# Its section's depth, 2; on PREEMPT_RT the task is pinned in sections
	# of the kernel's own too (depth 1), outside it.
	tap_equal "trace: its preemptions at depth 2 on cpu1 are tracefs'" \
		"$(grep '\[001\] .* sched_pinned_preempt: ' "$work/switches" | grep -c " pid=$pinned depth=2 ")" \
		"$(jq -c "select(.event == \"pinned_preempt\" and .pid == $pinned and .depth == 2 and .cpu == 1)" "$work/trace" | wc -l)"
	# On cpu1 (-C 1): before mdsection pins itself there, a PREEMPT_RT
	# kernel can preempt it elsewhere inside a section of the kernel's.
	tap_equal "trace: every sched_pinned_preempt of the task on cpu1, no more" \
		"$(grep '\[001\] .* sched_pinned_preempt: ' "$work/switches" | grep -c " pid=$pinned ")" \
		"$(jq -c "select(.event == \"pinned_preempt\" and .pid == $pinned)" "$work/trace" | wc -l)"
else
	# On PREEMPT_RT the task is pinned in sections of the kernel's own too
	# (depth 1, or 3 inside its own); the FIFO task preempts it inside its
	# section (Debian's RT kernel: 2 of 69 at another depth once).
	by=
	! preempt_rt || by=" and .other_pid == $preempter"
	tap_equal "trace: each preemption${by:+ by the FIFO task} has depth 2 and cpu 1" \
		"$(jq -c "select(.event == \"pinned_preempt\" and .pid == $pinned$by)" "$work/trace" | wc -l)" \
		"$(jq -c "select(.event == \"pinned_preempt\" and .pid == $pinned$by and .depth == 2 and .cpu == 1)" "$work/trace" | wc -l)"
	tap_check "trace: no more than sched_switch's runnable switches" \
		test "$(jq -c "select(.event == \"pinned_preempt\" and .pid == $pinned)" "$work/trace" | wc -l)" \
		-le "$(switched_out "$pinned" | wc -l)"
fi

# around_cpu1 CMD...: CMD, with tracefs recording sched_pinned_preempt
# around it.  $inside and $around are the events on cpu1 recorded within
# the scenario and around the whole of CMD: what mdstat saw while it ran
# lies between them.  They differ only when something else was pinned and
# preempted on cpu1 as mdstat started or stopped, as on PREEMPT_RT, where
# the kernel's own spinlocks pin.
around_cpu1() {
	[ "$patched" = 1 ] && trace_begin md_around sched_pinned_preempt
	"$@"
	[ "$patched" = 1 ] || return 0
	trace_end "$work/around"
	inside=$(grep -c '\[001\] .* sched_pinned_preempt: ' "$work/switches")
	around=$(grep -c '\[001\] .* sched_pinned_preempt: ' "$work/around")
}

# between NAME N: N is within [$inside, $around].
between() {
	tap_check "$1 ($inside <= $2 <= $around)" test "$inside" -le "$2" -a "$2" -le "$around"
}

around_cpu1 in_scenario stacking hist -j -C 1 >"$work/hist" 2>"$work/err"
pinned=$(cat "$work/pinned") preempter=$(cat "$work/preempter")
count=$(jq 'select(.type == "hist" and .kind == "stacked" and .cpu == null) | .count' "$work/hist")
if [ "$patched" = 1 ]; then
	between "hist: the stacked histogram counts each sched_pinned_preempt on cpu1" "$count"
else
	tap_check "hist: the stacked histogram counts the FIFO task's preemptions at least" \
		test "$count" -ge "$(switched_out "$pinned" "$preempter" | wc -l)"
fi
tap_equal "hist: its buckets add up to its count" "$count" \
	"$(jq 'select(.kind == "stacked" and .cpu == null) | [.buckets[].count] | add // 0' "$work/hist")"

# A tick every 0.1 s: the task is pinned 176 ms or more (8 preemptions of
# 2 ms, 20 ms apart), and the whole scenario can end within 0.5 s.
around_cpu1 in_scenario stacking top -j -b -i 0.1 -C 1 >"$work/top" 2>"$work/err"
pinned=$(cat "$work/pinned") preempter=$(cat "$work/preempter")
summary=$(jq 'select(.type == "summary") | .cpus[] | select(.cpu == 1)' "$work/top")
tap_check "top: some interval shows cpu1 with a pinned task" \
	grep -q '"cpu":1,[^]]*"nr_pinned":[12]' "$work/top"
tap_equal "top: the intervals' preemptions on cpu1 add up to the summary" \
	"$(jq -s 'map(select(.type == "top") | .cpus[] | select(.cpu == 1) | .preempted) | add' "$work/top")" \
	"$(jq .preempted <<<"$summary")"
tap_check "top: the summary counts the FIFO task's preemptions at least" \
	test "$(jq .preempted <<<"$summary")" -ge "$(switched_out "$pinned" "$preempter" | wc -l)"
# In its section, that is: on PREEMPT_RT it also waits in the kernel's own
# sections (depth 1) outside it.
tap_equal "top: the pinned task is among those that waited, 'other' policy, depth 2" \
	"$pinned other 2" \
	"$(jq -r "select(.type == \"top\") | .waiters[] | select(.pid == $pinned) | \"\(.pid) \(.policy) \(.depth)\"" "$work/top" | grep -x "$pinned other 2" | head -n 1)"
if [ "$patched" = 1 ]; then
	between "top: the summary counts each sched_pinned_preempt on cpu1" \
		"$(jq .preempted <<<"$summary")"
	between "top: and so does the kernel's md_stats.pinned_preempt in it" \
		"$(jq .kernel.pinned_preempt <<<"$summary")"
else
	tap_equal "top: no md_stats on a stock kernel" null "$(jq .kernel <<<"$summary")"
fi

# --- Pushes: the article's scenario; the FIFO 50 task that preempts the
# pinned FIFO 10 one is pushed away (tracefs records where it went, and the
# stack of each move at FIFO 50).
pushing() {
	trace_begin md_mdstat_push sched_migrate_task
	echo "stacktrace if prio == 49" >"$trace/events/sched/sched_migrate_task/trigger"
	push_scenario "${held_spinner[@]}" 0.3 >/dev/null
	echo "$pinned $pusher" >"$work/push-pids"
	trace_end "$work/migrations"
}
export -f pushing
in_scenario pushing trace -j -e push >"$work/push-trace" 2>"$work/err"
read -r pinned pusher <"$work/push-pids"
# Where push_cpu_stop moved the FIFO 50 task off cpu1, per tracefs: its
# moves whose stack has push_cpu_stop.  Not every move by migration/1 is
# one: it runs migration_cpu_stop too (sched_exec() moved the forked shell
# off cpu1 as it began to exec chrt, 1 run in 20 on our 6.12 RT kernel),
# and what an interrupt moves while it runs is traced under its name, with
# the stack it interrupted: the RT balancer's IPI pushed the task as
# migration/1 began to run (1 run in 60: mdstat said "migrated", and
# rightly), and once inside push_cpu_stop(), which then found the task gone
# (Debian's RT kernel, flags d..h311: mdstat said "not_moved", and rightly).
# So only moves in task context count: no h, H, s, z or Z in the flags.  A
# push may also find no lower CPU as the stopper runs (seen on the debug
# kernel): mdstat must then not say it moved.  At FIFO 50 the task may be
# pushed before it is perl, to make room for a task the kernel's own locks
# pinned (RT, seen as chrt): those count too.
moves=$(awk -v pid="$pusher" '
	match($0, /[[][0-9]+[]] [^ ]+/) {
		split(substr($0, RSTART, RLENGTH), field, " ")
		cpu = field[1]
		in_task = field[2] !~ /[hHsZz]/
	}
	/ sched_migrate_task: / {
		move[cpu] = (in_task && $0 ~ " pid=" pid " prio=49 orig_cpu=1 ") ? $0 : ""
		next
	}
	/ <stack trace>$/ { stack = move[cpu]; move[cpu] = ""; next }
	/^ => push_cpu_stop$/ && stack != "" { print stack; stack = "" }' "$work/migrations")
dest=$(head -n 1 <<<"$moves" | sed -n 's/.*dest_cpu=\([0-9]*\).*/\1/p')
tap_equal "trace: push_queued for the FIFO 50 task on cpu1" 1 \
	"$(jq -c "select(.event == \"push_queued\" and .pid == $pusher and .cpu == 1)" "$work/push-trace" | head -n 1 | wc -l)"
# A push is done on the CPU it was queued on, by its stopper.  On
# PREEMPT_RT the task may be pulled on and pushed again from another CPU,
# where the kernel's own locks pinned what it preempted (once: pulled to
# cpu3 by irq_work/3, pushed on to cpu2 by migration/3).
tap_diag "tracefs, push_cpu_stop on cpu1 moved it: $(sed 's/^ *//; s/: sched_migrate_task: / /' <<<"$moves" | tr '\n' ' ')"
tap_diag "mdstat: $(jq -c "select(.pid == $pusher) | [.event, .comm, .cpu, .result, .dest_cpu, .other_pid]" "$work/push-trace" | tr '\n' ' ')"
tap_equal "trace: as many push_done on cpu1 moved it as push_cpu_stop did in tracefs" \
	"$(grep -c . <<<"$moves")" \
	"$(jq -c "select(.event == \"push_done\" and .pid == $pusher and .cpu == 1 and .result == \"moved\")" "$work/push-trace" | wc -l)"
tap_equal "trace: the first moved it where tracefs says (${dest:-nowhere})" "$dest" \
	"$(jq -r "select(.event == \"push_done\" and .pid == $pusher and .cpu == 1 and .result == \"moved\") | .dest_cpu" "$work/push-trace" | head -n 1)"
if [ "$patched" = 1 ]; then
	tap_equal "trace: push_queued of perl names the pinned task it makes room for" "$pinned" \
		"$(jq "select(.event == \"push_queued\" and .pid == $pusher and .comm == \"perl\") | .other_pid" "$work/push-trace" | head -n 1)"
else
	tap_equal "trace: without the series the pinned task is not known" "" \
		"$(jq "select(.event == \"push_queued\" and .pid == $pusher) | .other_pid // empty" "$work/push-trace" | head -n 1)"
fi

# --- Hotplug: cpu3 goes offline while a task sleeps 1 s in a section there.
# tracefs records the wait and cpu3's switches.
offlining() {
	local start end pinned_event=
	[ "$patched" = 0 ] || pinned_event=sched_hotplug_pinned
	# sched_stat_runtime: the record a task going to sleep usually makes
	# just before its sched_switch, bounding mdstat's probe of it below.
	trace_begin md_mdstat_hotplug sched_switch sched_migrate_task $pinned_event \
		sched_stat_runtime cpuhp/cpuhp_enter cpuhp/cpuhp_exit
	start=$(date +%s%N)
	offline_cpu3_scenario 1s >"$work/section"
	end=$(date +%s%N)
	echo "$pinned $(( (end - start) / 1000 ))" >"$work/offline"
	trace_end "$work/offline-trace"
	echo 1 >/sys/devices/system/cpu/cpu3/online
	kill "$spinner"
	wait "$pinned"
}
export -f offlining
in_scenario offlining hotplug -j >"$work/hotplug" 2>"$work/err"
read -r pinned offline_us <"$work/offline"
report=$(jq -c 'select(.type == "offline" and .cpu == 3)' "$work/hotplug")
tap_diag "$report"
tap_equal "hotplug: one report, for cpu3" 1 "$(printf '%s\n' "$report" | grep -c .)"
# How long the wait lasts depends on how soon the shell offlines cpu3 in
# the 1 s section: the wait began 0.19 to 0.57 s into it in CI runs, and
# once 0.94 s (6.12 RT kernel), so the wait is not bounded below.  Its
# place is exact: mdstat's probes of sched_cpu_wait_empty() read the clock
# that tracefs reads (mono), inside the step, before the hotplug thread
# first slept in it and after it last woke (waitempty_bounds).  The host
# can stop a vCPU between a tracepoint and mdstat's probe (the wait was
# 0.6 to 6.1 ms short of the step in 78 CI runs), but not reorder them.
steps=$(waitempty_bounds 3 <"$work/offline-trace")
wait_at=$(jq -r '"\(.wait_monotonic_ns) \(.wait_monotonic_ns + .wait_ns)"' <<<"$report")
tap_check "hotplug: its wait is the sched:waitempty step's sleep, inside the offline (began, ended $wait_at ns; step ${steps:-none} s; offline $offline_us us)" \
	awk -v at="$wait_at" -v steps="$steps" -v offline_us="$offline_us" 'BEGIN {
		split(at, a, " ")
		if (split(steps, t, " ") != 4 || index(steps, "\n"))
			exit 1
		for (i = 1; i <= 4; i++)
			t[i] *= 1e9
		exit !(a[1] > t[1] - 500 && a[1] < t[2] + 500 &&
		       a[2] > t[3] - 500 && a[2] < t[4] + 500 &&
		       t[4] - t[1] < offline_us * 1e3) }'
# fentry programs run with current pinned: the stock fallback reads one
# more in nr_pinned than there is, and must not report it.
tap_equal "hotplug: exactly the one pinned task as the wait began" 1 "$(jq .nr_pinned <<<"$report")"
if [ "$patched" = 1 ]; then
	tap_equal "hotplug: the culprit is the task in the section" "$pinned" \
		"$(jq '.culprits[0].pid' <<<"$report")"
	tap_check "hotplug: its stack has where it disabled migration (mdload)" \
		grep -q 'mdload_ioctl' <<<"$(jq -r '.culprits[0].stack[]' <<<"$report")"
	# Its own report, the last of its sections (on PREEMPT_RT the task
	# pins itself again in the kernel's sections, a page fault's lock, on
	# its way out, each one more culprit); a kthread's may come after it.
	mine="[.culprits[] | select(.pid == $pinned)][-1]"
	tap_check "hotplug: it kept cpu3 a while after its last section ($(jq "$mine.on_cpu_after_ns" <<<"$report") ns)" \
		test "$(jq "$mine.on_cpu_after_ns > 0" <<<"$report")" = true
	# It held the wait until it left cpu3 after its section, asleep, dead or
	# moved off.  tracefs does not show where sections end: a task may leave
	# cpu3 inside another short section (a BPF trampoline's) and hold on.  So
	# mdstat's time for it must be one of the task's departures from cpu3 in
	# the sched:waitempty step.  That time is a clock read in mdstat's probe
	# of the departure, and tracefs reads the same clock (mono) in its own
	# probe of that hit, right after: mdstat's programs were attached before
	# the scenario enabled the events, and a tracepoint calls its probes in
	# that order.  Nothing else can write to that CPU's buffer between the
	# two (the scheduler holds the runqueue lock, interrupts off).  So
	# mdstat's time comes after the record before the departure on that CPU
	# (for a sleep, usually its sched_stat_runtime) and no later than the
	# departure's own, however far apart the reads are.  They can be far
	# apart (the host stopping the vCPU between them, most likely): in 46
	# runs in our CI logs, mdstat's account and tracefs' departure agreed
	# within 15-652 us 44 times, 3.1 ms once and 16.8 ms once, where a bound
	# of 5 ms failed.  tracefs prints the microsecond nearest its read.
	left_ns=$(jq "$mine.left_monotonic_ns // 0" <<<"$report")
	left_s=$(awk -v ns="${left_ns:-0}" 'BEGIN { printf "%.6f", ns / 1e9 }')
	departures=$(awk -v pid="$pinned" "$_cpuhp_awk"'
		match($0, / \[[0-9]+\] /) { cpu = substr($0, RSTART + 2, RLENGTH - 4) + 0 }
		cpuhp("cpuhp_enter") && hp_cpu == 3 && hp_fun == "sched_cpu_wait_empty" { step = hp_step }
		step != "" && cpuhp("cpuhp_exit") && hp_cpu == 3 && hp_step == step { exit }
		step != "" && (cpu == 3 && $0 ~ " sched_switch: .* prev_pid=" pid " " &&
		    $0 !~ " prev_state=R\\+? " ||
		    $0 ~ " sched_migrate_task: .* pid=" pid " .* orig_cpu=3 ") {
			printf "%.6f..%.6f ", last[cpu], ts()
		}
		{ last[cpu] = ts() }
		' "$work/offline-trace")
	tap_diag "$(awk -v pid="$pinned" '/ cpuhp_enter: cpu: 0003 .*sched_cpu_wait_empty/ { begin = 1 }
		begin && ($0 ~ "_pid=" pid " " || $0 ~ " pid=" pid " " || / cpuhp_e/) &&
		    !/ sched_stat_runtime: /' \
		"$work/offline-trace" | head -n 8)"
	tap_equal "hotplug: the kernel's sched_hotplug_pinned names the same task, on cpu3" \
		"$pinned" "$(sed -n 's/.*\[003\] .* sched_hotplug_pinned: .* pid=\([0-9]*\) .*/\1/p' \
		"$work/offline-trace" | head -n 1)"
	tap_check "hotplug: it left cpu3 when tracefs says (at $left_s; departures ${departures:-none})" \
		awk -v left="${left_ns:-0}" -v departures="$departures" 'BEGIN {
			n = split(departures, d, " ")
			for (i = 1; i <= n; i++) {
				split(d[i], t, /\.\./)
				if (left > t[1] * 1e9 - 500 && left < t[2] * 1e9 + 500)
					exit 0
			}
			exit 1 }'
	tap_check "hotplug: the wait it explains lasts until then ($(jq -c '[.wait_monotonic_ns, .explained_ns]' <<<"$report"))" \
		test "$(jq "$left_ns > 0 and .wait_monotonic_ns + .explained_ns >= $left_ns" <<<"$report")" = true
else
	tap_equal "hotplug: culprits are unavailable, and said so" null "$(jq .culprits <<<"$report")"
	tap_skip "hotplug: the culprit's stack" "no culprits without the series"
	tap_skip "hotplug: the culprit's time on cpu3" "no culprits without the series"
	tap_skip "hotplug: the culprit's departure, as tracefs" "no culprits without the series"
	tap_skip "hotplug: the culprit's share of the wait" "no culprits without the series"
	tap_skip "hotplug: the kernel's sched_hotplug_pinned names the same task" "no such event without the series"
fi

# --- Affinity: taskset moves a task sleeping 400 ms in a section on cpu1
# to cpu2, and blocks until the section ends; tracefs times its
# sched_setaffinity() call.
rehoming() {
	trace_begin md_mdstat_affinity syscalls/sys_enter_sched_setaffinity \
		syscalls/sys_exit_sched_setaffinity
	"$mdsection" -c 1 -S 400ms >/dev/null &
	wait_pinned 1 1
	taskset -p -c 2 $! >/dev/null
	echo "$!" >"$work/affinity"
	wait
	trace_end "$work/syscalls"
}
export -f rehoming
in_scenario rehoming trace -j -e affinity_wait >"$work/affinity-trace" 2>"$work/err"
read -r pinned <"$work/affinity"
[ -s "$work/err" ] && tap_diag "mdstat trace: $(head -c 600 "$work/err")"
syscall_us=$(awk '/ taskset-[0-9]+ .* sys_sched_setaffinity\(/ { t = $4 + 0 }
	/ taskset-[0-9]+ .* sys_sched_setaffinity -> / && t { printf "%d\n", ($4 - t) * 1e6; exit }' \
	"$work/syscalls")
tap_equal "affinity: one wait, for the task in the section on cpu1" 1 \
	"$(jq -c "select(.event == \"affinity_wait_end\" and .pid == $pinned and .cpu == 1)" "$work/affinity-trace" | wc -l)"
tap_equal "affinity: taskset is the one that waited" taskset \
	"$(jq -r "select(.event == \"affinity_wait_end\" and .pid == $pinned) | .other_comm" "$work/affinity-trace")"
wait_us=$(jq "select(.event == \"affinity_wait_end\" and .pid == $pinned) | .wait_ns / 1000 | floor" "$work/affinity-trace")
tap_check "affinity: the wait is nine tenths of taskset's sched_setaffinity() or more, not more than it ($wait_us of ${syscall_us:-?} us)" \
	test "${wait_us:-0}" -le "${syscall_us:-0}" -a $(( ${wait_us:-0} * 10 )) -ge $(( ${syscall_us:-1} * 9 ))

# --- Bad input, signals and pipes ---------------------------------------------
before=$(linked)
"$mdstat" top -j -i 0.2 >"$work/top-sigterm" 2>&1 &
# Once it runs: its first interval is out.  A fixed 3 s was once too short
# (Debian's RT kernel, a cold make check): the SIGTERM came before mdstat
# had set its handler and ended it with status 143, no summary.
wait_line "$work/top-sigterm" '"type":"top"'
kill -TERM $!
wait $!
tap_equal "top: SIGTERM ends it with status 0 and a summary" "0 1" \
	"$? $(grep -c '"type":"summary"' "$work/top-sigterm")"
tap_equal "top: nothing stays attached after it" "$before" "$(linked)"
# A closed pipe ends mdstat long before the command it started (once
# attached) would end, even when it has nothing more to write: the reader
# goes only once the scenario is over and its events are in the pipe.
# (With head -n 2 reading at once, a write after the reader left ended
# mdstat; that failed once in 300 runs, in a boot beside kernel builds:
# all 4 events were in the pipe before head went, and mdstat ran on for
# the command's 50 s.)
start=$SECONDS
timeout 60 "$mdstat" trace -e pinned -C 1 -- bash -c '"$0" -c 1 -d 1 -s 300ms >/dev/null &
	sleep 0.1; "$0" -f 80 -c 1 -n 3 -s 1ms -S 5ms; wait; echo scenario over; sleep 50' "$mdsection" |
	{ sed -n '/^scenario over$/q'; sleep 2; }
tap_equal "trace: a closed pipe ends it, before its command" "0 yes" \
	"${PIPESTATUS[0]} $( [ $((SECONDS - start)) -lt 50 ] && echo yes || echo "no, $((SECONDS - start)) s")"
tap_equal "trace: nothing stays attached after it" "$before" "$(linked)"

tap_keep "$work"
