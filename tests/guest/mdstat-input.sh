#!/bin/bash
# mdstat's answers to bad input: one line naming the problem, and the exit
# status mdstat.8 gives for it.
. "$(dirname "$0")/../lib.sh"
tap_plan 14

mdstat=$top/build/mdstat
err=$(mktemp)

# status WANT NAME COMMAND...: COMMAND exits WANT and says one line on stderr.
status() {
	local want=$1 name=$2 got lines
	shift 2
	timeout 60 "$@" >/dev/null 2>"$err"
	got=$?
	lines=$(grep -vc '^Try `' "$err")
	if [ "$got" = "$want" ] && [ "$lines" = 1 ]; then
		tap_ok "$name: exit $want, $(grep -v '^Try `' "$err")"
	else
		tap_fail "$name"
		tap_diag "want exit $want and one line, got exit $got and:"
		tap_diag "$(cat "$err")"
	fi
}

status 2 "no subcommand" "$mdstat"
status 2 "unknown subcommand" "$mdstat" frobnicate
status 2 "unknown option" "$mdstat" top --frobnicate
status 2 "bad CPU list" "$mdstat" top -C 1-x
status 2 "CPU that does not exist" "$mdstat" top -C 0,9
status 2 "interval 0" "$mdstat" top -i 0
status 2 "negative interval" "$mdstat" hist -i -1
status 6 "pid that does not exist" "$mdstat" trace -p 4000000
status 2 "unknown event" "$mdstat" trace -e frobnicate
status 2 "export with -j" "$mdstat" export -j -o /tmp
status 8 "export into a folder that does not exist" "$mdstat" export -o /nonexistent
status 3 "no root" setpriv --reuid=65534 --regid=65534 --clear-groups "$mdstat" top
status 4 "no BTF" unshare -m sh -c 'mount --bind /dev/null /sys/kernel/btf/vmlinux && exec "$0" top' "$mdstat"
if [ -d /sys/kernel/tracing/events/sched/sched_pinned_push_queued ]; then
	status 2 "a command after a stray argument" "$mdstat" hotplug stray
else
	status 5 "an event this kernel lacks (culprit, stock)" "$mdstat" trace -e culprit
fi
rm -f "$err"
