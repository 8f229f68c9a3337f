"""curl to a closed loopback port: exit 7; the connect fails with EINPROGRESS
and getsockopt(SO_ERROR) reports ECONNREFUSED (or connect ECONNREFUSED)."""
import bundlecheck as bc

b = bc.Bundle()
port = int(bc.env("CASE_PORT"))
print("curl_refused: curl http://127.0.0.1:%d/" % port)
bc.expect_exit(b, code=7)
bc.expect("Failed to connect to 127.0.0.1 port %d" % port in bc.stderr(),
          "curl said it could not connect", bc.stderr())
bc.expect_one(b.exec_process("/usr/bin/curl"), "a process exec'd /usr/bin/curl",
              [p.get("execs") for p in b.processes])
addr = {"family": "AF_INET", "ip": "127.0.0.1", "port": port}
ev = bc.expect_one(b.find(syscall="connect", addr=addr, ok=False),
                   "connect to 127.0.0.1:%d failed" % port, b.find(syscall="connect"))
if ev and ev.get("errno") == "EINPROGRESS":
    bc.expect_one(b.find(syscall="getsockopt", optval="ECONNREFUSED", fd=ev.get("fd"),
                         pred=lambda e: e["seq"] > ev["seq"]),
                  "getsockopt(SO_ERROR) on its fd gave ECONNREFUSED after it",
                  b.find(syscall="getsockopt"))
else:
    bc.expect(ev is not None and ev.get("errno") == "ECONNREFUSED",
              "connect failed with EINPROGRESS or ECONNREFUSED", ev)
net = bc._load_jsonl(bc.os.path.join(bc.env("BUNDLE_DIR"), "network.jsonl"))
att = [n for n in net if n.get("ip") == "127.0.0.1" and n.get("port") == port]
n = bc.expect_one(att, "network.jsonl has one attempt to 127.0.0.1:%d" % port, net)
bc.expect(n is not None and n.get("outcome") == "refused" and n.get("errno") == "ECONNREFUSED"
          and n.get("syscall") == "connect" and n.get("type") == "SOCK_STREAM",
          "its outcome is refused (ECONNREFUSED), a SOCK_STREAM connect", n)
bc.expect_cause("the refused connect to 127.0.0.1:%d" % port,
                lambda f: f.get("kind") == "connect" and f.get("outcome") == "refused"
                and ("127.0.0.1:%d" % port) in f.get("sentence", ""))
bc.done()
