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

# ci95 FILE: "MEAN LOW HIGH", the mean of the numbers in FILE and its 95%
# confidence interval (Student's t, the rounds taken as independent); one
# number has no interval: "MEAN - -".
ci95() {
	awk '{ x[NR] = $1; s += $1 } END {
		if (!NR) exit 1
		m = s / NR
		if (NR == 1) { printf "%.4f - -\n", m; exit }
		for (i = 1; i <= NR; i++) v += (x[i] - m) ^ 2
		sd = sqrt(v / (NR - 1))
		# t(0.975, df) for df 1..30, then the normal quantile
		split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 " \
		      "2.201 2.179 2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086 " \
		      "2.080 2.074 2.069 2.064 2.060 2.056 2.052 2.048 2.045 2.042", t, " ")
		q = NR - 1 <= 30 ? t[NR - 1] : 1.96
		h = q * sd / sqrt(NR)
		printf "%.4f %.4f %.4f\n", m, m - h, m + h }' "$1"
}

# record_mean KEY FILE: the mean of the rounds in FILE as KEY.ratio, with
# its 95% interval (KEY.ci95, "LOW-HIGH", or "-" for one round) and spread.
record_mean() {
	local mean low high
	read -r mean low high < <(ci95 "$2")
	record "$1.ratio" "$mean"
	if [ "$low" = - ]; then
		record "$1.ci95" -
	else
		record "$1.ci95" "$low-$high"
	fi
	record "$1.spread" "$(spread "$2")"
}

# ratio A B [DIGITS]: A / B.
ratio() {
	awk -v a="$1" -v b="$2" -v d="${3:-3}" 'BEGIN { printf "%.*f\n", d, b ? a / b : 0 }'
}
