#!/bin/bash
# model/check: spin finds the set_affinity_pending bugs of Linux 6.1 in
# model/affinity.pml and none with the proposed fix.  Its results are this
# test's; without spin, one skipped result.
. "$(dirname "$0")/../lib.sh"

if ! command -v spin >/dev/null || ! command -v gcc >/dev/null; then
	tap_plan 1
	tap_skip "model/check" "spin or gcc not installed (apt-get install spin)"
	exit 0
fi
exec "$top/model/check"
