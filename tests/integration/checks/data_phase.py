"""net/data_phase.py: each connect's data phase in network.jsonl (bytes
sent and received, how the connection ended, the time to the first byte,
the protocol of the first bytes), and the words `repro show` has for them."""
import bundlecheck as bc

b = bc.Bundle()
print("data_phase: net/data_phase.py")
bc.expect_exit(b, code=0)
out = bc.stdout()
bc.expect(out.splitlines() == ["received 0 bytes", "reset", "curl: status 0, 2000 bytes"],
          "the program's three connections ended as they should", out)

net = bc._load_jsonl(bc.os.path.join(bc.env("BUNDLE_DIR"), "network.jsonl"))
main_pid = b.processes[0]["pid"] if b.processes else 0
curl = [p["pid"] for p in b.processes
        if any(x.get("path", "").endswith("/curl") for x in p.get("execs") or [])]
conns = sorted((n for n in net if n.get("kind") == "attempt" and n.get("syscall") == "connect"
                and n.get("ip") == "127.0.0.1" and n.get("outcome") == "connected"),
               key=lambda n: n["t_ns"])
mine = [n for n in conns if n.get("pid") == main_pid]
bc.expect(len(mine) == 2, "python connected twice", conns)
mine += [{}, {}]

n = bc.expect_one(mine[:1], "the connect to the silent server", net)
if n:
    req = len(b"GET /model.bin HTTP/1.1\r\nHost: x\r\n\r\n")
    bc.expect(n.get("sent") == req and n.get("received") == 0, "sent %d, received 0" % req, n)
    bc.expect(n.get("end") == "peer_closed", "end: peer_closed", n)
    bc.expect(n.get("proto") == "http", "proto: http (an HTTP request line)", n)
    bc.expect("first_byte_ns" not in n, "no first byte", n)
    bc.expect(isinstance(n.get("end_ns"), int) and n["end_ns"] >= n["t_ns"] + 250000000,
              "the peer closed 0.3 s after the connect", n)
n = bc.expect_one(mine[1:2], "the connect to the resetting server", net)
if n:
    bc.expect(n.get("sent") == 6 and n.get("end") == "reset", "sent 6, end: reset", n)
    bc.expect("proto" not in n, "no protocol recognised in PING", n)
n = bc.expect_one([c for c in conns if c.get("pid") in curl],
                  "one connect of curl to the HTTP server", net)
if n:
    bc.expect(n.get("proto") == "http" and n.get("sent", 0) > 0, "curl sent an HTTP request", n)
    bc.expect(n.get("received", 0) > 2000, "curl received the headers and 2000 bytes", n)
    bc.expect(isinstance(n.get("first_byte_ns"), int) and n["first_byte_ns"] >= 0,
              "a time to first byte", n)
    bc.expect(n.get("end") in ("closed", "peer_closed"), "closed by curl or by the server", n)
bc.done()
