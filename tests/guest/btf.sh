#!/bin/bash
# The kernel exposes BTF, and in it the fields mdstat reads with CO-RE.
. "$(dirname "$0")/../lib.sh"
tap_plan 4

btf=/sys/kernel/btf/vmlinux
if [ ! -r "$btf" ]; then
	tap_fail "BTF at $btf"
	exit 1
fi
tap_ok "BTF at $btf"

raw=$(mktemp)
bpftool btf dump file "$btf" format raw >"$raw"

# has_member STRUCT MEMBER: STRUCT's BTF lists MEMBER.
has_member() {
	awk -v s="'$1'" -v m="'$2'" '
		/^\[/ { in_struct = ($2 == "STRUCT" && $3 == s) }
		in_struct && $1 == m { found = 1 }
		END { exit !found }' "$raw"
}

for field in task_struct.migration_disabled rq.nr_pinned rq.push_busy; do
	tap_check "BTF has $field" has_member "${field%%.*}" "${field#*.}"
done
rm -f "$raw"
