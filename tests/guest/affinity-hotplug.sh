#!/bin/bash
# sched_setaffinity() to a CPU going down, while the target sleeps in a
# migrate_disable() section: it must not return before the task is inside
# its new mask (or, the CPU being unusable, inside the mask the kernel
# falls back to, which /proc then shows).  Debian's 6.1.192 returns 0 and
# leaves the task where it was, outside its mask, and the task's next
# section hits WARN_ON_ONCE(!pending) in affine_move_task(): the
# destination was picked from the online mask while the task was pinned,
# and migration_cpu_stop() completes the request although __migrate_task()
# cannot move it there (patches/0001).
#
# Each round: a task sleeps 600 ms in a section on cpu3, which keeps cpu3
# going down, inactive but online, that long; a task on cpu1 runs sections
# of 100 ms asleep, one after another; once cpu3 is inactive, the second
# task's mask is set to cpu3 alone while it is in a section.
# Runnable alone: guest/run -- tests/run tests/guest/affinity-hotplug.sh
# (MDSTAT_REPRO_ROUNDS rounds, 3 by default).
. "$(dirname "$0")/../lib.sh"
rounds=${MDSTAT_REPRO_ROUNDS:-3}
tap_plan $((2 * rounds))

mdload_load || exit 1
work=$(mktemp -d)
active_state=$(sed -n 's/^\([0-9]*\): sched:active$/\1/p' /sys/devices/system/cpu/hotplug/states)

for round in $(seq "$rounds"); do
	"$mdsection" -c 3 -S 600ms >/dev/null &
	holder=$!
	"$mdsection" -c 1 -n 10 -S 100ms >"$work/sections" &
	task=$!
	wait_pinned 3 1
	taskset -p -c 0-3 "$holder" >/dev/null
	echo 0 >/sys/devices/system/cpu/cpu3/online &
	offline=$!
	# Inactive: the hotplug state of cpu3 is below sched:active.
	for _ in $(seq 200); do
		[ "$(cat /sys/devices/system/cpu/cpu3/hotplug/state)" -lt "$active_state" ] && break
		sleep 0.01
	done
	wait_pinned 1 1
	taskset -p -c 3 "$task" >/dev/null
	status=$?
	mask=$(sed -n 's/^Cpus_allowed_list:\t//p' "/proc/$task/status")
	done_before=$(grep -c . "$work/sections")
	# The section in progress as the call returned, then one more.
	while [ "$(grep -c . "$work/sections")" -lt $((done_before + 2)) ] && kill -0 "$task" 2>/dev/null; do
		sleep 0.01
	done
	next=$(sed -n "$((done_before + 2))p" "$work/sections" | sed -n 's/.*cpu_enter=\([0-9]*\).*/\1/p')
	kill "$task" 2>/dev/null
	wait "$task" "$holder" "$offline" 2>/dev/null
	echo 1 >/sys/devices/system/cpu/cpu3/online
	tap_diag "round $round: taskset exit $status, mask then $mask, next section on cpu${next:-?}"
	tap_equal "round $round: sched_setaffinity() succeeded" 0 "$status"
	tap_check "round $round: the next section ran inside the mask the call left (cpu${next:-?} in $mask)" \
		python3 -c 'import sys
cpu, mask = int(sys.argv[1]), sys.argv[2]
cpus = set()
for part in mask.split(","):
    lo, _, hi = part.partition("-")
    cpus.update(range(int(lo), int(hi or lo) + 1))
sys.exit(cpu not in cpus)' "${next:--1}" "$mask"
done
rm -rf "$work"
