#!/bin/bash
# guest/vcpu-ips against a fake QEMU (tests/host/fake-qemu): with a
# vmlinux, each vCPU's stack as the words in it that point into kernel
# text, found however far memory is mapped; without one, no stack.
. "$(dirname "$0")/../lib.sh"
tap_plan 4

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A vmlinux of two functions, linked where the kernel's text begins.
printf 'void stuck(void) { for (;;) ; }\nvoid caller(void) { stuck(); }\n' >"$work/text.c"
gcc -g -O0 -mcmodel=kernel -fno-pic -fno-asynchronous-unwind-tables -c "$work/text.c" -o "$work/text.o"
ld -Ttext=0xffffffff81000000 -e caller -o "$work/vmlinux" "$work/text.o"
inside_caller=$(printf '%x' $((0x$(nm "$work/vmlinux" | awk '$3 == "caller" { print $1 }') + 5)))
# On the stack: nothing, a return into caller(), an address in the
# image past its text, one in a module, one in the direct map.
words=(0 "$inside_caller" ffffffff82345678 ffffffffc0001000 ffff888000001000)

# ips [VMLINUX]: vcpu-ips's output, the fake guest's vCPUs stuck.
ips() {
	local fake
	rm -rf "$work/qemu" && mkdir "$work/qemu"
	"$top/tests/host/fake-qemu" "$work/qemu" stuck 99 "${words[@]}" &
	fake=$!
	until [ -S "$work/qemu/qmp" ]; do sleep 0.1; done
	timeout 60 "$top/guest/vcpu-ips" "$work/qemu/qmp" "$@"
	kill "$fake"
	wait "$fake" 2>/dev/null
}

out=$(ips "$work/vmlinux")
tap_equal "cpu1's stack: the one word that points into text, at its offset, named" \
	"cpu1's stack from ffffc90000013e00, the words that point into kernel text:
  +008 ? $inside_caller caller at $work/text.c:2" \
	"$(sed -n "/^cpu1's stack/,\$p" <<<"$out")"
tap_equal "every vCPU in the kernel has its stack scanned" 2 "$(grep -c "'s stack from " <<<"$out")"
tap_check "and each vCPU's place, as before" \
	grep -q "^cpu1: ffffffff81094804 .*\[same address both looks, interrupts off\]$" <<<"$out"
out=$(ips)
tap_equal "no vmlinux: no stacks" 0 "$(grep -c "'s stack" <<<"$out")"
