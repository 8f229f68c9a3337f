#!/usr/bin/python3
"""A small DNS responder for the network tests (RFC 1035), UDP and TCP on
127.0.0.1:53 inside a network namespace the test created.

  good.repro.test   A 127.0.0.1 (AAAA: no answer)
  alias.repro.test  CNAME good.repro.test, A 127.0.0.1
  tcp.repro.test    A 127.0.0.2
  bad.repro.test    NXDOMAIN
  broken.repro.test SERVFAIL
  silent.repro.test no reply at all
  later.repro.test  NXDOMAIN, or A 127.0.0.1 once the file later.on is next
                    to READY_FILE (a name that resolves only later: replay)
Writes READY_FILE once both sockets listen."""
import os, socket, struct, sys, threading

A, CNAME, AAAA = 1, 5, 28

def name_wire(name):
    return b"".join(bytes([len(p)]) + p.encode() for p in name.split(".") if p) + b"\0"

def parse_question(msg):
    i, labels = 12, []
    while msg[i]:
        labels.append(msg[i + 1:i + 1 + msg[i]].decode())
        i += 1 + msg[i]
    qtype, = struct.unpack("!H", msg[i + 1:i + 3])
    return ".".join(labels).lower(), qtype, msg[12:i + 5]

def rr(name, rtype, data):
    return name_wire(name) + struct.pack("!HHIH", rtype, 1, 60, len(data)) + data

def answer(msg):
    name, qtype, question = parse_question(msg)
    qid, = struct.unpack("!H", msg[:2])
    rcode, answers = 0, []
    if name == "silent.repro.test":
        return None
    later_on = os.path.exists(os.path.join(os.path.dirname(sys.argv[1]), "later.on"))
    if name == "later.repro.test" and later_on and qtype == A:
        answers.append(rr(name, A, socket.inet_aton("127.0.0.1")))
    elif name == "later.repro.test":
        rcode = 3 if not later_on else 0
    elif name == "bad.repro.test":
        rcode = 3
    elif name == "broken.repro.test":
        rcode = 2
    elif name in ("good.repro.test", "alias.repro.test", "tcp.repro.test") and qtype == A:
        ip = "127.0.0.2" if name == "tcp.repro.test" else "127.0.0.1"
        if name == "alias.repro.test":
            answers.append(rr(name, CNAME, name_wire("good.repro.test")))
            name = "good.repro.test"
        answers.append(rr(name, A, socket.inet_aton(ip)))
    elif not name.endswith("repro.test"):
        rcode = 5
    flags = 0x8180 | rcode
    return struct.pack("!HHHHHH", qid, flags, 1, len(answers), 0, 0) + question + b"".join(answers)

def serve_udp(s):
    while True:
        msg, peer = s.recvfrom(4096)
        reply = answer(msg)
        if reply is not None:
            s.sendto(reply, peer)

def serve_tcp_conn(c):
    with c:
        while True:
            head = c.recv(2)
            if len(head) < 2:
                return
            n, = struct.unpack("!H", head)
            msg = b""
            while len(msg) < n:
                chunk = c.recv(n - len(msg))
                if not chunk:
                    return
                msg += chunk
            reply = answer(msg)
            if reply is not None:
                c.sendall(struct.pack("!H", len(reply)) + reply)

def serve_tcp(s):
    while True:
        c, _ = s.accept()
        threading.Thread(target=serve_tcp_conn, args=(c,), daemon=True).start()

udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
udp.bind(("127.0.0.1", 53))
tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
tcp.bind(("127.0.0.1", 53))
tcp.listen(16)
threading.Thread(target=serve_tcp, args=(tcp,), daemon=True).start()
open(sys.argv[1], "w").close()
serve_udp(udp)
