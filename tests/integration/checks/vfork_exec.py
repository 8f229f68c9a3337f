"""vfork + execve /bin/echo: two processes, the child's exec, the link by pid."""
import re

import bundlecheck as bc

b = bc.Bundle()
print("vfork_exec: vfork, then execve of /bin/echo in the child")
bc.expect_exit(b, code=0)
m = re.search(r"child pid=(\d+) exited status=0", bc.stdout())
bc.expect(m, "the program reported its child's pid and status 0", bc.stdout())
child_pid = int(m.group(1)) if m else None
bc.expect(len(b.processes) == 2, "two processes", b.processes)
parent = b.processes[0] if b.processes else {}
child = b.process(child_pid) or {}
bc.expect(child.get("ppid") == parent.get("pid"), "the child's ppid is the parent", child)
execs = child.get("execs") or []
bc.expect(bool(execs) and execs[0].get("path") == bc.canon("/bin/echo")
          and execs[0].get("argv") == ["/bin/echo", "vforked"],
          "the child exec'd /bin/echo vforked", execs)
bc.expect(bool(execs) and (execs[0].get("path") == "/bin/echo"
                           or execs[0].get("path_as_written") == "/bin/echo"),
          "the exec keeps /bin/echo as written where it differs", execs)
bc.expect(child.get("exit") == {"code": 0}, "the child exited 0", child.get("exit"))
spawn = b.find(syscall=("vfork", "clone", "clone3"), pid=parent.get("pid"), ret=child_pid)
ev = bc.expect_one(spawn, "a vfork/clone event in the parent returned the child's pid",
                   b.find(syscall=("vfork", "clone", "clone3")))
if ev and ev.get("syscall") != "vfork":
    bc.expect("CLONE_VFORK" in (ev.get("flags") or ""), "its flags have CLONE_VFORK", ev)
bc.expect_one(b.find(syscall="execve", path=bc.canon("/bin/echo"), ok=True, pid=child_pid),
              "execve(\"/bin/echo\") = 0 in the child", b.find(syscall="execve"))
bc.done()
