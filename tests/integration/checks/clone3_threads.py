"""clone3: a fork-like child and two pthreads, each event on the right task."""
import re

import bundlecheck as bc

b = bc.Bundle()
print("clone3_threads: a raw clone3 child and two threads")
bc.expect_exit(b, code=0)
main = b.processes[0] if b.processes else {}
m = re.search(r"clone3 child pid=(\d+) exited status=0", bc.stdout())
bc.expect(m, "the program reported its clone3 child", bc.stdout())
child_pid = int(m.group(1)) if m else None
bc.expect(len(b.processes) == 2, "two processes: the program and its clone3 child",
          b.processes)
child = b.process(child_pid) or {}
bc.expect(child.get("ppid") == main.get("pid"), "the child's ppid is the program", child)
bc.expect(child.get("exit") == {"code": 0}, "the child exited 0", child)
bc.expect(main.get("threads") == 2, "the program created 2 threads", main)
bc.expect_one(b.find(syscall="clone3", ret=child_pid, pid=main.get("pid")),
              "a clone3 event returned the child's pid", b.find(syscall=("clone", "clone3")))
ev = bc.expect_one(b.find(syscall="openat", path="/nonexistent/clone3-child", errno="ENOENT"),
                   "the child's openat ENOENT")
if ev:
    bc.expect(ev.get("pid") == child_pid, "it is attributed to the child", ev)
for n in (1, 2):
    ev = bc.expect_one(b.find(syscall="openat", path="/nonexistent/clone3-thread-%d" % n,
                              errno="ENOENT"), "thread %d's openat ENOENT" % n)
    if ev:
        bc.expect(ev.get("pid") == main.get("pid") and ev.get("tid") != ev.get("pid"),
                  "it is attributed to a thread of the program (tid != pid)", ev)
bc.done()
