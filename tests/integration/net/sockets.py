#!/usr/bin/python3
"""Socket calls strace puts in %network, each printing what it saw.

socketpair, setsockopt (one that works, one that fails), getsockname of a
bound socket, getpeername of an unconnected one (ENOTCONN), a receive on an
empty non-blocking socket (EAGAIN) and a send to a peer that closed (EPIPE;
Python ignores SIGPIPE).  Prints one line per call, so its own stdout is
the oracle.
"""
import errno
import socket


def outcome(what, fn):
    try:
        val = fn()
        print("%s = %s" % (what, val))
    except OSError as e:
        print("%s = -1 %s" % (what, errno.errorcode[e.errno]))


a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
print("socketpair(AF_UNIX, SOCK_STREAM) = [%d, %d]" % (a.fileno(), b.fileno()))
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
outcome("setsockopt(SOL_SOCKET, SO_REUSEADDR, 1)",
        lambda: s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1) or 0)
outcome("setsockopt(SOL_SOCKET, 9999, 1)", lambda: s.setsockopt(socket.SOL_SOCKET, 9999, 1) or 0)
s.bind(("127.0.0.1", 0))
print("getsockname() = 127.0.0.1 port %s" % ("non-zero" if s.getsockname()[1] else "0"))
outcome("getpeername()", lambda: s.getpeername() and 0)
a.setblocking(False)
outcome("recv(empty, non-blocking)", lambda: len(a.recv(16)))
b.close()
outcome("send(peer closed)", lambda: a.send(b"x"))
a.close()
s.close()
