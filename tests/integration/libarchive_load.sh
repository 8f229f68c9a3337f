#!/bin/bash
# libarchive_load.sh REPRO: libarchive is loaded when a bundle is packed or
# read, not when repro starts (bundles/archive_lib.h), and a libarchive that
# cannot be loaded costs no recording.
#  1. `repro --version` and `repro record` up to the program's exec load no
#     libarchive: LD_DEBUG=libs names it only for record's pack;
#  2. a libarchive that does not load (a file of junk first in
#     LD_LIBRARY_PATH): show fails with one 'repro:' line naming it, exit 2;
#     record runs the program (its output intact), exits 2 with one line
#     that gives the 'repro pack' command, and that command, with the real
#     libarchive, makes the bundle with the program's exit status.
set -u
repro=$(realpath "$1")
work=$(mktemp -d /tmp/repro-arlib.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail=0
check() { local what=$1; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi; }

LD_DEBUG=libs "$repro" --version >/dev/null 2>debug.txt
check "--version loads no libarchive" test "$(grep -c 'libarchive' debug.txt)" = 0
LD_DEBUG=libs "$repro" record -o t.repro -- /bin/true 2>debug.txt
check "record loads libarchive (for its pack)" grep -q 'calling init: .*libarchive' debug.txt
check "record's bundle reads" sh -c '"$0" show t.repro >/dev/null' "$repro"

mkdir bad && echo junk >bad/libarchive.so.13
LD_LIBRARY_PATH=$work/bad "$repro" show t.repro >out.txt 2>err.txt
rc=$?
check "show with a broken libarchive exits 2" test "$rc" = 2
check "show says which library, in one line" \
	test "$(wc -l <err.txt)" = 1 -a "$(grep -c "^repro: cannot load libarchive 'libarchive.so" err.txt)" = 1
LD_LIBRARY_PATH=$work/bad TMPDIR=$work "$repro" record -o b.repro -- sh -c 'echo hi; exit 3' \
	>out.txt 2>err.txt
rc=$?
check "record with a broken libarchive exits 2" test "$rc" = 2
check "the program ran, its output intact" test "$(cat out.txt)" = hi
check "one line, with the repro pack command" \
	test "$(wc -l <err.txt)" = 1 -a "$(grep -c 'its spool is kept: repro pack ' err.txt)" = 1
cmd=$(sed -n 's/.*its spool is kept: \(repro pack [^)]*\)).*/\1/p' err.txt)
check "no bundle was written" test ! -e b.repro
eval "\"\$repro\" ${cmd#repro }" >/dev/null 2>&1
check "repro pack makes the bundle afterwards" test -s b.repro
check "with the program's exit status" \
	test "$(tar --zstd -xOf b.repro manifest.json | jq -c .exit)" = '{"code":3}'
exit "$fail"
