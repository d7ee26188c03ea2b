#!/bin/bash
# A short torture run (guest/torture): every invariant holds while hotplug,
# sections, affinity storms and RT pushes run at once, and it did run them.
. "$(dirname "$0")/../lib.sh"
tap_plan 3

out=$("$top/guest/torture" "${MDSTAT_TORTURE_SECONDS:-20}")
status=$?
tap_diag "$out"
tap_equal "torture: no invariant broken" 0 "$status"
tap_check "torture: it cycled CPUs" \
	grep -qE ': [1-9][0-9]* hotplug cycles' <<<"$out"
tap_check "torture: it ran sections" \
	grep -qE ' [1-9][0-9]* sections' <<<"$out"
