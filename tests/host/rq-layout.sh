#!/bin/bash
# The series adds its counters to struct rq without moving anything there:
# pahole of the stock kernel and of ours, built from one config, gives every
# stock field at the same offset, opens no hole, and struct rq grows by the
# counters and the padding its alignment asks for, at its end.
. "$(dirname "$0")/../lib.sh"
tap_plan 4

stock=${MDSTAT_STOCK_VMLINUX:-$top/build/kernel-stock/obj/vmlinux}
ours=${MDSTAT_VMLINUX:-$top/build/kernel-mdstat/obj/vmlinux}
for vmlinux in "$stock" "$ours"; do
	[ -f "$vmlinux" ] || { tap_diag "no $vmlinux: run make kernel kernel-stock"; exit 1; }
done

# fields VMLINUX: "name offset size" for each member of struct rq, in order.
fields() {
	pahole -C rq "$1" |
		sed -n 's|^\t[^/]* \**\([a-z_0-9]*\)\(\[[^]]*\]\)*;.*/\* *\([0-9]*\) *\([0-9]*\) \*/.*|\1 \3 \4|p'
}
# summary VMLINUX WHAT: pahole's "WHAT: N" of struct rq (size, holes, ...).
summary() {
	pahole -C rq "$1" | grep -o "$2: [0-9]*" | head -n 1
}

our_fields=$(fields "$ours")
tap_diag "ours: $(grep md_stats <<<"$our_fields"); $(summary "$ours" size), $(summary "$stock" size) stock"
tap_equal "every stock field of struct rq is at its stock offset" \
	"$(fields "$stock")" "$(grep -v '^md_stats ' <<<"$our_fields")"
tap_equal "md_stats comes last" md_stats "$(tail -n 1 <<<"$our_fields" | cut -d' ' -f1)"
tap_equal "no hole opened" "$(summary "$stock" 'sum holes')" "$(summary "$ours" 'sum holes')"
counters=$(grep '^md_stats ' <<<"$our_fields" | cut -d' ' -f3)
growth=$(( $(summary "$ours" size | cut -d' ' -f2) - $(summary "$stock" size | cut -d' ' -f2) ))
tap_check "struct rq grew by $growth bytes: the ${counters:-?} of the counters, to a cacheline" \
	test "$growth" -ge "${counters:-1}" -a "$growth" -lt $((${counters:-0} + 64))
