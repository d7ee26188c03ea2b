#!/bin/bash
# mdstat on a machine with more than 256 possible CPUs, nothing dropped:
# tests/check boots Debian's generic kernel (NR_CPUS=8192) with 260 vCPUs,
# 4 of them online at boot (maxcpus=4).  The last CPU comes online and a
# task there is preempted inside its section by a FIFO task; top, hist,
# trace and export must count it on that CPU, as sched_switch saw it.
. "$(dirname "$0")/../lib.sh"

possible=$(cat /sys/devices/system/cpu/possible)
last=${possible##*-}
if [ "$last" -lt 256 ]; then
	tap_plan 1
	tap_skip "more than 256 possible CPUs" "this kernel has $possible (tests/check boots Debian's with 260)"
	exit 0
fi
tap_plan 10

mdload_load || exit 1
mdstat=$top/build/mdstat
work=$(mktemp -d)
tap_diag "kernel $(uname -r), possible CPUs $possible, online $(cat /sys/devices/system/cpu/online)"

echo 1 >"/sys/devices/system/cpu/cpu$last/online"
tap_equal "cpu$last comes online" 1 "$(cat "/sys/devices/system/cpu/cpu$last/online")"
"$mdstat" doctor >"$work/doctor" 2>&1
tap_equal "mdstat doctor: everything this kernel offers works" 0 "$?"
[ -s "$work/doctor" ] && tap_diag "$(grep -E '^  (yes|no) ' "$work/doctor" | head -n 9)"

# The stacking scenario of mdstat.sh, on cpu$last, with the pinned task at
# FIFO 10: as SCHED_OTHER it shared the CPU with other tasks, and the FIFO
# task's wakeups could find one of those running (in one run it preempted
# the pinned task once, not 8 times; 6 switches went to other tasks).
stacking() {
	shell_off_cpu "$last"
	trace_begin md_many sched_switch
	"$mdsection" -f 10 -c "$last" -d 2 -s 1s >/dev/null &
	echo $! >"$work/pinned"
	wait_pinned "$last" 1
	"$mdsection" -f 80 -c "$last" -n 8 -s 2ms -S 20ms >/dev/null &
	echo $! >"$work/preempter"
	wait
	trace_end "$work/switches"
}
export -f stacking
export work last

# in_scenario MDSTAT-ARGS...: mdstat runs the scenario once attached.
in_scenario() {
	"$mdstat" "$@" -- bash -c '. "$0"/tests/lib.sh; stacking' "$top"
}

# truth: the pinned task's preemptions by the FIFO task, and all its
# runnable switches, in the last scenario's sched_switch.
truth() {
	local pinned preempter
	pinned=$(cat "$work/pinned") preempter=$(cat "$work/preempter")
	awk -v pid="$pinned" -v next_pid="$preempter" '
		/ sched_switch: / && $0 ~ "prev_pid=" pid " prev_prio=[0-9]+ prev_state=R\\+? " {
			all++; if ($0 ~ "next_pid=" next_pid " ") by++ }
		END { print by + 0, all + 0 }' "$work/switches"
}

# within GOT: whether GOT is between the two numbers truth gives.
within() {
	local by all
	read -r by all < <(truth)
	tap_diag "on cpu$last: mdstat $1; sched_switch: $by by the FIFO task, $all runnable switches"
	[ "$by" -ge 8 ] && [ "${1:-0}" -ge "$by" ] && [ "${1:-0}" -le "$all" ]
}

in_scenario top -j -b -i 0.5 -C "$last" >"$work/top" 2>"$work/err"
got=$(jq "select(.type == \"summary\") | .cpus[] | select(.cpu == $last) | .preempted" "$work/top")
tap_check "top: the summary counts the preemptions on cpu$last as sched_switch saw them" within "$got"
tap_check "top: its intervals show cpu$last" \
	grep -q "\"cpu\":$last,\"online\":true" "$work/top"

in_scenario hist -j -P -C "$last" >"$work/hist" 2>"$work/err"
got=$(jq "select(.type == \"hist\" and .kind == \"stacked\" and .cpu == $last) | .count" "$work/hist")
tap_check "hist -P: cpu$last's stacked histogram counts them" within "$got"

in_scenario trace -j -e pinned_preempt -C "$last" >"$work/trace" 2>"$work/err"
pinned=$(cat "$work/pinned")
got=$(jq -c "select(.event == \"pinned_preempt\" and .pid == $pinned and .cpu == $last)" "$work/trace" | wc -l)
tap_check "trace: a pinned_preempt on cpu$last for each" within "$got"

mkdir "$work/textfile"
in_scenario export -i 0.5 -o "$work/textfile" 2>"$work/err"
got=$(awk -v name="mdstat_pinned_preemptions_total{cpu=\"$last\"}" '$1 == name { print $2 }' \
	"$work/textfile/mdstat.prom")
tap_check "export: mdstat_pinned_preemptions_total{cpu=\"$last\"} counts them" within "$got"
tap_equal "export: a sample per possible CPU" "$((last + 1))" \
	"$(grep -c '^mdstat_pinned_preemptions_total{' "$work/textfile/mdstat.prom")"

tap_check "-C names a CPU above 255" bash -c '"$0" top -n 1 -i 0.1 -b -C "$1" >/dev/null' "$mdstat" "$last"
"$mdstat" top -C "$((last + 1))" >/dev/null 2>"$work/err"
tap_equal "-C beyond the possible CPUs: exit 2, one line naming the limit" \
	"2 mdstat top: CPU $((last + 1)) does not exist (this machine has 0-$last)" "$? $(cat "$work/err")"

echo 0 >"/sys/devices/system/cpu/cpu$last/online"
rm -rf "$work"
