#!/bin/bash
# progress.sh REPRO: long work says how far it is on a terminal, and only
# there (common/progress.h): `repro record` packing a bundle of 40,000 or
# more events and `repro diff` reading two such bundles, each run once
# with stderr on a pseudo-terminal (a "repro: ...: N%" line, then cleared)
# and once on a pipe (not a byte of it).
set -u
. "$(dirname "$0")/lib.sh"
repro=$(readlink -f "$1")
py=/usr/bin/python3
[ -x $py ] || { echo "no python3: skip"; exit 77; }
work=$(mktemp -d /tmp/repro-progress.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail=0
# on_tty OUT CMD...: CMD with stdin, stdout and stderr on a pseudo-terminal; all it wrote into OUT
on_tty() {
	local out=$1
	shift
	$py - "$out" "$@" <<'PY'
import os, pty, sys
out = open(sys.argv[1], "wb")
def read(fd):
    data = os.read(fd, 65536)
    out.write(data)
    return data
status = pty.spawn(sys.argv[2:], read)  # what it copies to stdout goes to /dev/null
sys.exit(os.waitstatus_to_exitcode(status))
PY
} >/dev/null
# 45,000 failed stats: as many events on any machine, however few files it has
cat >stats.py <<'PY'
import os
for i in range(45000):
    try:
        os.stat("/nonexistent-progress/%d" % i)
    except OSError:
        pass
PY
on_tty rec.tty "$repro" record -o big.repro -- $py stats.py
events=$(tar --zstd -xOf big.repro manifest.json | $py -c 'import json,sys; print(json.load(sys.stdin)["counts"]["events"])')
check "a big run was recorded ($events events)" [ "${events:-0}" -ge 40000 ]
check "record on a terminal: packing says how far it is, then the line is cleared" \
	sh -c "grep -aq 'repro: packing the bundle: [0-9]*% (' rec.tty && grep -aq \$(printf '\\r\\033\\[K') rec.tty"
"$repro" record -o big2.repro -- $py stats.py >/dev/null 2>rec.err
check "record on a pipe: no progress" sh -c "! grep -aq 'packing the bundle' rec.err && ! grep -aq \$(printf '\\r') rec.err"
on_tty diff.tty "$repro" diff big.repro big2.repro
check "diff on a terminal: reading says how far it is" \
	grep -aq 'repro: diff: reading [AB]: [0-9]*% ([0-9]* of [0-9]* events)' diff.tty
"$repro" diff big.repro big2.repro >diff.out 2>diff.err
check "diff on a pipe: no progress on stderr, none in the report" \
	sh -c "[ ! -s diff.err ] && ! grep -aq 'reading' diff.out"
exit $fail
