"""Non-blocking connect to a closed loopback port: EINPROGRESS, then
getsockopt(SO_ERROR) = ECONNREFUSED (or ECONNREFUSED at once)."""
import bundlecheck as bc

b = bc.Bundle()
port = int(bc.env("CASE_PORT"))
print("connect_refused: 127.0.0.1:%d" % port)
bc.expect_exit(b, code=0)
addr = {"family": "AF_INET", "ip": "127.0.0.1", "port": port}
conn = b.find(syscall="connect", addr=addr, ok=False)
ev = bc.expect_one(conn, "connect to 127.0.0.1:%d failed" % port, b.find(syscall="connect"))
if ev and ev.get("errno") == "EINPROGRESS":
    later = b.find(syscall="getsockopt", optval="ECONNREFUSED", fd=ev.get("fd"),
                   pred=lambda e: e.get("seq", 0) > ev.get("seq", 0))
    bc.expect_one(later, "then getsockopt(SO_ERROR) on the same fd gave ECONNREFUSED",
                  b.find(syscall="getsockopt"))
else:
    bc.expect(ev is not None and ev.get("errno") == "ECONNREFUSED",
              "connect failed with EINPROGRESS or ECONNREFUSED", ev)
net = "none" if "--net=none" in open(bc.env("CASE_ARGS_FILE")).read() else "host"
bc.expect((b.manifest.get("options") or {}).get("net") == net,
          "manifest options.net == %s" % net, b.manifest.get("options"))
bc.expect_cause("the refused connect",
                lambda f: f.get("kind") == "connect" and f.get("outcome") == "refused")
bc.done()
