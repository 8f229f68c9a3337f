"""python3 net/sockets.py: socketpair, setsockopt, getsockname, getpeername,
and the failed receive (EAGAIN) and send (EPIPE) of sockets nobody watches."""
import bundlecheck as bc

b = bc.Bundle()
print("python_sockets: net/sockets.py")
bc.expect_exit(b, code=0)
out = bc.stdout()
for line in ("socketpair(AF_UNIX, SOCK_STREAM) = [3, 4]",
             "setsockopt(SOL_SOCKET, 9999, 1) = -1 ENOPROTOOPT",
             "recv(empty, non-blocking) = -1 EAGAIN", "send(peer closed) = -1 EPIPE"):
    bc.expect(line in out, "the program printed %r" % line, out)

pair = bc.expect_one(b.find(syscall="socketpair", ok=True, domain="AF_UNIX",
                            type="SOCK_STREAM|SOCK_CLOEXEC"),
                     "socketpair(AF_UNIX, SOCK_STREAM|SOCK_CLOEXEC) = 0",
                     b.find(syscall="socketpair"))
if pair:
    bc.expect(pair.get("fds") == [3, 4], "socketpair fds [3, 4]", pair)
bc.expect_one(b.find(syscall="setsockopt", ok=True, level="SOL_SOCKET", optname="SO_REUSEADDR",
                     optval=1), "setsockopt(SOL_SOCKET, SO_REUSEADDR, [1]) = 0",
              b.find(syscall="setsockopt"))
bc.expect_one(b.find(syscall="setsockopt", errno="ENOPROTOOPT", optname="9999"),
              "setsockopt(SOL_SOCKET, 9999) = -1 ENOPROTOOPT", b.find(syscall="setsockopt"))
names = b.find(syscall="getsockname", ok=True,
               pred=lambda e: (e.get("addr") or {}).get("family") == "AF_INET")
ev = bc.expect_one(names, "getsockname of the bound AF_INET socket",
                   b.find(syscall="getsockname"))
if ev:
    addr = ev.get("addr") or {}
    bc.expect(addr.get("ip") == "127.0.0.1" and addr.get("port", 0) > 0,
              "its address is 127.0.0.1 and the port the kernel chose", ev)
bc.expect_one(b.find(syscall="getpeername", errno="ENOTCONN"), "getpeername = -1 ENOTCONN",
              b.find(syscall="getpeername"))
bc.expect_one(b.find(syscall="recvfrom", errno="EAGAIN", fd=3), "recvfrom(3) = -1 EAGAIN",
              b.find(syscall="recvfrom"))
bc.expect_one(b.find(syscall="sendto", errno="EPIPE", fd=3), "sendto(3) = -1 EPIPE",
              b.find(syscall="sendto"))
# sends and receives that worked on sockets nobody watches are not kept
bc.expect(not b.find(syscall=("sendto", "recvfrom"), ok=True),
          "no successful send or receive is recorded", b.find(syscall=("sendto", "recvfrom")))
for text in ("setsockopt(5, SOL_SOCKET, SO_REUSEADDR, [1], 4) = 0",
             "socketpair(AF_UNIX, SOCK_STREAM|SOCK_CLOEXEC, 0, [3, 4]) = 0",
             "sendto(3, ", "= -1 EPIPE (Broken pipe)"):
    bc.expect(text in b.trace, "trace.txt has %r" % text,
              [ln for ln in b.trace.splitlines() if "sock" in ln or "send" in ln][:12])
bc.done()
