"""stat_paths: the calls repro answers itself (seccomp user notification,
launcher/behalf.h) are recorded with the results the program saw (oracle.py
checks each one, and run_case the identical output).  Here: only the calls
that must go through a magic link or /proc/self (/dev/stdin, /proc/mounts)
are left to the kernel and recorded without a result, and with --ptrace-only
none is."""
import os

import bundlecheck as bc

b = bc.Bundle()
with open(os.environ["CASE_ARGS_FILE"], encoding="utf-8") as f:
    ptrace_only = "--ptrace-only" in f.read()
print("stat_paths: results of calls answered on the program's behalf%s"
      % (" (--ptrace-only)" if ptrace_only else ""))
bc.expect_exit(b, code=0)
kernel_only = {"/dev/stdin", "/proc/mounts"}
unseen = {ev.get("path") for ev in b.find(pred=lambda ev: ev.get("result_unseen"))}
if ptrace_only:
    bc.expect(not unseen, "no call without its result under --ptrace-only", sorted(unseen))
else:
    # fd 77 by names that lead through /proc/self: repro must not answer them
    fd77 = {p for p in unseen if p and ("fd/77" in p or p.endswith("/lfd77"))}
    through_self = {"/proc/self", "/proc/self/cwd/nonexistent"}
    bc.expect(unseen - fd77 <= kernel_only | through_self,
              "only magic-link and /proc/self paths are left to the kernel",
              sorted(unseen - fd77 - kernel_only - through_self))
for path in sorted(kernel_only):
    bc.expect_one(b.find(syscall="newfstatat", path=path), "stat(%s) is recorded" % path,
                  b.about(path))
bc.done()
