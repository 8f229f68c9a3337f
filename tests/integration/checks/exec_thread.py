"""execve from a non-leader thread: one process, two execs, the exec made by a
thread whose tid is not the pid, and the pid unchanged after it."""
import os

import bundlecheck as bc

b = bc.Bundle()
argv = b.manifest.get("argv") or []
mode_true = argv[-1:] == ["true"]
prog = os.path.realpath(argv[0]) if argv else ""
print("exec_thread: exec from a non-leader thread (%s)" % ("/bin/true" if mode_true else "self"))
bc.expect_exit(b, code=0)
bc.expect(len(b.processes) == 1, "one process: the exec did not create a new one",
          b.processes)
main = b.processes[0] if b.processes else {}
execs = main.get("execs") or []
bc.expect(len(execs) == 2, "the process has two execs", execs)
if len(execs) == 2:
    if mode_true:
        bc.expect(execs[1].get("path") == bc.canon("/bin/true") and execs[1].get("argv") == ["/bin/true"],
                  "second exec is /bin/true", execs[1])
    else:
        second = execs[1]
        bc.expect(os.path.realpath(second.get("path") or "") == prog,
                  "second exec is the program itself (%s)" % prog, second)
        bc.expect((second.get("argv") or [None, None])[1] == "child",
                  "second exec has argv[1] == 'child'", second)
bc.expect(main.get("threads", 0) >= 1, "the process created a thread", main)
ok_exec = b.find(syscall="execve", ok=True, pid=main.get("pid"))
bc.expect(len(ok_exec) == 2, "two successful execve events in the process", ok_exec)
if len(ok_exec) == 2:
    ev = ok_exec[1]
    bc.expect(ev.get("tid") != ev.get("pid"),
              "the second execve was made by a thread other than the leader", ev)
bc.expect("same_pid=yes" in bc.stdout() or mode_true,
          "the program saw its pid unchanged after the exec", bc.stdout())
bc.done()
