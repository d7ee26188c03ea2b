# Helpers that read tracefs text (sourced), for the tests and the demo:
# what the v2 series leaves to the record's CPU or to events beside its own.

# on_cpu CPU FILE: the records of the trace FILE made on CPU.
on_cpu() {
	grep -F " [$(printf %03d "$1")] " "$2"
}

# followed_by FILE NEXT_COMM NEXT_PRIO: the sched_pinned_preempt events in
# the trace FILE whose sched_switch, the next record of the same CPU, hands
# the CPU to a task NEXT_COMM of priority NEXT_PRIO.
followed_by() {
	awk -v want=" next_comm=$2 next_pid=[0-9]+ next_prio=$3$" '
		/ sched_pinned_preempt: / { open[$2] = 1; next }
		/ sched_switch: / && open[$2] { n += ($0 ~ want); open[$2] = 0 }
		END { print n + 0 }' "$1"
}

# A CPU offline.  The series has no event of its own for the hotplug wait:
# the wait is the sched:waitempty step, sched_cpu_wait_empty(), between its
# cpuhp_enter and cpuhp_exit events, both recorded by the hotplug thread of
# the CPU going down:
#   cpuhp/3-28 [003] ..... 26.04: cpuhp_enter: cpu: 0003 target:   0 step: 155 (sched_cpu_wait_empty)
#   cpuhp/3-28 [003] ..... 26.38: cpuhp_exit:  cpu: 0003  state: 155 step: 155 ret: 0
# Each reads a trace on its standard input.

# The awk code they share: ts() is a record's timestamp, cpuhp(name) sets
# hp_cpu and hp_step from a cpuhp_enter or cpuhp_exit record of that name
# and says whether it is one, hp_fun is the step's callback (enter only).
_cpuhp_awk='
	function ts(   i) {
		for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) return $i + 0
		return -1
	}
	function cpuhp(name,   i) {
		if (index($0, " " name ": ") == 0) return 0
		hp_cpu = hp_step = -1; hp_fun = ""
		for (i = 1; i < NF; i++) {
			if ($i == "cpu:") hp_cpu = $(i + 1) + 0
			if ($i == "step:") hp_step = $(i + 1) + 0
		}
		if (match($0, /\([A-Za-z0-9_.]+\)$/)) hp_fun = substr($0, RSTART + 1, RLENGTH - 2)
		return hp_cpu >= 0 && hp_step >= 0
	}'

# waitempty_steps CPU: "BEGIN END" (seconds, to the microsecond, as tracefs
# has them: awk's print would round them to 6 digits) of each
# sched:waitempty step of CPU, one line per offline; END is empty for a step
# still running as the trace ended.
waitempty_steps() {
	awk -v want="$1" "$_cpuhp_awk"'
		cpuhp("cpuhp_enter") && hp_cpu == want && hp_fun == "sched_cpu_wait_empty" {
			begin[hp_step] = ts(); next
		}
		cpuhp("cpuhp_exit") && hp_cpu == want && (hp_step in begin) {
			printf "%.6f %.6f\n", begin[hp_step], ts()
			delete begin[hp_step]
		}
		END { for (step in begin) printf "%.6f\n", begin[step] }'
}

# inside_waitempty GOT_NS CPU TRACE: whether a hotplug wait of GOT_NS that
# mdstat timed on CPU is the one sched:waitempty step of CPU in TRACE.  mdstat
# times sched_cpu_wait_empty() in probes of its own, inside the cpuhp_enter
# and cpuhp_exit that bracket the step, on every kernel: never longer
# (tracefs prints microseconds), shorter by what the host took the vCPU
# away between a tracepoint and mdstat's probe.  In 25 make check runs on
# 2026-12-06 mdstat was 0.59 to 1.55 ms short, and once 6.8 ms (a fresh
# clone at 1a0f9be, stock kernel): the bound is 10 ms.
inside_waitempty() {
	waitempty_ns "$2" <"$3" | awk -v got="$1" '
		{ want = $1; steps++ }
		END { exit !(steps == 1 && got <= want + 2000 && want - got <= 10e6) }'
}

# waitempty_bounds CPU: "ENTER SLEPT WOKE EXIT" (seconds, as tracefs has
# them) of each finished sched:waitempty step of CPU: its cpuhp_enter, the
# first time its hotplug thread switched out asleep in the step and the
# last time it was switched back in from a sleep, and its cpuhp_exit.  A
# thread that never slept there has EXIT for SLEPT and ENTER for WOKE.
# sched_cpu_wait_empty() is all the step does, and it sleeps only in
# balance_hotplug_wait(): a probe of its entry reads the clock between ENTER
# and SLEPT, and a probe of its return between WOKE and EXIT.
waitempty_bounds() {
	awk -v want="$1" "$_cpuhp_awk"'
		cpuhp("cpuhp_enter") && hp_cpu == want && hp_fun == "sched_cpu_wait_empty" {
			enter = ts(); step = hp_step; slept = woke = ""; asleep = 0
			thread = $1; sub(/.*-/, "", thread)
			next
		}
		enter == "" { next }
		cpuhp("cpuhp_exit") && hp_cpu == want && hp_step == step {
			printf "%.6f %.6f %.6f %.6f\n", enter, slept == "" ? ts() : slept,
			       woke == "" ? enter : woke, ts()
			enter = ""
			next
		}
		/ sched_switch: / && $0 ~ " prev_pid=" thread " " && $0 !~ " prev_state=R\\+? " {
			if (slept == "") slept = ts()
			asleep = 1
		}
		/ sched_switch: / && $0 ~ " next_pid=" thread " " && asleep { woke = ts(); asleep = 0 }'
}

# waitempty_ns CPU: how long each finished sched:waitempty step of CPU
# lasted, in nanoseconds (waitempty_steps).
waitempty_ns() {
	waitempty_steps "$1" | awk 'NF == 2 { printf "%.0f\n", ($2 - $1) * 1e9 }'
}

# going_down CPU: the records from the sched_cpu_deactivate step of CPU
# (it marks the CPU inactive and turns balance_push() on) to the end of its
# sched:waitempty step: while balance_push() empties the CPU.
going_down() {
	awk -v want="$1" "$_cpuhp_awk"'
		cpuhp("cpuhp_enter") && hp_cpu == want && hp_fun == "sched_cpu_deactivate" { on = 1 }
		on { print }
		cpuhp("cpuhp_enter") && hp_cpu == want && hp_fun == "sched_cpu_wait_empty" { step = hp_step }
		on && step && cpuhp("cpuhp_exit") && hp_cpu == want && hp_step == step { on = step = 0 }'
}

# runnable_at_wait CPU: how many tasks were runnable on CPU, the running one
# included, as its hotplug thread entered sched_cpu_wait_empty(): what
# rq->nr_running held there, from sched_switch, sched_wakeup(_new) and
# sched_migrate_task.  A task runnable there since before the trace began
# and never switched in, woken or moved before the wait is missed.
runnable_at_wait() {
	awk -v want="$1" "$_cpuhp_awk"'
		function field(name,   s) {
			if (!match($0, " " name "=[^ ]+")) return ""
			s = substr($0, RSTART + 1, RLENGTH - 1)
			return substr(s, index(s, "=") + 1)
		}
		BEGIN { here = sprintf("[%03d]", want) }
		cpuhp("cpuhp_enter") && hp_cpu == want && hp_fun == "sched_cpu_wait_empty" { done = 1; exit }
		/ sched_switch: / {
			mine = index($0, " " here " ") > 0
			if (mine) {
				# The idle task switches out as R: it is no task.
				if (field("prev_state") ~ /^R/ && field("prev_pid") != "0") on[field("prev_pid")] = 1
				else delete on[field("prev_pid")]
			}
			if (field("next_pid") != "0") {
				if (mine) on[field("next_pid")] = 1
				else delete on[field("next_pid")]
			}
			next
		}
		/ sched_wakeup(_new)?: / {
			if (field("target_cpu") + 0 == want) on[field("pid")] = 1
			else delete on[field("pid")]
			next
		}
		/ sched_migrate_task: / {
			if (field("dest_cpu") + 0 == want) on[field("pid")] = 1
			else if (field("orig_cpu") + 0 == want) delete on[field("pid")]
		}
		END { if (done) { for (pid in on) n++; print n + 0 } }'
}
