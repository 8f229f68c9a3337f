"""The demo's second variant: launch_ui.sh lacks its run bit: execve EACCES, 126."""
import os

import bundlecheck as bc

b = bc.Bundle()
script = os.path.join(bc.TMP, "app", "launch_ui.sh")
print("demo_noexec: bash start_app_noexec.sh")
bc.expect_exit(b, code=126)
bc.expect("launch_ui.sh: Permission denied" in bc.stderr(), "bash said Permission denied",
          bc.stderr())
ev = bc.expect_one(b.find(syscall="execve", path=script, errno="EACCES"),
                   "execve(%s) = -1 EACCES" % script, b.find(syscall="execve"))
bc.expect(ev is None or ev.get("argv") == ["./launch_ui.sh"], "argv as bash passed it", ev)
bc.expect(not b.exec_process("/usr/bin/python3"), "python never started")
bc.expect_cause("the run of launch_ui.sh, which has no run bit",
                lambda f: f.get("kind") == "exec" and f.get("errno") == "EACCES"
                and f.get("path") == script and (f.get("reason") or {}).get("what") == "no_run_bit")
bc.done()
