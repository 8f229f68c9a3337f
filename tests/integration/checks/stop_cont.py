"""Job control: the child's SIGSTOP group-stop and SIGCONT reach the real parent."""
import bundlecheck as bc

b = bc.Bundle()
print("stop_cont: a child stops itself, its parent sees it, continues it and reaps it")
bc.expect_exit(b, code=0)
out = bc.stdout()
for line in ("child stopped by SIGSTOP", "child continued", "child exited 7"):
    bc.expect(line in out, "the program printed '%s'" % line, out)
bc.expect(len(b.processes) == 2, "two processes", b.processes)
child = b.processes[1] if len(b.processes) > 1 else {}
bc.expect(child.get("exit") == {"code": 7}, "the child exited 7", child.get("exit"))
bc.expect_one(b.find(syscall="kill", pid=b.processes[0].get("pid") if b.processes else None,
                     signal="SIGCONT"),
              "the parent's kill(child, SIGCONT) is recorded", b.find(syscall="kill"))
bc.done()
