#!/bin/bash
# What mdstat costs as the CPUs grow: its resident memory (VmRSS, VmHWM),
# the memory of its BPF maps (bpftool's bytes_memlock), and the time each
# interval of top and of export takes to read and show every CPU (mdstat
# -v), on the kernel and CPUs the guest booted with.  Results as "KEY
# VALUE" lines (bench/lib.sh); run it alone: guest/run -- bench/footprint.sh
. "$(dirname "$0")/lib.sh"

cpus=$(($(cut -d- -f2 /sys/devices/system/cpu/possible) + 1))
work=$(mktemp -d)
record footprint_possible_cpus "$cpus"
record footprint_online_cpus "$(cat /sys/devices/system/cpu/online)"

# maps PID: "NAME BYTES" for each BPF map PID holds a descriptor of, as
# its fdinfo and bpftool tell (bytes_memlock).
maps() {
	local id
	for id in $(awk '/^map_id:/ { print $2 }' /proc/"$1"/fdinfo/* 2>/dev/null | sort -un); do
		bpftool map show id "$id" -j | jq -r '"\(.name) \(.bytes_memlock)"'
	done
}

# wait_interval N: until mdstat -v said its Nth interval ended (60 s at most).
wait_interval() {
	local _
	for _ in $(seq 1200); do
		grep -q "interval $1:" "$work/err" && return 0
		sleep 0.05
	done
	return 1
}

# measure NAME MDSTAT-ARGS...: mdstat runs intervals of 0.1 s; its memory
# and its maps are read as the 20th ends, and it is stopped after the 30th.
measure() {
	local name=$1 pid status
	shift
	"$mdstat" "$@" -v -i 0.1 >"$work/out" 2>"$work/err" &
	pid=$!
	wait_interval 20
	cp "/proc/$pid/status" "$work/status"
	maps "$pid" >"$work/maps"
	wait_interval 30
	kill -TERM "$pid"
	wait "$pid"
	status=$?
	[ "$status" = 0 ] || { echo "footprint: mdstat $* exited $status: $(tail -n 2 "$work/err")" >&2; return 1; }
	record "${name}_vmrss_kb" "$(awk '/^VmRSS:/ { print $2 }' "$work/status")"
	record "${name}_vmhwm_kb" "$(awk '/^VmHWM:/ { print $2 }' "$work/status")"
	echo "footprint: $name's maps, bytes:" $(cat "$work/maps")
	record "${name}_bpf_maps_kb" "$(awk '{ n += $2 } END { printf "%d\n", n / 1024 }' "$work/maps")"
	record "${name}_cpus_map_kb" "$(awk '$1 == "cpus" { printf "%d\n", $2 / 1024 }' "$work/maps")"
	record "${name}_hists_map_kb" "$(awk '$1 == "hists" { printf "%d\n", $2 / 1024 }' "$work/maps")"
	# From the 6th interval on: the first ones page things in.
	sed -n 's/.*interval \([0-9]*\): \([0-9.]*\) ms.*/\1 \2/p' "$work/err" |
		awk '$1 > 5 && $1 <= 30 { print $2 }' >"$work/times"
	record "${name}_interval_ms_median" "$(quantile 0.5 "$work/times")"
	record "${name}_interval_ms_max" "$(quantile 1 "$work/times")"
}

measure top top -b
mkdir "$work/textfile"
measure export export -o "$work/textfile"
record export_file_kb "$(($(stat -c %s "$work/textfile/mdstat.prom") / 1024))"
rm -rf "$work"
