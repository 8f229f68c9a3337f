"""dirfd-, chdir- and fchdir-relative paths (the oracle checks each path);
here: the inherited dirfd in the child, the chdir/fchdir events."""
import re

import bundlecheck as bc

b = bc.Bundle()
print("dirfd_paths: relative paths through dirfds and the cwd")
bc.expect_exit(b, code=0)
m = re.search(r"^dirfd_paths: base (/\S+)$", bc.stdout(), re.M)
bc.expect(m, "the program printed its base dir", bc.stdout()[:200])
base = m.group(1) if m else "/nonexistent"
main = b.processes[0] if b.processes else {}
ev = bc.expect_one(b.find(syscall="openat", path=base + "/sub/child_missing", errno="ENOENT"),
                   "openat through the inherited dirfd in the child", b.about(base + "/sub"))
if ev:
    bc.expect(ev.get("pid") != main.get("pid"), "made by the forked child", ev)
bc.expect_one(b.find(syscall="chdir", path=base, ok=True), "chdir(base) = 0")
bc.expect_one(b.find(syscall="fchdir", ok=True), "fchdir(subfd) = 0")
ev = bc.expect_one(b.find(syscall="openat", path=base + "/dotdot_missing"),
                   "'..' is resolved against the real directory", b.about(base + "/dotdot_missing"))
bc.expect(ev is None or ev.get("path_as_written") == "../dotdot_missing",
          "the path as written is kept beside it", ev)
bc.expect(ev is None or ev.get("dirfd") == "AT_FDCWD", "dirfd is reported as AT_FDCWD", ev)
bc.done()
