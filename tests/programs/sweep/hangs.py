"""A startup that connects to its backend (the address in backend.addr)
without a timeout, after starting a helper process: under a blackhole
the connect never completes, a sweep calls it hung and kills the whole
tree, the helper included."""
import socket
import subprocess
import sys

helper = subprocess.Popen(["sleep", "300"])
host, port = open("backend.addr").read().split(":")
try:
    with socket.create_connection((host, int(port))) as s:
        s.sendall(b"GET / HTTP/1.0\r\n\r\n")
        s.recv(100)
finally:
    helper.kill()
print("backend reachable")
