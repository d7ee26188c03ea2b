#!/bin/bash
# sched_setaffinity() of a task asleep in a migrate_disable() section, to
# a CPU that is going down.  The call must not return 0 before the task is
# inside its new mask (or, that CPU being unusable, inside the mask the
# kernel falls back to, which /proc then shows), and must return.  Debian's
# 6.1.192 and 6.12.118 with PREEMPT_RT return 0 and leave the task where it
# was, outside its mask, and the task's next section hits
# WARN_ON_ONCE(!pending) in affine_move_task() (on 6.12 RT without the
# series, only with the holder below SCHED_FIFO: its hrtimer sleep would
# hang the offline, patches/6.12/0005).  Three ways:
#   before  the call comes once cpu3 is inactive: the destination is
#           picked from the online CPUs because the task is pinned; our
#           kernel refuses the call, as for a task that is not pinned
#           (patches/6.1/0002, patches/6.12/0002);
#   during  the call comes while cpu3 is active, and cpu3 goes inactive
#           while the caller waits for the section: migration_cpu_stop()
#           completes the request although it cannot move the task there;
#           our kernel picks another CPU as hotplug would (same patches);
#   gone    the same, but cpu3 is offline before the section ends: the
#           task's migrate_enable() finds no online CPU in its mask,
#           keeps its pinned mask and never hands the request on, and the
#           caller waits for ever, in D, on Debian's 6.1.192 as on our
#           6.12 RT kernel without patches/6.12/0003.  The task is then
#           stopped (SIGSTOP) once out of its section, cpu1 goes down
#           and SIGCONT wakes it: with the pinned mask kept, the wakeup's
#           select_fallback_rq() finds no CPU and BUG()s (Debian's
#           6.1.192, generic and RT, and 6.12.118 RT).
# Each round: a task sleeps 800 ms in a section on cpu3, which keeps cpu3
# going down, inactive but online, that long (not for gone); a task on
# cpu1 runs sections asleep, one after another, of 400 ms (1 s for gone,
# time for cpu3 to go down within one); its mask is set to cpu3 alone.
# Runnable alone: guest/run -- tests/run tests/guest/affinity-hotplug.sh
# (MDSTAT_REPRO_ROUNDS rounds of each, 2 by default).
. "$(dirname "$0")/../lib.sh"
rounds=${MDSTAT_REPRO_ROUNDS:-2}
tap_plan $((7 * rounds))

mdload_load || exit 1
work=$(mktemp -d)
active_state=$(sed -n 's/^\([0-9]*\): sched:active$/\1/p' /sys/devices/system/cpu/hotplug/states)

# offline_cpu3: take cpu3 down in the background ($offline) and wait until
# it is inactive: its hotplug state below sched:active.
offline_cpu3() {
	echo 0 >/sys/devices/system/cpu/cpu3/online &
	offline=$!
	poll=0.01 wait_until 3 "cpu3 to go inactive" cpu3_inactive
}

cpu3_inactive() {
	[ "$(cat /sys/devices/system/cpu/cpu3/hotplug/state)" -lt "$active_state" ]
}

# cpu_in CPU MASK: whether CPU is in the list MASK (as /proc shows it).
cpu_in() {
	awk -v cpu="$1" -v mask="$2" 'BEGIN {
		n = split(mask, parts, ",")
		for (i = 1; i <= n; i++) {
			split(parts[i], r, "-")
			if (cpu >= r[1] && cpu <= (r[2] == "" ? r[1] : r[2])) exit 0
		}
		exit 1 }'
}

# round WHEN: one round; prints "STATUS MASK NEXT_CPU IN_SECTION": STATUS
# is "hung" if the call had not returned 10 s after it was made (sections
# are 1 s at most), MASK "none" and NEXT_CPU -1 if the task was gone,
# IN_SECTION whether the task was still in its section as cpu3 was offline
# (for gone).
round() {
	local holder= task caller status mask done_before next in_section=1 section=400ms _
	if [ "$1" = gone ]; then
		section=1s
	else
		"$mdsection" -c 3 -S 800ms >/dev/null &
		holder=$!
	fi
	"$mdsection" -c 1 -n 10 -S "$section" >"$work/sections" &
	task=$!
	if [ -n "$holder" ]; then
		wait_pinned 3 1
		taskset -p -c 0-3 "$holder" >/dev/null
	fi
	offline=
	[ "$1" != before ] || offline_cpu3
	wait_pinned 1 1
	taskset -p -c 3 "$task" >/dev/null 2>&1 &
	caller=$!
	if [ "$1" != before ]; then
		# Once the caller waits for the section (uninterruptible).
		wait_state "$caller" D
		if [ "$1" = during ]; then
			offline_cpu3
		else
			echo 0 >/sys/devices/system/cpu/cpu3/online
			in_section=$(cut -d, -f2 /sys/module/mdload/parameters/sections)
			kill -STOP "$task"
		fi
	fi
	for _ in $(seq 1000); do
		kill -0 "$caller" 2>/dev/null || break
		sleep 0.01
	done
	if kill -0 "$caller" 2>/dev/null; then
		status=hung
	else
		wait "$caller"
		status=$?
	fi
	if [ "$1" = gone ]; then
		wait_state "$task" T
		echo 0 >/sys/devices/system/cpu/cpu1/online
		kill -CONT "$task"
	fi
	mask=$(sed -n 's/^Cpus_allowed_list:\t//p' "/proc/$task/status")
	done_before=$(grep -c . "$work/sections")
	# The section in progress as the call returned, then one more.
	while [ "$(grep -c . "$work/sections")" -lt $((done_before + 2)) ] &&
		kill -0 "$task" 2>/dev/null; do
		sleep 0.01
	done
	next=$(sed -n "$((done_before + 2))p" "$work/sections" | sed -n 's/.*cpu_enter=\([0-9]*\).*/\1/p')
	kill "$task" 2>/dev/null
	wait "$task" $holder $offline 2>/dev/null
	echo 1 >/sys/devices/system/cpu/cpu3/online
	echo 1 >/sys/devices/system/cpu/cpu1/online
	echo "$status ${mask:-none} ${next:--1} $in_section"
}

for r in $(seq "$rounds"); do
	for when in before during gone; do
		read -r status mask next in_section < <(round "$when")
		tap_diag "$when, round $r: taskset exit $status, mask then $mask, next section on cpu$next"
		if [ "$when" = before ]; then
			tap_check "$when, round $r: refused, as for a task that is not pinned" \
				test "$status" != 0 -a "$status" != hung
		else
			tap_equal "$when, round $r: sched_setaffinity() succeeded" 0 "$status"
		fi
		[ "$when" != gone ] ||
			tap_equal "$when, round $r: cpu3 was offline before the section ended" 1 "$in_section"
		tap_check "$when, round $r: the next section ran inside the mask the call left (cpu$next in $mask)" \
			cpu_in "$next" "$mask"
	done
done
rm -rf "$work"
