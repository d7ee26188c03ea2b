#!/bin/bash
# Bad input to the build and the guest runner: a one-line message naming the
# cause and a distinct exit status, and nothing left half done.
. "$(dirname "$0")/../lib.sh"
tap_plan 16

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# expect NAME STATUS PATTERN COMMAND...: COMMAND exits with STATUS and the
# last line of its standard error matches PATTERN (if not empty).
expect() {
	local name=$1 want=$2 pattern=$3 status
	shift 3
	"$@" >/dev/null 2>"$scratch/err"
	status=$?
	if [ "$status" = "$want" ] && { [ -z "$pattern" ] || tail -n 1 "$scratch/err" | grep -qE "$pattern"; }; then
		tap_ok "$name"
	else
		tap_fail "$name"
		tap_diag "exit status $status (want $want); stderr: $(tail -n 3 "$scratch/err")"
	fi
}

expect "guest/run: unknown option" 120 "unknown option" "$top/guest/run" --bogus -- true
expect "guest/run: no command" 120 "no command" "$top/guest/run"
expect "guest/run: bad timeout" 120 "timeout must be" "$top/guest/run" -t 0 -- true
expect "guest/run: missing kernel image" 121 "no kernel image" "$top/guest/run" -k "$scratch/none" -- true
expect "guest/run: missing initramfs" 121 "no initramfs" "$top/guest/run" --initrd "$scratch/none" -- true
expect "guest/run: no CPUs" 120 "cpus must be" "$top/guest/run" -c 0 -- true
expect "debian-kernel: unknown flavour" 30 "flavour must be" "$top/guest/debian-kernel" --flavour bogus
expect "guest/run: the command's own exit status" 3 "" "$top/guest/run" -- sh -c 'exit 3'
expect "guest/run: a hanging command is cut at the timeout" 124 "past its timeout" \
	"$top/guest/run" -t 15 -- sleep 600
expect "guest/run: a kernel panic" 123 "panicked" \
	"$top/guest/run" -- sh -c 'echo c >/proc/sysrq-trigger'

expect "build-kernel: unknown option" 15 "unknown option" "$top/guest/build-kernel" --bogus
expect "build-kernel: a base with no series" 15 "no series for base '5.10'" \
	"$top/guest/build-kernel" --base 5.10
expect "build-kernel: PREEMPT_RT on 6.1" 15 "needs --base 6.12" "$top/guest/build-kernel" --rt
expect "build-kernel: no tarball" 10 "no kernel source" \
	env MDSTAT_KERNEL_TARBALL="$scratch/none.tar.xz" "$top/guest/build-kernel"

# A tarball of another version, and one on which the series does not apply.
fake_tree() {	# fake_tree VERSION: a tarball whose kernelversion is VERSION
	mkdir -p "$scratch/linux"
	printf 'kernelversion:\n\t@echo %s\n' "$1" >"$scratch/linux/Makefile"
	tar -cJf "$scratch/linux-$1.tar.xz" -C "$scratch" linux
}
fake_tree 5.10.0
expect "build-kernel: a tarball of another version" 11 "not 6.1.x" \
	env MDSTAT_KERNEL_TARBALL="$scratch/linux-5.10.0.tar.xz" MDSTAT_CACHE="$scratch/cache" \
	"$top/guest/build-kernel"
fake_tree 6.1.0
expect "build-kernel: a patch that does not apply" 12 "does not apply" \
	env MDSTAT_KERNEL_TARBALL="$scratch/linux-6.1.0.tar.xz" MDSTAT_CACHE="$scratch/cache" \
	"$top/guest/build-kernel"
