"""Started as root, the command steps down to repro-test (runuser, setpriv,
su) and then looks for a missing configuration file with stat(2).  After a
credential change repro traces the task by stops, so the call keeps its
result (no result_unseen), and explain puts it first."""
import bundlecheck as bc

b = bc.Bundle()
print("switch_user: root steps down, then stats a missing config")
bc.expect_exit(b, code=3)
bc.expect(bc.stdout().strip() == "repro-test", "the shell ran as repro-test", bc.stdout())
path = "/nonexistent-repro-etc/app.conf"
ev = [e for e in b.events if e.get("path") == path and e.get("syscall") != "execve"]
bc.expect(len(ev) >= 1 and all(e.get("errno") == "ENOENT" and e.get("ret") == -1 for e in ev),
          "the stat of %s = -1 ENOENT, with its result" % path, ev)
unseen = [e for e in b.events if e.get("unseen_reason") == "credentials_changed"]
bc.expect(not unseen, "no call lost its result to the switch", unseen[:3])
bc.expect_cause("the missing app.conf", lambda f: f.get("path") == path and f.get("errno") == "ENOENT")
bc.done()
