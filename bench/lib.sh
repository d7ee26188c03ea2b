# Helpers for the benchmarks that run in the guest (sourced): results as
# "KEY VALUE" lines, and the statistics of a sample.
. "$(dirname "${BASH_SOURCE[0]}")/../guest/lib.sh"

mdpairs=$top/build/mdpairs
mdstat=$top/build/mdstat
results_file=${MDSTAT_RESULTS:-/tmp}/bench.results

# record KEY VALUE: one result, for bench/run's table.
record() {
	echo "$1 $2" >>"$results_file"
	echo "bench: $1 = $2"
}

# quantile Q FILE: the Q-quantile (0-1, nearest rank) of the numbers in FILE.
quantile() {
	sort -g "$2" | awk -v q="$1" '{ v[NR] = $1 } END {
		if (!NR) exit 1
		i = int(q * NR + 0.999999); if (i < 1) i = 1; if (i > NR) i = NR
		print v[i] }'
}

# spread FILE: "min-max" of the numbers in FILE.
spread() {
	echo "$(quantile 0 "$1")-$(quantile 1 "$1")"
}

# ratio A B [DIGITS]: A / B.
ratio() {
	awk -v a="$1" -v b="$2" -v d="${3:-3}" 'BEGIN { printf "%.*f\n", d, b ? a / b : 0 }'
}
