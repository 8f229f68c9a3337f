#!/bin/bash
# disk_full.sh REPRO: a full disk does not lose the run (README "A full
# disk"; docs/errors.md).  Root only: each case mounts small tmpfs file
# systems in a mount namespace of its own (unshare --mount), so nothing
# leaks out.  The program makes 40,000 failed stat calls (far more than a
# 1 MiB spool holds), then runs /bin/true, and exits 3.
#  1. the spool on a full 1 MiB tmpfs, -o elsewhere: repro exits 3, one
#     'repro:' line says what was dropped and where the bundle is; the
#     manifest is "incomplete" with "dropped" and a warning; processes.jsonl
#     has every process and exit; show and explain say "Incomplete bundle";
#  2. -o on the spool's tmpfs (4 MiB), which the program fills: the bundle
#     goes to /tmp under its name and the line says so; nothing is left at -o;
#  3. /tmp and /var/tmp full as well: the spool is kept, the line gives the
#     'repro pack' command; once there is room that command makes the
#     bundle, with the exit status from the spool;
#  4. repro pack of that spool with its last record cut short: the exit
#     comes from the process records, and the manifest warns of truncation;
#  5. TMPDIR on a 64 KiB and on a 16 KiB tmpfs, less than the 256 KiB
#     reserve (no room for some process records, nor perhaps for the
#     DROPPED and END records): the manifest agrees with the repro: line
#     (incomplete, the counts of events and process records), processes.jsonl
#     and the manifest have every exit status, explain begins with
#     'Incomplete bundle' and gives the status.
set -u
. "$(dirname "$0")/lib.sh"
repro=$(realpath "$1")
if [ "${2:-}" != inside ]; then
	[ "$(id -u)" = 0 ] || { echo "needs root (mount): skip"; exit 77; }
	unshare --mount --propagation private true 2>/dev/null ||
		{ echo "no mount namespaces: skip"; exit 77; }
	exec unshare --mount --propagation private bash "$0" "$repro" inside
fi
mount -t tmpfs -o size=64k tmpfs /mnt 2>/dev/null || { echo "cannot mount tmpfs: skip"; exit 77; }
umount /mnt
work=$(mktemp -d /tmp/repro-disk.XXXXXX)
fallback=/tmp/repro-disk-b.$$.repro
trap 'umount "$work/full" 2>/dev/null; rm -rf "$work" "$fallback"' EXIT
cd "$work" || exit 1
fail=0
py() { /usr/bin/python3 -c "$@"; }
stats='import os
for i in range(40000):
    try:
        os.stat("/nonexistent-%d" % i)
    except OSError:
        pass
print("done", i + 1)'
# check_bundle BUNDLE: the promises every bundle of these runs keeps
check_bundle() {
	py '
import json, subprocess, sys
b = sys.argv[1]
def member(name):
    return subprocess.run(["tar", "--zstd", "-xOf", b, name], check=True, capture_output=True, text=True).stdout
m = json.loads(member("manifest.json"))
procs = [json.loads(l) for l in member("processes.jsonl").splitlines()]
events = [json.loads(l) for l in member("events.jsonl").splitlines()]
trace = member("trace.txt").splitlines()
d = m.get("dropped") or {}
fail = 0
def check(what, ok, got):
    global fail
    print(("ok: " if ok else "FAIL: ") + what + ("" if ok else "  got: %r" % (got,)))
    fail |= not ok
check("manifest: exit code 3", m.get("exit") == {"code": 3}, m.get("exit"))
check("manifest: incomplete", m.get("incomplete") is True, m.get("incomplete"))
check("manifest: dropped on ENOSPC", d.get("errno") == "ENOSPC", d)
check("manifest: a warning says why", any(w.startswith("no space left on the spool") for w in m["warnings"]), m["warnings"])
check("events.jsonl: numbered 1..N without a gap, N = counts.events",
      [e["seq"] for e in events] == list(range(1, len(events) + 1)) and len(events) == m["counts"]["events"] > 0,
      (len(events), m["counts"]))
check("trace.txt: one line per event", len(trace) == len(events), (len(trace), len(events)))
names = [p["execs"][0]["argv"][0] if p["execs"] else None for p in procs]
check("processes.jsonl: sh, python3 and the true that ran after the disk filled",
      names[:3] == ["sh", "/usr/bin/python3", "/bin/true"], names)
check("processes.jsonl: every process has its exit (sh 3)",
      [p["exit"] for p in procs][:3] == [{"code": 3}, {"code": 0}, {"code": 0}] and not any(p.get("left_running") for p in procs),
      [(p["exit"], p.get("left_running")) for p in procs])
print("measured: %d events recorded, %s dropped (%s bytes), since %.2f s" % (len(events), d.get("events"), d.get("bytes"), d.get("since_ns", 0) / 1e9))
sys.exit(fail)
' "$1" || fail=1
}

# 1. the spool's filesystem is full, -o is not
mkdir full out
mount -t tmpfs -o size=1m tmpfs full || exit 1
bare=$(py "$stats")
TMPDIR=$work/full "$repro" record -o out/a.repro -- sh -c "/usr/bin/python3 -c '$stats'; /bin/true; exit 3" >a.out 2>a.err
rc=$?
cat a.err
check "1: repro exits with the program's status (3, got $rc)" test "$rc" = 3
check "1: the program's output is unchanged" test "$(cat a.out)" = "$bare"
check "1: one repro: line" test "$(grep -c '^repro:' a.err)" = 1
check "1: it says what was dropped and where the bundle is" \
	grep -q "^repro: no space left on the spool's filesystem (ENOSPC): [0-9]* events after [0-9.]* s were not recorded (nor their trace.txt lines; .* of records); the process tree and exit statuses are complete.*; the bundle 'out/a.repro' is marked incomplete\$" a.err
check "1: the bundle is at -o" test -s out/a.repro
check_bundle out/a.repro
check "1: the spool is gone" sh -c "! ls -A full | grep -q ."
"$repro" show out/a.repro >a.show 2>&1
"$repro" explain out/a.repro >a.explain 2>&1
check "1: show begins with 'Incomplete bundle'" \
	sh -c "head -1 a.show | grep -q '^Incomplete bundle: [0-9]* events after [0-9.]* s were not recorded (ENOSPC: the spool.s filesystem was full); processes and exit statuses are complete\$'"
check "1: show gives exit code 3" grep -q '^  exit      code 3$' a.show
check "1: explain begins with 'Incomplete bundle'" sh -c "head -1 a.explain | grep -q '^Incomplete bundle: '"
check "1: explain says the status" sed -n 2p a.explain | grep -q 'exited with status 3'
"$repro" explain --json out/a.repro >a.json
check "1: explain --json says incomplete" \
	py 'import json,sys; r = json.load(open("a.json"))["run"]; sys.exit(not (r["incomplete"] and r["dropped"]["errno"] == "ENOSPC"))'

# 2. -o on the same filesystem, which the program fills: the bundle goes to
# /tmp.  4 MiB, so that the bundle is larger than what the reserve frees
# after the run.
umount full
mount -t tmpfs -o size=4m tmpfs full || exit 1
b=full/$(basename "$fallback")
TMPDIR=$work/full "$repro" record -o "$b" -- \
	sh -c "/usr/bin/python3 -c '$stats'; /bin/true; head -c 2M /dev/zero >'$work/full/fill' 2>/dev/null; exit 3" >b.out 2>b.err
rc=$?
cat b.err
check "2: repro exits with the program's status (3, got $rc)" test "$rc" = 3
check "2: one repro: line" test "$(grep -c '^repro:' b.err)" = 1
check "2: it says where the bundle went" \
	grep -q "^repro: no space left on the spool's filesystem (ENOSPC): .*; no room for the bundle at '$b': written to '$fallback' instead, marked incomplete\$" b.err
check "2: the bundle is in /tmp" test -s "$fallback"
check "2: nothing at -o, no temporary file" sh -c "! ls -A full | grep -v '^fill\$' | grep -q ."
check_bundle "$fallback"
rm -f full/fill
umount full

# 3. and 4. /tmp and /var/tmp full too: the spool is kept for 'repro pack';
# the work directory stays in sight at /mnt while tmpfs hide /tmp and /var/tmp
mkdir c
# the tmpfs over /tmp may hide the build tree too (a checkout under /tmp): run a copy
cp "$repro" c/repro
mount --bind "$work/c" /mnt || exit 1
unshare --mount --propagation private bash -c '
repro=/mnt/repro stats=$2
mount -t tmpfs -o size=1m tmpfs /tmp && mount -t tmpfs -o size=64k tmpfs /var/tmp || exit 1
head -c 1M /dev/zero >/var/tmp/fill 2>/dev/null
cd /tmp || exit 1
TMPDIR=/tmp "$repro" record -o /tmp/c.repro -- \
	sh -c "/usr/bin/python3 -c '\''$stats'\''; /bin/true; head -c 2M /dev/zero >/tmp/fill 2>/dev/null; exit 3" \
	>/dev/null 2>/mnt/err
echo $? >/mnt/rc
ls -A /tmp >/mnt/ls
cp -a /tmp/repro-c.repro.* /mnt/spool
# room again: the command the line gave makes the bundle
rm -f /tmp/fill
mount -o remount,size=32m /tmp
cmd=$(sed -n "s/.*make the bundle later with: //p" /mnt/err)
eval "\"$repro\" ${cmd#repro }" 2>/mnt/pack.err && cp /tmp/c.repro /mnt/c.repro
ls -A /tmp >/mnt/ls.after
' c "$repro" "$stats"
umount /mnt
cat c/err
check "3: repro exits with the program's status (3, got $(cat c/rc))" test "$(cat c/rc)" = 3
check "3: one repro: line" test "$(grep -c '^repro:' c/err)" = 1
check "3: it gives the command to run later" \
	grep -q "^repro: no space left on the spool's filesystem (ENOSPC): .*; no room for the bundle at '/tmp/c.repro' nor in /var/tmp: the spool is kept; make the bundle later with: repro pack /tmp/repro-c.repro.[A-Za-z0-9]* -o /tmp/c.repro\$" c/err
check "3: the spool is kept, no bundle or temporary file at -o" \
	sh -c "grep -q '^repro-c.repro\\.' c/ls && ! grep -q '^c\\.repro' c/ls"
check "3: that command makes the bundle and removes the spool" \
	sh -c "test -s c/c.repro && ! grep -q '^repro-c' c/ls.after"
py 'import json, subprocess, sys
m = json.loads(subprocess.run(["tar", "--zstd", "-xOf", "c/c.repro", "manifest.json"], check=True, capture_output=True).stdout)
ok = (m["exit"] == {"code": 3} and m["incomplete"] and m["dropped"]["events"] > 0
      and "the recording ended without its bundle, which \x27repro pack\x27 made later" in m["warnings"])
print(("ok: " if ok else "FAIL: ") + "3: the packed bundle has exit 3, its drops and the packed-later warning" + ("" if ok else " got %r" % m))
sys.exit(not ok)' || fail=1

# 4. the kept spool with its last record (END, in the reserve) cut short
last=c/spool/reserve
[ -s "$last" ] || last=c/spool/events.spool
truncate -s $(($(stat -c %s "$last") - 5)) "$last"
"$repro" pack c/spool -o d.repro 2>d.err
check "4: repro pack makes a bundle of it" test -s d.repro
py 'import json, subprocess, sys
m = json.loads(subprocess.run(["tar", "--zstd", "-xOf", "d.repro", "manifest.json"], check=True, capture_output=True).stdout)
w = m["warnings"]
ok = (m["exit"] == {"code": 3} and m["incomplete"] and m["dropped"]["events"] is None
      and any(x.startswith("spool was truncated") for x in w)
      and "recording was interrupted and packed later by \x27repro pack\x27" in w)
print(("ok: " if ok else "FAIL: ") + "4: exit 3 from the process records, the truncation warned, incomplete" + ("" if ok else " got %r" % m))
sys.exit(not ok)' || fail=1
"$repro" show d.repro | head -1 | grep -q '^Incomplete bundle: events after [0-9.]* s were not recorded' ||
	{ echo "FAIL: 4: show says what is known"; fail=1; }

# 5. a TMPDIR smaller than the reserve; a long path, as run.json holds it
for size in 64k 16k; do
	small=$work/small-$size-tmpdir-with-a-rather-long-name-for-run.json
	mkdir -p "$small"
	mount -t tmpfs -o size=$size tmpfs "$small" || exit 1
	TMPDIR=$small "$repro" record -o out/e$size.repro -- \
		sh -c "/usr/bin/python3 -c '$stats'; /bin/true; exit 3" >/dev/null 2>e$size.err
	rc=$?
	umount "$small"
	cat e$size.err
	check "5 ($size): repro exits with the program's status (3, got $rc)" test "$rc" = 3
	check "5 ($size): one line on the full disk" test "$(grep -c '^repro: no space left' e$size.err)" = 1
	"$repro" explain out/e$size.repro >e$size.explain 2>&1
	py '
import json, re, subprocess, sys
b, err, size = sys.argv[1], open(sys.argv[2]).read(), sys.argv[3]
def member(name):
    return subprocess.run(["tar", "--zstd", "-xOf", b, name], check=True, capture_output=True, text=True).stdout
m = json.loads(member("manifest.json"))
procs = [json.loads(l) for l in member("processes.jsonl").splitlines()]
d = m.get("dropped") or {}
line = [l for l in err.splitlines() if l.startswith("repro: no space left")][0]
ev = re.search(r": (\d+) events? after", line)
pr = re.search(r"; (\d+) process records", line)
fail = 0
def check(what, ok, got):
    global fail
    print(("ok: " if ok else "FAIL: ") + "5 (%s): " % size + what + ("" if ok else "  got: %r" % (got,)))
    fail |= not ok
check("the line says the bundle is marked incomplete", line.endswith("is marked incomplete"), line)
check("manifest: incomplete", m.get("incomplete") is True, m.get("incomplete"))
check("manifest: dropped on ENOSPC", d.get("errno") == "ENOSPC", d)
if ev:
    check("manifest: the events dropped are the line\x27s", d.get("events") == int(ev.group(1)), (d, line))
else:
    check("manifest and line: the count is not known", d.get("events") is None and "not known" in line, (d, line))
check("manifest: the process records lost are the line\x27s",
      d.get("process_records") == (int(pr.group(1)) if pr else 0), (d, line))
check("manifest: the warning is the line\x27s", any(line.startswith("repro: " + w + ";") for w in m["warnings"]),
      m["warnings"])
check("manifest: exit code 3", m.get("exit") == {"code": 3}, m.get("exit"))
check("processes.jsonl: every process has its exit (sh 3, then 0s)",
      len(procs) >= 3 and procs[0]["exit"] == {"code": 3} and all(p["exit"] == {"code": 0} for p in procs[1:])
      and not any(p.get("left_running") for p in procs),
      [(p["pid"], p["exit"], p.get("left_running")) for p in procs])
sys.exit(fail)
' out/e$size.repro e$size.err $size || fail=1
	check "5 ($size): explain begins with 'Incomplete bundle'" sh -c "head -1 e$size.explain | grep -q '^Incomplete bundle: '"
	check "5 ($size): explain says the status" sh -c "sed -n 2p e$size.explain | grep -q 'exited with status 3'"
	check "5 ($size): explain does not say 'did not finish'" sh -c "! grep -q 'did not finish' e$size.explain"
done
exit $fail
