"""Checks every recording must pass, whatever the program (bundle-format.md)."""
import os

import bundlecheck as bc

b = bc.Bundle()
m = b.manifest
print("common: manifest, event and process invariants")
bc.expect(m.get("format") == "repro-bundle", "manifest format is repro-bundle", m.get("format"))
bc.expect(m.get("version") == 1, "manifest version is 1", m.get("version"))
with open(bc.env("CASE_ARGV_FILE"), "rb") as f:
    argv = [a.decode("utf-8", "surrogateescape") for a in f.read().split(b"\0")[:-1]]
bc.expect(m.get("argv") == argv, "manifest argv is the recorded command", m.get("argv"))
bc.expect(bc.norm(m.get("cwd")) == bc.norm(os.path.realpath(bc.TMP)),
          "manifest cwd is %s" % bc.TMP, m.get("cwd"))
bc.expect(isinstance(m.get("duration_ns"), int) and m["duration_ns"] > 0,
          "manifest duration_ns is a positive integer", m.get("duration_ns"))
ex = m.get("exit")
if isinstance(ex, dict) and "signal" in ex:
    import signal
    num = getattr(signal, ex["signal"], None)
    bc.expect(num is not None and bc.STATUS == 128 + num,
              "repro's status %d is 128 + %s" % (bc.STATUS, ex["signal"]), ex)
else:
    bc.expect(isinstance(ex, dict) and ex.get("code") == bc.STATUS,
              "manifest exit.code is repro's status %d" % bc.STATUS, ex)
counts = m.get("counts") or {}
bc.expect(counts.get("events") == len(b.events),
          "counts.events == %d lines of events.jsonl" % len(b.events), counts)
bc.expect(counts.get("processes") == len(b.processes),
          "counts.processes == %d lines of processes.jsonl" % len(b.processes), counts)
failed = [e for e in b.events if e.get("ret") == -1]
bc.expect(counts.get("failed") == len(failed), "counts.failed == %d failed events" % len(failed),
          counts)

seqs = [e.get("seq") for e in b.events]
bc.expect(seqs == list(range(1, len(seqs) + 1)), "events have seq 1..N in order", seqs[:20])
bad = [e for e in b.events
       if not all(k in e for k in ("seq", "t_ns", "dur_ns", "pid", "tid", "syscall", "ret"))]
bc.expect(not bad, "every event has seq, t_ns, dur_ns, pid, tid, syscall, ret", bad[:3])
bad = [e for e in b.events if (e.get("ret") == -1) != ("errno" in e)]
bc.expect(not bad, "errno is present exactly on failed events (ret -1)", bad[:3])
bad = [e for e in b.events if "errno" in e and not str(e["errno"]).startswith("E")]
bc.expect(not bad, "errno values are symbolic names", bad[:3])
# a path that cannot be made absolute (a bad dirfd, too long) is kept as given
bad = [e for e in b.events for k in ("path", "newpath")
       if isinstance(e.get(k), str) and not e[k].startswith("/")
       and e.get("errno") not in ("EBADF", "ENAMETOOLONG")]
bc.expect(not bad, "every path and newpath is absolute", bad[:3])
pids = {p.get("pid") for p in b.processes}
bad = [e for e in b.events if e.get("pid") not in pids]
bc.expect(not bad, "every event's pid is in processes.jsonl", bad[:3])

bc.expect(len(b.processes) >= 1, "processes.jsonl has the started process", b.processes)
if b.processes:
    first = b.processes[0]
    bc.expect(first.get("ppid") == 0, "the first process has ppid 0", first)
    execs = first.get("execs") or []
    if not execs:
        # a program that could not be run: a shell's status, no exec
        bc.expect((first.get("exit") or {}).get("code") in (126, 127),
                  "a first process without an exec exited 126 or 127", first)
    elif execs[0].get("argv") != argv and execs[0].get("path_as_written", execs[0].get("path")) == "/bin/sh":
        # a file without #! (ENOEXEC) runs through /bin/sh, as execvp(3) does
        bc.expect(execs[0].get("argv") == ["/bin/sh"] + argv[:1] + argv[1:],
                  "the /bin/sh fallback runs the recorded command", execs[:1])
    else:
        bc.expect(execs[0].get("argv") == argv,
                  "the first process's first exec has the recorded argv", execs[:1])
bad = [p for p in b.processes if not p.get("left_running") and p.get("exit") is None]
bc.expect(not bad, "every process that ended has an exit", bad[:3])
lines = [ln for ln in b.trace.splitlines() if ln.strip()]
bc.expect(len(lines) == len(b.events), "trace.txt has one line per event (%d)" % len(b.events),
          len(lines))
bc.done()
