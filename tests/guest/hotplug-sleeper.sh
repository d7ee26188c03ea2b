#!/bin/bash
# A CPU going offline waits for a task asleep inside a migrate_disable()
# section there (balance_hotplug_wait(): rq->nr_pinned), and goes down once
# the section ends: with a SCHED_OTHER sleeper, and a SCHED_FIFO one as the
# control.  On PREEMPT_RT a SCHED_OTHER task's hrtimer sleep expires in
# softirq context, and the dying CPU's ksoftirqd is parked before the wait:
# without patches/6.12/0005 the sleeper never wakes and the offline never
# ends (docs/mechanism.md, "PREEMPT_RT").  There (rt_sleeper_hangs) the
# test is skipped: the guest would not come back (on Debian's RT kernel the
# test's own poller, a "chrt -f 1 sleep 0.1", did not return while the
# offline hung).  MDSTAT_HOTPLUG_HANG=1 runs it there anyway, as
# the reproducer: the SCHED_OTHER case then fails, and the guest hangs until
# guest/run's timeout.
. "$(dirname "$0")/../lib.sh"
tap_plan 5
if rt_sleeper_hangs && [ -z "${MDSTAT_HOTPLUG_HANG:-}" ]; then
	for _ in $(seq 5); do
		tap_skip "a sleeper in a section holds cpu3's offline" \
			"PREEMPT_RT without the fix: it hangs the guest (MDSTAT_HOTPLUG_HANG=1 to see)"
	done
	exit 0
fi
mdload_load

mono_ns() {
	perl -MTime::HiRes=clock_gettime,CLOCK_MONOTONIC \
		-e 'printf "%d\n", clock_gettime(CLOCK_MONOTONIC) * 1e9'
}

# poll_offline SECONDS: wait that long at most for the offline to end.
poll_offline() {
	local _
	for _ in $(seq $(($1 * 10))); do
		kill -0 "$offline_pid" 2>/dev/null || return 0
		sleep 0.1
	done
	! kill -0 "$offline_pid" 2>/dev/null
}

# sleeper_offline NAME CHRT-ARGS...: a task of that policy sleeps 1 s in a
# section on cpu3, allowed everywhere; cpu3 goes offline meanwhile.  The
# offline must end after the section did (it waited for it), and within
# 2 s of it.
sleeper_offline() {
	local name=$1 out sleeper section_end offline_ns
	shift
	out=$(mktemp)
	chrt "$@" "$mdsection" -j -c 3 -S 1s >"$out" &
	sleeper=$!
	wait_pinned 3 1
	taskset -p -c 0-3 "$sleeper" >/dev/null
	{ echo 0 >/sys/devices/system/cpu/cpu3/online; mono_ns >"$out.offline"; } &
	offline_pid=$!
	poll_offline 10
	tap_equal "$name sleeper: cpu3 went offline within 10 s" 0 \
		"$(cat /sys/devices/system/cpu/cpu3/online)"
	if kill -0 "$offline_pid" 2>/dev/null; then
		tap_diag "the offline still waits; its stack: $(cat /proc/"$offline_pid"/stack 2>&1)"
		return 1
	fi
	wait "$sleeper"
	section_end=$(jq -r 'select(.interrupted == false and .cpu_exit == 3) | .start_ns + .elapsed_ns' "$out")
	section_end=${section_end:-0}
	offline_ns=$(cat "$out.offline" 2>/dev/null)
	offline_ns=${offline_ns:-0}
	tap_check "$name sleeper: the offline ended after the section, within 2 s ($(( (offline_ns - section_end) / 1000000 )) ms)" \
		test "$section_end" -gt 0 -a "$offline_ns" -gt "$section_end" -a \
		"$offline_ns" -lt $((section_end + 2000000000))
	wait
	rm -f "$out" "$out.offline"
	echo 1 >/sys/devices/system/cpu/cpu3/online
}

sleeper_offline SCHED_FIFO -f 10 &&
	sleeper_offline SCHED_OTHER -o 0
tap_equal "cpu3 is back online" 1 "$(cat /sys/devices/system/cpu/cpu3/online)"
