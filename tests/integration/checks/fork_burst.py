"""300 short-lived children of sh: each is one process, started before it ended.

A child that runs and exits before its parent's fork event reaches the
tracer (a race that many short children make likely) must still be one
entry of processes.jsonl, with its parent and its exit.
"""
import bundlecheck as bc

b = bc.Bundle()
print("fork_burst: sh starts 300 subshells that exit 0 at once, then waits")
bc.expect_exit(b, code=0)
pids = [p.get("pid") for p in b.processes]
bc.expect(len(b.processes) == 302, "302 processes (sh, seq, 300 subshells)", len(b.processes))
bc.expect(len(set(pids)) == len(pids), "no pid is listed twice",
          sorted(p for p in set(pids) if pids.count(p) > 1))
bc.expect(all(p.get("exit") == {"code": 0} for p in b.processes), "every process exited 0",
          [p for p in b.processes if p.get("exit") != {"code": 0}][:3])
bc.expect(all(p.get("start_ns", 0) <= p.get("end_ns", 0) for p in b.processes),
          "every process started before it ended",
          [p for p in b.processes if p.get("start_ns", 0) > p.get("end_ns", 0)][:3])
top = b.processes[0].get("pid") if b.processes else None
bc.expect(all(p.get("ppid") == top for p in b.processes[1:]), "every child's parent is sh",
          [p for p in b.processes[1:] if p.get("ppid") != top][:3])
bc.done()
