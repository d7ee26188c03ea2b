#!/bin/bash
# Benchmark 4, in the guest: how long offlining cpu3 takes against how
# long a pinned section holds it up, and whom "mdstat hotplug" blames.
#
# A task on cpu3 starts a sleeping section just before cpu3 is offlined.
# The offline reaches its wait for pinned tasks some time after it starts
# (the lead, a few hundred ms under TCG); a first set of offlines with a 1 s
# section measures it.  Then the sections last the lead plus 1, 10 and
# 100 ms, so that they hold the wait up about that long; "0" is an offline
# with no section.  Per length: the median offline time and its excess
# over no section, the median wait, how much of it the section held
# (mdstat's culprit record), in how many offlines mdstat named the
# section's task, and the share of all waiting it put on that task.
#
# usage: bench/hotplug.sh
#        bench/hotplug.sh --offline US PIDFILE   (one offline; run by mdstat)
set -u
. "$(dirname "$0")/lib.sh"

cpu3=/sys/devices/system/cpu/cpu3/online

if [ "${1:-}" = --offline ]; then
	if [ "$2" != 0 ]; then
		start_held section "$mdsection" -w -c 3 -S "$2us"
		echo "$section_pid" >"$3"
		release section
	fi
	echo 0 >"$cpu3"
	status=$?
	[ "$2" = 0 ] || wait "$section_pid"
	exit "$status"
fi

rounds=${BENCH_HOTPLUG_ROUNDS:-5}
work=$(mktemp -d)
mdload_load || exit 1

# offline US: one offline of cpu3 with a US-long section (0: none) under
# mdstat hotplug; appends "offline_ns wait_ns held_ns section_ns" to
# $work/US, held and section being the section's task's (0 if none).
offline() {
	local pid
	rm -f "$work/pid"
	"$mdstat" hotplug -j -- "$0" --offline "$1" "$work/pid" >"$work/report" ||
		{ echo "bench: mdstat hotplug failed for a $1 us section" >&2; exit 1; }
	echo 1 >"$cpu3"
	pid=$(cat "$work/pid" 2>/dev/null || echo 0)
	jq -r --argjson pid "$pid" 'select(.type == "offline" and .cpu == 3) |
		([.culprits // [] | .[] | select(.pid == $pid)] | first // {}) as $c |
		[.duration_ns, .wait_ns, ($c.held_ns // 0), ($c.section_ns // 0)] | @tsv' \
		"$work/report" >>"$work/$1"
}

# ms_column FILE N: column N of $work/FILE, in ms, one a line.
ms_column() {
	awk -v n="$2" '{ printf "%.3f\n", $n / 1e6 }' "$work/$1"
}

for _ in $(seq 3); do
	offline 1000000
done
lead_ms=$(awk '$3 > 0 { print ($4 - $3) / 1e6 }' "$work/1000000" >"$work/lead" && quantile 0.5 "$work/lead")
[ -n "$lead_ms" ] || { echo "bench: a 1 s section never held cpu3's offline up" >&2; exit 1; }
lead_us=$(awk -v l="$lead_ms" 'BEGIN { printf "%d\n", l * 1000 }')

lengths=(0 1 10 100)
for _ in $(seq "$rounds"); do
	for ms in "${lengths[@]}"; do
		us=0
		[ "$ms" = 0 ] || us=$((lead_us + ms * 1000))
		offline "$us"
		tail -n 1 "$work/$us" >>"$work/at.$ms"
	done
done

record hotplug.rounds "$rounds"
record hotplug.lead_ms "$(printf '%.1f' "$lead_ms")"
ms_column at.0 1 >"$work/base"
base=$(quantile 0.5 "$work/base")
for ms in "${lengths[@]}"; do
	ms_column "at.$ms" 1 >"$work/took"
	ms_column "at.$ms" 2 >"$work/wait"
	ms_column "at.$ms" 3 >"$work/held"
	took=$(quantile 0.5 "$work/took")
	record "hotplug.$ms.offline_ms" "$(printf '%.1f' "$took")"
	record "hotplug.$ms.excess_ms" "$(awk -v a="$took" -v b="$base" 'BEGIN { printf "%.1f\n", a - b }')"
	record "hotplug.$ms.wait_ms" "$(printf '%.1f' "$(quantile 0.5 "$work/wait")")"
	record "hotplug.$ms.held_ms" "$(printf '%.1f' "$(quantile 0.5 "$work/held")")"
	record "hotplug.$ms.waited" "$(awk '$2 > 0 { n++ } END { print n + 0 "/" NR }' "$work/at.$ms")"
	record "hotplug.$ms.named" "$(awk '$2 > 0 { w++; if ($3 > 0) n++ } END { print n + 0 "/" w + 0 }' "$work/at.$ms")"
	[ "$ms" = 0 ] || record "hotplug.$ms.attributed" "$(awk '{ w += $2; h += $3 }
		END { if (w) printf "%.3f\n", h / w; else print "-" }' "$work/at.$ms")"
done
rm -rf "$work"
