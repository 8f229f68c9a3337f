"""nginx started as root on a port below 1024 (the run's output was
already compared with the bare run): under repro it binds as it does
without it, its worker steps down to www-data and serves the page.  With
the port taken it retries bind and exits 1, and explain says the address
is in use (not a missing capability)."""
import bundlecheck as bc

b = bc.Bundle()
binds = b.find(syscall="bind")
argv = b.manifest.get("argv") or []
if argv and argv[0] == "bash":
    print("nginx: serves a page on a privileged port")
    bc.expect_exit(b, code=0)
    bc.expect("hello from nginx" in bc.stdout(), "curl got the page", bc.stdout())
    bc.expect(any(e.get("ret") == 0 for e in binds), "bind to the port worked", binds)
    bc.expect(not [e for e in binds if e.get("errno") == "EACCES"], "no bind failed with EACCES",
              binds)
    setids = [e for e in b.events if e.get("syscall") in ("setuid", "setgid", "setgroups")]
    bc.expect(bool(setids), "the worker stepped down (set*id recorded)", setids)
else:
    print("nginx: the port is taken")
    bc.expect_exit(b, code=1)
    used = [e for e in binds if e.get("errno") == "EADDRINUSE"]
    bc.expect(len(used) >= 2, "bind = -1 EADDRINUSE, retried", binds)
    bc.expect(not [e for e in binds if e.get("errno") == "EACCES"], "no bind failed with EACCES",
              binds)
    bc.expect_cause("the address in use",
                    lambda f: f.get("kind") == "bind" and f.get("outcome") == "address_in_use")
bc.done()
