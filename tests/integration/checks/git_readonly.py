"""git init in a read-only directory, as an unprivileged user: mkdir EACCES."""
import os

import bundlecheck as bc

b = bc.Bundle()
target = os.path.join(bc.TMP, "ro", ".git")
print("git_readonly: git -C ro init")
bc.expect(bc.STATUS != 0, "git failed", bc.STATUS)
bc.expect_exit(b, code=bc.STATUS)
bc.expect("Permission denied" in bc.stderr(), "git said Permission denied", bc.stderr())
bc.expect_one(b.exec_process("/usr/bin/git"), "a process exec'd /usr/bin/git")
bc.expect_one(b.find(syscall=("mkdir", "mkdirat"), path=target, errno="EACCES"),
              "mkdir(%s) = -1 EACCES" % target, b.about(target))
bc.expect_one(b.find(syscall="chdir", path=os.path.join(bc.TMP, "ro"), ok=True),
              "git -C made chdir(ro) = 0")
bc.expect(not os.path.exists(target), "nothing was created")
bc.expect_cause("the denied mkdir in the read-only directory",
                lambda f: f.get("errno") == "EACCES" and f.get("path", "").startswith(
                    os.path.join(bc.TMP, "ro")) and (f.get("reason") or {}).get("what") == "permission")
bc.done()
