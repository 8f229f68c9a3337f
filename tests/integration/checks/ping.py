"""ping as it is run: its raw (or ICMP datagram) socket opens under repro
as without it, and it gets its reply (output compared with the bare run)."""
import bundlecheck as bc

b = bc.Bundle()
print("ping: one echo to 127.0.0.1")
bc.expect_exit(b, code=0)
bc.expect("1 received" in bc.stdout(), "the echo came back", bc.stdout())
socks = b.find(syscall="socket")
bc.expect(any(e.get("ret", -1) >= 0 for e in socks), "ping's socket opened", socks)
raw = [e for e in socks if "SOCK_RAW" in str(e.get("type"))]
bc.expect(any(e.get("ret", -1) >= 0 for e in raw) or not raw,
          "a raw socket, when ping asks for one, opens (CAP_NET_RAW kept)", raw)
bc.done()
