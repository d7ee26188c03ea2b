#!/bin/bash
# guest/stale-text against a fake QEMU (tests/host/fake-qemu): it rewrites
# the bytes a vCPU is stuck on, unchanged, only where text_poke_bp() could
# have left a stale translation, says so only if the vCPU then left, and
# does not try the same place twice.
. "$(dirname "$0")/../lib.sh"
tap_plan 11

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# watch SCENARIO: stale-text's output for 8 looks of that fake guest; its
# gdbstub's packets in $work/SCENARIO/gdb.log.
watch() {
	mkdir "$work/$1"
	"$top/tests/host/fake-qemu" "$work/$1" "$1" 8 &
	timeout 60 "$top/guest/stale-text" --interval 0.1 "$work/$1/qmp" "$work/$1/gdb"
	wait
}
# writes SCENARIO: the writes its gdbstub took.
writes() {
	grep -c '^M' "$work/$1/gdb.log"
}

out=$(watch stale)
tap_check "a vCPU that leaves once its bytes are rewritten: a stale translation ($out)" \
	grep -Eq '^stale-text: QEMU ran a stale translation at ffffffff81094804: cpu1 stayed there 0.2 s, interrupts off, though memory holds 0f 1f 44 00 00 48 8b df; rewriting those bytes unchanged let it go on \([0-9]+ s into the boot\)$' <<<"$out"
tap_equal "it wrote the bytes it read, once, as cpu1 sees them" \
	"Hg2 mffffffff81094804,8 Mffffffff81094804,8:0f1f440000488bdf D" "$(tr '\n' ' ' <"$work/stale/gdb.log" | sed 's/ $//')"
out=$(watch stuck)
tap_check "a vCPU that stays: not a stale translation ($out)" \
	grep -Eqx 'stale-text: cpu1 stuck at ffffffff81094804 \(memory: 0f 1f 44 00 00 48 8b df\) stayed there after its bytes were rewritten: not a stale translation \([0-9]+ s into the boot\)' <<<"$out"
tap_equal "and its bytes are rewritten once, not at every look" 1 "$(writes stuck)"
out=$(watch int3)
tap_equal "an int3 in memory (a poke under way): nothing said" "" "$out"
tap_equal "nor written" 0 "$(writes int3)"
out=$(watch irq-on)
tap_equal "interrupts on (an idle vCPU on hlt, say): nothing said" "" "$out"
tap_equal "nor written" 0 "$(writes irq-on)"
# An offline CPU waits in hlt, interrupts off, after a jmp back to it,
# until it goes online (seen, and claimed stale, before HLT was read).
out=$(watch halted)
tap_equal "halted, interrupts off (an offline CPU): nothing said" "" "$out"
tap_equal "nor written" 0 "$(writes halted)"
"$top/guest/stale-text" >/dev/null 2>"$work/usage"
tap_equal "no sockets named: usage, exit status 2" "2 1" "$? $(wc -l <"$work/usage")"
