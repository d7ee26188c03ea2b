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

# measure NAME MDSTAT-ARGS...: mdstat runs 30 intervals of 0.1 s; its
# memory is read while it runs, its maps before it ends.
measure() {
	local name=$1 pid status maps
	shift
	"$mdstat" "$@" -v -n 30 -i 0.1 >"$work/out" 2>"$work/err" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		if grep -q 'interval 20:' "$work/err"; then
			cp "/proc/$pid/status" "$work/status" 2>/dev/null
			bpftool map show -j >"$work/maps" 2>/dev/null
			break
		fi
		sleep 0.05
	done
	wait "$pid"
	status=$?
	[ "$status" = 0 ] || { echo "footprint: mdstat $* exited $status: $(tail -n 2 "$work/err")" >&2; return 1; }
	record "${name}_vmrss_kb" "$(awk '/^VmRSS:/ { print $2 }' "$work/status")"
	record "${name}_vmhwm_kb" "$(awk '/^VmHWM:/ { print $2 }' "$work/status")"
	# The maps that process holds, by name, and in all.
	maps=$(jq -c --argjson pid "$pid" '[.[] | select(any(.pids[]?; .pid == $pid))]' "$work/maps")
	record "${name}_bpf_maps_kb" "$(jq '[.[].bytes_memlock] | add / 1024 | floor' <<<"$maps")"
	record "${name}_cpus_map_kb" "$(jq '[.[] | select(.name == "cpus") | .bytes_memlock] | add / 1024 | floor' <<<"$maps")"
	record "${name}_hists_map_kb" "$(jq '[.[] | select(.name == "hists") | .bytes_memlock] | add / 1024 | floor' <<<"$maps")"
	# From the 6th interval on: the first ones page things in.
	sed -n 's/.*interval \([0-9]*\): \([0-9.]*\) ms.*/\1 \2/p' "$work/err" |
		awk '$1 > 5 { print $2 }' >"$work/times"
	record "${name}_interval_ms_median" "$(quantile 0.5 "$work/times")"
	record "${name}_interval_ms_max" "$(quantile 1 "$work/times")"
}

measure top top -b
mkdir "$work/textfile"
measure export export -o "$work/textfile"
record export_file_kb "$(($(stat -c %s "$work/textfile/mdstat.prom") / 1024))"
rm -rf "$work"
