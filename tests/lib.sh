# TAP helpers for the shell tests (sourced).  tests/run numbers the results.

tap_plan() {
	echo "1..$1"
}

tap_diag() {
	printf '%s\n' "$*" | sed 's/^/# /'
}

tap_ok() {
	echo "ok - $*"
}

tap_fail() {
	echo "not ok - $*"
	tap_failed=$((${tap_failed:-0} + 1))
}

tap_skip() {	# tap_skip NAME WHY
	echo "ok - $1 # SKIP $2"
}

# tap_keep DIR: after a failed result, DIR's files as evidence in the
# results folder of guest/run, named after the script; DIR is removed.
tap_keep() {
	if [ "${tap_failed:-0}" -gt 0 ] && [ -d "${MDSTAT_RESULTS:-}" ]; then
		rm -rf "$MDSTAT_RESULTS/${0##*/}.files"
		cp -r "$1" "$MDSTAT_RESULTS/${0##*/}.files" &&
			tap_diag "its files are kept in the results folder, ${0##*/}.files"
	fi
	rm -rf "$1"
}

# tap_check NAME COMMAND...: one result from whether COMMAND succeeds.
tap_check() {
	local name=$1
	shift
	if "$@"; then
		tap_ok "$name"
	else
		tap_fail "$name"
	fi
}

# tap_equal NAME WANT GOT
tap_equal() {
	if [ "$2" = "$3" ]; then
		tap_ok "$1"
	else
		tap_fail "$1"
		tap_diag "want: $2"
		tap_diag " got: $3"
	fi
}

# built_deb: the package make deb built, in $deb; a failed result if none.
built_deb() {
	deb=$(ls "$top"/build/deb/mdstat_*_amd64.deb 2>/dev/null | head -n 1)
	[ -n "$deb" ] || tap_fail "make deb built build/deb/mdstat_*_amd64.deb"
	[ -n "$deb" ]
}

# The guest-side helpers: mdload, tracefs, runqueue counters, scenarios.
. "$(dirname "${BASH_SOURCE[0]}")/../guest/lib.sh"
