"""repro-test (stepped down to by runuser) chmods a file that root owns:
EPERM, and explain says the process does not own the file, naming the
owner and the process's uid, before any guess about ACLs or security
modules."""
import os
import pwd

import bundlecheck as bc

b = bc.Bundle()
print("chmod_not_owner: chmod of a root-owned file as repro-test")
bc.expect_exit(b, code=1)
path = os.path.realpath(bc.TMP) + "/owned/f"
uid = pwd.getpwnam("repro-test").pw_uid
f = bc.expect_cause("the chmod EPERM",
                    lambda f: f.get("path") == path and f.get("errno") == "EPERM")
reason = f.get("reason") or {}
bc.expect(reason.get("what") == "not_owner", "explain: the reason is ownership", reason)
bc.expect(reason.get("owner_uid") == 0 and reason.get("process_uid") == uid,
          "explain names the owner (0) and the process's uid (%d)" % uid, reason)
bc.expect("does not own" in (f.get("sentence") or ""), "the sentence says so", f.get("sentence"))
bc.done()
