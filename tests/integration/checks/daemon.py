"""A daemon that double-forks: repro waits for the grandchild."""
import os

import bundlecheck as bc

b = bc.Bundle()
flag = os.path.join(bc.TMP, "daemon.flag")
print("daemon: fork, setsid, fork; the grandchild creates %s after 300 ms" % flag)
bc.expect_exit(b, code=0)
bc.expect(os.path.exists(flag), "the grandchild's file exists when repro has returned")
bc.expect(len(b.processes) == 3, "processes.jsonl has 3 processes", b.processes)
bc.expect(all(p.get("exit") == {"code": 0} for p in b.processes), "all 3 exited 0",
          [p.get("exit") for p in b.processes])
if len(b.processes) == 3:
    top, child, grandchild = b.processes
    bc.expect(child.get("ppid") == top.get("pid"), "the child's parent is the program", child)
    bc.expect(grandchild.get("ppid") == child.get("pid"),
              "the grandchild's parent is the child", grandchild)
    ev = bc.expect_one(b.find(syscall=("openat", "open", "creat"), path=flag, ok=True),
                       "the flag file was created", b.about(flag))
    bc.expect(ev is None or ev.get("pid") == grandchild.get("pid"),
              "by the grandchild", ev)
bc.expect(b.manifest.get("duration_ns", 0) >= 300_000_000,
          "the recording lasted at least the grandchild's 300 ms",
          b.manifest.get("duration_ns"))
bc.expect(not b.manifest.get("warnings") or
          not any("running" in w for w in b.manifest["warnings"]),
          "no process was left running", b.manifest.get("warnings"))
bc.done()
