"""The test program's stdout is the oracle: each call it printed, with its
annotations, must be an event of the recording (tests/programs/oracle.h).

    openat(AT_FDCWD, "rel_missing", O_RDONLY|O_CLOEXEC) = -1 ENOENT
      path /tmp/repro-dirfd.Ab12Cd/rel_missing

Each printed call is matched to a distinct event with the same syscall,
result (ret, or -1 and errno) and annotations (path, newpath, addr, optval,
target, arch).  Calls repro does not trace (unshare, mount...) are listed
and skipped.
"""
import re
import sys

import bundlecheck as bc
from strace_compare import TRACED as STRACE_CLASSES, event_addr

# strace's %file, %network and %process, plus fchdir (recorder/sys/table.def)
TRACED = STRACE_CLASSES | {"fchdir"}
CALL_RE = re.compile(r"^([a-z_0-9]+)\((.*)\) = (?:-1 (E[A-Z0-9]+)|(-?\d+))$")
NOTE_RE = re.compile(r"^  (path|newpath|addr|optval|target|arch) (.*)$")


def parse(text):
    """[(syscall, errno or None, ret or None, {note: value}, line)]"""
    calls = []
    for line in text.splitlines():
        m = CALL_RE.match(line)
        if m:
            ret = int(m.group(4)) if m.group(4) is not None else -1
            calls.append((m.group(1), m.group(3), ret, {}, line))
            continue
        n = NOTE_RE.match(line)
        if n and calls:
            calls[-1][3][n.group(1)] = n.group(2)
    return calls


def matches(ev, name, errno, ret, notes):
    if ev.get("syscall") != name or ev.get("ret") != ret or ev.get("errno") != errno:
        return False
    for key, want in notes.items():
        if key == "addr":
            got = event_addr(ev)
        elif key in ("path", "newpath"):
            got = bc.norm(ev.get(key))
            want = bc.norm(want)
            if name in ("symlink", "symlinkat") and key == "path":
                got = want if want in (bc.norm(ev.get("path")), bc.norm(ev.get("newpath"))) else got
        else:
            got = ev.get(key)
        if got != want:
            return False
    return True


def main():
    b = bc.Bundle()
    calls = parse(bc.stdout())
    print("oracle: %d calls printed by the program" % len(calls))
    if not calls:
        bc.expect(False, "the program printed at least one oracle line", bc.stdout()[:300])
        bc.done()
    used = set()
    for name, errno, ret, notes, line in calls:
        if name not in TRACED:
            print("  skip %s (repro does not trace %s)" % (line, name))
            continue
        found = [ev for ev in b.events
                 if ev.get("seq") not in used and matches(ev, name, errno, ret, notes)]
        what = "%s  %s" % (line, " ".join("%s=%s" % kv for kv in sorted(notes.items())))
        near = [ev for ev in b.events if ev.get("syscall") == name][:6]
        if bc.expect(found, what, near if not found else None):
            used.add(found[0].get("seq"))
    bc.done()


if __name__ == "__main__":
    sys.exit(main())
