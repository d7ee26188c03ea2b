#!/bin/bash
# guest/vcpu-ips against a fake QEMU (tests/host/fake-qemu): with a
# vmlinux, the stack of each vCPU in kernel mode as the words in it that
# point into kernel code, however far memory is mapped; without one, no
# stacks; an offline CPU's hlt is told apart; --nmi injects its NMI in
# a QMP session of its own.
. "$(dirname "$0")/../lib.sh"
if ! command -v gcc >/dev/null || ! command -v ld >/dev/null; then
	tap_plan 1
	tap_skip "vcpu-ips" "gcc or ld not installed (make deps)"
	exit 0
fi
tap_plan 8

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A vmlinux of two functions and a variable, linked where the kernel's
# text begins.
printf 'int counter = 1;\nvoid stuck(void) { for (;;) ; }\nvoid caller(void) { stuck(); }\n' \
	>"$work/text.c"
gcc -g -O0 -mcmodel=kernel -fno-pic -fno-asynchronous-unwind-tables -c "$work/text.c" -o "$work/text.o"
ld -Ttext=0xffffffff81000000 -e caller -o "$work/vmlinux" "$work/text.o"
symbol() {
	nm "$work/vmlinux" | awk -v name="$1" '$3 == name { print $1 }'
}
inside_caller=$(printf '%x' $((0x$(symbol caller) + 5)))
# On the stack: nothing, an address inside caller(), the variable (in the
# kernel image, not code), an address in a module, one in the direct map.
words=(0 "$inside_caller" "$(symbol counter)" ffffffffc0001000 ffff888000001000)

# ips [--nmi] SCENARIO [VMLINUX]: vcpu-ips's output for that fake guest,
# whose stacks hold $words.
ips() {
	local fake tries=0 nmi=()
	[ "$1" = --nmi ] && nmi=(--nmi) && shift
	rm -rf "$work/qemu" && mkdir "$work/qemu"
	"$top/tests/host/fake-qemu" "$work/qemu" "$1" 99 "${words[@]}" &
	fake=$!
	until [ -S "$work/qemu/qmp" ] || [ $((tries += 1)) -gt 100 ]; do sleep 0.1; done
	timeout 60 "$top/guest/vcpu-ips" "${nmi[@]}" "$work/qemu/qmp" "${@:2}"
	kill "$fake"
	wait "$fake" 2>/dev/null
}

out=$(ips stuck "$work/vmlinux")
tap_equal "cpu1's stack: the one word that points into code, at its offset, named" \
	"cpu1's stack from ffffc90000013e00, the words that point into kernel text:
  +008 ? $inside_caller caller at $work/text.c:3" \
	"$(sed -n "/^cpu1's stack/,/^cpu[0-9]*'s stack/p" <<<"$out" | grep -v "^cpu[02]'s")"
tap_equal "the stacks of the vCPUs in kernel mode, not of the one in user mode" \
	"cpu0 cpu1" "$(grep -o "^cpu[0-9]*'s stack" <<<"$out" | sed "s/'s stack//" | paste -sd' ')"
tap_check "each vCPU's place comes first, as before" \
	grep -q "^cpu1: ffffffff81094804 .*\[same address both looks, interrupts off\]$" <<<"$out"
out=$(ips halted "$work/vmlinux")
tap_check "a vCPU in hlt, interrupts off, is said to be halted" \
	grep -q "^cpu1: ffffffff81094804 .*\[same address both looks, interrupts off, halted\]$" <<<"$out"
words=()
out=$(ips stuck "$work/vmlinux")
tap_check "memory not mapped at the stack pointer: said so" \
	grep -qx "cpu1's stack at ffffc90000013e00: cannot read it" <<<"$out"
tap_check "and the places still come" grep -q "^cpu1: ffffffff81094804 " <<<"$out"
out=$(ips stuck)
tap_equal "no vmlinux: no stacks" 0 "$(grep -c "'s stack" <<<"$out")"
err=$(ips --nmi stuck 2>&1 >/dev/null)
tap_equal "--nmi: the NMI comes last, in a session of its own, and is taken" \
	"connect qmp_capabilities inject-nmi|" "$(tail -n 3 "$work/qemu/qmp.log" | paste -sd' ')|$err"
