"""A program installs a seccomp filter of its own that fails clone3 with
EPERM and access with EACCES.  Those calls never reach repro's filter
(seccomp(2): the action of highest precedence wins), so repro traces the
task by stops from the install on: the denied calls are in events.jsonl,
marked denied_by_filter, the allowed ones keep their results, and explain
names the filter."""
import bundlecheck as bc

b = bc.Bundle()
print("own_filter: clone3 and access denied by the program's own filter")
bc.expect("pthread_create = EPERM" in bc.stdout(), "the thread could not be made", bc.stdout())
installs = [e for e in b.events if e.get("syscall") in ("seccomp", "prctl") and e.get("ret") == 0]
bc.expect(len(installs) == 1, "the install is recorded", installs)
clone3 = b.find(syscall="clone3", errno="EPERM")
bc.expect(len(clone3) == 1 and clone3[0].get("denied_by_filter") is True,
          "clone3 = -1 EPERM, denied_by_filter", clone3)
tsync = (b.manifest.get("argv") or [""])[-1] == "tsync"
acc = b.find(syscall="access", path="/etc/hostname")
bc.expect(len(acc) == (2 if tsync else 1)
          and all(e.get("errno") == "EACCES" and e.get("denied_by_filter") for e in acc),
          "access(/etc/hostname) = -1 EACCES, denied_by_filter", acc)
if tsync:
    # the thread ran under PTRACE_CONT when the filter reached it through TSYNC
    bc.expect(any(e.get("tid") != e.get("pid") for e in acc),
              "the thread's denied access is recorded too", acc)
allowed = b.find(syscall="faccessat", path="/nonexistent-own-filter")
bc.expect(len(allowed) == 1 and allowed[0].get("errno") == "ENOENT"
          and not allowed[0].get("result_unseen") and not allowed[0].get("denied_by_filter"),
          "an allowed faccessat keeps its result (ENOENT)", allowed)
bc.expect("getppid() = ENOSYS" in bc.stdout(),
          "a call the filter sends to a tracer fails with ENOSYS, as with no tracer", bc.stdout())
bc.expect(not [e for e in b.events if e.get("result_unseen")], "no result is unseen",
          [e for e in b.events if e.get("result_unseen")][:3])
bc.expect_cause("a call the filter refused",
                lambda f: (f.get("reason") or {}).get("what") == "seccomp_filter")
bc.done()
