"""A bash script runs a file without its run bit: execve EACCES, exit 126."""
import os

import bundlecheck as bc

b = bc.Bundle()
tool = os.path.join(bc.TMP, "tool.sh")
print("bash_noexec: run.sh runs ./tool.sh (mode 0644)")
bc.expect_exit(b, code=126)
bc.expect("tool.sh: Permission denied" in bc.stderr(), "bash said Permission denied",
          bc.stderr())
ev = bc.expect_one(b.find(syscall="execve", path=tool, errno="EACCES"),
                   "execve(%s) = -1 EACCES" % tool, b.find(syscall="execve"))
if ev:
    bc.expect(ev.get("argv") == ["./tool.sh"], "its argv is as bash passed it", ev)
    child = b.process(ev.get("pid")) or {}
    bc.expect(child.get("exit") == {"code": 126}, "the forked bash exited 126", child)
bc.expect_cause("the run of tool.sh, which has no run bit",
                lambda f: f.get("kind") == "exec" and f.get("errno") == "EACCES"
                and f.get("path") == tool and (f.get("reason") or {}).get("what") == "no_run_bit")
bc.done()
