# Helpers for scripts that run in the guest (sourced): the mdload module,
# tracefs instances, the runqueue counters, and the scenarios built from them.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mdsection=$top/build/mdsection

# The mdload test module (guest only), and stale_int3 built beside it; built
# for another kernel (guest/devtree's), it is named by MDSTAT_MDLOAD_KO.
mdload_ko=${MDSTAT_MDLOAD_KO:-$top/build/mdload/mdload.ko}
stale_int3_ko=$(dirname "$mdload_ko")/stale_int3.ko

# Load mdload unless it is loaded.
mdload_load() {
	[ -e /dev/mdload ] || insmod "$mdload_ko"
}

# trace_begin NAME EVENT...: a tracefs instance of its own recording these
# events, of the sched group unless named GROUP/EVENT; its folder is in
# $trace.  Its clock is CLOCK_MONOTONIC's, the one BPF and bpftrace use:
# tracefs' default, sched_clock(), is the TSC, which the guest finds
# unsynchronized between its vCPUs.
trace_begin() {
	local event
	trace=/sys/kernel/tracing/instances/$1
	shift
	[ ! -d "$trace" ] || rmdir "$trace"
	mkdir "$trace"
	echo mono >"$trace/trace_clock"
	echo 8192 >"$trace/buffer_size_kb"
	for event; do
		[[ $event == */* ]] || event=sched/$event
		echo 1 >"$trace/events/$event/enable"
	done
}

# trace_end FILE: stop the instance, keep its text in FILE, remove it.
trace_end() {
	echo 0 >"$trace/tracing_on"
	cat "$trace/trace" >"$1"
	rmdir "$trace"
}

# trace_count FILE EVENT [FIELD=VALUE...]: events in FILE with those fields.
trace_count() {
	local file=$1 event=$2
	shift 2
	awk -v event="$event:" -v want="$*" '
		$0 ~ / [a-z_]+: / {
			for (i = 1; i <= NF; i++) if ($i == event) break
			if (i > NF) next
			n = split(want, w, " ")
			for (j = 1; j <= n; j++) {
				found = 0
				for (k = i + 1; k <= NF; k++) if ($k == w[j]) found = 1
				if (!found) next
			}
			count++
		}
		END { print count + 0 }' "$file"
}

# wait_until SECONDS WHAT COMMAND...: run COMMAND every $poll seconds (0.05
# unless set) until it succeeds, SECONDS at most; "WHAT" names the wait in
# the message of a timeout.
wait_until() {
	local end=$((SECONDS + $1)) what=$2
	shift 2
	until "$@"; do
		if [ "$SECONDS" -ge "$end" ]; then
			echo "# timed out waiting for $what" >&2
			return 1
		fi
		sleep "${poll:-0.05}"
	done
}

# task_state PID: PID's state letter from /proc (R, S, D, T, ...), Z once
# it is gone.
task_state() {
	local state
	state=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)
	echo "${state:-Z}"
}

in_state() {
	[ "$(task_state "$1")" = "$2" ]
}

# wait_state PID STATE: wait, 5 s at most, until PID is in STATE; polled
# every 10 ms, as the scenarios act on the state as soon as it is reached.
wait_state() {
	poll=0.01 wait_until 5 "pid $1 to be in state $2" in_state "$1" "$2"
}

# polls_or_ended PID: whether PID blocks in epoll_wait() or has ended.
polls_or_ended() {
	[ "$(cat "/proc/$1/wchan" 2>/dev/null)" = do_epoll_wait ] || in_state "$1" Z
}

# bpftrace_attached PID: wait, 90 s at most, until the bpftrace PID has its
# probes live.  Its "Attaching N probes..." comes before it attaches them;
# it blocks in epoll_wait() only once all are attached.  Fails if PID ended
# (it printed an ERROR).
bpftrace_attached() {
	wait_until 90 "bpftrace $1 to attach" polls_or_ended "$1" && ! in_state "$1" Z
}

# bpftrace_stop PID: end the bpftrace PID as Ctrl-C does, so it prints its
# maps, and wait for it.  bpftrace 0.17 notices a SIGINT only when it
# interrupts its epoll_wait(): one that lands while it still attaches its
# probes (after it printed "Attaching") is lost, and it polls on.  So the
# signal goes again while it is found back in epoll_wait(), never once it
# left (a second SIGINT then would kill it before it prints); after 60 s,
# it is killed.
bpftrace_stop() {
	local tick
	kill -INT "$1" 2>/dev/null
	for tick in $(seq 600); do
		sleep 0.1
		[ "$(task_state "$1")" != Z ] || break
		[ $((tick % 5)) -ne 0 ] || [ "$(cat "/proc/$1/wchan" 2>/dev/null)" != do_epoll_wait ] ||
			kill -INT "$1"
	done
	kill -KILL "$1" 2>/dev/null
	wait "$1"
}

# rq_stat CPU FIELD: a field of CPU's runqueue in /sys/kernel/debug/sched/debug
# (nr_pinned, md_stats.pinned_preempt, ...).
rq_stat() {
	awk -v cpu="cpu#$1," -v field=".$2" '
		$1 ~ /^cpu#/ { this = ($1 == cpu) }
		{ sub(/:$/, "", $1) }
		this && $1 == field { print $NF; exit }' /sys/kernel/debug/sched/debug
}

# stuck_ms FILE PID [DECIMALS]: milliseconds PID, pinned, waited for its CPU
# in the trace FILE: from the switch out that follows each
# sched_pinned_preempt (the event comes before the next task is picked) to
# the sched_switch back to it, as mdstat counts; a whole number unless
# DECIMALS says otherwise.
stuck_ms() {
	awk -v pid="$2" -v decimals="${3:-0}" '
		/ sched_pinned_preempt: / && $0 ~ " pid=" pid " " { preempted = 1 }
		/ sched_switch: / && preempted && $0 ~ "prev_pid=" pid " " { t = $4 + 0; preempted = 0 }
		/ sched_switch: / && t && $0 ~ "next_pid=" pid " " { total += $4 - t; t = 0 }
		END { printf "%.*f\n", decimals, decimals ? total * 1000 : int(total * 1000) }' "$1"
}

# preempted_by FILE PID NEXT: PID's sched_pinned_preempt events in the trace
# FILE that the next sched_switch on the same CPU names with NEXT as next.
preempted_by() {
	awk -v pid="$2" -v next_pid="$3" '
		/ sched_pinned_preempt: / && $0 ~ " pid=" pid " " { want[$2] = 1; next }
		/ sched_switch: / && want[$2] {
			n += ($0 ~ "prev_pid=" pid " .* next_pid=" next_pid " ")
			want[$2] = 0
		}
		END { print n + 0 }' "$1"
}

# wait_pinned CPU N: wait, 10 s at most, until N mdload sections are in
# progress on CPU.  mdload's own count, not rq->nr_pinned: other tasks
# (a BPF trampoline's caller, a tracer) pin themselves for a moment, and
# the scenarios wait for their own sections.
wait_pinned() {
	wait_until 10 "$2 mdload sections on cpu$1" sections_at_least "$1" "$2"
}

sections_at_least() {
	[ "$(cut -d, -f$(($1 + 1)) /sys/module/mdload/parameters/sections)" -ge "$2" ]
}

# wait_on_cpu PID COMM CPU: wait, 10 s at most, until PID runs COMM on CPU.
wait_on_cpu() {
	wait_until 10 "pid $1 to run $2 on cpu$3" runs_on "$@"
}

runs_on() {
	[ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ] &&
		[ "$(awk '{ print $39 }' "/proc/$1/stat" 2>/dev/null)" = "$3" ]
}

# wait_line FILE REGEX: wait, 30 s at most, until a line of FILE matches
# REGEX (a program in the background says it is ready).
wait_line() {
	wait_until 30 "'$2' in $1" grep -qs -- "$2" "$1"
}

# start_held NAME CMD...: start CMD, which prints "ready" once set up and
# then waits for a line on its standard input, and wait for the "ready".
# ${NAME}_pid is its pid; "release NAME" sends the line.
start_held() {
	local name=$1 fifo out fd
	shift
	fifo=$(mktemp -u) out=$(mktemp)
	mkfifo "$fifo"
	exec {fd}<>"$fifo"
	rm -f "$fifo"
	"$@" <&"$fd" >"$out" &
	declare -g "${name}_pid=$!" "${name}_go=$fd"
	wait_line "$out" '^ready'
	rm -f "$out"
}

release() {
	local var=${1}_go fd
	fd=${!var}
	echo go >&"$fd"
	exec {fd}>&-
}

# any_running PID...: whether one of the PIDs still runs.
any_running() {
	local pid
	for pid; do
		kill -0 "$pid" 2>/dev/null && return 0
	done
	return 1
}

# outside_mask PID: "PID CPU MASK" if PID, running or runnable, is on a CPU
# outside its allowed CPUs, nothing otherwise.  Right after a
# sched_setaffinity() of it returned, that breaks the promise of "sched: Fix
# migrate_disable() vs set_cpus_allowed_ptr()".  A sleeping task keeps its
# last CPU until it wakes, so it is left out.
outside_mask() {
	local stat mask
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	mask=$(sed -n 's/^Cpus_allowed_list:\t//p' "/proc/$1/status" 2>/dev/null)
	awk -v pid="$1" -v mask="$mask" '{
		sub(/^.*\) /, "")	# the fields after the comm: state is 1, CPU is 37
		if ($1 != "R" || mask == "") exit
		n = split(mask, parts, ",")
		for (i = 1; i <= n; i++) {
			split(parts[i], r, "-")
			if ($37 >= r[1] && $37 <= (r[2] == "" ? r[1] : r[2])) exit
		}
		print pid, $37, mask
	}' <<<"$stat"
}

# preempt_rt: whether this kernel is PREEMPT_RT, where every spinlock_t is
# a sleeping lock taken with migrate_disable(): any task, kernel threads and
# the tests' own, is pinned in ordinary kernel code there, not only in
# mdload's sections.
preempt_rt() {
	uname -v | grep -q PREEMPT_RT
}

# rt_sleeper_hangs: whether a SCHED_OTHER task asleep in a section holds an
# offline of its CPU up for ever: PREEMPT_RT without patches/6.12/0005, as
# Debian's RT kernel and the stock RT tree (docs/mechanism.md).  Kernels
# with the series for 6.12 have the fix.
rt_sleeper_hangs() {
	preempt_rt && [ ! -d /sys/kernel/tracing/events/sched/sched_pinned_push_queued ]
}

# sched_feature NAME|NO_NAME: set a scheduler feature.
sched_feature() {
	echo "$1" >/sys/kernel/debug/sched/features
}

# shell_off_cpu CPU: take CPU out of the CPUs this shell may run on, and so
# out of every command's it starts from now on; shell_cpus_back puts them
# back.  A scenario whose FIFO task spins on CPU keeps its shell elsewhere:
# on PREEMPT_RT a command of its own there, preempted with migration
# disabled (inside any spinlock_t), waits out the whole spin.  Seen on our
# 6.12 RT kernel in 3 of 40 runs of push_scenario: wait_pinned's seq,
# preempted on cpu1 by the FIFO 10 task at migrate-disable depth 1 or 4,
# ran again about a second later, and the scenario missed the 1 s section.
shell_off_cpu() {
	local cpus
	shell_cpus=$(taskset -p -c "$BASHPID" | sed 's/.*: //')
	cpus=$(awk -v off="$1" -v RS='[,\n]' -F- '
		$1 != "" { for (cpu = $1 + 0; cpu <= ($2 == "" ? $1 : $2) + 0; cpu++)
			if (cpu != off) list = list (list == "" ? "" : ",") cpu }
		END { print list }' <<<"$shell_cpus")
	[ -z "$cpus" ] || taskset -p -c "$cpus" "$BASHPID" >/dev/null
}

shell_cpus_back() {
	taskset -p -c "$shell_cpus" "$BASHPID" >/dev/null
}

# A spinner that waits for its go (start_held): the task to push away.
held_spinner=(perl -MTime::HiRes -e '$| = 1; print "ready\n"; <STDIN>;
	$e = Time::HiRes::time() + $ARGV[0]; 1 while Time::HiRes::time() < $e')

# start_puller SECONDS: set up a FIFO 1 task on $puller_cpu (default 2)
# that, once released (release puller), sleeps every 5 ms for SECONDS;
# each time it does, that CPU looks for RT work to pull (pull_rt_task()).
start_puller() {
	start_held puller chrt -f 1 taskset -c "${puller_cpu:-2}" perl -e '$| = 1; print "ready\n"; <STDIN>;
		select(undef, undef, undef, 0.005) for 1 .. $ARGV[0] / 0.005' "$1"
	puller=$puller_pid
}

# push_scenario PUSHER...: the article's scenario.  A FIFO 10 task spins 1 s
# in a section on cpu1; PUSHER, a command that prints "ready" and waits for
# a line on standard input (start_held), is set up as FIFO 50 on cpu1
# beforehand and let go once the section runs.  Both may run anywhere but
# the section pins the first.  Prints the pinned task's mdsection line;
# $pinned and $pusher are their pids.  A FIFO 1 task pulls from cpu2
# (start_puller).
push_scenario() {
	shell_off_cpu 1
	start_puller 3
	start_held pusher chrt -f 50 taskset -c 1 "$@"
	taskset -p -c 0-3 "$pusher_pid" >/dev/null
	"$mdsection" -f 10 -c 1 -s 1s &
	pinned=$!
	wait_pinned 1 1
	taskset -p -c 0-3 "$pinned" >/dev/null
	# Woken where it last ran, the FIFO 50 task preempts the pinned one.
	# The pulls start first, or $pull_after seconds after it.
	if [ -n "${pull_after:-}" ]; then
		release pusher
		sleep "$pull_after"
		release puller
	else
		release puller
		release pusher
	fi
	pusher=$pusher_pid
	wait "$pusher" "$pinned" "$puller"
	shell_cpus_back
}

# offline_cpu3_scenario SLEEP: a task sleeps SLEEP in a section on cpu3,
# then allowed everywhere, and another spins there unpinned; then cpu3 goes
# offline, which waits for the section.  $pinned and $spinner are their
# pids; the caller brings cpu3 back and stops the spinner.  The sleeper is
# SCHED_FIFO where a SCHED_OTHER one would hold the offline up for ever
# (rt_sleeper_hangs).  The spinner stays affine to cpu3 alone, so that only
# balance_push() moves it, exactly once: allowed everywhere, the load
# balancer took it off while the hotplug thread ran there, before cpu3 went
# inactive, in one CI run (export.sh counted no push).  It runs at nice 19
# so that the hotplug thread reaches its wait early in the section: at nice
# 0 it got there 0.94 s into a 1 s section once (6.12 RT kernel).
offline_cpu3_scenario() {
	local policy=(-o 0)
	! rt_sleeper_hangs || policy=(-f 10)
	chrt "${policy[@]}" "$mdsection" -c 3 -S "$1" &
	pinned=$!
	taskset -c 3 nice -n 19 perl -e '1 while 1' &
	spinner=$!
	wait_pinned 3 1
	taskset -p -c 0-3 "$pinned" >/dev/null
	echo 0 >/sys/devices/system/cpu/cpu3/online
}
