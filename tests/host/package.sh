#!/bin/bash
# The Debian package make deb built: lintian finds neither an error nor a
# warning in it, and it holds what make install installs, under /usr.
. "$(dirname "$0")/../lib.sh"
tap_plan 4

built_deb || exit 1
out=$(lintian --fail-on error,warning "$deb" 2>&1)
status=$?
tap_equal "lintian: no error, no warning" 0 "$status"
[ "$status" = 0 ] || tap_diag "$out"
tap_check "it is built with Debian's own tools (a .buildinfo beside it)" \
	test -s "${deb%.deb}.buildinfo"
listing=$(dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|')
missing=
for file in /usr/sbin/mdstat /usr/sbin/md-hotplug-latency /usr/sbin/md-affinity-latency \
	/usr/sbin/md-stacking-report /usr/lib/mdstat/mdtrace.py /usr/share/man/man8/mdstat.8.gz \
	/usr/share/doc/mdstat/one-liners.md.gz /usr/share/doc/mdstat/copyright \
	/lib/systemd/system/mdstat-export.service; do
	grep -qx "$file" <<<"$listing" || missing="$missing $file"
done
tap_equal "it holds the commands, mdtrace.py, the pages, the one-liners and the unit" "" "$missing"
# Shipped, not enabled: its postinst starts nothing (deb-systemd-invoke),
# and enables the unit only where the admin had (dh_installsystemd
# --no-enable: "debian-installed").
postinst=$(dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./postinst 2>/dev/null)
tap_check "the unit is neither enabled nor started on install" \
	bash -c '! grep -q deb-systemd-invoke <<<"$0" && grep -q "debian-installed .mdstat-export.service" <<<"$0"' \
	"$postinst"
