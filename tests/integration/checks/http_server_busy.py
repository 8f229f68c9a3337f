"""python3 -m http.server on a port already taken: bind EADDRINUSE, exit 1."""
import bundlecheck as bc

b = bc.Bundle()
port = int(bc.env("CASE_PORT"))
print("http_server_busy: port %d is taken by another listener" % port)
bc.expect_exit(b, code=1)
bc.expect("Address already in use" in bc.stderr(), "python reported the busy address",
          bc.stderr()[-300:])
proc = bc.expect_one(b.exec_process("/usr/bin/python3"), "a process exec'd /usr/bin/python3",
                     [p.get("execs") for p in b.processes])
addr = {"family": "AF_INET", "ip": "127.0.0.1", "port": port}
ev = bc.expect_one(b.find(syscall="bind", addr=addr, errno="EADDRINUSE"),
                   "bind(127.0.0.1:%d) = -1 EADDRINUSE" % port, b.find(syscall="bind"))
if ev and proc:
    bc.expect(ev.get("pid") == proc.get("pid"), "made by the python process", ev)
    sock = b.find(syscall="socket", ok=True, ret=ev.get("fd"), pid=ev.get("pid"),
                  pred=lambda e: e["seq"] < ev["seq"])
    bc.expect_one(sock, "the bound fd came from an earlier socket() call",
                  b.find(syscall="socket"))
bc.expect(not b.find(syscall="listen", ok=True), "nothing listened", b.find(syscall="listen"))
bc.expect_cause("the bind that found the port taken",
                lambda f: f.get("kind") == "bind" and f.get("outcome") == "address_in_use"
                and "EADDRINUSE" in f.get("sentence", ""))
bc.done()
