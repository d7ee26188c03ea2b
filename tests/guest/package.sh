#!/bin/bash
# The Debian package (make deb), unpacked with dpkg into a scratch root on
# the guest's tmpfs: its commands run from there, on this kernel, and man
# finds its pages there.
. "$(dirname "$0")/../lib.sh"
tap_plan 11

built_deb || exit 1
root=$(mktemp -d)
work=$(mktemp -d)
dpkg -x "$deb" "$root"
tap_diag "$(basename "$deb") unpacked into $root"

depends=$(dpkg-deb -f "$deb" Depends)
tap_check "it depends on libbpf1 and python3 ($depends)" \
	bash -c 'grep -Eq "(^|, )libbpf1([ ,]|$)" <<<"$0" && grep -Eq "(^|, )python3([ ,]|$)" <<<"$0"' \
	"$depends"
# libelf comes in through libbpf1, which mdstat links against.
tap_check "mdstat's libraries all resolve, libbpf and libelf among them" \
	bash -c '! ldd "$0" | grep -q "not found" && ldd "$0" | grep -q libbpf.so.1 && ldd "$0" | grep -q libelf.so.1' \
	"$root/usr/sbin/mdstat"

mdstat=$root/usr/sbin/mdstat
"$mdstat" doctor -j >"$work/doctor" 2>&1
tap_equal "the packaged mdstat doctor: everything this kernel offers works" 0 "$?"
tap_equal "it sees the series as tracefs does" \
	"$([ -d /sys/kernel/tracing/events/sched/sched_pinned_push_queued ] && echo true || echo false)" \
	"$(jq -r 'select(.name == "mdstat-series") | .ok' "$work/doctor")"
mkdir "$work/textfile"
"$mdstat" export -n 1 -i 0.2 -o "$work/textfile" 2>"$work/err"
tap_check "the packaged mdstat export writes its file" \
	grep -q '^mdstat_kernel_info{' "$work/textfile/mdstat.prom"

export MANPATH=$root/usr/share/man
tap_equal "man finds the page in the package's root" \
	"$root/usr/share/man/man8/mdstat.8.gz" "$(man -w mdstat)"
tap_check "man mdstat shows it, export's -o among the options" \
	bash -c 'MANWIDTH=80 man -P cat mdstat 2>/dev/null | grep -q "textfile-dir"'
tap_equal "man md-stacking-report finds the scripts' page" \
	"$root/usr/share/man/man8/md-hotplug-latency.8.gz" "$(man -w md-stacking-report)"

# The scripts import mdtrace.py from where they really are: the package's
# /usr/lib/mdstat, not the checkout.
tap_check "md-stacking-report --help runs from the package" \
	"$root/usr/sbin/md-stacking-report" --help
md_out=$("$root/usr/sbin/md-hotplug-latency" 3 2>&1)
status=$?
tap_check "md-hotplug-latency 3 runs from the package, reports cpu3 ($status)" \
	grep -q "^cpu3 offline:" <<<"$md_out"
[ "$(cat /sys/devices/system/cpu/cpu3/online)" = 1 ] || echo 1 >/sys/devices/system/cpu/cpu3/online

unit=$root/lib/systemd/system/mdstat-export.service
tap_check "the systemd unit is there, its ExecStart a command of the package" \
	test -x "$root$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$unit")"

rm -rf "$root" "$work"
