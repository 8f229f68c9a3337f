"""AF_UNIX connects: a missing path (ENOENT) and an abstract name (ECONNREFUSED)."""
import os

import bundlecheck as bc

b = bc.Bundle()
path = os.path.join(bc.TMP, "missing.sock")
print("unix_connect: %s and an abstract name" % path)
bc.expect_exit(b, code=0)
bc.expect_one(b.find(syscall="connect", errno="ENOENT",
                     addr={"family": "AF_UNIX", "path": path}),
              "connect(AF_UNIX %s) = -1 ENOENT" % path, b.find(syscall="connect"))
bc.expect_one(b.find(syscall="connect", errno="ECONNREFUSED",
                     addr={"family": "AF_UNIX",
                           "abstract": "repro-test-no-such-abstract-socket"}),
              "connect(AF_UNIX @repro-test-no-such-abstract-socket) = -1 ECONNREFUSED",
              b.find(syscall="connect"))
bc.expect(len(b.find(syscall="socket", ok=True)) >= 2, "two socket() events",
          b.find(syscall="socket"))
bc.expect_cause("a connect to a unix socket that is not there",
                lambda f: f.get("kind") == "connect"
                and f.get("outcome") in ("no_such_socket", "refused"))
bc.done()
