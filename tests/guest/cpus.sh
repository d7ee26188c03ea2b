#!/bin/bash
# The guest boots with every CPU that guest/run gives it, and a CPU can be
# taken offline and brought back.
. "$(dirname "$0")/../lib.sh"
tap_plan 5

tap_equal "4 CPUs online" "0-3" "$(cat /sys/devices/system/cpu/online)"

cpu=/sys/devices/system/cpu/cpu2/online
echo 0 >"$cpu"
tap_equal "cpu2 offline" "0-1,3" "$(cat /sys/devices/system/cpu/online)"
# Nothing may run on an offline CPU: pinning a task there must fail.
tap_check "cannot pin a task to offline cpu2" \
	eval '! taskset -c 2 true 2>/dev/null'
echo 1 >"$cpu"
tap_equal "cpu2 back online" "0-3" "$(cat /sys/devices/system/cpu/online)"
tap_equal "a task pinned to cpu2 runs there" "2" \
	"$(taskset -c 2 awk '{ print $39 }' /proc/self/stat)"
