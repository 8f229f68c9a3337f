"""try_syscall exits with the errno of its attempt: repro's seccomp filter and
namespaces must not change the outcome (the status equality is checked by
run_case); here the status is tied to the errno the program printed."""
import errno
import re

import bundlecheck as bc

b = bc.Bundle()
out = bc.stdout().strip()
print("try_syscall: %s" % out)
m = re.search(r"\) = (?:-1 (E[A-Z0-9]+)|0)$", out)
bc.expect(m, "the program printed its result", out)
want = getattr(errno, m.group(1)) if m and m.group(1) else 0
bc.expect_exit(b, code=want)
execs = (b.processes[0].get("execs") or [{}]) if b.processes else [{}]
bc.expect((execs[0].get("argv") or [])[1:] == (b.manifest.get("argv") or [])[1:],
          "the exec's argv names the attempt", execs[0])
bc.done()
