#!/bin/bash
# A CPU going offline waits for a task asleep inside a migrate_disable()
# section there (balance_hotplug_wait(): rq->nr_pinned), and goes down once
# the section ends: with a SCHED_OTHER sleeper, and a SCHED_FIFO one as the
# control.  On PREEMPT_RT a SCHED_OTHER task's hrtimer sleep expires in
# softirq context, and the dying CPU's ksoftirqd is parked before the wait:
# without patches/6.12/0004 the sleeper never wakes and the offline never
# ends (docs/mechanism.md, "PREEMPT_RT").
. "$(dirname "$0")/../lib.sh"
mdload_load
tap_plan 5

mono_ns() {
	perl -MTime::HiRes=clock_gettime,CLOCK_MONOTONIC \
		-e 'printf "%d\n", clock_gettime(CLOCK_MONOTONIC) * 1e9'
}

# sleeper_offline NAME [MDSECTION-ARGS...]: a task sleeps 1 s in a section
# on cpu3, allowed everywhere; cpu3 goes offline meanwhile.  The offline
# must end after the section did (it waited for it), and within 2 s of it.
sleeper_offline() {
	local name=$1 out offline_pid section_end offline_ns _
	shift
	out=$(mktemp)
	"$mdsection" -j -c 3 -S 1s "$@" >"$out" &
	wait_pinned 3 1
	taskset -p -c 0-3 $! >/dev/null
	{ echo 0 >/sys/devices/system/cpu/cpu3/online; mono_ns >"$out.offline"; } &
	offline_pid=$!
	# A hung offline cannot be killed (the writer waits uninterruptibly
	# for the hotplug thread): poll for 10 s, then report it and go on.
	for _ in $(seq 100); do
		kill -0 "$offline_pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$offline_pid" 2>/dev/null; then
		tap_fail "$name sleeper: cpu3 went offline within 10 s"
		tap_diag "the offline still waits; stacks of the writer and the sleeper:"
		tap_diag "$(cat /proc/"$offline_pid"/stack /proc/$(pgrep -f 'mdsection -j -c 3')/stack 2>&1)"
		tap_skip "$name sleeper: the offline waited for the section" "it has not ended"
		return 1
	fi
	wait "$offline_pid"
	tap_equal "$name sleeper: cpu3 went offline within 10 s" 0 "$(cat /sys/devices/system/cpu/cpu3/online)"
	wait
	section_end=$(jq -r 'select(.interrupted == false and .cpu_exit == 3) | .start_ns + .elapsed_ns' "$out")
	offline_ns=$(cat "$out.offline")
	rm -f "$out" "$out.offline"
	section_end=${section_end:-0}
	tap_check "$name sleeper: the offline ended after the section, within 2 s ($(( (offline_ns - section_end) / 1000000 )) ms)" \
		test "$section_end" -gt 0 -a "$offline_ns" -gt "$section_end" -a \
		"$offline_ns" -lt $((section_end + 2000000000))
	echo 1 >/sys/devices/system/cpu/cpu3/online
}

sleeper_offline SCHED_FIFO -f 10
sleeper_offline SCHED_OTHER
tap_equal "cpu3 is back online" 1 "$(cat /sys/devices/system/cpu/cpu3/online)"
