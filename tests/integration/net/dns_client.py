#!/usr/bin/python3
"""Resolves names through the system resolver (getaddrinfo: glibc, nsswitch
"files dns"), connects to the one that resolves, and asks a question over
DNS-over-TCP by hand (a 2-byte length, then the message: RFC 1035 4.2.2).
  dns_client.py HTTP_PORT"""
import socket, struct, sys

port = int(sys.argv[1])
for name in ("good.repro.test", "alias.repro.test", "bad.repro.test", "broken.repro.test",
             "silent.repro.test"):
    try:
        ip = socket.getaddrinfo(name, port, socket.AF_INET, socket.SOCK_STREAM)[0][4][0]
        print(name, "->", ip)
    except socket.gaierror as e:
        print(name, "-> error", e.args[0])

with socket.create_connection(("good.repro.test", port), timeout=5) as c:
    c.sendall(b"GET / HTTP/1.0\r\nHost: good.repro.test\r\n\r\n")
    print("http:", c.recv(64).split(b"\r\n")[0].decode())

q = struct.pack("!HHHHHH", 0x4242, 0x0100, 1, 0, 0, 0)
q += b"".join(bytes([len(p)]) + p.encode() for p in "tcp.repro.test".split(".")) + b"\0"
q += struct.pack("!HH", 1, 1)
with socket.create_connection(("127.0.0.1", 53), timeout=5) as t:
    t.sendall(struct.pack("!H", len(q)) + q)
    n, = struct.unpack("!H", t.recv(2))
    reply = t.recv(n)
    print("tcp answer:", socket.inet_ntoa(reply[-4:]))
