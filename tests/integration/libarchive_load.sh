#!/bin/bash
# libarchive_load.sh REPRO: libarchive is loaded when a bundle is read, not
# when repro starts, and a recording never loads it (bundles/archive_lib.h,
# bundles/tarzst.h).
#  1. `repro --version` and `repro record` load no libarchive (LD_DEBUG=libs);
#     show of that bundle does;
#  2. a libarchive that does not load (a file of junk first in
#     LD_LIBRARY_PATH): show fails with one 'repro:' line naming it, exit 2;
#     record works as without it (the program's output and exit status, a
#     bundle that reads);
#  3. a pack that fails for another reason than a full disk (-o in /proc,
#     which root may write to but where nothing can be created): one line
#     with the 'repro pack' command, which makes the bundle elsewhere.
set -u
. "$(dirname "$0")/lib.sh"
repro=$(realpath "$1")
work=$(mktemp -d /tmp/repro-arlib.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail=0

LD_DEBUG=libs "$repro" --version >/dev/null 2>debug.txt
check "--version loads no libarchive" test "$(grep -c 'libarchive' debug.txt)" = 0
LD_DEBUG=libs "$repro" record -o t.repro -- /bin/true 2>debug.txt
check "record loads no libarchive" test "$(grep -c 'libarchive' debug.txt)" = 0
LD_DEBUG=libs "$repro" show t.repro >/dev/null 2>debug.txt
check "show loads libarchive" grep -q 'calling init: .*libarchive' debug.txt

mkdir bad && echo junk >bad/libarchive.so.13
LD_LIBRARY_PATH=$work/bad "$repro" show t.repro >out.txt 2>err.txt
rc=$?
check "show with a broken libarchive exits 2" test "$rc" = 2
check "show says which library, in one line" \
	test "$(wc -l <err.txt)" = 1 -a "$(grep -c "^repro: cannot load libarchive 'libarchive.so" err.txt)" = 1
LD_LIBRARY_PATH=$work/bad "$repro" record -o b.repro -- sh -c 'echo hi; exit 3' >out.txt 2>err.txt
rc=$?
check "record with a broken libarchive: the program's status" test "$rc" = 3
check "its output intact, nothing said" test "$(cat out.txt)" = hi -a ! -s err.txt
check "the bundle reads" \
	test "$(tar --zstd -xOf b.repro manifest.json | jq -c .exit)" = '{"code":3}'

if [ "$(id -u)" = 0 ]; then
	TMPDIR=$work "$repro" record -o /proc/x.repro -- sh -c 'echo hi; exit 3' >out.txt 2>err.txt
	rc=$?
	check "-o where nothing can be created: exit 2" test "$rc" = 2
	check "one line, with the repro pack command" \
		test "$(wc -l <err.txt)" = 1 -a "$(grep -c 'its spool is kept: repro pack ' err.txt)" = 1
	spool=$(sed -n 's/.*its spool is kept: repro pack \([^ ]*\) -o .*/\1/p' err.txt)
	check "the spool is there" test -d "$spool"
	"$repro" pack "$spool" -o c.repro >/dev/null 2>&1
	check "repro pack makes the bundle elsewhere, with the program's status" \
		test "$(tar --zstd -xOf c.repro manifest.json | jq -c .exit)" = '{"code":3}'
fi
exit "$fail"
