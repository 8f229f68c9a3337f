#!/bin/bash
# export.sh REPRO [root|user]: `repro export --format=chrome-trace` (the
# Trace Event Format that Perfetto UI and chrome://tracing load) of a real
# run - python3 with a thread, a forked child that execs sh, a failed open
# of a file named like markup and a terminal escape, and a read that waits
# 1.3 s on a pipe - checked against the format's required fields and
# against the bundle: one complete event per line of events.jsonl with its
# pid, tid, ts (t_ns / 1000) and dur (dur_ns / 1000), a named track per
# process and thread, the long wait as a slice, the bundle's strings
# intact; -o FILE, a FIFO (written into), a symbolic link (its target),
# the bundle itself (refused); bad input: one line, exit 2.
# "user" runs it as the unprivileged user repro-test.
set -u
. "$(dirname "$0")/lib.sh"
repro=$(readlink -f "$1")
variant=${2:-root}
here=$(cd "$(dirname "$0")" && pwd)
if [ "$variant" = user ] && [ "$(id -u)" = 0 ]; then
	stage_for_test_user || exit 77
	run_staged --clean-env bash "$stage/export.sh" "$stage/repro" user
	exit $?
fi
py=/usr/bin/python3
[ -x $py ] || { echo "no python3: skip"; exit 77; }
work=$(mktemp -d /tmp/repro-exportt.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
export HOME=$work
fail=0

cat >run.py <<'PY'
import os, sys, threading, time
def stats():
    for _ in range(20):
        os.stat("/")
t = threading.Thread(target=stats)
t.start()
t.join()
pid = os.fork()
if pid == 0:
    os.execv("/bin/sh", ["sh", "-c", "exit 3"])
os.waitpid(pid, 0)
try:
    open("<script>alert(1)</script>\x1b[31m.json")
except OSError:
    pass
r, w = os.pipe()
if os.fork() == 0:
    time.sleep(1.3)
    os.write(w, b"x")
    os._exit(0)
os.read(r, 1)
os.wait()
PY
"$repro" record -o run.repro -- $py run.py >/dev/null 2>&1
check "the run was recorded" test -s run.repro
"$repro" export run.repro >trace.json 2>export.err
rc=$?
check "export: exit 0, nothing on stderr (exit $rc)" sh -c "[ $rc = 0 ] && [ ! -s export.err ]"
"$repro" export --format=chrome-trace -o out.json run.repro 2>o.err
check "-o FILE writes the same trace" cmp -s trace.json out.json
check "the trace is a Trace Event Format document that holds the bundle" $py - <<'PY'
import json, subprocess, sys
def member(name):
    out = subprocess.run(["tar", "--zstd", "-xOf", "run.repro", name], capture_output=True, text=True)
    return [json.loads(l) for l in out.stdout.splitlines() if l.strip()]
doc = json.load(open("trace.json"))
evs = doc["traceEvents"]
problems = []
for e in evs:
    if not isinstance(e.get("name"), str) or e.get("ph") not in ("X", "i", "M") or \
       not isinstance(e.get("pid"), int) or not isinstance(e.get("tid"), int):
        problems.append(("fields", e))
    if e["ph"] in ("X", "i") and not (isinstance(e.get("ts"), (int, float)) and e["ts"] >= 0):
        problems.append(("ts", e))
    if e["ph"] == "X" and not (isinstance(e.get("dur"), (int, float)) and e["dur"] >= 0):
        problems.append(("dur", e))
assert doc.get("displayTimeUnit") == "ms" and not problems, problems[:3]
calls = {e["args"]["seq"]: e for e in evs if e["ph"] == "X" and e.get("cat") in ("ok", "failed", "injected", "imposed")}
events = member("events.jsonl")
assert len(calls) == len(events) == len([e for e in evs if e.get("cat") in ("ok", "failed")]), \
    (len(calls), len(events))
for ev in events:
    x = calls[ev["seq"]]
    assert x["name"] == ev["syscall"] and x["pid"] == ev["pid"] and x["tid"] == ev["tid"], (x, ev)
    assert abs(x["ts"] - ev["t_ns"] / 1000) < 0.002 and abs(x["dur"] - ev["dur_ns"] / 1000) < 0.002, (x, ev)
    assert (x["cat"] == "failed") == ("errno" in ev), (x, ev)
procs = member("processes.jsonl")
named = {e["pid"] for e in evs if e["ph"] == "M" and e["name"] == "process_name"}
assert named == {p["pid"] for p in procs} and len(procs) >= 3, (named, len(procs))
threads = {(ev["pid"], ev["tid"]) for ev in events if ev["tid"] != ev["pid"]}
tnamed = {(e["pid"], e["tid"]) for e in evs if e["ph"] == "M" and e["name"] == "thread_name"}
assert threads and threads <= tnamed, (threads, tnamed)
execs = [e for e in evs if e["ph"] == "i" and e["name"] == "exec" and e["args"]["argv"][:1] == ["sh"]]
assert execs, "the child's exec of sh is an instant"
assert any(e["ph"] == "i" and e["name"] == "exited 3" for e in evs), "the child's exit 3"
waits = [e for e in evs if e.get("cat") == "wait"]
assert any(w["dur"] >= 1_000_000 and "read" in w["name"] for w in waits), waits
bad = "<script>alert(1)</script>\x1b[31m.json"
assert any(x["args"].get("path", "").endswith("/" + bad) and x["cat"] == "failed" for x in calls.values()), \
    "the markup-named path, intact and failed"
print("trace: %d events, %d calls, %d processes, %d threads, %d waits" %
      (len(evs), len(calls), len(procs), len(threads), len(waits)))
PY
for args in "/nonexistent.repro" "--format=perfetto run.repro" "--bogus run.repro" "" \
	"run.repro run.repro" "-o /nonexistent/dir/x.json run.repro"; do
	echo garbage >garbage.repro
	# shellcheck disable=SC2086
	"$repro" export $args >bad.out 2>bad.err
	rc=$?
	check "export $args: exit 2, one line ($(head -c 100 bad.err))" \
		sh -c "[ $rc = 2 ] && [ \$(wc -l <bad.err) = 1 ] && [ ! -s bad.out ]"
done
cp run.repro same.repro
"$repro" export -o same.repro same.repro 2>same.err
rc=$?
check "-o the bundle itself: exit 2, one line, the bundle intact" \
	sh -c "[ $rc = 2 ] && [ \$(wc -l <same.err) = 1 ] && cmp -s run.repro same.repro"
mkfifo fifo
(cat fifo >from-fifo.json) &
"$repro" export -o fifo run.repro
rc=$?
wait
check "-o a FIFO: written into, not replaced (exit $rc)" \
	sh -c "[ $rc = 0 ] && [ -p fifo ] && cmp -s trace.json from-fifo.json"
ln -s target.json link.json
"$repro" export -o link.json run.repro
check "-o a symbolic link: what it names is written, the link stays" \
	sh -c "[ -L link.json ] && cmp -s trace.json target.json"
"$repro" export garbage.repro >bad.out 2>bad.err
rc=$?
check "export of a garbage bundle: exit 2, one line, no trace" \
	sh -c "[ $rc = 2 ] && [ \$(wc -l <bad.err) = 1 ]"
check "no temporary file is left behind" sh -c "! ls ./*.tmp-* 2>/dev/null | grep -q ."
exit $fail
