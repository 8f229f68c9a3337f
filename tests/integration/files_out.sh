#!/bin/bash
# files_out.sh REPRO: the files repro writes (issue 26, "Files repro writes").
#  - a recording killed with SIGKILL leaves a spool without its END record:
#    `repro pack` of it makes a bundle marked "incomplete": true;
#  - pack of a spool that cannot be trusted is refused in one line (exit 2)
#    and writes nothing through it: files.jsonl a symbolic link to a victim
#    file (unchanged), events.spool or files.jsonl a FIFO (no hang: timeout
#    is only a safety net), host.json a symbolic link, a spool of another
#    user (root: chown nobody), one others may write in;
#  - report -o / export -o onto an existing 0600 file keep 0600; a symbolic
#    link another user planted is not written through;
#  - two recordings to one -o: the second is refused while the first runs.
# Every wait is for a state (a FIFO read), never for a time.
set -u
. "$(dirname "$0")/lib.sh"
repro=$(readlink -f "$1")
work=$(mktemp -d /tmp/repro-filesout.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail=0
mkdir tmp
export TMPDIR=$work/tmp

# 1. SIGKILL mid-recording: the program tells it started through a FIFO
mkfifo ready go
"$repro" record -o killed.repro -- sh -c 'echo up >ready; read x <go' &
rec=$!
read -r _ <ready
kill -KILL $rec
wait $rec 2>/dev/null
spool=$(echo "$TMPDIR"/repro-killed.repro.*)
check "SIGKILL leaves the spool" test -s "$spool/run.json"
cp -a "$spool" base
"$repro" pack "$spool" -o killed.repro 2>pack.err
rc=$?
check "pack of the killed recording's spool: exit 0 (exit $rc)" test $rc = 0
incomplete=$(tar --zstd -xOf killed.repro manifest.json | grep -c '"incomplete": true')
check "its manifest says incomplete: true" test "$incomplete" = 1

# 2. spools that cannot be trusted: each a copy of the killed one
echo precious >victim
chmod 600 victim
cp -a base s.link
ln -s "$work/victim" s.link/files.jsonl
"$repro" pack s.link -o link.repro 2>link.err
rc=$?
check "files.jsonl a symbolic link: exit 2, one line (exit $rc)" \
	sh -c "[ $rc = 2 ] && [ \"\$(wc -l <link.err)\" = 1 ] && grep -q \"^repro: cannot pack 's.link': the spool's 'files.jsonl' is a symbolic link, not a regular file\$\" link.err"
check "the victim is unchanged and no bundle was written" \
	sh -c "[ \"\$(cat victim)\" = precious ] && [ ! -e link.repro ] && [ -L s.link/files.jsonl ]"

cp -a base s.fifo
rm s.fifo/events.spool
mkfifo s.fifo/events.spool
timeout 60 "$repro" pack s.fifo -o fifo.repro 2>fifo.err
rc=$?
check "events.spool a FIFO: exit 2 at once, one line (exit $rc)" \
	sh -c "[ $rc = 2 ] && [ \"\$(wc -l <fifo.err)\" = 1 ] && grep -q \"^repro: cannot pack 's.fifo': the spool's 'events.spool' is a FIFO, not a regular file\$\" fifo.err"
cp -a base s.fifo2
mkfifo s.fifo2/files.jsonl
timeout 60 "$repro" pack s.fifo2 -o fifo2.repro 2>fifo2.err
rc=$?
check "files.jsonl a FIFO: exit 2, one line (exit $rc)" \
	sh -c "[ $rc = 2 ] && grep -q \"the spool's 'files.jsonl' is a FIFO\" fifo2.err"

cp -a base s.host
rm -f s.host/host.json
ln -s /etc/hostname s.host/host.json
"$repro" pack s.host -o host.repro 2>host.err
rc=$?
check "host.json a symbolic link: refused in words, not dropped (exit $rc)" \
	sh -c "[ $rc = 2 ] && grep -q \"the spool's 'host.json' is a symbolic link, not a regular file\" host.err && [ ! -e host.repro ]"

cp -a base s.open
chmod 777 s.open
"$repro" pack s.open -o open.repro 2>open.err
rc=$?
check "a spool others may write in: exit 2, one line (exit $rc)" \
	sh -c "[ $rc = 2 ] && [ \"\$(wc -l <open.err)\" = 1 ] && grep -q 'other users may write in the spool (mode 0777)' open.err"

if [ "$(id -u)" = 0 ] && id -u nobody >/dev/null 2>&1; then
	cp -a base s.other
	chown -R nobody s.other
	"$repro" pack s.other -o other.repro 2>other.err
	rc=$?
	check "root packing a spool of another user: exit 2, one line (exit $rc)" \
		sh -c "[ $rc = 2 ] && [ \"\$(wc -l <other.err)\" = 1 ] && grep -q \"^repro: cannot pack 's.other': the spool belongs to another user (uid $(id -u nobody), not 0): only the user who recorded it packs it\$\" other.err && [ ! -e other.repro ]"
fi

# 3. report -o / export -o keep an existing file's mode
"$repro" record -o run.repro -- true 2>/dev/null
check "a bundle to read" test -s run.repro
touch r.html e.json
chmod 600 r.html e.json
"$repro" report run.repro -o r.html 2>/dev/null
"$repro" export run.repro -o e.json 2>/dev/null
check "report -o onto a 0600 file: written, still 0600" \
	sh -c "[ -s r.html ] && [ \"\$(stat -c %a r.html)\" = 600 ]"
check "export -o onto a 0600 file: written, still 0600" \
	sh -c "[ -s e.json ] && [ \"\$(stat -c %a e.json)\" = 600 ]"
if [ "$(id -u)" = 0 ] && id -u nobody >/dev/null 2>&1; then
	ln -s "$work/victim" planted.html
	chown -h nobody planted.html
	"$repro" report run.repro -o planted.html 2>planted.err
	rc=$?
	check "report -o a symbolic link another user planted: exit 2, one line, the victim unchanged (exit $rc)" \
		sh -c "[ $rc = 2 ] && [ \"\$(wc -l <planted.err)\" = 1 ] && grep -q 'is a symbolic link of another user' planted.err && [ \"\$(cat victim)\" = precious ]"
fi

# 4. two recordings to one -o: the first waits on a FIFO this script holds
rm -f ready go
mkfifo ready go
"$repro" record -o same.repro -- sh -c 'echo up >ready; read x <go; echo first' >first.out 2>first.err &
first=$!
read -r _ <ready
"$repro" record -o same.repro -- sh -c 'echo second' >second.out 2>second.err
rc=$?
check "a second recording to the same -o: exit 2, one line, its program not run (exit $rc)" \
	sh -c "[ $rc = 2 ] && [ \"\$(wc -l <second.err)\" = 1 ] && grep -q \"^repro: another recording is writing the bundle 'same.repro'\" second.err && [ ! -s second.out ]"
"$repro" pack base -o same.repro 2>samepack.err
rc=$?
check "pack to the -o a recording is writing: exit 2 (exit $rc)" \
	sh -c "[ $rc = 2 ] && grep -q 'another recording is writing the bundle' samepack.err"
echo go >go
wait $first
rc=$?
check "the first recording ends as it would have (exit $rc) with its bundle" \
	sh -c "[ $rc = 0 ] && [ -s same.repro ] && grep -q first first.out"
"$repro" record -o same.repro -- true 2>/dev/null
rc=$?
check "once it ended, the -o is free again (exit $rc)" test $rc = 0

exit $fail
