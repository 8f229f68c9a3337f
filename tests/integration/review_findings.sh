#!/bin/bash
# review_findings.sh REPRO: shapes found failing in the review of 2026-12-01
# (int.review_findings).  Each check prints ok/FAIL.
#   1. a quoted two-word value of --password inside bash -c: the words are
#      split at blanks outside quotes (docs/bundle-format.md "Redaction of
#      arguments"), so the whole quoted value must go; the second word stays
#   2. curl's -u with its value glued (-ubob:PASS), which curl accepts
#   3. TMPDIR on a filesystem with less room than the 256 KiB reserve: stderr
#      says records were lost and the bundle is marked incomplete; the
#      manifest must then say incomplete (it says false, dropped null, no
#      warning) and agree with stderr on the counts
set -u
. "$(dirname "$0")/lib.sh"
repro=$(realpath "$1")
work=$(mktemp -d /tmp/repro-review.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail=0
absent() { ! zstd -dc "$1" | grep -q -- "$2"; }

"$repro" record -o q.repro -- bash -c "/bin/true --password 'Zq85aQuoted Zq86bSecond'" >/dev/null 2>&1
check "a quoted two-word --password value in bash -c is redacted whole" absent q.repro Zq86bSecond
"$repro" record -o u.repro -- curl -s -ubob:Zq56GluedPass http://127.0.0.1:1/ >/dev/null 2>&1
check "curl -uUSER:PASS (glued) loses its password" absent u.repro Zq56GluedPass

if [ "$(id -u)" = 0 ] && unshare --mount true 2>/dev/null; then
	# the outcome depends on the length of TMPDIR's path (a longer one: the
	# manifest says complete; a short one: the counts differ from stderr)
	small=$work/small-tmpdir-with-a-long-name
	mkdir -p "$small" out
	unshare --mount --propagation private bash -c "
		mount -t tmpfs -o size=64k none $small || exit 1
		TMPDIR=$small '$repro' record -o $work/out/f.repro -- sh -c 'find /usr -name x; exit 6' >/dev/null 2>$work/err.txt
		echo \$? > $work/rc"
	check "64 KiB TMPDIR: exit status is the program's (6)" test "$(cat rc)" = 6
	check "64 KiB TMPDIR: one repro: line" test "$(grep -c '^repro:' err.txt)" = 1
	if grep -q 'marked incomplete' err.txt; then
		check "64 KiB TMPDIR: stderr says incomplete, so does the manifest" \
			sh -c "tar --zstd -xOf out/f.repro manifest.json | jq -e '.incomplete == true and .dropped != null' >/dev/null"
		lost=$(grep -o '[0-9]* process records were lost' err.txt | cut -d' ' -f1)
		[ -n "$lost" ] && check "64 KiB TMPDIR: manifest dropped.process_records ($lost on stderr)" \
			sh -c "tar --zstd -xOf out/f.repro manifest.json | jq -e '.dropped.process_records == $lost' >/dev/null"
	fi
else
	echo "skip: the full-disk check needs root and unshare --mount"
fi
exit $fail
