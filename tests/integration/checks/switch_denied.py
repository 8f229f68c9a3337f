"""Root steps down to repro-test and creates a directory in /var/lib
(root:root 0755): EACCES, and explain judges the permission by the uid
the process switched to, not by host.json's (root's)."""
import pwd

import bundlecheck as bc

b = bc.Bundle()
print("switch_denied: runuser -u repro-test -- mkdir /var/lib/...")
uid = pwd.getpwnam("repro-test").pw_uid
bc.expect_exit(b, code=1)
mk = b.find(syscall="mkdir", errno="EACCES")
bc.expect(len(mk) == 1, "mkdir = -1 EACCES is recorded", b.find(syscall="mkdir"))
f = bc.expect_cause("the denied mkdir", lambda f: f.get("errno") == "EACCES"
                    and (f.get("reason") or {}).get("what") == "permission")
bc.expect((f.get("reason") or {}).get("process_uid") == uid,
          "the permission is judged for uid %d (repro-test)" % uid, f.get("reason"))
bc.done()
