#!/bin/bash
# guest/init loads stale_int3, built beside mdload for the running kernel,
# at every boot; its count of the CPUs it sent back is the kernel's alone.
. "$(dirname "$0")/../lib.sh"
tap_plan 3

tap_check "stale_int3 was loaded at boot" test -r /sys/module/stale_int3/parameters/sent_back
rmmod stale_int3
tap_check "a count given at load is refused" sh -c '! insmod "$1" sent_back=5 2>/dev/null' sh "$stale_int3_ko"
tap_check "and it loads again" insmod "$stale_int3_ko"
