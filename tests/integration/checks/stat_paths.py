"""stat_paths: the calls repro answers itself (seccomp user notification,
launcher/behalf.h) are recorded with the results the program saw (oracle.py
checks each one, and run_case the identical output).  Here: only the calls
that must go through a magic link or /proc/self (/dev/stdin, /proc/mounts)
are left to the kernel and recorded without a result, and with --ptrace-only
none is."""
import os
import re

import bundlecheck as bc

b = bc.Bundle()
with open(os.environ["CASE_ARGS_FILE"], encoding="utf-8") as f:
    ptrace_only = "--ptrace-only" in f.read()
print("stat_paths: results of calls answered on the program's behalf%s"
      % (" (--ptrace-only)" if ptrace_only else ""))
bc.expect_exit(b, code=0)
kernel_only = {"/dev/stdin", "/proc/mounts"}
def written(ev):
    return ev.get("path_as_written", ev.get("path"))


unseen = {written(ev) for ev in b.find(pred=lambda ev: ev.get("result_unseen"))}
if ptrace_only:
    bc.expect(not unseen, "no call without its result under --ptrace-only", sorted(unseen))
else:
    # fd 77 by names that lead through /proc/self: repro must not answer them
    fd77 = {p for p in unseen if p and ("fd/77" in p or p.endswith("lfd77"))}
    # realpath(3) in the program's oracle reads /proc/thread-self itself
    through_self = {"/proc/self", "/proc/thread-self", "/proc/self/cwd/nonexistent"}
    bc.expect(unseen - fd77 <= kernel_only | through_self,
              "only magic-link and /proc/self paths are left to the kernel",
              sorted(unseen - fd77 - kernel_only - through_self))
for path in sorted(kernel_only):
    bc.expect_one(b.find(syscall="newfstatat", pred=lambda ev, p=path: written(ev) == p),
                  "stat(%s) is recorded" % path, b.about(path))
# /dev/stdin is recorded as what fd 0 names, /proc/self/cwd/x under the program's cwd
m = re.search(r"^# stdin is (.*)$", bc.stdout(), re.M)
bc.expect(m, "the program said what its fd 0 is", bc.stdout()[:300])
fd0 = m.group(1) if m else None
want = fd0 if fd0 and fd0.startswith("/") else "/dev/stdin"  # a pipe has no path
stdin = b.find(syscall="newfstatat", pred=lambda ev: written(ev) == "/dev/stdin")
bc.expect(stdin and all(ev.get("path") == want for ev in stdin),
          "stat(/dev/stdin) is recorded as %s" % want, stdin)
m = [ev for ev in b.events if written(ev) == "/proc/self/cwd/nonexistent"]
bc.expect(all(ev.get("path", "").endswith("/nonexistent")
              and not ev.get("path", "").startswith("/proc/") for ev in m),
          "/proc/self/cwd/nonexistent is recorded under the program's cwd", m)
bc.done()
